"""`bellica sql` reads the campaign and nothing else (issue #8).

Opening the database read-only did not stop ``COPY (SELECT 'x') TO 'campaign.duckdb'`` from
replacing the campaign with a 6-byte file, nor COPY/EXPORT to any path, SET of a path setting,
INSTALL, ATTACH, or reading any file with read_text/read_csv/glob.  Each such escape is now one
``error:`` line naming what was refused, exit 1, the campaign byte-identical and no new file.
"""

from __future__ import annotations

import hashlib
import shutil

import duckdb
import pytest

from bellica.geo.spatialdb import connect, connect_console
from tests.cli.test_round_cli import campaign, bellica  # noqa: F401  (campaign is a fixture)

REFUSED = "bellica sql is read-only and reads only the campaign"


def snapshot(directory):
    """Every file under ``directory`` with the sha256 of its bytes."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture
def started(campaign, capsys, built_once):  # noqa: F811
    def build(path):
        shutil.copyfile(campaign, path)
        code, _, err = bellica(capsys, "round", "start", path, "--seed", "5")
        assert code == 0, err
    return built_once("vv-started-seed-5", build, campaign)


@pytest.fixture
def outside(started):
    """Files beside the campaign that the console must not reach: a secret, another campaign."""
    secret = started.parent / "secret.txt"
    secret.write_text("the-secret-line\n")
    shutil.copyfile(started, started.parent / "other.duckdb")
    geojson = started.parent / "p.geojson"
    geojson.write_text('{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":1},'
                       '"geometry":{"type":"Point","coordinates":[1,2]}}]}')
    return started


def refused(capsys, c, query, op):
    """Run ``query``; it must be one error line naming ``op`` and change no file in the folder."""
    before = snapshot(c.parent)
    code, out, err = bellica(capsys, "sql", c, query)
    assert code == 1, (query, out, err)
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err
    assert f"{op} is refused: {REFUSED}" in err, err
    assert "the-secret-line" not in out + err and "secret.txt" not in out
    assert snapshot(c.parent) == before, f"{query} changed a file beside the campaign"
    return err


def test_copy_to_the_campaign_file_no_longer_replaces_it(outside, capsys):
    c = outside
    refused(capsys, c, f"COPY (SELECT 'x') TO '{c}'", "COPY")
    refused(capsys, c, f"COPY (SELECT 'x') TO '{c.name}'", "COPY")
    # Without the temporary file DuckDB writes the named path itself, and external access still
    # allows the database's own path: the connection's file-system lock is what holds here.
    refused(capsys, c, f"COPY (SELECT 'x') TO '{c}' (USE_TMP_FILE false)", "COPY")
    refused(capsys, c, f"EXPLAIN ANALYZE COPY (SELECT 'x') TO '{c}' (USE_TMP_FILE false)", "EXPLAIN ANALYZE")
    refused(capsys, c, f"COPY (SELECT 'x') TO '{c}.wal' (USE_TMP_FILE false)", "COPY")
    code, out, err = bellica(capsys, "sql", c, "SELECT count(*) AS n FROM armies")
    assert code == 0 and out.splitlines()[2].strip() == "3", err


@pytest.mark.parametrize("query, op", [
    ("COPY (SELECT 'x') TO '{dir}/leak.csv'", "COPY"),
    ("COPY armies TO '{dir}/armies.parquet' (FORMAT parquet)", "COPY"),
    ("COPY (SELECT ST_Point(1, 2) AS geom) TO '{dir}/g.json' (FORMAT GDAL, DRIVER 'GeoJSON')", "COPY"),
    ("EXPORT DATABASE '{dir}/export'", "EXPORT DATABASE"),
    ("IMPORT DATABASE '{dir}'", "IMPORT DATABASE"),
    ("SET profiling_output = '{dir}/profile.txt'", "SET"),
    ("SET extension_directory = '{dir}/ext'", "SET"),
    ("SET enable_external_access = true", "SET"),
    ("RESET lock_configuration", "RESET"),
    ("PRAGMA enable_profiling", "PRAGMA"),
    ("INSTALL httpfs", "INSTALL"),
    ("FORCE INSTALL httpfs", "FORCE INSTALL"),
    ("LOAD httpfs", "LOAD"),
    ("ATTACH '{dir}/other.duckdb' AS other (READ_ONLY)", "ATTACH"),
    ("CALL checkpoint()", "CALL"),
    ("SELECT 1; COPY (SELECT 'x') TO '{dir}/leak.csv'", "COPY"),  # two statements on one line
])
def test_writes_and_setting_changes_are_refused_before_they_run(outside, capsys, query, op):
    refused(capsys, outside, query.format(dir=outside.parent), op)


@pytest.mark.parametrize("query, op", [
    ("SELECT * FROM read_text('/etc/shadow')", "read_text('/etc/shadow')"),
    ("SELECT * FROM read_csv('/etc/passwd')", "read_csv('/etc/passwd')"),
    ("SELECT * FROM glob('/root/*')", "glob('/root/*')"),
    ("SELECT * FROM read_text('{dir}/secret.txt')", "read_text('{dir}/secret.txt')"),
    ("SELECT * FROM read_csv('{dir}/secret.txt')", "read_csv('{dir}/secret.txt')"),
    ("SELECT * FROM glob('{dir}/*')", "glob('{dir}/*')"),
    ("SELECT * FROM read_blob('{campaign}')", "read_blob('{campaign}')"),
    ("SELECT * FROM ST_Read('{dir}/p.geojson')", "ST_Read('{dir}/p.geojson')"),
    ("SELECT * FROM ST_Read_Meta('{dir}/p.geojson')", "ST_Read_Meta('{dir}/p.geojson')"),
    ("SELECT * FROM read_text('http://example.com/x')", "read_text('http://example.com/x')"),
])
def test_reading_outside_the_campaign_is_refused(outside, capsys, query, op):
    values = {"dir": outside.parent, "campaign": outside}
    refused(capsys, outside, query.format(**values), op.format(**values))


def test_the_connection_itself_is_locked(outside):
    # The statement check in the command is one layer; the connection must hold on its own.
    con = connect_console(outside)
    try:
        for sql in (f"COPY (SELECT 'x') TO '{outside}' (USE_TMP_FILE false)",
                    f"SELECT * FROM read_text('{outside.parent}/secret.txt')",
                    f"ATTACH '{outside.parent}/other.duckdb' AS other",
                    "INSTALL httpfs"):
            with pytest.raises(duckdb.PermissionException):
                con.execute(sql)
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("SET enable_external_access = true")
        assert con.execute("SELECT current_setting('temp_directory')").fetchone() == ("",)
    finally:
        con.close()


def test_queries_tables_views_and_spatial_functions(started, tmp_path, capsys):
    c = started
    before = snapshot(c.parent)
    code, out, err = bellica(capsys, "sql", c, "SELECT structure, controller FROM control WHERE structure = 'Roma'")
    assert code == 0, err
    assert out.splitlines()[2].split() == ["Roma", "roma"]
    code, out, err = bellica(capsys, "sql", c, "SELECT ST_AsText(ST_Point(1, 2)) AS p")
    assert code == 0 and out.splitlines()[2] == "POINT (1 2)", err
    for view in ("zoc", "logistics_lines", "supplied_structures", "army_logistics_distance", "structure_zoc"):
        code, _, err = bellica(capsys, "sql", c, f"SELECT count(*) FROM {view}")
        assert code == 0, f"{view}: {err}"
    code, out, err = bellica(capsys, "sql", c, "PIVOT armies ON faction USING count(*)")  # makes a temporary enum
    assert code == 0 and out.splitlines()[-1] == "(3 rows)", err
    code, out, err = bellica(capsys, "sql", c, "DESCRIBE armies")
    assert code == 0 and "strength" in out, err
    # A query file may build temporary tables: they live in memory and vanish.
    q = tmp_path / "q.sql"
    q.write_text("CREATE TEMP TABLE strong AS SELECT id FROM armies WHERE strength >= 1600;\n"
                 "SELECT count(*) AS n FROM strong;\n")
    before[q.name] = hashlib.sha256(q.read_bytes()).hexdigest()
    code, out, err = bellica(capsys, "sql", c, "--file", q, "--csv")
    assert code == 0 and out.splitlines()[-2:] == ["n", "3"], err
    assert snapshot(c.parent) == before


def test_a_query_file_that_is_not_utf8_is_one_line(started, tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_bytes(b"SELECT '\xff\xfe' AS x;\n")
    code, _, err = bellica(capsys, "sql", started, "--file", q)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.strip() == f"error: SQL file {q} is not UTF-8 text (byte 8): save it as UTF-8"


def test_a_campaign_of_an_unknown_ruleset_is_refused(started, capsys):
    con = connect(started)
    # The synthetic campaign names no ruleset (the legacy default applies); give it one never installed.
    con.execute("CREATE TABLE IF NOT EXISTS scenario_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    con.execute("INSERT OR REPLACE INTO scenario_meta VALUES ('ruleset', 'no-such-ruleset')")
    con.close()
    code, _, err = bellica(capsys, "round", "status", started)
    assert code == 1 and "unknown ruleset 'no-such-ruleset'" in err  # the engine cannot open it ...
    # ... nor can the console: without its ruleset nobody can say what the file holds that the
    # umpire may not read, so it is refused rather than shown whole.
    code, out, err = bellica(capsys, "sql", started, "SELECT value FROM scenario_meta WHERE key = 'ruleset'")
    assert code == 1 and out == "" and "unknown ruleset 'no-such-ruleset'" in err


def test_a_file_that_is_no_database_is_one_line(tmp_path, capsys):
    bad = tmp_path / "notes.duckdb"
    bad.write_text("not a database\n")
    code, _, err = bellica(capsys, "sql", bad, "SELECT 1")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"error: campaign database {bad} is not a DuckDB database")
    assert bad.read_text() == "not a database\n"
    code, _, err = bellica(capsys, "sql", tmp_path / "nope.duckdb", "SELECT 1")
    assert code == 1 and "does not exist: create it with `bellica campaign new`" in err
