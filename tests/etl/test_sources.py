"""The embedded datasets: DEM from pvlib against lookup_altitude, regeneration, shipped files."""

import numpy as np
import pytest
import rasterio
from pvlib.location import lookup_altitude

from bellica.datasets import DATASETS_DIR
from bellica.etl.rivers import read_rivers
from bellica.etl.shorelines import read_shorelines
from bellica.etl.sources import DEM_NODATA, build_default_datasets, dem_from_pvlib_altitude, widen_bbox
from bellica.geo.errors import InputError
from bellica.geo.settings import DATA_EXTENT

SHIPPED = ["mediterranean_dem.tif", "mediterranean_shorelines.parquet", "mediterranean_rivers.parquet"]


def _sample(path, lon, lat):
    with rasterio.open(path) as src:
        row, col = src.index(lon, lat)
        return int(src.read(1)[row, col])


def test_dem_window_matches_lookup_altitude():
    bbox = (12.0, 36.4, 16.0, 38.6)  # Sicily and Malta
    metres, transform = dem_from_pvlib_altitude(bbox)
    assert metres.dtype == np.int16
    assert transform.a == pytest.approx(1 / 12) and transform.e == pytest.approx(-1 / 12)
    # whole source cells: the window starts on the 1/12-degree grid and covers the bbox
    assert transform.c == pytest.approx(12.0) and transform.f == pytest.approx(90 - 616 / 12)
    rng = np.random.default_rng(7)
    # Points off the cell edges (lookup_altitude rounds half to even there).
    for lat, lon in zip(rng.uniform(36.5, 38.5, 200), rng.uniform(12.1, 15.9, 200)):
        row, col = rasterio.transform.rowcol(transform, lon, lat)
        v = int(metres[row, col])
        assert (0 if v == DEM_NODATA else v) == lookup_altitude(lat, lon), (lat, lon)
    assert (metres == DEM_NODATA).any()  # sea


def test_build_default_datasets_small_region(tmp_path):
    paths = build_default_datasets(tmp_path, bbox=(14.0, 35.6, 14.8, 36.2), margin_deg=0.1)  # Malta
    assert {p.name for p in paths.values()} == set(SHIPPED)
    with rasterio.open(paths["dem"]) as src:
        assert src.crs.to_epsg() == 4326 and src.nodata == DEM_NODATA and src.dtypes == ("int16",)
        assert src.compression.name.lower() == "deflate"
        assert src.bounds.left <= 13.9 and src.bounds.top >= 36.3
    shores = read_shorelines(paths["shorelines"])
    assert (shores["area_km2"].between(200, 300)).any()  # Malta itself
    read_rivers(paths["rivers"])  # Malta has no WDB-II river; the file must still be readable


def test_widen_bbox_checks_margin():
    assert widen_bbox((-7, 29.5, 37, 47.5), 1.0) == (-8, 28.5, 38, 48.5)
    assert widen_bbox((-179.5, -89.5, 179.5, 89.5), 1.0) == (-180, -90, 180, 90)
    with pytest.raises(InputError):
        widen_bbox((-7, 29.5, 37, 47.5), -1)


def test_shipped_dem_reads_right_places():
    dem = DATASETS_DIR / "mediterranean_dem.tif"
    assert _sample(dem, 14.99, 37.73) > 1000        # Etna
    assert _sample(dem, 10.5, 45.0) < 100           # Po plain
    assert 10 <= _sample(dem, 12.49, 41.89) < 120   # Rome: tens of metres
    assert _sample(dem, 12.0, 40.0) == DEM_NODATA   # Tyrrhenian Sea
    with rasterio.open(dem) as src:
        assert (src.bounds.left, src.bounds.bottom, src.bounds.right, src.bounds.top) == pytest.approx(DATA_EXTENT)
    assert _sample(dem, 44.42, 32.54) != DEM_NODATA  # Babylon: past the old 38 E edge
    assert _sample(dem, 49.5, 28.5) == DEM_NODATA    # the head of the Persian Gulf


def test_shipped_files_are_small():
    sizes = [(DATASETS_DIR / name).stat().st_size for name in SHIPPED]
    assert sum(sizes) < 3 * 1024 * 1024
    assert (DATASETS_DIR / "SOURCES.md").read_text().count("bellica map sources") >= 1
