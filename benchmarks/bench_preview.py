"""`bellica serve`: the latency of ``POST /api/preview`` (a move plotted on the map, issue 21 item 1)
side by side with ``POST /api/check``, at res 5 (the demo campaign) and, unless ``--quick``, at
res 6 (the demo scenario on a res-6 map of its bbox, as benchmarks/bench_engine.py builds it).

A Roma army's move is plotted click by click, as the page does: each request previews the moves so
far plus the next legal clock (the first the previous answer offers), up to :data:`CLICKS` clicks;
the same strings go to ``/api/check`` (the whole form: every army of the faction).  Measured alone
(one client) and with 8 concurrent clients on a real uvicorn server on loopback; issue 21's target
is 100 ms per preview.
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
CLICKS = 6
CLIENTS = 8
TARGET_S = 0.100


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


def _campaigns(work: Path, quick: bool) -> dict[int, Path]:
    out = {}
    if DEMO.exists():
        out[5] = work / "preview5.duckdb"
        shutil.copyfile(DEMO, out[5])
    if not quick or not out:
        from benchmarks.bench_engine import build_campaigns

        built = build_campaigns(work)
        out.setdefault(5, built[5])
        if not quick:
            out[6] = built[6]
    return out


def _prepare(path: Path) -> tuple[str, list[int]]:
    """Initiative published, tokens issued: (a player's token, its live armies)."""
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, read_round

    with Campaign.open(path) as c:
        if read_round(c).stage == STAGE_INITIATIVE:
            rounds.publish_initiative(c)
        token = {i.name: i.token for i in issue_tokens(c)}
        live = read_round(c).live_armies()
    faction = "roma" if any(a.faction == "roma" for a in live) else live[-1].faction
    return token[faction], [a.id for a in live if a.faction == faction]


def _clicks(http, army: int) -> list[str]:
    """The move strings of a move plotted click by click (each the previous plus a legal clock)."""
    moves, out = "", []
    for _ in range(CLICKS):
        j = http.post("/api/preview", data={"army": army, "moves": moves}).json()
        nxt = [n["clock"] for n in j.get("next", []) if not n["refused"]]
        if not nxt:
            break
        moves = f"{moves} {nxt[0]}".strip()
        out.append(moves)
    return out or [""]


def _timed(url: str, token: str, armies: list[int], endpoint: str, strings: list[str], clients: int,
           repeat: int) -> list[float]:
    import httpx

    lat: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients)

    def client(i: int) -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
            barrier.wait()
            for k in range(repeat * len(strings)):
                moves = strings[k % len(strings)]
                data = ({"army": armies[0], "moves": moves} if endpoint == "/api/preview"
                        else {f"moves-{a}": (moves if a == armies[0] else "") for a in armies})
                t = time.perf_counter()
                r = http.post(endpoint, data=data)
                with lock:
                    lat.append(time.perf_counter() - t if r.status_code == 200 else float("inf"))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return lat


def run(work_dir: Path, *, quick: bool = False) -> list[dict]:
    import httpx

    from bellica.app.background import running
    from bellica.app.server import create_app

    work = Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for res, path in sorted(_campaigns(work, quick).items()):
        token, armies = _prepare(path)
        with running(create_app(path)) as url:
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=300) as http:
                strings = _clicks(http, armies[0])  # also warms the board, the names and the logistics
            for clients in (1, CLIENTS):
                for endpoint in ("/api/preview", "/api/check"):
                    lat = _timed(url, token, armies, endpoint, strings, clients, 2 if quick else 5)
                    p50, p95 = statistics.median(lat), statistics.quantiles(lat, n=20)[18]
                    note = (f"res {res}, army {armies[0]}, moves of 1-{len(strings)} clicks, {clients} client(s), "
                            f"{len(lat)} requests; p50 {p50 * 1000:.0f} ms")
                    rows.append(_row(f"app {endpoint} p95 latency, res {res}, {clients} client(s)", round(p95 * 1000),
                                     "ms", f"target {TARGET_S * 1000:g} ms", round(p95 / TARGET_S, 2), note))
    return rows


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-preview-") as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv):
            print(r)
