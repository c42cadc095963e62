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
9"): stored and shown by ``bellica log`` but changing no table.

Core state kinds (``data`` fields; ``was`` may hold the previous value for the log):

* ``set_campaign``: key, value (round, phase, stage, seed, winner; ``value`` null drops the key)
* ``put_note``: round, key, value (facts later steps of a round need; null drops the note)
* ``put_row``: table, row (``{column: value}``: insert or replace the row of any declared table)
* ``drop_row``: table, key (``{key column: value}``)

Each step runs inside :func:`transaction`: one DuckDB ``BEGIN ... COMMIT``, so a
crash or ``kill -9`` leaves the database at the last completed step.

The log is tamper-evident.  Each event's ``hash`` is
``sha256(previous hash || canonical JSON of [seq, round, phase, kind, data, text, at, state_hash])``
(:func:`event_hash`; the first event's previous hash is empty), so editing, deleting,
inserting or renumbering any event breaks the chain from that event on; and the last
event a step appends carries ``state_hash``, the digest of every state table after
the step (:func:`state_digest`), so a table edited behind the log no longer matches
it.  :func:`check_log` is what a step runs before it writes (the chain, then the
stored tables against the last ``state_hash``, replaying the log only when they
differ); :func:`verify_log` checks the chain and replays the whole log from the
scenario.  There is no secret key: whoever can write the file can recompute the
chain, so the chain catches accidental and naive edits, and re-adjudication
(:mod:`engine.core.readjudicate`) re-derives everything from the scenario
(docs/campaign-file.md).  ``at`` is covered: when a step was recorded is part of
the record (orders in before a deadline), and re-adjudication compares events,
never hashes, so a re-run at another time still compares equal.  These
functions are the machinery under :class:`engine.core.campaign.Campaign`, which
is how rules code reaches them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, Mapping

import duckdb

from bellica.engine.core.events import Event, StoredEvent, to_json
from bellica.engine.core.tables import Snapshot, StateSchema, events_ddl, sort_key
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.spatialdb import forget_catalog, run_sql, values_rows
from bellica.schema import existing_tables

__all__ = [
    "PAUSE_ENV",
    "CORE_REDUCERS",
    "ReplayMismatch",
    "LogTampered",
    "LogUnreadable",
    "SEAL_KIND",
    "event_hash",
    "state_digest",
    "has_chain",
    "chain_problem",
    "LogMark",
    "check_log",
    "check_log_from",
    "seal_log",
    "transaction",
    "existing_tables",
    "create_state_tables",
    "drop_state_tables",
    "has_state",
    "require_state",
    "read_snapshot",
    "Statements",
    "apply_event",
    "append_events",
    "append_after",
    "load_events",
    "replay_snapshot",
    "verify_log",
    "diff_snapshots",
]

#: Test hook (see :func:`_pause_inside_transaction`): a file path.  When set, a
#: step that has written everything but not yet committed creates this file and
#: sleeps, so the kill test can ``kill -9`` it at the worst moment.
PAUSE_ENV = "BELLICA_TEST_PAUSE_IN_TRANSACTION"


class ReplayMismatch(BellicaError):
    """The state tables differ from the state the event log replays to."""


class LogTampered(ReplayMismatch):
    """The event log's hash chain is broken, or the state tables disagree with the log."""


class LogUnreadable(LogTampered):
    """The log or a state table lost a table or column: nothing can be shown from it, let alone written."""


#: The previous hash of the first event.
GENESIS = ""
#: The core's explanation kind recording that a log written before hashes was verified and chained.
SEAL_KIND = "log_sealed"
#: The columns the hash chain reads, in :func:`event_hash`'s order (then ``hash``).
_CHAIN_SQL = ('SELECT seq, round, phase, kind, CAST(data AS VARCHAR), text, "at", state_hash, hash '
              "FROM events ORDER BY seq NULLS LAST, rowid")
#: DuckDB's 64-bit hash of one event row, every column the chain reads and the hash itself: summed over
#: the events up to a :class:`LogMark`, it tells whether any of them changed since they were verified.
_ROW_FINGERPRINT = 'hash(seq, round, phase, kind, CAST(data AS VARCHAR), text, "at", state_hash, hash)'


# --- transactions -------------------------------------------------------------


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection, *, checkpoint: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """One DuckDB transaction: commit on success, roll back on any exception.

    A process killed inside the block leaves nothing of it on disk: DuckDB
    writes a transaction to its WAL only at COMMIT.  ``checkpoint``: the COMMIT
    writes the transaction into the database file itself instead of the WAL
    (DuckDB's checkpoint on commit, its two thresholds set to 0 for this COMMIT
    only), so the committed step never lives in the WAL alone: two fsyncs, where
    a WAL commit and a CHECKPOINT after it took four and made and removed the
    WAL file (issue 23 item 9).  DuckDB's checkpoint is atomic (the new blocks,
    then the header), so a kill during it leaves the file before the step, and
    a checkpoint that fails fails the COMMIT.  The caller still runs
    ``CHECKPOINT`` afterwards, which finds nothing to do unless DuckDB could not
    checkpoint at the COMMIT (another transaction open on the database: it then
    writes the WAL, as without ``checkpoint``).
    """
    con.execute("BEGIN TRANSACTION")
    forget_catalog(con)  # another connection may have changed it; a rollback may undo a CREATE
    try:
        yield con
        _pause_inside_transaction()
        if checkpoint:
            # Read at the COMMIT: checkpoint whatever the WAL holds, and write the WAL not at all
            # (by default DuckDB skips the WAL only for a transaction of 100 kB or more).
            con.execute("SET checkpoint_threshold = '0b'")
            con.execute("SET auto_checkpoint_skip_wal_threshold = 0")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    finally:
        if checkpoint:
            _reset_checkpoint_threshold(con)
        forget_catalog(con)


def _reset_checkpoint_threshold(con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB's own thresholds again, for whatever else the connection writes (a failure here must
    not hide the step's own error: the settings only make later commits checkpoint too)."""
    for setting in ("checkpoint_threshold", "auto_checkpoint_skip_wal_threshold"):
        try:
            con.execute(f"RESET {setting}")
        except duckdb.Error:
            pass


def _pause_inside_transaction() -> None:
    """Kill-test hook, inert unless ``BELLICA_TEST_PAUSE_IN_TRANSACTION`` names a file.

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


def has_state(con: duckdb.DuckDBPyConnection, *, statements: Statements | None = None) -> bool:
    """Whether the campaign has been started (the event log exists and is not empty).

    An empty log beside state tables that hold a position was emptied outside bellica: that is
    refused (:class:`LogTampered`, exit 4), never taken for a campaign not yet started, which
    the next ``start`` would begin again over the lost rounds."""
    try:
        # Asked before every step: one count, not a catalog query (a missing table is a catalog
        # error, which leaves a transaction usable).
        if _run(con, statements, "SELECT count(*) FROM events").fetchone()[0] > 0:
            return True
    except duckdb.CatalogException:
        return False
    if "campaign" in existing_tables(con) and con.execute("SELECT count(*) FROM campaign").fetchone()[0] > 0:
        where = dict(con.execute("SELECT key, value FROM campaign WHERE key IN ('round', 'phase')").fetchall())
        raise LogTampered(f"the event log is empty but the state tables stand at round {where.get('round', '?')} "
                          f"({where.get('phase') or 'no phase'}): the log was emptied outside bellica; restore the "
                          "file from a copy (docs/campaign-file.md)")
    return False


def require_state(con: duckdb.DuckDBPyConnection) -> None:
    if not has_state(con):
        raise InputError("the campaign has not been started: run `bellica round start CAMPAIGN.duckdb` first")


class Statements:
    """The queries a connection kept open runs at every step (each state table's read, the log's
    checks), each prepared once on it (DuckDB's ``PREPARE``) and run by ``EXECUTE``: DuckDB then
    neither parses nor plans it again, which is most of what reading a table of tens of rows
    costs (a snapshot is read in a third of the time).  A prepared statement reads the tables as
    they are when it runs, and DuckDB binds it again when the catalog changed under it (a table
    created again, a column added); one that no longer binds raises what the query itself would.
    A :class:`~engine.core.campaign.Campaign` keeps one for its connection."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self._names: dict[str, str] = {}

    def execute(self, sql: str, *args: int) -> duckdb.DuckDBPyConnection:
        """Run ``sql`` (its parameters ``$1``, ``$2``... given as integers ``args``)."""
        name = self._names.get(sql)
        if name is None:
            name = "bellica_" + hashlib.sha256(sql.encode("utf-8")).hexdigest()[:20]
            self.con.execute(f"PREPARE {name} AS {sql}")
            self._names[sql] = name
        return self.con.execute(f"EXECUTE {name}" + (f"({', '.join(str(int(a)) for a in args)})" if args else ""))


def _run(con: duckdb.DuckDBPyConnection, statements: Statements | None, sql: str, *args: int) -> duckdb.DuckDBPyConnection:
    """``sql`` prepared on ``statements`` when given, else as a plain query."""
    if statements is not None:
        return statements.execute(sql, *args)
    return con.execute(sql, list(args)) if args else con.execute(sql)


def read_snapshot(con: duckdb.DuckDBPyConnection, schema: StateSchema, *, quiet: bool = False,
                  statements: Statements | None = None) -> Snapshot:
    """Read every state table into a :class:`Snapshot` (``quiet``: a failing read raises DuckDB's
    own error and logs nothing, for a caller that explains it itself; ``statements``: the reads
    prepared on the connection)."""
    snap = schema.empty()
    for table in schema.tables.values():
        names = table.column_names
        sql = f"SELECT {', '.join(names)} FROM {table.name}"
        found = None
        if statements is not None:
            try:
                found = statements.execute(sql).fetchall()
            except duckdb.Error:
                found = None  # read again as a plain query, for the error it gives (and its log line)
        if found is None:
            found = (con.execute(sql) if quiet else run_sql(con, sql, name=f"state.read.{table.name}")).fetchall()
        key = [names.index(k) for k in table.key]
        rows = snap.tables[table.name]
        for row in found:
            row = tuple(row)
            rows[tuple(row[i] for i in key)] = row
    return snap


def _write_changed(con, before: Snapshot, after: Snapshot) -> None:
    """Rewrite the tables whose rows changed (they hold tens of rows, so a rewrite is cheap)."""
    for name in after.schema.tables:
        if before.tables[name] == after.tables[name]:
            continue
        run_sql(con, f"DELETE FROM {name}", name=f"state.clear.{name}")
        rows = _sorted_rows(after, name)
        if not rows:
            continue
        # The values written in as literals straight away (what run_sql makes of ? parameters,
        # without scanning a statement of hundreds of placeholders for them).
        try:
            values = values_rows(rows)
        except InputError as e:
            raise InputError(f"query state.write.{name}: {e}") from None
        run_sql(con, f"INSERT INTO {name} VALUES {values}", name=f"state.write.{name}")


def _sorted_rows(snap: Snapshot, name: str) -> list[tuple]:
    """:meth:`Snapshot.rows`: the table's rows in key order (:func:`~engine.core.tables.sort_key`,
    which sorts None first); a key holding no None sorts the same as a plain tuple, which Python
    compares without a key function (the digest of every step sorts every table)."""
    table = snap.tables[name]
    keys = list(table)
    if any(None in k for k in keys):
        keys.sort(key=sort_key)
    else:
        keys.sort()
    return [table[k] for k in keys]


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
        raise BellicaError(f"an event names state table {name!r}, which this campaign's ruleset does not declare")
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
    return append_after(con, schema, events, before=before)[0]


def append_after(con: duckdb.DuckDBPyConnection, schema: StateSchema, events: Iterable[Event], *,
                 before: Snapshot | None = None, head: tuple[int, str] | None = None) -> tuple[Snapshot, tuple[int, str]]:
    """:func:`append_events`, given the log's last event as ``head`` (seq, hash) when the caller
    knows it (it checked the log in this transaction and appended only through here since);
    returns the new snapshot and the new head."""
    events = list(events)
    if before is None:
        before = read_snapshot(con, schema)
    after = before.copy()
    if head is None:
        if not has_chain(con):
            raise BellicaError("this event log has no hash chain (written before bellica hashed its log): "
                              "append through a Campaign step, which seals it first")
        last = con.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        head = (int(last[0]), last[1]) if last else (0, GENESIS)
    start, prev = head
    at = datetime.now(timezone.utc).replace(tzinfo=None)
    staged = []
    for i, ev in enumerate(events):
        # Round-trip through JSON so the live path applies exactly what replay will read.
        text = to_json(ev.data)
        if "\\ud" in text or "\\uD" in text or not ev.text.isascii():  # a surrogate is escaped so: look closer
            _require_utf8(ev)
        apply_event(after, ev.kind, json.loads(text))
        staged.append([start + i + 1, int(ev.round), str(ev.phase), ev.kind, text, ev.text, at, None])
    rows = []
    if staged:
        # The step's last event records the state it leaves, so the next step can check the
        # tables against the log without replaying it (:func:`check_log`).
        staged[-1][7] = state_digest(after)
        for row in staged:
            prev = event_hash(prev, *row)
            rows.append((*row, prev))
        placeholders = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows))
        run_sql(con, f'INSERT INTO events (seq, round, phase, kind, data, text, "at", state_hash, hash) VALUES {placeholders}',
                [v for r in rows for v in r], name="state.append_events")
    _write_changed(con, before, after)
    return after, (start + len(rows), prev)


def _texts(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every string in an event's data (keys too), with where it sits (``input.message``)."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            inner = f"{where}.{k}" if where else str(k)
            yield from _texts(k, inner)
            yield from _texts(v, inner)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for i, v in enumerate(value):
            yield from _texts(v, f"{where}[{i}]")


def _require_utf8(ev: Event) -> None:
    """Refuse an event holding text that is not UTF-8, before anything is written.  A byte of another
    encoding typed on a command line reaches Python as a lone surrogate, which DuckDB's JSON and text
    cannot store: the INSERT would fail, its whole statement (hashes and all) in the message."""
    for where, text in [*_texts(ev.data, ""), ("text", ev.text)]:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            name = where.rsplit(".", 1)[-1].split("[")[0] or "text"  # the field's own name: "message"
            raise InputError(f"{name} {text[:60]!r} is not UTF-8 text (a byte of another encoding was typed): "
                             "type it in UTF-8; nothing stored") from None


def load_events(con: duckdb.DuckDBPyConnection, *, round: int | None = None, strict: bool = True) -> list[StoredEvent]:
    """The event log in order, optionally one round's events only.

    Data that is not JSON (only an edit outside bellica stores it) is a :class:`LogTampered`
    naming the event; ``strict=False`` (a read-only look at a log already reported damaged)
    keeps such an event, its data ``{"unreadable": the stored text}``, so it can still be shown.
    """
    sql = "SELECT seq, round, phase, kind, data, text, \"at\" FROM events"
    params = None
    if round is not None:
        sql += " WHERE round = ?"
        params = [round]
    rows = run_sql(con, sql + " ORDER BY seq", params, name="state.load_events").fetchall()
    out = []
    for seq, r, phase, kind, data, text, at in rows:
        try:
            parsed = json.loads(data)
        except (TypeError, ValueError) as e:
            if not strict:
                out.append(StoredEvent(seq, r, phase, kind, {"unreadable": data}, text or "", at))
                continue
            # Only an edit outside bellica stores this (the column is JSON): report it, never crash.
            why = "no data" if data is None else f"data that is not JSON ({getattr(e, 'msg', e)})"
            raise LogTampered(f"the event log has been edited: event {seq} ({kind}) has {why}") from None
        out.append(StoredEvent(seq, r, phase, kind, parsed, text or "", at))
    return out


# --- replay -------------------------------------------------------------------------


def replay_snapshot(schema: StateSchema, events: Iterable[StoredEvent]) -> Snapshot:
    """Fold ``events`` over empty tables."""
    snap = schema.empty()
    for ev in events:
        _replay_one(snap, ev)
    return snap


def _replay_one(snap: Snapshot, ev: StoredEvent) -> None:
    """Apply one logged event; data a reducer cannot read (an edited log) is a one-line
    :class:`ReplayMismatch` naming the event, never a traceback."""
    try:
        apply_event(snap, ev.kind, ev.data)
    except ReplayMismatch:
        raise
    except (BellicaError, KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        what = f"no field {e}" if isinstance(e, KeyError) else str(e)
        raise ReplayMismatch(f"event {ev.seq} ({ev.kind}) does not replay: its data has {what}: "
                             "the log has been edited") from None


def verify_log(con: duckdb.DuckDBPyConnection, schema: StateSchema, expected_setup: Callable[[int], Snapshot], default_seed: int) -> Snapshot:
    """Raise :class:`ReplayMismatch` unless replaying the log reproduces every state table exactly.

    Also checks that the log is gap-free (seq 1..n), and that its set-up events
    reproduce ``expected_setup(seed)`` (the ruleset's start from the scenario), so
    the replay really starts from the scenario and not from whatever the first
    events say.
    """
    require_state(con)
    require_shapes(con, schema)
    if has_chain(con):
        problem = chain_problem(_chain_rows(con))
        if problem:
            raise LogTampered(f"the event log has been edited: {problem}")
    events = load_events(con)
    if [ev.seq for ev in events] != list(range(1, len(events) + 1)):
        raise ReplayMismatch("the event log has gaps or duplicates in seq: it has been edited, not appended to")
    setup = schema.empty()
    for ev in events:
        if ev.phase != "setup":
            break
        _replay_one(setup, ev)
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


# --- the hash chain ---------------------------------------------------------------


def event_hash(prev: str, seq, round, phase, kind, data: str, text, at, state_hash) -> str:
    """``sha256(prev || canonical JSON of the event)``, hex: ``data`` is the stored JSON text
    (already canonical: :func:`engine.core.events.to_json`), ``at`` the stored time."""
    when = None if at is None else (at.isoformat(sep=" ") if hasattr(at, "isoformat") else str(at))
    body = json.dumps([seq, round, phase, kind, data, text, when, state_hash], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256((prev + body).encode("utf-8")).hexdigest()


def state_digest(snap: Snapshot) -> str:
    """sha256 of every state table's rows in key order (the canonical form :meth:`Snapshot.rows` gives)."""
    h = hashlib.sha256()
    for name in snap.schema.tables:
        h.update(json.dumps([name, _sorted_rows(snap, name)], ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8"))
    return h.hexdigest()


def has_chain(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the event log has the ``hash`` column (files written before it have not)."""
    return "hash" in {d[0] for d in con.execute("SELECT * FROM events LIMIT 0").description}


def _chain_rows(con) -> list[tuple]:
    return con.execute(_CHAIN_SQL).fetchall()


_EVENT_COLUMNS = ("seq", "round", "phase", "kind", "data", "text", "at")


def require_shapes(con: duckdb.DuckDBPyConnection, schema: StateSchema) -> None:
    """Raise :class:`LogUnreadable` when the log or a state table has lost a table or column
    bellica writes (only an edit outside bellica does that), before any query trips on it."""
    found: dict[str, set[str]] = {}
    for table, column in con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = 'main'"
    ).fetchall():
        found.setdefault(table.lower(), set()).add(column.lower())
    events = found.get("events", set())
    wanted = list(_EVENT_COLUMNS) + (["hash", "state_hash"] if "hash" in events or "state_hash" in events else [])
    for column in wanted:
        if column not in events:
            raise LogUnreadable(f"the event log has lost its {column!r} column: it has been edited outside bellica")
    # A table or column missing is an edit outside bellica, or a file an older bellica made (before the
    # ruleset grew that table): either way this version cannot read it without guessing.
    why = ("it was changed outside bellica, or made by an older bellica: restore it from a copy, or finish "
           "the campaign with the bellica that started it (docs/campaign-file.md)")
    for table in schema.tables.values():
        if table.name not in found:
            raise LogUnreadable(f"state table {table.name} is missing: {why}")
        for column in table.column_names:
            if column.lower() not in found[table.name]:
                raise LogUnreadable(f"state table {table.name} has no {column!r} column: {why}")


def chain_problem(rows: list[tuple]) -> str | None:
    """The first break in the hash chain, in words naming the event (None: intact).

    ``rows``: (seq, round, phase, kind, data text, text, at, state_hash, hash, ...) in seq order.
    Each event is checked against the *stored* hash of the one before it, so the event
    named is the first one edited, not merely the first after it.
    """
    prev = GENESIS
    for i, row in enumerate(rows):
        seq, kind, h = row[0], row[3], row[8]
        if seq != i + 1:
            if seq is None:
                return f"an event ({kind}) after event {i} has no seq: it was inserted outside bellica"
            if i and seq == rows[i - 1][0]:
                return f"seq {seq} appears twice ({rows[i - 1][3]} and {kind}): an event was inserted or renumbered"
            if i == 0:
                return f"the log starts at seq {seq}, not 1: events 1-{seq - 1} were deleted (the log has gaps)"
            return f"event {i + 1} is missing (seq jumps from {i} to {seq}): an event was deleted (the log has gaps)"
        if h is None:
            return f"event {seq} ({kind}) has no hash: it was inserted or rewritten outside bellica"
        if event_hash(prev, *row[:8]) != h:
            return f"event {seq} ({kind}) does not match its hash: {_what_differs(rows, i)}"
        prev = h
    return None


def _what_differs(rows: list[tuple], i: int) -> str:
    """Why event ``i`` fails its hash, as far as the chain can tell (only called on a failure)."""
    seq, rnd, phase, kind, data, text, at, state_hash, h = rows[i][:9]
    prevs = [GENESIS] + [r[8] for r in rows if r[8]]
    # Its contents intact under another seq: the seq numbers were edited (swapped, renumbered).
    for other in range(max(1, seq - 3), seq + 4):
        if other != seq and any(event_hash(p, other, *rows[i][1:8]) == h for p in prevs):
            return f"it was written as event {other}: seq numbers were changed (events swapped or renumbered)"
    # Its contents intact but chained after another event: one before it was replaced.
    stored_prev = rows[i - 1][8] if i else GENESIS
    if any(p != stored_prev and event_hash(p, *rows[i][:8]) == h for p in prevs):
        return "its own contents are as written, but the event before it was replaced"
    return "its round, phase, kind, data, text or time differ from what was written (edited after it was written)"


@dataclass(frozen=True)
class LogMark:
    """How far a connection has checked the log: events 1..``seq`` chain intact, ``head`` the hash
    and ``state_hash`` the recorded state of event ``seq``, ``fingerprint`` the sum of those events'
    :data:`_ROW_FINGERPRINT` (any change to any of their columns changes it)."""

    seq: int
    head: str
    state_hash: str | None
    fingerprint: int


def check_log(con: duckdb.DuckDBPyConnection, schema: StateSchema) -> Snapshot:
    """The check a step runs before it writes: raise :class:`LogTampered` naming the first bad
    event or table row, else return the stored tables.

    The chain is checked over the whole log (one query and a hash per event); the tables
    are compared with the ``state_hash`` of the last event (a digest of tens of rows), and
    only when that differs, or the log has no chain yet, is the log replayed to name the
    row (or to find that only the digest's form differs).
    """
    return check_log_from(con, schema, None)[0]


def check_log_from(con: duckdb.DuckDBPyConnection, schema: StateSchema, mark: LogMark | None, *,
                   statements: Statements | None = None, chained: bool | None = None) -> tuple[Snapshot, LogMark | None]:
    """:func:`check_log` for a connection that checked the log before, up to ``mark``: returns the
    stored tables and the mark of this check (None: the log has no chain yet), for the next.

    The events up to ``mark`` are not hashed again when their count and their summed fingerprint
    (one aggregate query, computed by DuckDB) are what they were: only the events after it are
    chained on from its head, so a step costs the same on a long log as on a short one.  Anything
    else (an event up to the mark edited, deleted, renumbered or added, a break after it) checks
    the whole chain as :func:`check_log` does, so the refusal names the first bad event in the same
    words.  The tables are checked against the last event's ``state_hash`` either way.
    ``statements``: the connection's prepared queries; ``chained``: whether the log has its hash
    columns, when the caller has just asked (:func:`has_chain`).
    """
    # The shapes are checked only when a read fails (it names the table or column an edit took
    # away): a catalog scan on every step costs more than all the reads it guards (issue 11).
    try:
        stored = read_snapshot(con, schema, quiet=True, statements=statements)
        if chained is None:
            chained = has_chain(con)
        if chained and mark is not None:
            mark = _checked_past(con, mark, statements)
        else:
            mark = None
        rows = con.execute(_CHAIN_FINGERPRINT_SQL).fetchall() if chained and mark is None else None
    except duckdb.Error:
        require_shapes(con, schema)
        raise
    if rows is not None:
        problem = chain_problem(rows)
        if problem:
            raise LogTampered(f"the event log has been edited: {problem}")
        if rows:
            mark = LogMark(len(rows), rows[-1][8], rows[-1][7], sum(r[9] for r in rows))
    recorded = mark.state_hash if mark is not None else None
    if recorded is not None and state_digest(stored) == recorded:
        return stored, mark
    events = load_events(con)
    if [ev.seq for ev in events] != list(range(1, len(events) + 1)):
        raise LogTampered("the event log has gaps or duplicates in seq: it has been edited, not appended to")
    problems = diff_snapshots(replay_snapshot(schema, events), stored, left="replayed log", right="stored tables")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise LogTampered(f"the state tables have been edited behind the event log: {problems[0]}{more}")
    return stored, mark


#: The chain's columns (:data:`_CHAIN_SQL`) and each event's fingerprint: the whole log ...
_CHAIN_FINGERPRINT_SQL = _CHAIN_SQL.replace(" FROM events", f", {_ROW_FINGERPRINT} FROM events")
#: ... the events past a mark's ``seq``, and any without a seq (sorted last, as the whole chain sorts them) ...
_PAST_SQL = _CHAIN_FINGERPRINT_SQL.replace(" FROM events", " FROM events WHERE seq > $1 OR seq IS NULL")
#: ... and how many events there are up to it, and their summed fingerprint.
_MARKED_SQL = f"SELECT count(*), sum({_ROW_FINGERPRINT}) FROM events WHERE seq <= $1"


def _checked_past(con: duckdb.DuckDBPyConnection, mark: LogMark, statements: Statements | None) -> LogMark | None:
    """The mark of the log now, when its events up to ``mark`` are those checked then and every
    event after them carries on the chain from its head; None: check the whole chain."""
    seq = int(mark.seq)
    count, fingerprint = _run(con, statements, _MARKED_SQL, seq).fetchone()
    if count != seq or fingerprint != mark.fingerprint:
        return None
    after = _run(con, statements, _PAST_SQL, seq).fetchall()
    head, state_hash = mark.head, mark.state_hash
    for row in after:
        if row[0] != seq + 1 or row[8] is None or event_hash(head, *row[:8]) != row[8]:
            return None
        seq, head, state_hash, fingerprint = row[0], row[8], row[7], fingerprint + row[9]
    return LogMark(seq, head, state_hash, fingerprint)


def seal_log(con: duckdb.DuckDBPyConnection) -> tuple[int, str]:
    """Give a log written before hashes its ``hash`` and ``state_hash`` columns and chain every
    event (call inside a transaction, after :func:`verify_log` has passed); (events, head hash)."""
    run_sql(con, "ALTER TABLE events ADD COLUMN hash VARCHAR", name="state.seal.hash")
    run_sql(con, "ALTER TABLE events ADD COLUMN state_hash VARCHAR", name="state.seal.state_hash")
    prev, pairs = GENESIS, []
    for row in _chain_rows(con):
        prev = event_hash(prev, *row[:8])
        pairs.append((row[0], prev))
    for i in range(0, len(pairs), 500):
        chunk = pairs[i:i + 500]
        values = ", ".join(["(?, ?)"] * len(chunk))
        run_sql(con, f"UPDATE events SET hash = u.h FROM (VALUES {values}) AS u(seq, h) WHERE events.seq = u.seq",
                [v for p in chunk for v in p], name="state.seal.update")
    return len(pairs), prev


def log_head(con: duckdb.DuckDBPyConnection) -> str | None:
    """The last event's hash (None: no chain), which an umpire may note down to compare later."""
    if not has_chain(con):
        return None
    row = con.execute("SELECT hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    return row[0] if row else None
