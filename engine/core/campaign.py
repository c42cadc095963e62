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

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

import duckdb

from tabula.datasets.rules import canonical_faction
from tabula.engine.core import rng
from tabula.engine.core import state as st
from tabula.engine.core.events import Event, StoredEvent
from tabula.engine.core.rules import stored_ruleset_name
from tabula.engine.core.ruleset import LEGACY_RULESET, Ruleset, get_ruleset
from tabula.engine.core.tables import Snapshot
from tabula.geo.errors import InputError, MissingInputError

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

    # --- opening and closing ---------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, *, read_only: bool = False, ruleset: Ruleset | str | None = None) -> "Campaign":
        """Open an existing campaign file; a missing file or one locked by a running step is a one-line error."""
        from tabula.geo.spatialdb import connect

        path = Path(path)
        if not path.exists():
            raise MissingInputError(f"campaign database {path} does not exist: create it with `tabula campaign new`")
        try:
            con = connect(path, read_only=read_only)
        except duckdb.IOException as e:
            if "lock" in str(e).lower():
                raise InputError(f"{path} is open in another process (a step running?): wait for it to finish and retry") from None
            raise
        try:
            rules = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset or stored_ruleset_name(con, LEGACY_RULESET))
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
        one resolver for every faction a user types, so "roma" is Roma, and an unknown name is
        refused with the valid ones (``where`` says which input it was)."""
        if name is None:
            return None
        return canonical_faction(name, self.ruleset.factions(self), where=where)

    def tables(self) -> set[str]:
        """Names of the tables and views in the file (lower case)."""
        return st.existing_tables(self.con)

    # --- state and log ---------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator["Campaign"]:
        """One DuckDB transaction (see :func:`engine.core.state.transaction`)."""
        with st.transaction(self.con):
            yield self

    def has_state(self) -> bool:
        return st.has_state(self.con)

    def require_state(self) -> None:
        st.require_state(self.con)

    def snapshot(self) -> Snapshot:
        """Every state table as stored now."""
        return st.read_snapshot(self.con, self.ruleset.schema)

    def append(self, events: Iterable[Event], *, before: Snapshot | None = None) -> Snapshot:
        """Append events and apply their state kinds (inside :meth:`transaction`); the new snapshot."""
        return st.append_events(self.con, self.ruleset.schema, events, before=before)

    def events(self, *, round: int | None = None) -> list[StoredEvent]:
        return st.load_events(self.con, round=round)

    def replay_snapshot(self) -> Snapshot:
        """The tables the whole event log replays to."""
        return st.replay_snapshot(self.ruleset.schema, self.events())

    def verify(self) -> Snapshot:
        """Raise :class:`~engine.core.state.ReplayMismatch` unless the log, replayed from the
        scenario's start, gives every stored table exactly; returns the replayed snapshot."""
        return st.verify_log(self.con, self.ruleset.schema, lambda seed: self.ruleset.start_snapshot(self, seed=seed),
                             rng.DEFAULT_SEED)

    def start(self, *, seed: int | None = None) -> Snapshot:
        """Create the state tables and record the ruleset's starting state, in one transaction.

        Refuses a campaign that has already started (its log would be rewritten).
        ``seed`` defaults to :data:`engine.core.rng.DEFAULT_SEED`.
        """
        if self.has_state():
            raise InputError("the campaign has already started: its event log is kept; use `tabula round status`")
        seed = rng.DEFAULT_SEED if seed is None else int(seed)
        with self.transaction():
            st.create_state_tables(self.con, self.ruleset.schema)
            snap = self.append(self.ruleset.initial_events(self, seed=seed))
            self.ruleset.after_start(self)
        return snap

    def seed(self) -> int:
        """The campaign's random seed (:mod:`engine.core.rng` keys every draw by it)."""
        return rng.campaign_seed(self.con)
