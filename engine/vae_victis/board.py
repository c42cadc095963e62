"""The static :class:`~engine.model.Board` read from a campaign (or map) database.

The board is everything the rules consult that never changes during a campaign:
hexes with their kind, terrain and River flag, the clock-position sides of every
hex, the sides roads cross, the structures, the factions and the sea zones.
Movement, ZoC, logistics and the battle rules all work on this one object so
they never query the database in their inner loops.

Tables read (see docs/architecture.md):

* ``hexes`` (required) and ``hex_neighbors`` (required);
* ``road_edges`` (view) or, where the view is missing, ``road_cells`` (both
  directions of each consecutive pair are derived here);
* ``river_cells``: the scenario's River hexes.  When the table exists it is the
  authority (a scenario may keep only the major rivers); without it the map's
  ``hexes.river`` flag is used;
* ``structures`` (``coastal`` = adjacent to a hex of kind ``coast``, computed
  from ``hex_neighbors``, because the Resilience and naval rules say "adjacent
  to Coast hex");
* ``factions`` and ``hex_sea_zones``.

Campaign tables other than ``hexes``/``hex_neighbors`` are optional so that a
bare map database also loads (with no structures and no factions).

A compact JSON copy of the Board (the derived table ``board_cache``, :mod:`.board_cache`) is
read instead of the tables when its digest says it was made from exactly these rows; the
caller that may write (``write_cache=True``: the ruleset, for a campaign opened read-write)
writes a missing or stale copy.  Either way the Board is the same, field for field.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

import duckdb

from bellica.engine.vae_victis import board_cache
from bellica.engine.vae_victis.model import Board, FactionInfo, Hex, StructureInfo
from bellica.engine.vae_victis.rules import read_rules
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import run_sql
from bellica.schema import existing_tables, read_factions, read_structures, view_query

__all__ = ["board_from_duckdb", "existing_tables"]


def _read_hexes(con, river_override: set[str] | None) -> tuple[int, dict[str, Hex]]:
    rows = run_sql(
        con,
        "SELECT cell, res, kind, terrain, coalesce(river, false), coalesce(lat, 0), coalesce(lng, 0) "
        "FROM hexes ORDER BY cell",
        name="board.hexes",
    ).fetchall()
    if not rows:
        raise InputError("the database has an empty `hexes` table: build the map first (`bellica map build`)")
    resolutions = {r[1] for r in rows}
    if len(resolutions) != 1:
        raise InputError(f"`hexes` mixes H3 resolutions {sorted(resolutions)}: a board has one resolution")
    hexes = {}
    for cell, _res, kind, terrain, river, lat, lng in rows:
        is_river = (cell in river_override) if river_override is not None else bool(river)
        hexes[cell] = Hex(cell=cell, kind=kind, terrain=terrain, river=is_river, lat=float(lat), lng=float(lng))
    return resolutions.pop(), hexes


def _read_sides(con, hexes: dict[str, Hex]) -> dict[str, dict[int, str]]:
    sides: dict[str, dict[int, str]] = {cell: {} for cell in hexes}
    for cell, neighbor, clock in run_sql(
        con, "SELECT cell, neighbor, clock FROM hex_neighbors ORDER BY cell, clock", name="board.hex_neighbors"
    ).fetchall():
        # Rows whose ends are not both hexes of the map cannot be moved along.
        if cell in hexes and neighbor in hexes:
            sides[cell][int(clock)] = neighbor
    return sides


def _read_road_edges(con, tables: set[str]) -> frozenset[tuple[str, str]]:
    if "road_edges" in tables:
        rows = run_sql(con, "SELECT cell, neighbor FROM road_edges", name="board.road_edges").fetchall()
    elif "road_cells" in tables:
        # A file without the view (read-only here): the view's own query.
        rows = run_sql(
            con, f"SELECT cell, neighbor FROM ({view_query('road_edges')})", name="board.road_cells"
        ).fetchall()
    else:
        return frozenset()
    edges = set()
    for a, b in rows:
        if a != b:
            edges.add((a, b))
            edges.add((b, a))
    return frozenset(edges)


def _read_structures(con, tables: set[str], hexes: dict[str, Hex], sides) -> dict[str, StructureInfo]:
    out = {}
    for s in read_structures(con):
        name, kind, cell = s.name, (s.kind or "").lower(), s.cell
        if kind not in ("town", "city"):
            raise InputError(f"structure {name!r} has kind {kind!r}: use town or city")
        if cell not in hexes:
            raise InputError(f"structure {name!r} lies in cell {cell}, which is not a hex of this map")
        coastal = any(hexes[n].kind == "coast" for n in sides.get(cell, {}).values())
        out[name] = StructureInfo(
            name=name, kind=kind, cell=cell, capital=bool(s.capital), coastal=coastal, start_controller=s.controller
        )
    return out


def _read_factions(con, tables: set[str]) -> dict[str, FactionInfo]:
    # A hand-made table's blanks read as a player faction, multiplier 1, grey.
    return {
        f.name: FactionInfo(
            name=f.name,
            player=True if f.player is None else bool(f.player),
            capitals=f.capitals,
            influence_multiplier=1 if f.influence_multiplier is None else int(f.influence_multiplier),
            colour=f.colour or "#888888",
        )
        for f in read_factions(con)
    }


def _read_sea_zones(con, tables: set[str]) -> dict[str, frozenset[str]]:
    if "hex_sea_zones" not in tables:
        return {}
    zones: dict[str, set[str]] = {}
    for cell, zone in run_sql(con, "SELECT cell, zone FROM hex_sea_zones", name="board.hex_sea_zones").fetchall():
        zones.setdefault(cell, set()).add(zone)
    return {cell: frozenset(z) for cell, z in sorted(zones.items())}


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Pause the cycle collector while a Board is read.

    Reading a res-6 Board allocates some 300,000 small objects (hexes, sides, sets), none in a
    reference cycle; every few thousand allocations the collector would walk all of them again
    (a third of the read time at res 6). Reference counting still frees everything as usual."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def board_from_duckdb(con: duckdb.DuckDBPyConnection, *, use_cache: bool = True, write_cache: bool = False) -> Board:
    """Read the static :class:`Board` from a map or campaign database (see the module doc).

    ``use_cache``: take the Board from a fresh ``board_cache`` copy where there is one (False: always
    the tables).  ``write_cache``: where the copy is missing, stale or unreadable and the database
    accepts writes, store the Board read from the tables (call it inside the step's transaction,
    so a step that is rolled back leaves the file as it was)."""
    with _cyclic_gc_paused():
        if not (use_cache or write_cache):
            return _board_from_duckdb(con, existing_tables(con))
        kinds = board_cache.object_kinds(con)
        tables = set(kinds)
        if not {"hexes", "hex_neighbors"} <= tables:
            return _board_from_duckdb(con, tables)  # refused there, in one line
        digest = board_cache.board_digest(con, kinds)
        if use_cache:
            payload = board_cache.read_cached(con, kinds, digest)
            if payload is not None:
                try:
                    return board_cache.decode(payload, read_rules(con))
                except board_cache.CorruptCache:
                    pass  # read the tables below (and rewrite the copy where allowed)
        board = _board_from_duckdb(con, tables)
        if write_cache:
            board_cache.write_cache(con, board, digest)
        return board


def _board_from_duckdb(con: duckdb.DuckDBPyConnection, tables: set[str]) -> Board:
    missing = {"hexes", "hex_neighbors"} - tables
    if missing:
        raise InputError(
            f"the database lacks the map table(s) {sorted(missing)}: open a map or campaign database "
            "written by `bellica map build` / `bellica campaign new`"
        )
    river_override = None
    if "river_cells" in tables:
        river_override = {r[0] for r in run_sql(con, "SELECT cell FROM river_cells", name="board.rivers").fetchall()}
    res, hexes = _read_hexes(con, river_override)
    sides = _read_sides(con, hexes)
    return Board(
        res=res,
        hexes=hexes,
        sides=sides,
        road_edges=_read_road_edges(con, tables),
        structures=_read_structures(con, tables, hexes, sides),
        factions=_read_factions(con, tables),
        sea_zones=_read_sea_zones(con, tables),
        rules=read_rules(con),  # resolved against the factions by Board itself
    )
