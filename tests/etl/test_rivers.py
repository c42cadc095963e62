"""WDB-II river systems: merging, lengths, selection, files."""

import geopandas as gpd
import pytest
import shapely

from bellica.datasets import DATASETS_DIR
from bellica.etl.rivers import clip_rivers, read_rivers, read_wdb_rivers, rivers_from_lines, select_major_rivers
from bellica.geo.errors import InputError, MissingInputError

EQUATOR_DEGREE_KM = 111.3195  # WGS84 equatorial circumference / 360

MAJOR = {  # a point on each river (lon, lat)
    "Tiber": (12.47, 41.90), "Po": (10.0, 45.1), "Arno": (11.25, 43.77), "Volturno": (14.2, 41.1),
    "Ebro": (-0.88, 41.65), "Rhone": (4.83, 45.75), "Nile": (31.23, 30.05),
}


def test_connected_segments_become_one_system_with_geodesic_length():
    a = shapely.LineString([(0, 0), (1, 0)])
    b = shapely.LineString([(1, 0), (2, 0)])        # continues a
    trib = shapely.LineString([(1.5, 1), (1.5, 0)])  # joins b in its middle: same system
    other = shapely.LineString([(5, 5), (5, 5.5)])
    out = rivers_from_lines([other, a, trib, b])
    assert out["river_id"].tolist() == [1, 2]
    assert out["length_km"].iloc[0] == pytest.approx(2 * EQUATOR_DEGREE_KM + 110.57, rel=1e-3)
    assert out["length_km"].iloc[1] == pytest.approx(55.3, rel=1e-2)
    assert out.crs.to_epsg() == 4326


def test_read_wdb_rivers_small_bbox_clips_and_measures():
    bbox = (11.0, 41.5, 13.5, 43.5)  # Lazio and southern Tuscany
    out = read_wdb_rivers(resolution="i", bbox=bbox)
    assert list(out.columns) == ["river_id", "length_km", "geometry"]
    minx, miny, maxx, maxy = out.total_bounds
    assert bbox[0] <= minx and maxx <= bbox[2] and bbox[1] <= miny and maxy <= bbox[3]
    assert out["length_km"].is_monotonic_decreasing
    tiber = out[out.intersects(shapely.Point(12.47, 41.90).buffer(0.1))]
    assert tiber["length_km"].max() > 100


def test_major_rivers_selected_and_streams_dropped():
    rivers = read_rivers(DATASETS_DIR / "mediterranean_rivers.parquet")
    major = select_major_rivers(rivers)
    for name, (lon, lat) in MAJOR.items():
        near = major.intersects(shapely.Point(lon, lat).buffer(0.1))
        assert near.any(), name
    short = rivers[rivers["length_km"] < 20]
    assert len(short) > 50
    assert not major["river_id"].isin(short["river_id"]).any()
    assert len(major) < len(rivers) / 2
    assert len(select_major_rivers(rivers, min_length_km=1000)) < 5


def test_select_major_rivers_rejects_bad_length():
    rivers = rivers_from_lines([shapely.LineString([(0, 0), (1, 0)])])
    with pytest.raises(InputError):
        select_major_rivers(rivers, min_length_km=-1)
    with pytest.raises(InputError, match="length_km"):
        select_major_rivers(rivers.drop(columns="length_km"))


def test_read_rivers_user_lines_are_merged(tmp_path):
    lines = [shapely.LineString([(0, 0), (1, 0)]), shapely.LineString([(1, 0), (1, 1)])]
    gpd.GeoDataFrame({"name": ["a", "b"]}, geometry=lines, crs=4326).to_file(tmp_path / "r.gpkg")
    out = read_rivers(tmp_path / "r.gpkg")
    assert len(out) == 1 and out["length_km"].iloc[0] == pytest.approx(EQUATOR_DEGREE_KM + 110.57, rel=1e-3)


def test_read_rivers_errors(tmp_path):
    with pytest.raises(MissingInputError):
        read_rivers(tmp_path / "none.parquet")
    gpd.GeoDataFrame(geometry=[shapely.box(0, 0, 1, 1)], crs=4326).to_parquet(tmp_path / "p.parquet")
    with pytest.raises(InputError, match="lines only"):
        read_rivers(tmp_path / "p.parquet")


def test_clip_rivers_keeps_valid_lines_inside_the_extent_only():
    extent = shapely.box(0, 0, 10, 10)
    lines = [
        shapely.LineString([(-5, 5), (15, 5)]),                       # across: cut at both edges
        shapely.LineString([(20, 20), (30, 30)]),                     # wholly outside: dropped
        shapely.LineString([(-1, 11), (0, 10), (-1, 9)]),             # touches a corner only: a point, dropped
        shapely.LineString([(2, -1), (2, 1), (3, -1), (4, 1), (5, -1)]),  # leaves and re-enters: two pieces
        shapely.LineString([(1, 1), (2, 2)]),                         # inside: unchanged
        shapely.LineString([(0, 3), (0, 4)]),                         # along the edge
    ]
    rivers = gpd.GeoDataFrame({"river_id": [1, 2, 3, 4, 5, 6], "length_km": [9.0, 8.0, 7.0, 6.0, 5.0, 4.0]},
                              geometry=lines, crs=4326)
    out = clip_rivers(rivers, extent)
    assert out["river_id"].tolist() == [1, 4, 5, 6] and out["length_km"].tolist() == [9.0, 6.0, 5.0, 4.0]
    assert out.crs.to_epsg() == 4326
    assert set(out.geom_type) <= {"LineString", "MultiLineString"} and out.is_valid.all() and not out.is_empty.any()
    assert out.geometry.covered_by(extent).all()  # the edge line lies on the boundary: covered, not within
    assert out.geometry.iloc[0].equals(shapely.LineString([(0, 5), (10, 5)]))
    assert out.geometry.iloc[1].geom_type == "MultiLineString" and len(out.geometry.iloc[1].geoms) == 2
    assert out.geometry.iloc[2].equals(lines[4])
    assert clip_rivers(rivers.iloc[:0], extent).empty
