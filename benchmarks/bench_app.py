"""`bellica serve` on loopback: request throughput and p95 latency of ``POST /api/check`` and ``POST /orders``.

The demo campaign (``make demo``; else one built like it, as benchmarks/bench_maps.py does) is
copied, its initiative published and its tokens issued; then 8, then 50 concurrent clients (:data:`CLIENTS`)
(threads with httpx) post one Roma army's stand-still orders each, over a real uvicorn server on a
free loopback port.  Carthago never submits, so no reveal locks the round.  The app serialises its
requests on the campaign file (one opening per request), so throughput is the per-request cost
and p95 grows with the number of clients waiting.
"""

from __future__ import annotations

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
                lat, wall, bad = _load(url, token[faction], armies, endpoint, per_client, clients)
                n = len(lat)
                note = f"{clients} concurrent clients, {n} requests, demo campaign" + (f", {bad} not 200" if bad else "")
                p95 = statistics.quantiles(lat, n=20)[18]
                rows.append(_row(f"app {endpoint} throughput, {clients} clients", round(n / wall, 1), "req/s", note=note))
                rows.append(_row(f"app {endpoint} p95 latency, {clients} clients", round(p95 * 1000), "ms",
                                 f"target {P95_TARGET_S * 1000:g} ms", round(p95 / P95_TARGET_S, 2), note))
    return rows


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv):
            print(r)
