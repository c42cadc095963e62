"""DEM reader/driver: tiny synthetic rasters written in tmp_path, compared with brute force."""

import dataclasses
import io
import os
import sys

import h3
import numpy as np
import pandas as pd
import pytest
import rasterio
import rasterio.shutil
from pyproj import Transformer
from affine import Affine

import bellica.etl.dem as dem
from benchmarks.bench_zonal import PeakRss  # the bench's peak-RSS sampler, one copy
from bellica.etl.dem import dem_stats_by_cell
from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.hexgrid import cell_polygon, cells_in_bbox
from tests.geo.test_zonal import brute_stats

def from_origin(west, north, dx, dy) -> Affine:
    """rasterio.transform.from_origin without its Affine '*' deprecation warning."""
    return Affine(dx, 0.0, west, 0.0, -dy, north)


NODATA = -9999


def write_tif(path, values, transform, crs="EPSG:4326", nodata=NODATA, **extra):
    profile = dict(driver="GTiff", width=values.shape[1], height=values.shape[0], count=1, dtype=values.dtype,
                   transform=transform, nodata=nodata, **extra)
    if crs is not None:
        profile["crs"] = crs
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(values, 1)
    return path


def synthetic(rows, cols, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.integers(-50, 3000, size=(rows, cols)).astype(np.int16)
    v[10:25, 30:60] = NODATA  # a nodata hole
    return v


def brute_from_file(path, cells, res):
    """Every pixel centre through pyproj (if projected) and h3, restricted to ``cells``."""
    with rasterio.open(path) as ds:
        v = ds.read(1, masked=True)
        rows, cols = np.meshgrid(np.arange(ds.height) + 0.5, np.arange(ds.width) + 0.5, indexing="ij")
        t = ds.transform
        x, y = t.a * cols + t.b * rows + t.c, t.d * cols + t.e * rows + t.f
        lon, lat = Transformer.from_crs(ds.crs, "EPSG:4326", always_xy=True).transform(x, y)
    want = brute_stats(np.ma.getdata(v), ~np.ma.getmaskarray(v), np.asarray(lat), np.asarray(lon), res)
    return want[want.index.isin(cells)]


def assert_matches(got: pd.DataFrame, want: pd.DataFrame):
    got = got[got.elev_samples > 0].set_index("cell").sort_index()
    assert list(got.index) == list(want.index)
    for col in ("elev_samples", "elev_min", "elev_max", "elev_mean"):
        np.testing.assert_array_equal(got[col].to_numpy(), want[col].to_numpy(), err_msg=col)
    np.testing.assert_allclose(got.elev_std.to_numpy(), want.elev_std.to_numpy(), rtol=1e-7, atol=1e-6)


@pytest.fixture
def geotiff(tmp_path):
    # 0.01 degree pixels over 10-14E, 38-40.5N, tiled in 64-pixel blocks
    return write_tif(tmp_path / "dem.tif", synthetic(250, 400), from_origin(10.0, 40.5, 0.01, 0.01),
                     tiled=True, blockxsize=64, blockysize=64)


@pytest.fixture
def region_cells():
    return cells_in_bbox((10.6, 38.3, 13.4, 40.2), 6)


def test_geographic_geotiff_equals_brute_force(geotiff, region_cells):
    got = dem_stats_by_cell(geotiff, region_cells, 6, window_size=100, supersample=1, progress=False)
    assert list(got.columns) == ["cell", "elev_mean", "elev_min", "elev_max", "elev_std", "elev_samples"]
    assert list(got.cell) == region_cells  # one row per requested cell, in order
    assert_matches(got, brute_from_file(geotiff, region_cells, 6))


def test_projected_geotiff_equals_brute_force(tmp_path):
    # ETRS89-LAEA (EPSG:3035) over southern Italy, 500 m pixels, res 6 (~36 km2 cells)
    path = write_tif(tmp_path / "laea.tif", synthetic(160, 200, 1), from_origin(4_820_000, 1_920_000, 500, 500),
                     crs="EPSG:3035")
    cells = cells_in_bbox((16.0, 39.6, 16.9, 40.1), 6)
    got = dem_stats_by_cell(path, cells, 6, window_size=64, supersample=1, progress=False)
    assert (got.elev_samples > 0).sum() > 10
    assert_matches(got, brute_from_file(path, cells, 6))


def test_netcdf_is_read(tmp_path, geotiff, region_cells):
    # rasterio cannot open netCDF for writing, but GDAL's CreateCopy can write one
    nc = tmp_path / "dem.nc"
    rasterio.shutil.copy(geotiff, nc, driver="netCDF")
    with rasterio.open(nc) as ds:
        assert ds.driver == "netCDF"
    got = dem_stats_by_cell(nc, region_cells, 6, supersample=1, progress=False)
    want = dem_stats_by_cell(geotiff, region_cells, 6, supersample=1, progress=False)
    pd.testing.assert_frame_equal(got, want)


def test_masks_without_nodata_value(tmp_path, region_cells):
    # no nodata at all (every pixel valid), a float DEM with NaN holes, and an internal mask band
    values = synthetic(250, 400, 4)
    transform = from_origin(10.0, 40.5, 0.01, 0.01)
    plain = write_tif(tmp_path / "plain.tif", values, transform, nodata=None)
    assert_matches(dem_stats_by_cell(plain, region_cells, 6, supersample=1, progress=False),
                   brute_from_file(plain, region_cells, 6))

    with_nan = values.astype(np.float32)
    with_nan[values == NODATA] = np.nan
    nan_tif = write_tif(tmp_path / "nan.tif", with_nan, transform, nodata=None)
    got = dem_stats_by_cell(nan_tif, region_cells, 6, supersample=1, progress=False)
    nodata_tif = write_tif(tmp_path / "nodata.tif", values, transform)
    want = dem_stats_by_cell(nodata_tif, region_cells, 6, supersample=1, progress=False)
    pd.testing.assert_frame_equal(got, want)

    masked = tmp_path / "masked.tif"
    with rasterio.Env(GDAL_TIFF_INTERNAL_MASK=True):
        with rasterio.open(masked, "w", driver="GTiff", width=400, height=250, count=1, dtype="int16",
                           crs="EPSG:4326", transform=transform) as dst:
            dst.write(np.where(values == NODATA, 0, values).astype(np.int16), 1)
            dst.write_mask(values != NODATA)
    pd.testing.assert_frame_equal(dem_stats_by_cell(masked, region_cells, 6, supersample=1, progress=False), want)


def test_cells_without_samples_keep_a_row_with_zero_samples(geotiff):
    inside = h3.latlng_to_cell(39.0, 12.0, 6)
    outside = h3.latlng_to_cell(39.0, 13.98, 6)  # straddles the raster's east edge: some samples
    far = [c for c in h3.grid_disk(inside, 1) if c != inside][0]
    # a cell fully in the nodata hole gets no sample
    hole = h3.latlng_to_cell(40.5 - 0.175, 10.0 + 0.45, 8)
    got = dem_stats_by_cell(geotiff, [inside, far, outside], 6, supersample=1, progress=False).set_index("cell")
    assert (got.elev_samples > 0).all()
    got8 = dem_stats_by_cell(geotiff, [hole], 8, supersample=1, progress=False)
    assert got8.elev_samples.tolist() == [0] and got8.elev_mean.isna().all() and got8.elev_std.isna().all()


def test_auto_supersample_gives_small_cells_samples(tmp_path):
    # 5-arc-minute pixels (the default DEM) at res 6: without supersampling most cells have 0 or 1 pixel
    step = 5 / 60
    path = write_tif(tmp_path / "coarse.tif", np.full((30, 40), 250, np.int16), from_origin(10, 42, step, step))
    cells = cells_in_bbox((10.5, 40.0, 12.5, 41.5), 6)
    plain = dem_stats_by_cell(path, cells, 6, supersample=1, progress=False)
    auto = dem_stats_by_cell(path, cells, 6, progress=False)
    assert (plain.elev_samples == 0).mean() > 0.3
    assert (auto.elev_samples >= 8).all() and auto.elev_samples.median() >= 16
    assert (auto.elev_mean == 250).all()


def test_reads_only_windows_over_the_region(tmp_path, monkeypatch):
    path = write_tif(tmp_path / "big.tif", synthetic(600, 800, 2), from_origin(0.0, 46.0, 0.01, 0.01),
                     tiled=True, blockxsize=64, blockysize=64)
    seen = []
    real = dem.window_partials

    def spy(job, cells=None, **options):
        seen.append(job)
        return real(job, cells, **options)

    monkeypatch.setattr(dem, "window_partials", spy)
    cells = cells_in_bbox((1.0, 44.5, 1.6, 45.0), 6)
    dem_stats_by_cell(path, cells, 6, window_size=128, supersample=1, progress=False)
    read = sum(j.height * j.width for j in seen)
    assert 0 < read < 0.1 * 600 * 800
    assert all(j.height <= 128 and j.width <= 128 for j in seen)


def test_dask_path_equals_local(geotiff, region_cells):
    local = dem_stats_by_cell(geotiff, region_cells, 6, window_size=64, supersample=2, progress=False, use_dask=False)
    dist = dem_stats_by_cell(geotiff, region_cells, 6, window_size=64, supersample=2, progress=False, use_dask=True)
    pd.testing.assert_frame_equal(local, dist)


def test_scheduler_address_is_used(geotiff, region_cells):
    from distributed import LocalCluster

    local = dem_stats_by_cell(geotiff, region_cells, 6, window_size=64, supersample=1, progress=False, use_dask=False)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        dist = dem_stats_by_cell(geotiff, region_cells, 6, window_size=64, supersample=1, progress=False,
                                 scheduler=cluster.scheduler_address)
        assert cluster.scheduler.transition_counter > 0  # the windows ran there
    pd.testing.assert_frame_equal(local, dist)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_counts_windows_on_a_terminal_only(geotiff, region_cells, capsys, monkeypatch):
    # stderr captured (a file, not a terminal): nothing drawn, not even with progress on (issue 19)
    dem_stats_by_cell(geotiff, region_cells, 6, window_size=128, supersample=1, progress=True)
    assert capsys.readouterr().err == ""
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    dem_stats_by_cell(geotiff, region_cells, 6, window_size=128, supersample=1, progress=True)
    assert "window" in terminal.getvalue()
    terminal.truncate(0)
    dem_stats_by_cell(geotiff, region_cells, 6, window_size=128, supersample=1, progress=False)  # -q
    assert terminal.getvalue() == ""


def test_our_local_cluster_starts_no_dashboard():
    # LocalCluster(dashboard_address=None) still served HTTP on :8787, registered as the "dashboard"
    # service, logged "dashboard at: http://127.0.0.1:8787/status" and moved (with a warning) when the
    # port was taken (issue 19; dask/distributed#7207).
    from distributed import Client

    with dem._local_cluster() as cluster, Client(cluster, set_as_default=False) as client:
        assert client.dashboard_link == ""
        assert cluster.scheduler.services == {} and not hasattr(cluster.scheduler, "http_server")
        assert client.scheduler_info()["services"] == {}
        assert len(client.nthreads()) == dem.DASK_WORKERS and set(client.nthreads().values()) == {1}
        assert client.submit(os.getpid).result() != os.getpid()  # worker processes, not threads


def test_a_dem_missing_on_a_worker_is_named_missing_not_damaged(geotiff, tmp_path):
    from distributed import Client, LocalCluster

    gone = tmp_path / "gone.tif"
    job = dem.WindowJob(str(gone), 1, 0, 0, 16, 16, 6, 1, 2, (0.01, 0.0, 12.0, 0.0, -0.01, 42.0), "EPSG:4326", True)
    with pytest.raises(MissingInputError, match=r"gone.tif does not exist \(any more\)"):
        dem.window_partials(job)  # in this process
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        with pytest.raises(MissingInputError) as e:
            client.submit(dem.window_partials, job, pure=False).result()
    assert f"DEM {gone} does not exist on Dask worker " in one_line(e)
    assert "damaged" not in one_line(e) and "shared folder" in one_line(e)
    cut = tmp_path / "cut.tif"
    cut.write_bytes(geotiff.read_bytes()[:600])  # there, but truncated: damaged
    with pytest.raises(MissingInputError, match="cut.tif window at row 0, col 0 cannot be read .* damaged"):
        dem.window_partials(dataclasses.replace(job, path=str(cut)))


# --- errors: one line, naming the input and the fix -------------------------------------------------


def one_line(excinfo):
    assert "\n" not in str(excinfo.value)
    return str(excinfo.value)


def test_missing_file(tmp_path, region_cells):
    with pytest.raises(MissingInputError) as e:
        dem_stats_by_cell(tmp_path / "nope.tif", region_cells, 6, progress=False)
    assert "does not exist" in one_line(e)


def test_corrupt_file(tmp_path, region_cells):
    bad = tmp_path / "bad.tif"
    bad.write_bytes(b"II*\x00" + os.urandom(200))
    with pytest.raises(MissingInputError) as e:
        dem_stats_by_cell(bad, region_cells, 6, progress=False)
    assert "cannot be read" in one_line(e)


def test_dem_without_crs(tmp_path, region_cells):
    path = write_tif(tmp_path / "nocrs.tif", synthetic(50, 50), from_origin(10, 40, 0.01, 0.01), crs=None)
    with pytest.raises(InputError) as e:
        dem_stats_by_cell(path, region_cells, 6, progress=False)
    assert "no CRS" in one_line(e)


def test_region_outside_raster(geotiff):
    with pytest.raises(InputError) as e:
        dem_stats_by_cell(geotiff, cells_in_bbox((30.0, 30.0, 30.5, 30.5), 6), 6, progress=False)
    assert "outside the DEM" in one_line(e)


@pytest.mark.parametrize("res", [-1, 16, 5.0, True])
def test_resolution_outside_range(geotiff, res):
    with pytest.raises(InputError) as e:
        dem_stats_by_cell(geotiff, ["861e8050fffffff"], res, progress=False)
    assert "outside 0-15" in one_line(e)


@pytest.mark.parametrize(
    "cells, fragment",
    [([], "empty"), ("861e8050fffffff", "one string"), (["zzz"], "not an H3 cell"), (["851e8053fffffff"], "resolution 5")],
)
def test_bad_cell_lists(geotiff, cells, fragment):
    with pytest.raises(InputError) as e:
        dem_stats_by_cell(geotiff, cells, 6, progress=False)
    assert fragment in one_line(e)


@pytest.mark.parametrize("kwargs, fragment", [(dict(supersample="x"), "supersample"), (dict(window_size=4), "window_size"),
                                              (dict(band=2), "no band 2")])
def test_bad_options(geotiff, region_cells, kwargs, fragment):
    with pytest.raises(InputError) as e:
        dem_stats_by_cell(geotiff, region_cells, 6, progress=False, **kwargs)
    assert fragment in one_line(e)


def test_unreachable_scheduler(geotiff, region_cells, monkeypatch):
    monkeypatch.setattr(dem, "SCHEDULER_CONNECT_TIMEOUT", "1s")
    with pytest.raises(InputError) as e:
        dem_stats_by_cell(geotiff, region_cells, 6, progress=False, scheduler="tcp://127.0.0.1:9")
    assert "scheduler" in one_line(e)


# --- a 20000 x 20000 raster through the Dask LocalCluster ---------------------------------------------

BIG = 20_000
BIG_STEP = 0.0002  # degrees: 4 x 4 degrees, ~20 m pixels


def plane(lon, lat):
    """The synthetic terrain: a tilted plane, so a cell's mean is the plane at its centroid."""
    return 1000.0 + 200.0 * (lon - 12.0) + 300.0 * (lat - 38.0)


def write_big_dem(path):
    rows_per_strip = 1024
    lon = 10.0 + BIG_STEP * (np.arange(BIG) + 0.5)
    with rasterio.open(path, "w", driver="GTiff", width=BIG, height=BIG, count=1, dtype="int16", crs="EPSG:4326",
                       transform=from_origin(10.0, 40.0, BIG_STEP, BIG_STEP), nodata=-32768, tiled=True,
                       blockxsize=512, blockysize=512, compress="deflate", predictor=2, zlevel=1, bigtiff="yes") as dst:
        for r0 in range(0, BIG, rows_per_strip):
            r1 = min(BIG, r0 + rows_per_strip)
            lat = 40.0 - BIG_STEP * (np.arange(r0, r1) + 0.5)
            block = np.rint(plane(lon[None, :], lat[:, None])).astype(np.int16)
            dst.write(block, 1, window=rasterio.windows.Window(0, r0, BIG, r1 - r0))


@pytest.mark.slow
def test_20000_square_dem_on_local_cluster(tmp_path):
    path = tmp_path / "big.tif"
    write_big_dem(path)
    cells = cells_in_bbox((10.3, 36.3, 13.7, 39.7), 5)
    with PeakRss() as rss:
        got = dem_stats_by_cell(path, cells, 5, use_dask=True, progress=False)
    assert rss.peak < 2 * 1024**3, f"peak RSS {rss.peak / 1e9:.2f} GB"
    assert (got.elev_samples > 0).all()
    for row in got.itertuples():
        poly = cell_polygon(row.cell)
        c = poly.centroid
        # samples are uniform in lon/lat, so their mean position is the polygon's lon/lat centroid
        assert row.elev_mean == pytest.approx(plane(c.x, c.y), abs=0.5)
        lons, lats = np.asarray(poly.exterior.coords).T
        assert row.elev_min == pytest.approx(plane(lons, lats).min(), abs=1.5)
        assert row.elev_max == pytest.approx(plane(lons, lats).max(), abs=1.5)
        assert row.elev_samples == pytest.approx(poly.area / BIG_STEP**2, rel=0.01)
    # a few cells again on the local path, reading only their windows: identical
    few = got.cell.iloc[[0, len(got) // 2, -1]].tolist()
    local = dem_stats_by_cell(path, few, 5, use_dask=False, progress=False)
    pd.testing.assert_frame_equal(local.reset_index(drop=True), got.set_index("cell").loc[few].reset_index())


def test_threaded_local_path_leaves_gdal_cache_settings_alone(geotiff, region_cells, monkeypatch):
    # Regression: the in-process path ran windows on threads, each inside
    # rasterio.Env(GDAL_CACHEMAX=64); GDAL's cache size is process-global, so the
    # interleaved set/restore left it capped and made later GDAL reads (exactextract)
    # 4-5x slower.  Only Dask worker processes of our own may cap it.
    entered = []
    real_env = rasterio.Env

    def spy_env(*args, **options):
        entered.append(options)
        return real_env(*args, **options)

    monkeypatch.setattr(dem.rasterio, "Env", spy_env)
    got = dem_stats_by_cell(geotiff, region_cells, 6, use_dask=False, progress=False, window_size=64)
    assert len(got) == len(region_cells)
    assert not [o for o in entered if "GDAL_CACHEMAX" in o]
