"""The terrain map in headless chromium: renders offline, draws hexes on canvas, tooltips, legend, layers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.web_maps.browser import colour_census, offline_page
from tests.web_maps.synthetic import make_map_db
from tabula.web_maps.terrain_map import TERRAIN_COLOURS, render_terrain_map

pytestmark = pytest.mark.browser

FIND_MAP = "window[document.querySelector('.folium-map').id]"
# Names folium gave our layers, found through the globals their scripts define.
HEX_DATA = "Object.keys(window).filter(k => /^hex_layer_\\w+_data$/.test(k)).map(k => window[k])[0]"


def _render(tmp_path: Path) -> tuple[Path, list[dict]]:
    db = tmp_path / "latium.duckdb"
    rows = make_map_db(db)
    return render_terrain_map(db, tmp_path / "latium.html"), rows


def test_terrain_map_renders_offline_in_chromium(tmp_path):
    html, rows = _render(tmp_path)
    with offline_page(html) as run:
        page = run.page
        page.wait_for_function("window.L !== undefined && window.L.version !== undefined", timeout=15000)
        page.wait_for_selector(".leaflet-overlay-pane canvas", timeout=15000)
        assert page.evaluate("L.version") == "1.9.4"

        # Every hex became a polygon of the hex layer, drawn on the canvas renderer.
        n_hexes = page.evaluate(f"{HEX_DATA}.ll.length")
        assert n_hexes == len(rows) == 61
        assert page.evaluate(
            f"""(() => {{ const m = {FIND_MAP}; let n = 0, canvas = 0;
                m.eachLayer(l => {{ if (l instanceof L.Polygon) {{ n++; if (l.options.renderer === undefined && m.getRenderer(l) instanceof L.Canvas) canvas++; }} }});
                return [n >= 61, canvas === n]; }})()"""
        ) == [True, True]

        # Legend lists the terrains present; Leaflet's own layer control lists our layers.
        legend = page.inner_text(".tabula-legend")
        for name in ("farmlands", "mountains", "peaks", "coast", "sea", "ocean", "lake", "river"):
            assert name in legend
        control = page.inner_text(".leaflet-control-layers")
        assert "Terrain" in control and "Rivers" in control and "River hexes" in control

        # Hovering a land hex shows its tooltip with the cell id and its statistics.
        land = next(r for r in rows if r["kind"] == "land" and r["terrain"] == "hills")
        x, y = page.evaluate(
            f"(() => {{ const p = {FIND_MAP}.latLngToContainerPoint([{land['lat']}, {land['lng']}]); return [p.x, p.y]; }})()"
        )
        box = page.locator(".folium-map").bounding_box()
        page.mouse.move(box["x"] + x - 3, box["y"] + y - 3)
        page.mouse.move(box["x"] + x, box["y"] + y)
        tip = page.wait_for_selector(".leaflet-tooltip", timeout=5000)
        text = tip.inner_text()
        assert land["cell"] in text
        assert "hills" in text and "land" in text and "elev mean" in text

        # The layer control really toggles a layer.
        rivers_on = "(() => { const m = " + FIND_MAP + "; let on = false; m.eachLayer(l => { if (l instanceof L.Polyline && !(l instanceof L.Polygon)) on = true; }); return on; })()"
        assert page.evaluate(rivers_on) is True
        page.locator(".leaflet-control-layers label", has_text="Rivers").first.locator("input").click()
        assert page.evaluate(rivers_on) is False

        # Zoomed far out, grey hex outlines would be noise: each hex is then stroked in its own
        # colour and drawn opaque (no seams, no moire); the grey outline comes back on zooming in.
        grey_outline = (f"(() => {{ let s = null; {FIND_MAP}.eachLayer(l => {{ if (l.options.hexIndex === 0) "
                        "s = l.options.color !== l.options.fillColor && l.options.fillOpacity < 1; }); return s; })()")
        assert page.evaluate(grey_outline) is True
        page.evaluate(f"void {FIND_MAP}.setZoom(5, {{animate: false}})")
        assert page.evaluate(grey_outline) is False
        page.evaluate(f"void {FIND_MAP}.setZoom(10, {{animate: false}})")
        assert page.evaluate(grey_outline) is True

        png = page.screenshot()
        (tmp_path / "latium.png").write_bytes(png)
        if os.environ.get("TABULA_KEEP_SCREENSHOT"):  # to look at the map by eye
            shutil.copy(tmp_path / "latium.png", os.environ["TABULA_KEEP_SCREENSHOT"])

    assert run.errors == []
    assert run.blocked == []
    assert all(u.startswith(("file:", "data:")) for u in run.requests), run.requests

    census = colour_census(png)
    total = sum(census.values())
    background = max(census.values())
    assert len(census) > 20, "screenshot has almost no colours: the map did not draw"
    assert background / total < 0.85, "screenshot is mostly one colour: the hexes did not draw"
    # Hex fills are the palette blended at 92 % over the grey background: look for a near match.
    def near(rgb_hex: str, tolerance: int = 24) -> bool:
        r, g, b = (int(rgb_hex[i : i + 2], 16) for i in (1, 3, 5))
        return any(abs(c[0] - r) + abs(c[1] - g) + abs(c[2] - b) < tolerance and n > 50 for c, n in census.items())

    assert near(TERRAIN_COLOURS["forests"]) and near(TERRAIN_COLOURS["desert"])

