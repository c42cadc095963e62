"""A bounded load test on loopback: 50 concurrent players submit and resubmit through a real uvicorn
server; no order is lost or duplicated, and the p95 latency is printed (no timing assertion)."""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections import Counter

import httpx

from bellica.app.background import running
from bellica.app.server import create_app
from tests.app.fixtures import field_campaign

CLIENTS = 50
ROUNDS = 2  # submissions per client, each after a check (about 30 s on 2 cores: the app serialises requests)
#: Roma's six armies and three of carthago's four; carthago's army 4 never gets orders, so no reveal locks the round.
#: One army per faction per starting point (the scenario rule): a town for each.
STRUCTURES = [("Roma", "city", "", "roma", True), ("Ostia", "town", "9 9", "roma"), ("Antium", "town", "7 7", "roma"),
              ("Tibur", "town", "11 11", "roma"), ("Veii", "town", "11", "roma"), ("Alba", "town", "7", "roma"),
              ("Capua", "city", "3 3 3 3", "carthago", True), ("Nola", "town", "3 3 1", "carthago"),
              ("Cales", "town", "5 5", "carthago"), ("Teanum", "town", "1 1 1", "carthago")]
PLACEMENTS = tuple(zip(range(9, 15), ["roma"] * 6, ["Roma", "Ostia", "Antium", "Tibur", "Veii", "Alba"])) + tuple(
    zip(range(1, 5), ["carthago"] * 4, ["Capua", "Nola", "Cales", "Teanum"]))
LOADED = [9, 10, 11, 12, 13, 14, 1, 2, 3]


def test_fifty_players_submitting_at_once(tmp_path):
    from bellica.engine.core.campaign import Campaign

    path = tmp_path / "load.duckdb"
    tokens = field_campaign(path, placements=PLACEMENTS, structures=STRUCTURES)
    faction = {a: f for a, f, _ in PLACEMENTS}
    accepted: list[tuple[int, str]] = []
    failures: list[str] = []
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def player(i: int, url: str) -> None:
        army = LOADED[i % len(LOADED)]
        rnd = random.Random(i)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {tokens[faction[army]]}",
                                                 "Accept": "application/json"}, timeout=120) as http:
            start.wait()
            for _ in range(ROUNDS):
                moves = " ".join(["0"] * rnd.randint(0, 4))
                for endpoint in ("/api/check", "/orders"):
                    t = time.perf_counter()
                    r = http.post(endpoint, data={f"moves-{army}": moves})
                    with lock:
                        latencies.append(time.perf_counter() - t)
                        if r.status_code != 200 or (endpoint == "/api/check" and not r.json()["ok"]):
                            failures.append(f"{endpoint} {army} {moves!r}: {r.status_code} {r.text[:200]}")
                        elif endpoint == "/orders":
                            assert r.json() == {"stored": [army], "revealed": False}
                            accepted.append((army, moves))

    t0 = time.perf_counter()
    with running(create_app(path)) as url:
        threads = [threading.Thread(target=player, args=(i, url)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    wall = time.perf_counter() - t0
    assert failures == []
    assert len(accepted) == CLIENTS * ROUNDS
    with Campaign.open(path, read_only=True) as c:
        logged = [(int(ev.data["army"]), ev.data["moves"]) for ev in c.events(round=1)
                  if ev.kind == "put_orders" and ev.data.get("source") == "orders"]
        stored = dict(c.con.execute("SELECT army, moves FROM orders WHERE round = 1 AND moves IS NOT NULL").fetchall())
        by = {ev.data["submitted_by"] for ev in c.events(round=1) if ev.kind == "put_orders" and ev.data.get("source") == "orders"}
    assert Counter(logged) == Counter(accepted)  # every submission logged once, none lost, none duplicated
    last = {}
    for army, moves in logged:
        last[army] = moves
    assert stored == last and set(stored) == set(LOADED)  # the stored orders are each army's last submission
    assert by == {"token:roma", "token:carthago"}
    p95 = statistics.quantiles(latencies, n=20)[18]
    print(f"\nload: {CLIENTS} clients, {len(latencies)} requests in {wall:.1f} s "
          f"({len(latencies) / wall:.1f} req/s), p50 {statistics.median(latencies) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms")
