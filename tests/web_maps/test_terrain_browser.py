"""The terrain map in headless chromium: renders offline, draws hexes on canvas, tooltips, legend, layers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.web_maps.browser import colour_census, offline_page
from tests.web_maps.synthetic import hex_layer_data, make_map_db
from bellica.web_maps.terrain_map import TERRAIN_COLOURS, render_terrain_map

pytestmark = pytest.mark.browser

FIND_MAP = "window[document.querySelector('.folium-map').id]"
# Names folium gave our layers, found through the globals their scripts define.
HEX_DATA = "Object.keys(window).filter(k => /^hex_layer_\\w+_data$/.test(k)).map(k => window[k])[0]"
HEX_LAYER = "Object.keys(window).filter(k => /^hex_layer_[0-9a-f]+$/.test(k)).map(k => window[k])[0]"


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

        # Every hex is in the hex layer's geometry, drawn batched by one layer on the map's canvas
        # renderer: no Leaflet object per hex.
        n_hexes = page.evaluate(f"{HEX_DATA}.g.n")
        assert n_hexes == len(rows) == 61
        assert page.evaluate(
            f"""(() => {{ const m = {FIND_MAP}; let polys = 0, hexes = 0, canvas = 0;
                m.eachLayer(l => {{ if (l instanceof L.Polygon) polys++;
                                    if (l instanceof L.BellicaHexes) {{ hexes++; if (m.getRenderer(l) instanceof L.Canvas) canvas++; }} }});
                return [polys, hexes, canvas]; }})()"""
        ) == [0, 1, 1]
        # The browser's decoding of the packed rings gives the page's integers exactly.
        data = hex_layer_data(html.read_text(encoding="utf-8"))
        assert page.evaluate(f"(() => {{ const G = {HEX_DATA}.g; return Array.from(G.off); }})()")[-1] == \
            sum(len(v) for v in data["v"]) // 2
        decoded = page.evaluate(f"(() => {{ const D = {HEX_DATA}; const out = [];"
                                "for (let i = 0; i < D.g.n; i++) out.push(D.ring(i).map(p => [p[1], p[0]])); return out; })()")
        q = data["q"]
        for v, ring in zip(data["v"], decoded):
            xy, x, y = [], 0, 0
            for j in range(0, len(v), 2):
                x, y = (x + v[j], y + v[j + 1]) if j else (v[0], v[1])
                xy.append([x / q, y / q])
            assert ring == xy

        # Legend lists the terrains present; Leaflet's own layer control lists our layers.
        legend = page.inner_text(".bellica-legend")
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
        grey_outline = f"!{HEX_LAYER}.isThin()"
        assert page.evaluate(grey_outline) is True
        page.evaluate(f"void {FIND_MAP}.setZoom(5, {{animate: false}})")
        assert page.evaluate(grey_outline) is False
        # A pixel or two across, the hexes are scan-converted into an image: the pixel at a hex's
        # centre has that hex's colour, opaque.
        assert page.evaluate(f"{HEX_LAYER}.isRaster()") is True
        page.wait_for_timeout(100)
        pixel = page.evaluate(
            f"""(() => {{ const m = {FIND_MAP}, l = {HEX_LAYER}, r = l._renderer, k = r._container;
                const p = m.latLngToLayerPoint([{land['lat']}, {land['lng']}]), s = k.width / r._bounds.getSize().x;
                return Array.from(r._ctx.getImageData(Math.floor((p.x - r._bounds.min.x) * s),
                                                      Math.floor((p.y - r._bounds.min.y) * s), 1, 1).data); }})()""")
        want = TERRAIN_COLOURS["hills"]
        assert pixel == [int(want[1:3], 16), int(want[3:5], 16), int(want[5:7], 16), 255]
        page.evaluate(f"void {FIND_MAP}.setZoom(10, {{animate: false}})")
        assert page.evaluate(grey_outline) is True and page.evaluate(f"{HEX_LAYER}.isRaster()") is False

        png = page.screenshot()
        (tmp_path / "latium.png").write_bytes(png)
        if os.environ.get("BELLICA_KEEP_SCREENSHOT"):  # to look at the map by eye
            shutil.copy(tmp_path / "latium.png", os.environ["BELLICA_KEEP_SCREENSHOT"])

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

