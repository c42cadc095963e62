"""The one schema: the map and campaign tables, defined once as SQL files in this folder.

* ``map.sql``: ``hexes``, ``hex_neighbors``, ``map_rivers``, ``map_meta``
  (written by ``bellica map build``, copied by ``bellica campaign new``);
* ``map_views.sql``: ``coast_adjacency``, ``sea_land_borders``, ``straits``;
* ``campaign.sql``: ``factions``, ``structures``, ``roads``, ``road_cells``,
  ``rivers``, ``river_cells``, ``sea_zones``, ``hex_sea_zones``, ``placements``,
  ``terrain_overrides``, ``scenario_notes``, ``scenario_meta``;
* ``campaign_views.sql``: ``road_edges``;
* ``provinces.sql``: ``provinces``, ``province_cells``, ``province_exceptions``, ``sea_areas``,
  ``sea_area_cells`` (written by ``bellica map provinces``, docs/provinces.md);
* ``province_views.sql``: ``province_adjacency``, ``province_seas``, ``sea_area_adjacency``.

A ruleset may keep its own tables in a file of the same form (one ``CREATE
TABLE`` per statement) and create them with :func:`run_schema` given the path.

Every geometry column is typed ``GEOMETRY('OGC:CRS84')``: lon/lat WGS84 with
(longitude, latitude) axis order, so a stock DuckDB reading the file knows the
CRS of every shape.  DuckDB keeps a column's CRS on disk only in files of
storage version 1.5 or later: open new database files with
:func:`create_database`.

This package sits at the bottom of the layering with ``bellica.geo``: it imports
only duckdb, the standard library and ``bellica.geo``.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import duckdb

from bellica.geo.errors import InputError, SqlError
from bellica.geo.spatialdb import catalog_kinds, connect, offline_connect, remembered_columns, run_sql, spatial_connect

SCHEMA_DIR = Path(__file__).resolve().parent

#: The CRS of every geometry column: lon/lat WGS84, axis order (longitude, latitude).
CRS = "OGC:CRS84"

#: Files older than this storage version silently drop a GEOMETRY column's CRS.
STORAGE_VERSION = "v1.5.0"

MAP = "map"
MAP_VIEWS = "map_views"
CAMPAIGN = "campaign"
CAMPAIGN_VIEWS = "campaign_views"
PROVINCES = "provinces"
PROVINCE_VIEWS = "province_views"

_CREATE_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.I)
_CREATE_VIEW = re.compile(r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?VIEW\s+(\w+)", re.I)

__all__ = [
    "CAMPAIGN",
    "CAMPAIGN_VIEWS",
    "CRS",
    "MAP",
    "MAP_VIEWS",
    "PROVINCES",
    "PROVINCE_VIEWS",
    "SCHEMA_DIR",
    "STORAGE_VERSION",
    "Faction",
    "Structure",
    "column_types",
    "create_campaign_tables",
    "create_database",
    "create_map_tables",
    "create_tables",
    "existing_columns",
    "existing_tables",
    "read_factions",
    "read_structures",
    "run_schema",
    "schema_tables",
    "table_columns",
    "view_query",
]


# --- the SQL files ------------------------------------------------------------------


def _path(name: str | Path) -> Path:
    path = Path(name)
    if path.suffix != ".sql":
        path = SCHEMA_DIR / f"{name}.sql"
    if not path.is_file():
        known = sorted(p.stem for p in SCHEMA_DIR.glob("*.sql"))
        raise InputError(f"schema {name!r}: no such file {path}: use one of {known} or the path of a .sql file")
    return path


def _statements(name: str | Path) -> list[str]:
    """The statements of a schema file, comment lines dropped (statements end with ``;``)."""
    text = "\n".join(line for line in _path(name).read_text().splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def _table_statements(name: str | Path) -> dict[str, str]:
    """``{table: CREATE TABLE statement}`` of a schema file, in file order."""
    out = {}
    for statement in _statements(name):
        match = _CREATE_TABLE.match(statement)
        if match is None:
            raise InputError(f"schema {name}: a statement that is not a CREATE TABLE: {statement[:60]!r}")
        out[match.group(1).lower()] = statement
    return out


def _or_replace(statement: str) -> str:
    return re.sub(r"^\s*CREATE\s+TABLE\b", "CREATE OR REPLACE TABLE", statement, count=1, flags=re.I)


def schema_tables(name: str | Path) -> tuple[str, ...]:
    """The tables (or, for a views file, the views) a schema file defines, in file order."""
    names = []
    for statement in _statements(name):
        match = _CREATE_TABLE.match(statement) or _CREATE_VIEW.match(statement)
        if match:
            names.append(match.group(1).lower())
    return tuple(names)


def view_query(view: str) -> str:
    """The SELECT that defines a schema view, to run where the view itself cannot be created (a read-only file)."""
    for name in (MAP_VIEWS, CAMPAIGN_VIEWS, PROVINCE_VIEWS):
        for statement in _statements(name):
            match = _CREATE_VIEW.match(statement)
            if match and match.group(1).lower() == view:
                return statement[re.search(r"\bAS\b", statement, re.I).end():].strip()
    raise InputError(f"{view!r} is not a view of the schema: use one of {list(schema_tables(MAP_VIEWS) + schema_tables(CAMPAIGN_VIEWS) + schema_tables(PROVINCE_VIEWS))}")


def run_schema(con: duckdb.DuckDBPyConnection, name: str | Path, *, replace: bool = False) -> None:
    """Run every statement of a schema file (``name`` in this folder, or a path).

    With ``replace``, tables that exist are replaced (``CREATE OR REPLACE``);
    without, an existing table is an error.
    """
    for i, statement in enumerate(_statements(name)):
        if replace:
            statement = _or_replace(statement)
        run_sql(con, statement, name=f"schema.{Path(name).stem}#{i + 1}")


def create_tables(con: duckdb.DuckDBPyConnection, name: str | Path, tables, *, replace: bool = False) -> None:
    """Create only ``tables`` (names) of a schema file."""
    statements = _table_statements(name)
    unknown = sorted(set(tables) - set(statements))
    if unknown:
        raise InputError(f"schema {name}: defines no table(s) {unknown}: use some of {list(statements)}")
    for table in tables:
        statement = statements[table]
        run_sql(con, _or_replace(statement) if replace else statement, name=f"schema.{table}")


def create_map_tables(con: duckdb.DuckDBPyConnection, *, views: bool = True, replace: bool = False) -> None:
    """The (empty) map tables, and with ``views`` the map views over them."""
    run_schema(con, MAP, replace=replace)
    if views:
        run_schema(con, MAP_VIEWS)


def create_campaign_tables(con: duckdb.DuckDBPyConnection, *, views: bool = True, replace: bool = False) -> None:
    """The (empty) campaign tables, and with ``views`` the campaign views (the map tables must exist)."""
    run_schema(con, CAMPAIGN, replace=replace)
    if views:
        run_schema(con, CAMPAIGN_VIEWS)


@lru_cache(maxsize=None)
def _catalog() -> tuple[tuple[str, str, str], ...]:
    """(table, column, type) of every table and view of the schema files, as DuckDB itself reads them.

    Read on a plain in-memory database: DuckDB 1.5 has GEOMETRY in its core and every schema view
    binds without the spatial extension, whose load (~0.2 s) every CLI step reading the Board paid
    here (issue 11).  Should a schema file one day need spatial to bind, the catalog is read with it
    (the same rows: tests/cli/test_startup_imports.py compares the two)."""
    try:
        return _read_catalog(offline_connect())
    except SqlError:
        return _read_catalog(connect())


def _read_catalog(con: duckdb.DuckDBPyConnection) -> tuple[tuple[str, str, str], ...]:
    try:
        for name in (MAP, MAP_VIEWS, CAMPAIGN, CAMPAIGN_VIEWS, PROVINCES, PROVINCE_VIEWS):
            run_schema(con, name)
        return tuple(
            con.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
            ).fetchall()
        )
    finally:
        con.close()


def table_columns(table: str) -> tuple[str, ...]:
    """The columns of a schema table or view, in order."""
    cols = tuple(c for t, c, _ in _catalog() if t == table)
    if not cols:
        raise InputError(f"{table!r} is not a table of the schema: use one of {sorted({t for t, _, _ in _catalog()})}")
    return cols


def column_types(table: str) -> dict[str, str]:
    """``{column: DuckDB type}`` of a schema table or view (geometry columns read ``GEOMETRY('OGC:CRS84')``)."""
    table_columns(table)
    return {c: ty for t, c, ty in _catalog() if t == table}


# --- databases ----------------------------------------------------------------------


def create_database(path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open a new database file (spatial loaded) whose storage keeps the geometry columns' CRS.

    An existing file keeps its own storage version: pass a path that does not exist yet.
    """
    path = Path(path)
    if path.exists():
        raise InputError(f"{path} exists: create_database writes a new file; remove it first")
    return spatial_connect(path, config={"storage_compatibility_version": STORAGE_VERSION})


def existing_tables(con: duckdb.DuckDBPyConnection, *, catalog: str | None = None) -> set[str]:
    """Names (lower case) of the tables and views of the current schema, or of the attached ``catalog``'s main schema."""
    if catalog is None:
        return set(catalog_kinds(con))
    sql = "SELECT lower(table_name) FROM information_schema.tables WHERE table_catalog = ? AND table_schema = 'main'"
    return {r[0] for r in run_sql(con, sql, [catalog], name="schema.existing_tables").fetchall()}


def existing_columns(con: duckdb.DuckDBPyConnection, table: str) -> tuple[str, ...]:
    """The columns a table of the connection's current schema has (empty when there is no such table)."""
    remembered = remembered_columns(con)
    if remembered is not None:
        return remembered.get(table.lower(), ())
    rows = run_sql(
        con,
        "SELECT lower(column_name) FROM information_schema.columns WHERE table_catalog = current_database() "
        "AND table_schema = current_schema() AND lower(table_name) = lower(?) ORDER BY ordinal_position",
        [table],
        name="schema.existing_columns",
    ).fetchall()
    return tuple(r[0] for r in rows)


# --- the campaign-table records -----------------------------------------------------


@dataclass(frozen=True)
class Faction:
    """One row of ``factions``, as stored (a column a hand-made table lacks reads None)."""

    name: str
    colour: str | None = None
    army_list: str | None = None
    player: bool | None = None
    capitals: tuple[str, ...] = ()
    influence_multiplier: int | None = None
    first_army: int | None = None
    last_army: int | None = None


@dataclass(frozen=True)
class Structure:
    """One row of ``structures``, as stored, with its point as lon/lat (None without a geom)."""

    name: str
    modern: str | None = None
    kind: str | None = None
    cell: str | None = None
    controller: str | None = None
    capital: bool | None = None
    lon: float | None = None
    lat: float | None = None


#: The schema columns (``geom`` aside) of the tables read into records, in order: the records' own
#: fields (``Structure``'s lon/lat come from ``geom``).  Written out rather than read from
#: :func:`table_columns`, whose catalog runs every schema file on a scratch database (~30 ms of
#: each CLI step that reads the Board, issue 11); tests/schema/test_record_columns.py checks they
#: are the schema's.
_RECORD_COLUMNS = {
    "factions": ("name", "colour", "army_list", "player", "capitals", "influence_multiplier", "first_army", "last_army"),
    "structures": ("name", "modern", "kind", "cell", "controller", "capital"),
}


def _select(con, table: str, required: tuple[str, ...]) -> tuple[str, list[str]]:
    """The schema columns of ``table`` the database has, NULL for those it lacks; a lacking required one is an error."""
    have = set(existing_columns(con, table))
    missing = [c for c in required if c not in have]
    if missing:
        raise InputError(f"table {table} lacks column(s) {', '.join(missing)}: rebuild it with `bellica campaign new`")
    return have, [c if c in have else f"NULL AS {c}" for c in _RECORD_COLUMNS[table]]


def read_factions(con: duckdb.DuckDBPyConnection) -> tuple[Faction, ...]:
    """The ``factions`` rows by name; () when the database has no such table (a bare map)."""
    if "factions" not in existing_tables(con):
        return ()
    _, cols = _select(con, "factions", ("name",))
    rows = run_sql(con, f"SELECT {', '.join(cols)} FROM factions ORDER BY name", name="schema.factions").fetchall()
    return tuple(
        Faction(name, colour, army_list, player, tuple(capitals or ()), mult, first, last)
        for name, colour, army_list, player, capitals, mult, first, last in rows
    )


def read_structures(con: duckdb.DuckDBPyConnection) -> tuple[Structure, ...]:
    """The ``structures`` rows by name; () when the database has no such table (a bare map)."""
    if "structures" not in existing_tables(con):
        return ()
    have, cols = _select(con, "structures", ("name", "cell"))
    # The point as WKB (DuckDB's own ST_AsWKB), decoded here: ST_X/ST_Y would need the spatial
    # extension, whose load costs every CLI step that reads the Board about 0.35 s (issue 11).
    point = "ST_AsWKB(geom)" if "geom" in have else "NULL"
    rows = run_sql(
        con, f"SELECT {', '.join(cols)}, {point} FROM structures ORDER BY name", name="schema.structures"
    ).fetchall()
    return tuple(Structure(*row[:-1], *_wkb_point(row[-1], row[0])) for row in rows)


def _wkb_point(wkb: bytes | None, name: str) -> tuple[float | None, float | None]:
    """(lon, lat) of a WKB point, as ST_X and ST_Y give them (None for no geom or POINT EMPTY)."""
    if wkb is None:
        return None, None
    order = "<" if wkb[0] == 1 else ">"
    kind, x, y = struct.unpack_from(order + "Idd", wkb, 1) if len(wkb) >= 21 else (0, 0.0, 0.0)
    if kind % 1000 != 1:  # 1 point, 1001/2001/3001 with Z and/or M: x and y come first
        raise InputError(f"structure {name!r} has a geom that is not a point: store its location as a POINT")
    if math.isnan(x) and math.isnan(y):  # POINT EMPTY
        return None, None
    return x, y
