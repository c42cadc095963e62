"""The H3 grid: regions, sides as clock positions, pentagons, errors."""

import h3
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from bellica.geo import hexgrid
from bellica.geo.errors import InputError

ROMA = (41.89, 12.49)


def test_sides_of_a_mediterranean_cell_are_the_odd_clock_positions():
    # Around the Mediterranean H3 cells are pointy-topped: sides near 1, 3, 5, 7, 9, 11.
    sides = hexgrid.cell_sides(hexgrid.cell_at(*ROMA, 5))
    assert [s.clock for s in sides] == [1, 3, 5, 7, 9, 11]
    for s in sides:
        assert abs((s.bearing - s.clock * 30 + 180) % 360 - 180) < 30


def test_every_side_points_back():
    cell = hexgrid.cell_at(*ROMA, 6)
    for side in hexgrid.cell_sides(cell):
        back = {s.neighbor: s.clock for s in hexgrid.cell_sides(side.neighbor)}
        # the opposite side is six hours away
        assert (back[cell] - side.clock) % 12 == 6


def test_pentagon_has_five_distinct_sides():
    for pentagon in h3.get_pentagons(4):
        sides = hexgrid.cell_sides(pentagon)
        assert len(sides) == 5
        assert len({s.clock for s in sides}) == 5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 359.999), min_size=6, max_size=6))
def test_vectorised_assignment_is_optimal(bearings):
    import itertools

    def cost(perm):
        return sum(hexgrid._gaps(np.array([b]), (c,))[0, 0] ** 2 for b, c in zip(bearings, perm))

    got = hexgrid.assign_clock_positions(bearings)
    assert len(set(got)) == 6
    best = min(cost(p) for pos in (hexgrid.ODD_CLOCK, hexgrid.EVEN_CLOCK) for p in itertools.permutations(pos))
    assert cost(got) == pytest.approx(best)


def test_neighbor_table_matches_cell_sides_and_is_symmetric():
    cells = hexgrid.cells_in_bbox((12.0, 41.5, 13.0, 42.3), 5)
    rows = hexgrid.neighbor_table(cells)
    pairs = {(a, b) for a, b, _, _ in rows}
    assert all((b, a) in pairs for a, b in pairs)
    for a, b, clock, bearing in rows[:60]:
        assert hexgrid.neighbors_by_clock(a)[clock] == b
    # a cell in the middle of the region has all six neighbours on the map
    middle = hexgrid.cell_at(41.9, 12.5, 5)
    assert sum(1 for r in rows if r[0] == middle) == 6


def test_neighbors_by_clock_hides_sides_off_the_map():
    cell = hexgrid.cell_at(*ROMA, 5)
    within = {cell, *[s.neighbor for s in hexgrid.cell_sides(cell)][:2]}
    assert len(hexgrid.neighbors_by_clock(cell, within)) == 2


@pytest.mark.parametrize("res", [-1, 16, 5.0, "5", True])
def test_bad_resolution_is_rejected(res):
    with pytest.raises(InputError, match="0-15"):
        hexgrid.check_resolution(res)


def test_empty_bbox_is_rejected():
    with pytest.raises(InputError, match="empty"):
        hexgrid.cells_in_bbox((13.0, 41.0, 12.0, 42.0), 5)


def test_cells_in_bbox_centres_inside():
    cells = hexgrid.cells_in_bbox((12.0, 41.0, 13.0, 42.0), 5)
    assert 30 < len(cells) < 80  # ~9,200 km2 / ~250 km2 per cell
    for c in cells:
        lat, lng = h3.cell_to_latlng(c)
        assert 41.0 <= lat <= 42.0 and 12.0 <= lng <= 13.0


def test_grid_distance_and_rings():
    a = hexgrid.cell_at(*ROMA, 5)
    b = h3.grid_ring(a, 3)[0]
    assert hexgrid.grid_distance(a, b) == 3
    assert len(hexgrid.ring(a, 2)) == 19
