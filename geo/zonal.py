"""Raster-to-hex aggregation kernel: per-H3-cell elevation statistics of a raster window.

Pure numpy (plus h3ronpy for vectorised point-to-cell); no I/O.  The DEM reader and
the Dask driver live in :mod:`etl.dem`.

Semantics
---------
Every sample belongs to the H3 cell that contains its centre.  A *sample* is a
pixel, or, when supersampling by ``k``, one of the ``k x k`` points of a virtual
grid ``k`` times finer than the raster, each carrying the value of the pixel it
falls in (nearest pixel).  A window yields :class:`Partials` -- per cell count,
sum, sum of squares, min and max of the valid samples -- which combine exactly
across windows (:func:`combine_partials`) and turn into the ``hexes`` elevation
columns with :func:`partials_to_stats`.

Why columns, not square blocks
------------------------------
Indexing a sample with H3 costs ~0.3 us; the aggregation itself is a few numpy
passes.  So we index as few samples as we can *prove* enough:

* An H3 cell that lies on one icosahedron face is convex on the sphere (its edges
  are geodesics, straight lines in that face's gnomonic projection), so if both
  ends of a *geodesic* segment lie in it, every point of the segment does too.
* In a north-up geographic raster a pixel column is a meridian, a geodesic.  So we
  index only every ``block``-th row ("grid rows"); a column segment of ``block``
  samples whose two bounding grid-row samples share a cell lies wholly in that
  cell and is reduced with numpy reshape reductions (``(n, block, W)`` arrays).
* A segment whose ends differ crosses a cell edge.  We predict the crossing row
  from the two cells' shared edge (h3 directed-edge boundary, interpolated at the
  column's longitude), index the two samples around it, and bisect whatever the
  prediction did not settle.  A crossing then costs ~2 look-ups instead of
  log2(block).
* Cells cut by an icosahedron edge (and pentagons) are two gnomonic pieces and
  are *not* convex (the property test found one at res 3 in the Gulf of Guinea);
  segments ending in such a cell are resolved sample by sample.

The 4-corner test on square blocks would be cheaper still but is not exact: a
raster row is a parallel, not a geodesic, and bulges up to L^2 sin(2 lat)/16
(about 200 m for a 16-pixel block of 5-arc-minute pixels) outside the geodesic
hull of its corners, so a block whose four corners agree can still hold pixels
of the neighbouring cell.  Column segments keep the result identical to indexing
every sample; the tests check this against brute force, including a property
test over random windows, resolutions 0-9 and the whole globe.

For projected (or rotated) rasters a pixel column is not a geodesic but a
slightly curved line; the same segment test is used (without the crossing
prediction) and is exact up to that curvature -- for UTM at 300 km from the
central meridian and 16 x 30 m segments, a sample would have to sit within
~0.2 mm of a cell edge to be misplaced.  Pass ``block=1`` to index every sample
when that matters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
from h3.api import basic_int as h3i
from h3ronpy import cells_to_string
from h3ronpy.vector import coordinates_to_cells

from tabula.geo.errors import InputError
from tabula.geo.hexgrid import check_resolution

DEFAULT_BLOCK = 16
"""Rows between indexed grid rows; :mod:`etl.dem` picks one from the cell size (about a third of a cell)."""

DEFAULT_MIN_SAMPLES = 16
"""``supersample="auto"`` makes the smallest cell hold about this many samples."""

STATS_COLUMNS = ["cell", "elev_mean", "elev_min", "elev_max", "elev_std", "elev_samples"]

LonLatFn = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``f(rows, cols) -> (lon, lat)`` for fractional pixel indices of the window, pixel (i, j) centred at (i, j)."""


@dataclass(frozen=True)
class Partials:
    """Per-cell partial statistics; ``cell`` is sorted, unique, uint64 H3 indexes."""

    cell: np.ndarray
    count: np.ndarray
    total: np.ndarray
    total_sq: np.ndarray
    minimum: np.ndarray
    maximum: np.ndarray

    def __len__(self) -> int:
        return len(self.cell)

    @property
    def samples(self) -> int:
        return int(self.count.sum())


def empty_partials() -> Partials:
    f = np.empty(0, dtype=np.float64)
    return Partials(np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64), f, f.copy(), f.copy(), f.copy())


def partials_from_entries(cell, count, total, total_sq, minimum, maximum) -> Partials:
    """Reduce unsorted entries (possibly repeated cells) to :class:`Partials` by key.

    Sorting plus ``ufunc.reduceat`` keeps min/max exact and avoids Python loops.
    """
    cell = np.asarray(cell, dtype=np.uint64)
    if cell.size == 0:
        return empty_partials()
    order = np.argsort(cell, kind="stable")
    cell = cell[order]
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    return Partials(
        cell[starts],
        np.add.reduceat(np.asarray(count, dtype=np.int64)[order], starts),
        np.add.reduceat(np.asarray(total, dtype=np.float64)[order], starts),
        np.add.reduceat(np.asarray(total_sq, dtype=np.float64)[order], starts),
        np.minimum.reduceat(np.asarray(minimum, dtype=np.float64)[order], starts),
        np.maximum.reduceat(np.asarray(maximum, dtype=np.float64)[order], starts),
    )


def combine_partials(parts: Iterable[Partials]) -> Partials:
    """Merge partials from several windows (or workers) into one; exact for count/min/max."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return empty_partials()
    if len(parts) == 1:
        return parts[0]
    return partials_from_entries(
        *(np.concatenate([getattr(p, f) for p in parts]) for f in ("cell", "count", "total", "total_sq", "minimum", "maximum"))
    )


def restrict_partials(partials: Partials, cells: np.ndarray) -> Partials:
    """Keep only the cells in ``cells`` (uint64), e.g. the map region, so partials stay small."""
    keep = np.isin(partials.cell, cells)
    return Partials(*(getattr(partials, f)[keep] for f in ("cell", "count", "total", "total_sq", "minimum", "maximum")))


def partials_to_stats(partials: Partials) -> pd.DataFrame:
    """DataFrame ``cell`` (H3 string), ``elev_mean/min/max/std`` (population std), ``elev_samples``.

    The variance comes from the sums as (sum_sq - sum * mean) / n, clipped at 0; with
    float64 sums its absolute error is about 1e-16 * mean^2, far below a metre squared
    for elevations.
    """
    n = partials.count.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = partials.total / n
        var = np.maximum((partials.total_sq - partials.total * mean) / n, 0.0)
    cells = cells_to_string(partials.cell).to_pylist() if len(partials) else []
    return pd.DataFrame(
        {
            "cell": pd.Series(cells, dtype="str"),
            "elev_mean": mean,
            "elev_min": partials.minimum,
            "elev_max": partials.maximum,
            "elev_std": np.sqrt(var),
            "elev_samples": partials.count.astype(np.int64),
        },
        columns=STATS_COLUMNS,
    )


def supersample_factor(pixel_area_km2: float, cell_area_km2: float, *, min_samples: int = DEFAULT_MIN_SAMPLES) -> int:
    """k = ceil(sqrt(min_samples * pixel_area / cell_area)), at least 1.

    Sampling each pixel on a k x k virtual grid gives a cell of ``cell_area`` about
    ``min_samples`` samples, so small cells still get a mean, a spread and a fair
    min/max instead of zero or one pixel.  The total work is then about
    ``min_samples`` samples per cell of the region, whatever the DEM's resolution.
    """
    if not (pixel_area_km2 > 0 and cell_area_km2 > 0):
        raise InputError(f"pixel area {pixel_area_km2} / cell area {cell_area_km2} km2 must be positive: check the DEM transform")
    if min_samples < 1:
        raise InputError(f"min_samples {min_samples!r} is below 1: pass a sample count >= 1 (default {DEFAULT_MIN_SAMPLES})")
    return max(1, math.ceil(math.sqrt(min_samples * pixel_area_km2 / cell_area_km2) - 1e-9))


def _sub_centres(centres: np.ndarray, k: int, step: float | None, name: str) -> np.ndarray:
    """Centres of the k sub-samples of each pixel along one axis (regular spacing)."""
    centres = np.asarray(centres, dtype=np.float64)
    if k == 1:
        return centres
    if step is None:
        if centres.size < 2:
            raise InputError(f"{name} has one pixel: pass pixel_step=(dlat, dlon) to supersample it")
        step = float(np.diff(centres).mean())
    offsets = ((np.arange(k) + 0.5) / k - 0.5) * step
    return (centres[:, None] + offsets[None, :]).ravel()


def _runs(keys: np.ndarray, count, total, total_sq, minimum, maximum) -> tuple[np.ndarray, ...]:
    """Merge consecutive entries with the same key (cheap pre-reduction before the sort)."""
    if keys.size == 0:
        return keys, count, total, total_sq, minimum, maximum
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return (
        keys[starts],
        np.add.reduceat(count, starts),
        np.add.reduceat(total, starts),
        np.add.reduceat(total_sq, starts),
        np.minimum.reduceat(minimum, starts),
        np.maximum.reduceat(maximum, starts),
    )


def _pixel_entries(keys: np.ndarray, values: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, ...]:
    """Entries for individually placed samples (cell 0 = could not be placed: dropped)."""
    keep = valid & (keys != 0)
    keys, v = keys[keep], values[keep]
    return _runs(keys, np.ones(keys.size, dtype=np.int64), v, v * v, v, v)


@lru_cache(maxsize=1_000_000)
def _spans_faces(cell: int) -> bool:
    """True for cells cut by an icosahedron edge (and pentagons): they are two gnomonic pieces, not convex."""
    return len(h3i.get_icosahedron_faces(cell)) > 1


def _convex_mask(cells: np.ndarray, *, unique: bool = False) -> np.ndarray:
    """Per entry: may a segment whose two ends lie in this cell be taken as wholly inside it?"""
    if cells.size == 0:
        return np.ones(0, dtype=bool)
    if unique:
        u, inverse = cells, None
    else:
        u, inverse = np.unique(cells, return_inverse=True)
    ok = np.fromiter((c != 0 and not _spans_faces(c) for c in u.tolist()), dtype=bool, count=u.size)
    return ok if inverse is None else ok[inverse.ravel()]


class _Indexer:
    """Looks up the H3 cell of samples of the window by (row, col) sample indices."""

    def __init__(self, res: int, lats, lons, lonlat: LonLatFn | None, k: int):
        self.res, self.k, self.lonlat = res, k, lonlat
        self.lats, self.lons = lats, lons
        self.lookups = 0

    def coords(self, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.lonlat is None:
            return self.lons[cols], self.lats[rows]
        k = self.k
        # sample r of the k-times finer grid sits at fractional pixel index (r + 0.5) / k - 0.5
        lon, lat = self.lonlat((rows + 0.5) / k - 0.5, (cols + 0.5) / k - 0.5)
        return np.asarray(lon, dtype=np.float64), np.asarray(lat, dtype=np.float64)

    def cells(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """uint64 cells, 0 where the sample has no finite lon/lat (e.g. outside a projection's domain)."""
        rows, cols = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
        shape = rows.shape
        lon, lat = self.coords(rows.ravel(), cols.ravel())
        out = np.zeros(lon.size, dtype=np.uint64)
        ok = np.isfinite(lon) & np.isfinite(lat) & (np.abs(lat) <= 90.0)
        if ok.any():
            self.lookups += int(ok.sum())
            out[ok] = np.asarray(coordinates_to_cells(lat[ok], lon[ok], self.res))
        return out.reshape(shape)


def _strip_entries(v, m, all_valid, row0, h, n, top, bottom, indexer) -> list[tuple[np.ndarray, ...]]:
    """Entries for ``n`` strips of ``h`` rows from ``row0``; ``top``/``bottom`` are the (n, W) cells of the
    grid rows bounding each strip (the bottom grid row belongs to the next strip)."""
    W = v.shape[1]
    V = v[row0 : row0 + n * h].reshape(n, h, W)
    M = m[row0 : row0 + n * h].reshape(n, h, W)
    if all_valid:
        cnt = np.full((n, W), h, dtype=np.int64)
        tot, tot_sq = V.sum(axis=1), np.einsum("nhw,nhw->nw", V, V)
        mn, mx = V.min(axis=1), V.max(axis=1)
    else:
        cnt = M.sum(axis=1, dtype=np.int64)
        Vz = np.where(M, V, 0.0)
        tot, tot_sq = Vz.sum(axis=1), np.einsum("nhw,nhw->nw", Vz, Vz)
        mn = np.where(M, V, np.inf).min(axis=1)
        mx = np.where(M, V, -np.inf).max(axis=1)
    uniform = (top == bottom) & (top != 0)
    if uniform.any():
        # the few cells cut by an icosahedron edge are not convex: their segments go to bisection
        keys = top[uniform]
        cells = np.unique(keys[np.r_[True, keys[1:] != keys[:-1]]])  # run heads first: far fewer to sort
        bad = cells[~_convex_mask(cells, unique=True)]
        if bad.size:
            uniform &= ~np.isin(top, bad)
    sel = uniform & (cnt > 0)
    out = [_runs(top[sel], cnt[sel], tot[sel], tot_sq[sel], mn[sel], mx[sel])]

    seg_s, seg_j = np.nonzero(~uniform & (cnt > 0))
    if seg_s.size:
        out.append(_bisect_entries(V, M, row0, h, seg_s, seg_j, top[seg_s, seg_j], bottom[seg_s, seg_j], indexer))
    return out


PREDICT_MIN_ROWS = 8
"""Below this many rows per segment plain bisection is as cheap as predicting the crossing."""


def _edge_crossing_rows(indexer, top_rows, cols, c_top, c_bottom, h) -> np.ndarray:
    """Predicted local row (1..h-2) after which a column segment leaves ``c_top`` for ``c_bottom``, or -1.

    The two cells' shared H3 edge is interpolated linearly in lon/lat (its curvature is
    well under a metre at the resolutions where segments are long), intersected with
    the column's meridian and converted to a row.  A prediction is only a guess: the
    caller indexes the two samples around it, and bisection takes over where it missed.
    """
    out = np.full(top_rows.size, -1, dtype=np.int64)
    ok = (c_top != 0) & (c_bottom != 0)
    if not ok.any():
        return out
    idx = np.flatnonzero(ok)
    # unique (top, bottom) pairs through small integer codes: np.unique(axis=0) sorts rows slowly
    u_top, i_top = np.unique(c_top[idx], return_inverse=True)
    u_bottom, i_bottom = np.unique(c_bottom[idx], return_inverse=True)
    codes, inverse = np.unique(i_top.astype(np.int64) * len(u_bottom) + i_bottom, return_inverse=True)
    pairs = np.stack([u_top[codes // len(u_bottom)], u_bottom[codes % len(u_bottom)]], axis=1)
    edges = np.full((len(pairs), 4), np.nan)
    for n, (a, b) in enumerate(pairs.tolist()):
        if h3i.are_neighbor_cells(a, b):
            bnd = h3i.directed_edge_to_boundary(h3i.cells_to_directed_edge(a, b))
            edges[n] = (bnd[0][0], bnd[0][1], bnd[-1][0], bnd[-1][1])
    lat1, lon1, lat2, lon2 = edges[inverse.ravel()].T
    lam = indexer.lons[cols[idx]]
    lam = (lam + 180.0) % 360.0 - 180.0
    lon1 = lam + ((lon1 - lam + 180.0) % 360.0 - 180.0)  # unwrap the edge next to the meridian
    lon2 = lam + ((lon2 - lam + 180.0) % 360.0 - 180.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (lam - lon1) / (lon2 - lon1)
        phi = lat1 + t * (lat2 - lat1)
        lat_top = indexer.lats[top_rows[idx]]
        step = indexer.lats[top_rows[idx] + 1] - lat_top
        f = np.floor((phi - lat_top) / step)
    good = np.isfinite(f) & (t >= -0.01) & (t <= 1.01)
    out[idx[good]] = np.clip(f[good], 1, h - 2).astype(np.int64)
    return out


def _bisect_entries(V, M, row0, h, seg_s, seg_j, c_top, c_bottom, indexer) -> tuple[np.ndarray, ...]:
    """Place the samples of column segments whose ends lie in different cells.

    Pieces (lo, hi, cell at lo, cell at hi) cover rows lo..hi-1 of a segment; a piece
    whose ends share a cell is uniform (a meridian arc inside a convex cell).  On
    geographic grids the crossing row is first predicted from the cells' shared edge
    and the two samples around it are indexed: usually that settles the segment in
    two look-ups.  Whatever is left is bisected (index the middle, recurse).
    """
    nseg = seg_s.size
    seg = np.arange(nseg)
    lo = np.zeros(nseg, dtype=np.int64)
    hi = np.full(nseg, h, dtype=np.int64)
    clo, chi = c_top, c_bottom
    if indexer.lats is not None and h >= PREDICT_MIN_ROWS:
        top_rows = row0 + seg_s * h
        y = _edge_crossing_rows(indexer, top_rows, seg_j, c_top, c_bottom, h)
        p = np.flatnonzero(y >= 0)
        if p.size:
            cy = indexer.cells(top_rows[p] + y[p], seg_j[p])
            cy1 = indexer.cells(top_rows[p] + y[p] + 1, seg_j[p])
            q = np.flatnonzero(y < 0)
            seg = np.r_[q, p, p, p]
            lo = np.r_[lo[q], lo[p], y[p], y[p] + 1]
            hi = np.r_[hi[q], y[p], y[p] + 1, hi[p]]
            clo, chi = np.r_[clo[q], clo[p], cy, cy1], np.r_[chi[q], cy, cy1, chi[p]]
    done_seg, done_lo, done_len, done_cell = [], [], [], []
    while seg.size:
        same = clo == chi
        same[same] = _convex_mask(clo[same])  # a non-convex cell is resolved sample by sample
        unit = ~same & (hi - lo == 1)
        fin = same | unit
        done_seg.append(seg[fin])
        done_lo.append(lo[fin])
        done_len.append(hi[fin] - lo[fin])
        done_cell.append(clo[fin])
        rest = ~fin
        seg, lo, hi, clo, chi = seg[rest], lo[rest], hi[rest], clo[rest], chi[rest]
        if not seg.size:
            break
        mid = (lo + hi) // 2
        cmid = indexer.cells(row0 + seg_s[seg] * h + mid, seg_j[seg])
        seg, lo, hi, clo, chi = (
            np.r_[seg, seg], np.r_[lo, mid], np.r_[mid, hi], np.r_[clo, cmid], np.r_[cmid, chi],
        )
    d_seg, d_lo = np.concatenate(done_seg), np.concatenate(done_lo)
    d_len, d_cell = np.concatenate(done_len), np.concatenate(done_cell)
    starts = d_seg * h + d_lo
    order = np.argsort(starts)  # pieces tile the gathered segments, rows 0..h-1 of each in turn
    starts, cells = starts[order], d_cell[order]
    values = V[seg_s, :, seg_j].ravel()
    valid = M[seg_s, :, seg_j].ravel()
    # reduce each piece directly: one reduceat per statistic instead of per-sample labels
    if valid.all():
        count = d_len[order]
        total = np.add.reduceat(values, starts)
        total_sq = np.add.reduceat(values * values, starts)
        minimum = np.minimum.reduceat(values, starts)
        maximum = np.maximum.reduceat(values, starts)
    else:
        vz = np.where(valid, values, 0.0)
        count = np.add.reduceat(valid.astype(np.int64), starts)
        total = np.add.reduceat(vz, starts)
        total_sq = np.add.reduceat(vz * vz, starts)
        minimum = np.minimum.reduceat(np.where(valid, values, np.inf), starts)
        maximum = np.maximum.reduceat(np.where(valid, values, -np.inf), starts)
    keep = (count > 0) & (cells != 0)  # cell 0: samples that could not be placed
    return _runs(cells[keep], count[keep], total[keep], total_sq[keep], minimum[keep], maximum[keep])


def partials_from_window(
    values: np.ndarray,
    *,
    res: int,
    valid: np.ndarray | None = None,
    lats: np.ndarray | None = None,
    lons: np.ndarray | None = None,
    lonlat: LonLatFn | None = None,
    pixel_step: tuple[float, float] | None = None,
    supersample: int = 1,
    block: int = DEFAULT_BLOCK,
) -> Partials:
    """Per-cell partial statistics of one raster window at H3 resolution ``res``.

    ``values``: 2-D array; ``valid``: same-shape boolean mask of usable pixels (NaN are
    always invalid).  Pixel centres are given either as ``lats`` (one per row) and
    ``lons`` (one per column) for a north-up geographic raster -- ``pixel_step`` =
    (dlat, dlon) is only needed to supersample a one-pixel-wide window -- or as
    ``lonlat(rows, cols)`` for any other raster (see :data:`LonLatFn`).
    ``supersample`` = k samples each pixel on a k x k virtual grid (nearest pixel);
    counts are then samples, not pixels.  ``block`` is the grid-row spacing (module doc).
    """
    check_resolution(res)
    values = np.asarray(values)
    if values.ndim != 2:
        raise InputError(f"raster window has shape {values.shape}: pass a 2-D array (rows, cols)")
    if isinstance(supersample, bool) or not isinstance(supersample, (int, np.integer)) or supersample < 1:
        raise InputError(f"supersample {supersample!r} is not a positive integer: pass 1 (off) or k >= 2")
    if isinstance(block, bool) or not isinstance(block, (int, np.integer)) or block < 1:
        raise InputError(f"block {block!r} is not a positive integer: pass e.g. 16")
    k = int(supersample)
    rows, cols = values.shape
    geographic = lats is not None or lons is not None
    if geographic == (lonlat is not None):
        raise InputError("pixel centres: pass either lats and lons (north-up geographic) or lonlat (any raster), not both or neither")
    if geographic:
        if lats is None or lons is None or np.ndim(lats) != 1 or np.ndim(lons) != 1:
            raise InputError("lats and lons must both be 1-D: one latitude per row, one longitude per column")
        if len(lats) != rows or len(lons) != cols:
            raise InputError(f"lats ({len(lats)}) / lons ({len(lons)}) do not match the window shape {values.shape}: "
                             "pass one latitude per row and one longitude per column")
        dlat, dlon = pixel_step if pixel_step is not None else (None, None)
        lats = _sub_centres(lats, k, dlat, "window row")
        lons = _sub_centres(lons, k, dlon, "window column")
    v = values.astype(np.float64, copy=False)
    m = np.isfinite(v)
    if valid is not None:
        valid = np.asarray(valid, dtype=bool)
        if valid.shape != values.shape:
            raise InputError(f"valid mask shape {valid.shape} differs from the window shape {values.shape}: pass a mask of the window's shape")
        m &= valid
    if values.size == 0 or not m.any():
        return empty_partials()
    if k > 1:
        v = np.repeat(np.repeat(v, k, axis=0), k, axis=1)
        m = np.repeat(np.repeat(m, k, axis=0), k, axis=1)
    H, W = v.shape
    all_valid = bool(m.all())
    indexer = _Indexer(res, lats, lons, lonlat, k)

    grid = np.arange(0, H, block)
    if grid[-1] != H - 1:
        grid = np.r_[grid, H - 1]
    col = np.arange(W)
    if all_valid:
        grid_cells = indexer.cells(grid[:, None], col[None, :])
    else:
        # index a grid-row sample only if a strip it bounds holds a valid sample in its column:
        # nodata expanses (sea in a land DEM) then cost no look-ups
        need = np.zeros((len(grid), W), dtype=bool)
        any_valid = np.logical_or.reduceat(m, grid[:-1], axis=0) if len(grid) > 1 else np.zeros((0, W), bool)
        need[:-1] |= any_valid
        need[1:] |= any_valid
        need[-1] |= m[H - 1]
        grid_cells = np.zeros((len(grid), W), dtype=np.uint64)
        gi, gj = np.nonzero(need)
        grid_cells[gi, gj] = indexer.cells(grid[gi], gj)

    entries = []
    n_full = int(np.sum(np.diff(grid) == block))
    if n_full:
        entries += _strip_entries(v, m, all_valid, 0, block, n_full, grid_cells[:n_full], grid_cells[1 : n_full + 1], indexer)
    if len(grid) - 1 > n_full:  # one shorter strip before the last row
        h = int(grid[-1] - grid[-2])
        entries += _strip_entries(v, m, all_valid, int(grid[-2]), h, 1, grid_cells[-2:-1], grid_cells[-1:], indexer)
    entries.append(_pixel_entries(grid_cells[-1], v[H - 1], m[H - 1]))  # the last row is indexed already
    return partials_from_entries(*(np.concatenate([e[i] for e in entries]) for i in range(6)))


__all__ = [
    "DEFAULT_BLOCK",
    "DEFAULT_MIN_SAMPLES",
    "LonLatFn",
    "Partials",
    "STATS_COLUMNS",
    "combine_partials",
    "empty_partials",
    "partials_from_entries",
    "partials_from_window",
    "partials_to_stats",
    "restrict_partials",
    "supersample_factor",
]
