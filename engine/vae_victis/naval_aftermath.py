"""After the naval battles (the seed's "Naval battles" section, :mod:`engine.vae_victis.naval_battles`):
the losers' retreat to port, the draws falling back and the winners' advance, in that order.

Pure, as the battles are: functions of the static :class:`~engine.vae_victis.model.Board`, the
:class:`~engine.vae_victis.model.CampaignState` after movement and the battles fought.  The rules,
and the decisions taken where the seed is silent (docs/rules/naval.md, "Naval battles"):

* **Losers** (every navy of a beaten faction in that battle): each goes to the closest Town or City
  that its faction controls, unbesieged, unblockaded (``naval.blockaded_structures`` on the state
  after movement, before any retreat), adjacent to a Coast hex of a zone where its level is at least
  ``retreat_min_superiority``, not occupied by another army, and at least the band's
  ``retreat_hexes`` away.  Distance = the length of the shortest path over Coast and Sea hexes
  (never Ocean, Lake or land) from the navy's hex to a Coast hex adjacent to the port; the path is
  pure geography (other navies do not block it).  Ties: the structure's name.  It lands there as an
  army (its cell = the structure's cell) and rests: ``navy_rest[army] = round + inactive_rounds``
  (it may not act as a navy through that round).  No qualifying port that far: ``no_port =
  "nearest"`` takes the nearest qualifying port at any distance, ``"eliminate"`` eliminates it;
  no qualifying port at all: irrevocably eliminated.  Losers of every battle choose in army-number
  order: the lower number gets a port two want, the next takes its next closest.
* **Draws** (every navy of a drawing faction): in army-number order, each moves
  ``draw_retreat_hexes`` times one hex to an adjacent Coast hex (never Sea: it would sink at round
  end) free of armies (as they stand now, earlier movers included) and farther (in steps) from the
  nearest of the hexes where the enemy navies of its battle fought (both sides fall back at once);
  a hex outside every enemy navy's ZoC (where they stand now) is preferred, then the farthest, then
  the lowest clock side.  No such hex: it stays.
* **Winners' advance**, after the losers and draws moved: for each hex vacated by a beaten navy
  (retreated or eliminated; in army order of the losers), the lowest-numbered winning navy of that
  battle adjacent to it that has not advanced yet advances into it, if it is a Coast hex (never a
  Sea hex, which would sink it) and free of armies.  One advance per navy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping, Sequence

from bellica.engine.vae_victis.model import Army, Board, CampaignState, Event, Phase
from bellica.engine.vae_victis.naval_superiority import NAVAL_KINDS, blockaded_structures, superiority_level, zones_of
from bellica.engine.vae_victis.rules import NavalOutcome
from bellica.engine.vae_victis.zoc import controller_of, navy_zoc, next_ring

if TYPE_CHECKING:
    from bellica.engine.vae_victis.naval_battles import NavalBattle, NavyInBattle

__all__ = ["Aftermath", "after_battles"]

PHASE = Phase.BATTLES.value


def _water_distances(board: Board, start: str) -> dict[str, int]:
    """Steps from ``start`` to every Coast/Sea hex reachable over Coast/Sea hexes."""
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for c in frontier:
            for n in board.sides.get(c, {}).values():
                if n not in dist and board.hexes[n].kind in NAVAL_KINDS:
                    dist[n] = dist[c] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


def _ports(board: Board, state: CampaignState, faction: str, blockaded: Mapping[str, object]) -> dict[str, list[str]]:
    """{structure: its adjacent Coast hexes} for the faction's ports a beaten navy may retreat to
    (occupation is checked later, as losers land one by one)."""
    need = board.rules.naval.retreat_min_superiority
    out = {}
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if controller_of(state, s) != faction or state.siege_of(s.name) is not None or s.name in blockaded:
            continue
        coasts = [n for n in board.sides.get(s.cell, {}).values() if board.hexes[n].kind == "coast"]
        if any(superiority_level(board, state, z, faction) >= need for c in coasts for z in zones_of(board, c)):
            out[s.name] = coasts
    return out


def _steps_around(board: Board, sources: Sequence[str], target: str) -> dict[str, int]:
    """Steps (between adjacent hexes, any kind) from the nearest of ``sources``, for every hex up
    to one step beyond ``target`` (enough to compare ``target`` with its neighbours)."""
    dist = {c: 0 for c in sources}
    frontier = list(sources)
    step = 0
    stop = None
    while frontier and (stop is None or step < stop):
        if stop is None and target in dist:
            stop = dist[target] + 1
            if step >= stop:
                break
        step += 1
        frontier = next_ring(board, frontier, dist, step)
    return dist


@dataclass
class Aftermath:
    """Where every navy stands as the battles' losers, drawers and winners move, and what was said."""

    cells: dict[int, str]  # live army -> hex
    rest: dict[int, int]  # navy -> last round it may not act as a navy
    retreats: dict[int, str] = field(default_factory=dict)  # loser -> the port it retreated to
    eliminated: list[int] = field(default_factory=list)
    moved: dict[int, tuple[str, str]] = field(default_factory=dict)
    vacated: list[tuple[int, str, NavalBattle]] = field(default_factory=list)  # (loser, hex, battle)
    events: list[Event] = field(default_factory=list)


def after_battles(board: Board, state: CampaignState, battles: Sequence[NavalBattle],
                  armies: Mapping[int, Army]) -> Aftermath:
    """Where every live army stands once the ``battles``' losers, drawers and winners have moved,
    the navies' rest, and the events saying so: the losers first (every battle at once), then the
    draws, then the winners into the hexes the losers left."""
    after = Aftermath(cells={a_id: a.cell for a_id, a in armies.items() if not a.eliminated},
                      rest=dict(state.navy_rest))
    _retreat_losers(board, state, battles, after)
    _fall_back_draws(board, state, battles, armies, after)
    _advance_winners(board, state, after)
    return after


def _label(board: Board, cell: str) -> str:
    s = board.structure_at(cell)
    return f"{cell} ({s.name})" if s else cell


def _retreat_losers(board: Board, state: CampaignState, battles: Sequence[NavalBattle], after: Aftermath) -> None:
    """Every beaten navy, in army order, retreats to a port of its faction or is eliminated."""
    naval = board.rules.naval
    blockaded = blockaded_structures(board, state)
    ports_by_faction: dict[str, dict[str, list[str]]] = {}
    losers = sorted(((n, b) for b in battles for n in b.navies if n.faction in b.losers), key=lambda x: x[0].army)
    by_name = {o.name: o for o in naval.outcomes}
    for n, b in losers:
        band = by_name[b.outcomes[n.faction]]
        ports = ports_by_faction.setdefault(n.faction, _ports(board, state, n.faction, blockaded))
        d, port, fallback, reach = _retreat_port(board, n, band, ports, after.cells)
        after.vacated.append((n.army, n.cell, b))
        if port is None:
            _eliminate_loser(board, state, n, b, band, bool(reach), after)
            continue
        s = board.structures[port]
        after.cells[n.army] = s.cell
        after.retreats[n.army] = port
        after.rest[n.army] = state.round + band.inactive_rounds
        far_text = (f"no port lies {band.retreat_hexes} hexes away, so it takes the nearest, {port}, {d} hexes away"
                    if fallback else f"retreats {d} Coast/Sea hexes (at least {band.retreat_hexes}) to {port}")
        after.events.append(Event(state.round, PHASE, "navy_retreated", {
            "army": n.army, "faction": n.faction, "battle": b.number, "reason": "defeat", "outcome": band.name,
            "from": n.cell, "to": s.cell, "structure": port, "distance": d, "required": band.retreat_hexes,
            "nearest_fallback": fallback, "rest_until": after.rest[n.army],
        }, f"navy {n.army} ({n.faction}) lost naval battle {b.number} ({band.name} defeat): {far_text} and lands "
           f"there as an army; it may not act as a navy until round {after.rest[n.army] + 1}"))


def _retreat_port(board: Board, n: NavyInBattle, band: NavalOutcome, ports: Mapping[str, list[str]], cells: Mapping[int, str]):
    """``(distance, port, nearest_fallback, reach)``: the nearest unoccupied port at least the band's
    retreat distance away by sea, else (option no_port "nearest") the nearest one; port None when
    neither; ``reach`` every port reachable by sea, nearest first."""
    dist = _water_distances(board, n.cell)
    occupied = {c for a_id, c in cells.items() if a_id != n.army}
    reach = sorted((min(dist[c] for c in coasts if c in dist), name) for name, coasts in ports.items()
                   if any(c in dist for c in coasts) and board.structures[name].cell not in occupied)
    far = [r for r in reach if r[0] >= band.retreat_hexes]
    if far:
        d, port = far[0]
        return d, port, False, reach
    if reach and board.rules.naval.no_port == "nearest":
        d, port = reach[0]
        return d, port, True, reach
    return None, None, False, reach


def _eliminate_loser(board: Board, state: CampaignState, n: NavyInBattle, b: NavalBattle, band: NavalOutcome, reach: bool,
                     after: Aftermath) -> None:
    """A beaten navy with no port to retreat to is irrevocably eliminated."""
    naval = board.rules.naval
    after.cells.pop(n.army)
    after.eliminated.append(n.army)
    if reach:
        why = (f"no port of its faction lies {band.retreat_hexes} Coast/Sea hexes away and the option "
               f"no_port is \"eliminate\"")
    else:
        why = (f"no unbesieged, unblockaded, unoccupied port of its faction in a zone where its superiority is "
               f"at least {naval.retreat_min_superiority} can be reached by sea")
    after.events.append(Event(state.round, PHASE, "navy_eliminated", {
        "army": n.army, "faction": n.faction, "battle": b.number, "cell": n.cell, "outcome": band.name,
        "reason": "no_port_far_enough" if reach else "no_port",
    }, f"navy {n.army} ({n.faction}) lost naval battle {b.number} ({band.name} defeat): {why}; "
       f"it is irrevocably eliminated"))


def _fall_back_draws(board: Board, state: CampaignState, battles: Sequence[NavalBattle], armies: Mapping[int, Army],
                     after: Aftermath) -> None:
    """Every navy that drew, in army order, falls back away from where the enemy navies of its battle
    fought (both sides fall back at once), or stays when no free Coast hex lies farther."""
    cells = after.cells
    drawers = sorted(((n, b) for b in battles for n in b.navies if n.faction in b.drawn), key=lambda x: x[0].army)
    for n, b in drawers:
        enemies = [m.cell for m in b.navies if m.faction != n.faction]
        here = start = cells[n.army]
        steps = board.rules.naval.draw_retreat_hexes
        for _ in range(steps):
            step = _draw_step(board, armies, cells, n.faction, enemies, here)
            if step is None:
                break
            here = step
            cells[n.army] = here
        if here == start:
            after.events.append(Event(state.round, PHASE, "navy_stayed", {
                "army": n.army, "faction": n.faction, "battle": b.number, "cell": start, "reason": "draw",
            }, f"navy {n.army} ({n.faction}) drew naval battle {b.number} but finds no free Coast hex farther "
               f"from the enemy: it stays at {_label(board, start)}"))
        else:
            after.moved[n.army] = (start, here)
            after.events.append(Event(state.round, PHASE, "navy_retreated", {
                "army": n.army, "faction": n.faction, "battle": b.number, "reason": "draw",
                "from": start, "to": here, "distance": steps,
            }, f"navy {n.army} ({n.faction}) drew naval battle {b.number} and falls back "
               f"{'one hex' if steps == 1 else f'{steps} hexes'} to {_label(board, here)}"))


def _draw_step(board: Board, armies: Mapping[int, Army], cells: Mapping[int, str], faction: str,
               enemies: Sequence[str], here: str) -> str | None:
    """The free Coast hex next to ``here`` one step farther from ``enemies``: outside enemy navies' ZOC
    first, then the farthest, then the lowest clock side; None when there is none."""
    far = _steps_around(board, enemies, here)
    d_here = far.get(here, 0)
    enemy_zoc = set()
    for a_id, c in cells.items():
        if armies[a_id].faction != faction and board.hexes[c].kind in NAVAL_KINDS:
            enemy_zoc |= navy_zoc(board, c)
    taken = set(cells.values())
    options = []
    for clock, c in sorted(board.sides.get(here, {}).items()):
        if board.hexes[c].kind != "coast" or c in taken:
            continue
        d = far.get(c, d_here + 1)
        if d > d_here:
            options.append((c in enemy_zoc, -d, clock, c))
    if not options:
        return None
    return min(options)[3]


def _advance_winners(board: Board, state: CampaignState, after: Aftermath) -> None:
    """Winners advance into the Coast hexes their beaten enemies left, one navy a hex, in army order."""
    cells = after.cells
    advanced: set[int] = set()
    for loser, hex_, b in after.vacated:
        if board.hexes[hex_].kind != "coast" or hex_ in set(cells.values()):
            continue
        around = set(board.sides.get(hex_, {}).values())
        for n in b.navies:  # army order
            if n.faction in b.winners and n.army not in advanced and cells.get(n.army) == n.cell and n.cell in around:
                advanced.add(n.army)
                cells[n.army] = hex_
                after.moved[n.army] = (n.cell, hex_)
                after.events.append(Event(state.round, PHASE, "navy_advanced", {
                    "army": n.army, "faction": n.faction, "battle": b.number, "from": n.cell, "to": hex_,
                    "vacated_by": loser,
                }, f"navy {n.army} ({n.faction}) won naval battle {b.number} and advances into "
                   f"{_label(board, hex_)}, vacated by navy {loser}"))
                break
