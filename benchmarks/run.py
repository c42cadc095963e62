"""`make bench`: measure, then write benchmarks/results.md.

Every figure is a median of repeated runs beside its named baseline measured in
the same run, so machine noise shifts both and the ratio stays meaningful.
Run: .venv/bin/python -m benchmarks.run [--quick] [--against REV]

The engine figures (a full umpire round, the logistics query) are measured side by
side with a named earlier commit (``--against``, default :data:`BASELINE_REV`): that
commit's wheel is built offline into a temporary folder and its own
``benchmarks/bench_engine.py`` runs in a fresh process on it, then this tree's runs in
a fresh process too, one after the other under the same load.  Each row then carries
the earlier commit's figure as its baseline, so a refactor that slows a step shows as
a ratio above 1.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import psutil

RESULTS = Path(__file__).parent / "results.md"
ROOT = Path(__file__).resolve().parents[1]
#: The commit the engine figures are compared with: main before the rules-core rework (issue 7).
BASELINE_REV = "93f3471"


def median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_map_build(work: Path, *, quick: bool) -> list[dict]:
    from bellica.etl.build import build_map

    repeat = 1 if quick else 3
    res5 = median_seconds(lambda: build_map(work / "med5.duckdb", res=5, progress=False, force=True), repeat)
    rows = [
        {
            "name": "default map build, res 5 (Mediterranean)",
            "value": round(res5, 2),
            "unit": "s",
            "baseline": "target 15 s",
            "ratio": round(res5 / 15.0, 2),
            "note": f"median of {repeat}",
        }
    ]
    res6 = median_seconds(lambda: build_map(work / "med6.duckdb", res=6, progress=False, force=True), 1)
    rows.append(
        {
            "name": "default map build, res 6 (Mediterranean)",
            "value": round(res6, 2),
            "unit": "s",
            "baseline": "res 5 build above",
            "ratio": round(res6 / res5, 2),
            "note": "1 run; ~7x the cells of res 5",
        }
    )
    return rows


def optional_rows(module: str, work: Path, *, quick: bool) -> list[dict]:
    """Rows from another benchmark module's ``run(work_dir, quick=...)``."""
    import importlib

    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name == module:
            return []
        raise
    return mod.run(work, quick=quick)


def _wheel_site(rev: str, work: Path) -> tuple[Path, Path]:
    """(unpacked wheel of ``rev``, folder holding that commit's ``benchmarks`` package)."""
    import subprocess
    import tarfile
    import zipfile

    src = work / f"src-{rev}"
    src.mkdir()
    archive = work / f"{rev}.tar"
    subprocess.run(["git", "archive", "--format=tar", "-o", str(archive), rev], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(src, filter="data")
    wheels = work / f"wheel-{rev}"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(src)],
                   check=True, capture_output=True)
    site = work / f"site-{rev}"
    with zipfile.ZipFile(next(wheels.glob("*.whl"))) as z:
        z.extractall(site)
    return site, src


def _engine_rows_in_fresh_process(path: list[Path], work: Path, *, quick: bool) -> list[dict]:
    """``benchmarks.bench_engine.run`` in a new interpreter whose imports come from ``path`` first."""
    import json
    import os
    import subprocess

    work.mkdir(parents=True, exist_ok=True)
    code = ("import json, sys; from pathlib import Path; from benchmarks.bench_engine import run; "
            f"print('ROWS' + json.dumps(run(Path({str(work)!r}), quick={quick!r})))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    # Run from an empty folder, so neither this tree nor its editable install answers an import first.
    proc = subprocess.run([sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"bench_engine failed under {path[0]}:\n{proc.stderr[-3000:]}")
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("ROWS"))
    return json.loads(line[4:])


def engine_rows_against(rev: str, work: Path, *, quick: bool, alternations: int = 2) -> list[dict]:
    """The engine rows of this tree, each with ``rev``'s figure for the same row as its baseline.

    The two trees run in turn, ``rev`` first, ``alternations`` times each (A B A B): a load
    that rises or falls during the run then weighs on both, and each side's figure is the
    median of its runs' medians."""
    import subprocess

    label = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout.strip()
    site, src = _wheel_site(label, work)
    before_runs, now_runs = [], []
    for k in range(alternations):
        before_runs.append(_engine_rows_in_fresh_process([site, src], work / f"before-{k}", quick=quick))
        now_runs.append(_engine_rows_in_fresh_process([ROOT], work / f"now-{k}", quick=quick))

    def combined(runs: list[list[dict]]) -> dict[str, tuple[float, list[float]]]:
        values: dict[str, list[float]] = {}
        for rows in runs:
            for r in rows:
                values.setdefault(r["name"], []).append(r["value"])
        return {name: (statistics.median(v), v) for name, v in values.items()}

    before, now = combined(before_runs), combined(now_runs)
    rows = []
    for r in now_runs[-1]:
        value, runs = now[r["name"]]
        old = before.get(r["name"])
        # Rows that are already a ratio between two of this run's figures keep their own baseline.
        if old is None or not old[0] or " vs " in r["name"]:
            rows.append(r)
            continue
        shown = lambda v: ", ".join(f"{x:g}" for x in v)  # noqa: E731
        rows.append({**r, "value": round(value, 3), "baseline": f"commit {label}: {round(old[0], 3)} {r['unit']}",
                     "ratio": round(value / old[0], 2),
                     "note": f"{r['note']}; {r['baseline']}; medians of {alternations} runs each, {label} and this tree "
                             f"in turn: this tree {shown(runs)}, {label} {shown(old[1])}"})
    return rows


def write_results(rows: list[dict], load: tuple[float, ...], path: Path = RESULTS) -> None:
    cpu = f"{psutil.cpu_count(logical=True)} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB"
    lines = [
        "# Benchmarks",
        "",
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.machine()} ({cpu}), Python {platform.python_version()}; "
        f"1-min load average {load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end.",
        "Medians of repeated runs; each ratio is against the baseline named beside it, measured in the same run.",
        "Regenerate with `make bench`.",
        "",
        "| benchmark | value | unit | baseline | ratio | note |",
        "| --- | ---: | --- | --- | ---: | --- |",
    ]
    for r in rows:
        lines.append(f"| {r['name']} | {r['value']} | {r['unit']} | {r['baseline']} | {r['ratio']} | {r.get('note', '')} |")
    path.write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller rasters")
    parser.add_argument("--against", default=BASELINE_REV, metavar="REV",
                        help=f"commit the engine figures are measured beside (default {BASELINE_REV}; 'none' to skip)")
    args = parser.parse_args(argv)
    rows: list[dict] = []
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bellica-bench-") as tmp:
        work = Path(tmp)
        rows += bench_map_build(work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_build", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_terrain", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_zonal", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_maps", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_app", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_preview", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_views", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_cli", work, quick=args.quick)
        rows += optional_rows("benchmarks.bench_simulate", work, quick=args.quick)
        if args.against == "none":
            rows += optional_rows("benchmarks.bench_engine", work, quick=args.quick)
        else:
            rows += engine_rows_against(args.against, work, quick=args.quick)
    write_results(rows, load)
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
