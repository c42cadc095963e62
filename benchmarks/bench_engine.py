"""Benchmarks of the umpire's engine on the First Punic War campaign (issue 4, "Performance").

(a) A full round of the 16 armies, from orders to administered state: initiative uses,
    publication, orders for every army, movement, the engagements' results,
    administration and the victory check, each step one transaction through
    :mod:`engine.vae_victis.rounds` exactly as ``bellica round ...`` runs them (the script of
    :mod:`bellica.demo`: a movement collision at Mylae, a battle, a siege of Gela, and at res 5
    the navies: two embarkations, a naval battle, a landing and a strait crossing).
    Every repeat plays on a fresh copy of the started campaign (copy and ``round
    start`` not timed) through a new Campaign, whose Board and logistics caches start
    empty, so the figure includes reading the Board once and building the in-memory
    logistics database once.
(b) The logistics query alone: :func:`bellica.engine.vae_victis.logistics.compute_logistics` on the
    campaign database (static link tables already built, as after ``round start``).

Both on the default res-5 map and on a res-6 map of the scenario's bbox (the scenario
copied with ``resolution = 6``).  Targets (the issue): 1 s a round, 100 ms the query;
the ratio column is value / target, and res 6 / res 5 for the res-6 rows.

``run(work_dir, quick=...)`` returns rows {name, value, unit, baseline, ratio, note}
for ``benchmarks/run.py``.  Run alone: ``python -m benchmarks.bench_engine [--quick]``.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from collections import deque
from pathlib import Path

from bellica.datasets import SCENARIOS_DIR

ROUND_TARGET_S = 1.0
QUERY_TARGET_S = 0.100
SCENARIO = SCENARIOS_DIR / "first-punic-war"


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


# --- building the campaigns (not timed) ---------------------------------------------------


def _res6_scenario(work: Path) -> Path:
    """A copy of the scenario folder with ``resolution = 6``."""
    folder = work / "first-punic-war-res6"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(SCENARIO, folder)
    toml = folder / "scenario.toml"
    text = toml.read_text()
    assert "resolution = 5" in text, "scenario.toml no longer says resolution = 5"
    toml.write_text(text.replace("resolution = 5", "resolution = 6", 1))
    return folder


def build_campaigns(work: Path) -> dict[int, Path]:
    """{res: started campaign file}: res 5 on the default map, res 6 on a map of the scenario bbox."""
    from bellica.etl.build import build_map
    from bellica.etl.campaign import create_campaign
    from bellica.etl.scenario import load_scenario

    out = {}
    map5 = work.parent / "med5.duckdb"  # benchmarks/run.py's default res-5 map, when it built one
    if not map5.exists():
        map5 = work / "bench-med5.duckdb"
        build_map(map5, res=5, progress=False, force=True)
    create_campaign(SCENARIO, work / "bench-fpw5.duckdb", map_path=map5, force=True)
    out[5] = work / "bench-fpw5.duckdb"
    scen6 = _res6_scenario(work)
    bbox = load_scenario(scen6).bbox
    map6 = work / "bench-fpw-bbox6.duckdb"
    build_map(map6, bbox=tuple(bbox), res=6, progress=False, force=True)
    create_campaign(scen6, work / "bench-fpw6.duckdb", map_path=map6, force=True)
    out[6] = work / "bench-fpw6.duckdb"
    for path in out.values():
        _start(path)
    return out


def _start(campaign: Path) -> None:
    """Placement of bellica.demo (army 7 in Tyndaris) and ``round start``."""
    from bellica.demo import DEMO_SEED, _place
    from bellica.engine.core.campaign import Campaign

    _place(campaign)
    with Campaign.open(campaign) as c:
        c.start(seed=DEMO_SEED)


# --- the round --------------------------------------------------------------------------


def _path_moves(board, start: str, goal: str) -> str:
    """Clock positions of a shortest path of passable land hexes from ``start`` to ``goal``."""
    from bellica.engine.vae_victis.orders import impassable_reason

    prev = {start: None}
    queue = deque([start])
    while queue:
        c = queue.popleft()
        if c == goal:
            break
        for clock, n in sorted(board.sides.get(c, {}).items()):
            if n not in prev and (n == goal or impassable_reason(board, n) is None):
                prev[n] = (c, clock)
                queue.append(n)
    if goal not in prev:
        return ""
    clocks = []
    c = goal
    while prev[c] is not None:
        c, clock = prev[c]
        clocks.append(clock)
    return " ".join(str(k) for k in reversed(clocks))


def round_script(campaign: Path) -> dict:
    """Initiative uses and moves for the round: bellica.demo's at res 5 (its clock positions are
    res-5 ones); at res 6 the same marches as shortest paths (7 and 14 on Mylae, 4 on Gela)."""
    from bellica import demo
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis.state import load_state

    with Campaign.open(campaign, read_only=True) as c:
        board = c.board
        s = load_state(c)
    moves = {f: dict(m) for f, m in demo.MOVES.items()}
    if board.res != 5:
        cell = {a.id: a.cell for a in s.armies}
        mylae, gela = board.structures["Mylae"].cell, board.structures["Gela"].cell
        moves = {
            "Carthago": {7: _path_moves(board, cell[7], mylae), 4: _path_moves(board, cell[4], gela)},
            "Roma": {14: _path_moves(board, cell[14], mylae)},
        }
    # At res 5 the round is the demo's, navies included (embarking, a naval battle, a debarkation, a
    # strait crossing); at res 6 the demo's res-5 clock strings mean nothing, so only the land marches.
    naval = board.res == 5
    return {"initiative": demo.INITIATIVE, "moves": moves, "factions": {a.id: a.faction for a in s.armies},
            "advances": demo.ADVANCES if naval else {}, "debarks": demo.DEBARKS if naval else {}}


def play_round(c, script: dict) -> int:
    """One round through engine.vae_victis.rounds on the Campaign ``c``; returns the number of events it logged."""
    from bellica.demo import DEMO_SEED, SIEGES, _demo_casualties
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.sieges import siege_refusal
    from bellica.engine.vae_victis.state import load_state

    events = 0
    for faction, uses in script["initiative"].items():
        events += len(rounds.submit_initiative(c, uses, faction=faction, source="the benchmark"))
    events += len(rounds.publish_initiative(c))
    for faction in sorted(script["initiative"]):
        orders = {
            army: ArmyOrders(army, moves=tuple(int(m) for m in script["moves"].get(faction, {}).get(army, "").split()))
            for army, f in sorted(script["factions"].items())
            if f == faction
        }
        events += len(rounds.submit_orders(c, orders, faction=faction, source="the benchmark"))
    events += len(rounds.run_movement(c))
    s = load_state(c)
    for number, _battle, army_a, army_b, _assault, _done in rounds.round_status(c).engagements:
        if army_b is None:
            events += len(rounds.record_result(c, number, {army_a: ("win", 20)}))
            continue
        winner = army_a if s.army(army_a).faction == "Roma" else army_b
        loser = army_b if winner == army_a else army_a
        won, lost = _demo_casualties(DEMO_SEED, s.round, number)
        events += len(rounds.record_result(c, number, {winner: ("win", won), loser: ("loss", lost)}))
    board = c.board
    sieges = {a: name for a, name in SIEGES.items() if not siege_refusal(board, s, a, name)}
    events += len(rounds.run_administration(c, rounds.AdminChoices(siege_starts=sieges, advances=script["advances"],
                                                                   debarks=script["debarks"])))
    events += len(rounds.run_victory(c))
    return events


def time_round(campaign: Path, work: Path, repeats: int) -> tuple[float, list[float], int]:
    from bellica.engine.core.campaign import Campaign

    script = round_script(campaign)
    times, n_events = [], 0
    for i in range(repeats):
        copy = work / f"round-{i}-{campaign.name}"
        shutil.copy(campaign, copy)
        with Campaign.open(copy) as c:  # a new Campaign: its Board and logistics start cold
            t = time.perf_counter()
            n_events = play_round(c, script)
            times.append(time.perf_counter() - t)
        copy.unlink()
    return statistics.median(times), times, n_events


def time_query(campaign: Path, repeats: int) -> tuple[float, int]:
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis.logistics import compute_logistics

    with Campaign.open(campaign) as c:
        board = c.board
        compute_logistics(c.con, board=board)  # warm: the static adjacency read once per Board
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            lg = compute_logistics(c.con, board=board)
            times.append(time.perf_counter() - t)
    return statistics.median(times), len(lg.lines)


def time_checkpoint(campaign: Path, work: Path, repeats: int) -> tuple[float, float]:
    """(a step left in the WAL, the CHECKPOINT the engine now runs after it): medians in seconds.

    The step is a one-row note appended in a plain transaction (no log check), on a copy of the
    started campaign; the checkpoint then writes it into the file (issue 23 item 6)."""
    from bellica.engine.core import state as st
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.core.events import Event

    copy = work / f"checkpoint-{campaign.name}"
    shutil.copy(campaign, copy)
    steps, checkpoints = [], []
    with Campaign.open(copy) as c:
        for i in range(repeats):
            t = time.perf_counter()
            with st.transaction(c.con):
                c.append([Event(1, "orders", "put_note", {"round": 1, "key": f"bench-{i}", "value": i})],
                         before=st.read_snapshot(c.con, c.ruleset.schema))
            steps.append(time.perf_counter() - t)
            t = time.perf_counter()
            c.con.execute("CHECKPOINT")
            checkpoints.append(time.perf_counter() - t)
    copy.unlink()
    return statistics.median(steps), statistics.median(checkpoints)


def run(work_dir: Path, *, quick: bool = False) -> list[dict]:
    work = Path(work_dir) / "bench-engine"
    work.mkdir(parents=True, exist_ok=True)
    repeats = 2 if quick else 5
    campaigns = build_campaigns(work)
    from bellica.geo.spatialdb import connect

    rows = []
    found = {}
    for res, path in sorted(campaigns.items()):
        con = connect(path, read_only=True)
        try:
            hexes = con.execute("SELECT count(*) FROM hexes").fetchone()[0]
        finally:
            con.close()
        round_s, all_round, n_events = time_round(path, work, repeats)
        query_s, n_lines = time_query(path, repeats)
        found[res] = (round_s, query_s)
        note = f"median of {repeats}; {hexes} hexes"
        rows.append(_row(f"engine: full round of 16 armies, res {res} (orders to administered state)", round(round_s, 3), "s",
                         f"target {ROUND_TARGET_S:g} s", round(round_s / ROUND_TARGET_S, 2),
                         f"{note}; {n_events} events; runs {', '.join(f'{t:.2f}' for t in all_round)} s; cold caches"))
        rows.append(_row(f"engine: logistics query alone (compute_logistics), res {res}", round(query_s * 1000, 1), "ms",
                         f"target {QUERY_TARGET_S * 1000:g} ms", round(query_s / QUERY_TARGET_S, 2),
                         f"{note}; {n_lines} line links"))
    step_s, checkpoint_s = time_checkpoint(campaigns[min(campaigns)], work, 3 * repeats)
    rows.append(_row("engine: checkpoint after a step vs the step itself (left in the WAL)", round(checkpoint_s * 1000, 1),
                     "ms", f"the step: {step_s * 1000:.1f} ms", round(checkpoint_s / step_s, 2),
                     f"median of {3 * repeats}; res {min(campaigns)}; a one-row step, so the ratio is the worst case"))
    if 5 in found and 6 in found:
        rows.append(_row("engine: full round, res 6 vs res 5", round(found[6][0], 3), "s", "res 5 round above",
                         round(found[6][0] / found[5][0], 2), "same script, ~7x the hexes"))
        rows.append(_row("engine: logistics query, res 6 vs res 5", round(found[6][1] * 1000, 1), "ms", "res 5 query above",
                         round(found[6][1] / found[5][1], 2), ""))
    return rows


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bellica-bench-engine-") as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv[1:]):
            print(r)
