"""The hex grid over H3: cells of a region, neighbours, clock-position sides, polygons.

Orders in the rules name a hex side by a clock position (12 = north, 3 = east...).
H3 cells are not aligned to north: a cell's orientation depends on where it lies
on the icosahedron.  We therefore compute each cell's sides from geometry:

1. the initial bearing (forward azimuth on the WGS84 ellipsoid, pyproj.Geod) from the cell's centre to each
   neighbour's centre;
2. the six sides of a hexagon are about 60 degrees apart, so they occupy either
   the odd clock positions (1, 3, 5, 7, 9, 11: "pointy-topped", the usual case
   around the Mediterranean) or the even ones (2, 4, ..., 12: "flat-topped");
   we take whichever set fits the bearings with the smaller squared error;
3. each neighbour gets a distinct position of that set by an optimal
   assignment (the nearest position when no two neighbours compete).

A pentagon's five neighbours take five of the six positions, so one clock
position of a pentagon names no side; so does any side whose neighbour lies
outside the map.  :func:`neighbors_by_clock` reports what does exist, and the
engine rejects the rest with the list of valid positions.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import h3
import h3ronpy
import h3ronpy.vector
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyproj
import shapely

from bellica.geo.errors import InputError

ODD_CLOCK = (1, 3, 5, 7, 9, 11)
EVEN_CLOCK = (2, 4, 6, 8, 10, 12)


def check_resolution(res: int) -> int:
    """Return ``res`` if it is a valid H3 resolution (0-15), else raise a one-line InputError."""
    if isinstance(res, bool) or not isinstance(res, int) or not 0 <= res <= 15:
        raise InputError(f"resolution {res!r} is outside 0-15: pass an H3 resolution between 0 and 15")
    return res


def cells_in_bbox(bbox: tuple[float, float, float, float], res: int) -> list[str]:
    """H3 cells whose centres lie inside ``bbox`` = (west, south, east, north), sorted."""
    check_resolution(res)
    west, south, east, north = bbox
    if not (west < east and south < north):
        raise InputError(f"region {bbox} is empty: give west < east and south < north")
    poly = h3.LatLngPoly([(south, west), (south, east), (north, east), (north, west)])
    return sorted(h3.polygon_to_cells(poly, res))


def cell_center(cell: str) -> tuple[float, float]:
    """(lat, lng) of a cell's centre."""
    return h3.cell_to_latlng(cell)


def cell_polygon(cell: str) -> shapely.Polygon:
    """The cell's boundary as a shapely polygon in lon/lat (x = longitude)."""
    return shapely.Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(cell)])


def cell_polygons(cells: Iterable[str]) -> np.ndarray:
    """Array of shapely polygons, one per cell, in lon/lat."""
    return np.array([cell_polygon(c) for c in cells], dtype=object)


_WGS84 = pyproj.Geod(ellps="WGS84")


def initial_bearing(lat1, lng1, lat2, lng2):
    """Initial bearing (forward azimuth on the WGS84 ellipsoid) in degrees [0, 360) from point 1
    to point 2; vectorised, the arguments broadcast together (pyproj.Geod.inv)."""
    lat1, lng1, lat2, lng2 = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (lat1, lng1, lat2, lng2)))
    azimuth, _back, _dist = _WGS84.inv(lng1.ravel(), lat1.ravel(), lng2.ravel(), lat2.ravel())
    return np.asarray(azimuth, dtype=float).reshape(lat1.shape) % 360.0


def assign_clock_positions(bearings: list[float]) -> list[int]:
    """Distinct clock positions (1-12) for up to six side bearings, as the module doc explains."""
    if not bearings:
        return []
    return assign_clock_positions_many(np.array([bearings], dtype=float))[0].tolist()


def _gaps(bearings: np.ndarray, positions: tuple[int, ...]) -> np.ndarray:
    """Angular gaps (degrees) between each bearing (..., k) and each position: shape (..., k, len(positions))."""
    angles = (np.array(positions) % 12) * 30.0
    gap = np.abs(bearings[..., None] - angles)
    # Bearings in [0, 360) (as initial_bearing gives) and angles in [0, 330] leave every gap
    # below 360, where the remainder is the gap itself, bit for bit: skip the slow float modulo.
    if gap.size and not (bearings.min() >= 0.0 and bearings.max() < 360.0):
        gap %= 360.0
    return np.minimum(gap, 360.0 - gap)


def assign_clock_positions_many(bearings: np.ndarray) -> np.ndarray:
    """Vectorised :func:`assign_clock_positions` for an (n, k) array of bearings, k <= 6.

    Fast path: each bearing takes its nearest position of the better-fitting set
    when those are distinct and that set's cost beats the other set's lower bound;
    the rare remaining rows (sides that compete for a position) get the optimal
    assignment by enumeration.
    """
    n, k = bearings.shape
    result = np.zeros((n, k), dtype=np.int64)
    fits = []
    for positions in (ODD_CLOCK, EVEN_CLOCK):
        gaps = _gaps(bearings, positions)
        nearest = gaps.argmin(axis=2)
        cost = (gaps.min(axis=2) ** 2).sum(axis=1)  # a lower bound; exact when nearest is distinct
        # all k nearest positions differ: no two neighbours in a row of the sorted positions
        distinct = (np.diff(np.sort(nearest, axis=1), axis=1) != 0).all(axis=1)
        fits.append((np.array(positions)[nearest], cost, distinct))
    (odd_pos, odd_cost, odd_ok), (even_pos, even_cost, even_ok) = fits
    take_odd = odd_ok & (odd_cost <= even_cost)
    take_even = even_ok & (even_cost < odd_cost)
    result[take_odd] = odd_pos[take_odd]
    result[take_even] = even_pos[take_even]
    for i in np.flatnonzero(~(take_odd | take_even)):
        best = None
        for positions in (ODD_CLOCK, EVEN_CLOCK):
            gaps = _gaps(bearings[i], positions)
            for perm in itertools.permutations(range(len(positions)), k):
                cost = float((gaps[np.arange(k), list(perm)] ** 2).sum())
                if best is None or cost < best[0] - 1e-9:
                    best = (cost, [positions[j] for j in perm])
        result[i] = best[1]
    return result


@dataclass(frozen=True)
class Side:
    """One side of a cell: the neighbour across it, its clock position and true bearing."""

    neighbor: str
    clock: int
    bearing: float


def cell_sides(cell: str) -> list[Side]:
    """All sides of ``cell`` (six, five for a pentagon) with clock positions, sorted by clock."""
    neighbors = [n for n in h3.grid_ring(cell, 1)]
    lat, lng = h3.cell_to_latlng(cell)
    centres = np.array([h3.cell_to_latlng(n) for n in neighbors])
    bearings = initial_bearing(lat, lng, centres[:, 0], centres[:, 1]).tolist()
    clocks = assign_clock_positions(bearings)
    return sorted((Side(n, c, round(b, 3)) for n, c, b in zip(neighbors, clocks, bearings)), key=lambda s: s.clock)


def neighbor_table(cells: Iterable[str]) -> list[tuple[str, str, int, float]]:
    """Every ordered adjacent pair (cell, neighbor, clock, bearing) with both ends in ``cells``,
    sorted by cell then clock: the rows of :func:`neighbor_frame` as Python tuples."""
    frame = neighbor_frame(cells)
    return list(zip(frame["cell"].tolist(), frame["neighbor"].tolist(), frame["clock"].tolist(),
                    frame["bearing"].tolist()))


def neighbor_frame(cells: Iterable[str]):
    """The neighbour table of ``cells`` as a pandas DataFrame (cell, neighbor, clock, bearing):
    every ordered adjacent pair with both ends in ``cells``, sorted by cell then clock, bearings
    rounded to 0.001 degree.  Cell ids come out in H3's canonical (lower-case) spelling.

    Linear in the cell count, no Python loop over cells or pairs: rings, centres and id
    parsing run in Rust (h3ronpy), the bearings in pyproj, the clock positions in numpy.
    Each end of a pair is a position in the sorted cell list, found by binary search on the
    64-bit ids; H3 ids of valid cells are 15 hex digits, so their numeric order is the order
    of their strings, and sorting the pairs by (position, clock) sorts them by (cell, clock)
    as strings.  An empty table still has typed columns (str, str, int64, float64).  The id columns are taken from one Arrow array of the cell names, never built
    as millions of Python strings or tuples (whose garbage collection made the old build's
    neighbour stage grow faster than the map).  Pentagons (five sides) go through
    :func:`cell_sides`.
    """
    import pandas as pd  # here, not at the top: the engine imports this module for single cells

    cell_list = sorted(set(cells))
    names = pa.array(cell_list, type=pa.large_string())
    ints = np.zeros(0, np.uint64)
    if cell_list:
        parsed = pa.array(h3ronpy.cells_parse(names, set_failing_to_invalid=True))
        # canonical ids only: then numeric order is string order (see above) and names round-trip
        bad = np.flatnonzero(~np.asarray(parsed.is_valid()))
        if not len(bad):
            canonical = pa.array(h3ronpy.cells_to_string(parsed)).cast(pa.large_string())
            bad = np.flatnonzero(~np.asarray(pc.equal(canonical, names)))
        if len(bad):
            raise InputError(f"cell id {cell_list[bad[0]]!r} is not an H3 cell in canonical form (15 lower-case hex digits): "
                             "pass the ids H3 returns")
        ints = np.asarray(parsed, dtype=np.uint64)
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    clock: list[np.ndarray] = []
    bearing: list[np.ndarray] = []
    hexagon = np.zeros(len(ints), dtype=bool)
    if len(ints):
        disks = pa.table(h3ronpy.grid_disk_distances(ints, 1))
        sizes = np.asarray(disks["cell"].combine_chunks().value_lengths())
        flat = np.asarray(disks["cell"].combine_chunks().flatten())
        ks = np.asarray(disks["k"].combine_chunks().flatten())
        hexagon = sizes == 7
    if hexagon.any():
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])[hexagon]
        idx = starts[:, None] + np.arange(7)
        ring_ints = flat[idx][ks[idx] == 1].reshape(-1, 6)  # drop each disk's centre (k = 0)
        origin = np.flatnonzero(hexagon)
        at = np.minimum(np.searchsorted(ints, ring_ints), len(ints) - 1)
        keep = ints[at] == ring_ints  # the neighbour is on the map
        # Each centre once: the map's cells, then only the ring cells off the map.
        centres = _coordinates(ints)
        centre = centres[origin]
        ncentre = centres[at]
        ncentre[~keep] = _coordinates(ring_ints[~keep])
        bearings = initial_bearing(centre[:, 0, None], centre[:, 1, None], ncentre[..., 0], ncentre[..., 1])
        clocks = assign_clock_positions_many(bearings)
        src.append(np.broadcast_to(origin[:, None], ring_ints.shape)[keep])
        dst.append(at[keep])
        clock.append(clocks[keep])
        bearing.append(bearings[keep].round(3))
    for i in np.flatnonzero(~hexagon).tolist():
        sides = cell_sides(cell_list[i])
        side_ints = np.array([h3.str_to_int(s.neighbor) for s in sides], dtype=np.uint64)
        at = np.minimum(np.searchsorted(ints, side_ints), len(ints) - 1)
        keep = ints[at] == side_ints
        src.append(np.full(int(keep.sum()), i, dtype=np.int64))
        dst.append(at[keep])
        clock.append(np.array([s.clock for s in sides], dtype=np.int64)[keep])
        bearing.append(np.array([s.bearing for s in sides], dtype=float)[keep])
    cat = (lambda parts, dtype: np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype))
    src, dst, clock, bearing = cat(src, np.int64), cat(dst, np.int64), cat(clock, np.int64), cat(bearing, float)
    order = np.lexsort((clock, src))
    return pd.DataFrame({
        "cell": pd.Series(names.take(pa.array(src[order])), dtype="str"),
        "neighbor": pd.Series(names.take(pa.array(dst[order])), dtype="str"),
        "clock": clock[order],
        "bearing": bearing[order],
    })


def _coordinates(ints: np.ndarray) -> np.ndarray:
    """(n, 2) array of (lat, lng) cell centres."""
    coords = pa.record_batch(h3ronpy.vector.cells_to_coordinates(ints))
    return np.column_stack([np.asarray(coords.column("lat")), np.asarray(coords.column("lng"))])


def cell_polygons_wkb(cells: Iterable[str]) -> np.ndarray:
    """WKB hexagons (lon/lat) for many cells at once, computed in Rust."""
    ints = np.array([h3.str_to_int(c) for c in cells], dtype=np.uint64)
    return np.array(pa.array(h3ronpy.vector.cells_to_wkb_polygons(ints)).to_pylist(), dtype=object)


def cells_outline(cells: Iterable[str]):
    """The union of the cells' hexagons, in lon/lat (x = longitude), as a MultiPolygon (one part per
    group of touching cells).  H3 traces the outline itself (h3.cells_to_h3shape, ~2 s per
    million cells) instead of a polygon union, which would be many times slower."""
    cells = list(cells)
    if not cells:
        return shapely.Polygon()
    return shapely.geometry.shape(h3.cells_to_h3shape(cells, tight=False).__geo_interface__)


def neighbors_by_clock(cell: str, within: set[str] | None = None) -> dict[int, str]:
    """{clock: neighbour} for the sides of ``cell`` whose neighbour is on the map (``within``)."""
    return {s.clock: s.neighbor for s in cell_sides(cell) if within is None or s.neighbor in within}


def grid_distance(a: str, b: str) -> int:
    """Distance in hexes (H3 grid distance); raises InputError when H3 cannot measure it."""
    try:
        return h3.grid_distance(a, b)
    except h3.H3BaseException as e:
        raise InputError(f"cannot measure the hex distance from {a} to {b}: {e}") from e


def ring(cell: str, k: int) -> set[str]:
    """All cells within ``k`` hexes of ``cell`` (including it)."""
    return set(h3.grid_disk(cell, k))


def cell_at(lat: float, lng: float, res: int) -> str:
    """The cell containing a point."""
    check_resolution(res)
    if not (-90 <= lat <= 90 and -180 <= lng <= 180):
        raise InputError(f"point ({lat}, {lng}) is not a latitude/longitude: give lat in -90..90, lon in -180..180")
    return h3.latlng_to_cell(lat, lng, res)


__all__ = [
    "Side",
    "assign_clock_positions",
    "cell_at",
    "cell_center",
    "cell_polygon",
    "cell_polygons",
    "cell_polygons_wkb",
    "cell_sides",
    "cells_in_bbox",
    "cells_outline",
    "check_resolution",
    "grid_distance",
    "initial_bearing",
    "neighbor_frame",
    "neighbor_table",
    "neighbors_by_clock",
    "ring",
]

