"""What a Vae Victis II bot reads of the board: the position as its player view shows it, and
the ways across it (the engine's own movement costs and path rules).

:class:`Aid` is the public help a bot's seat is given beside its view (:meth:`VaeVictisII.bot_aid`):
the static board (the map every player has) and the published naval superiority and navy rests.
:func:`public_state` rebuilds a :class:`~.model.CampaignState` from the view alone: every army's
hex (counters are on the board), its own armies' strength (another faction's reads 0: the view
hides it), control and sieges.  The legality checks (:mod:`.order_checks`) and path walking
(:mod:`.order_paths`) run on it exactly as on the umpire's state: no rule they apply reads
another faction's strength.

:func:`land_reach` is a shortest-path search over land hexes with :func:`~.movement_entry.entry_cost`
(the one MP rule), stopping where an enemy zone of control halts an army; :func:`sea_reach` the
same over Coast and Sea hexes where the faction's naval superiority lets a navy move.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Mapping

from bellica.engine.vae_victis.model import Army, Board, CampaignState, Phase, Siege
from bellica.engine.vae_victis.naval_superiority import NAVAL_KINDS, superiority_level
from bellica.engine.vae_victis.order_paths import impassable_reason, naval_impassable_reason

__all__ = ["Aid", "Position", "public_state", "land_reach", "sea_reach", "moves_of", "hexes_within"]


@dataclass(frozen=True)
class Aid:
    """The public help of a bot: the static board, the naval superiority in force ({zone: {faction:
    level}}) and the navies resting after a lost naval battle ({army: last round})."""

    board: Board
    superiority: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    navy_rest: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Position:
    """A seat's position: the rebuilt state, the enemy zone of control, the faction's supplied
    structures (its lines of supply) and the faction."""

    state: CampaignState
    faction: str
    enemy_zoc: frozenset[str]
    supplied: frozenset[str]


def _features(view, name: str) -> list[dict]:
    for layer in view.layers:
        if layer.name == name:
            return [dict(f.properties) for f in layer.features]
    return []


def public_state(view, aid: Aid) -> Position:
    """The position of ``view``'s faction, from its player view and the :class:`Aid` (module doc)."""
    armies = tuple(sorted((Army(int(a["id"]), a["faction"], a["cell"], int(a["strength"] or 0))
                           for a in _features(view, "armies")), key=lambda a: a.id))
    control = {c["structure"]: c["controller"] for c in _features(view, "control")}
    sieges = tuple(Siege(s["structure"], s["faction"], tuple(int(x) for x in str(s["armies"] or "").split(",") if x.strip()),
                         int(s["resilience"]), int(s["start_resilience"]), int(s["started_round"]))
                   for s in _features(view, "sieges"))
    phase = Phase(view.phase) if view.phase in Phase._value2member_map_ else Phase.ORDERS
    state = CampaignState(round=int(view.round), phase=phase, armies=armies, control=control, sieges=sieges,
                          superiority=aid.superiority, navy_rest=dict(aid.navy_rest))
    me = view.viewer
    zoc = frozenset(z["cell"] for z in _features(view, "zoc") if z["faction"] not in (None, me))
    supplied = frozenset(s["structure"] for s in _features(view, "supplied_structures") if s["faction"] == me)
    return Position(state, me, zoc, supplied)


def land_reach(board: Board, pos: Position, start: str, limit: int) -> dict[str, tuple[int, tuple[int, ...]]]:
    """{hex: (MP, clock moves)} an army of the faction reaches from ``start`` within ``limit`` MP by
    land: cheapest first, never into a hex an enemy army holds, and no further from a hex in an
    enemy zone of control (the army halts there)."""
    from bellica.engine.vae_victis.movement_entry import entry_cost

    held = {a.cell for a in pos.state.armies if a.faction != pos.faction}
    best: dict[str, tuple[int, tuple[int, ...]]] = {start: (0, ())}
    queue = [(0, (), start)]
    while queue:
        mp, moves, here = heapq.heappop(queue)
        if best.get(here, (None,))[0] != mp or best[here][1] != moves:
            continue
        if here != start and here in pos.enemy_zoc:
            continue
        for clock, there in sorted(board.sides.get(here, {}).items()):
            if there in held or impassable_reason(board, there):
                continue
            try:
                cost = entry_cost(board, here, there, pos.faction).mp
            except ValueError:
                continue
            total = mp + cost
            if total > limit:
                continue
            path = moves + (clock,)
            known = best.get(there)
            if known is None or (total, path) < known:
                best[there] = (total, path)
                heapq.heappush(queue, (total, path, there))
    return best


def sea_reach(board: Board, pos: Position, start: str, limit: int) -> dict[str, tuple[int, ...]]:
    """{Coast or Sea hex: clock moves} a navy of the faction reaches from ``start`` in at most
    ``limit`` moves, through hexes of sea zones where its naval superiority is at least 1."""
    def open_(cell: str) -> bool:
        zones = board.sea_zones.get(cell, ())
        return any(superiority_level(board, pos.state, z, pos.faction) >= 1 for z in zones)

    best: dict[str, tuple[int, ...]] = {start: ()}
    frontier = [start]
    while frontier:
        nxt = []
        for here in frontier:
            moves = best[here]
            if len(moves) >= limit:
                continue
            for clock, there in sorted(board.sides.get(here, {}).items()):
                if there in best or naval_impassable_reason(board, there) or not open_(there):
                    continue
                best[there] = moves + (clock,)
                nxt.append(there)
        frontier = nxt
    return {c: m for c, m in best.items() if c != start and board.hexes[c].kind in NAVAL_KINDS}


def moves_of(board: Board, start: str, moves: tuple[int, ...], budget: int) -> tuple[int, ...]:
    """The first moves of a land path that cost at most ``budget`` MP in all (this round's)."""
    from bellica.engine.vae_victis.movement_entry import entry_cost

    out, spent, here = [], 0, start
    faction = ""
    for clock in moves:
        there = board.sides[here][clock]
        try:
            spent += entry_cost(board, here, there, faction).mp
        except ValueError:
            break
        if spent > budget:
            break
        out.append(clock)
        here = there
    return tuple(out)


def hexes_within(board: Board, cell: str, steps: int) -> set[str]:
    """The hexes at most ``steps`` hexes from ``cell`` on the board."""
    seen, frontier = {cell}, [cell]
    for _ in range(steps):
        frontier = [n for c in frontier for n in board.sides.get(c, {}).values() if n not in seen]
        seen.update(frontier)
    return seen
