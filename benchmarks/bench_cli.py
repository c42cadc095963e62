"""How long an umpire waits for each ``bellica round`` command (issue 11, part 1: "each CLI step starts fast").

Rows, all on one started First Punic War campaign at res 5 (the demo's: ``bellica.demo``'s placements, seed 264):

(a) each step of a round typed as separate commands (``bellica round initiative`` ... ``victory``), a fresh
    process each, beside the bare one-liner ``python -c "import duckdb; duckdb.connect(f).sql(...)..."`` on
    the same file: the floor any command pays (interpreter, duckdb, opening the file).  Target: each step
    within 2x of it;
(b) the whole round through the CLI (every command of (a), one after the other) beside the same round
    played in one process through :mod:`engine.vae_victis.rounds` (imports done before the clock starts,
    as in :mod:`benchmarks.bench_engine`).  Target: within 3x;
(c) the read-only ``bellica round status``, and the CLI's import time (``python -X importtime``: the
    cumulative time of ``bellica.cli`` and of the modules a ``round status`` imports);
(d) old vs new: where ``--against``'s wheel can be built (as :func:`benchmarks.run._wheel_site` builds it),
    the same commands run on that commit's code, in turn with this tree's (A B A B), each side's
    figure the median of its runs;
(e) the same steps, the whole round and ``round status`` through the warm command server
    (``bellica warm start``, :mod:`bellica.commands.warm`): each command a fresh process running the
    console entry (``python -c "from bellica.launch import main; main()" ...``) with a server started
    (in a temporary BELLICA_WARM_DIR) before the clock and stopped after, beside the same bare
    one-liner and in-process round.  The warm round must leave the same events and armies.

Decisions where the issue is silent:

- The round is the demo's script (``bellica.demo``: a movement collision at Mylae, a naval battle, a siege
  of Gela, a strait crossing), not the README's lines verbatim: the README shows orders for two armies
  only, so its ``round move`` is refused (orders missing).  The in-process round of (b) and the CLI round
  are the same steps with the same arguments, and the benchmark checks that they log the same events.
- The engagements' results are those the in-process round recorded (it runs first), so the CLI needs no
  extra ``round status`` call to learn the engagement numbers.
- The bare one-liner reads the round's phase (``SELECT value FROM campaign WHERE key = 'phase'``), the least a step
  does; it opens the file read-write like every step but ``status``.
- Every command runs as the installed ``bellica`` console script would: ``python -c "from bellica.cli import
  main; main()"`` with the command's arguments, so this tree and the earlier wheel run the same way.
- Every process (steps and bare one-liner alike) may cache bytecode, as an installed ``bellica`` does: the
  benchmark drops ``PYTHONDONTWRITEBYTECODE`` (set in some shells and CI images, where each command would
  otherwise compile some fifty bellica modules again, ~80 ms) and points ``PYTHONPYCACHEPREFIX`` at its work
  folder, so nothing is written into the tree; one unmeasured round per side fills the cache first.

``run(work_dir, quick=...)`` returns rows for ``benchmarks/run.py``.  Run alone:
``python -m benchmarks.bench_cli [--quick] [--against REV]``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: The commit before issue 11's startup work: its wheel is the "old" of the old-vs-new rows.
BASELINE_REV = "7e53d2a"
STEP_TARGET = 2.0  # a step within 2x of the bare duckdb one-liner
ROUND_TARGET = 3.0  # a CLI round within 3x of the in-process round
BARE = ("import duckdb, sys; con = duckdb.connect(sys.argv[1]); "
        "print(con.sql(\"SELECT value FROM campaign WHERE key = 'phase'\").fetchall())")
CLI = "import sys; from bellica.cli import main; sys.argv[0] = 'bellica'; main()"
#: The console entry (pyproject's ``[project.scripts]``): through the warm server when one runs.
LAUNCH = "import sys; from bellica.launch import main; sys.argv[0] = 'bellica'; main()"


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


# --- the campaign and the round (not timed) ------------------------------------------------


def fresh_campaign(work: Path) -> Path:
    """A First Punic War campaign on the res-5 map with the demo's placements, not yet started."""
    from bellica.demo import _place
    from bellica.etl.build import build_map
    from bellica.etl.campaign import create_campaign
    from bellica.datasets import SCENARIOS_DIR

    map5 = work.parent / "med5.duckdb"  # benchmarks/run.py's default res-5 map, when it built one
    if not map5.exists():
        map5 = work / "bench-med5.duckdb"
        if not map5.exists():
            build_map(map5, res=5, progress=False, force=True)
    out = work / "cli-fresh.duckdb"
    create_campaign(SCENARIOS_DIR / "first-punic-war", out, map_path=map5, force=True)
    _place(out)
    return out


def play_in_process(campaign: Path) -> dict:
    """The demo's round (``round start`` to ``round victory``) in this process on ``campaign``:
    {seconds, steps: {step name as in :func:`cli_round`: its seconds}, events: their (kind, text),
    factions: {army: faction}, results: the results recorded as (engagement, winner, won %, loser, lost %)}."""
    from bellica import demo
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.state import load_state

    results = []
    steps: dict[str, float] = {}
    t = time.perf_counter()

    def timed(name: str, step, *args, **kwargs):
        t0 = time.perf_counter()
        out = step(*args, **kwargs)
        steps[name] = time.perf_counter() - t0
        return out

    with Campaign.open(campaign) as c:
        timed("start", c.start, seed=demo.DEMO_SEED)
        factions = {a.id: a.faction for a in load_state(c).armies}
        for faction, uses in demo.INITIATIVE.items():
            timed(f"initiative {faction}", rounds.submit_initiative, c, uses, faction=faction, source="the benchmark")
        timed("publish", rounds.publish_initiative, c)
        for faction in sorted(demo.INITIATIVE):
            orders = {army: ArmyOrders(army, moves=tuple(int(m) for m in demo.MOVES.get(faction, {}).get(army, "").split()))
                      for army, f in sorted(factions.items()) if f == faction}
            timed(f"orders {faction}", rounds.submit_orders, c, orders, faction=faction, source="the benchmark")
        timed("move", rounds.run_movement, c)
        s = load_state(c)
        for number, _battle, army_a, army_b, _assault, _done in rounds.round_status(c).engagements:
            if army_b is None:
                continue
            winner = army_a if s.army(army_a).faction == "Roma" else army_b
            loser = army_b if winner == army_a else army_a
            won, lost = demo._demo_casualties(demo.DEMO_SEED, s.round, number)
            timed(f"result {number}", rounds.record_result, c, number, {winner: ("win", won), loser: ("loss", lost)})
            results.append((number, winner, won, loser, lost))
        timed("administer", rounds.run_administration, c, rounds.AdminChoices(
            siege_starts=dict(demo.SIEGES), advances=dict(demo.ADVANCES), debarks=dict(demo.DEBARKS)))
        timed("victory", rounds.run_victory, c)
        seconds = time.perf_counter() - t
        events = [(e.kind, e.text) for e in c.events()]
    return {"seconds": seconds, "steps": steps, "events": events, "factions": factions, "results": results}


def cli_round(factions: dict[int, str], results) -> list[tuple[str, list[str]]]:
    """(step name, ``bellica`` arguments after the campaign path is put in for ``{f}``) of the same round."""
    from bellica import demo

    steps = [("start", ["round", "start", "{f}", "--seed", str(demo.DEMO_SEED)])]
    for faction, uses in demo.INITIATIVE.items():
        steps.append((f"initiative {faction}", ["round", "initiative", "{f}", "--faction", faction,
                                                *(f"{a}={use}" for a, use in uses.items())]))
    steps.append(("publish", ["round", "publish", "{f}"]))
    for faction in sorted(demo.INITIATIVE):
        items = [f"{a}={demo.MOVES.get(faction, {}).get(a, '')}" for a, f in sorted(factions.items()) if f == faction]
        steps.append((f"orders {faction}", ["round", "orders", "{f}", "--faction", faction, *items]))
    steps.append(("move", ["round", "move", "{f}"]))
    for number, winner, won, loser, lost in results:
        steps.append((f"result {number}", ["round", "result", "{f}", str(number), "--winner", str(winner),
                                           "--casualties", f"{winner}={won}", "--casualties", f"{loser}={lost}"]))
    admin = [*(f"--siege={a}={s}" for a, s in demo.SIEGES.items()), *(f"--advance={a}={h}" for a, h in demo.ADVANCES.items()),
             *(f"--debark={a}={k}" for a, k in demo.DEBARKS.items())]
    steps.append(("administer", ["round", "administer", "{f}", *admin]))
    steps.append(("victory", ["round", "victory", "{f}"]))
    return steps


# --- running commands --------------------------------------------------------------------


#: Where every measured process caches its bytecode (module doc); set by :func:`run`.
_PYCACHE: list[Path] = []


def _env(pythonpath: list[Path] | None) -> dict:
    env = dict(os.environ)
    if _PYCACHE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE[0])
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(map(str, pythonpath))
    return env


def run_cli(args: list[str], campaign: Path, *, pythonpath=None, cwd: Path | None = None) -> float:
    """Seconds one ``bellica ARGS`` command takes, start of the process to its end; raises if it fails."""
    argv = [sys.executable, "-c", CLI, *(a.replace("{f}", str(campaign)) for a in args)]
    t = time.perf_counter()
    proc = subprocess.run(argv, env=_env(pythonpath), cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"`bellica {' '.join(args)}` failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return seconds


def run_launch(args: list[str], campaign: Path, env: dict) -> float:
    """Seconds one ``bellica ARGS`` takes through the console entry (:data:`LAUNCH`) with ``env``; raises if it fails."""
    argv = [sys.executable, "-c", LAUNCH, *(a.replace("{f}", str(campaign)) for a in args)]
    t = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"`bellica {' '.join(args)}` (warm) failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return seconds


def warm_times(steps, fresh: Path, work: Path, rounds_n: int, reps: int) -> dict:
    """(e): the round's steps, the round and ``round status`` through a warm server started for them:
    {steps: {name: [s]}, rounds: [s], status: [s], state: the last round's :func:`_final_state`}."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="bellica-warm-bench-"))  # short: a socket path has at most 107 bytes
    env = dict(_env(None), BELLICA_WARM_DIR=str(folder))
    env.pop("BELLICA_WARM", None)
    out = {"steps": {}, "rounds": [], "status": [], "state": None}
    try:
        subprocess.run([sys.executable, "-c", LAUNCH, "warm", "start", "--idle-minutes", "30"], env=env, check=True,
                       capture_output=True, text=True)
        for i in range(rounds_n + 1):  # the first round fills the server's caches (and the bytecode's): not timed
            copy = work / f"warm-round-{i}.duckdb"
            shutil.copy(fresh, copy)
            times = {name: run_launch(args, copy, env) for name, args in steps}
            status = [run_launch(["round", "status", "{f}"], copy, env) for _ in range(max(1, reps // rounds_n))]
            if i:
                for name, seconds in times.items():
                    out["steps"].setdefault(name, []).append(seconds)
                out["rounds"].append(sum(times.values()))
                out["status"] += status
                out["state"] = _final_state(copy)
            copy.unlink()
        served = subprocess.run([sys.executable, "-c", LAUNCH, "warm", "status"], env=env, capture_output=True, text=True).stdout
        out["served"] = served.strip()
    finally:
        subprocess.run([sys.executable, "-c", LAUNCH, "warm", "stop"], env=env, capture_output=True, text=True)
        shutil.rmtree(folder, ignore_errors=True)
    return out


def run_bare(campaign: Path) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", BARE, str(campaign)], check=True, capture_output=True, env=_env(None))
    return time.perf_counter() - t


def cli_round_times(steps, fresh: Path, work: Path, *, pythonpath=None, cwd=None) -> tuple[dict[str, float], Path]:
    """Each step's seconds on a fresh copy of ``fresh``; returns them and the played copy."""
    copy = work / f"cli-round-{os.getpid()}-{time.monotonic_ns()}.duckdb"
    shutil.copy(fresh, copy)
    return {name: run_cli(args, copy, pythonpath=pythonpath, cwd=cwd) for name, args in steps}, copy


def import_times(campaign: Path, *, pythonpath=None, cwd=None) -> dict[str, float]:
    """Cumulative import seconds (``-X importtime``) of ``bellica.cli`` and of everything ``round status``
    imports (the sum of the top-level entries after the interpreter's own ``site``)."""
    argv = [sys.executable, "-X", "importtime", "-c", CLI, "round", "status", str(campaign)]
    proc = subprocess.run(argv, env=_env(pythonpath), cwd=cwd, capture_output=True, text=True, check=True)
    top: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line[len("import time:"):].split("|")
        if not cumulative.strip().isdigit():
            continue  # the header line
        if not name.startswith(" " * 2):  # top level: no indentation beyond the one space
            top[name.strip()] = top.get(name.strip(), 0) + int(cumulative)
    total = sum(us for name, us in top.items() if name not in ("site", "encodings", "_frozen_importlib_external"))
    return {"bellica.cli": top.get("bellica.cli", 0) / 1e6, "round status (all imports)": total / 1e6}


def _final_state(campaign: Path) -> tuple:
    """What the round left: its events' kinds and the armies table (to check the CLI played the same round)."""
    from bellica.geo.spatialdb import offline_connect

    con = offline_connect(campaign, read_only=True)
    try:
        kinds = [k for (k,) in con.execute("SELECT kind FROM events ORDER BY seq").fetchall()]
        armies = con.execute("SELECT * FROM armies ORDER BY id").fetchall()
    finally:
        con.close()
    return kinds, armies


def _baseline_site(rev: str, work: Path) -> tuple[list[Path], Path, str] | None:
    """(PYTHONPATH, an empty folder to run in, label) of ``rev``'s wheel, or None where it cannot be built."""
    try:
        from benchmarks.run import _wheel_site

        label = subprocess.run(["git", "rev-parse", "--short", rev], cwd=Path(__file__).resolve().parents[1], check=True,
                               capture_output=True, text=True).stdout.strip()
        folder = work / f"baseline-{label}"
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        site, src = _wheel_site(label, folder)
        empty = folder / "run"
        empty.mkdir()
        return [site, src], empty, label
    except (subprocess.CalledProcessError, OSError, StopIteration, ImportError) as e:
        print(f"bench_cli: no baseline wheel for {rev} ({e}); the old figures are the issue's", file=sys.stderr)
        return None


def run(work_dir: Path, *, quick: bool = False, against: str | None = BASELINE_REV) -> list[dict]:
    work = Path(work_dir) / "bench-cli"
    work.mkdir(parents=True, exist_ok=True)
    rounds_n = 1 if quick else 3
    reps = 3 if quick else 7
    fresh = fresh_campaign(work)

    in_process = []
    in_process_steps: dict[str, list[float]] = {}
    script = None
    for i in range(rounds_n):
        copy = work / f"in-process-{i}.duckdb"
        shutil.copy(fresh, copy)
        script = play_in_process(copy)
        in_process.append(script["seconds"])
        for name, seconds in script["steps"].items():
            in_process_steps.setdefault(name, []).append(seconds)
    steps = cli_round(script["factions"], script["results"])

    baseline = _baseline_site(against, work) if against and against != "none" else None
    sides = {"new": (None, None)}
    if baseline is not None:
        sides["old"] = (baseline[0], baseline[1])
    _PYCACHE[:] = [work / "pycache"]
    for pythonpath, cwd in sides.values():  # fill the bytecode caches (module doc): not timed
        _times, warm_copy = cli_round_times(steps, fresh, work, pythonpath=pythonpath, cwd=cwd)
        run_cli(["round", "status", "{f}"], warm_copy, pythonpath=pythonpath, cwd=cwd)
        run_bare(warm_copy)
        warm_copy.unlink()
    step_times: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    round_totals: dict[str, list[float]] = {side: [] for side in sides}
    status: dict[str, list[float]] = {side: [] for side in sides}
    imports: dict[str, list[dict]] = {side: [] for side in sides}
    bare: list[float] = []
    played = None
    for _ in range(rounds_n):  # old and new in turn, so a change of load weighs on both
        for side, (pythonpath, cwd) in sides.items():
            times, played_copy = cli_round_times(steps, fresh, work, pythonpath=pythonpath, cwd=cwd)
            for name, seconds in times.items():
                step_times[side].setdefault(name, []).append(seconds)
            round_totals[side].append(sum(times.values()))
            if side == "new":
                played = _final_state(played_copy)
            status[side] += [run_cli(["round", "status", "{f}"], played_copy, pythonpath=pythonpath, cwd=cwd)
                             for _ in range(max(1, reps // rounds_n))]
            imports[side].append(import_times(played_copy, pythonpath=pythonpath, cwd=cwd))
            bare += [run_bare(played_copy) for _ in range(max(1, reps // rounds_n))]
            played_copy.unlink()

    warm = warm_times(steps, fresh, work, rounds_n, reps)
    in_process_copy = work / "in-process-0.duckdb"
    same = played == _final_state(in_process_copy)
    med = statistics.median
    bare_s = med(bare)
    load = os.getloadavg()[0]
    rows = [_row("cli: bare `python -c \"import duckdb; duckdb.connect(f).sql(...)\"` on the campaign", round(bare_s, 3), "s",
                 "", "", f"median of {len(bare)}; the floor of any command; 1-min load {load:.2f}")]
    for name, _args in steps:
        value = med(step_times["new"][name])
        note = (f"median of {rounds_n}; target within {STEP_TARGET:g}x of the bare one-liner; the step's own work "
                f"in process {med(in_process_steps[name]):.3f} s")
        if "old" in step_times:
            note += f"; commit {baseline[2]}: {med(step_times['old'][name]):.3f} s"
        rows.append(_row(f"cli: `bellica round {name}`", round(value, 3), "s", f"bare one-liner {bare_s:.3f} s",
                         round(value / bare_s, 2), note))
    value = med(status["new"])
    note = f"median of {len(status['new'])}; read-only"
    if "old" in status:
        note += f"; commit {baseline[2]}: {med(status['old']):.3f} s ({med(status['old']) / value:.1f}x this tree)"
    rows.append(_row("cli: `bellica round status` (read-only)", round(value, 3), "s", f"bare one-liner {bare_s:.3f} s",
                     round(value / bare_s, 2), note))
    cli_round_s, in_process_s = med(round_totals["new"]), med(in_process)
    rows.append(_row(f"cli: whole round through the CLI ({len(steps)} commands)", round(cli_round_s, 2), "s",
                     f"same round in one process {in_process_s:.2f} s", round(cli_round_s / in_process_s, 2),
                     f"median of {rounds_n}; target within {ROUND_TARGET:g}x; same events and armies as in-process: {same}"))
    if "old" in round_totals:
        old = med(round_totals["old"])
        rows.append(_row(f"cli: whole round through the CLI, this tree vs commit {baseline[2]}", round(cli_round_s, 2), "s",
                         f"commit {baseline[2]}: {old:.2f} s", round(cli_round_s / old, 2),
                         f"medians of {rounds_n} rounds each, the two trees in turn"))
    for key in ("bellica.cli", "round status (all imports)"):
        value = med(i[key] for i in imports["new"])
        old_note, ratio, base = "", "", ""
        if "old" in imports:
            old = med(i[key] for i in imports["old"])
            base, ratio = f"commit {baseline[2]}: {old * 1000:.0f} ms", round(value / old, 2)
        rows.append(_row(f"cli: import time, {key} (python -X importtime, cumulative)", round(value * 1000), "ms", base, ratio,
                         f"median of {rounds_n}{old_note}"))
    served = warm.get("served", "")
    for name, _args in steps:
        value = med(warm["steps"][name])
        own = med(in_process_steps[name])
        rows.append(_row(f"cli warm: `bellica round {name}` through the warm server", round(value, 3), "s",
                         f"bare one-liner {bare_s:.3f} s", round(value / bare_s, 2),
                         f"median of {rounds_n}; the console entry with `bellica warm start` running; "
                         f"plain process {med(step_times['new'][name]):.3f} s; the step's own work in process "
                         f"{own:.3f} s, so its floor is the one-liner plus that, {bare_s + own:.3f} s "
                         f"({value / (bare_s + own):.2f}x of it)"))
    value = med(warm["status"])
    rows.append(_row("cli warm: `bellica round status` through the warm server", round(value, 3), "s",
                     f"bare one-liner {bare_s:.3f} s", round(value / bare_s, 2),
                     f"median of {len(warm['status'])}; plain process {med(status['new']):.3f} s"))
    warm_round = med(warm["rounds"])
    warm_same = warm["state"] == _final_state(in_process_copy)
    rows.append(_row(f"cli warm: whole round through the warm server ({len(steps)} commands)", round(warm_round, 2), "s",
                     f"same round in one process {in_process_s:.2f} s", round(warm_round / in_process_s, 2),
                     f"median of {rounds_n}; plain processes {cli_round_s:.2f} s; same events and armies as in-process: "
                     f"{warm_same}; server: {served[:120]}"))
    return rows


if __name__ == "__main__":
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--against", default=BASELINE_REV, help="commit for the old figures ('none' to skip)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bellica-bench-cli-") as tmp:
        for r in run(Path(tmp), quick=args.quick, against=args.against):
            print(r)
