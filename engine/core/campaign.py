"""The one :class:`Campaign` object: a campaign file, its ruleset, its Board and every cache.

::

    with Campaign.open("punic.duckdb") as c:          # read_only=True for a look
        c.ruleset, c.board, c.rules                    # plug-in, static board, rules data
        with c.transaction():
            snap = c.snapshot()
            c.append(events, before=snap)

Everything a process learns about a campaign lives on this object and dies with
it: the Board is read once (on first use) and closed with the campaign
(:meth:`Ruleset.close_board`); nothing is kept at module level, so two campaigns
open in one process never share, and a benchmark or a test starts cold by
opening a new Campaign.  One CLI command opens one Campaign.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import duckdb

from bellica.engine.core import rng
from bellica.engine.core import state as st
from bellica.engine.core.events import Event, StoredEvent
from bellica.engine.core.rules import stored_ruleset_name
from bellica.engine.core.ruleset import LEGACY_RULESET, Ruleset, get_ruleset
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError

__all__ = ["Campaign"]


class Campaign:
    """A campaign database with its ruleset; use :meth:`open` (a file) or :meth:`attach` (a connection)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, ruleset: Ruleset, *, path: Path | None = None,
                 read_only: bool = False, owns_connection: bool = True) -> None:
        self.con = con
        self.ruleset = ruleset
        self.path = path
        self.read_only = read_only
        self._owns_connection = owns_connection
        self._board: Any = None
        self._rules: Any = None
        #: Values a ruleset derives from the campaign and keeps for its life (e.g. structure names).
        self.cache: dict[str, Any] = {}
        self.closed = False
        #: Where a read-only campaign reports a damaged log (one line; default: stderr).
        self.warn: Callable[[str], None] = _warn_on_stderr
        #: The faction a read-only look is for (None: the umpire). A faction is told that the file
        #: was edited, never what the edited rows or events hold: they may be another faction's.
        self.viewer: str | None = None
        self._read_checked = False
        self._damaged = False  # a read-only look found the log damaged (and warned)
        self._checked: Snapshot | None = None  # the tables the pre-write check just read, for the step's first read
        #: How far this Campaign's last pre-write check verified the log (:class:`engine.core.state.LogMark`):
        #: the next check hashes only the events after it, once DuckDB confirms those up to it unchanged.
        self._mark: st.LogMark | None = None
        #: Inside a step: the log's last event (seq, hash), as the check found it and each append left it.
        self._head: tuple[int, str] | None = None
        #: The state tables' reads and the log's checks, prepared once on this connection.
        self._statements = st.Statements(con)

    # --- opening and closing ---------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False, ruleset: Ruleset | str | None = None) -> "Campaign":
        """Open an existing campaign file.  Every way the file can be wrong is one line naming it
        and the fix (:mod:`engine.core.campaign_file`): missing, a directory, unreadable, not a
        DuckDB file (text, empty, truncated), a map and not a campaign, or held by another
        process (named by its PID, and whether it is a bellica command)."""
        from bellica.engine.core.campaign_file import damaged, open_connection

        path = Path(path)
        con = open_connection(path, read_only=read_only)
        try:
            # One thread: a campaign's queries read tens to thousands of rows, mostly within one of
            # DuckDB's row groups (122,880 rows), the unit it parallelises a scan by, so more threads
            # mostly cost.  On 2 cores, a step's commit and checkpoint took 9.6 ms of CPU against 15.5,
            # a full round of the benchmark's script 1.04 s against 1.49 at res 5 and 1.30 against
            # 2.21 at res 6 (issue 23 item 9).
            con.execute("SET threads = 1")
            rules = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset or stored_ruleset_name(con, LEGACY_RULESET))
        except duckdb.Error as e:
            con.close()
            raise damaged(path, e) from None
        except BaseException:
            con.close()
            raise
        return cls(con, rules, path=path, read_only=read_only)

    @classmethod
    def attach(cls, con: duckdb.DuckDBPyConnection, *, ruleset: Ruleset | str | None = None) -> "Campaign":
        """A Campaign over a connection the caller keeps (closing the Campaign leaves ``con`` open)."""
        rules = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset or stored_ruleset_name(con, LEGACY_RULESET))
        return cls(con, rules, owns_connection=False)

    def close(self) -> None:
        """Release the Board's resources and, when this Campaign opened it, the connection."""
        if self.closed:
            return
        self.closed = True
        if self._board is not None:
            board, self._board = self._board, None
            self.ruleset.close_board(board)
        self.cache.clear()
        if self._owns_connection:
            from bellica.geo.spatialdb import remember_catalog

            remember_catalog(self.con, False)
            self.con.close()

    def __enter__(self) -> "Campaign":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- what is read once -----------------------------------------------------------------

    @property
    def board(self) -> Any:
        """The ruleset's static Board of this campaign, read on first use and kept."""
        if self._board is None:
            self._board = self.ruleset.load_board(self)
        return self._board

    @property
    def rules(self) -> Any:
        """The ruleset's rules data for this campaign, read on first use and kept."""
        if self._rules is None:
            self._rules = self.ruleset.read_rules(self)
        return self._rules

    def faction(self, name: str | None, *, where: str = "--faction") -> str | None:
        """The campaign's faction ``name`` means, spelled as the scenario spells it (None stays None):
        one resolver for every faction a user types, so "roma" and "rom" are Roma, and an unknown name is
        refused with the valid ones (``where`` says which input it was; :mod:`engine.core.names`)."""
        if name is None:
            return None
        from bellica.engine.core.names import one_named

        return one_named(name, self.ruleset.factions(self), what="faction", where=where)

    def tables(self) -> set[str]:
        """Names of the tables and views in the file (lower case)."""
        return st.existing_tables(self.con)

    # --- state and log ---------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator["Campaign"]:
        """One DuckDB transaction (see :func:`engine.core.state.transaction`).

        Before the step inside writes anything, the log's hash chain and the state tables'
        agreement with it are checked (:func:`engine.core.state.check_log_from`): a tampered
        campaign is refused in one line naming the first bad event or table row, and the
        file is left as it was.  A log written before hashes is verified from the scenario
        and sealed first, in the same transaction (:meth:`_seal_log`).  A Campaign kept open
        for many steps (the web app's) hashes, at each check, only the events since its last
        check: DuckDB confirms the earlier ones unchanged (their count and fingerprint), and
        any change to them checks the whole chain again.
        """
        try:
            # The committed step goes into the file itself at once: a step living only in the WAL
            # would be lost, silently, with a WAL cut short (issue 23 item 6; make bench).  The
            # COMMIT checkpoints; the CHECKPOINT after it is a no-op unless that could not run.
            with st.transaction(self.con, checkpoint=not self.read_only):
                if not self.read_only and self.has_state():
                    self._check_before_write()
                yield self
            if not self.read_only:
                self.con.execute("CHECKPOINT")
        finally:
            self._checked = None
            self._head = None

    def _where(self) -> str:
        return str(self.path) if self.path is not None else "the campaign"

    def _check_before_write(self) -> None:
        if not st.has_chain(self.con):
            self._seal_log()
            return
        try:
            self._checked, self._mark = st.check_log_from(self.con, self.ruleset.schema, self._mark,
                                                          statements=self._statements, chained=True)
            self._head = (self._mark.seq, self._mark.head) if self._mark is not None else None
        except (st.ReplayMismatch, duckdb.Error) as e:
            self._mark = None
            why = e if isinstance(e, st.ReplayMismatch) else f"the event log cannot be read: {_first_line(e)}"
            raise st.LogTampered(f"{self._where()}: refused, nothing written: {why}; "
                                 "`bellica round verify` reports it (docs/campaign-file.md)") from None

    def _seal_log(self) -> None:
        """A campaign file written before bellica hashed its log: verify it from the scenario
        (a log that does not replay is refused, not blessed), chain every event, and log that."""
        try:
            self.verify()
        except st.ReplayMismatch as e:
            raise st.LogTampered(f"{self._where()}: refused, nothing written: its event log (written before bellica "
                                 f"hashed its log) does not replay, so it cannot be sealed: {e}") from None
        n, head = st.seal_log(self.con)
        before = self.snapshot()
        text = (f"event log sealed: events 1-{n}, written before bellica hashed its log, were verified against "
                f"the scenario and chained (head {head[:16]})")
        self.append([Event(int(before.campaign("round") or 1), "log", st.SEAL_KIND, {"events": n, "head": head}, text)],
                    before=before)

    def has_state(self) -> bool:
        """Whether the campaign has started; an emptied log is refused naming the file (exit 4)."""
        try:
            return st.has_state(self.con, statements=self._statements)
        except st.LogTampered as e:
            raise st.LogTampered(f"{self._where()}: {e}") from None

    def require_state(self) -> None:
        st.require_state(self.con)

    def snapshot(self) -> Snapshot:
        """Every state table as stored now."""
        if self._checked is not None:
            # The pre-write check has just read them in this transaction and nothing was appended since.
            snap, self._checked = self._checked, None
            return snap
        self._check_on_read()
        return st.read_snapshot(self.con, self.ruleset.schema, statements=self._statements)

    def _check_on_read(self) -> None:
        """A read-only look (status, show, log) warns once, in one line, when the log is damaged:
        it still shows what is stored, and steps refuse to write until the file is restored."""
        if not self.read_only or self._read_checked:
            return
        self._read_checked = True
        if not self.has_state():
            return
        try:
            st.check_log(self.con, self.ruleset.schema)
        except st.LogUnreadable as e:
            # A table or column is gone: there is nothing to show, so one error line, not a warning.
            raise st.LogUnreadable(f"{self._where()}: {e}: restore the file from a copy (docs/campaign-file.md)") from None
        except (st.ReplayMismatch, duckdb.Error) as e:
            self._damaged = True
            what = e if self.viewer is None else "the event log or state tables were edited outside bellica (the umpire's `bellica round verify` names the change)"
            self.warn(f"{self._where()}: {what}; what is shown may not be what was adjudicated, "
                      "and steps will refuse to write (`bellica round verify`)")

    def append(self, events: Iterable[Event], *, before: Snapshot | None = None) -> Snapshot:
        """Append events and apply their state kinds (inside :meth:`transaction`); the new snapshot."""
        self._checked = None
        if self._head is None:  # not in a checked step: the log's last event is read
            return st.append_events(self.con, self.ruleset.schema, events, before=before)
        after, self._head = st.append_after(self.con, self.ruleset.schema, events, before=before, head=self._head)
        return after

    def events(self, *, round: int | None = None) -> list[StoredEvent]:
        self._check_on_read()
        return st.load_events(self.con, round=round, strict=not self._damaged)

    def replay_snapshot(self) -> Snapshot:
        """The tables the whole event log replays to."""
        return st.replay_snapshot(self.ruleset.schema, self.events())

    def verify(self) -> Snapshot:
        """Raise :class:`~engine.core.state.ReplayMismatch` unless the log's hash chain is intact
        and the log, replayed from the scenario's start, gives every stored table exactly;
        returns the replayed snapshot.  A log damaged in a way the reducers cannot even read
        is reported the same way (one line), never as a traceback."""
        try:
            return st.verify_log(self.con, self.ruleset.schema, lambda seed: self.ruleset.start_snapshot(self, seed=seed),
                                 rng.DEFAULT_SEED)
        except duckdb.Error as e:
            raise st.ReplayMismatch(f"the event log or state tables cannot be read: {_first_line(e)}") from None

    def log_head(self) -> str | None:
        """The last event's hash (None: a log written before hashes), to note down and compare later."""
        return st.log_head(self.con)

    def start(self, *, seed: int | None = None) -> Snapshot:
        """Create the state tables and record the ruleset's starting state, in one transaction.

        Refuses a campaign that has already started (its log would be rewritten).
        ``seed`` defaults to :data:`engine.core.rng.DEFAULT_SEED`.
        """
        if self.has_state():
            raise InputError("the campaign has already started: its event log is kept; use `bellica round status`")
        seed = rng.DEFAULT_SEED if seed is None else int(seed)
        with self.transaction():
            st.create_state_tables(self.con, self.ruleset.schema)
            snap = self.append(self.ruleset.initial_events(self, seed=seed))
            self.ruleset.after_start(self)
        return snap

    def seed(self) -> int:
        """The campaign's random seed (:mod:`engine.core.rng` keys every draw by it)."""
        return rng.campaign_seed(self.con)


def _warn_on_stderr(message: str) -> None:
    print("warning: " + " ".join(message.split()), file=sys.stderr)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
