"""The terrain map page: offline assets, compact encoding, content, one-line errors, atomic writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import shapely

from bellica.geo.errors import InputError, MissingInputError, BellicaError
from bellica.geo.hexgrid import cell_polygon
from bellica.geo.spatialdb import connect
from tests.web_maps.synthetic import hex_layer_data, make_map_db
from bellica.web_maps.assets import leaflet_css, remote_urls, write_html
from bellica.web_maps.encode import encode_lines, encode_rings, pack_rings, unpack_rings
from bellica.web_maps.terrain_map import KIND_COLOURS, TERRAIN_COLOURS, render_terrain_map


def _decode(v: list[int], q: int) -> np.ndarray:
    xy = np.cumsum(np.array(v, dtype=np.int64).reshape(-1, 2), axis=0)
    return xy / q


_hex_data = hex_layer_data


@pytest.fixture
def map_db(tmp_path) -> tuple[Path, list[dict]]:
    db = tmp_path / "latium.duckdb"
    return db, make_map_db(db)


def test_page_is_offline_and_complete(map_db, tmp_path):
    db, rows = map_db
    out = render_terrain_map(db, tmp_path / "maps" / "latium.html")
    assert out == tmp_path / "maps" / "latium.html"
    page = out.read_text(encoding="utf-8")
    assert remote_urls(page) == []
    # Only Leaflet, inlined: none of folium's CDN libraries, no external scripts or stylesheets.
    assert "<script src" not in page and "<link" not in page
    for gone in ("jquery", "bootstrap", "awesome-markers", "font-awesome", "fontawesome", "cdn.jsdelivr"):
        assert gone not in page.lower()
    assert "Leaflet 1.9.4" in page
    assert "url(data:image/png;base64," in page and "url(images/" not in page
    assert "L.tileLayer(" not in page
    data = _hex_data(page)
    assert data["cols"][0]["v"] == [r["cell"] for r in rows]
    # Hex colours: terrain on land, kind on water.
    colours = {data["colours"][c] for c in data["c"]}
    assert colours == set(TERRAIN_COLOURS.values()) | set(KIND_COLOURS.values())
    assert "L.control.layers(" in page and "bellica-legend" in page


def test_hex_vertices_round_trip_at_the_chosen_precision(map_db, tmp_path):
    db, rows = map_db
    page = render_terrain_map(db, tmp_path / "m.html", precision=4).read_text()
    data = _hex_data(page)
    assert data["q"] == 10**4
    for r, v in zip(rows, data["v"]):
        expected = np.array(cell_polygon(r["cell"]).exterior.coords)[:-1]
        assert np.abs(_decode(v, data["q"]) - expected).max() <= 0.6e-4


def test_packed_rings_unpack_to_the_same_integers():
    rng = np.random.default_rng(7)
    rings = [[int(a) for a in rng.integers(-(10**9), 10**9, 2)] + [int(d) for d in rng.integers(-70000, 70000, 2 * k)]
             for k in rng.choice([5, 6, 9], 500)]
    rings[0] = rings[17] = []  # a hex without geometry keeps its place
    rings[3] = [1_800_000_000, -850_000_000, 1, -1]  # 7 decimals of a degree: the widest numbers
    blob, n_vertices = pack_rings(rings)
    assert n_vertices == sum(len(r) for r in rings) // 2
    assert unpack_rings(blob, len(rings)) == rings
    assert pack_rings([]) == ("", 0)


def test_encoders_keep_every_part_and_owner():
    lines = shapely.from_wkt(["MULTILINESTRING((0 0, 1 1), (2 2, 3 3, 4 4))", "POINT(1 1)", "LINESTRING(5 5, 6 6.5)"])
    parts, owner = encode_lines(lines, precision=3)
    assert owner == [0, 0, 2]
    assert _decode(parts[2], 1000).tolist() == [[5, 5], [6, 6.5]]
    assert encode_rings([]) == []
    with pytest.raises(InputError, match="precision"):
        encode_rings([cell_polygon("861e80097ffffff")], precision=9)


def test_unclassified_land_and_missing_geometry_still_draw(tmp_path):
    db = tmp_path / "odd.duckdb"
    rows = make_map_db(db, k=1)
    con = connect(db)
    con.execute("UPDATE hexes SET kind = 'land', terrain = NULL WHERE cell = ?", [rows[0]["cell"]])
    con.execute("UPDATE hexes SET kind = 'land', geom = NULL WHERE cell = ?", [rows[1]["cell"]])
    con.execute("DROP TABLE map_rivers")
    con.close()
    page = render_terrain_map(db, tmp_path / "odd.html").read_text()
    data = _hex_data(page)
    assert len(data["v"]) == len(rows)
    assert "land (unclassified)" in page
    # Without river lines the river hexes are the river display, shown by default.
    assert '"Rivers" :' not in page and '"River hexes" :' in page
    outline = re.search(r"var (hex_outline_layer_\w+) = ", page).group(1)
    assert f"{outline}.addTo(" in page


def test_map_rivers_are_clipped_to_the_hexes(map_db, tmp_path):
    db, rows = map_db
    con = connect(db)
    con.execute("INSERT INTO map_rivers VALUES (2, 900.0, ST_GeomFromText('LINESTRING(5 30, 12.5 41.9, 20 50)'))")
    con.close()
    page = render_terrain_map(db, tmp_path / "m.html").read_text()
    match = re.search(r'\}\)\((\{"q":\d+,"v":.*?"style".*?\})\);\n', page)
    data = json.loads(match.group(1))
    xy = np.concatenate([_decode(v, data["q"]) for v in data["v"]])
    hexes = np.concatenate([np.array(cell_polygon(r["cell"]).exterior.coords) for r in rows])
    assert xy[:, 0].min() >= hexes[:, 0].min() - 1e-5 and xy[:, 0].max() <= hexes[:, 0].max() + 1e-5
    assert xy[:, 1].min() >= hexes[:, 1].min() - 1e-5 and xy[:, 1].max() <= hexes[:, 1].max() + 1e-5
    assert sorted(set(data["o"])) == [0, 1]  # both rivers kept


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (lambda p: None, MissingInputError, "does not exist"),
        (lambda p: p.write_text("not a database"), InputError, "not a readable DuckDB database"),
        (lambda p: connect(p).execute("CREATE TABLE t (x INTEGER)").close(), InputError, "no hexes table"),
    ],
)
def test_bad_database_is_one_line(tmp_path, make, error, words):
    db = tmp_path / "bad.duckdb"
    make(db)
    with pytest.raises(error) as info:
        render_terrain_map(db, tmp_path / "bad.html")
    message = str(info.value)
    assert words in message and str(db) in message and "\n" not in message
    assert not (tmp_path / "bad.html").exists()
    assert db.exists() or error is MissingInputError  # never created as a side effect


def test_bad_output_and_faction_on_a_map_are_one_line(map_db, tmp_path):
    db, _ = map_db
    with pytest.raises(InputError, match="not an .html file"):
        render_terrain_map(db, tmp_path / "map.png")
    with pytest.raises(InputError, match="needs a campaign database"):
        render_terrain_map(db, tmp_path / "map.html", faction="Roma")


def test_write_is_atomic_and_refuses_remote_pages(tmp_path):
    out = tmp_path / "map.html"
    out.write_text("previous map")
    with pytest.raises(BellicaError, match="offline"):
        write_html('<html><script src="https://cdn.example.org/x.js"></script></html>', out)
    assert out.read_text() == "previous map"
    assert [p.name for p in tmp_path.iterdir()] == ["map.html"]  # no temporary left behind
    write_html("<html><body>new</body></html>", out)
    assert out.read_text() == "<html><body>new</body></html>"


def test_remote_url_finder():
    page = """<html><head>
      <link rel="stylesheet" href="//cdn.example.org/a.css">
      <script src="https://cdn.example.org/b.js"></script>
      <style>@import "http://fonts.example.org/c.css"; .x { background: url('https://img.example.org/d.png') }
             .y { background: url(data:image/png;base64,AAAA) } .z { behavior: url(#default#VML) }</style>
      </head><body><img srcset="https://img.example.org/e.png 2x, local.png 1x">
      <a href="https://leafletjs.com">Leaflet</a><div style="background:url(http://img.example.org/f.png)"></div>
      <script>var s = '<img src="https://not.a.tag/">';</script></body></html>"""
    assert sorted(remote_urls(page)) == sorted([
        "//cdn.example.org/a.css",
        "https://cdn.example.org/b.js",
        "http://fonts.example.org/c.css",
        "https://img.example.org/d.png",
        "https://img.example.org/e.png",
        "http://img.example.org/f.png",
    ])


def test_leaflet_css_images_are_inlined():
    css = leaflet_css()
    assert css.count("url(data:image/png;base64,") == 3
    assert "images/" not in css


def test_the_terrain_drawn_again_is_the_same_and_a_changed_hex_is_drawn_anew(map_db, tmp_path):
    """Pages drawn from the same hexes share their packed terrain (a copy of the file too: the app
    draws each page from a fresh copy), and a hex changed in a file is drawn as it now is."""
    import shutil

    from bellica.web_maps import terrain_map

    db, rows = map_db
    first = _hex_data(render_terrain_map(db, tmp_path / "a.html").read_text())
    copy = shutil.copyfile(db, tmp_path / "copy.duckdb")
    with connect(copy, read_only=True) as con:
        hexes = terrain_map.drawn_hexes(con)
    with connect(db, read_only=True) as con:
        assert terrain_map.drawn_hexes(con) is hexes  # by content, not by file
    assert _hex_data(render_terrain_map(copy, tmp_path / "b.html").read_text()) == first

    land = next(r["cell"] for r in rows if r["kind"] == "land" and r["terrain"] != "desert")
    with connect(copy) as con:
        con.execute("UPDATE hexes SET terrain = 'desert' WHERE cell = ?", [land])
    changed = _hex_data(render_terrain_map(copy, tmp_path / "c.html").read_text())
    at = first["cols"][0]["v"].index(land)
    terrains = changed["cols"][2]
    assert terrains["k"][terrains["v"][at]] == "desert" and changed["c"] != first["c"]
    assert _hex_data(render_terrain_map(db, tmp_path / "d.html").read_text()) == first  # the original still as it was
