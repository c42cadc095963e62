"""The raster-to-hex kernel must equal brute force: every sample indexed with h3, then pandas groupby."""

import h3
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pyproj import Transformer

from bellica.geo.errors import InputError
from bellica.geo.zonal import (
    Partials,
    combine_partials,
    partials_from_entries,
    partials_from_window,
    partials_to_stats,
    restrict_partials,
    supersample_factor,
)


def brute_stats(values, valid, lat2d, lon2d, res) -> pd.DataFrame:
    """Per-sample h3.latlng_to_cell + groupby: the definition the kernel must reproduce."""
    keep = valid & np.isfinite(values)
    cells = [h3.latlng_to_cell(float(a), float(o), res) for a, o in zip(lat2d[keep], lon2d[keep])]
    df = pd.DataFrame({"cell": cells, "v": values[keep].astype(float)})
    g = df.groupby("cell")["v"]
    out = pd.DataFrame({"elev_mean": g.mean(), "elev_min": g.min(), "elev_max": g.max(),
                        "elev_std": g.std(ddof=0), "elev_samples": g.size()})
    out.index.name = "cell"
    return out.sort_index()


def kernel_stats(p: Partials) -> pd.DataFrame:
    return partials_to_stats(p).set_index("cell").sort_index()


def assert_same(got: pd.DataFrame, want: pd.DataFrame):
    assert list(got.index) == list(want.index)
    # integer-valued data: sums are exact in float64, so mean/min/max/count match bit for bit
    for col in ("elev_samples", "elev_min", "elev_max", "elev_mean"):
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy(), err_msg=col)
    np.testing.assert_allclose(got["elev_std"].to_numpy(), want["elev_std"].to_numpy(), rtol=1e-7, atol=1e-6)


def geo_window(rng, rows, cols, lat0, lon0, dlat, dlon, hole_fraction=0.15):
    values = rng.integers(-400, 4000, size=(rows, cols)).astype(np.int16)
    valid = rng.random((rows, cols)) >= hole_fraction
    lats = lat0 + dlat * np.arange(rows)
    lons = lon0 + dlon * np.arange(cols)
    return values, valid, lats, lons


@pytest.mark.parametrize(
    "rows, cols, lat0, lon0, dlat, dlon, res, block",
    [
        (70, 90, 41.0, 12.0, -0.01, 0.01, 6, 16),  # north-up, Mediterranean
        (64, 64, 41.0, 12.0, -0.01, 0.01, 5, 8),  # exact multiple of the block
        (50, 80, -33.0, 18.0, 0.02, 0.02, 5, 4),  # southern hemisphere, bottom-up rows
        (60, 60, 0.25, 30.0, -0.01, 0.013, 6, 16),  # crosses the equator
        (40, 70, 65.0, 179.5, -0.02, 0.02, 5, 16),  # crosses the antimeridian (lon > 180)
        (33, 47, 45.0, 7.0, -0.03, 0.03, 4, 32),  # few rows per block, coarse cells
        (1, 50, 45.0, 7.0, -0.03, 0.03, 6, 16),  # a single row
        (50, 1, 45.0, 7.0, -0.03, 0.03, 6, 16),  # a single column
    ],
)
def test_block_path_equals_brute_force(rows, cols, lat0, lon0, dlat, dlon, res, block):
    rng = np.random.default_rng(rows * 1000 + cols)
    values, valid, lats, lons = geo_window(rng, rows, cols, lat0, lon0, dlat, dlon)
    got = kernel_stats(partials_from_window(values, res=res, valid=valid, lats=lats, lons=lons, block=block))
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    assert_same(got, brute_stats(values, valid, lat2d, lon2d, res))


@pytest.mark.parametrize("block", [2, 4, 16])
def test_cells_cut_by_an_icosahedron_edge_are_resolved_sample_by_sample(block):
    # res 3 cells 837560/837562 (Gulf of Guinea) lie on two icosahedron faces and are not convex:
    # a meridian enters 837562 between two samples of 837560 (found by the property test)
    rng = np.random.default_rng(0)
    values, valid, lats, lons = geo_window(rng, 20, 20, 2.0, 0.5, 0.125, 0.15625, 0.0)
    assert len(h3.get_icosahedron_faces("837560fffffffff")) == 2
    got = kernel_stats(partials_from_window(values, res=3, valid=valid, lats=lats, lons=lons, block=block))
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    assert_same(got, brute_stats(values, valid, lat2d, lon2d, 3))


def test_pentagon_neighbourhood_equals_brute_force():
    # a pentagon sits on an icosahedron vertex: it too is resolved sample by sample
    lat, lng = h3.cell_to_latlng(h3.get_pentagons(4)[2])
    rng = np.random.default_rng(9)
    values, valid, lats, lons = geo_window(rng, 60, 60, lat + 1.2, lng - 1.2, -0.04, 0.04)
    got = kernel_stats(partials_from_window(values, res=4, valid=valid, lats=lats, lons=lons, block=8))
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    assert_same(got, brute_stats(values, valid, lat2d, lon2d, 4))


def test_smooth_surface_and_nan_holes_equal_brute_force():
    # a smooth float DEM with NaN holes: long uniform column segments, the fast path's common case
    rows, cols = 200, 240
    lats = 38.0 - 0.004 * np.arange(rows)
    lons = 14.0 + 0.004 * np.arange(cols)
    values = np.round(np.add.outer(300 * np.sin(np.arange(rows) / 30), 200 * np.cos(np.arange(cols) / 25)) + 800)
    values[20:60, 30:90] = np.nan
    values[150, :] = np.nan
    got = kernel_stats(partials_from_window(values, res=7, lats=lats, lons=lons))
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    assert_same(got, brute_stats(values, np.ones(values.shape, bool), lat2d, lon2d, 7))


def test_windows_combine_to_the_whole():
    # cells straddle the window edges; combining the four quarters must give the whole
    rng = np.random.default_rng(7)
    values, valid, lats, lons = geo_window(rng, 90, 110, 43.0, 5.0, -0.012, 0.012)
    whole = partials_from_window(values, res=5, valid=valid, lats=lats, lons=lons)
    parts = [
        partials_from_window(values[r], res=5, valid=valid[r], lats=lats[r[0]], lons=lons[r[1]])
        for r in [(slice(0, 37), slice(0, 51)), (slice(0, 37), slice(51, None)),
                  (slice(37, None), slice(0, 51)), (slice(37, None), slice(51, None))]
    ]
    combined = combine_partials(parts)
    for field in ("cell", "count", "total", "total_sq", "minimum", "maximum"):
        np.testing.assert_array_equal(getattr(combined, field), getattr(whole, field))
    assert combined.samples == int(valid.sum())


def test_projected_grid_through_lonlat_callable_equals_brute_force():
    # a UTM 33N grid: pixel columns are not meridians; 250 m pixels, res 7 cells (~5 km2)
    to_wgs84 = Transformer.from_crs("EPSG:32633", "EPSG:4326", always_xy=True)
    x0, y0, step = 400_000.0, 4_650_000.0, 250.0
    rows, cols = 60, 70

    def lonlat(r, c):
        return to_wgs84.transform(x0 + step * c, y0 - step * r)

    rng = np.random.default_rng(3)
    values = rng.integers(0, 2000, size=(rows, cols)).astype(np.int32)
    valid = rng.random((rows, cols)) > 0.1
    got = kernel_stats(partials_from_window(values, res=7, valid=valid, lonlat=lonlat))
    rr, cc = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    lon2d, lat2d = lonlat(rr.astype(float), cc.astype(float))
    assert_same(got, brute_stats(values, valid, lat2d, lon2d, 7))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(1, 45),
    cols=st.integers(1, 45),
    lat0=st.floats(-80, 80),
    lon0=st.floats(-180, 180),
    dlat=st.floats(0.0005, 0.08),
    dlon=st.floats(0.0005, 0.08),
    bottom_up=st.booleans(),
    res=st.integers(0, 9),
    block=st.sampled_from([1, 2, 3, 4, 8, 16, 64]),
    holes=st.floats(0, 0.9),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_windows_equal_brute_force(rows, cols, lat0, lon0, dlat, dlon, bottom_up, res, block, holes, seed):
    rng = np.random.default_rng(seed)
    values, valid, lats, lons = geo_window(rng, rows, cols, lat0, lon0, dlat if bottom_up else -dlat, dlon, holes)
    assume(np.abs(lats).max() <= 90)  # no raster has pixel centres beyond the poles
    got = kernel_stats(partials_from_window(values, res=res, valid=valid, lats=lats, lons=lons, block=block))
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    assert_same(got, brute_stats(values, valid, lat2d, lon2d, res))


def test_supersample_samples_a_finer_virtual_grid():
    rng = np.random.default_rng(11)
    k, step = 3, 0.05
    values, valid, lats, lons = geo_window(rng, 12, 15, 40.0, 10.0, -step, step, 0.2)
    got = kernel_stats(partials_from_window(values, res=6, valid=valid, lats=lats, lons=lons, supersample=k))
    # brute force on the virtual grid: sub-sample centres at (m + 0.5) / k of each pixel, value of its pixel
    off = ((np.arange(k) + 0.5) / k - 0.5) * step
    vlat = (lats[:, None] - off[None, :]).ravel()
    vlon = (lons[:, None] + off[None, :]).ravel()
    vvalues = np.repeat(np.repeat(values, k, 0), k, 1)
    vvalid = np.repeat(np.repeat(valid, k, 0), k, 1)
    lat2d, lon2d = np.meshgrid(vlat, vlon, indexing="ij")
    assert_same(got, brute_stats(vvalues, vvalid, lat2d, lon2d, 6))
    assert got["elev_samples"].sum() == k * k * valid.sum()


def test_supersample_reaches_cells_smaller_than_a_pixel():
    # 5-arc-minute pixels (~66 km2 at 40N) against res 6 cells (~36 km2): most cells hold no pixel centre
    step = 5 / 60
    lats = 40.0 - step * np.arange(8)
    lons = 10.0 + step * np.arange(8)
    values = np.full((8, 8), 100.0)
    plain = partials_from_window(values, res=6, lats=lats, lons=lons)
    k = supersample_factor(66.0, 36.0)
    assert k == 6  # ceil(sqrt(16 * 66 / 36)) = ceil(5.4)
    fine = partials_from_window(values, res=6, lats=lats, lons=lons, supersample=k)
    assert len(fine) > 1.5 * len(plain)
    interior = kernel_stats(fine)
    # cells well inside the raster get about min_samples samples or more
    assert interior["elev_samples"].median() >= 16
    assert (interior["elev_mean"] == 100.0).all() and (interior["elev_std"] == 0).all()


@pytest.mark.parametrize("pixel, cell, k", [(66.0, 253.0, 3), (66.0, 36.0, 6), (1.0, 253.0, 1), (16.0, 16.0, 4)])
def test_supersample_factor(pixel, cell, k):
    assert supersample_factor(pixel, cell) == k


def test_supersample_factor_min_samples_option():
    assert supersample_factor(10.0, 10.0, min_samples=1) == 1
    assert supersample_factor(10.0, 10.0, min_samples=100) == 10


def test_partials_to_stats_columns_and_std():
    p = partials_from_entries(
        np.array([h3.str_to_int(c) for c in ("851e8057fffffff", "851e8053fffffff", "851e8057fffffff")], dtype=np.uint64),
        [2, 1, 1], [3.0, 7.0, 5.0], [5.0, 49.0, 25.0], [1.0, 7.0, 5.0], [2.0, 7.0, 5.0],
    )
    df = partials_to_stats(p)
    assert list(df.columns) == ["cell", "elev_mean", "elev_min", "elev_max", "elev_std", "elev_samples"]
    row = df.iloc[1]  # entries 1, 2 and 5 of one cell
    assert row.elev_samples == 3 and row.elev_mean == pytest.approx(8 / 3)
    assert row.elev_std == pytest.approx(np.std([1.0, 2.0, 5.0]))
    assert row.elev_min == 1 and row.elev_max == 5


def test_restrict_and_empty():
    rng = np.random.default_rng(5)
    values, valid, lats, lons = geo_window(rng, 30, 30, 42.0, 12.0, -0.02, 0.02)
    p = partials_from_window(values, res=6, valid=valid, lats=lats, lons=lons)
    kept = restrict_partials(p, p.cell[::2])
    np.testing.assert_array_equal(kept.cell, p.cell[::2])
    none = partials_from_window(values, res=6, valid=np.zeros_like(valid), lats=lats, lons=lons)
    assert len(none) == 0 and partials_to_stats(none).empty
    assert len(combine_partials([none, none])) == 0


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(values=np.zeros((2, 2, 2))), "2-D"),
        (dict(res=16), "outside 0-15"),
        (dict(lats=np.zeros(3)), "do not match"),
        (dict(lonlat=lambda r, c: (c, r)), "not both"),
        (dict(lats=None, lons=None), "neither"),
        (dict(supersample=0), "supersample"),
        (dict(block=0), "block"),
        (dict(valid=np.ones((3, 3), bool)), "valid mask"),
    ],
)
def test_bad_input_raises_one_line_input_error(kwargs, fragment):
    args = dict(values=np.zeros((4, 5)), res=5, lats=40 - 0.1 * np.arange(4), lons=10 + 0.1 * np.arange(5))
    args.update(kwargs)
    values = args.pop("values")
    with pytest.raises(InputError, match=fragment) as e:
        partials_from_window(values, **args)
    assert "\n" not in str(e.value)


def test_one_pixel_window_needs_pixel_step_to_supersample():
    with pytest.raises(InputError, match="pixel_step"):
        partials_from_window(np.ones((1, 1)), res=5, lats=np.array([40.0]), lons=np.array([10.0]), supersample=2)
    p = partials_from_window(np.ones((1, 1)), res=5, lats=np.array([40.0]), lons=np.array([10.0]),
                             supersample=2, pixel_step=(-0.1, 0.1))
    assert p.samples == 4


def sea_window(rng, rows, cols, lat0, lon0, step):
    """A DEM-like window: smooth int16 relief, a nodata 'sea' blob, pixel centres every ``step`` degrees."""
    lats = lat0 - step * (np.arange(rows) + 0.5)
    lons = lon0 + step * (np.arange(cols) + 0.5)
    y, x = np.meshgrid(np.linspace(-1, 1, rows), np.linspace(-1, 1, cols), indexing="ij")
    values = np.rint(900 + 600 * np.sin(5 * x) * np.cos(4 * y) + rng.normal(0, 20, (rows, cols))).astype(np.int16)
    valid = (x + 0.4 * np.sin(6 * y)) < 0.3  # the coast
    return values, valid, lats, lons


@pytest.mark.parametrize("res, block", [(5, 32), (6, 8), (6, 16), (7, 4), (7, 8)])
def test_realistic_hexes_with_sea_equal_per_pixel_lookup(res, block):
    # 9-arc-second pixels (~250 m) as in the Italy benchmark: ~90 px per res-7 hex, ~620 at res 6
    rng = np.random.default_rng(res * 100 + block)
    values, valid, lats, lons = sea_window(rng, 203, 257, 43.0, 11.0, 9 / 3600)
    got = kernel_stats(partials_from_window(values, res=res, valid=valid, lats=lats, lons=lons, block=block))
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    assert_same(got, brute_stats(values, valid, lat2d, lon2d, res))


@pytest.mark.parametrize("offset_deg", [0.0, 1e-13, -1e-13, 1e-10, -1e-10, 1e-7, -1e-7])
def test_samples_on_and_next_to_a_cell_edge_are_placed_like_h3(offset_deg):
    # a column through the midpoint of a shared edge, one sample on it (or a hair away): geometry
    # must not claim it, the look-ups settle it exactly as h3 does
    a = h3.latlng_to_cell(42.0, 12.0, 7)
    b = next(n for n in h3.grid_ring(a, 1) if h3.cell_to_latlng(n)[0] < h3.cell_to_latlng(a)[0] - 0.005)
    (la1, lo1), (la2, lo2) = h3.directed_edge_to_boundary(h3.cells_to_directed_edge(a, b))
    lat_m, lon_m = (la1 + la2) / 2, (lo1 + lo2) / 2
    step = 0.002
    lats = lat_m + offset_deg + step * (20 - np.arange(41))  # row 20 on the edge
    lons = lon_m + step * (np.arange(9) - 4)  # column 4 through the midpoint
    values = (np.arange(41 * 9).reshape(41, 9) % 977).astype(np.int16)
    valid = np.ones_like(values, dtype=bool)
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    for block in (2, 8, 40):
        got = kernel_stats(partials_from_window(values, res=7, valid=valid, lats=lats, lons=lons, block=block))
        assert_same(got, brute_stats(values, valid, lat2d, lon2d, 7))


def test_column_sweep_needs_few_look_ups():
    # the point of the sweep: at res 7 on 250 m pixels (~90 px per hex) a handful of look-ups per
    # cell, not one per sample or per grid-row sample, and still the brute-force result
    from bellica.geo import zonal

    rng = np.random.default_rng(7)
    values, valid, lats, lons = sea_window(rng, 400, 400, 43.0, 11.0, 9 / 3600)
    valid[:] = True
    calls = []
    real = zonal._Indexer.cells

    def counting(self, rows, cols):
        out = real(self, rows, cols)
        calls.append(out.size)
        return out

    zonal._Indexer.cells = counting
    try:
        p = partials_from_window(values, res=7, valid=valid, lats=lats, lons=lons)
    finally:
        zonal._Indexer.cells = real
    # look-ups only where a row sits within the margin of an edge (or a cell is not convex)
    assert sum(calls) < 0.01 * values.size
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    assert_same(kernel_stats(p), brute_stats(values, valid, lat2d, lon2d, 7))


def test_sweep_crosses_nodata_gaps_and_isolated_pixels():
    # valid samples scattered in nodata (islands, one-pixel holes) along the swept columns
    rng = np.random.default_rng(11)
    values, valid, lats, lons = sea_window(rng, 150, 120, 40.0, 14.0, 9 / 3600)
    valid &= rng.random(valid.shape) < 0.3
    valid[:, 5] = False  # an empty column
    valid[70, 5] = True  # ... but for one pixel
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    for res in (6, 7, 8):
        got = kernel_stats(partials_from_window(values, res=res, valid=valid, lats=lats, lons=lons))
        assert_same(got, brute_stats(values, valid, lat2d, lon2d, res))


@pytest.mark.parametrize("res", [6, 7, 8, 9])
def test_integer_window_without_mask_and_float_window_with_nan(res):
    # res 6-7 are swept, res 8-9 (under SWEEP_MIN_ROWS rows per cell) looked up sample by sample;
    # integer windows skip the float copy, float windows drop NaN samples, both like brute force
    from bellica.geo import zonal

    rng = np.random.default_rng(res)
    values, _, lats, lons = sea_window(rng, 120, 140, 45.0, 9.0, 9 / 3600)
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    swept = zonal._rows_per_cell(res, lats) >= zonal.SWEEP_MIN_ROWS
    assert swept == (res <= 7)
    got = kernel_stats(partials_from_window(values, res=res, lats=lats, lons=lons))
    assert_same(got, brute_stats(values, np.ones(values.shape, bool), lat2d, lon2d, res))
    floats = values.astype(np.float32)
    floats[rng.random(floats.shape) < 0.2] = np.nan
    got = kernel_stats(partials_from_window(floats, res=res, lats=lats, lons=lons))
    assert_same(got, brute_stats(floats, np.isfinite(floats), lat2d, lon2d, res))


def test_sweep_declines_windows_it_does_not_handle():
    # columns in decreasing longitude: the sweep returns None and every sample is looked up
    rng = np.random.default_rng(3)
    values, valid, lats, lons = sea_window(rng, 80, 90, 41.0, 12.0, 9 / 3600)
    lons = lons[::-1].copy()
    lat2d, lon2d = np.meshgrid(lats, lons, indexing="ij")
    got = kernel_stats(partials_from_window(values, res=6, valid=valid, lats=lats, lons=lons))
    assert_same(got, brute_stats(values, valid, lat2d, lon2d, 6))
