"""The linear neighbour table (hexgrid.neighbor_frame) gives exactly the rows of the former
per-pair Python implementation, kept here as the reference."""

import h3
import numpy as np
import pandas as pd
import pyarrow as pa
import h3ronpy
import pytest

from bellica.geo import hexgrid
from bellica.geo.errors import InputError


def reference_neighbor_table(cells):
    """The neighbour table as built before issue 11: a Python tuple per pair, sorted by (cell, clock)
    as strings, each row's distinct nearest positions checked with a set."""
    cell_list = sorted(set(cells))
    ints = np.array([h3.str_to_int(c) for c in cell_list], dtype=np.uint64)
    disks = pa.table(h3ronpy.grid_disk_distances(ints, 1))
    sizes = np.asarray(disks["cell"].combine_chunks().value_lengths())
    flat = np.asarray(disks["cell"].combine_chunks().flatten())
    ks = np.asarray(disks["k"].combine_chunks().flatten())
    hexagon = sizes == 7
    rows = []
    if hexagon.any():
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[hexagon]
        idx = starts[:, None] + np.arange(7)
        ring_ints = flat[idx][ks[idx] == 1].reshape(-1, 6)
        origin = ints[hexagon]
        centre = hexgrid._coordinates(origin)
        ncentre = hexgrid._coordinates(ring_ints.ravel()).reshape(len(origin), 6, 2)
        bearings = hexgrid.initial_bearing(centre[:, 0, None], centre[:, 1, None], ncentre[..., 0], ncentre[..., 1])
        clocks = reference_clock_positions(bearings)
        keep = np.isin(ring_ints, ints)
        o = np.broadcast_to(origin[:, None], ring_ints.shape)[keep]
        names = pa.array(h3ronpy.cells_to_string(np.concatenate([o, ring_ints[keep]]))).to_pylist()
        rows = list(zip(names[: len(o)], names[len(o):], clocks[keep].tolist(), bearings[keep].round(3).tolist()))
    cell_set = set(cell_list)
    for cell, is_hexagon in zip(cell_list, hexagon.tolist()):
        if not is_hexagon:
            rows.extend((cell, s.neighbor, s.clock, s.bearing) for s in hexgrid.cell_sides(cell) if s.neighbor in cell_set)
    rows.sort(key=lambda r: (r[0], r[2]))
    return pd.DataFrame(rows, columns=["cell", "neighbor", "clock", "bearing"])


def reference_clock_positions(bearings):
    """assign_clock_positions_many with the former per-row set test for distinct positions."""
    import itertools

    n, k = bearings.shape
    result = np.zeros((n, k), dtype=np.int64)
    fits = []
    for positions in (hexgrid.ODD_CLOCK, hexgrid.EVEN_CLOCK):
        angles = (np.array(positions) % 12) * 30.0
        gaps = np.abs(bearings[..., None] - angles) % 360.0
        gaps = np.minimum(gaps, 360.0 - gaps)
        nearest = gaps.argmin(axis=2)
        distinct = np.array([len(set(row)) == k for row in nearest.tolist()])
        fits.append((np.array(positions)[nearest], (gaps.min(axis=2) ** 2).sum(axis=1), distinct))
    (odd_pos, odd_cost, odd_ok), (even_pos, even_cost, even_ok) = fits
    take_odd = odd_ok & (odd_cost <= even_cost)
    take_even = even_ok & (even_cost < odd_cost)
    result[take_odd] = odd_pos[take_odd]
    result[take_even] = even_pos[take_even]
    for i in np.flatnonzero(~(take_odd | take_even)):
        best = None
        for positions in (hexgrid.ODD_CLOCK, hexgrid.EVEN_CLOCK):
            gaps = hexgrid._gaps(bearings[i], positions)
            for perm in itertools.permutations(range(len(positions)), k):
                cost = float((gaps[np.arange(k), list(perm)] ** 2).sum())
                if best is None or cost < best[0] - 1e-9:
                    best = (cost, [positions[j] for j in perm])
        result[i] = best[1]
    return result


REGIONS = {
    "sicily res 6 (ragged edges)": lambda: hexgrid.cells_in_bbox((12.3, 37.4, 13.2, 37.9), 6),
    "around a pentagon, res 4": lambda: sorted(h3.grid_disk(h3.get_pentagons(4)[3], 3)),
    "pentagon disk with holes": lambda: sorted(h3.grid_disk(h3.get_pentagons(3)[0], 2))[::2],
    "one cell": lambda: [hexgrid.cell_at(41.9, 12.5, 5)],
}


@pytest.mark.parametrize("region", sorted(REGIONS))
def test_neighbor_frame_equals_the_former_table(region):
    cells = REGIONS[region]()
    got, want = hexgrid.neighbor_frame(cells), reference_neighbor_table(cells)
    # an empty table keeps typed columns (the former one had object columns for want of rows)
    pd.testing.assert_frame_equal(got, want, check_dtype=len(want) > 0, check_index_type=len(want) > 0)
    assert hexgrid.neighbor_table(cells) == list(reference_neighbor_table(cells).itertuples(index=False, name=None))


def test_neighbor_frame_takes_duplicates_and_any_order_and_nothing():
    cells = REGIONS["sicily res 6 (ragged edges)"]()
    pd.testing.assert_frame_equal(hexgrid.neighbor_frame(cells[::-1] + cells[:5]), reference_neighbor_table(cells))
    assert len(hexgrid.neighbor_frame([])) == 0
    assert hexgrid.neighbor_table([]) == []


def test_clock_positions_equal_the_former_ones_on_hard_rows():
    rng = np.random.default_rng(11)
    # random bearings (many rows with competing sides) and near-regular hexagons
    bearings = np.concatenate([rng.uniform(0, 360, (300, 6)),
                               (np.arange(6) * 60 + rng.uniform(0, 60, (300, 1)) + rng.normal(0, 8, (300, 6))) % 360])
    np.testing.assert_array_equal(hexgrid.assign_clock_positions_many(bearings), reference_clock_positions(bearings))
    # bearings outside [0, 360) still take the modulo
    np.testing.assert_array_equal(hexgrid.assign_clock_positions_many(bearings - 360.0), reference_clock_positions(bearings - 360.0))


def test_non_canonical_ids_are_refused():
    cells = hexgrid.cells_in_bbox((12.3, 37.4, 12.6, 37.6), 6)
    for bad in ("0" + cells[0], cells[0].upper(), "not-a-cell"):
        with pytest.raises(InputError, match="canonical form"):
            hexgrid.neighbor_frame([bad, *cells[1:]])
