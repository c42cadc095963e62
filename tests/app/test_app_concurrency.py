"""One slow request never holds up another (issue 23, item 2): a player's page loads while the
umpire's console query runs, and `bellica serve` stops promptly on SIGTERM in the middle of one."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings

import httpx

warnings.filterwarnings("ignore", message=".*httpx2.*")

from bellica.app.background import running  # noqa: E402
from bellica.app.server import create_app  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402

#: A query that runs until the console's 30 s limit stops it (a recursive CTE counts one row a step).
ENDLESS = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000000) SELECT count(*) FROM r"


def test_a_page_loads_while_a_console_query_runs(tmp_path, monkeypatch):
    import bellica.engine.core.console as console

    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    started, finish = threading.Event(), threading.Event()
    real = console.run_checked

    def slow(*args, **kwargs):  # a query that takes as long as the test says
        started.set()
        finish.wait(30)
        return real(*args, **kwargs)
    monkeypatch.setattr(console, "run_checked", slow)
    answers: list[httpx.Response] = []
    with running(create_app(path)) as url:
        umpire = {"Authorization": f"Bearer {tokens['umpire']}", "Accept": "application/json"}
        query = threading.Thread(target=lambda: answers.append(
            httpx.post(f"{url}/umpire/sql", data={"query": "SELECT 42 AS n"}, headers=umpire, timeout=60)))
        query.start()
        assert started.wait(30)
        took = []
        for who in ("roma", "carthago", "umpire"):
            t = time.perf_counter()
            r = httpx.get(f"{url}/", headers={"Authorization": f"Bearer {tokens[who]}"}, timeout=60)
            took.append(time.perf_counter() - t)
            assert r.status_code == 200, (who, r.text[:300])
        finish.set()
        query.join(60)
    assert answers and answers[0].status_code == 200 and answers[0].json() == [[{"n": 42}]]
    assert max(took) < 1.0, took
    print(f"\npage loads while a console query ran: {', '.join(f'{t * 1000:.0f} ms' for t in took)}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_stops_on_sigterm_during_a_slow_query(tmp_path):
    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    port = _free_port()
    env = {**os.environ, "BELLICA_WARM": "0"}
    server = subprocess.Popen([sys.executable, "-m", "bellica.cli", "serve", str(path), "--port", str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.communicate()
                time.sleep(0.2)
        answers: list = []

        def ask():
            try:
                answers.append(httpx.post(f"{url}/umpire/sql", data={"query": ENDLESS}, timeout=60,
                                          headers={"Authorization": f"Bearer {tokens['umpire']}"}).status_code)
            except httpx.TransportError as err:
                answers.append(type(err).__name__)
        query = threading.Thread(target=ask)
        query.start()
        time.sleep(3)  # the query is running (its database built, the recursion under way)
        t = time.perf_counter()
        server.send_signal(signal.SIGTERM)
        server.wait(60)
        took = time.perf_counter() - t
        query.join(60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    out, err = server.communicate()
    assert took < 5.0, (took, err)
    assert server.returncode in (0, -signal.SIGTERM), (server.returncode, err)
    assert "Traceback" not in err, err
    print(f"\nSIGTERM to exit: {took:.2f} s; the query's answer: {answers}")


# --- the campaign's lock is handed over in turn (issue 23 item 9: p95 under 50 clients) -------------


def test_the_campaign_lock_is_handed_to_its_waiters_in_the_order_they_came():
    """threading.RLock let a thread asking at the moment of release overtake those waiting: under 50
    clients some requests waited many turns (p95 1.6-1.8 times the mean).  The app's lock hands over
    in turn, and it is re-entrant and honours a timeout as RLock does."""
    from pathlib import Path

    from bellica.app.handover import HandOverLock
    from bellica.app.server import CampaignAccess

    lock = HandOverLock()
    order: list[int] = []
    lock.acquire()
    threads = []
    for i in range(8):
        t = threading.Thread(target=lambda i=i: (lock.acquire(), order.append(i), lock.release()))
        t.start()
        threads.append(t)
        while len(lock._waiters) < i + 1:  # each one waiting before the next asks
            time.sleep(0.001)
    lock.release()
    for t in threads:
        t.join(5)
    assert order == list(range(8))

    with lock:  # re-entrant
        with lock:
            assert lock._count == 2
    assert lock._owner is None

    held = threading.Event()
    done = threading.Event()

    def holder():
        with lock:
            held.set()
            done.wait(5)
    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    t0 = time.monotonic()
    assert lock.acquire(timeout=0.05) is False and time.monotonic() - t0 >= 0.05
    assert lock.acquire(blocking=False) is False
    assert not lock._waiters  # a waiter that gave up leaves the queue
    done.set()
    t.join(5)
    assert lock.acquire(timeout=1) is True
    lock.release()
    try:
        lock.release()
    except RuntimeError:
        pass
    else:
        raise AssertionError("releasing a lock this thread does not hold must fail")
    assert isinstance(CampaignAccess(Path("unopened.duckdb")).lock, HandOverLock)  # the app's lock is this one
