"""Navies' standing at sea: superiority, blockades, who may embark, NMP pools and costs.

A navy is an army whose hex is a Coast or Sea hex (:mod:`engine.vae_victis.naval` has the
overview).  The functions here are the ones the other naval modules, the orders, the straits and
the administration share: pure functions of the static :class:`~engine.vae_victis.model.Board`
and a :class:`~engine.vae_victis.model.CampaignState`, every number from ``board.rules.naval``
and ``board.rules.zoc`` (datasets/rules/vae-victis-ii.toml).
"""

from __future__ import annotations

from typing import Mapping

from bellica.engine.vae_victis.model import Army, Board, CampaignState
from bellica.engine.vae_victis.order_errors import OrderProblem
from bellica.engine.vae_victis.zoc import controller_of, navy_zoc

__all__ = [
    "NAVAL_KINDS",
    "all_zones",
    "blockaded_structures",
    "can_embark",
    "is_navy",
    "naval_step_cost",
    "navy_cells",
    "nmp_pools",
    "superiority_level",
    "zones_of",
]


#: The hex kinds a navy may be in (never Ocean or Lake).
NAVAL_KINDS = ("coast", "sea")


def superiority_level(board: Board, state: CampaignState, zone: str, faction: str) -> int:
    """``faction``'s naval superiority in ``zone`` now (the rules' base level where none was published)."""
    return int(state.superiority.get(zone, {}).get(faction, board.rules.naval.superiority_base))


def zones_of(board: Board, cell: str) -> frozenset[str]:
    """The sea zones a hex belongs to (two for a hex on a zone border, none for land)."""
    return board.sea_zones.get(cell, frozenset())


def all_zones(board: Board) -> tuple[str, ...]:
    """Every sea zone of the board, sorted."""
    return tuple(sorted({z for zs in board.sea_zones.values() for z in zs}))


def is_navy(board: Board, army: Army) -> bool:
    """A live army on a Coast or Sea hex."""
    return not army.eliminated and army.cell is not None and board.hexes[army.cell].kind in NAVAL_KINDS


def navy_cells(board: Board, state: CampaignState) -> dict[str, frozenset[str]]:
    """{faction: hexes of its navies} (factions without navies are left out)."""
    out: dict[str, set[str]] = {}
    for a in state.armies:
        if is_navy(board, a):
            out.setdefault(a.faction, set()).add(a.cell)
    return {f: frozenset(c) for f, c in sorted(out.items())}


def blockaded_structures(board: Board, state: CampaignState) -> dict[str, frozenset[str]]:
    """{structure: factions of the navies blockading it}: a Town or City in the ZoC (its hex and
    every hex around) of a navy of another faction than its controller (any navy when nobody
    controls it) is blockaded (seed, "Blockades")."""
    by_cell: dict[str, set[str]] = {}
    for faction, cells in navy_cells(board, state).items():
        for c in cells:
            for z in navy_zoc(board, c):
                by_cell.setdefault(z, set()).add(faction)
    out = {}
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        owner = controller_of(state, s)
        navies = frozenset(f for f in by_cell.get(s.cell, ()) if f != owner)
        if navies:
            out[s.name] = navies
    return out


def can_embark(board: Board, state: CampaignState, army: Army, blockaded: Mapping[str, object] | None = None) -> str | None:
    """Why ``army`` may not move by sea from where it stands at the round's start (None: it may).

    Seed, "Naval movement": it ended the last round in a Town or City adjacent to a Coast hex that
    is neither besieged nor blockaded (and still is when it moves: ``state`` is the start of movement);
    an army beaten at sea may not act as a navy while it rests (``state.navy_rest``)."""
    if army.eliminated or army.cell is None:
        return "the army is eliminated"
    rest = state.navy_rest.get(army.id)
    if rest is not None and rest >= state.round:
        return f"it lost a naval battle and may not act as a navy until round {rest + 1}"
    s = board.structure_at(army.cell)
    if s is None:
        return "it is not in a Town or City (an army embarks from a coastal Town or City it ended the last round in)"
    if not any(board.hexes[n].kind == "coast" for n in board.sides.get(s.cell, {}).values()):
        return f"{s.name} is not adjacent to a Coast hex"
    if state.siege_of(s.name) is not None:
        return f"{s.name} is besieged"
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    if s.name in blockaded:
        return f"{s.name} is blockaded"
    return None


# --- NMP --------------------------------------------------------------------------------------


def nmp_pools(board: Board, state: CampaignState, faction: str) -> dict[str, int]:
    """{zone: NMP} for every sea zone of the board: ``faction``'s level there x
    ``movement_points_per_superiority`` (seed: 24 NMP per Naval Superiority point)."""
    per = board.rules.naval.movement_points_per_superiority
    return {z: superiority_level(board, state, z, faction) * per for z in all_zones(board)}


def naval_step_cost(board: Board, cell: str) -> int | None:
    """NMP for a navy to enter ``cell`` (seed: Coast 1, Sea 4); None for a hex no navy enters
    (land, Ocean, Lake, or a kind ``move_nmp`` does not price)."""
    kind = board.hexes[cell].kind
    if kind not in NAVAL_KINDS:
        return None
    return board.rules.naval.move_nmp.get(kind)


def _not_sailable(board: Board, cell: str) -> str | None:
    """Why a navy cannot enter ``cell`` (None when it can)."""
    h = board.hexes[cell]
    if h.kind == "land":
        return "land hex (a navy sails on Coast and Sea hexes only; it lands by debarking in administration step 3)"
    if h.kind == "ocean":
        return "ocean hex (navies never enter Ocean hexes)"
    if naval_step_cost(board, cell) is None:
        return f"{h.kind} hex (navies sail on Coast and Sea hexes only)"
    if not zones_of(board, cell):
        return f"{h.kind} hex in no sea zone (no NMP pool pays for it)"
    return None


def _naval_walk(board: Board, start: str, moves: tuple[int, ...], army: int | None) -> tuple[list[str], list[OrderProblem]]:
    """The hexes entered (start first; 0s add nothing) and the first problem of a naval move string."""
    here, path = start, [start]
    text = '"' + " ".join(str(m) for m in moves) + '"'
    for index, clock in enumerate(moves, 1):
        if clock == 0:
            continue
        sides = board.sides.get(here, {})
        if clock not in sides:
            valid = " ".join(str(c) for c in sorted(sides)) or "none"
            return path, [OrderProblem(army, "moves", f"clock {clock} in {text}: hex {here} has no side at that "
                                                      f"clock position on the map; valid clock positions here: {valid}",
                                       index)]
        target = sides[clock]
        reason = _not_sailable(board, target)
        if reason:
            return path, [OrderProblem(army, "moves", f"clock {clock} in {text} from hex {here} enters hex {target}: "
                                                      f"{reason}", index)]
        here = target
        path.append(here)
    return path, []


def _pay_zone(board: Board, target: str, came_from: str, left: Mapping[str, int], cost: int) -> str | None:
    """The zone whose NMP pay the move into ``target`` (None: no zone of the hex can pay)."""
    payable = [z for z in zones_of(board, target) if left.get(z, 0) >= cost]
    if not payable:
        return None
    if board.rules.naval.border_pool == "came_from":
        own = [z for z in payable if z in zones_of(board, came_from)]
        if own:
            payable = own
    return min(payable, key=lambda z: (-left.get(z, 0), z))
