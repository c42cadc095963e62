"""kill -9 in the middle of a CLI step leaves the last completed step intact, and the step then reruns.

The step is run as a real `bellica` process with the test hook
``BELLICA_TEST_PAUSE_IN_TRANSACTION`` (engine/core/state.py): once the step has written
all its rows, but before COMMIT, the process touches the marker file and sleeps;
the test then sends SIGKILL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from bellica.engine.core import state as st
from bellica.engine.core.campaign import Campaign
from bellica.engine.vae_victis.state import load_state
from tests.engine.test_rounds import STRUCTURES, WATER
from tests.engine.test_state import make_campaign
from tests.engine.boards import sketch

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL semantics")


def _campaign(tmp_path):
    path = tmp_path / "c.duckdb"
    m = sketch(radius=4, structures=STRUCTURES, water=WATER)
    c, _ = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), m=m)
    c.close()
    return path


def _bellica(*args, env=None, check=True):
    return subprocess.run(
        [sys.executable, "-m", "bellica.cli", *map(str, args)], env=env, capture_output=True, text=True, check=check, timeout=300
    )


def _kill_mid_step(tmp_path, *args) -> None:
    """Run `bellica *args`, wait until it is inside its transaction with everything written, kill -9 it."""
    marker = tmp_path / "inside-transaction"
    env = {**os.environ, st.PAUSE_ENV: str(marker)}
    proc = subprocess.Popen([sys.executable, "-m", "bellica.cli", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while not marker.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"step ended before reaching the hook (exit {proc.returncode}): {out} {err}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("step never reached the hook")
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    marker.unlink()


def _snapshot(path):
    c = Campaign.open(path, read_only=True)
    try:
        return c.snapshot(), c.con.execute("SELECT count(*) FROM events").fetchone()[0]
    finally:
        c.close()


def test_kill_during_start_leaves_no_campaign_and_start_reruns(tmp_path):
    path = _campaign(tmp_path)
    _kill_mid_step(tmp_path, "round", "start", path, "--seed", "3")
    c = Campaign.open(path, read_only=True)
    assert not c.has_state()
    c.close()
    _bellica("round", "start", path, "--seed", "3")
    c = Campaign.open(path, read_only=True)
    c.verify()
    assert load_state(c).seed == 3
    c.close()


def test_kill_during_a_step_keeps_the_previous_step_and_the_step_reruns(tmp_path):
    path = _campaign(tmp_path)
    _bellica("round", "start", path)
    _bellica("round", "initiative", path, "--faction", "roma", "9=Mare Tyrrhenum")
    before, n_before = _snapshot(path)

    _kill_mid_step(tmp_path, "round", "publish", path)

    after, n_after = _snapshot(path)
    assert after == before and n_after == n_before  # nothing of the killed step survived
    c = Campaign.open(path, read_only=True)
    c.verify()
    c.close()

    done = _bellica("round", "publish", path)
    assert "naval superiority in Mare Tyrrhenum: carthago 1, roma 3, syracusae 1" in done.stdout
    c = Campaign.open(path, read_only=True)
    c.verify()
    assert c.snapshot().campaign("stage") == "moves"
    c.close()


def test_kill_during_movement_then_movement_reruns_to_the_same_result(tmp_path):
    from tests.engine.test_rounds import FIELD

    path = tmp_path / "field.duckdb"
    m = sketch(radius=4, structures=FIELD, water=WATER)
    c, _ = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), m=m)
    c.close()
    _bellica("round", "start", path)
    _bellica("round", "publish", path)
    _bellica("round", "orders", path, "--faction", "roma", "9=3 3", "10=")
    _bellica("round", "orders", path, "--faction", "carthago", "1=9 9")
    before, n_before = _snapshot(path)

    _kill_mid_step(tmp_path, "round", "move", path)

    after, n_after = _snapshot(path)
    assert after == before and n_after == n_before
    assert after.campaign("phase") == "orders"
    done = _bellica("round", "move", path)
    assert "engagement 1" in done.stdout
    c = Campaign.open(path, read_only=True)
    c.verify()
    assert c.snapshot().campaign("phase") == "battles"
    c.close()


def test_a_second_command_during_a_step_is_told_to_wait(tmp_path):
    path = _campaign(tmp_path)
    _bellica("round", "start", path)
    marker = tmp_path / "inside-transaction"
    env = {**os.environ, st.PAUSE_ENV: str(marker)}
    proc = subprocess.Popen([sys.executable, "-m", "bellica.cli", "round", "publish", str(path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists()
        other = _bellica("round", "status", path, check=False)
        assert other.returncode == 1
        # The lock's holder is named (issue 8: not "a step running?" whatever holds it).
        assert f"is in use by another bellica command, PID {proc.pid} (`bellica round publish" in other.stderr
        assert "wait for it to finish" in other.stderr
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def test_kill_while_a_step_seals_an_old_log_leaves_it_unsealed_and_the_step_reruns(tmp_path):
    # A campaign file written before the hash chain: its first step adds the chain (columns,
    # hashes, a `log_sealed` event) in the step's own transaction, so a kill loses both together.
    path = _campaign(tmp_path)
    _bellica("round", "start", path)
    con = Campaign.open(path).con
    con.execute("ALTER TABLE events DROP COLUMN hash")
    con.execute("ALTER TABLE events DROP COLUMN state_hash")
    con.close()
    before, n_before = _snapshot(path)

    _kill_mid_step(tmp_path, "round", "publish", path)

    after, n_after = _snapshot(path)
    assert after == before and n_after == n_before
    c = Campaign.open(path, read_only=True)
    assert not st.has_chain(c.con)
    c.verify()
    c.close()
    _bellica("round", "publish", path)
    c = Campaign.open(path, read_only=True)
    c.verify()
    assert st.has_chain(c.con) and [e.kind for e in c.events()].count(st.SEAL_KIND) == 1
    assert c.snapshot().campaign("stage") == "moves"
    c.close()
