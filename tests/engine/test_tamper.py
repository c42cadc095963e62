"""A tampered campaign file is caught: `round verify` names the first bad event or table row in one
line, every step refuses to write, and read-only commands warn (issue 8, "Tampering").

Before the hash chain, plain `round verify` missed an edited event text, swapped sequence numbers
and an event edited together with its state row (only `--readjudicate` caught them), crashed on an
edited event, and `round status` and every later step ran on an army edited to 9999 FP.

Each case edits a started campaign file directly (as someone with the DuckDB CLI would), then runs
the real CLI in-process.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from bellica.cli import main
from bellica.engine.core import state as st
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.readjudicate import readjudicate
from bellica.geo.spatialdb import connect
from tests.cli.test_round_cli import bellica
from tests.engine.boards import sketch
from tests.engine.test_rounds import STRUCTURES, WATER
from tests.engine.test_state import make_campaign


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A campaign file started and one step in: set-up events, then roma's initiative (the next
    step, `round publish`, is allowed).  Built once; each test edits a copy."""
    path = tmp_path_factory.mktemp("tamper") / "played.duckdb"
    m = sketch(radius=4, structures=STRUCTURES, water=WATER)
    c, _ = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), m=m)
    c.start(seed=11)
    c.close()
    assert main(["round", "initiative", str(path), "--faction", "roma", "9=Mare Tyrrhenum"]) is None
    return path


@pytest.fixture
def campaign(played, tmp_path):
    path = tmp_path / "c.duckdb"
    shutil.copy(played, path)
    return path


def edit(path, *sql):
    con = connect(path)
    try:
        for statement in sql:
            con.execute(statement)
    finally:
        con.close()


def seq_of(path, where: str) -> int:
    con = connect(path, read_only=True)
    try:
        return con.execute(f"SELECT min(seq) FROM events WHERE {where}").fetchone()[0]
    finally:
        con.close()


def contents(path):
    """The log and every state table, to show a refused step changed nothing."""
    with Campaign.open(path, read_only=True) as c:
        return st.read_snapshot(c.con, c.ruleset.schema), c.con.execute("SELECT * FROM events ORDER BY seq, rowid").fetchall()


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


ARMY9 = "kind = 'set_army' AND CAST(json_extract(data, '$.army') AS INTEGER) = 9"


def _edit_text(path):
    n = seq_of(path, ARMY9)
    edit(path, f"UPDATE events SET text = 'army 9 (roma) placed at Roma with 9999 FP' WHERE seq = {n}")
    return f"event {n} (set_army) does not match its hash: its round, phase, kind, data, text or time differ"


def _edit_data(path):
    n = seq_of(path, ARMY9)
    edit(path, f"UPDATE events SET data = json_merge_patch(data, '{{\"strength\": 9999}}') WHERE seq = {n}")
    return f"event {n} (set_army) does not match its hash"


def _invalid_json(path):
    # The column is JSON, so invalid text needs the column retyped first, as a careless tool might.
    n = seq_of(path, ARMY9)
    edit(path, "ALTER TABLE events ALTER data TYPE VARCHAR", f"UPDATE events SET data = '{{\"army\": 9, ' WHERE seq = {n}")
    return f"event {n} (set_army) does not match its hash"


def _swap_seq(path):
    edit(path, "UPDATE events SET seq = CASE seq WHEN 5 THEN 6 ELSE 5 END WHERE seq IN (5, 6)")
    return "event 5 (set_army) does not match its hash: it was written as event 6: seq numbers were changed"


def _delete_event(path):
    edit(path, "DELETE FROM events WHERE seq = 4")
    return "event 4 is missing (seq jumps from 3 to 5): an event was deleted"


def _delete_last_event(path):
    # The last event of the last step, without touching the tables: the tables no longer follow from the log.
    edit(path, "DELETE FROM events WHERE seq = (SELECT max(seq) FROM events)")
    return "orders (1, 9): replayed log has None, stored tables has (1, 9, None, 'Mare Tyrrhenum'"


def _insert_event(path):
    # A reinforcement slipped into the middle of the log, later events renumbered, the table to match.
    edit(path,
         "UPDATE events SET seq = seq + 1 WHERE seq >= 5",
         "INSERT INTO events (seq, round, phase, kind, data, text, \"at\") VALUES (5, 1, 'setup', 'set_army', "
         "'{\"army\": 11, \"cell\": null, \"eliminated\": false, \"faction\": \"roma\", \"strength\": 9999}', "
         "'army 11 raised', now())",
         "INSERT INTO armies (id, faction, cell, strength, eliminated) VALUES (11, 'roma', NULL, 9999, false)")
    return "event 5 (set_army) has no hash: it was inserted or rewritten outside bellica"


def _insert_event_at_end(path):
    edit(path,
         "INSERT INTO events (seq, round, phase, kind, data, text, \"at\", hash) SELECT max(seq) + 1, 1, 'orders', 'note', "
         "'{}', 'the umpire was bribed', now(), repeat('0', 64) FROM events")
    n = seq_of(path, "kind = 'note'")
    return f"event {n} (note) does not match its hash"


def _edit_event_and_state(path):
    n = seq_of(path, ARMY9)
    edit(path,
         f"UPDATE events SET data = json_merge_patch(data, '{{\"strength\": 9999}}') WHERE seq = {n}",
         "UPDATE armies SET strength = 9999 WHERE id = 9")
    return f"event {n} (set_army) does not match its hash"


def _edit_state_alone(path):
    edit(path, "UPDATE armies SET strength = 9999 WHERE id = 9")
    return "armies (9,): replayed log has (9, 'roma', '851e8053fffffff', 1600, False), stored tables has (9, 'roma', '851e8053fffffff', 9999, False)"


def _edit_time(path):
    edit(path, "UPDATE events SET \"at\" = \"at\" - INTERVAL 1 DAY WHERE seq = (SELECT max(seq) FROM events)")
    return "does not match its hash"


TAMPERINGS = {
    "edited event text": _edit_text,
    "edited data JSON": _edit_data,
    "invalid data JSON": _invalid_json,
    "swapped seq numbers": _swap_seq,
    "deleted event": _delete_event,
    "deleted last event": _delete_last_event,
    "inserted event": _insert_event,
    "inserted event at the end": _insert_event_at_end,
    "event edited with its state row": _edit_event_and_state,
    "state row edited alone": _edit_state_alone,
    "edited event time": _edit_time,
}


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_an_untouched_campaign_verifies_with_its_head_hash(campaign, capsys):
    code, out, err = bellica(capsys, "round", "verify", campaign)
    assert code == 0 and err == "", err
    assert "replay to the stored state exactly; hash chain intact (head " in out
    code, out, err = bellica(capsys, "round", "status", campaign)
    assert code == 0 and err == ""


@pytest.mark.parametrize("name", TAMPERINGS)
def test_round_verify_names_the_first_bad_event_in_one_line(campaign, capsys, name):
    expected = TAMPERINGS[name](campaign)
    code, out, err = bellica(capsys, "round", "verify", campaign)
    assert code == 4
    line = one_line(err)
    assert line.startswith("error: ") and expected in line, line


@pytest.mark.parametrize("name", TAMPERINGS)
def test_every_step_refuses_a_tampered_campaign_and_writes_nothing(campaign, capsys, name):
    expected = TAMPERINGS[name](campaign)
    before, before_bytes = contents(campaign), digest(campaign)
    code, out, err = bellica(capsys, "round", "publish", campaign)
    assert code == 4
    line = one_line(err)
    assert line.startswith(f"error: {campaign}: refused, nothing written: ") and expected in line, line
    assert contents(campaign) == before
    assert digest(campaign) == before_bytes


@pytest.mark.parametrize("name", TAMPERINGS)
def test_read_only_commands_warn_in_one_line_and_still_show(campaign, capsys, name):
    expected = TAMPERINGS[name](campaign)
    for args in (("round", "status"), ("round", "show"), ("log",)):
        code, out, err = bellica(capsys, *args, campaign)
        assert code == 0, err
        assert out
        line = one_line(err)
        assert line.startswith(f"warning: {campaign}: ") and expected in line, (args, line)


def test_status_warns_and_steps_refuse_an_army_edited_to_9999_fp(campaign, capsys):
    edit(campaign, "UPDATE armies SET strength = 9999 WHERE id = 9")
    code, out, err = bellica(capsys, "round", "status", campaign)
    assert code == 0 and "round 1, phase orders" in out
    assert "armies (9,): replayed log has (9, 'roma'" in one_line(err) and "9999" in err
    for step in (("round", "publish"), ("round", "initiative", "--faction", "roma", "10=strength")):
        code, out, err = bellica(capsys, *step[:2], campaign, *step[2:])
        assert code == 4 and "refused, nothing written" in one_line(err) and "9999" in err


def test_a_chain_recomputed_by_hand_passes_verify_but_not_readjudication(campaign, capsys):
    # The limit, stated in docs/campaign-file.md: there is no secret key, so whoever can write the
    # file can recompute the whole chain.  Re-adjudication still re-derives every event from the
    # scenario and catches the edited words.
    n = seq_of(campaign, ARMY9)
    con = connect(campaign)
    try:
        con.execute(f"UPDATE events SET text = 'army 9 (roma) placed at Roma, veterans all' WHERE seq = {n}")
        prev = st.GENESIS
        for row in con.execute(st._CHAIN_SQL).fetchall():
            prev = st.event_hash(prev, *row[:8])
            con.execute("UPDATE events SET hash = ? WHERE seq = ?", [prev, row[0]])
    finally:
        con.close()
    code, out, err = bellica(capsys, "round", "verify", campaign)
    assert code == 0, err
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 4 and f"re-adjudication differs at event {n}" in one_line(err)


def test_each_step_records_the_state_it_leaves(campaign):
    with Campaign.open(campaign, read_only=True) as c:
        last = c.con.execute("SELECT state_hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()[0]
        assert last == st.state_digest(c.snapshot())
        # Only a step's last event carries it: the set-up is one step of many events.
        carried = c.con.execute("SELECT count(*) FROM events WHERE state_hash IS NOT NULL").fetchone()[0]
        assert carried == 2


# --- campaign files written before the hash chain ------------------------------------------


def _unhashed(path):
    """What a campaign file written before this change looks like: no hash columns."""
    edit(path, "ALTER TABLE events DROP COLUMN hash", "ALTER TABLE events DROP COLUMN state_hash")


def test_a_log_written_before_hashes_is_verified_and_sealed_by_the_next_step(campaign, capsys):
    _unhashed(campaign)
    code, out, err = bellica(capsys, "round", "verify", campaign)
    assert code == 0 and "no hash chain yet" in out
    code, out, err = bellica(capsys, "round", "status", campaign)
    assert code == 0 and err == ""  # not damage: nothing to warn about
    code, out, err = bellica(capsys, "round", "publish", campaign)
    assert code == 0, err
    with Campaign.open(campaign, read_only=True) as c:
        kinds = [e.kind for e in c.events()]
        seal = next(e for e in c.events() if e.kind == st.SEAL_KIND)
    assert kinds.index(st.SEAL_KIND) == seal.data["events"]  # right after the old log, before the step
    assert seal.phase == "log" and "verified against the scenario and chained" in seal.text
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 0 and "hash chain intact" in out, err
    # ... and from then on it is checked like any other.
    edit(campaign, "UPDATE events SET text = 'edited' WHERE seq = 2")
    code, out, err = bellica(capsys, "round", "verify", campaign)
    assert code == 4 and "event 2 (set_campaign) does not match its hash" in one_line(err)


def test_a_log_written_before_hashes_that_does_not_replay_is_refused_not_sealed(campaign, capsys):
    _unhashed(campaign)
    edit(campaign, "UPDATE armies SET strength = 9999 WHERE id = 9")
    code, out, err = bellica(capsys, "round", "publish", campaign)
    assert code == 4
    assert "does not replay, so it cannot be sealed: armies (9,)" in one_line(err)
    with Campaign.open(campaign, read_only=True) as c:
        assert not st.has_chain(c.con)  # the refused step left the file as it was
    code, out, err = bellica(capsys, "round", "status", campaign)
    assert code == 0 and "armies (9,)" in one_line(err)


def test_readjudication_of_a_sealed_log(campaign):
    _unhashed(campaign)
    with Campaign.open(campaign) as c:
        from bellica.engine.vae_victis import rounds

        rounds.publish_initiative(c)
    assert readjudicate(campaign) == 2


def test_a_step_through_the_api_is_checked_too(campaign):
    # Not only the CLI: Campaign.transaction checks before any step writes.
    from bellica.engine.vae_victis import rounds

    edit(campaign, "UPDATE events SET text = 'edited' WHERE seq = 3")
    with Campaign.open(campaign) as c:
        with pytest.raises(st.LogTampered, match=r"refused, nothing written: the event log has been edited: event 3 "):
            rounds.publish_initiative(c)


def test_replay_of_unreadable_data_is_one_error_naming_the_event(campaign):
    # With the chain recomputed over the bad data (so only the replay sees it): still a
    # ReplayMismatch naming the event, never a KeyError.
    n = seq_of(campaign, ARMY9)
    con = connect(campaign)
    try:
        con.execute(f"UPDATE events SET data = '{json.dumps({'army': 9})}' WHERE seq = {n}")
        prev = st.GENESIS
        for row in con.execute(st._CHAIN_SQL).fetchall():
            prev = st.event_hash(prev, *row[:8])
            con.execute("UPDATE events SET hash = ? WHERE seq = ?", [prev, row[0]])
    finally:
        con.close()
    with Campaign.open(campaign, read_only=True) as c:
        with pytest.raises(st.ReplayMismatch, match=rf"event {n} \(set_army\) does not replay: its data has no field 'faction'"):
            c.verify()


@pytest.mark.parametrize("sql, named", [
    ("ALTER TABLE events DROP COLUMN state_hash", "the event log has lost its 'state_hash' column"),
    ("ALTER TABLE events DROP COLUMN text", "the event log has lost its 'text' column"),
    ("ALTER TABLE armies DROP COLUMN strength", "state table armies has no 'strength' column"),
    ("DROP TABLE sieges", "state table sieges is missing"),
])
def test_a_dropped_table_or_column_is_one_error_line_everywhere(campaign, capsys, sql, named):
    # Not a traceback nor a failed query's SQL: the command names what is gone.
    edit(campaign, sql)
    for args in (("round", "verify"), ("round", "publish"), ("round", "status"), ("log",)):
        code, out, err = bellica(capsys, *args, campaign)
        assert code == 4, (args, out)
        line = one_line(err)
        assert line.startswith("error: ") and named in line, (args, line)


def test_a_factions_view_of_an_edited_file_warns_without_the_edited_rows(campaign, capsys):
    """What the umpire's warning quotes (an edited row, a sealed order) may be another faction's:
    carthago's log and orders view are told the file was edited, never what the rows hold."""
    edit(campaign, "UPDATE armies SET strength = 9999 WHERE id = 9")
    for args in (("log", campaign, "--faction", "carthago"), ("round", "show", campaign, "--faction", "carthago")):
        code, out, err = bellica(capsys, *args)
        assert code == 0, err
        line = one_line(err)
        assert line.startswith(f"warning: {campaign}: ") and "edited outside bellica" in line, line
        assert "9999" not in err and "roma" not in err and "Mare Tyrrhenum" not in err, err
    code, _, err = bellica(capsys, "log", campaign)  # the umpire's view still names the row
    assert "armies (9,)" in err and "9999" in err


# --- issue 23 item 6: durability -------------------------------------------------------------------


def test_an_emptied_log_is_refused_not_taken_for_a_campaign_not_yet_started(campaign, capsys):
    """Before: `DELETE FROM events` made the file look unstarted; the next `round start` began the
    campaign again over its rounds.  Now every command refuses it as damaged (exit 4), naming the file."""
    edit(campaign, "DELETE FROM events")
    before = digest(campaign)
    for args in (["round", "status", campaign], ["round", "publish", campaign], ["round", "start", campaign],
                 ["round", "verify", campaign]):
        code, out, err = bellica(capsys, *args)
        assert code == 4, (args, out, err)
        assert err.count("\n") == 1 and f"{campaign}: the event log is empty but the state tables stand at round 1" in err
    assert digest(campaign) == before


def test_every_step_is_in_the_file_itself_when_it_returns(campaign):
    """A committed step is checkpointed while its campaign is still open: nothing of it waits in the
    WAL, where a WAL cut short (a crash, a copy taken mid-session) lost it silently."""
    from bellica.engine.core.events import Event

    wal = campaign.with_name(campaign.name + ".wal")
    with Campaign.open(campaign) as c:
        with c.transaction():
            c.append([Event(1, "orders", "put_note", {"round": 1, "key": "durability", "value": "kept"})],
                     before=c.snapshot())
        assert not wal.exists() or wal.stat().st_size == 0
        with open(campaign, "rb") as f:  # the file alone, as a copy taken now would be
            copy = campaign.with_name("copy.duckdb")
            copy.write_bytes(f.read())
    with Campaign.open(copy, read_only=True) as c:
        assert ((1, "durability"), (1, "durability", '"kept"')) in c.snapshot().tables["round_notes"].items()
        c.verify()


# --- issue 23 item 9: a campaign kept open checks only what is new, and misses nothing -------------


@pytest.fixture
def same_process(monkeypatch):
    """The edits of this module through a second connection of this process, as the campaign's own
    (DuckDB shares the open database between them; another process could not open it at all)."""
    import sys

    from bellica.engine.core.campaign_file import connect as campaign_connect

    monkeypatch.setattr(sys.modules[__name__], "connect", lambda path, read_only=False: campaign_connect(path, read_only=False))


def _held(path):
    """The campaign as the web app keeps it between requests: opened once, its log checked once
    (a step's check, nothing written), so its next step hashes only the events past that check."""
    c = Campaign.open(path)
    with c.transaction():
        pass
    assert c._mark is not None and c._mark.seq == c.con.execute("SELECT max(seq) FROM events").fetchone()[0]
    return c


def _held_contents(c):
    return st.read_snapshot(c.con, c.ruleset.schema), c.con.execute("SELECT * FROM events ORDER BY seq, rowid").fetchall()


def _whole_check_refusal(path) -> str:
    """What a Campaign opened afresh in this process (no mark: the whole chain) refuses, in words."""
    with Campaign.open(path) as fresh:
        with pytest.raises(st.LogTampered) as err:
            with fresh.transaction():
                pass
    return str(err.value)


def _duplicated_event(path):
    edit(path, "INSERT INTO events SELECT * FROM events WHERE seq = 3")
    return "seq 3 appears twice"


def _event_without_seq(path):
    edit(path, "INSERT INTO events SELECT NULL, round, phase, kind, data, text, \"at\", state_hash, hash FROM events "
               "WHERE seq = (SELECT max(seq) FROM events)")
    return "has no seq: it was inserted outside bellica"


def _first_event_renumbered(path):
    edit(path, "UPDATE events SET seq = 0 WHERE seq = 1")
    return "the log starts at seq 0, not 1"


def _event_replaced_by_a_copy_of_another(path):
    # Same count, the same seq numbers: only the contents of event 4 differ (they are event 5's).
    edit(path, "UPDATE events SET round = o.round, phase = o.phase, kind = o.kind, data = o.data, text = o.text, "
               "\"at\" = o.\"at\", state_hash = o.state_hash, hash = o.hash FROM (SELECT * FROM events WHERE seq = 5) o "
               "WHERE events.seq = 4")
    return "event 4 (set_campaign) does not match its hash"


#: Edits aimed at the check a kept-open campaign makes (the events up to its mark counted and
#: fingerprinted, those after it chained on), besides every tampering above.
MARK_TAMPERINGS = {
    **TAMPERINGS,
    "duplicated event": _duplicated_event,
    "event without seq": _event_without_seq,
    "first event renumbered 0": _first_event_renumbered,
    "event replaced by a copy of another": _event_replaced_by_a_copy_of_another,
}


@pytest.mark.parametrize("name", MARK_TAMPERINGS)
def test_a_campaign_kept_open_refuses_a_tamper_between_two_steps_as_a_fresh_one_does(campaign, name, same_process):
    """The web app keeps its Campaign open and hashes only the events since its last check: an edit
    made between two requests (here through another connection of the same process, the only way
    while the app holds the file) is refused all the same, in the same words as the whole check's,
    and nothing is written."""
    from bellica.engine.vae_victis import rounds

    c = _held(campaign)
    try:
        expected = MARK_TAMPERINGS[name](campaign)
        before = _held_contents(c)
        with pytest.raises(st.LogTampered) as err:
            rounds.publish_initiative(c)
        line = str(err.value)
        assert line.startswith(f"{campaign}: refused, nothing written: ") and expected in line, line
        assert len(line.splitlines()) == 1
        assert _held_contents(c) == before
        assert line == _whole_check_refusal(campaign)
        with pytest.raises(st.LogTampered):  # and again at the next request: nothing was blessed
            rounds.publish_initiative(c)
    finally:
        c.close()


def test_a_campaign_kept_open_hashes_only_the_events_since_its_last_check(campaign, monkeypatch):
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.model import ArmyOrders

    c = _held(campaign)
    try:
        hashed = []
        real = st.event_hash
        monkeypatch.setattr(st, "event_hash", lambda prev, seq, *rest: hashed.append(seq) or real(prev, seq, *rest))
        checked = c._mark.seq
        rounds.publish_initiative(c)
        assert hashed and min(hashed) > checked  # nothing checked before was hashed again: only the new events
        published = c.con.execute("SELECT max(seq) FROM events").fetchone()[0]
        hashed.clear()
        rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,))}, faction="roma")
        # The check chained on the publication's events from the mark; the append hashed the orders'.
        assert sorted(hashed) == list(range(checked + 1, c.con.execute("SELECT max(seq) FROM events").fetchone()[0] + 1))
        assert c._mark.seq == published
        # A Campaign opened afresh checks the whole chain, once, and the log is intact for it.
        hashed.clear()
        with Campaign.open(campaign) as fresh:
            with fresh.transaction():
                pass
        assert sorted(hashed) == list(range(1, c.con.execute("SELECT max(seq) FROM events").fetchone()[0] + 1))
    finally:
        c.close()
    with Campaign.open(campaign, read_only=True) as c:
        c.verify()


def test_a_chain_recomputed_by_hand_between_two_steps_passes_as_it_does_afresh(campaign, same_process):
    """The limit of the chain is the same for a kept-open campaign: an edit with every hash recomputed
    changes the events' fingerprint, so the whole chain is checked again, and passes, as in a fresh process."""
    from bellica.engine.vae_victis import rounds

    c = _held(campaign)
    try:
        con = connect(campaign)
        try:
            con.execute("UPDATE events SET text = 'edited, and the chain recomputed' WHERE seq = 3")
            prev = st.GENESIS
            for row in con.execute(st._CHAIN_SQL).fetchall():
                prev = st.event_hash(prev, *row[:8])
                con.execute("UPDATE events SET hash = ? WHERE seq = ?", [prev, row[0]])
        finally:
            con.close()
        mark = c._mark
        rounds.publish_initiative(c)
        assert c._mark.fingerprint != mark.fingerprint  # checked whole again, from seq 1
    finally:
        c.close()


def test_a_step_commits_into_the_file_and_leaves_duckdbs_checkpoint_threshold_as_it_was(campaign):
    """The COMMIT of a step checkpoints (issue 23 item 9: no WAL written and removed at every step),
    for that COMMIT only: whatever else the connection writes goes through the WAL as DuckDB does it,
    after a step and after a refused one alike."""
    from bellica.engine.vae_victis import rounds

    wal = campaign.with_name(campaign.name + ".wal")
    settings = "SELECT current_setting('checkpoint_threshold'), current_setting('auto_checkpoint_skip_wal_threshold')"
    with Campaign.open(campaign) as c:
        default = c.con.execute(settings).fetchone()
        rounds.publish_initiative(c)
        assert not wal.exists() or wal.stat().st_size == 0
        assert c.con.execute(settings).fetchone() == default
        with pytest.raises(RuntimeError):
            with c.transaction():
                c.con.execute("CREATE TABLE scratch AS SELECT 1 AS x")
                raise RuntimeError("a step failing half-way")
        assert c.con.execute(settings).fetchone() == default
        assert "scratch" not in c.tables()


_STEPS_UNTIL_KILLED = """
import os, sys
from bellica.engine.core.campaign import Campaign
from bellica.engine.vae_victis import rounds
acked = open(sys.argv[2], "a")
with Campaign.open(sys.argv[1]) as c:  # kept open, as the web app keeps it: every check after the first is the mark's
    for k in range(100000):
        rounds.submit_initiative(c, {9: "strength" if k % 2 else "Mare Tyrrhenum"}, faction="roma")
        seq = c.con.execute("SELECT max(seq) FROM events").fetchone()[0]
        acked.write(f"{seq}\\n"); acked.flush(); os.fsync(acked.fileno())  # answered: the step returned
"""


def test_a_step_answered_before_a_kill_is_in_the_file_alone(campaign, tmp_path):
    """kill -9 at random moments of a run of steps on a campaign kept open (issue 23 items 6 and 9: the
    COMMIT checkpoints, no WAL): the file as the kill left it, without its WAL, holds every step that
    had returned, its log verifies, and the next step runs on it."""
    import random
    import signal
    import subprocess
    import sys
    import time

    acked = tmp_path / "acked.txt"
    rng = random.Random(23)
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-c", _STEPS_UNTIL_KILLED, str(campaign), str(acked)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        start = len(acked.read_text().split()) if acked.exists() else 0
        while (len(acked.read_text().split()) if acked.exists() else 0) < start + 2:
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "no step returned within 60 s"
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        copy = tmp_path / "file-alone.duckdb"  # the file as it is, without any WAL beside it
        shutil.copyfile(campaign, copy)
        with Campaign.open(copy, read_only=True) as c:
            c.verify()
            last = c.con.execute("SELECT max(seq) FROM events").fetchone()[0]
        assert max(int(s) for s in acked.read_text().split()) <= last
        copy.unlink()
    from bellica.engine.vae_victis import rounds

    with Campaign.open(campaign) as c:
        rounds.publish_initiative(c)
        c.verify()
