"""engine/vae_victis/grid.py measures hex distances as bellica.geo.hexgrid does (without its heavy imports)."""

import h3
import pytest

from bellica.engine.vae_victis.grid import grid_distance
from bellica.geo import hexgrid
from bellica.geo.errors import InputError


def test_the_same_distances_as_geo_hexgrid():
    origin = h3.latlng_to_cell(37.5, 14.0, 5)
    for k in range(0, 4):
        for cell in h3.grid_ring(origin, k):
            assert grid_distance(origin, cell) == hexgrid.grid_distance(origin, cell) == k


def test_an_unmeasurable_distance_is_the_same_input_error():
    a, b = h3.latlng_to_cell(37.5, 14.0, 5), h3.latlng_to_cell(-37.5, -140.0, 5)
    with pytest.raises(InputError) as theirs:
        hexgrid.grid_distance(a, b)
    with pytest.raises(InputError) as ours:
        grid_distance(a, b)
    assert str(ours.value) == str(theirs.value)
