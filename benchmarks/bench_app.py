"""`bellica serve` on loopback: request throughput and p95 latency of ``POST /api/check`` and ``POST /orders``.

The demo campaign (``make demo``; else one built like it, as benchmarks/bench_maps.py does) is
copied, its initiative published and its tokens issued; then 8, then 50 concurrent clients (:data:`CLIENTS`)
(threads with httpx) post one Roma army's stand-still orders each, over a real uvicorn server on a
free loopback port.  Carthago never submits, so no reveal locks the round.  The app serialises its
requests on the campaign file (held open between requests), so throughput is the per-request cost
and p95 grows with the number of clients waiting: about the clients times the time one request
holds the file.  Each load row's note gives the process's CPU time per request (server and client
threads together), and ``uptime``'s load: on a machine other work loads, p95 measures the load too.

Two rows then measure, on the campaign the load left (its log grown by every order posted), the two
costs of a step issue 23 item 9 cut, each beside the way it was done before, in turn in the same
run: the check before a step writes, by a campaign kept open (only the events since its last check
are hashed: :func:`engine.core.state.check_log_from`) against the whole chain's; and a step's commit
into the file itself (DuckDB checkpointing at the COMMIT, no WAL) against a WAL commit followed by
``CHECKPOINT``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "build" / "first-punic-war.duckdb"
#: The numbers of concurrent clients measured: a table's players, and issue 23's 50 (p95 target 1 s).
CLIENTS = (8, 50)
P95_TARGET_S = 1.0


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


def _campaign(work: Path) -> Path:
    src = DEMO
    if not src.exists():
        from benchmarks.bench_engine import build_campaigns

        src = build_campaigns(work)[5]
    out = work / "bench-app.duckdb"
    shutil.copyfile(src, out)
    return out


def _load(url: str, token: str, armies: list[int], endpoint: str, per_client: int,
          clients: int) -> tuple[list[float], float, int]:
    import httpx

    latencies: list[float] = []
    bad = [0]
    lock = threading.Lock()
    barrier = threading.Barrier(clients)

    def client(i: int) -> None:
        army = armies[i % len(armies)]
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
                          timeout=300) as http:
            barrier.wait()
            for k in range(per_client):
                t = time.perf_counter()
                r = http.post(endpoint, data={f"moves-{army}": " ".join(["0"] * (k % 3))})
                with lock:
                    latencies.append(time.perf_counter() - t)
                    bad[0] += r.status_code != 200

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, time.perf_counter() - t0, bad[0]


def run(work_dir: Path, *, quick: bool = False) -> list[dict]:
    from bellica.app.background import running
    from bellica.app.server import create_app
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, read_round

    work = Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    path = _campaign(work)
    with Campaign.open(path) as c:
        if read_round(c).stage == STAGE_INITIATIVE:
            rounds.publish_initiative(c)
        token = {i.name: i.token for i in issue_tokens(c)}
        live = read_round(c).live_armies()
    faction = live[-1].faction  # one faction submits; the other's armies keep the round open
    armies = [a.id for a in live if a.faction == faction]
    per_client = 3 if quick else 10
    rows = []
    with running(create_app(path)) as url:
        for clients in CLIENTS:
            for endpoint in ("/api/check", "/orders"):
                cpu, load = time.process_time(), os.getloadavg()[0]
                lat, wall, bad = _load(url, token[faction], armies, endpoint, per_client, clients)
                n = len(lat)
                cpu = (time.process_time() - cpu) / n
                note = (f"{clients} concurrent clients, {n} requests, demo campaign, {cpu * 1000:.1f} ms CPU a request, "
                        f"load {load:.1f}" + (f", {bad} not 200" if bad else ""))
                p95 = statistics.quantiles(lat, n=20)[18]
                rows.append(_row(f"app {endpoint} throughput, {clients} clients", round(n / wall, 1), "req/s", note=note))
                rows.append(_row(f"app {endpoint} p95 latency, {clients} clients", round(p95 * 1000), "ms",
                                 f"target {P95_TARGET_S * 1000:g} ms", round(p95 / P95_TARGET_S, 2), note))
    rows += step_cost_rows(path, repeat=5 if quick else 20)
    return rows


def step_cost_rows(path: Path, *, repeat: int) -> list[dict]:
    """The check before a step and a step's commit, each beside the way it was done before (issue 23
    item 9), alternated ``repeat`` times on the campaign at ``path``; medians."""
    from bellica.engine.core import state as st
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.core.events import Event

    def timed(fn, clock=time.perf_counter) -> float:
        t = clock()
        fn()
        return clock() - t

    with Campaign.open(path) as c:
        schema = c.ruleset.schema
        statements = st.Statements(c.con)  # prepared once, as a Campaign kept open has them
        events = c.con.execute("SELECT count(*) FROM events").fetchone()[0]

        def check(mark):
            with st.transaction(c.con):
                st.check_log_from(c.con, schema, mark, statements=statements)

        _, mark = st.check_log_from(c.con, schema, None)
        kept, whole = [], []
        for _ in range(repeat):
            # CPU time: the check reads and hashes, and the machine's other work weighs less on it.
            kept.append(timed(lambda: check(mark), time.process_time))
            whole.append(timed(lambda: check(None), time.process_time))
        kept_s, whole_s = statistics.median(kept), statistics.median(whole)

        def commit(at_commit: bool, k: int):
            # One event (a note) appended, as a step's last; the file then holds it, both ways.
            with st.transaction(c.con, checkpoint=at_commit):
                st.append_events(c.con, schema, [Event(1, "orders", "put_note", {"round": 1, "key": "bench", "value": k})])
            c.con.execute("CHECKPOINT")

        into, wal = [], []
        for k in range(repeat):
            into.append(timed(lambda: commit(True, k)))
            wal.append(timed(lambda: commit(False, k)))
        into_s, wal_s = statistics.median(into), statistics.median(wal)
    load = os.getloadavg()[0]
    return [
        _row("check before a step, campaign kept open (events since its last check)", round(kept_s * 1000, 2), "ms",
             f"whole chain: {whole_s * 1000:.2f} ms", round(kept_s / whole_s, 2),
             f"CPU time; a log of {events} events, as the load left it; medians of {repeat}, in turn; load {load:.1f}"),
        _row("step commit into the file (checkpoint at COMMIT, no WAL)", round(into_s * 1000, 2), "ms",
             f"WAL COMMIT + CHECKPOINT: {wal_s * 1000:.2f} ms", round(into_s / wal_s, 2),
             f"wall time (fsyncs: 2 a step, against 4 and a WAL file made and removed); one event appended and "
             f"the tables rewritten as a step does; medians of {repeat}, in turn; load {load:.1f}"),
    ]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv):
            print(r)
