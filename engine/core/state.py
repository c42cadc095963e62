"""Campaign state in the DuckDB file: state tables, the append-only event log, transactions, replay.

The event log is the truth; the state tables are its materialised view.  Every
change to a state table is an :class:`~engine.core.events.Event` of a *state
kind*, appended to ``events`` and applied to the tables by the same reducer
(:func:`apply_event`) that :func:`replay_snapshot` folds over the whole log.
So "the tables equal the replayed log" is one function applied twice, and a
table can never change without a log line saying so.

The state kinds are the core's (:data:`CORE_REDUCERS`) plus the ruleset's own
(:attr:`engine.core.ruleset.Ruleset.reducers`); events of any other kind are
*explanations* emitted by the rules ("army 3 halted entering the ZoC of army
9"): stored and shown by ``tabula log`` but changing no table.

Core state kinds (``data`` fields; ``was`` may hold the previous value for the log):

* ``set_campaign``: key, value (round, phase, stage, seed, winner; ``value`` null drops the key)
* ``put_note``: round, key, value (facts later steps of a round need; null drops the note)
* ``put_row``: table, row (``{column: value}``: insert or replace the row of any declared table)
* ``drop_row``: table, key (``{key column: value}``)

Each step runs inside :func:`transaction`: one DuckDB ``BEGIN ... COMMIT``, so a
crash or ``kill -9`` leaves the database at the last completed step.  These
functions are the machinery under :class:`engine.core.campaign.Campaign`, which
is how rules code reaches them.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, Mapping

import duckdb

from tabula.engine.core.events import Event, StoredEvent, to_json
from tabula.engine.core.tables import Snapshot, StateSchema, events_ddl, sort_key
from tabula.geo.errors import InputError, TabulaError
from tabula.geo.spatialdb import run_sql
from tabula.schema import existing_tables

__all__ = [
    "PAUSE_ENV",
    "CORE_REDUCERS",
    "ReplayMismatch",
    "transaction",
    "existing_tables",
    "create_state_tables",
    "drop_state_tables",
    "has_state",
    "require_state",
    "read_snapshot",
    "apply_event",
    "append_events",
    "load_events",
    "replay_snapshot",
    "verify_log",
    "diff_snapshots",
]

#: Test hook (see :func:`_pause_inside_transaction`): a file path.  When set, a
#: step that has written everything but not yet committed creates this file and
#: sleeps, so the kill test can ``kill -9`` it at the worst moment.
PAUSE_ENV = "TABULA_TEST_PAUSE_IN_TRANSACTION"


class ReplayMismatch(TabulaError):
    """The state tables differ from the state the event log replays to."""


# --- transactions -------------------------------------------------------------


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """One DuckDB transaction: commit on success, roll back on any exception.

    A process killed inside the block leaves nothing of it on disk: DuckDB
    writes a transaction to its WAL only at COMMIT.
    """
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        _pause_inside_transaction()
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _pause_inside_transaction() -> None:
    """Kill-test hook, inert unless ``TABULA_TEST_PAUSE_IN_TRANSACTION`` names a file.

    Called after a step has written all its rows and before COMMIT: it touches
    the file (so the test knows the writes are done) and sleeps 60 s for the
    test's ``kill -9``.  Never set this variable outside tests.
    """
    marker = os.environ.get(PAUSE_ENV)
    if marker:
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(60)


# --- the state tables -----------------------------------------------------------


def create_state_tables(con: duckdb.DuckDBPyConnection, schema: StateSchema) -> None:
    """Create the (empty) state tables of ``schema`` and the event log if they do not exist."""
    for table in schema.tables.values():
        run_sql(con, table.create, name=f"state.create.{table.name}")
    run_sql(con, events_ddl(), name="state.create.events")


def drop_state_tables(con: duckdb.DuckDBPyConnection, schema: StateSchema) -> None:
    """Drop every state table and the event log (re-adjudication starts a copy afresh)."""
    for name in list(schema.tables) + ["events"]:
        run_sql(con, f"DROP TABLE IF EXISTS {name}", name=f"state.drop.{name}")


def has_state(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the campaign has been started (the event log exists and is not empty)."""
    if "events" not in existing_tables(con):
        return False
    return con.execute("SELECT count(*) FROM events").fetchone()[0] > 0


def require_state(con: duckdb.DuckDBPyConnection) -> None:
    if not has_state(con):
        raise InputError("the campaign has not been started: run `tabula round start CAMPAIGN.duckdb` first")


def read_snapshot(con: duckdb.DuckDBPyConnection, schema: StateSchema) -> Snapshot:
    """Read every state table into a :class:`Snapshot`."""
    snap = schema.empty()
    for table in schema.tables.values():
        cols = ", ".join(table.column_names)
        rows = snap.tables[table.name]
        for row in run_sql(con, f"SELECT {cols} FROM {table.name}", name=f"state.read.{table.name}").fetchall():
            row = tuple(row)
            rows[table.key_of(row)] = row
    return snap


def _write_changed(con, before: Snapshot, after: Snapshot) -> None:
    """Rewrite the tables whose rows changed (they hold tens of rows, so a rewrite is cheap)."""
    for name, table in after.schema.tables.items():
        if before.tables[name] == after.tables[name]:
            continue
        run_sql(con, f"DELETE FROM {name}", name=f"state.clear.{name}")
        rows = after.rows(name)
        if not rows:
            continue
        width = len(table.columns)
        placeholders = ", ".join(["(" + ", ".join(["?"] * width) + ")"] * len(rows))
        params = [v for row in rows for v in row]
        run_sql(con, f"INSERT INTO {name} VALUES {placeholders}", params, name=f"state.write.{name}")


# --- the reducer ------------------------------------------------------------------


def _set_campaign(snap: Snapshot, data: Mapping[str, Any]) -> None:
    key = data["key"]
    if data["value"] is None:
        snap.tables["campaign"].pop((key,), None)
    else:
        snap.tables["campaign"][(key,)] = (key, str(data["value"]))


def _put_note(snap: Snapshot, data: Mapping[str, Any]) -> None:
    r, key = int(data["round"]), data["key"]
    if data["value"] is None:
        snap.tables["round_notes"].pop((r, key), None)
    else:
        snap.tables["round_notes"][(r, key)] = (r, key, json.dumps(data["value"], sort_keys=True))


def _declared(snap: Snapshot, name: str):
    table = snap.schema.tables.get(name)
    if table is None:
        raise TabulaError(f"an event names state table {name!r}, which this campaign's ruleset does not declare")
    return table


def _put_row(snap: Snapshot, data: Mapping[str, Any]) -> None:
    table = _declared(snap, data["table"])
    row = table.row_from(data["row"])
    snap.tables[table.name][table.key_of(row)] = row


def _drop_row(snap: Snapshot, data: Mapping[str, Any]) -> None:
    table = _declared(snap, data["table"])
    snap.tables[table.name].pop(table.key_from(data["key"]), None)


#: The core's state kinds (every ruleset has them).
CORE_REDUCERS: Mapping[str, Callable[[Snapshot, Mapping[str, Any]], None]] = {
    "set_campaign": _set_campaign,
    "put_note": _put_note,
    "put_row": _put_row,
    "drop_row": _drop_row,
}


def apply_event(snap: Snapshot, kind: str, data: Mapping[str, Any]) -> None:
    """Apply one event to ``snap`` in place; explanation kinds change nothing."""
    reducer = snap.schema.reducers.get(kind)
    if reducer is not None:
        reducer(snap, data)


# --- the event log ----------------------------------------------------------------


def append_events(con: duckdb.DuckDBPyConnection, schema: StateSchema, events: Iterable[Event], *, before: Snapshot | None = None) -> Snapshot:
    """Append ``events`` to the log and apply the state kinds to the tables; return the new snapshot.

    Call inside :func:`transaction`.  This is the only writer of the state
    tables and of ``events`` (insert only: the log is append-only).  ``before``:
    the stored tables, when the caller has just read them.
    """
    events = list(events)
    if before is None:
        before = read_snapshot(con, schema)
    after = before.copy()
    start = con.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]
    at = datetime.now(timezone.utc).replace(tzinfo=None)
    rows = []
    for i, ev in enumerate(events):
        # Round-trip through JSON so the live path applies exactly what replay will read.
        data = json.loads(to_json(ev.data))
        apply_event(after, ev.kind, data)
        rows.append((start + i + 1, int(ev.round), str(ev.phase), ev.kind, to_json(data), ev.text, at))
    if rows:
        placeholders = ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * len(rows))
        run_sql(con, f"INSERT INTO events VALUES {placeholders}", [v for r in rows for v in r], name="state.append_events")
    _write_changed(con, before, after)
    return after


def load_events(con: duckdb.DuckDBPyConnection, *, round: int | None = None) -> list[StoredEvent]:
    """The event log in order, optionally one round's events only."""
    sql = "SELECT seq, round, phase, kind, data, text, \"at\" FROM events"
    params = None
    if round is not None:
        sql += " WHERE round = ?"
        params = [round]
    rows = run_sql(con, sql + " ORDER BY seq", params, name="state.load_events").fetchall()
    return [StoredEvent(seq, r, phase, kind, json.loads(data), text or "", at) for seq, r, phase, kind, data, text, at in rows]


# --- replay -------------------------------------------------------------------------


def replay_snapshot(schema: StateSchema, events: Iterable[StoredEvent]) -> Snapshot:
    """Fold ``events`` over empty tables."""
    snap = schema.empty()
    for ev in events:
        apply_event(snap, ev.kind, ev.data)
    return snap


def verify_log(con: duckdb.DuckDBPyConnection, schema: StateSchema, expected_setup: Callable[[int], Snapshot], default_seed: int) -> Snapshot:
    """Raise :class:`ReplayMismatch` unless replaying the log reproduces every state table exactly.

    Also checks that the log is gap-free (seq 1..n), and that its set-up events
    reproduce ``expected_setup(seed)`` (the ruleset's start from the scenario), so
    the replay really starts from the scenario and not from whatever the first
    events say.
    """
    require_state(con)
    events = load_events(con)
    if [ev.seq for ev in events] != list(range(1, len(events) + 1)):
        raise ReplayMismatch("the event log has gaps or duplicates in seq: it has been edited, not appended to")
    setup = schema.empty()
    for ev in events:
        if ev.phase != "setup":
            break
        apply_event(setup, ev.kind, ev.data)
    seed = int(setup.campaign("seed", str(default_seed)))
    problems = diff_snapshots(expected_setup(seed), setup, left="scenario", right="set-up events")
    replayed = replay_snapshot(schema, events)
    stored = read_snapshot(con, schema)
    problems += diff_snapshots(replayed, stored, left="replayed log", right="stored tables")
    if problems:
        raise ReplayMismatch("; ".join(problems[:10]) + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""))
    return replayed


def diff_snapshots(a: Snapshot, b: Snapshot, *, left: str, right: str) -> list[str]:
    problems = []
    for table in a.tables:
        ra, rb = a.tables[table], b.tables[table]
        if ra == rb:
            continue
        for key in sorted(ra.keys() | rb.keys(), key=sort_key):
            if ra.get(key) != rb.get(key):
                problems.append(f"{table} {key}: {left} has {ra.get(key)}, {right} has {rb.get(key)}")
    return problems
