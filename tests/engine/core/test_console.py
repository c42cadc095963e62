"""The console made for one text (engine/core/console.py ``_wanted``): it copies only the tables and
views the text reads when that can be told for sure, answers exactly as the whole console does,
and runs the text again on the whole console when a name was missed."""

from __future__ import annotations

import duckdb
import pytest

from bellica.engine.core import console
from bellica.engine.core.console import open_console, run_checked, run_console


@pytest.fixture
def map_file(tmp_path):
    """A tiny map file (a map holds no secret: its console is every table), with a view over a view and a macro."""
    path = tmp_path / "m.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE hexes (cell VARCHAR, terrain VARCHAR)")
    con.execute("INSERT INTO hexes VALUES ('a', 'land'), ('b', 'sea'), ('c', 'land')")
    con.execute("CREATE TABLE map_meta (key VARCHAR, value VARCHAR)")
    con.execute("CREATE TABLE other (x INTEGER)")
    con.execute("INSERT INTO other VALUES (7)")
    con.execute("CREATE VIEW land AS SELECT * FROM hexes WHERE terrain = 'land'")
    con.execute("CREATE VIEW land_count AS SELECT count(*) AS n FROM land")
    con.execute("CREATE MACRO plus_one(v) AS v + 1")
    con.execute("CREATE TABLE rules (key VARCHAR, value VARCHAR)")
    con.execute("INSERT INTO rules VALUES ('march', '4')")
    con.execute("CREATE MACRO rule_of(k) AS (SELECT value FROM rules WHERE key = k)")
    con.execute("CREATE VIEW ruled AS SELECT rule_of('march') AS march")
    con.close()
    return path


def _relations(con) -> set[str]:
    return {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'memory' "
                                      "UNION SELECT view_name FROM duckdb_views() WHERE database_name = 'memory' "
                                      "AND NOT internal").fetchall()}


def test_a_console_for_one_query_holds_what_it_reads_through_its_views(map_file):
    con, sealed = open_console(map_file, None, text="SELECT n FROM land_count")
    try:
        assert sealed.partial
        # the views, their tables, and the tables the file's macros read (every macro is made)
        assert _relations(con) == {"hexes", "land", "land_count", "rules"}
        assert con.execute("SELECT n FROM land_count").fetchall() == [(2,)]
    finally:
        con.close()


def test_a_view_calling_a_macro_brings_the_tables_the_macro_reads(map_file):
    con, sealed = open_console(map_file, None, text="SELECT march FROM ruled")
    try:
        assert sealed.partial and {"ruled", "rules"} <= _relations(con) and "other" not in _relations(con)
        assert con.execute("SELECT march FROM ruled").fetchall() == [("4",)]
    finally:
        con.close()


@pytest.mark.parametrize("text", [
    "SELECT count(*) FROM duckdb_tables()",        # the catalogue: it must list every table
    "SELECT * FROM information_schema.tables",
    "SHOW TABLES",
    "SELECT * FROM query('SELECT * FROM other')",   # a table function reads what the parser does not name
    "SELECT plus_one(x) FROM other",                # a macro of the file may read any table
    "SELECT * FROM nowhere",                        # a name the file lacks: the whole console's error
    "SELECT 1",
])
def test_what_cannot_be_told_for_sure_gets_the_whole_console(map_file, text):
    con, sealed = open_console(map_file, None, text=text)
    try:
        assert not sealed.partial and {"hexes", "map_meta", "other", "rules", "land", "land_count", "ruled"} <= _relations(con)
    finally:
        con.close()


@pytest.mark.parametrize("text", [
    "SELECT cell FROM land ORDER BY cell",
    "WITH l AS (SELECT * FROM land) SELECT count(*) FROM l JOIN hexes USING (cell)",
    "SELECT x FROM other; SELECT count(*) FROM hexes",
    "SELECT count(*) FROM duckdb_tables()",
    "SELECT plus_one(x) FROM other",
])
def test_it_answers_as_the_whole_console(map_file, text):
    con, sealed = open_console(map_file, None)
    try:
        whole = [(r.columns, r.rows) for r in run_checked(con, text, "QUERY", sealed)]
    finally:
        con.close()
    assert [(r.columns, r.rows) for r in run_console(map_file, text, "QUERY")] == whole


def test_a_name_the_parser_missed_runs_again_on_the_whole_console(map_file, monkeypatch):
    asked = []

    def too_few(*args):
        asked.append(args[1])
        return {"hexes"}  # as if `other` had not been named
    monkeypatch.setattr(console, "_wanted", too_few)
    assert [r.rows for r in run_console(map_file, "SELECT x FROM other", "QUERY")] == [[(7,)]]
    assert asked == ["SELECT x FROM other"]  # the partial console once, then the whole one
