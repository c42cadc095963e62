"""Every view of every ruleset's campaign file is made again as a view in the SQL console, over the
viewer's copies of the tables: none is computed whole when the console opens.

The console remakes a view from the text DuckDB keeps for it.  In a file written at DuckDB's default
storage version (as an older bellica, DuckDB's own CLI or ``COPY FROM DATABASE`` write one; bellica
now writes v1.5.0, schema.STORAGE_VERSION), DuckDB 1.5 reads a ``CROSS JOIN`` back as a comma, which
binds more loosely than the joins after it (duckdb#18328 shows the two differ): ``a CROSS JOIN b LEFT
JOIN c ON c.x = a.x`` comes back as a text that does not bind.  The console then copied the file's
view as rows, so such a Vae Victis II console computed its logistics and naval superiority before
its first query.  The rules' SQL writes such a join as ``JOIN b ON true``, which reads back as
written.  Each campaign is checked as bellica writes it and copied at the default storage version."""

from __future__ import annotations

import pytest

from bellica.engine.core.console import open_console
from bellica.geo.spatialdb import literal, offline_connect, spatial_connect
from tests.cli.test_exit_codes import START, ruleset_campaigns


@pytest.fixture(scope="module")
def started(tmp_path_factory, built_once):
    return ruleset_campaigns(built_once, tmp_path_factory.mktemp("console-views"))["started"]


def _at_default_storage(path, tmp_path):
    """A copy of the campaign written at DuckDB's default storage version."""
    out = tmp_path / "default-storage.duckdb"
    con = spatial_connect(None)
    try:
        con.execute(f"ATTACH {literal(str(path))} AS src (READ_ONLY)")
        con.execute(f"ATTACH {literal(str(out))} AS dst")
        con.execute("COPY FROM DATABASE src TO dst")
    finally:
        con.close()
    return out


def _views(path) -> set[str]:
    con = offline_connect(path, read_only=True)
    try:
        return {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    finally:
        con.close()


@pytest.mark.parametrize("storage", ["bellica's", "default"])
@pytest.mark.parametrize("ruleset", sorted(START))
def test_the_umpires_console_makes_every_view_again_as_a_view(started, ruleset, storage, tmp_path):
    path = started[ruleset] if storage == "bellica's" else _at_default_storage(started[ruleset], tmp_path)
    views = _views(path)
    assert views
    con, sealed = open_console(path, None)
    try:
        made = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE database_name = 'memory' "
                                          "AND NOT internal").fetchall()}
        copied = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'memory'"
                                            ).fetchall()}
    finally:
        con.close()
    assert not views & copied, f"computed whole when the console opened: {sorted(views & copied)}"
    # A view over a table the umpire may not read either (Magna Graecia's sealed second-day orders,
    # a Trossian nation's couriers) is refused in the console, not made.
    assert views == made | (views & set(sealed)), f"neither made nor refused: {sorted(views - made - set(sealed))}"


#: A view as a third-party ruleset might write it: correlated through a CROSS JOIN, so that its text
#: as DuckDB keeps it in a default-storage file (``x , y LEFT JOIN ...``) does not bind.
CROSSED = ("CREATE OR REPLACE VIEW crossed AS SELECT a.x, b.y, c.z "
           "FROM a CROSS JOIN b LEFT JOIN c ON c.x = a.x")


@pytest.mark.parametrize("installed", [True, False])
def test_a_view_whose_kept_text_does_not_bind_is_made_from_the_rulesets_sql(started, tmp_path, monkeypatch, installed):
    """Made as a view from the ruleset's installed SQL file, when the kept text is that statement's;
    without it, copied as the rows the file's view gives (the console still answers the same)."""
    import bellica.engine.core.console as console

    path = _at_default_storage(started["mare-nostrum"], tmp_path)
    con = offline_connect(path)
    try:
        con.execute("CREATE TABLE a (x INTEGER); CREATE TABLE b (y INTEGER); CREATE TABLE c (x INTEGER, z INTEGER);"
                    "INSERT INTO a VALUES (1), (2); INSERT INTO b VALUES (10); INSERT INTO c VALUES (1, 5);")
        con.execute(CROSSED)
    finally:
        con.close()
    folder = tmp_path / "the_ruleset"
    (folder / "sql").mkdir(parents=True)
    if installed:
        (folder / "sql" / "views.sql").write_text(CROSSED + ";\n", encoding="utf-8")
    monkeypatch.setattr(console, "ruleset_folder", lambda ruleset: folder)

    con, _sealed = open_console(path, None)
    try:
        made = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE database_name = 'memory'").fetchall()}
        rows = con.execute("SELECT * FROM crossed ORDER BY ALL").fetchall()
    finally:
        con.close()
    assert ("crossed" in made) is installed
    assert rows == [(1, 10, 5), (2, 10, None)]
