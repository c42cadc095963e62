"""Sealed orders through the CLI (docs/sealed-orders.md): who may read and submit what, before and after the reveal."""

from __future__ import annotations

import pytest

from tests.cli.test_round_cli import bellica
from tests.cli.test_hostile_input import at_war, unstarted  # noqa: F401  (fixtures: the field campaign, built once a run)

MOVES = '"3 3 5"'


def just_passed() -> str:
    """A deadline that has passed and is not before the campaign's start (a deadline may not be)."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def c(at_war):
    """The field campaign (tests/engine/test_rounds.py FIELD) after `round start` and `round publish`:
    a copy of the file tests/cli/test_hostile_input.py builds once a run."""
    return at_war


def views(capsys, c):
    """What each viewer reads of Roma's moves: show, log and log --json, per faction and the umpire."""
    out = {}
    for who in ("roma", "carthago", "syracusae", None):
        extra = ("--faction", who) if who else ()
        _, show, _ = bellica(capsys, "round", "show", c, *extra)
        _, log, _ = bellica(capsys, "log", c, "--json", *extra)
        out[who or "umpire"] = "3 3 5" in show or MOVES in log
    return out


def test_the_authorisation_matrix(c, capsys):
    code, _, err = bellica(capsys, "round", "orders", c, "9=3 3 5", "10=")
    assert code == 2 and "--faction F (its armies only) or --umpire" in err
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "carthago", "9=3 3 5")
    assert code in (1, 3) and "army 9 is not in carthago" in err
    code, out, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3 3 5", "10=")
    assert code == 0, err
    assert views(capsys, c) == {"roma": True, "carthago": False, "syracusae": False, "umpire": False}
    _, show, _ = bellica(capsys, "round", "show", c)
    assert "army   9 (roma): initiative strength, orders in from roma, sealed until the reveal" in show
    assert "army   1 (carthago): initiative strength\n" in show  # no orders yet
    _, log, _ = bellica(capsys, "log", c)
    assert "orders received for army 9 from roma, sealed until the reveal" in log
    _, status, _ = bellica(capsys, "round", "status", c)
    assert "orders in (sealed until the reveal) from roma armies 9, 10" in status and "3 3 5" not in status
    for query in ("SELECT moves FROM orders", "SELECT * FROM query_table('orders')", "SELECT count(*) FROM main.ORDERS"):
        code, _, err = bellica(capsys, "sql", c, query)
        assert code == 1 and "sealed orders" in err and "at the reveal" in err and "3 3 5" not in err, query
    for query in ("SELECT data FROM events", "SELECT * FROM query('SELECT * FROM events')"):
        code, out, err = bellica(capsys, "sql", c, query)  # the log as the umpire reads it: who, never what
        assert code == 0 and "3 3 5" not in out + err, query
    code, out, _ = bellica(capsys, "sql", c, "SELECT count(*) AS n FROM round_notes WHERE value LIKE '%3 3 5%'")
    assert code == 0 and out.splitlines()[2].strip() == "0"
    # Roma resubmits before the reveal; the umpire submits for carthago: the reveal.
    assert bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3 3 5", "10=")[0] == 0
    code, out, err = bellica(capsys, "round", "orders", c, "--umpire", "1=")
    assert code == 0 and "revealed to every faction and locked" in out, err
    assert views(capsys, c) == {"roma": True, "carthago": True, "syracusae": True, "umpire": True}
    code, out, _ = bellica(capsys, "sql", c, "SELECT moves FROM orders WHERE army = 9")
    assert code == 0 and "3 3 5" in out
    _, log, _ = bellica(capsys, "log", c)
    assert "orders received for army 1 from umpire" in log
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3")
    assert code == 1 and "orders were revealed" in err and len(err.strip().splitlines()) == 1
    assert bellica(capsys, "round", "move", c)[0] == 0


def test_deadline_and_reveal(c, capsys):
    assert bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3 3", "10=")[0] == 0
    code, _, err = bellica(capsys, "round", "deadline", c, "2025-06-01 18:00")
    assert code == 1 and "not in UTC" in err
    past = just_passed()
    assert bellica(capsys, "round", "deadline", c, past)[0] == 0
    _, status, _ = bellica(capsys, "round", "status", c)
    assert f"deadline: {past} (passed)" in status
    code, out, err = bellica(capsys, "round", "reveal", c)
    assert code == 0 and "army 1 (carthago) has no orders at the deadline: it stands still (default orders)" in out, err
    assert bellica(capsys, "round", "move", c)[0] == 0
    code, out, err = bellica(capsys, "round", "verify", c, "--readjudicate")
    assert code == 0, err


def test_commit_reveal_through_the_cli(unstarted, tmp_path, capsys):
    path = unstarted
    assert bellica(capsys, "round", "start", path, "--orders-mode", "commit-reveal")[0] == 0
    bellica(capsys, "round", "publish", path)
    roma = tmp_path / "roma.toml"
    roma.write_text('faction = "roma"\nround = 1\n\n[armies.9]\nmoves = "3 3 5"\n\n[armies.10]\nmoves = ""\n')
    carthago = tmp_path / "carthago.toml"
    carthago.write_text('faction = "carthago"\n[armies.1]\nmoves = "9 9"\n')
    code, digest, err = bellica(capsys, "round", "commitment", "--file", roma, "--secret", "s1")  # offline
    assert code == 0 and len(digest.strip()) == 64, err
    code, _, err = bellica(capsys, "round", "orders", path, "--file", roma)
    assert code == 1 and "commit-reveal mode" in err
    assert bellica(capsys, "round", "commit", path, "--faction", "roma", "--digest", digest.strip())[0] == 0
    raw = path.read_bytes()
    assert b"3 3 5" not in raw
    assert bellica(capsys, "round", "commit", path, "--faction", "carthago", "--file", carthago, "--secret", "s2")[0] == 0
    code, _, err = bellica(capsys, "round", "reveal-orders", path, "--faction", "roma", "--file", roma, "--secret", "wrong")
    assert code == 1 and "tampered" in err and len(err.strip().splitlines()) == 1
    assert bellica(capsys, "round", "reveal-orders", path, "--faction", "roma", "--file", roma, "--secret", "s1")[0] == 0
    code, out, _ = bellica(capsys, "round", "show", path, "--faction", "carthago")
    assert "3 3 5" in out  # revealed orders are public at once
    code, out, err = bellica(capsys, "round", "reveal-orders", path, "--faction", "carthago", "--file", carthago, "--secret", "s2")
    assert code == 0 and "locked" in out, err
    assert bellica(capsys, "round", "move", path)[0] == 0
    code, out, err = bellica(capsys, "round", "verify", path, "--readjudicate")
    assert code == 0, err


@pytest.mark.parametrize("when, words", [
    ("0001-01-01T00:00:00Z", "is before the campaign started"),
    ("0999-12-31T23:59:59Z", "is before the campaign started"),
    ("1970-01-01T00:00:00Z", "is before the campaign started"),
    ("9999-12-31T23:59:59Z", "is more than 10 years ahead"),
    ("2026-02-30T00:00:00Z", "is not an ISO-8601 time"),
])
def test_a_deadline_out_of_its_window_is_one_line_and_nothing_stored(c, capsys, when, words):
    code, _, err = bellica(capsys, "round", "deadline", c, when)
    assert code == 1 and err.startswith(f"error: deadline {when!r} {words}") and len(err.splitlines()) == 1, err
    assert "write it in UTC like" in err
    code, out, err = bellica(capsys, "round", "status", c)
    assert code == 0 and "deadline" not in out.split("next:")[0], err
    assert bellica(capsys, "round", "verify", c, "--readjudicate")[0] == 0


def test_a_deadline_an_older_version_stored_reads_and_replays(c, capsys):
    """Before the window, `round deadline C 0001-01-01T00:00:00Z` stored "1-01-01T00:00:00Z" (strftime's
    unpadded year), which status, orders, reveal, the app and re-adjudication then could not parse."""
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds

    with Campaign.open(c) as camp:
        rounds.set_deadline(camp, "1-01-01T00:00:00Z", recorded=True)  # as the log of that version holds it
    code, out, err = bellica(capsys, "round", "status", c)
    assert code == 0 and "deadline: 0001-01-01T00:00:00Z (passed)" in out, err
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3")
    assert code == 1 and "deadline 0001-01-01T00:00:00Z has passed" in err and len(err.splitlines()) == 1
    code, out, err = bellica(capsys, "round", "reveal", c)
    assert code == 0 and "revealed to every faction and locked" in out, err
    code, out, err = bellica(capsys, "round", "verify", c, "--readjudicate")
    assert code == 0 and "re-adjudicated" in out, err


def test_a_damaged_stored_deadline_is_one_line(c, capsys):
    import duckdb

    con = duckdb.connect(str(c))
    con.execute("INSERT OR REPLACE INTO campaign VALUES ('deadline', 'garbage'), ('deadline_round', '1')")
    con.close()
    code, _, err = bellica(capsys, "round", "status", c)
    assert code == 4 and err.splitlines()[-1] == (
        "error: the stored deadline 'garbage' is not a UTC time bellica writes: the campaign file was edited outside "
        "bellica; restore it from a copy (`bellica round verify` names the change)")
    assert "Traceback" not in err
