"""Balance testing at scale (issue 12, part 6): ``bellica simulate`` of 1,000 Rise of Rome campaigns
and 200 Mare Nostrum games.

Rows:

(a) the wall time of ``bellica simulate rise-of-rome --runs 1000 --policy prudent --seed 1``
    on every local core (the command run in-process through :func:`bellica.cli.main`, so the
    figure includes the summary, the CSV and the chart), beside one process playing a sample of
    the same campaigns (the first 200, scaled to 1,000): the ratio is how much the pool saves;
(b) campaigns per second on all cores and in one process;
(c), (d) the same for ``bellica simulate mare-nostrum --runs 200 --policy aggressor --seed 1``
    (every nation attacking the weakest province it may: the study with the most battles, about
    a minute on 2 cores at most), beside one process playing its first 40 games (scaled).

The benchmark checks that the pool's first runs equal the one-process runs (same seeds, same
outcomes).  The full run copies its charts to ``benchmarks/simulate-rise-of-rome.png`` and
``benchmarks/simulate-mare-nostrum.png`` (committed beside ``results.md``); ``--quick`` (100
campaigns, a sample of 20; 20 games, a sample of 5) leaves them alone.

``run(work_dir, quick=...)`` returns rows for ``benchmarks/run.py``.  Run alone:
``python -m benchmarks.bench_simulate [--quick] [--mare-nostrum] [--scheduler ADDR]`` (``--mare-nostrum``:
only rows (c) and (d)).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import sys
import time
from pathlib import Path

PLOT = Path(__file__).parent / "simulate-rise-of-rome.png"
POLICY = "prudent"  # bellica simulate's default
SEED = 1
MN_PLOT = Path(__file__).parent / "simulate-mare-nostrum.png"
MN_POLICY = "aggressor"  # the most battles (and the slowest policy but random)


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


def _cli(*args) -> dict:
    """``bellica ARGS --json`` in this process: the JSON document (an error raises)."""
    from bellica.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    if code:
        raise RuntimeError(f"bellica {' '.join(map(str, args))} exited {code}: {err.getvalue().strip()}")
    return json.loads(out.getvalue())


def run(work_dir: Path, *, quick: bool = False, scheduler: str | None = None) -> list[dict]:
    from bellica.engine.core.simulate import run_seeds, simulate
    from bellica.engine.rise_of_rome.policies import CampaignRunner

    runs, sample = (100, 20) if quick else (1000, 200)
    out = Path(work_dir) / "bench-simulate"
    args = ["simulate", "rise-of-rome", "--runs", runs, "--policy", POLICY, "--seed", SEED, "--out", out, "--force",
            "--json"]
    if scheduler:
        args += ["--scheduler", scheduler]
    t = time.perf_counter()
    doc = _cli(*args)
    pool_s = time.perf_counter() - t

    # One process, the first `sample` campaigns of the same seeds (imports already done above).
    runner = CampaignRunner(POLICY)
    t = time.perf_counter()
    serial = simulate(runner, run_seeds(SEED, sample), workers=1)
    serial_s = (time.perf_counter() - t) * runs / sample
    with (out / "runs.csv").open(newline="") as f:
        first = list(csv.DictReader(f))[:sample]
    assert [(int(r["seed"]), r["verdict"], int(r["civic"])) for r in first] == \
        [(r["seed"], r["verdict"], r["civic"]) for r in serial], "the pool and one process disagree"

    if not quick:
        shutil.copyfile(out / "outcomes.png", PLOT)
    verdicts = ", ".join(f"{k} {v['runs']}" for k, v in doc["counts"]["verdict"].items())
    where = doc["where"]
    note = (f"policy {POLICY}, seed {SEED}, {where}; verdicts: {verdicts}; median Civic Development "
            f"{doc['numbers']['civic']['median']:g}; chart {'benchmarks/' + PLOT.name if not quick else 'not kept (--quick)'}")
    return [
        _row(f"bellica simulate: {runs} Rise of Rome campaigns", round(pool_s, 2), "s",
             f"1 process: {serial_s:.2f} s (first {sample} runs, scaled)", round(pool_s / serial_s, 2), note),
        _row("Rise of Rome campaigns per second", round(runs / pool_s, 1), "runs/s",
             f"1 process: {runs / serial_s:.1f} runs/s", round(serial_s / pool_s, 2),
             f"{where}; {os.cpu_count()} cores; summary, CSV and chart included"),
        *mare_nostrum_rows(work_dir, quick=quick, scheduler=scheduler),
    ]


def mare_nostrum_rows(work_dir: Path, *, quick: bool = False, scheduler: str | None = None) -> list[dict]:
    """Rows (c) and (d): ``bellica simulate mare-nostrum`` of 200 games (20 with ``quick``)."""
    from bellica.engine.core.simulate import run_seeds, simulate
    from bellica.engine.mare_nostrum.policies import GameRunner

    runs, sample = (20, 5) if quick else (200, 40)
    out = Path(work_dir) / "bench-simulate-mn"
    args = ["simulate", "mare-nostrum", "--runs", runs, "--policy", MN_POLICY, "--seed", SEED, "--out", out, "--force",
            "--json"]
    if scheduler:
        args += ["--scheduler", scheduler]
    t = time.perf_counter()
    doc = _cli(*args)
    pool_s = time.perf_counter() - t

    t = time.perf_counter()
    serial = simulate(GameRunner(MN_POLICY), run_seeds(SEED, sample), workers=1)
    serial_s = (time.perf_counter() - t) * runs / sample
    with (out / "runs.csv").open(newline="") as f:
        first = list(csv.DictReader(f))[:sample]
    assert [(int(r["seed"]), r["winner"], int(r["turns"])) for r in first] == \
        [(r["seed"], r["winner"], r["turns"]) for r in serial], "the pool and one process disagree"

    if not quick:
        shutil.copyfile(out / "outcomes.png", MN_PLOT)
    wins = ", ".join(f"{k} {v['runs']}" for k, v in doc["counts"]["winner"].items())
    where = doc["where"]
    chart = "benchmarks/" + MN_PLOT.name if not quick else "not kept (--quick)"
    note = (f"policy {MN_POLICY} for every nation, seed {SEED}, {where}; wins: {wins}; median turns "
            f"{doc['numbers']['turns']['median']:g}; chart {chart}")
    return [
        _row(f"bellica simulate: {runs} Mare Nostrum games", round(pool_s, 2), "s",
             f"1 process: {serial_s:.2f} s (first {sample} runs, scaled)", round(pool_s / serial_s, 2), note),
        _row("Mare Nostrum games per second", round(runs / pool_s, 1), "runs/s",
             f"1 process: {runs / serial_s:.1f} runs/s", round(serial_s / pool_s, 2),
             f"{where}; {os.cpu_count()} cores; summary, CSV and chart included"),
    ]


if __name__ == "__main__":
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100 campaigns and 20 games, the charts not kept")
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address instead of the local cores")
    parser.add_argument("--mare-nostrum", action="store_true", help="only the Mare Nostrum rows")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bellica-bench-simulate-") as tmp:
        rows = (mare_nostrum_rows if args.mare_nostrum else run)(Path(tmp), quick=args.quick, scheduler=args.scheduler)
        for r in rows:
            print(r)
    sys.exit(0)
