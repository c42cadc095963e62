"""Maps a player reads at a glance (issue 21, item 6) in headless Debian chromium: the legend folded
on a phone, names clear of the counters at every zoom, owners hatched so the terrain shows through.

Two pages: a Vae Victis II campaign (tests/web_maps/synthetic.py: Roma holds two armies, Caere one)
and a player view drawn by web_maps/feature_layers.py (a province owned by Roma over the terrain,
a walled town with a stack of counters and a resource symbol on its own point, as node and
province maps put them).  Screenshots go to build/screenshots/maps-at-a-glance-*.png.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shapely

from bellica.schema.view import Feature, FeatureLayer, PlayerView, Style
from bellica.web_maps.terrain_map import render_terrain_map
from tests.web_maps.browser import decode_png, offline_page
from tests.web_maps.synthetic import CENTRE, make_campaign_db, make_map_db

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
FIND_MAP = "window[document.querySelector('.folium-map').id]"
LAT, LON = CENTRE
WEST = shapely.box(LON - 0.12, LAT - 0.1, LON + 0.02, LAT + 0.1)
TOWN = shapely.Point(LON + 0.08, LAT + 0.02)

# Every shown name and every counter or symbol on the map, as [text, left, top, right, bottom].
BOXES = """(() => {
    const box = e => { const r = e.getBoundingClientRect(); return [e.textContent, r.left, r.top, r.right, r.bottom]; };
    const names = Array.from(document.querySelectorAll('.leaflet-tooltip.bellica-label'))
        .filter(e => e.style.visibility !== 'hidden').map(box);
    const counters = Array.from(document.querySelectorAll(
        '.leaflet-marker-pane .bellica-army, .leaflet-marker-pane .bellica-symbol')).map(box);
    return [names, counters];
})()"""


def _overlaps(a, b) -> bool:
    return a[1] < b[3] and a[3] > b[1] and a[2] < b[4] and a[4] > b[2]


def _view() -> PlayerView:
    styles = {"owner:Roma": Style("#aa0000", "fill", 0, "Roma"), "walled": Style("#ffffff", "walled", 7, "walled town"),
              "army:Roma": Style("#aa0000", "army", 11, "army"), "army:Etrusci": Style("#0000aa", "army", 11, "army"),
              "resource:port": Style("#0d47a1", "symbol", 9, "resource: port")}
    layers = [
        FeatureLayer("provinces", "MultiPolygon", (Feature(shapely.MultiPolygon([WEST]), {"province": "Latium"},
                                                           label="Latium", style="owner:Roma"),), title="Provinces"),
        FeatureLayer("towns", "Point", (Feature(TOWN, {"town": "Veii"}, label="Veii (2)", style="walled"),),
                     title="Places"),
        FeatureLayer("forces", "Point", (
            Feature(TOWN, {"army": 1}, text="Rom x2", sub="12 el.", style="army:Roma"),
            Feature(TOWN, {"army": 2}, text="Etr x1", sub="4 el.", style="army:Etrusci"),
            Feature(TOWN, {"resource": "port"}, text="\u2693", style="resource:port")), title="Forces"),
    ]
    return PlayerView(ruleset="test", viewer="Roma", round=1, phase="orders", status={}, layers=layers,
                      styles=styles, title="Latium at a glance")


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("glance")
    make_campaign_db(folder / "vv.duckdb")
    make_map_db(folder / "map.duckdb")
    return {"campaign": render_terrain_map(folder / "vv.duckdb", folder / "vv.html"),
            "view": render_terrain_map(folder / "map.duckdb", folder / "view.html", view=_view())}


def _zoom(page, by: float) -> None:
    page.evaluate(f"void {FIND_MAP}.setZoom({FIND_MAP}.getZoom() + {by}, {{animate: false}})")
    page.wait_for_timeout(300)  # the names are placed on the frame after the zoom


@pytest.mark.parametrize("which", ["campaign", "view"])
def test_names_stand_clear_of_the_counters_at_every_zoom(pages, which):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with offline_page(pages[which], width=1000, height=750) as run:
        page = run.page
        page.wait_for_selector(".leaflet-marker-pane .bellica-army", timeout=15000)
        page.wait_for_timeout(300)
        town = "Roma" if which == "campaign" else "Veii (2)"
        seen = {}
        for step, by in (("fitted", 0), ("out", -1), ("in", 2)):
            _zoom(page, by)
            names, counters = page.evaluate(BOXES)
            assert counters, step
            clashes = [(n[0], c[0]) for n in names for c in counters if _overlaps(n, c)]
            assert clashes == [], (step, clashes)
            seen[step] = {n[0] for n in names}
            page.screenshot(path=str(SHOTS / f"maps-at-a-glance-{which}-{step}.png"))
        # The town under the counters keeps its name at the fitted (mid) zoom and closer in.
        assert town in seen["fitted"] and town in seen["in"], seen
    assert run.errors == [] and run.blocked == []


def test_on_a_phone_the_legend_starts_folded_and_unfolds(pages):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for which, html in pages.items():
        with offline_page(html, width=390, height=844) as run:
            page = run.page
            page.wait_for_selector(".bellica-toggle", timeout=15000)
            head = page.locator(".bellica-legend-head")
            assert head.get_attribute("aria-expanded") == "false"
            assert not page.locator(".bellica-legend-body").is_visible()
            page.screenshot(path=str(SHOTS / f"maps-at-a-glance-{which}-390x844.png"))
            # Asking for the legend shows it unfolded; its own button folds it to its heading.
            page.locator(".bellica-toggle").click()
            assert page.locator(".bellica-legend-body").is_visible() and head.get_attribute("aria-expanded") == "true"
            page.screenshot(path=str(SHOTS / f"maps-at-a-glance-{which}-390x844-legend.png"))
            head.click()
            assert head.is_visible() and not page.locator(".bellica-legend-body").is_visible()
        assert run.errors == [] and run.blocked == []
    # On a wide screen it is open, and folds on its button.
    with offline_page(pages["view"], width=1000, height=750) as run:
        page = run.page
        head = page.wait_for_selector(".bellica-legend-head", timeout=15000)
        assert head.get_attribute("aria-expanded") == "true" and page.locator(".bellica-legend-body").is_visible()
        head.click()
        assert not page.locator(".bellica-legend-body").is_visible()
    assert run.errors == [] and run.blocked == []


def test_an_owned_province_keeps_its_terrain_colours(pages):
    """With the owner hatched and banded, most of the province's inside is the very pixels of the
    terrain; a translucent fill would have changed every one of them."""
    with offline_page(pages["view"], width=1000, height=750) as run:
        page = run.page
        page.wait_for_selector(".leaflet-overlay-pane canvas", timeout=15000)
        page.locator(".bellica-legend-head").click()  # fold the legend off the map
        page.wait_for_timeout(300)
        x0, y0, x1, y1 = page.evaluate(
            f"(() => {{ const m = {FIND_MAP}; const a = m.latLngToContainerPoint([{LAT + 0.08}, {LON - 0.1}]);"
            f" const b = m.latLngToContainerPoint([{LAT - 0.08}, {LON}]); return [a.x, a.y, b.x, b.y]; }})()")
        box = page.locator(".folium-map").bounding_box()
        clip = {"x": box["x"] + x0 + 10, "y": box["y"] + y0 + 10, "width": x1 - x0 - 20, "height": y1 - y0 - 20}
        owned = decode_png(page.screenshot(clip=clip))[:, :, :3]
        page.locator(".leaflet-control-layers label", has_text="Provinces").first.locator("input").uncheck()
        page.wait_for_timeout(300)
        bare = decode_png(page.screenshot(clip=clip))[:, :, :3]
    assert run.errors == [] and run.blocked == []
    same = float(np.mean(np.all(owned == bare, axis=2)))
    assert 0.5 < same < 0.95, same  # the terrain shows through, and the owner's hatch is there
