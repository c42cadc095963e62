"""The pinned spatial extension's signature is checked once a process (geo.spatialdb.spatial_connect):
a later connection loads the same file unchecked and is then as a checked one; a changed file is
checked again."""

from __future__ import annotations

import os
import resource
import shutil

import duckdb
import pytest

from bellica.geo import spatialdb


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _settings(con) -> dict[str, str]:
    return dict(con.execute("SELECT name, value FROM duckdb_settings()").fetchall())


def test_a_later_connection_is_as_a_checked_one_and_cheaper(monkeypatch):
    monkeypatch.setattr(spatialdb, "_VERIFIED", set())
    t0 = _cpu()
    first = spatialdb.spatial_connect(None)
    t1 = _cpu()
    later = [spatialdb.spatial_connect(None) for _ in range(3)]
    t2 = _cpu()
    try:
        assert first.execute("SELECT ST_AsText(ST_Buffer(ST_Point(0, 0), 1)) LIKE 'POLYGON%'").fetchone() == (True,)
        for con in later:
            assert con.execute("SELECT ST_AsText(ST_Buffer(ST_Point(0, 0), 1)) LIKE 'POLYGON%'").fetchone() == (True,)
            assert _settings(con) == _settings(first)  # allow_unsigned_extensions false again, as on the first
            with pytest.raises(duckdb.Error, match="allow_unsigned_extensions"):
                con.execute("SET allow_unsigned_extensions = true")
        assert (t2 - t1) / 3 < (t1 - t0) / 4  # the check was 0.18 s of the 0.19 s LOAD on this project's machine
    finally:
        for con in (first, *later):
            con.close()


def test_a_changed_file_is_checked_again(monkeypatch, tmp_path):
    """A copy of the extension (another file) is checked; the copy rewritten with a byte changed
    (its modification time moves) is refused by DuckDB's check, not loaded unchecked."""
    monkeypatch.setattr(spatialdb, "_VERIFIED", set())
    copy = tmp_path / "spatial.duckdb_extension"
    shutil.copyfile(spatialdb.spatial_extension_path(), copy)
    monkeypatch.setattr(spatialdb, "spatial_extension_path", lambda: copy)
    spatialdb.spatial_connect(None).close()
    assert len(spatialdb._VERIFIED) == 1
    with open(copy, "r+b") as f:  # a byte of the signed part, in place: same inode and size
        f.seek(4096)
        byte = f.read(1)
        f.seek(4096)
        f.write(bytes([byte[0] ^ 0xFF]))
    st = copy.stat()
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a coarse clock may not have moved
    with pytest.raises(duckdb.Error):
        spatialdb.spatial_connect(None)


def _threads(con) -> int:
    return int(con.execute("SELECT current_setting('threads')").fetchone()[0])


def test_the_threads_variable_sets_each_connections_threads(monkeypatch):
    monkeypatch.setenv(spatialdb.THREADS_VARIABLE, "1")
    assert _threads(spatialdb.offline_connect(None)) == 1
    assert _threads(spatialdb.offline_connect(None, config={"threads": 3})) == 3  # a caller's own setting wins
    monkeypatch.setenv(spatialdb.THREADS_VARIABLE, "2")
    assert _threads(spatialdb.spatial_connect(None)) == 2
    monkeypatch.delenv(spatialdb.THREADS_VARIABLE)
    assert _threads(spatialdb.offline_connect(None)) == duckdb.connect(":memory:").execute(
        "SELECT current_setting('threads')").fetchone()[0]  # unset: DuckDB's own default


@pytest.mark.parametrize("value", ["0", "-1", "two", "٣", "1.5"])
def test_a_bad_threads_variable_is_one_line_naming_it(monkeypatch, value):
    monkeypatch.setenv(spatialdb.THREADS_VARIABLE, value)
    with pytest.raises(spatialdb.InputError, match=r"^BELLICA_DUCKDB_THREADS=.* is not a number of threads: set it to a whole number"):
        spatialdb.offline_connect(None)


def test_a_remembered_catalog_answers_columns_as_duckdb_does_until_it_changes():
    """geo.spatialdb.remembered_columns: one query for every table's columns, the same answer as the
    per-table one; a CREATE through run_sql forgets it; the entry goes with its connection."""
    import gc

    from bellica.schema import existing_columns

    con = spatialdb.offline_connect(None)
    con.execute("CREATE TABLE Armies (Id INTEGER, hex VARCHAR); CREATE VIEW strong AS SELECT id FROM armies")
    asked = {t: existing_columns(con, t) for t in ("armies", "ARMIES", "strong", "nothing")}
    spatialdb.remember_catalog(con)
    assert spatialdb.remembered_columns(con) == {"armies": ("id", "hex"), "strong": ("id",)}
    assert {t: existing_columns(con, t) for t in asked} == asked == {
        "armies": ("id", "hex"), "ARMIES": ("id", "hex"), "strong": ("id",), "nothing": ()}
    spatialdb.run_sql(con, "CREATE TABLE nothing (x INTEGER)")
    assert existing_columns(con, "nothing") == ("x",)
    assert spatialdb.remembered_columns(spatialdb.offline_connect(None)) is None  # not remembered: asked each time
    key = id(con)
    con.close()
    del con
    gc.collect()
    assert key not in spatialdb._CATALOG
