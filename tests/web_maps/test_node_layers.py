"""Node maps on the web map (web_maps/node_layers.py): places by coast, fortification and owner,
land and sea paths with their tooltips, a year's places only, no ruleset needed."""

from __future__ import annotations

import pytest

from bellica.etl.nodes import build_nodes
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import connect
from bellica.web_maps.assets import OfflineMap, remote_urls
from bellica.web_maps.node_layers import (COASTAL_FILL, INLAND_FILL, LAND_PATH_COLOUR, NEUTRAL_FILL, SEA_PATH_COLOUR,
                                         add_node_layers, read_node_map, render_node_map)
from tests.etl.test_nodes import make_node_map, node_toml
from tests.web_maps.synthetic import layer_payloads


@pytest.fixture(scope="module")
def node_map(tmp_path_factory):
    folder = tmp_path_factory.mktemp("node-map")
    path = folder / "map.duckdb"
    make_node_map(path)
    (folder / "nodes.toml").write_text(node_toml(Beta="until_year = -300\nnote = \"burnt <b>down</b>\"\n"))
    build_nodes(path, folder / "nodes.toml")
    return path


def _page(path, tmp_path, **kw) -> str:
    out = render_node_map(path, tmp_path / "nodes.html", **kw)
    return out.read_text(encoding="utf-8")


def _places(page: str) -> dict[str, dict]:
    (points,) = layer_payloads(page, "point_layer")
    return {p["tip"][0][1]: p for p in points if p.get("tip")}


def test_places_and_paths_are_drawn(node_map, tmp_path):
    page = _page(node_map, tmp_path)
    assert not remote_urls(page)  # offline, like every page of ours
    places = _places(page)
    assert sorted(places) == ["Alpha", "Beta", "Gamma", "Insula", "Navalia", "Portus"]
    assert places["Portus"]["colour"] == COASTAL_FILL and places["Alpha"]["colour"] == INLAND_FILL
    assert places["Portus"]["label"] == "Portus (2)" and places["Alpha"]["label"] == "Alpha"
    assert places["Portus"]["r"] > places["Alpha"]["r"]  # fortified: larger, and ringed
    (points,) = layer_payloads(page, "point_layer")
    rings = [p for p in points if p["shape"] == "ring"]
    assert len(rings) == 2
    tip = dict(places["Gamma"]["tip"])
    assert tip["terrain"] == "hills" and tip["coastal"] == "no" and tip["neutral commands"] == "0"
    assert dict(places["Beta"]["tip"])["stands"] == "until 300 BC"
    lines = layer_payloads(page, "line_layer")
    styles = {d["style"]["color"]: d for d in lines}
    assert set(styles) == {LAND_PATH_COLOUR, SEA_PATH_COLOUR}
    assert styles[SEA_PATH_COLOUR]["style"]["dashArray"] and "dashArray" not in styles[LAND_PATH_COLOUR]["style"]
    assert len(styles[LAND_PATH_COLOUR]["tips"]) == 4 and len(styles[SEA_PATH_COLOUR]["tips"]) == 2
    tip = dict(styles[LAND_PATH_COLOUR]["tips"][0])
    assert tip["path"] == "Alpha \u2013 Beta" and tip["by"] == "land" and tip["length"].endswith(" km")
    assert tip["crosses"].startswith("farmlands")
    # The layer control lists the node layers, so its script comes after theirs (else the page stops there).
    assert page.index("var point_layer_") < page.index("L.control.layers(")
    # The designer's note reaches the page as data, never as markup.
    assert dict(places["Beta"]["tip"])["note"] == "burnt <b>down</b>" and "<b>down</b>" not in page


def test_owners_colour_places_and_year_drops_places(node_map, tmp_path):
    page = _page(node_map, tmp_path, owners={"Portus": "#aa0000", "Gamma": "#00aa00"},
                 owner_labels={"#aa0000": "Carthage"}, year=-250)
    places = _places(page)
    assert '"Carthage"' in page and '"owner #00aa00"' in page  # the legend: a side's name, else its colour
    assert "Beta" not in places  # gone by 250 BC, and its paths with it
    assert places["Portus"]["colour"] == "#aa0000" and places["Gamma"]["colour"] == "#00aa00"
    assert places["Alpha"]["colour"] == NEUTRAL_FILL
    land = next(d for d in layer_payloads(page, "line_layer") if d["style"]["color"] == LAND_PATH_COLOUR)
    assert [dict(t)["path"] for t in land["tips"]] == ["Alpha \u2013 Portus", "Gamma \u2013 Navalia"]


def test_layers_join_any_folium_map(node_map):
    con = connect(node_map, read_only=True)
    try:
        m = OfflineMap(location=[41.9, 12.5], zoom_start=8)
        sections = add_node_layers(m, con, show_labels=False)
        assert [s.title for s in sections] == ["Places", "Paths"]
        assert len(read_node_map(con, year=-250).nodes) == 5
    finally:
        con.close()
    page = m.get_root().render()
    assert all(p.get("label") is None for p in layer_payloads(page, "point_layer")[0])


def test_a_map_without_nodes_is_refused(tmp_path):
    path = tmp_path / "bare.duckdb"
    make_node_map(path)
    with pytest.raises(InputError, match=r"has no node tables: write them with `bellica map nodes"):
        render_node_map(path, tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()
