"""Scenario layers of a campaign: structures by controller, capitals, roads, rivers, sea zones, armies, faction views."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bellica.geo.errors import InputError
from bellica.geo.hexgrid import cell_center
from bellica.geo.spatialdb import connect
from tests.web_maps.browser import offline_page
from tests.web_maps.synthetic import FACTIONS, make_campaign_db
from bellica.web_maps.assets import remote_urls
from bellica.web_maps.scenario_layers import faction_view, load_scenario
from bellica.web_maps.terrain_map import load_hexes, render_terrain_map

FIND_MAP = "window[document.querySelector('.folium-map').id]"
COLOURS = {name: colour for name, colour, _, _ in FACTIONS}


def _payloads(page: str, kind: str) -> list:
    """The data arrays our layers of one kind (point_layer, line_layer) pass to their builder."""
    out = []
    for name in re.findall(rf"var ({kind}_\w+) = \(function", page):
        match = re.search(rf"var {name} = \(function.*?\n        \}}\)\((.*?)\);\n", page, re.S)
        out.append(json.loads(match.group(1)))
    return out


@pytest.fixture
def campaign(tmp_path):
    db = tmp_path / "latium.duckdb"
    return db, make_campaign_db(db)


def test_scenario_loads_engine_state_over_the_start(campaign):
    db, info = campaign
    con = connect(db, read_only=True)
    try:
        scenario = load_scenario(con, load_hexes(con))
    finally:
        con.close()
    s = {x.name: x for x in scenario.structures}
    assert s["Tibur"].controller == "Etrusci"  # from `control`, not the start's NULL
    assert s["Ostia"].controller == "Roma"  # no control row: the start's controller
    assert scenario.besieged_by == {"Lavinium": "Etrusci"}
    assert s["Roma"].capital and s["Caere"].capital and not s["Ostia"].capital
    assert [(a.id, a.strength) for a in scenario.armies] == [(1, 1357), (2, 1213), (5, 2468)]  # 6 is eliminated
    assert scenario.roads[0].cells == tuple(info["road"])
    assert scenario.rivers[0].cells == tuple(sorted(info["river"]))
    assert scenario.sea_zones[0].cells == tuple(info["zone"])
    assert scenario.title == "Latium 340 BC"


def test_umpire_page_draws_every_scenario_layer(campaign, tmp_path):
    db, info = campaign
    page = render_terrain_map(db, tmp_path / "umpire.html").read_text(encoding="utf-8")
    assert remote_urls(page) == []
    for layer in ("Sea zones", "Sea zone names", "Rivers (scenario)", "River hexes (scenario)", "Roads",
                  "Towns and cities", "Armies", "Map rivers"):
        assert f'"{layer}" :' in page, layer
    points = [p for layer in _payloads(page, "point_layer") for p in layer]
    towns = {p["label"]: p for p in points if p["shape"] in ("circle", "star")}
    assert set(towns) == {"Roma", "Ostia", "Caere", "Tibur", "Lavinium"}
    assert towns["Roma"]["shape"] == "star" and towns["Caere"]["shape"] == "star"
    assert towns["Ostia"]["shape"] == "circle" and towns["Ostia"]["r"] < towns["Roma"]["r"]
    assert towns["Tibur"]["colour"] == COLOURS["Etrusci"] and towns["Ostia"]["colour"] == COLOURS["Roma"]
    assert ["modern", "Ostia Antica"] in towns["Ostia"]["tip"]  # modern name in the tooltip, Latin as the label
    assert ["besieged by", "Etrusci"] in towns["Lavinium"]["tip"]
    armies = {p["text"]: p for p in points if p["shape"] == "army"}
    assert set(armies) == {"1", "2", "5"}
    assert armies["5"]["colour"] == COLOURS["Etrusci"] and ["strength", "2468 FP"] in armies["5"]["tip"]
    assert armies["1"]["dx"] != armies["2"]["dx"]  # two armies in one hex stand side by side
    assert "Mare Tyrrhenum" in {p.get("label") for p in points}

    # The road runs through its hex centres in order.
    road = next(d for d in _payloads(page, "line_layer") if d["tips"] and d["tips"][0][0] == ["road", "Via Tiburtina"])
    xy = np.cumsum(np.array(road["v"][0]).reshape(-1, 2), axis=0) / road["q"]
    expected = np.array([cell_center(c)[::-1] for c in info["road"]])
    assert np.abs(xy - expected).max() < 1e-4


def test_faction_view_hides_other_factions_strength(campaign, tmp_path):
    db, _ = campaign
    page = render_terrain_map(db, tmp_path / "roma.html", faction="Roma").read_text(encoding="utf-8")
    assert "1357 FP" in page and "1213 FP" in page  # Roma's own armies
    assert "2468 FP" not in page  # an Etruscan army's strength never reaches Roma's page
    assert "view of Roma" in page and "Roma (you)" in page
    points = [p for layer in _payloads(page, "point_layer") for p in layer if p["shape"] == "army"]
    assert ["strength", "hidden"] in next(p for p in points if p["text"] == "5")["tip"]
    assert "2468" not in json.dumps(points)


def test_unknown_faction_lists_the_factions(campaign, tmp_path):
    db, _ = campaign
    with pytest.raises(InputError) as info:
        render_terrain_map(db, tmp_path / "x.html", faction="Samnites")
    message = str(info.value)
    assert "Samnites" in message and "Carthago, Etrusci, Roma" in message and "\n" not in message
    assert not (tmp_path / "x.html").exists()


def test_faction_view_is_a_pure_redaction(campaign):
    db, _ = campaign
    con = connect(db, read_only=True)
    try:
        umpire = load_scenario(con, load_hexes(con))
    finally:
        con.close()
    view = faction_view(umpire, "Etrusci")
    assert [a.strength for a in view.armies] == [None, None, 2468]
    assert [a.strength for a in umpire.armies] == [1357, 1213, 2468]  # the umpire's scenario is untouched
    assert view.structures == umpire.structures
    # Typed in another case the faction is the same one, through the one faction resolver.
    assert faction_view(umpire, "etrusci") == view


def test_before_the_start_placements_are_the_armies_and_bad_colours_are_grey(tmp_path):
    db = tmp_path / "new.duckdb"
    make_campaign_db(db, started=False)
    con = connect(db)
    con.execute("UPDATE factions SET colour = 'red; background: url(http://x.example/a.png)' WHERE name = 'Carthago'")
    con.close()
    page = render_terrain_map(db, tmp_path / "new.html").read_text(encoding="utf-8")
    assert remote_urls(page) == [] and "x.example" not in page
    points = [p for layer in _payloads(page, "point_layer") for p in layer if p["shape"] == "army"]
    assert sorted(p["text"] for p in points) == ["1", "2", "5"]
    assert all(["status", "placed (campaign not started)"] in p["tip"] for p in points)
    assert all(["strength", "1600 FP"] in p["tip"] for p in points)


@pytest.mark.browser
def test_campaign_page_in_chromium(campaign, tmp_path):
    db, _ = campaign
    html = render_terrain_map(db, tmp_path / "umpire.html")
    with offline_page(html) as run:
        page = run.page
        page.wait_for_selector(".leaflet-overlay-pane canvas", timeout=15000)
        labels = page.locator(".bellica-label:not(.bellica-siege)").all_text_contents()
        assert sorted(labels) == ["Caere", "Lavinium", "Ostia", "Roma", "Tibur"]
        visible = "Array.from(document.querySelectorAll('.bellica-label:not(.bellica-siege)')).filter(e => e.style.visibility !== 'hidden').map(e => e.textContent).sort()"
        assert page.evaluate(visible) == ["Caere", "Lavinium", "Ostia", "Roma", "Tibur"]  # room for all
        # Zoomed far out, overlapping labels give way to capitals; zooming back restores them.
        page.evaluate(f"void {FIND_MAP}.setZoom({FIND_MAP}.getZoom() - 3, {{animate: false}})")
        page.wait_for_function(f"({visible}).length < 5", timeout=5000)
        assert {"Roma", "Caere"} <= set(page.evaluate(visible))
        page.evaluate(f"void {FIND_MAP}.setZoom({FIND_MAP}.getZoom() + 3, {{animate: false}})")
        page.wait_for_function(f"({visible}).length === 5", timeout=5000)
        assert page.locator(".bellica-zone-label").inner_text() == "Mare Tyrrhenum"
        assert sorted(page.locator(".bellica-army .id").all_inner_texts()) == ["1", "2", "5"]
        assert page.locator(".bellica-siege").inner_text() == "R 3/4"  # Lavinium's siege and its Resilience
        assert page.locator(".bellica-star").count() == 2
        page.locator(".bellica-army", has=page.locator(".id", has_text="5")).hover()
        tip = page.wait_for_selector(".leaflet-tooltip.bellica-tip", timeout=5000).inner_text()
        assert "Etrusci" in tip and "2468 FP" in tip
        # Turning the armies layer off removes the counters.
        page.locator(".leaflet-control-layers label", has_text="Armies").locator("input").click()
        assert page.locator(".bellica-army").count() == 0
    assert run.errors == [] and run.blocked == []
