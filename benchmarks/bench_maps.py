"""Benchmarks of the offline map pages (issue 10, item 3): HTML size and time to first paint.

Pages: the demo campaign (res 5, umpire's view and a faction's view) and the same
scenario on a res-6 map of its bbox (umpire's view).  Each page is opened in headless
Debian chromium (``/usr/bin/chromium`` through playwright, never a downloaded browser)
with every non-local request aborted; the figures are the median of ``repeats`` loads:
first contentful paint (``performance`` paint entry) and "map drawn", the time of the
first animation frame after the load event (Leaflet has drawn the hex canvas by then).

``run(work_dir, quick=...)`` returns rows {name, value, unit, baseline, ratio, note}
for ``benchmarks/run.py``.  Run alone: ``python -m benchmarks.bench_maps [--quick]``
(quick: res 5 only, where a res-6 campaign is not already in ``work_dir``).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "build" / "first-punic-war.duckdb"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
LOCAL = ("file:", "data:", "blob:", "about:")


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


def _campaign5(work: Path) -> Path:
    """The demo campaign (``make demo``), or one built like it."""
    if DEMO.exists():
        return DEMO
    from benchmarks.bench_engine import build_campaigns

    return build_campaigns(work)[5]


def _campaign6(work: Path) -> Path:
    """The scenario on a res-6 map of its bbox, started as the demo starts it (bench_engine's recipe)."""
    out = work / "bench-fpw6.duckdb"
    if out.exists():
        return out
    from benchmarks.bench_engine import _res6_scenario, _start
    from tabula.etl.build import build_map
    from tabula.etl.campaign import create_campaign
    from tabula.etl.scenario import load_scenario

    scen6 = _res6_scenario(work)
    map6 = work / "bench-fpw-bbox6.duckdb"
    if not map6.exists():
        build_map(map6, bbox=tuple(load_scenario(scen6).bbox), res=6, progress=False, force=True)
    create_campaign(scen6, out, map_path=map6, force=True)
    _start(out)
    return out


def paint_times(html: Path, *, repeats: int = 3) -> tuple[float, float, int]:
    """(first contentful paint ms, map drawn ms, requests blocked), medians over ``repeats`` fresh loads."""
    from playwright.sync_api import sync_playwright

    fcp, drawn, blocked = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            for _ in range(repeats):
                context = browser.new_context(viewport={"width": 1200, "height": 800}, offline=True)
                stopped = []

                def route(r, stopped=stopped):
                    if r.request.url.startswith(LOCAL):
                        r.continue_()
                    else:
                        stopped.append(r.request.url)
                        r.abort()

                context.route("**/*", route)
                page = context.new_page()
                page.add_init_script("window.addEventListener('load', () => requestAnimationFrame(() => "
                                     "{ window.__drawn = performance.now(); }));")
                page.goto(html.resolve().as_uri(), wait_until="load")
                page.wait_for_function("window.__drawn !== undefined", timeout=60000)
                # The paint entry can land after the load frame on a busy machine: wait for it.
                page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0",
                                       timeout=60000)
                fcp.append(page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime"))
                drawn.append(page.evaluate("window.__drawn"))
                blocked.append(len(stopped))
                context.close()
        finally:
            browser.close()
    return statistics.median(fcp), statistics.median(drawn), max(blocked)


def bench_pages(work: Path, *, quick: bool = False) -> list[dict]:
    from tabula.web_maps.terrain_map import render_terrain_map

    pages = [("campaign res 5, umpire", _campaign5(work), None), ("campaign res 5, Roma", _campaign5(work), "Roma")]
    res6 = work / "bench-fpw6.duckdb"
    if not quick or res6.exists():
        pages.append(("campaign res 6, umpire", _campaign6(work), None))
    rows = []
    for label, db, faction in pages:
        out = work / f"map-{label.replace(' ', '-').replace(',', '')}.html"
        t = time.perf_counter()
        render_terrain_map(db, out, faction=faction)
        render_s = time.perf_counter() - t
        size = out.stat().st_size
        fcp, drawn, blocked = paint_times(out, repeats=2 if quick else 3)
        rows += [
            _row(f"map page size, {label}", round(size / 1e6, 2), "MB", note=f"rendered in {render_s:.1f} s"),
            _row(f"map first paint, {label}", round(fcp), "ms", note="headless chromium, first contentful paint"),
            _row(f"map drawn, {label}", round(drawn), "ms",
                 note=f"first frame after load; {blocked} network requests (must be 0)"),
        ]
    return rows


def run(work_dir: Path, *, quick: bool = False) -> list[dict]:
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    if not CHROMIUM.exists():
        return [_row("map pages", "skipped", "", note=f"{CHROMIUM} is absent: `make chromium`")]
    return bench_pages(work_dir, quick=quick)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-maps-") as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv):
            print(r)
