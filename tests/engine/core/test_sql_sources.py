"""The installed SQL statements the console takes where DuckDB's kept text is not the statement as
written (engine/core/sql_sources.py): a view only when the kept text is the installed statement's."""

from __future__ import annotations

import duckdb
import pytest

from bellica.engine.core.sql_sources import installed_macros, installed_view
from bellica.geo.spatialdb import offline_connect

TABLES = ("CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER); CREATE TABLE c (x INTEGER, z INTEGER);"
          "INSERT INTO a VALUES (1), (2); INSERT INTO b VALUES (10), (20); INSERT INTO c VALUES (1, 5);")
#: Correlated through the CROSS JOIN: DuckDB 1.5 keeps it as ``a , b LEFT JOIN c``, which does not bind.
VIEW = "SELECT a.x, b.y, c.z FROM a CROSS JOIN b LEFT JOIN c ON c.x = a.x"


def _file_with_view(path, view_sql: str) -> str:
    """A DuckDB file at the default storage version holding the tables and ``view_sql`` as view
    ``v``; the text DuckDB kept for it."""
    con = offline_connect(path)
    try:
        con.execute(TABLES)
        con.execute(f"CREATE VIEW v AS {view_sql}")
    finally:
        con.close()
    con = offline_connect(path, read_only=True)  # the text as read back from the file
    try:
        return con.execute("SELECT sql FROM duckdb_views() WHERE view_name = 'v'").fetchone()[0]
    finally:
        con.close()


@pytest.fixture()
def ruleset_sql(tmp_path):
    folder = tmp_path / "my_ruleset"
    (folder / "sql").mkdir(parents=True)
    (folder / "sql" / "views.sql").write_text(
        f"-- the ruleset's views\nCREATE OR REPLACE VIEW v AS {VIEW};\n"
        "CREATE OR REPLACE MACRO twice(n, factor := 2) AS n * factor;\n", encoding="utf-8")
    # A file DuckDB does not parse (a template) offers nothing, and stops nothing.
    (folder / "sql" / "template.sql").write_text("CREATE VIEW {name} AS SELECT {columns};\n", encoding="utf-8")
    return folder


def test_a_view_whose_kept_text_does_not_bind_is_made_from_its_installed_statement(tmp_path, ruleset_sql):
    kept = _file_with_view(tmp_path / "f.duckdb", VIEW)
    con = offline_connect(None)
    try:
        con.execute(TABLES)
        with pytest.raises(duckdb.Error):
            con.execute(kept)  # the bug this module works around: the kept text does not bind
        made = installed_view(con, "V", kept, [ruleset_sql])
        assert made is not None
        con.execute(made)
        rows = con.execute("SELECT * FROM v ORDER BY ALL").fetchall()
    finally:
        con.close()
    assert rows == [(1, 10, 5), (1, 20, 5), (2, 10, None), (2, 20, None)]


def test_a_view_written_otherwise_keeps_its_own_text(tmp_path, ruleset_sql):
    """The file's view of that name is another statement (an older release, a user's): not replaced."""
    kept = _file_with_view(tmp_path / "f.duckdb", "SELECT a.x, b.y, NULL AS z FROM a CROSS JOIN b")
    con = offline_connect(None)
    try:
        assert installed_view(con, "v", kept, [ruleset_sql]) is None
        assert installed_view(con, "not_installed", kept, [ruleset_sql]) is None
    finally:
        con.close()


def test_a_macro_is_found_with_its_defaults(ruleset_sql):
    assert "factor := 2" in installed_macros([ruleset_sql])["twice"]
    assert "twice" not in installed_macros()  # only where the ruleset's folder is given
