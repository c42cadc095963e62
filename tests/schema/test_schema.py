"""The one schema (bellica.schema): each table defined once, its geometry typed with its CRS, one reader."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from bellica import schema
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import connect

ROOT = Path(__file__).resolve().parents[2]
SOURCE_FOLDERS = ("geo", "schema", "etl", "engine", "web_maps", "datasets", "bellica")
FIXTURES = ("tests/engine/boards.py", "tests/web_maps/synthetic.py", "tests/etl/test_campaign.py")


def _schema_names() -> set[str]:
    return {t for name in (schema.MAP, schema.CAMPAIGN, schema.MAP_VIEWS, schema.CAMPAIGN_VIEWS)
            for t in schema.schema_tables(name)}


def test_each_schema_table_is_created_in_schema_only():
    """Regression (#7): `hexes` was defined in four places, and a copy drifted from the others."""
    names = "|".join(sorted(_schema_names()))
    create = re.compile(rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?({names})\b", re.I)
    files = [p for folder in SOURCE_FOLDERS for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".sql")]
    files += [ROOT / f for f in FIXTURES]
    found = sorted(
        f"{p.relative_to(ROOT)}: {m.group(1)}"
        for p in files if not p.is_relative_to(ROOT / "schema")
        for m in create.finditer(p.read_text(encoding="utf-8"))
    )
    assert found == []


def test_no_table_is_defined_in_two_schema_files():
    seen: dict[str, str] = {}
    for path in sorted(schema.SCHEMA_DIR.glob("*.sql")):
        for table in schema.schema_tables(path):
            assert table not in seen, f"{table} in {seen.get(table)} and {path.name}"
            seen[table] = path.name


def test_table_columns_are_duckdbs_own():
    assert schema.table_columns("hexes")[:4] == ("cell", "res", "kind", "terrain")
    assert schema.table_columns("road_edges") == ("road", "cell", "neighbor", "clock")
    with pytest.raises(InputError, match="not a table of the schema"):
        schema.table_columns("armys")


def test_every_geometry_column_carries_the_crs():
    geometry = {
        f"{t}.{c}": ty
        for t in _schema_names() for c, ty in schema.column_types(t).items() if ty.startswith("GEOMETRY")
    }
    assert set(geometry) == {"hexes.geom", "map_rivers.geom", "structures.geom", "roads.geom", "rivers.geom",
                             "sea_zones.geom"}
    assert set(geometry.values()) == {f"GEOMETRY('{schema.CRS}')"}


def test_the_crs_survives_closing_the_file(tmp_path):
    """Regression (#7): a file of DuckDB's default storage version silently drops a column's CRS."""
    con = schema.create_database(tmp_path / "new.duckdb")
    schema.create_map_tables(con)
    con.close()
    con = connect(tmp_path / "new.duckdb", read_only=True)
    assert schema.column_types("hexes")["geom"] == con.execute(
        "SELECT data_type FROM duckdb_columns() WHERE table_name = 'hexes' AND column_name = 'geom'"
    ).fetchone()[0]
    con.close()
    # Why create_database exists: the same DDL in a default file loses the CRS on reopening.
    con = duckdb.connect(str(tmp_path / "old.duckdb"))
    con.execute(f"CREATE TABLE t (geom GEOMETRY('{schema.CRS}'))")
    con.close()
    con = duckdb.connect(str(tmp_path / "old.duckdb"))
    assert con.execute("SELECT data_type FROM duckdb_columns() WHERE table_name = 't'").fetchone()[0] == "GEOMETRY"
    con.close()


def test_create_database_refuses_an_existing_file(tmp_path):
    (tmp_path / "x.duckdb").write_bytes(b"")
    with pytest.raises(InputError, match="exists"):
        schema.create_database(tmp_path / "x.duckdb")


def test_replace_recreates_only_with_replace():
    con = connect()
    schema.create_map_tables(con)
    with pytest.raises(Exception, match="already exists"):
        schema.create_map_tables(con)
    schema.create_map_tables(con, replace=True)
    schema.create_campaign_tables(con)
    con.execute("INSERT INTO placements VALUES (1, 'A', 'X', 'c')")
    schema.create_tables(con, schema.CAMPAIGN, ["placements"], replace=True)
    assert con.execute("SELECT count(*) FROM placements").fetchone()[0] == 0


def test_existing_tables_sees_this_database_only(tmp_path):
    other = schema.create_database(tmp_path / "m.duckdb")
    schema.create_map_tables(other, views=False)
    other.close()
    con = connect()
    con.execute("CREATE TABLE Mine (x INTEGER)")
    con.execute(f"ATTACH '{tmp_path / 'm.duckdb'}' AS m (READ_ONLY)")
    assert schema.existing_tables(con) == {"mine"}
    assert schema.existing_tables(con, catalog="m") == {"hexes", "hex_neighbors", "map_rivers", "map_meta"}


def test_readers_return_the_stored_rows():
    con = connect()
    schema.create_map_tables(con)
    schema.create_campaign_tables(con)
    assert schema.read_factions(con) == () and schema.read_structures(con) == ()
    con.execute("INSERT INTO factions VALUES ('Roma', '#b71c1c', 'Roman', true, ['Roma'], 2, 1, 9)")
    con.execute("INSERT INTO structures VALUES ('Roma', 'Rome', 'City', 'c1', 'Roma', true, ST_Point(12.5, 41.9))")
    assert schema.read_factions(con) == (schema.Faction("Roma", "#b71c1c", "Roman", True, ("Roma",), 2, 1, 9),)
    assert schema.read_structures(con) == (schema.Structure("Roma", "Rome", "City", "c1", "Roma", True, 12.5, 41.9),)


def test_readers_tolerate_a_hand_made_table_but_not_one_without_its_key():
    con = connect()
    assert schema.read_factions(con) == ()  # a bare map: no campaign tables
    con.execute("CREATE TABLE factions (name VARCHAR)")
    con.execute("INSERT INTO factions VALUES ('Roma')")
    assert schema.read_factions(con) == (schema.Faction("Roma"),)
    con.execute("CREATE TABLE structures (name VARCHAR, kind VARCHAR)")
    with pytest.raises(InputError, match="structures lacks column"):
        schema.read_structures(con)


def test_view_query_is_the_views_own_select():
    con = connect()
    schema.create_map_tables(con)
    schema.create_campaign_tables(con)
    con.execute("INSERT INTO hex_neighbors VALUES ('a', 'b', 2, 60.0), ('b', 'a', 8, 240.0)")
    con.execute("INSERT INTO road_cells VALUES ('via', 0, 'a'), ('via', 1, 'b')")
    expected = sorted(con.execute("SELECT * FROM road_edges").fetchall())
    assert expected == [("via", "a", "b", 2), ("via", "b", "a", 8)]
    assert sorted(con.execute(schema.view_query("road_edges")).fetchall()) == expected
