"""Land movement, entering one hex: its MP cost and the seven-step priority between contenders.

:func:`entry_cost` gives the Board's facts to :func:`engine.vae_victis.costs.step_cost` (the one
rule); :func:`priority_key` ranks armies of different factions moving into one hex at the same
time by the seed's seven steps (:data:`PRIORITY_STEPS`).  :mod:`engine.vae_victis.movement`
runs the simulation.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from bellica.engine.vae_victis.costs import MoveCost, step_cost
from bellica.engine.vae_victis.model import Army, Board, CampaignState
from bellica.engine.vae_victis.rules import MovementRules
from bellica.engine.vae_victis.zoc import controller_of

__all__ = [
    "PRIORITY_STEPS",
    "entry_cost",
    "priority_key",
]


PRIORITY_STEPS = (
    "lowest MP cost to enter (without the 1 MP floor)",
    "fewest MP spent so far",
    "highest army strength",
    "closest to a structure its faction controls",
    "faction with the higher score",
    "farthest north",
    "farthest west",
    "lowest army number",  # never reached on a real board: two hexes never share a centre
)


# --- costs ------------------------------------------------------------------------


def entry_cost(
    board: Board,
    frm: str,
    to: str,
    faction: str,
    *,
    logistics_road_edges: Mapping[str, Iterable[tuple[str, str]]] | None = None,
    navy_zoc: Mapping[str, Iterable[str]] | None = None,
    options: MovementRules | None = None,
) -> MoveCost:
    """MP for an army of ``faction`` to move from ``frm`` into the adjacent hex ``to``.

    The Board's facts for :func:`engine.vae_victis.costs.step_cost` (the one rule):
    the road step, the faction's logistics road steps (``logistics_road_edges[faction]``,
    either direction), the River hex without a Town/City, and another faction's navy ZoC
    (``navy_zoc[f]`` = hexes under faction f's navies).  ``options``: the movement rules
    (default ``board.rules.movement``).  ValueError for a hex no army can enter.
    """
    movement = options if options is not None else board.rules.movement
    h = board.hexes[to]
    on_road = (frm, to) in board.road_edges
    if not on_road and movement.structure_road_any_side and board.structure_at(to) is not None:
        on_road = any(a == to for a, _ in board.road_edges)
    edges = _edge_set(logistics_road_edges, faction) if on_road else frozenset()
    cost = step_cost(
        movement,
        h.terrain,
        h.kind,
        road=on_road,
        logistics_road=(frm, to) in edges or (to, frm) in edges,
        river_without_structure=h.river and board.structure_at(to) is None,
        enemy_navy_zoc=bool(navy_zoc) and any(f != faction and to in set(cells) for f, cells in navy_zoc.items()),
        explain=True,
    )
    if cost is None:
        raise ValueError(f"hex {to} ({h.kind}, {h.terrain}) cannot be entered by an army on land")
    return cost


def _edge_set(edges_by_faction, faction) -> frozenset:
    if not edges_by_faction:
        return frozenset()
    e = edges_by_faction.get(faction, ())
    return e if isinstance(e, frozenset) else frozenset(e)


# --- the seven-step priority -------------------------------------------------------------


def priority_key(
    board: Board,
    state: CampaignState,
    army: Army,
    frm: str,
    to: str,
    raw_cost: int,
    spent_before: int,
) -> tuple:
    """Sort key (smaller wins) of the seed's seven steps for ``army`` moving ``frm`` -> ``to``."""
    from bellica.engine.vae_victis.grid import grid_distance  # h3 alone (engine/vae_victis/grid.py), loaded on first use

    owned = [s.cell for s in board.structures.values() if controller_of(state, s) == army.faction]
    closest = min((grid_distance(to, c) for c in owned), default=math.inf)
    h = board.hexes[frm]
    return (
        raw_cost,
        spent_before,
        -army.strength,
        closest,
        -state.victory_points.get(army.faction, 0),
        -h.lat,
        h.lng,
        army.id,
    )


def _deciding_step(winner: tuple, runner_up: tuple) -> int:
    for i, (a, b) in enumerate(zip(winner, runner_up)):
        if a != b:
            return i
    return len(winner) - 1
