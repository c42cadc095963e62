"""The state SQL read without DuckDB (engine/core/tables._parse_simple) reads exactly what DuckDB reads."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from bellica.engine.core import tables as t
from bellica.engine.core.ruleset import get_ruleset, ruleset_names


def _duckdb_reading(text: str):
    return [r[:3] for r in t._read_sql_duckdb(text, "the test")]


def _catalog(statements: list[str]):
    """What DuckDB creates from ``statements``: columns (with nullability) and constraints."""
    con = duckdb.connect()
    try:
        for s in statements:
            con.execute(s)
        columns = con.execute("SELECT table_name, column_name, data_type, is_nullable, column_default FROM duckdb_columns() "
                              "WHERE NOT internal ORDER BY table_name, column_index").fetchall()
        constraints = con.execute("SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints() "
                                  "ORDER BY ALL").fetchall()
    finally:
        con.close()
    return columns, constraints


def _state_sql_texts() -> dict[str, str]:
    texts = {"core": t.CORE_SQL.read_text(encoding="utf-8")}
    for name in ruleset_names():
        sql = get_ruleset(name).state_sql
        if sql:
            texts[name] = sql.read_text(encoding="utf-8") if isinstance(sql, Path) else sql
    return texts


@pytest.mark.parametrize("name", sorted(_state_sql_texts()))
def test_every_state_sql_in_the_tree_is_read_as_duckdb_reads_it(name):
    text = _state_sql_texts()[name]
    parsed = t._parse_simple(text)
    assert parsed is not None, f"{name}'s state SQL left the plain form: it is read by DuckDB, ~50 ms per command"
    assert [r[:3] for r in parsed] == _duckdb_reading(text)
    # The statements the core runs create the very tables the file's own statements create.
    originals = [s.query for s in duckdb.connect().extract_statements(text)]
    assert _catalog([r[3] for r in parsed]) == _catalog(originals)


PLAIN = [
    "CREATE TABLE a (x INTEGER PRIMARY KEY, y VARCHAR)",
    "create table if not exists B (\"Odd name\" varchar, Round integer, PRIMARY KEY (Round, \"Odd name\"));",
    "-- a comment with 'quotes'; and a semicolon\nCREATE TABLE c (k VARCHAR, v JSON, at_ TIMESTAMP, d DOUBLE, f FLOAT,\n"
    "  b BOOLEAN, big BIGINT, s SMALLINT, ti TINYINT, h HUGEINT, day DATE, raw BLOB, PRIMARY KEY (k));\n"
    "CREATE TABLE d (\"at\" TIMESTAMP, position INTEGER PRIMARY KEY);;\n-- trailing",
    "CREATE TABLE e (x INTEGER, y INTEGER)",  # no key: tables_from_sql names the fault
]


@pytest.mark.parametrize("text", PLAIN)
def test_the_plain_form_matches_duckdb(text):
    parsed = t._parse_simple(text)
    assert parsed is not None
    assert [r[:3] for r in parsed] == _duckdb_reading(text)
    originals = [s.query for s in duckdb.connect().extract_statements(text)]
    assert _catalog([r[3] for r in parsed]) == _catalog(originals)


LEFT_TO_DUCKDB = [
    "CREATE TABLE a (x INT PRIMARY KEY, y TEXT)",  # aliases DuckDB renames
    "CREATE TABLE a (x INTEGER PRIMARY KEY, y VARCHAR NOT NULL)",
    "CREATE TABLE a (x INTEGER PRIMARY KEY, y VARCHAR DEFAULT 'z')",
    "CREATE TABLE a (x INTEGER PRIMARY KEY /* note */, y VARCHAR)",
    "CREATE TABLE a (x DECIMAL(10, 2) PRIMARY KEY)",
    "CREATE TABLE a (x INTEGER, PRIMARY KEY (X))",  # the key in another case: DuckDB names the column's spelling
    "CREATE TABLE a (\"a\"\"b\" INTEGER PRIMARY KEY)",
    "CREATE TABLE main.a (x INTEGER PRIMARY KEY)",
    "CREATE TABLE a (x INTEGER PRIMARY KEY,)",  # DuckDB takes a trailing comma
]


@pytest.mark.parametrize("text", LEFT_TO_DUCKDB)
def test_outside_the_plain_form_duckdb_reads_it(text):
    assert t._parse_simple(text) is None
    assert [r[:3] for r in t._read_sql(text)] == _duckdb_reading(text)


REFUSED = [
    "CREATE TABLE a (x INTEGER PRIMARY KEY, x VARCHAR)",  # a column twice
    "CREATE TABLE a (x INTEGER PRIMARY KEY, y VARCHAR, PRIMARY KEY (y))",  # two keys
    "CREATE TABLE a (x INTEGER, PRIMARY KEY (z))",  # a key naming no column
    "CREATE TABLE a (select INTEGER PRIMARY KEY)",  # a keyword as a bare name
    "CREATE TABLE a (x INTEGER PRIMARY KEY); CREATE TABLE A (y INTEGER PRIMARY KEY)",  # a table twice
    "SELECT 1",
]


@pytest.mark.parametrize("text", REFUSED)
def test_what_duckdb_refuses_is_refused_in_its_words(text):
    assert t._parse_simple(text) is None
    with pytest.raises(t.BellicaError):
        t.tables_from_sql(text)


def test_the_keyword_list_is_the_installed_duckdbs():
    con = duckdb.connect()
    real = {r[0] for r in con.execute("SELECT keyword_name FROM duckdb_keywords() "
                                      "WHERE keyword_category IN ('reserved', 'type_function')").fetchall()}
    assert t._KEYWORDS == real


def test_the_plain_types_are_reported_as_written():
    con = duckdb.connect()
    con.execute("CREATE TABLE x (" + ", ".join(f"c{i} {typ}" for i, typ in enumerate(sorted(t._PLAIN_TYPES))) + ")")
    assert [r[0] for r in con.execute("SELECT data_type FROM duckdb_columns() WHERE table_name = 'x' ORDER BY column_index")
            .fetchall()] == sorted(t._PLAIN_TYPES)
