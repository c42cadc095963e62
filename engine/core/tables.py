"""State tables as a ruleset declares them, and the :class:`Snapshot` that holds their rows.

A state table is declared once, in SQL: a ``CREATE TABLE`` statement whose
``PRIMARY KEY`` names the columns that key its rows (:func:`tables_from_sql`
reads a file or text of them into :class:`StateTable` objects).  The core
creates the table from that statement, reads it into a :class:`Snapshot`, and
rewrites it from one.  The ``campaign`` and ``round_notes`` tables (and the
``events`` log) are the core's own, in ``engine/core/sql/state.sql``; every
other state table belongs to a ruleset (:attr:`engine.core.ruleset.Ruleset.state_sql`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

import duckdb

from tabula.geo.errors import TabulaError

__all__ = ["StateTable", "StateSchema", "Snapshot", "tables_from_sql", "core_tables", "events_ddl", "sort_key"]

CORE_SQL = Path(__file__).resolve().parent / "sql" / "state.sql"

_INTEGER_TYPES = {"INTEGER", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT"}
_FLOAT_TYPES = {"DOUBLE", "FLOAT", "REAL"}


@dataclass(frozen=True)
class StateTable:
    """One state table: ``columns`` as (name, DuckDB type) in table order, ``key`` the columns
    that key a row, ``create`` the statement that creates it (if it does not exist)."""

    name: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...]
    create: str = field(compare=False, repr=False)

    def __post_init__(self) -> None:
        names = self.column_names
        missing = [k for k in self.key if k not in names]
        if missing or not self.key:
            raise TabulaError(f"state table {self.name}: key {self.key} must name some of its columns {names}")

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.columns)

    def key_of(self, row: tuple) -> tuple:
        names = self.column_names
        return tuple(row[names.index(k)] for k in self.key)

    def row_from(self, values: Mapping[str, Any]) -> tuple:
        """A row from ``{column: value}`` coerced to the column types, as DuckDB reads it back
        (so a snapshot built from events equals one read from the tables)."""
        unknown = sorted(set(values) - set(self.column_names))
        if unknown:
            raise TabulaError(f"state table {self.name} has no column {unknown[0]!r}: its columns are {', '.join(self.column_names)}")
        return tuple(_coerce(values.get(name), typ) for name, typ in self.columns)

    def key_from(self, values: Mapping[str, Any]) -> tuple:
        types = dict(self.columns)
        missing = [k for k in self.key if k not in values]
        if missing:
            raise TabulaError(f"a key of state table {self.name} needs {', '.join(self.key)}; {missing[0]!r} is missing")
        return tuple(_coerce(values[k], types[k]) for k in self.key)


def _coerce(value: Any, typ: str) -> Any:
    if value is None:
        return None
    t = typ.upper()
    if t in _INTEGER_TYPES:
        return int(value)
    if t in _FLOAT_TYPES:
        return float(value)
    if t == "BOOLEAN":
        return bool(value)
    if t == "JSON":
        return json.dumps(value, sort_keys=True)
    return str(value)


_CREATE = re.compile(r"^\s*CREATE\s+TABLE\s+(?!IF\s+NOT\s+EXISTS)", re.I)


def _read_sql(sql: str | Path) -> list[tuple[str, tuple[tuple[str, str], ...], tuple[str, ...], str]]:
    """(table, columns, primary key, create statement) of every ``CREATE TABLE`` of a SQL file or text.

    DuckDB itself reads the statements (in a scratch in-memory database), so the
    columns and keys are exactly what the file creates.
    """
    text = sql.read_text(encoding="utf-8") if isinstance(sql, Path) else sql
    where = str(sql) if isinstance(sql, Path) else "the state SQL"
    scratch = duckdb.connect()
    try:
        creates: dict[str, str] = {}
        for statement in scratch.extract_statements(text):
            before = {r[0] for r in scratch.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
            try:
                scratch.execute(statement.query)
            except duckdb.Error as e:
                raise TabulaError(f"{where}: {e}") from None
            added = sorted({r[0] for r in scratch.execute("SELECT table_name FROM duckdb_tables()").fetchall()} - before)
            if len(added) != 1:
                raise TabulaError(f"{where}: every statement must create one table; {statement.query.strip()[:60]!r} does not")
            creates[added[0]] = _CREATE.sub("CREATE TABLE IF NOT EXISTS ", statement.query.strip(), count=1)
        columns: dict[str, list[tuple[str, str]]] = {}
        for table, column, typ in scratch.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE NOT internal ORDER BY table_oid, column_index"
        ).fetchall():
            columns.setdefault(table, []).append((column, typ))
        keys = dict(scratch.execute(
            "SELECT table_name, constraint_column_names FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'"
        ).fetchall())
    finally:
        scratch.close()
    return [(name, tuple(columns[name]), tuple(keys.get(name) or ()), create) for name, create in creates.items()]


def tables_from_sql(sql: str | Path) -> tuple[StateTable, ...]:
    """The state tables of a SQL file (a :class:`~pathlib.Path`) or text, in statement order:
    every statement a ``CREATE TABLE`` whose ``PRIMARY KEY`` names the columns that key its rows."""
    out = []
    for name, columns, key, create in _read_sql(sql):
        if not key:
            raise TabulaError(f"{sql if isinstance(sql, Path) else 'the state SQL'}: state table {name} has no PRIMARY KEY: "
                              "name the columns that key its rows")
        out.append(StateTable(name, columns, key, create))
    return tuple(out)


@lru_cache(maxsize=1)
def _core() -> tuple[tuple[StateTable, ...], str]:
    read = _read_sql(CORE_SQL)
    tables = tuple(StateTable(name, columns, key, create) for name, columns, key, create in read if name != "events")
    return tables, next(create for name, _c, _k, create in read if name == "events")


def core_tables() -> tuple[StateTable, ...]:
    """The core's own state tables: campaign keys (round, phase, stage, seed, winner, ...) and
    per-round facts a later step of the round needs (``engine/core/sql/state.sql``)."""
    return _core()[0]


def events_ddl() -> str:
    """The statement that creates the event log (``engine/core/sql/state.sql``)."""
    return _core()[1]


@dataclass(frozen=True)
class StateSchema:
    """Every state table of a campaign (the core's, then the ruleset's) and the state event kinds."""

    tables: Mapping[str, StateTable]
    reducers: Mapping[str, Any]  # kind -> reducer(snapshot, data)

    @classmethod
    def build(cls, tables: Iterable[StateTable], reducers: Mapping[str, Any]) -> "StateSchema":
        out: dict[str, StateTable] = {}
        for t in tables:
            if t.name in out or t.name == "events":
                raise TabulaError(f"state table {t.name} is declared twice (or is the reserved `events`)")
            out[t.name] = t
        return cls(out, dict(reducers))

    @property
    def state_kinds(self) -> frozenset[str]:
        return frozenset(self.reducers)

    def empty(self) -> "Snapshot":
        return Snapshot({t: {} for t in self.tables}, schema=self)


def sort_key(key: tuple) -> tuple:
    # None sorts first; mixed types never share a column.
    return tuple((v is not None, v) for v in key)


@dataclass
class Snapshot:
    """Every state table as ``{table: {key tuple: row tuple}}`` (rows in column order)."""

    tables: dict[str, dict[tuple, tuple]]
    schema: StateSchema | None = field(default=None, compare=False, repr=False)

    def rows(self, table: str) -> list[tuple]:
        """The table's rows sorted by key: the canonical form compared by replay."""
        return [self.tables[table][k] for k in sorted(self.tables[table], key=sort_key)]

    def campaign(self, key: str, default: str | None = None) -> str | None:
        row = self.tables["campaign"].get((key,))
        return row[1] if row else default

    def note(self, round: int, key: str, default: Any = None) -> Any:
        """A round note's JSON value (``default`` when absent)."""
        row = self.tables["round_notes"].get((int(round), key))
        return default if row is None else json.loads(row[2])

    def copy(self) -> "Snapshot":
        return Snapshot({t: dict(rows) for t, rows in self.tables.items()}, schema=self.schema)
