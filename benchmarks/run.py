"""`make bench`: measure, then write benchmarks/results.md.

Every figure is a median of repeated runs beside its named baseline measured in
the same run, so machine noise shifts both and the ratio stays meaningful.
Run: .venv/bin/python -m benchmarks.run [--quick]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import psutil

RESULTS = Path(__file__).parent / "results.md"


def median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_map_build(work: Path, *, quick: bool) -> list[dict]:
    from tabula.etl.build import build_map

    repeat = 1 if quick else 3
    res5 = median_seconds(lambda: build_map(work / "med5.duckdb", res=5, progress=False), repeat)
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
    res6 = median_seconds(lambda: build_map(work / "med6.duckdb", res=6, progress=False), 1)
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


def write_results(rows: list[dict], path: Path = RESULTS) -> None:
    cpu = f"{psutil.cpu_count(logical=True)} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB"
    lines = [
        "# Benchmarks",
        "",
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.machine()} ({cpu}), Python {platform.python_version()}.",
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
    args = parser.parse_args(argv)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tabula-bench-") as tmp:
        work = Path(tmp)
        rows += bench_map_build(work, quick=args.quick)
        for module in ("benchmarks.bench_zonal", "benchmarks.bench_engine"):
            rows += optional_rows(module, work, quick=args.quick)
    write_results(rows)
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
