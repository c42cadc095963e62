"""Balance testing at scale (issue 12, part 6; issue 24, item 3): ``bellica simulate`` of 1,000 Rise of
Rome campaigns, 200 Mare Nostrum games, 400 First Punic War games, Magna Graecia's four scenarios
and a Trossian decade.

Rows:

(a) the wall time of ``bellica simulate rise-of-rome --runs 1000 --policy prudent --seed 1``
    on every local core (the command run in-process through :func:`bellica.cli.main`, so the
    figure includes the summary, the CSV and the chart), beside one process playing a sample of
    the same campaigns (the first 200, scaled to 1,000): the ratio is how much the pool saves;
(b) campaigns per second on all cores and in one process;
(c), (d) the same for ``bellica simulate mare-nostrum --runs 200 --policy aggressor --seed 1``
    (every nation attacking the weakest province it may: the study with the most battles, about
    a minute on 2 cores at most), beside one process playing its first 40 games (scaled);
(e) ``bellica simulate vae-victis-ii`` of the First Punic War at res 5, five rounds, 200 games
    of a heuristic Carthago against a random Roma and 200 against a heuristic Roma (the issue's
    Done-when; 4 each with ``--quick``): who wins, in which round, by how many VP;
(f) games per second per core: the first 20 of those games (2 with ``--quick``) on 1 local
    worker and on 2, the same rows both ways;
(g) ``bellica simulate magna-graecia`` of each of the four scenarios (20 games each, heuristic
    sides; 2 games of one turn with ``--quick``);
(h) ``bellica simulate trossian`` of a decade (10 games, heuristic nations; 1 game of 3 rounds
    with ``--quick``);
(i) with ``--schedulers`` only: each of the five rulesets, 10 games (2 with ``--quick``; shortened
    games for the three played on a campaign file, :data:`SCHEDULER_STUDIES`) through the command on
    2 local processes and on a Dask ``LocalCluster`` of 2 workers, whose rows must be the same.

The benchmark checks that the pool's first runs equal the one-process runs (same seeds, same
outcomes).  The full run copies its charts to ``benchmarks/simulate-rise-of-rome.png`` and
``benchmarks/simulate-mare-nostrum.png`` (committed beside ``results.md``); ``--quick`` (100
campaigns, a sample of 20; 20 games, a sample of 5) leaves them alone.

``run(work_dir, quick=...)`` returns rows for ``benchmarks/run.py``.  Run alone:
``python -m benchmarks.bench_simulate [--quick] [--mare-nostrum | --campaigns | --schedulers] [--scheduler ADDR]``
(``--mare-nostrum``: only rows (c) and (d); ``--campaigns``: only rows (e) to (h); ``--schedulers``: only row (i)).
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
        *campaign_rows(work_dir, quick=quick, scheduler=scheduler),
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


# --- the rulesets played on a campaign file: Vae Victis II, Magna Graecia, Trossian ---------------------------

FPW_PLOT = Path(__file__).parent / "simulate-first-punic-war.png"
ROOT = Path(__file__).resolve().parent.parent
MG_SCENARIOS = ("dionysian", "pyrrhic", "first-punic", "second-punic")


def _quiet(*args) -> None:
    """``bellica ARGS`` in this process, its output dropped (an error raises)."""
    from bellica.cli import main

    err = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    if code:
        raise RuntimeError(f"bellica {' '.join(map(str, args))} exited {code}: {err.getvalue().strip()}")


def _first_punic_war(work: Path) -> Path:
    """A fresh First Punic War campaign at res 5 (on the demo's map, or one built like it)."""
    map5 = next((p for p in (work.parent / "med5.duckdb", ROOT / "build" / "mediterranean.duckdb") if p.exists()), None)
    if map5 is None:
        from bellica.etl.build import build_map

        map5 = work / "bench-med5.duckdb"
        build_map(map5, region="mediterranean", res=5, progress=False, force=True)
    out = work / "fpw-fresh.duckdb"
    _quiet("campaign", "new", "--scenario", "first-punic-war", "--map", map5, "--out", out, "--force")
    return out


def _wins(doc: dict) -> str:
    return ", ".join(f"{k} {v['runs']}" for k, v in doc["counts"]["winner"].items())


def _spread(doc: dict, key: str) -> str:
    n = doc["numbers"][key]
    return f"median {n['median']:g} (10-90% {n['p10']:g}-{n['p90']:g})" if n["n"] else "none"


def vae_victis_rows(work_dir: Path, *, quick: bool = False, scheduler: str | None = None) -> list[dict]:
    """Rows (e) and (f): the First Punic War's outcomes, heuristic Carthago against each Roma, and
    the games per second per core on 1 and 2 local workers."""
    from bellica.engine.core.simulate import run_seeds, simulate
    from bellica.engine.vae_victis.simulate import GameRunner

    runs, sample = (4, 2) if quick else (200, 20)
    work = Path(work_dir) / "bench-simulate-vv"
    work.mkdir(parents=True, exist_ok=True)
    campaign = _first_punic_war(work)
    rows = []
    for roma in ("random", "heuristic"):
        out = work / f"roma-{roma}"
        args = ["simulate", "vae-victis-ii", "--campaign", campaign, "--runs", runs, "--seat", f"Roma={roma}",
                "--seed", SEED, "--out", out, "--force", "--json", "-q"]
        if scheduler:
            args += ["--scheduler", scheduler]
        t = time.perf_counter()
        doc = _cli(*args)
        took = time.perf_counter() - t
        if not quick and roma == "random":
            shutil.copyfile(out / "outcomes.png", FPW_PLOT)
        rows.append(_row(f"First Punic War, heuristic Carthago v {roma} Roma: {runs} games", round(took, 1), "s", "", "",
                         f"res 5, 5 rounds, seed {SEED}, {doc['where']}; wins: {_wins(doc)}; how: "
                         + ", ".join(f"{k} {v['runs']}" for k, v in doc["counts"]["how"].items())
                         + f"; ended in round {_spread(doc, 'round')}; lead {_spread(doc, 'margin')} VP"))
    runner = GameRunner(str(campaign), (("Carthago", "heuristic"), ("Roma", "random")))
    seeds = run_seeds(SEED, sample)
    timed = {}
    for workers in (1, 2):
        t = time.perf_counter()
        timed[workers] = (simulate(runner, seeds, workers=workers), time.perf_counter() - t)
    assert timed[1][0] == timed[2][0], "1 and 2 local workers disagree"
    one, two = timed[1][1], timed[2][1]
    rows.append(_row("First Punic War games per second per core", round(sample / one, 3), "games/s",
                     f"2 workers: {sample / two:.3f} games/s ({sample / two / 2:.3f} per core)", round(one / two, 2),
                     f"first {sample} games of seed {SEED}, heuristic Carthago v random Roma; the ratio is the scaling "
                     f"from 1 to 2 local workers ({os.cpu_count()} cores, same rows)"))
    return rows


def magna_graecia_rows(work_dir: Path, *, quick: bool = False, scheduler: str | None = None) -> list[dict]:
    """Row (g): each of Magna Graecia's four scenarios, heuristic sides."""
    from bellica.demo_magna_graecia import build_demo_campaign

    runs, turns = (2, 1) if quick else (20, None)
    work = Path(work_dir) / "bench-simulate-mg"
    rows = []
    for name in MG_SCENARIOS[:1] if quick else MG_SCENARIOS:
        campaign = build_demo_campaign(work / f"{name}.duckdb", scenario=f"magna-graecia/{name}")
        args = ["simulate", "magna-graecia", "--campaign", campaign, "--runs", runs, "--seed", SEED, "--json", "-q",
                *(["--rounds", turns] if turns else []), *(["--scheduler", scheduler] if scheduler else [])]
        t = time.perf_counter()
        doc = _cli(*args)
        took = time.perf_counter() - t
        rows.append(_row(f"Magna Graecia {name}: {runs} games", round(took, 1), "s", "", "",
                         f"heuristic sides, seed {SEED}, {doc['where']}; wins: {_wins(doc)}; turns "
                         f"{_spread(doc, 'turns')}; lead {_spread(doc, 'margin')} VP"))
    return rows


def trossian_rows(work_dir: Path, *, quick: bool = False, scheduler: str | None = None) -> list[dict]:
    """Row (h): a Trossian decade, heuristic nations."""
    from bellica.demo_trossian import build_demo_campaign

    runs, rounds = (1, 3) if quick else (10, None)
    campaign = build_demo_campaign(Path(work_dir) / "bench-simulate-tr" / "trossian.duckdb")
    args = ["simulate", "trossian", "--campaign", campaign, "--runs", runs, "--seed", SEED, "--json", "-q",
            *(["--rounds", rounds] if rounds else []), *(["--scheduler", scheduler] if scheduler else [])]
    t = time.perf_counter()
    doc = _cli(*args)
    took = time.perf_counter() - t
    games = f"{runs} game{'' if runs == 1 else 's'}"
    return [_row(f"Trossian {'decade' if not quick else f'{rounds} rounds'}: {games}", round(took, 1), "s", "", "",
                 f"heuristic nations, seed {SEED}, {doc['where']}; most provinces: {_wins(doc)}; lead "
                 f"{_spread(doc, 'margin')} provinces")]


#: Row (i): each ruleset's study as the scheduler check plays it: (ruleset, its arguments beyond the
#: campaign file, the campaign file's scenario, or None for a ruleset that plays its scenario as shipped).
SCHEDULER_STUDIES = (
    ("rise-of-rome", (), None),
    ("mare-nostrum", (), None),
    ("vae-victis-ii", ("--rounds", 2, "--seat", "Roma=random"), "first-punic-war"),
    ("magna-graecia", ("--rounds", 2), "magna-graecia/pyrrhic"),
    ("trossian", ("--rounds", 2), "trossian"),
)


def scheduler_rows(work_dir: Path, *, quick: bool = False) -> list[dict]:
    """Row (i): every ruleset's games through ``bellica simulate`` on 2 local processes and on a Dask
    LocalCluster of 2 single-threaded workers: the rows must be the same (docs/simulate.md gives the
    100-game figures)."""
    from distributed import LocalCluster

    runs = 2 if quick else 10
    work = Path(work_dir) / "bench-simulate-schedulers"
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        for ruleset, extra, scenario in SCHEDULER_STUDIES:
            args = ["simulate", ruleset, "--runs", runs, "--seed", SEED, "--json", "-q", "--force", *extra]
            if scenario == "first-punic-war":
                args += ["--campaign", _first_punic_war(work)]
            elif scenario:
                campaign = work / f"{ruleset}.duckdb"
                _quiet("campaign", "new", "--scenario", scenario, "--out", campaign, "--force")
                args += ["--campaign", campaign]
            took = {}
            for where, flags in (("local", ["--workers", 2]), ("dask", ["--scheduler", cluster.scheduler_address])):
                t = time.perf_counter()
                _cli(*args, *flags, "--out", work / f"{ruleset}-{where}")
                took[where] = time.perf_counter() - t
            same = all((work / f"{ruleset}-local" / f).read_bytes() == (work / f"{ruleset}-dask" / f).read_bytes()
                       for f in ("runs.csv", "summary.json"))
            assert same, f"{ruleset}: the Dask cluster's rows differ from the local pool's"
            rows.append(_row(f"{ruleset}: {runs} games on 2 local processes and on a Dask LocalCluster", round(took["local"], 1),
                             "s", f"Dask: {took['dask']:.1f} s", round(took["dask"] / took["local"], 2),
                             f"seed {SEED} {' '.join(map(str, extra))}; runs.csv and summary.json identical both ways"))
    return rows


def campaign_rows(work_dir: Path, *, quick: bool = False, scheduler: str | None = None) -> list[dict]:
    """Rows (e) to (h)."""
    return [*vae_victis_rows(work_dir, quick=quick, scheduler=scheduler),
            *magna_graecia_rows(work_dir, quick=quick, scheduler=scheduler),
            *trossian_rows(work_dir, quick=quick, scheduler=scheduler)]


if __name__ == "__main__":
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100 campaigns and 20 games, the charts not kept")
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler address instead of the local cores")
    parser.add_argument("--mare-nostrum", action="store_true", help="only the Mare Nostrum rows")
    parser.add_argument("--campaigns", action="store_true", help="only the Vae Victis II, Magna Graecia and Trossian rows")
    parser.add_argument("--schedulers", action="store_true",
                        help="only row (i): every ruleset on 2 local processes and on a Dask LocalCluster, same rows")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bellica-bench-simulate-") as tmp:
        if args.schedulers:
            rows = scheduler_rows(Path(tmp), quick=args.quick)
        else:
            rows = (mare_nostrum_rows if args.mare_nostrum else campaign_rows if args.campaigns else run)(
                Path(tmp), quick=args.quick, scheduler=args.scheduler)
        for r in rows:
            print(r)
    sys.exit(0)
