"""What the province builder and the node builder share about a designer's files.

Both read a TOML file the designer wrote (``[[province]]`` / ``[[place]]`` tables and their
keys) and write rows with a geometry into a map database.  The checks here make every bad
value one line naming the file, the entry and the fix (``where`` is that prefix).
"""

from __future__ import annotations

import math

from bellica.geo.errors import InputError, first_line
from bellica.geo.words import with_article

__all__ = ["check_keys", "insert_geometry_rows", "joined_ends", "list_of_tables", "name_text", "named_entry", "number",
           "open_map_for"]


def check_keys(entry: dict, allowed: set[str], where: str) -> None:
    """Refuse a key the entry may not have (a typo would otherwise be silently ignored)."""
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}: use only {', '.join(sorted(allowed))}")


def number(value, where: str) -> float:
    """A finite number (not a bool, NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{where}: {value!r} is not a number: write it in digits")
    return float(value)


def name_text(value, where: str) -> str:
    """A non-empty name, stripped."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: {value!r} is not a name: write it as a non-empty quoted string")
    return value.strip()


def named_entry(entry: dict, i: int, source: str, table: str, allowed: set[str], seen: dict[str, str] | set[str],
                *, each: str = "") -> tuple[str, str]:
    """The ``i``-th ``[[table]]`` entry's name, new among ``seen`` (any case; added to it), and the
    prefix of its messages from now on (``<source> <table> 'Name'``): its keys checked first.
    ``each``: what a repeated name asks to give its own name (default: the table's name)."""
    where = f"{source} [[{table}]] #{i + 1}"
    check_keys(entry, allowed, where)
    if "name" not in entry:
        raise InputError(f"{where}: no name: give it name = \"...\"")
    name = name_text(entry["name"], f"{where} name")
    where = f"{source} {table} {name!r}"
    if name.lower() in seen:
        raise InputError(f"{where}: the name is used twice: give each {each or table} its own name")
    if isinstance(seen, dict):
        seen[name.lower()] = name
    else:
        seen.add(name.lower())
    return name, where


def joined_ends(entry: dict, i: int, source: str, table: str, allowed: set[str], seen: dict[str, str], what: str,
                *, nearest: int = 0) -> tuple[str, str, str]:
    """The ``i``-th ``[[table]]`` entry's ``from`` and ``to``: two different ``what``s of the file
    (names in ``seen``, any case; given as ``seen`` spells them), its keys checked first; and the
    prefix of its messages (``<source> [[table]] #n``).  A name not in ``seen`` is refused with
    every name of the file, or with ``nearest`` of them (those of its first letter first) and the
    ``[[what]]`` that would add it."""
    where = f"{source} [[{table}]] #{i + 1}"
    check_keys(entry, allowed, where)
    ends = []
    for key in ("from", "to"):
        if key not in entry:
            raise InputError(f"{where}: no {key}: give from = \"{what}\" and to = \"{what}\"")
        value = name_text(entry[key], f"{where} {key}")
        if value.lower() not in seen:
            raise InputError(f"{where}: {key} = {value!r} is no {what} of the file: " + _others(value, seen, what, nearest))
        ends.append(seen[value.lower()])
    if ends[0] == ends[1]:
        raise InputError(f"{where}: from and to are both {ends[0]!r}: {with_article(table)} joins two {what}s")
    return ends[0], ends[1], where


def _others(value: str, seen: dict[str, str], what: str, nearest: int) -> str:
    """What a refused name may be instead: every name of ``seen``, or ``nearest`` of them and a new entry."""
    if not nearest:
        return f"use one of {', '.join(sorted(seen.values()))}"
    near = sorted(seen.values(), key=lambda n: (n[0].lower() != value[0].lower(), n))[:nearest]
    return f"add a [[{what}]] of that name or use one of {', '.join(near)}..."


def list_of_tables(data: dict, key: str, source: str) -> list[dict]:
    """``data[key]`` as a list of TOML tables (``[[key]]``); absent: empty."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InputError(f"{source}: {key} must be a list of tables: write each as [[{key}]]")
    return value


def insert_geometry_rows(con, table: str, columns: list[str], rows: list[tuple], *, geom: str | None = None) -> None:
    """Insert rows through an Arrow table; ``geom`` names a WKB column turned into GEOMETRY
    (the map build imports pyarrow anyway; a row-by-row insert of geometries is far slower)."""
    if not rows:
        return
    import pyarrow as pa

    data = pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns)})
    select = ", ".join(f"ST_GeomFromWKB({c})" if c == geom else c for c in columns)
    con.register("_bellica_design_rows", data)
    try:
        con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM _bellica_design_rows")
    finally:
        con.unregister("_bellica_design_rows")


def open_map_for(map_db, what: str, own_tables, *, force: bool):
    """``(connection, table names)`` of the map ``map_db`` a builder writes ``what`` ("provinces",
    "nodes") into, its ``own_tables``; refused in one line when it is no map, when it is a campaign
    (build on its map, then make the campaign), or when it has those tables already and not
    ``force``.  The caller closes the connection."""
    from bellica.etl.files import CAMPAIGN_MARKERS, open_duckdb, table_names

    fix = f"pass a file written by `bellica map build` (e.g. `bellica map build --out {map_db}`)"
    con = open_duckdb(map_db, what="map database", fix=fix)
    try:
        tables = table_names(con, "map database", map_db)
        missing = [t for t in ("hexes", "hex_neighbors") if t not in tables]
        if missing:
            raise InputError(f"map database {map_db} has no {' or '.join(missing)} table: {fix}")
        campaign = sorted(set(CAMPAIGN_MARKERS) & tables)
        if campaign:
            raise InputError(f"{map_db} is a campaign (it has {', '.join(campaign)}): build the {what} on its map, "
                             "then make the campaign from that map")
        present = sorted(set(own_tables) & tables)
        if present and not force:
            singular = what[:-1] if what.endswith("s") else what
            raise InputError(f"map database {map_db} already has {singular} tables ({', '.join(present)}): "
                             "pass --force to replace them")
    except BaseException:
        con.close()
        raise
    return con, tables


def write_to_map(map_db, write) -> None:
    """Run ``write(connection)`` on the map ``map_db`` opened for writing, spatial loaded, after a
    builder has read it and computed its tables; refused in one line when it cannot be opened
    (another command holds DuckDB's lock on it)."""
    import duckdb

    from bellica.geo.spatialdb import spatial_connect

    try:
        con = spatial_connect(map_db)
    except duckdb.Error as e:
        raise InputError(f"map database {map_db} cannot be opened for writing ({first_line(e)}): "
                         "try again once the command using it has finished") from None
    try:
        write(con)
    finally:
        con.close()
