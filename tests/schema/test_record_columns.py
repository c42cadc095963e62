"""The columns schema.read_factions / read_structures select are the schema's (issue 11: written out in
schema/__init__.py so that reading the Board builds no scratch catalog)."""

from dataclasses import fields

from bellica import schema


def test_record_columns_are_the_schema_tables_columns_in_order():
    for table, record in (("factions", schema.Faction), ("structures", schema.Structure)):
        columns = tuple(c for c in schema.table_columns(table) if c != "geom")
        assert schema._RECORD_COLUMNS[table] == columns
        # and the record's fields are those columns in that order (plus lon/lat read from geom)
        assert tuple(f.name for f in fields(record))[: len(columns)] == columns


def test_reading_the_records_builds_no_catalog(tmp_path, monkeypatch):
    import duckdb

    con = duckdb.connect(str(tmp_path / "c.duckdb"))
    schema.create_tables(con, schema.CAMPAIGN, ["factions", "structures"])
    con.execute("INSERT INTO factions (name, colour) VALUES ('Roma', '#c00')")
    con.execute("INSERT INTO structures (name, kind, cell) VALUES ('Ostia', 'town', '85283473fffffff')")
    monkeypatch.setattr(schema, "_catalog", lambda: (_ for _ in ()).throw(AssertionError("catalog built")))
    assert schema.read_factions(con) == (schema.Faction("Roma", "#c00"),)
    assert schema.read_structures(con) == (schema.Structure("Ostia", kind="town", cell="85283473fffffff"),)
