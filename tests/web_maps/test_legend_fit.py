"""The legend keeps clear of the panel above it (web_maps/layers.py Legend): on a map 850 px high a
Mare Nostrum panel (six nations' rows) at the top left and a long legend at the bottom left used to
overlap; the legend now takes the height left below the panel and scrolls."""

from __future__ import annotations

import pytest

from bellica.web_maps.assets import OfflineMap, write_html
from bellica.web_maps.layers import Legend, LegendItem, LegendSection, StatusPanel

pytestmark = pytest.mark.browser


def _page(tmp_path, rows: int, items: int):
    m = OfflineMap(location=[38, 15], zoom_start=5)
    StatusPanel("Mare Nostrum, turn 3", [(f"Nation {i}", f"{i} provinces, {i * 3} talents") for i in range(rows)]).add_to(m)
    Legend([LegendSection("Provinces", [LegendItem(f"item {i}", "#336699") for i in range(items)])]).add_to(m)
    return write_html(m.get_root().render(), tmp_path / f"legend-{rows}-{items}.html")


def _boxes(page):
    return page.evaluate("""() => {
        const r = (sel) => { const b = document.querySelector(sel).getBoundingClientRect();
                             return {top: b.top, bottom: b.bottom}; };
        const lg = document.querySelector('.bellica-legend');
        return {panel: r('.bellica-panel'), legend: r('.bellica-legend'),
                scrolls: lg.scrollHeight > lg.clientHeight};
    }""")


@pytest.mark.parametrize("height", [850, 600])
def test_a_long_legend_stays_below_a_tall_panel_and_scrolls(tmp_path, height):
    from tests.web_maps.browser import offline_page

    with offline_page(_page(tmp_path, rows=14, items=40), width=1200, height=height) as run:
        run.page.wait_for_selector(".bellica-legend")
        run.page.wait_for_timeout(100)
        got = _boxes(run.page)
        assert got["legend"]["top"] >= got["panel"]["bottom"], got
        assert got["scrolls"], got  # what does not fit is reached by scrolling, not cut off
        run.page.set_viewport_size({"width": 1200, "height": height + 200})  # a taller window: room again
        run.page.wait_for_timeout(100)
        taller = _boxes(run.page)
        assert taller["legend"]["top"] >= taller["panel"]["bottom"], taller
        assert run.errors == []


def test_a_short_legend_is_not_squeezed(tmp_path):
    from tests.web_maps.browser import offline_page

    with offline_page(_page(tmp_path, rows=3, items=4), width=1200, height=850) as run:
        run.page.wait_for_selector(".bellica-legend")
        run.page.wait_for_timeout(100)
        assert not _boxes(run.page)["scrolls"]
