"""Benchmarks of the offline map pages (issue 10, item 3; issue 11, item 3): size, paint, heap, zoom.

Pages: the demo campaign (res 5, umpire's view and a faction's view) and the same
scenario on a res-6 map of its bbox (umpire's view).  Each page is opened in headless
Debian chromium (``/usr/bin/chromium`` through playwright, never a downloaded browser)
with every non-local request aborted; the figures are the median of ``repeats`` loads:
first contentful paint (``performance`` paint entry) and "map drawn", the time of the
first animation frame after the load event (Leaflet has drawn the hex canvas by then).

Large maps (issue 11, item 3): the 28k-hex Mediterranean map (res 5, ``make demo``'s
``build/mediterranean.duckdb`` or built like it) and a 238k-hex res-7 map of Italy (built into
``work_dir``, about 15 s; skipped with ``quick``), each rendered by this tree and by the renderer
of :data:`BASELINE_REV` (its ``web_maps`` package from ``git archive``, imported in a fresh
process in place of ours: one Leaflet polygon per hex) and opened the same way.  Per page: HTML
bytes per hex, first contentful paint, map drawn, JS heap after the draw (CDP
``Performance.getMetrics`` ``JSHeapUsedSize``, after a forced garbage collection: what the
page keeps) and the zoom step (``setZoom`` by one without animation, until the second frame
after it: projection and redraw), median of two steps in and two out.

``run(work_dir, quick=...)`` returns rows {name, value, unit, baseline, ratio, note}
for ``benchmarks/run.py``.  Run alone: ``python -m benchmarks.bench_maps [--quick]``
(quick: res 5 only, where a res-6 campaign is not already in ``work_dir``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
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
MED5 = ROOT / "build" / "mediterranean.duckdb"
ITALY = (6.6, 36.6, 18.6, 47.1)  # the `italy` region preset's bbox: 238k hexes at res 7
# The last commit whose map pages drew one Leaflet polygon per hex (issue 11's baseline).
BASELINE_REV = "7e53d2a"


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
    from bellica.etl.build import build_map
    from bellica.etl.campaign import create_campaign
    from bellica.etl.scenario import load_scenario

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
    from bellica.web_maps.terrain_map import render_terrain_map

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


def _mediterranean5(work: Path) -> Path:
    if MED5.exists():
        return MED5
    from bellica.etl.build import build_map

    out = work / "bench-med5.duckdb"
    if not out.exists():
        build_map(out, region="mediterranean", res=5, progress=False, force=True)
    return out


def _italy7(work: Path) -> Path:
    from bellica.etl.build import build_map

    out = work / "bench-italy7.duckdb"
    if not out.exists():
        build_map(out, region="italy", res=7, progress=False, force=True)
    return out


def _old_web_maps(work: Path, rev: str) -> Path:
    """``rev``'s ``web_maps`` folder, unpacked under ``work``."""
    import tarfile

    dest = work / f"web_maps-{rev}"
    if not (dest / "web_maps" / "layers.py").exists():
        archive = work / f"web_maps-{rev}.tar"
        subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), rev, "web_maps"], cwd=ROOT, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(dest, filter="data")
    return dest / "web_maps"


def render_old(db: Path, out: Path, *, work: Path, rev: str = BASELINE_REV) -> float:
    """Render ``db`` with ``rev``'s ``web_maps`` (in a fresh process, imported as ``bellica.web_maps``); seconds."""
    old = _old_web_maps(work, rev)
    code = (
        "import importlib.util, sys, time\n"
        "import bellica\n"
        f"spec = importlib.util.spec_from_file_location('bellica.web_maps', {str(old / '__init__.py')!r}, "
        f"submodule_search_locations=[{str(old)!r}])\n"
        "mod = importlib.util.module_from_spec(spec); sys.modules['bellica.web_maps'] = mod; spec.loader.exec_module(mod)\n"
        "from bellica.web_maps.terrain_map import render_terrain_map\n"
        "assert 'web_maps-' in sys.modules['bellica.web_maps.layers'].__file__\n"
        f"t = time.perf_counter(); render_terrain_map({str(db)!r}, {str(out)!r}); print('SECONDS', time.perf_counter() - t)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if proc.returncode != 0:
        raise RuntimeError(f"rendering {db} with web_maps of {rev} failed:\n{proc.stderr[-2000:]}")
    return float(proc.stdout.split("SECONDS")[-1])


ZOOM_STEP_JS = """async (delta) => {
  const m = window[document.querySelector('.folium-map').id];
  const t = performance.now();
  m.setZoom(m.getZoom() + delta, {animate: false});
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t;
}"""


def page_figures(html: Path, *, repeats: int = 2) -> dict:
    """Medians over ``repeats`` fresh loads: fcp, drawn (ms), heap (MiB, after a GC), heap_peak (MiB, before), zoom (ms)."""
    from playwright.sync_api import sync_playwright

    runs: dict[str, list[float]] = {"fcp": [], "drawn": [], "heap": [], "heap_before_gc": [], "zoom": []}
    blocked = 0
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
                cdp = context.new_cdp_session(page)
                cdp.send("Performance.enable")
                page.add_init_script("window.addEventListener('load', () => requestAnimationFrame(() => "
                                     "{ window.__drawn = performance.now(); }));")
                page.goto(html.resolve().as_uri(), wait_until="load", timeout=120000)
                page.wait_for_function("window.__drawn !== undefined", timeout=120000)
                page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0",
                                       timeout=60000)
                runs["fcp"].append(page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime"))
                runs["drawn"].append(page.evaluate("window.__drawn"))

                def heap() -> float:
                    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
                    return metrics["JSHeapUsedSize"] / 2**20

                runs["heap_before_gc"].append(heap())
                cdp.send("HeapProfiler.collectGarbage")
                runs["heap"].append(heap())
                steps = [page.evaluate(ZOOM_STEP_JS, d) for d in (1, 1, -1, -1)]
                runs["zoom"].append(statistics.median(steps))
                blocked = max(blocked, len(stopped))
                context.close()
        finally:
            browser.close()
    return {k: statistics.median(v) for k, v in runs.items()} | {"blocked": blocked}


def _hex_count(db: Path) -> int:
    from bellica.geo.spatialdb import offline_connect

    con = offline_connect(db, read_only=True)
    try:
        return con.execute("SELECT count(*) FROM hexes").fetchone()[0]
    finally:
        con.close()


def bench_large_maps(work: Path, *, quick: bool = False) -> list[dict]:
    from bellica.web_maps.terrain_map import render_terrain_map

    maps = [("Mediterranean res 5", _mediterranean5(work))]
    if not quick:
        maps.append(("Italy res 7", _italy7(work)))
    rows = []
    load = os.getloadavg()[0]
    for label, db in maps:
        n = _hex_count(db)
        slug = label.replace(" ", "-")
        new_html, old_html = work / f"large-{slug}.html", work / f"large-{slug}-{BASELINE_REV}.html"
        t = time.perf_counter()
        render_terrain_map(db, new_html)
        new_s = time.perf_counter() - t
        old_s = render_old(db, old_html, work=work)
        reps = 1 if quick else 2
        old, new = page_figures(old_html, repeats=reps), page_figures(new_html, repeats=reps)
        name = f"{label} ({n:,} hexes)"
        base = f"one polygon per hex ({BASELINE_REV})"

        def row(what, key, unit, digits=0, note=""):
            a, b = new[key], old[key]
            return _row(f"large map {what}, {name}", round(a, digits) if digits else round(a), unit,
                        baseline=round(b, digits) if digits else round(b), ratio=round(a / b, 2) if b else "",
                        note=f"{base}; {note}".rstrip("; "))

        size_new, size_old = new_html.stat().st_size, old_html.stat().st_size
        rows += [
            _row(f"large map page weight per hex, {name}", round(size_new / n, 1), "B/hex",
                 baseline=round(size_old / n, 1), ratio=round(size_new / size_old, 2),
                 note=f"{base}; {size_new / 1e6:.1f} MB page, rendered in {new_s:.1f} s (old {old_s:.1f} s)"),
            row("first paint", "fcp", "ms", note="headless chromium, first contentful paint"),
            row("drawn", "drawn", "ms", note=f"first frame after load; {new['blocked']} network requests (must be 0)"),
            row("JS heap", "heap", "MiB", 1,
                note=f"after a forced GC; before it {new['heap_before_gc']:.0f} MiB (old {old['heap_before_gc']:.0f}); "
                      f"typed-array stores not counted: {n * (6 * 24 + 32) / 2**20:.0f} MiB more (new only: vertices and grid)"),
            row("zoom step", "zoom", "ms", note="setZoom +-1 without animation to the 2nd frame, median of 4"),
        ]
        for r in rows[-5:]:
            r["note"] += f"; load {load:.1f}"
    return rows


def run(work_dir: Path, *, quick: bool = False) -> list[dict]:
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    if not CHROMIUM.exists():
        return [_row("map pages", "skipped", "", note=f"{CHROMIUM} is absent: `make chromium`")]
    return bench_pages(work_dir, quick=quick) + bench_large_maps(work_dir, quick=quick)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-maps-") as tmp:
        work = Path(os.environ.get("BELLICA_BENCH_WORK", tmp))
        rows = bench_large_maps(work, quick="--quick" in sys.argv) if "--large" in sys.argv else \
            run(work, quick="--quick" in sys.argv)
        for r in rows:
            print(json.dumps(r))
