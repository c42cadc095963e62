"""Navies (the seed's "Navies" section): superiority, blockades, embarking, naval movement, debarking.

A navy is an army whose hex is a Coast or Sea hex: the same army (number, faction,
strength) "becomes" a navy on entering its first non-land hex and an army again when
it debarks.  There is no separate navy record.

Everything here is pure: functions of the static :class:`~engine.vae_victis.model.Board`
and a :class:`~engine.vae_victis.model.CampaignState`.  Every number comes from
``board.rules.naval`` (datasets/rules/vae-victis-ii.toml).
"""

from __future__ import annotations

from typing import Mapping

from tabula.engine.vae_victis.model import Army, Board, CampaignState
from tabula.engine.vae_victis.zoc import controller_of, navy_zoc

__all__ = [
    "NAVAL_KINDS",
    "blockaded_structures",
    "can_embark",
    "is_navy",
    "navy_cells",
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
