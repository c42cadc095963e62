"""Zones of Control (the seed's "Zones of Control (ZoC)" section).

* Army: its own hex and the land hexes around it (1 hex).
* Navy: its own hex and every hex around it (1 hex).  Navies belong to the naval
  issue; here they are an input (the cells of each faction's navies).
* Town: its own hex (always land), plus the Coast hexes 1 hex around.
* City: its own hex and the land hexes 1 hex around, plus the Coast hexes
  within 2 hexes.
* A sieged structure and a structure controlled by nobody exercise no ZoC.

"Around" is counted in steps between adjacent hexes of the board (``board.sides``),
which equals the H3 grid distance away from pentagons and map edges.

A structure's controller is ``state.control[name]``; a structure missing from
``state.control`` keeps its start controller (the same rule the SQL views use,
so Python and SQL agree).

The SQL views in ``engine/vae_victis/sql/zoc/`` compute the same relations on the state
tables for the umpire; :func:`install_zoc_views` creates them.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Iterable, Mapping

from bellica.engine.vae_victis.model import Board, CampaignState, StructureInfo
from bellica.geo.spatialdb import run_sql_file

__all__ = [
    "ZocSource",
    "army_zoc",
    "cells_within",
    "controller_of",
    "enemy_army_zoc",
    "enemy_navy_zoc",
    "enemy_structure_zoc",
    "enemy_zoc",
    "install_zoc_views",
    "kept_within_army_zoc",
    "navy_zoc",
    "navy_zoc_cells",
    "structure_exerts_zoc",
    "structure_zoc",
    "zoc_sources",
    "ZOC_VIEWS",
]

ZOC_VIEWS = ("structure_zoc_reach", "army_zoc", "structure_zoc", "navies", "navy_zoc", "zoc")
"""The SQL views of ``engine/vae_victis/sql/zoc/``, in creation order (``zoc`` unions the armies',
the navies' and the structures')."""


def next_ring(board: Board, frontier: list[str], dist: dict[str, int], step: int) -> list[str]:
    """The hexes next to ``frontier`` not yet in ``dist``, each entered in ``dist`` at ``step``, in
    the order first reached: one step of a breadth-first walk over adjacent hexes of any kind."""
    ring = []
    for c in frontier:
        for n in board.sides.get(c, {}).values():
            if n not in dist:
                dist[n] = step
                ring.append(n)
    return ring


def cells_within(board: Board, cell: str, k: int) -> dict[str, int]:
    """{cell: steps} for every hex of the board within ``k`` steps of ``cell`` (itself at 0)."""
    dist = {cell: 0}
    frontier = [cell]
    for step in range(1, k + 1):
        frontier = next_ring(board, frontier, dist, step)
    return dist


def army_zoc(board: Board, cell: str) -> frozenset[str]:
    """An army's ZoC: its own hex plus the land hexes around it."""
    around = {n for n in board.sides.get(cell, {}).values() if board.hexes[n].kind == "land"}
    return frozenset(around | {cell})


def navy_zoc(board: Board, cell: str) -> frozenset[str]:
    """A navy's ZoC: its own hex plus every hex around it."""
    return frozenset(set(board.sides.get(cell, {}).values()) | {cell})


def structure_zoc(board: Board, structure: StructureInfo) -> frozenset[str]:
    """The hexes a structure *would* control (ignoring who controls it and sieges); the reaches
    are ``board.rules.zoc`` (seed: Town its hex and Coast 1 around; City land 1, Coast 2)."""
    out = {structure.cell}
    z = board.rules.zoc
    town = structure.kind == "town"
    coast_reach = z.town_coast_hexes if town else z.city_coast_hexes
    land_reach = z.town_land_hexes if town else z.city_land_hexes
    for c, d in cells_within(board, structure.cell, max(coast_reach, land_reach)).items():
        kind = board.hexes[c].kind
        if (kind == "coast" and d <= coast_reach) or (kind == "land" and d <= land_reach):
            out.add(c)
    return frozenset(out)


def controller_of(state: CampaignState, structure: StructureInfo) -> str | None:
    """The current controller (the start controller when the state does not name the structure)."""
    return state.control.get(structure.name, structure.start_controller)


def structure_exerts_zoc(state: CampaignState, structure: StructureInfo) -> bool:
    """Controlled by some faction and not sieged (the seed: otherwise no ZoC at all)."""
    return controller_of(state, structure) is not None and state.siege_of(structure.name) is None


@dataclass(frozen=True)
class ZocSource:
    """One thing exercising a ZoC: ``kind`` army/structure/navy, ``source`` its id or name."""

    kind: str
    source: str
    faction: str
    cells: frozenset[str]

    def describe(self) -> str:
        if self.kind == "army":
            return f"army {self.source} ({self.faction})"
        if self.kind == "navy":
            return f"navy {self.source} ({self.faction})" if self.source.isdigit() else f"navy at {self.source} ({self.faction})"
        return f"{self.source} ({self.faction})"


def zoc_sources(
    board: Board,
    state: CampaignState,
    navy_cells: Mapping[str, Iterable[str]] | None = None,
) -> list[ZocSource]:
    """Every ZoC on the board now: armies (not eliminated), exercising structures, given navies."""
    out = []
    for a in state.armies:
        if not a.eliminated and a.cell is not None:
            if board.hexes[a.cell].kind == "land":
                out.append(ZocSource("army", str(a.id), a.faction, army_zoc(board, a.cell)))
            else:  # an army at sea is a navy (engine.vae_victis.naval)
                out.append(ZocSource("navy", str(a.id), a.faction, navy_zoc(board, a.cell)))
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if structure_exerts_zoc(state, s):
            out.append(ZocSource("structure", s.name, controller_of(state, s), structure_zoc(board, s)))
    for faction, cells in sorted((navy_cells or {}).items()):
        for c in sorted(cells):
            out.append(ZocSource("navy", c, faction, navy_zoc(board, c)))
    return out


def _enemy_cells(sources: Iterable[ZocSource], faction: str, kinds: set[str]) -> frozenset[str]:
    cells: set[str] = set()
    for s in sources:
        if s.kind in kinds and s.faction != faction:
            cells |= s.cells
    return frozenset(cells)


def enemy_army_zoc(board: Board, state: CampaignState, faction: str) -> frozenset[str]:
    """Hexes in the ZoC of an army of another faction."""
    return _enemy_cells(zoc_sources(board, state), faction, {"army"})


def enemy_structure_zoc(board: Board, state: CampaignState, faction: str) -> frozenset[str]:
    """Hexes in the ZoC of a structure controlled by another faction (and not sieged)."""
    return _enemy_cells(zoc_sources(board, state), faction, {"structure"})


def navy_zoc_cells(board: Board, navy_cells: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """{faction: hexes in the ZoC of that faction's navies} from {faction: navy cells}."""
    out = {}
    for faction, cells in navy_cells.items():
        z: set[str] = set()
        for c in cells:
            z |= navy_zoc(board, c)
        out[faction] = frozenset(z)
    return out


def enemy_navy_zoc(board: Board, navy_cells: Mapping[str, Iterable[str]], faction: str) -> frozenset[str]:
    """Hexes in the ZoC of a navy of another faction."""
    z: set[str] = set()
    for f, cells in navy_zoc_cells(board, navy_cells).items():
        if f != faction:
            z |= cells
    return frozenset(z)


def enemy_zoc(
    board: Board,
    state: CampaignState,
    faction: str,
    navy_cells: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, list[ZocSource]]:
    """{hex: the other factions' ZoC sources covering it} for ``faction``."""
    out: dict[str, list[ZocSource]] = {}
    for s in zoc_sources(board, state, navy_cells):
        if s.faction != faction:
            for c in s.cells:
                out.setdefault(c, []).append(s)
    return out


def kept_within_army_zoc(board: Board, path: Iterable[str], structure_cell: str) -> bool:
    """True when an army at every hex of ``path`` has ``structure_cell`` in its ZoC
    (the condition for a besieging army to move and keep its siege)."""
    return all(structure_cell in army_zoc(board, c) for c in path)


# --- SQL views -------------------------------------------------------------------

def _sql_dir() -> Path:
    return Path(str(resources.files("bellica.engine.vae_victis") / "sql" / "zoc"))


def install_zoc_views(con) -> None:
    """Create (or replace) the views army_zoc, structure_zoc, navies, navy_zoc and zoc on ``con``.

    They read ``hexes``, ``hex_neighbors``, ``hex_sea_zones``, ``structures`` and the state tables
    ``armies``, ``control``, ``sieges``, which must exist.
    """
    for name in ZOC_VIEWS:
        run_sql_file(con, _sql_dir() / f"{name}.sql")
