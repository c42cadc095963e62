"""Crossing straits (the seed's "Crossing straits" section).

A **strait** is a Coast hex adjacent to two land hexes that are not adjacent to each other
(the seed: "any Coast hex being adjacent to two land hexes that are in turn not adjacent to
each other"); the same definition as the map view ``straits`` (schema/map_views.sql), which
lists one row per strait hex and unordered pair of land hexes, the smaller cell first.

An army crosses on land, not by sea: the order is two clock moves, from a land hex into the
strait hex and from there into the land hex across it (the other hex of one of the strait's
pairs).  Movement (:mod:`engine.vae_victis.movement`) takes the pair as one move into the far
land hex at that hex's MP cost (the strait itself costs nothing) and the army stops there.

Decisions where the seed is silent or unclear (the lead's decision 5, docs/rules/naval.md):

* "Not within the ZoC of another faction's army": an army's ZoC covers only land hexes, so read
  literally it would never cover a Coast hex.  We read it as **an army of another faction
  within 1 hex of the strait hex** (on land or at sea: a navy is an army, and its ZoC covers
  every hex around it anyway).  Allies are other factions here, as everywhere in ZoC.
* "Or a City controlled by another faction": the ZoC of an enemy-controlled, unsieged **City**
  (its Coast reach, 2 hexes with the seed's numbers) covering the strait hex.  Towns do not
  count (the seed names only Cities).  Control and sieges are those of the start of the round
  (they change only in administration).
* Superiority: the faction's level is at least ``rules.naval.strait_min_superiority`` in at
  least one of the strait hex's sea zones; a strait hex in no zone (a map without sea zones)
  can then not be crossed unless that minimum is 0.
* When: movement evaluates the conditions when the army **starts** the crossing move, with the
  armies where they stand at that moment of the land simulation (navies and armies moving by
  sea where they stood at the start of the round: the naval simulation moves them separately)
  and superiority as published for the round.  A crossing refused then stops the army on its
  side of the strait for the round, like a move it cannot pay.
* Order legality checks only the geometry (the two moves form a crossing of a strait); whether
  the crossing is allowed depends on where the armies are and is decided during movement.

Everything here is pure; every number comes from ``board.rules.naval``.
"""

from __future__ import annotations

from typing import Mapping

from bellica.engine.vae_victis.model import Board, CampaignState
from bellica.engine.vae_victis.naval_superiority import superiority_level, zones_of
from bellica.engine.vae_victis.zoc import cells_within, controller_of, structure_exerts_zoc, structure_zoc

__all__ = [
    "crossing_problem",
    "lands_across",
    "strait_cells",
    "strait_crossings_from",
]

_CACHE_KEY = "strait_cells"


def strait_cells(board: Board) -> dict[str, frozenset[tuple[str, str]]]:
    """{strait Coast hex: its pairs (land_a, land_b), land_a < land_b}: every pair of land hexes
    around the Coast hex that are not adjacent to each other (the view ``straits``).

    Computed once per Board and kept in ``board.derived``."""
    cached = board.derived.get(_CACHE_KEY)
    if cached is not None:
        return cached
    out: dict[str, frozenset[tuple[str, str]]] = {}
    for cell in sorted(board.hexes):
        if board.hexes[cell].kind != "coast":
            continue
        lands = sorted({n for n in board.sides.get(cell, {}).values() if board.hexes[n].kind == "land"})
        pairs = frozenset(
            (a, b)
            for i, a in enumerate(lands)
            for b in lands[i + 1:]
            if b not in board.sides.get(a, {}).values()
        )
        if pairs:
            out[cell] = pairs
    board.derived[_CACHE_KEY] = out
    return out


def lands_across(board: Board, strait: str, land_from: str) -> frozenset[str]:
    """The land hexes an army in ``land_from`` reaches by crossing the strait hex ``strait``
    (empty when ``strait`` is no strait or ``land_from`` is not one of its land hexes)."""
    pairs = strait_cells(board).get(strait, frozenset())
    return frozenset({b for a, b in pairs if a == land_from} | {a for a, b in pairs if b == land_from})


def strait_crossings_from(board: Board, land: str) -> list[tuple[int, str, int, str]]:
    """Every strait crossing open (geometrically) from the land hex ``land``:
    ``(clock into the strait, strait hex, clock out of it, land hex across)``, sorted by clocks."""
    out = []
    for clock, strait in sorted(board.sides.get(land, {}).items()):
        across = lands_across(board, strait, land)
        if not across:
            continue
        for clock2, to in sorted(board.sides.get(strait, {}).items()):
            if to in across:
                out.append((clock, strait, clock2, to))
    return out


def crossing_problem(
    board: Board,
    state: CampaignState,
    faction: str,
    strait_cell: str,
    land_to: str,
    *,
    positions: Mapping[int, str] | None = None,
) -> str | None:
    """Why an army of ``faction`` may not cross the strait hex ``strait_cell`` into ``land_to``
    now (None: it may).  See the module doc for the conditions.

    ``positions``: {army: hex} overriding where ``state``'s armies stand (movement passes the
    positions at the moment the crossing starts); armies not named stand where ``state`` has them.
    """
    pairs = strait_cells(board).get(strait_cell)
    if not pairs:
        return f"hex {strait_cell} is not a strait (a Coast hex between two land hexes not adjacent to each other)"
    if not any(land_to in p for p in pairs):
        return f"hex {land_to} is not one of the land hexes of the strait at {strait_cell}"
    near = cells_within(board, strait_cell, 1)
    enemies = []
    for a in state.armies:
        if a.eliminated or a.faction == faction:
            continue
        where = positions.get(a.id, a.cell) if positions is not None else a.cell
        if where is not None and where in near:
            enemies.append(f"army {a.id} ({a.faction})")
    if enemies:
        return f"{', '.join(enemies)} {'is' if len(enemies) == 1 else 'are'} within 1 hex of the strait at {strait_cell}"
    cities = []
    reach = max(board.rules.zoc.city_coast_hexes, board.rules.zoc.city_land_hexes)
    for c in sorted(cells_within(board, strait_cell, reach)):
        s = board.structure_at(c)
        if s is None or s.kind != "city" or not structure_exerts_zoc(state, s):
            continue
        owner = controller_of(state, s)
        if owner != faction and strait_cell in structure_zoc(board, s):
            cities.append(f"{s.name} ({owner})")
    if cities:
        return f"the strait at {strait_cell} is in the ZoC of the City of {', '.join(cities)}"
    need = board.rules.naval.strait_min_superiority
    if need <= 0:
        return None
    zones = sorted(zones_of(board, strait_cell))
    levels = {z: superiority_level(board, state, z, faction) for z in zones}
    if any(v >= need for v in levels.values()):
        return None
    if not zones:
        return f"the strait at {strait_cell} lies in no sea zone, so {faction} has no naval superiority there " \
               f"(at least {need} needed)"
    shown = ", ".join(f"{levels[z]} in {z}" for z in zones)
    return (f"{faction}'s naval superiority at the strait {strait_cell} is {shown}: at least {need} is needed "
            f"in {'one of its sea zones' if len(zones) > 1 else 'its sea zone'}")
