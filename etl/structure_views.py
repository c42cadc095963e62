"""SQL views of what the rules derive per structure: terrain, coast adjacency, sea zones, Resilience.

The views live in ``etl/sql/structures/*.sql`` and are run in file-name order:

* ``structure_terrain(structure, cell, kind, hex_kind, terrain)``;
* ``structure_coast(structure, cell, adjacent_to_coast, coast_hexes)``;
* ``structure_resilience(structure, cell, kind, terrain, controller, capital,
  adjacent_to_coast, kind_modifier, terrain_modifier, coast_modifier,
  capital_modifier, resilience)`` — the Resilience a siege starts from;
* ``structure_sea_zones(structure, zone)`` — only where ``hex_sea_zones`` exists.

The modifiers come from the table ``resilience_modifiers(factor, value)``; it is
created with the seed's values when missing, so the views work on any campaign
database and a scenario can still change a number without touching SQL.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from tabula.geo.errors import InputError
from tabula.geo.spatialdb import run_sql, run_sql_file

SQL_DIR = Path(__file__).resolve().parent / "sql" / "structures"

SEED_RESILIENCE = {
    "town": -1,
    "city": 2,
    "farmlands": -1,
    "desert": 0,
    "hills": 0,
    "marshes": 1,
    "forests": 0,
    "mountains": 2,
    "peaks": 0,
    "coast": 1,
    "capital": 2,
}
"""Vae Victis II siege Resilience modifiers (the seed's "Sieges" section)."""

__all__ = ["SEED_RESILIENCE", "SQL_DIR", "install_structure_views", "structure_resilience"]


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "SELECT lower(table_name) FROM information_schema.tables WHERE table_schema = current_schema()"
    ).fetchall()
    return {r[0] for r in rows}


def install_structure_views(con: duckdb.DuckDBPyConnection, *, modifiers: dict[str, int] | None = None) -> list[str]:
    """Create (or replace) the structure views on a campaign connection; returns their names.

    ``modifiers`` replaces the ``resilience_modifiers`` table (factor -> value);
    without it an existing table is kept and a missing one gets the seed's values.
    """
    tables = _tables(con)
    missing = {"structures", "hexes", "hex_neighbors"} - tables
    if missing:
        raise InputError(
            f"cannot install the structure views: the database lacks {sorted(missing)}; "
            "run them on a campaign database written by `tabula campaign new`"
        )
    if modifiers is not None or "resilience_modifiers" not in tables:
        values = dict(SEED_RESILIENCE if modifiers is None else modifiers)
        for factor, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(f"Resilience modifier {factor!r} = {value!r}: give a whole number")
        run_sql(con, "CREATE OR REPLACE TABLE resilience_modifiers (factor VARCHAR PRIMARY KEY, value INTEGER NOT NULL)")
        if values:
            con.executemany("INSERT INTO resilience_modifiers VALUES (?, ?)", sorted((k.lower(), v) for k, v in values.items()))
    created = []
    for path in sorted(SQL_DIR.glob("*.sql")):
        if path.stem.endswith("sea_zones") and "hex_sea_zones" not in tables:
            continue  # a campaign without sea zones has nothing to relate
        run_sql_file(con, path)
        created.append(path.stem.split("_", 1)[1])
    return created


def structure_resilience(con: duckdb.DuckDBPyConnection, name: str) -> int:
    """Start Resilience of one structure (the views must be installed)."""
    row = run_sql(con, "SELECT resilience FROM structure_resilience WHERE structure = ?", [name], name="structure_resilience").fetchone()
    if row is None:
        raise InputError(f"no structure named {name!r}: check structures.name")
    return int(row[0])
