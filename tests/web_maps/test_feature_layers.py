"""The player-view renderer (web_maps/feature_layers.py): any ruleset's PlayerView drawn as its
styles say, over a map file's terrain, with no game known to web_maps.

The views here are written by hand (a tiny "Latium" of two provinces, a sea area, counters, a
battle and paths) over the synthetic map of tests/web_maps/synthetic.py, so what is checked is
the renderer's contract, not any ruleset's view."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import shapely

from bellica.schema.view import Feature, FeatureLayer, PlayerView, Style
from bellica.web_maps.assets import remote_urls
from bellica.web_maps.terrain_map import render_terrain_map
from tests.web_maps.synthetic import CENTRE, layer_payloads, make_map_db

LAT, LON = CENTRE
WEST = shapely.box(LON - 0.2, LAT - 0.1, LON, LAT + 0.1)
EAST = shapely.box(LON, LAT - 0.1, LON + 0.2, LAT + 0.1)
SEA = shapely.box(LON - 0.4, LAT - 0.1, LON - 0.2, LAT + 0.1)
HERE = shapely.Point(LON + 0.1, LAT)

STYLES = {
    "owner:Roma": Style("#aa0000", "fill", 0, "Roma (you)"), "owner:": Style("#bdbdbd", "fill", 0, "nobody"),
    "sea": Style("#0b3a66", "zone", 0, "sea area"), "attack": Style("#b71c1c", "outline", 0, "Roma may attack"),
    "army:Roma": Style("#aa0000", "army", 11, "army"), "army:Etrusci": Style("#0000aa", "army", 11, "army"),
    "fleet:Etrusci": Style("#0000aa", "navy", 9, "fleet"), "seat:Roma": Style("#aa0000", "star", 11, "a seat"),
    "walled": Style("#ffffff", "walled", 7, "walled place"), "siege": Style("#6a1b9a", "dashed-ring", 14, "siege"),
    "battle": Style("#b00020", "battle", 18, "battle due"), "road": Style("#8b5a2b", "line", 3, "road"),
    "ferry": Style("#1f5fa8", "dashed", 2, "ferry"),
}


def _view(viewer="Roma", **more) -> PlayerView:
    layers = [
        FeatureLayer("seas", "MultiPolygon", (Feature(shapely.MultiPolygon([SEA]), {"sea": "Mare"}, label="Mare Nostrum",
                                                      style="sea", tooltip=(("sea", "Mare Nostrum"),)),), title="Seas"),
        FeatureLayer("provinces", "MultiPolygon", (
            Feature(shapely.MultiPolygon([WEST]), {"province": "Latium"}, label="Latium", style="owner:Roma",
                    tooltip=(("province", "Latium"), ("revenue", 10), ("resource", None))),
            Feature(shapely.MultiPolygon([EAST]), {"province": "Sabini"}, label="Sabini", style="owner:",
                    tooltip=(("province", "Sabini"),))), title="Provinces"),
        FeatureLayer("attackable", "MultiPolygon", (Feature(shapely.MultiPolygon([EAST]), {"province": "Sabini"},
                                                            style="attack"),), title="Roma may attack", show=False),
        FeatureLayer("seats", "Point", (Feature(shapely.Point(LON - 0.1, LAT), {"city": "Roma"}, label="Roma",
                                                style="seat:Roma"),), title="Forces"),
        FeatureLayer("armies", "Point", (
            Feature(HERE, {"army": 1}, text="1", sub="800", style="army:Roma", tooltip=(("army", 1), ("strength", 800))),
            Feature(HERE, {"army": 2}, text="?", style="army:Etrusci", tooltip=(("army", 2),)),
            Feature(HERE, {"army": 3}, style=""),  # data only: an export's row, not drawn
        ), public=False, title="Forces"),
        FeatureLayer("fleets", "Point", (Feature(HERE, {"fleet": 7}, text="7", style="fleet:Etrusci"),), title="Forces"),
        FeatureLayer("places", "Point", (Feature(shapely.Point(LON + 0.15, LAT + 0.05), {"place": "Veii"}, label="Veii (2)",
                                                 style="walled", tooltip=(("place", "Veii"),)),), title="Places"),
        FeatureLayer("sieges", "Point", (Feature(HERE, {"node": "x"}, style="siege", tooltip=(("siege of", "x"),)),),
                     title="Forces"),
        FeatureLayer("battles", "Point", (Feature(HERE, {"node": "x"}, label="rear defence", style="battle",
                                                  tooltip=(("battle at", "x"),)),), title="Forces"),
        FeatureLayer("paths", "LineString", (
            Feature(shapely.LineString([(LON - 0.1, LAT), (LON + 0.1, LAT)]), {"a": "Roma"}, style="road",
                    tooltip=(("path", "Roma - Veii"),)),
            Feature(shapely.LineString([(LON - 0.3, LAT), (LON - 0.1, LAT)]), {"a": "Ostia"}, style="ferry")), title="Paths"),
        FeatureLayer("empty", "Point", (), title="Nothing here"),
    ]
    return PlayerView(ruleset="test", viewer=viewer, round=1, phase="orders", status={"round": 1}, layers=layers,
                      styles=STYLES, title="Test Latium", panel=(("Turn", "1 of 9"),), **more)


@pytest.fixture(scope="module")
def map_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("views") / "latium.duckdb"
    make_map_db(db)
    return db


@pytest.fixture(scope="module")
def page(map_db, tmp_path_factory):
    view = _view(hidden=("Etrusci' strengths",))
    out = render_terrain_map(map_db, tmp_path_factory.mktemp("out") / "roma.html", view=view)
    return out.read_text(encoding="utf-8")


def _points(page: str) -> list[dict]:
    return [p for layer in layer_payloads(page, "point_layer") for p in layer]


def test_every_layer_with_features_is_one_map_layer_by_title(page):
    assert remote_urls(page) == []
    for name in ("Terrain", "Seas", "Seas: names", "Provinces", "Provinces: names", "Roma may attack",
                 "Forces", "Places", "Paths: road", "Paths: ferry"):
        assert f'"{name}" :' in page, name
    assert '"Nothing here" :' not in page  # an empty layer is left out
    assert "Test Latium \u2014 61 hexes, res 6 \u2014 view of Roma" in page


def test_areas_are_filled_outlined_or_zones_with_their_tooltips(page):
    areas = layer_payloads(page, "province_layer")
    seas, provinces, attack = areas
    assert provinces["c"] == ["#aa0000", "#bdbdbd"] and provinces["style"]["fillOpacity"] == 0.45
    assert provinces["tips"][0] == [["province", "Latium"], ["revenue", 10]]  # a None row is left out
    assert seas["style"]["dashArray"] == "6 4" and seas["stroke"] == ["#0b3a66"] and 0 < seas["style"]["fillOpacity"] < 0.2
    assert attack["style"]["fillOpacity"] == 0.0 and attack["tips"] == [] and attack["style"]["interactive"] is False
    labels = {p["label"]: p["lc"] for p in _points(page) if p["shape"] == "none"}
    area = "bellica-label bellica-area-label"  # an owned area's name, in spaced capitals
    assert labels == {"Latium": area, "Sabini": area, "Mare Nostrum": "bellica-zone-label"}


def test_a_hidden_layer_starts_hidden(map_db, tmp_path):
    from bellica.web_maps.assets import OfflineMap
    from bellica.web_maps.feature_layers import add_view_layers

    m = OfflineMap(location=[LAT, LON], zoom_start=8)
    add_view_layers(m, _view(), precision=5)
    shown = {child.layer_name: child.show for child in m._children.values() if hasattr(child, "layer_name")}
    assert shown["Roma may attack"] is False and shown["Provinces"] is True


def test_counters_at_one_point_stand_side_by_side_and_data_only_features_are_not_drawn(page):
    here = [p for p in _points(page) if p["ll"] == [round(LAT, 5), round(LON + 0.1, 5)]]
    counters = [p for p in here if p["shape"] in ("army", "navy")]
    assert [(p["text"], p["colour"]) for p in counters] == [("1", "#aa0000"), ("?", "#0000aa"), ("7", "#0000aa")]
    assert counters[0]["sub"] == "800" and "sub" not in counters[1]
    assert len({p["dx"] for p in counters}) == 3 and counters[0]["dx"] == 0
    assert dict(map(tuple, counters[0]["tip"])) == {"army": 1, "strength": 800}  # numbers stay numbers
    ring = next(p for p in here if p["shape"] == "ring" and p.get("dash"))
    assert ring["colour"] == "#6a1b9a" and ring["r"] == 14
    battle_ring = next(p for p in here if p["shape"] == "ring" and not p.get("dash"))
    swords = next(p for p in here if p["shape"] == "battle")
    assert battle_ring["tip"] == swords["tip"] == [["battle at", "x"]] and swords["label"] == "rear defence"
    assert sum(1 for p in _points(page) if p.get("text") == "") == 0


def test_points_take_the_shape_and_label_of_their_style(page):
    points = _points(page)
    star = next(p for p in points if p["shape"] == "star")
    assert star["label"] == "Roma" and star["lc"] == "bellica-label capital" and star["r"] == 11
    veii = [p for p in points if p["ll"] == [round(LAT + 0.05, 5), round(LON + 0.15, 5)]]
    assert [p["shape"] for p in veii] == ["ring", "circle"] and veii[1]["label"] == "Veii (2)" and veii[1]["r"] == 7


def test_lines_are_a_layer_per_style(page):
    lines = {d["style"]["color"]: d for d in layer_payloads(page, "line_layer") if d["style"]["color"] != "#1565c0"}
    assert lines["#8b5a2b"]["tips"] == [[["path", "Roma - Veii"]]] and "dashArray" not in lines["#8b5a2b"]["style"]
    assert lines["#1f5fa8"]["style"]["dashArray"] == "6 6" and lines["#1f5fa8"]["style"]["weight"] == 2


def test_the_legend_lists_each_layers_styles_once_by_their_words(page):
    import json
    import re

    legend = json.loads(re.search(r"'bellica-legend'\);.*?\}\)\((\[.*?\])\);", page, re.S).group(1))
    sections = {s["title"]: [(i["label"], i["colour"], i["shape"], i["count"]) for i in s["items"]] for s in legend}
    assert sections["Provinces"] == [("Roma (you)", "#aa0000", "hatch", 1), ("nobody", "#bdbdbd", "hatch", 1)]
    assert sections["Forces"] == [("army", "#555", "swatch", 2), ("fleet", "#0000aa", "hull", 1), ("a seat", "#aa0000", "star", 1),
                                  ("siege", "#6a1b9a", "ring", 1), ("battle due", "#b00020", "battle", 1)]
    assert sections["Roma may attack"] == [("Roma may attack", "#b71c1c", "dashed", 1)]


def test_the_panel_is_the_views_and_says_what_it_hides(page, map_db, tmp_path):
    assert '"head":"view of Roma"' in page and '["Turn","1 of 9"]' in page and '["Hidden","Etrusci\' strengths"]' in page
    umpire = render_terrain_map(map_db, tmp_path / "u.html", view=_view(viewer=None)).read_text(encoding="utf-8")
    assert "umpire's view" in umpire and '"Hidden"' not in umpire


def test_web_maps_imports_no_engine_and_names_no_ruleset():
    """The renderer knows no game: no module of web_maps imports the engine, and none but the Vae
    Victis II layers (kept this step) names a ruleset's tables."""
    folder = Path(__file__).resolve().parents[2] / "web_maps"
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("bellica.engine", "engine")), (path.name, node.module)
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith(("bellica.engine", "engine")) for a in node.names), path.name
    text = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.py"))
    for table in ("ror_", "mn_", "tr_", "mg_"):
        assert f" {table}" not in text and f"'{table}" not in text and f'"{table}' not in text, table


# --- at a glance (issue 21 item 6) ---------------------------------------------------------------


def _glance_view() -> PlayerView:
    """An owned province, an unowned one, a sea zone, and a town holding an army and two resources."""
    styles = {**STYLES, "port": Style("#0d47a1", "symbol", 9, "resource: port"),
              "quarry": Style("#616161", "symbol", 0, "resource: quarry")}
    town = shapely.Point(LON + 0.1, LAT + 0.05)
    layers = [
        FeatureLayer("provinces", "MultiPolygon", (
            Feature(shapely.MultiPolygon([WEST]), {"p": "Latium"}, label="Latium", style="owner:Roma"),
            Feature(shapely.MultiPolygon([EAST]), {"p": "Sabini"}, label="Sabini", style="owner:")), title="Provinces"),
        FeatureLayer("seas", "MultiPolygon", (Feature(shapely.MultiPolygon([SEA]), {"s": "M"}, style="sea"),), title="Seas"),
        FeatureLayer("things", "Point", (
            Feature(town, {"a": 1}, text="1", style="army:Roma"),
            Feature(town, {"r": "port"}, text="\u2693", style="port"),
            Feature(shapely.Point(LON + 0.12, LAT), {"r": "port"}, text="\u2693", style="port"),
            Feature(town, {"r": "quarry"}, text="\u2692", style="quarry")), title="Things"),
    ]
    return PlayerView(ruleset="test", viewer="Roma", round=1, phase="x", status={}, layers=layers, styles=styles)


@pytest.fixture(scope="module")
def glance(map_db, tmp_path_factory):
    out = render_terrain_map(map_db, tmp_path_factory.mktemp("glance") / "g.html", view=_glance_view())
    return out.read_text(encoding="utf-8")


def test_owners_are_hatched_over_the_terrain_and_zones_are_not(glance):
    provinces, seas = layer_payloads(glance, "province_layer")
    assert provinces["owned"] is True and provinces["c"] == ["#aa0000", "#bdbdbd"]
    assert "owned" not in seas  # a sea zone stays a faint fill in a dashed edge
    assert "L.BellicaArea = L.Polygon.extend" in glance and "D.owned ? new L.BellicaArea" in glance


def test_resources_are_symbols_in_the_counters_row_and_in_the_legend(glance):
    import json
    import re

    row = [p for p in _points(glance) if p["ll"] == [round(LAT + 0.05, 5), round(LON + 0.1, 5)]]
    assert [(p["shape"], p["text"]) for p in row] == [("army", "1"), ("symbol", "\u2693"), ("symbol", "\u2692")]
    # Side by side, left to right, 6 px apart: the army (22 px wide, centred), then two badges (18 px each).
    assert [p["dx"] for p in row] == [0, 26, 50] and all(p["dy"] == 6 for p in row)
    assert row[1]["r"] == 9 and row[2]["r"] == 9  # size 0: the renderer's default for a symbol
    legend = json.loads(re.search(r"'bellica-legend'\);.*?\}\)\((\[.*?\])\);", glance, re.S).group(1))
    things = {i["label"]: (i["shape"], i["text"], i["count"]) for s in legend if s["title"] == "Things" for i in s["items"]}
    assert things["resource: port"] == ("symbol", "\u2693", 2) and things["resource: quarry"] == ("symbol", "\u2692", 1)
    provinces = next(s for s in legend if s["title"] == "Provinces")
    assert {i["shape"] for i in provinces["items"]} == {"hatch"}


def test_every_label_and_mark_is_handed_to_the_placer(glance):
    """Names are placed by web_maps/cartography.py: centred at first, registered with the marks
    (counters block every name, rings none) so the placer can keep names off them."""
    from bellica.web_maps.cartography import HATCH, LABEL_GAP_PX, OWNER_BAND_PX

    assert f'"gap": {LABEL_GAP_PX}' in glance and f'"band": {OWNER_BAND_PX}' in glance
    assert f'"spacing": {HATCH["spacing"]}' in glance
    assert "bellicaRegisterLabels(" in glance and "direction: 'center'" in glance
    assert "prio: counter ? Infinity : (p.prio || 0)" in glance and "if (p.shape !== 'ring') marks.push" in glance


def test_the_legend_folds_on_its_own_button_and_starts_folded_on_a_phone(glance):
    from bellica.web_maps.layers import NARROW_PX

    assert "'bellica-legend-head'" in glance and "head.setAttribute('aria-controls', body.id)" in glance
    assert f"open(map.getContainer().clientWidth >= {NARROW_PX})" in glance  # folded below a phone's width
    assert "if (box.clientWidth < narrow)" in glance and f", {NARROW_PX});" in glance  # the layer list too
    assert ".bellica-legend-closed .bellica-legend-body { display: none; }" in glance


def test_a_label_that_looks_like_a_template_tag_is_written_as_it_is(map_db, tmp_path):
    """Each layer's script goes into the page as rendered (web_maps.assets.RawMacroElement): branca
    would compile it as a Jinja template again, reading a label's ``{{ ... }}`` as a tag (and paying
    for lexing every layer's packed features at every page)."""
    odd = "{{ 7 * 6 }} {% if x %}"
    import dataclasses

    view = dataclasses.replace(_view(), layers=[FeatureLayer(
        "places", "Point", (Feature(HERE, {"place": odd}, label=odd, style="walled", tooltip=(("place", odd),)),),
        title="Places")])
    page = render_terrain_map(map_db, tmp_path / "odd.html", view=view).read_text(encoding="utf-8")
    labels = [p.get("label") for p in _points(page)]
    assert odd in labels and "42" not in labels
