"""The MP to enter a hex is one rule: movement and logistics price every step alike.

Both call :func:`engine.vae_victis.costs.step_cost`; this test walks every terrain and every
kind of step (plain, road, road on the faction's logistics line, River hex with and without a
Town/City, water and Peaks impassable) and compares movement's ``entry_cost`` with logistics'
``enter_cost`` (which ignores ZoC and navies, so none are given here).
"""

from __future__ import annotations

import math

import pytest

from bellica.engine.vae_victis.logistics import TerrainGraph, enter_cost
from bellica.engine.vae_victis.model import LAND_TERRAINS
from bellica.engine.vae_victis.movement import entry_cost
from tests.engine.boards import sketch

# The seed's numbers ("Movement"), written out so the test checks the data too.
SEED_MP = {"farmlands": 2, "desert": 4, "hills": 6, "marshes": 8, "forests": 10, "mountains": 12}
EDGES = ["plain", "road", "line road", "river", "river with town", "road into river"]


def step(terrain: str, edge: str):
    """A board whose centre -> clock 3 step is of the given kind, into a hex of ``terrain``."""
    roads = [["9", "", "3"]] if "road" in edge else []
    rivers = ["3"] if "river" in edge else []
    structures = [("Oppidum", "town", "3", "roma")] if edge == "river with town" else []
    tm = sketch(radius=2, terrain={"3": terrain}, roads=roads, rivers=rivers, structures=structures)
    frm, to = tm.cell(""), tm.cell("3")
    line = {(frm, to)} if edge == "line road" else set()
    return tm.board, frm, to, line


def movement_mp(board, frm, to, line) -> float:
    try:
        return entry_cost(board, frm, to, "roma", logistics_road_edges={"roma": line}).mp
    except ValueError:
        return math.inf


def logistics_mp(board, frm, to, line) -> float:
    return enter_cost(TerrainGraph.from_board(board), frm, to, frozenset(line))


@pytest.mark.parametrize("edge", EDGES)
@pytest.mark.parametrize("terrain", LAND_TERRAINS)
def test_movement_and_logistics_agree(terrain, edge):
    board, frm, to, line = step(terrain, edge)
    assert movement_mp(board, frm, to, line) == logistics_mp(board, frm, to, line)


@pytest.mark.parametrize("terrain", LAND_TERRAINS)
def test_the_agreed_cost_is_the_seeds(terrain):
    board, frm, to, line = step(terrain, "plain")
    want = SEED_MP.get(terrain, math.inf)  # Peaks: impassable
    assert logistics_mp(board, frm, to, line) == movement_mp(board, frm, to, line) == want
    board, frm, to, line = step(terrain, "line road")
    assert movement_mp(board, frm, to, line) == (max(1, want // 2 - 1) if terrain in SEED_MP else math.inf)


@pytest.mark.parametrize("water", ["coast", "sea", "ocean", "lake"])
def test_water_is_impassable_to_both(water):
    tm = sketch(radius=2, water={"3": water})
    board, frm, to = tm.board, tm.cell(""), tm.cell("3")
    assert movement_mp(board, frm, to, set()) == logistics_mp(board, frm, to, set()) == math.inf
