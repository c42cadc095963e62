"""SQL views of what the rules derive per structure: terrain, coast adjacency, sea zones, Resilience.

The views live in ``etl/sql/structures/*.sql`` and are run in file-name order:

* ``structure_terrain(structure, cell, kind, hex_kind, terrain)``;
* ``structure_coast(structure, cell, adjacent_to_coast, coast_hexes)``;
* ``structure_resilience(structure, cell, kind, terrain, controller, capital,
  adjacent_to_coast, kind_modifier, terrain_modifier, coast_modifier,
  capital_modifier, resilience)`` — the Resilience a siege starts from;
* ``structure_sea_zones(structure, zone)`` — only where ``hex_sea_zones`` exists.

The Resilience modifiers are read from the campaign's ``rules`` table (keys
``sieges.resilience.<factor>``), which ``bellica campaign new`` writes from the ruleset
file and the scenario's ``[rules]`` (bellica.datasets.rules); a database without it
gets the ruleset's defaults written first, so the views work on any campaign database.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from bellica.geo.errors import InputError
from bellica.geo.spatialdb import run_sql, run_sql_file
from bellica.schema import existing_tables

SQL_DIR = Path(__file__).resolve().parent / "sql" / "structures"

__all__ = ["SQL_DIR", "install_structure_views", "structure_resilience"]


def install_structure_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Create (or replace) the structure views on a campaign connection; returns their names.

    The views read the campaign's frozen ``rules`` table (written by ``campaign new``)."""
    tables = existing_tables(con)
    missing = {"structures", "hexes", "hex_neighbors", "rules"} - tables
    if missing:
        raise InputError(
            f"cannot install the structure views: the database lacks {sorted(missing)}; "
            "run them on a campaign database written by `bellica campaign new`"
        )
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
