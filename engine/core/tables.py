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

from bellica.geo.errors import BellicaError
from bellica.geo.spatialdb import offline_connect

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
            raise BellicaError(f"state table {self.name}: key {self.key} must name some of its columns {names}")

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
            raise BellicaError(f"state table {self.name} has no column {unknown[0]!r}: its columns are {', '.join(self.column_names)}")
        return tuple(_coerce(values.get(name), typ) for name, typ in self.columns)

    def key_from(self, values: Mapping[str, Any]) -> tuple:
        types = dict(self.columns)
        missing = [k for k in self.key if k not in values]
        if missing:
            raise BellicaError(f"a key of state table {self.name} needs {', '.join(self.key)}; {missing[0]!r} is missing")
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

_Read = list[tuple[str, tuple[tuple[str, str], ...], tuple[str, ...], str]]


def _read_sql(sql: str | Path) -> _Read:
    """(table, columns, primary key, create statement) of every ``CREATE TABLE`` of a SQL file or text.

    The columns and keys are exactly what DuckDB makes of the statements: :func:`_parse_simple`
    reads the plain form every state SQL file here is written in (tested against DuckDB's own
    reading of each), and anything outside that form is read by DuckDB itself, in a scratch
    in-memory database (:func:`_read_sql_duckdb`).  Why: the scratch database costs a command
    ~50 ms (connecting, and a cold catalog query) before it does anything.
    """
    text = sql.read_text(encoding="utf-8") if isinstance(sql, Path) else sql
    parsed = _parse_simple(text)
    return parsed if parsed is not None else _read_sql_duckdb(text, str(sql) if isinstance(sql, Path) else "the state SQL")


def _read_sql_duckdb(text: str, where: str) -> _Read:
    scratch = offline_connect()
    try:
        creates: dict[str, str] = {}
        try:
            statements = scratch.extract_statements(text)
        except duckdb.Error as e:
            raise BellicaError(f"{where}: {e}") from None
        for statement in statements:
            before = {r[0] for r in scratch.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
            try:
                scratch.execute(statement.query)
            except duckdb.Error as e:
                raise BellicaError(f"{where}: {e}") from None
            added = sorted({r[0] for r in scratch.execute("SELECT table_name FROM duckdb_tables()").fetchall()} - before)
            if len(added) != 1:
                raise BellicaError(f"{where}: every statement must create one table; {statement.query.strip()[:60]!r} does not")
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


# --- the plain form, read without DuckDB ---------------------------------------------------
#
# Statements ``CREATE TABLE [IF NOT EXISTS] name (column TYPE [PRIMARY KEY], ..., [PRIMARY KEY (a, b)])``
# separated by ``;``, with ``--`` comments; identifiers plain words or "double-quoted"; TYPE one of
# _PLAIN_TYPES (names DuckDB reports exactly as written, upper-cased).  Anything else (another type
# or an alias such as INT or TEXT, NOT NULL, DEFAULT, string literals, /* comments */, two keys, a
# column twice, a key naming a column in another case, a DuckDB keyword as a bare name) is left to
# DuckDB, which reads it or names the error.  tests/engine/test_state_schema_parse.py checks this
# reading against DuckDB's for every state SQL in the tree and for the cases left to DuckDB.

_PLAIN_TYPES = frozenset({"VARCHAR", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT", "DOUBLE", "FLOAT",
                          "BOOLEAN", "DATE", "TIMESTAMP", "JSON", "BLOB"})

#: DuckDB's reserved and type/function keywords (``duckdb_keywords()``), which a bare column or
#: table name cannot be; the test checks this list against the installed DuckDB's.
_KEYWORDS = frozenset("""
all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create default
deferrable desc describe distinct do else end except false fetch for foreign from group having in initially intersect
into lambda lateral leading limit not null offset on only or order pivot pivot_longer pivot_wider placing primary
qualify references returning select show some summarize symmetric table then to trailing true union unique unpivot
using variadic when where window with
anti asof at authorization binary by collation columns concurrently cross freeze full generated glob ilike inner is
isnull join left like map natural notnull outer overlaps positional right semi similar struct tablesample try_cast
unpack verbose
""".split())

_TOKEN = re.compile(r'\s+|--[^\n]*|"(?P<quoted>[^"]+)"|(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<punct>[(),;])')


def _parse_simple(text: str) -> _Read | None:
    """The plain form's reading (see above), or None where the text is not in it."""
    statements: list[list[tuple[str, str]]] = [[]]  # per statement: (kind, value) tokens
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            return None
        pos = m.end()
        if m.group("quoted") is not None:
            statements[-1].append(("name", m.group("quoted")))
        elif m.group("word") is not None:
            statements[-1].append(("word", m.group("word")))
        elif m.group("punct") == ";":
            statements.append([])
        elif m.group("punct"):
            statements[-1].append(("punct", m.group("punct")))
    out: _Read = []
    for tokens in statements:
        if not tokens:
            continue
        read = _parse_create(tokens)
        if read is None or any(read[0].lower() == t[0].lower() for t in out):
            return None
        out.append(read)
    return out or None


def _parse_create(tokens: list[tuple[str, str]]):
    def word(i: int, *values: str) -> bool:
        return i < len(tokens) and tokens[i][0] == "word" and tokens[i][1].upper() in values

    def name(i: int) -> str | None:
        if i >= len(tokens):
            return None
        kind, value = tokens[i]
        if kind == "name" or (kind == "word" and value.lower() not in _KEYWORDS):
            return value
        return None

    def punct(i: int, value: str) -> bool:
        return i < len(tokens) and tokens[i] == ("punct", value)

    if not (word(0, "CREATE") and word(1, "TABLE")):
        return None
    i = 2
    if word(2, "IF") and word(3, "NOT") and word(4, "EXISTS"):
        i = 5
    table = name(i)
    if table is None or not punct(i + 1, "("):
        return None
    i += 2
    columns: list[tuple[str, str]] = []
    key: list[str] | None = None
    while True:
        if word(i, "PRIMARY") and word(i + 1, "KEY") and punct(i + 2, "("):  # a table's key
            if key is not None:
                return None
            key, i = [], i + 3
            while True:
                k = name(i)
                if k is None:
                    return None
                key.append(k)
                i += 1
                if punct(i, ")"):
                    i += 1
                    break
                if not punct(i, ","):
                    return None
                i += 1
        else:
            column = name(i)
            if column is None or i + 1 >= len(tokens) or tokens[i + 1][0] != "word":
                return None
            typ = tokens[i + 1][1].upper()
            if typ not in _PLAIN_TYPES:
                return None
            columns.append((column, typ))
            i += 2
            if word(i, "PRIMARY") and word(i + 1, "KEY"):
                if key is not None:
                    return None
                key, i = [column], i + 2
        if punct(i, ")") and i + 1 == len(tokens):
            break
        if not punct(i, ","):
            return None
        i += 1
    names = [c for c, _ in columns]
    if len({c.lower() for c in names}) != len(names) or any(k not in names for k in key or ()):
        return None
    if key is not None and len(set(key)) != len(key):
        return None
    body = [f"{_quote(c)} {t}" for c, t in columns]
    if key:
        body.append("PRIMARY KEY (" + ", ".join(map(_quote, key)) + ")")
    create = f"CREATE TABLE IF NOT EXISTS {_quote(table)} ({', '.join(body)})"
    return table, tuple(columns), tuple(key or ()), create


def _quote(identifier: str) -> str:
    return '"' + identifier + '"'


def tables_from_sql(sql: str | Path) -> tuple[StateTable, ...]:
    """The state tables of a SQL file (a :class:`~pathlib.Path`) or text, in statement order:
    every statement a ``CREATE TABLE`` whose ``PRIMARY KEY`` names the columns that key its rows."""
    out = []
    for name, columns, key, create in _read_sql(sql):
        if not key:
            raise BellicaError(f"{sql if isinstance(sql, Path) else 'the state SQL'}: state table {name} has no PRIMARY KEY: "
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
                raise BellicaError(f"state table {t.name} is declared twice (or is the reserved `events`)")
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
