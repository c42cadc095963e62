"""Truly sealed, simultaneous orders (docs/sealed-orders.md): the reveal, the deadline, commit-reveal."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.state import ReplayMismatch
from bellica.engine.core.sealed import log_view
from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.model import ArmyOrders
from bellica.engine.vae_victis.rounds import reveal as rv
from bellica.geo.errors import InputError
from tests.engine.test_rounds import FIELD, started

from tests.cli.test_sealed_cli import just_passed

#: A deadline may not be set before the campaign's start nor more than ten years ahead.
FUTURE = "2035-01-01T00:00:00Z"


def at_war(path):
    c, m = started(structures=FIELD, path=path)
    rounds.publish_initiative(c)
    return c


def test_reveal_at_the_last_submission_seals_even_the_umpire(tmp_path):
    c = at_war(tmp_path / "c.duckdb")
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10)}, faction="roma")
    umpire = {a: o for a, _f, o in rounds.orders_view(c)}
    assert umpire[9] == ArmyOrders(9)  # the published use only, no moves
    assert rounds.order_submitters(c) == {9: "roma", 10: "roma"}
    sealed = [l for l in log_view(c) if l.event.kind == "put_orders" and l.event.data.get("moves") is not None]
    assert sealed and all(l.sealed for l in sealed)
    assert sealed[0].text == "orders received for army 9 from roma, sealed until the reveal"
    assert "3 3" not in json.dumps([l.data for l in log_view(c)])
    assert not [l for l in log_view(c, viewer="roma") if l.sealed]  # a faction reads its own
    events = rounds.submit_orders(c, {1: ArmyOrders(1, moves=(9,))}, faction="carthago", submitted_by="token:hanno")
    assert [e.kind for e in events][-2:] == ["orders_revealed", "put_note"]
    assert not [l for l in log_view(c) if l.sealed]
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}[9].moves == (3, 3)
    with pytest.raises(InputError, match="orders were revealed; no order of the round changes"):
        rounds.submit_orders(c, {9: ArmyOrders(9)}, faction="roma")
    assert rounds.order_submitters(c)[1] == "token:hanno"


def test_deadline_then_reveal_makes_missing_armies_stand_still(tmp_path):
    path = tmp_path / "c.duckdb"
    c = at_war(path)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,))}, faction="roma")
    with pytest.raises(InputError, match="has no deadline"):
        rounds.reveal_round(c)
    rounds.set_deadline(c, FUTURE)
    assert rounds.round_status(c).deadline == FUTURE
    with pytest.raises(InputError, match="has not passed"):
        rounds.reveal_round(c)
    with pytest.raises(rounds.StepRefused, match="missing orders"):
        rounds.run_movement(c)
    rounds.set_deadline(c, just_passed())
    events = rounds.reveal_round(c)
    defaults = [e for e in events if e.kind == "put_orders"]
    assert sorted(e.data["army"] for e in defaults) == [1, 10]
    assert all("stands still (default orders)" in e.text and e.data["moves"] == "" for e in defaults)
    assert rounds.round_status(c).revealed
    with pytest.raises(InputError, match="already revealed"):
        rounds.reveal_round(c)
    rounds.run_movement(c)
    c.close()
    assert readjudicate(path) > 0


def test_bad_deadlines_are_refused():
    with pytest.raises(InputError, match="not in UTC"):
        rv.parse_deadline("2025-06-01T18:00:00")
    with pytest.raises(InputError, match="not an ISO-8601 time"):
        rv.parse_deadline("tomorrow")
    assert rv.parse_deadline("2025-06-01T20:00:00+00:00") == "2025-06-01T20:00:00Z"
    with pytest.raises(InputError, match="before the campaign started"):
        rv.parse_deadline("2025-06-01T20:00:00Z", earliest=datetime(2025, 6, 2, tzinfo=timezone.utc))
    now = datetime(2026, 2, 28, 12, tzinfo=timezone.utc)
    assert rv.parse_deadline("2036-02-28T12:00:00Z", now=now) == "2036-02-28T12:00:00Z"
    with pytest.raises(InputError, match="more than 10 years ahead"):
        rv.parse_deadline("2036-02-28T12:00:01Z", now=now)


def test_stored_deadlines_of_every_version_read():
    assert rv.read_deadline("1-01-01T00:00:00Z") == datetime(1, 1, 1, tzinfo=timezone.utc)
    assert rv.read_deadline("999-12-31T23:59:59Z") == datetime(999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
    assert rv.read_deadline("2025-06-01T18:00:00Z") == datetime(2025, 6, 1, 18, tzinfo=timezone.utc)
    assert rv.format_deadline(datetime(1, 1, 1, tzinfo=timezone.utc)) == "0001-01-01T00:00:00Z"
    for bad in ("garbage", "2025-06-01T18:00:00", "2025-13-01T00:00:00Z", ""):
        with pytest.raises(ReplayMismatch, match="is not a UTC time bellica writes"):
            rv.read_deadline(bad)


ROMA = {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10)}
CARTHAGO = {1: ArmyOrders(1, moves=(9, 9))}


def commit_reveal(path):
    c = at_war(path)
    rounds.set_orders_mode(c, rounds.COMMIT_REVEAL)
    return c


def test_the_pages_check_refuses_what_a_submission_refuses_in_the_pages_words(tmp_path):
    """order_form.check_given (the check behind a player's page) refuses plain orders as
    submit_orders does, with the fix a page can give (no command line on a page)."""
    from bellica.engine.vae_victis.order_form import check_given

    c = commit_reveal(tmp_path / "c.duckdb")
    problems = check_given(c, "roma", "roma", ROMA, [], "the orders form", [])
    assert [p.message for p in problems] == [
        "this campaign takes orders in commit-reveal mode: commit the digest of your orders file "
        "and reveal it later (the forms on your page)"]
    with pytest.raises(InputError, match="commit their digest with `bellica round commit`, then reveal"):
        rounds.submit_orders(c, ROMA, faction="roma")
    rounds.set_orders_mode(c, rounds.SEALED)
    problems = check_given(c, "roma", "roma", ROMA, [], "the orders form", [], round_=2)
    assert [p.message for p in problems] == [
        "the orders form is for round 2 but the campaign is in round 1: fix its `round`"]


def test_commit_reveal_holds_only_digests_until_the_reveal(tmp_path):
    path = tmp_path / "c.duckdb"
    c = commit_reveal(path)
    with pytest.raises(InputError, match="commit-reveal mode"):
        rounds.submit_orders(c, ROMA, faction="roma")
    rounds.commit_orders(c, "roma", rounds.orders_commitment(ROMA, "r-secret"))
    # Nothing anywhere in the file holds the move string before the reveal.
    for (table,) in c.con.execute("SELECT table_name FROM duckdb_tables()").fetchall():
        text = json.dumps(c.con.execute(f'SELECT * FROM "{table}"').fetchall(), default=str)
        assert "3 3" not in text and "[3, 3]" not in text, table
    with pytest.raises(InputError, match="reveal window opens when every faction has committed"):
        rounds.reveal_orders(c, "roma", ROMA, "r-secret")
    rounds.commit_orders(c, "carthago", rounds.orders_commitment(CARTHAGO, "c-secret"))
    with pytest.raises(InputError, match="tampered"):
        rounds.reveal_orders(c, "roma", {9: ArmyOrders(9, moves=(3,)), 10: ArmyOrders(10)}, "r-secret")
    assert rounds.order_submitters(c) == {}  # nothing stored
    rounds.reveal_orders(c, "roma", ROMA, "r-secret")
    with pytest.raises(rounds.StepRefused, match="missing orders from carthago army 1"):
        rounds.run_movement(c)
    events = rounds.reveal_orders(c, "carthago", CARTHAGO, "c-secret")
    assert events[-2].kind == "orders_revealed"
    rounds.run_movement(c)
    c.close()
    assert readjudicate(path) > 0


def test_commit_reveal_unrevealed_faction_stands_still(tmp_path):
    path = tmp_path / "c.duckdb"
    c = commit_reveal(path)
    rounds.commit_orders(c, "roma", rounds.orders_commitment(ROMA, "r"))
    rounds.commit_orders(c, "carthago", rounds.orders_commitment(CARTHAGO, "c"))
    rounds.reveal_orders(c, "roma", ROMA, "r")
    rounds.set_deadline(c, just_passed())
    events = rounds.reveal_round(c)
    assert [e.data["army"] for e in events if e.kind == "put_orders"] == [1]
    with pytest.raises(InputError, match="orders were revealed"):
        rounds.reveal_orders(c, "carthago", CARTHAGO, "c")
    rounds.run_movement(c)
    c.close()
    assert readjudicate(path) > 0


def test_commit_reveal_uncommitted_faction_stands_still_at_the_deadline(tmp_path):
    c = commit_reveal(tmp_path / "c.duckdb")
    rounds.commit_orders(c, "roma", rounds.orders_commitment(ROMA, "r"))
    rounds.set_deadline(c, just_passed())
    events = rounds.reveal_round(c)
    assert [e.data["army"] for e in events if e.kind == "put_orders"] == [1]
    assert "open for reveals by roma" in events[-2].text
    rounds.reveal_orders(c, "roma", ROMA, "r")
    rounds.run_movement(c)


def test_the_commitment_is_the_documented_canonical_json():
    import hashlib

    text = ('{"orders":[{"army":9,"assault":null,"initiative":"strength","lift_siege":false,"moves":[3,3],'
            '"sea_links":[],"transfers":[]}],"secret":"s"}')
    assert rounds.orders_commitment({9: ArmyOrders(9, moves=(3, 3))}, "s") == hashlib.sha256(text.encode()).hexdigest()
    with pytest.raises(InputError, match="secret is empty"):
        rounds.orders_commitment({9: ArmyOrders(9)}, "")


def test_orders_and_commitments_close_at_the_deadline_and_replay_ignores_the_clock(tmp_path):
    from datetime import datetime, timezone

    path = tmp_path / "c.duckdb"
    c = at_war(path)
    rounds.set_deadline(c, "2030-01-01T00:00:00Z")
    before = datetime(2029, 12, 31, 23, 59, tzinfo=timezone.utc)
    after = datetime(2030, 1, 1, tzinfo=timezone.utc)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,))}, faction="roma", now=before)
    with pytest.raises(InputError, match="deadline 2030-01-01T00:00:00Z has passed"):
        rounds.submit_orders(c, {9: ArmyOrders(9, moves=(5,))}, faction="roma", now=after)
    assert rounds.order_submitters(c) == {9: "roma"}  # nothing stored by the late submission
    # The log's submission replays though the clock has passed the deadline since.
    c.close()
    assert readjudicate(path) >= 1


def test_commitments_close_at_the_deadline(tmp_path):
    from datetime import datetime, timezone

    c = at_war(tmp_path / "c.duckdb")
    rounds.set_orders_mode(c, rounds.COMMIT_REVEAL)
    rounds.set_deadline(c, just_passed())
    with pytest.raises(InputError, match="roma's commitment: refused, nothing stored: .* has passed"):
        rounds.commit_orders(c, "roma", "a" * 64)
    rounds.commit_orders(c, "roma", "a" * 64, now=datetime(1999, 1, 1, tzinfo=timezone.utc))
