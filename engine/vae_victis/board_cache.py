"""A compact copy of the static :class:`~engine.model.Board`, kept in the campaign file (issue 11, part 1).

Reading the Board from the map tables costs a light ``bellica round`` step (initiative, publish,
orders, victory) some 50-75 ms on the demo campaign, most of it turning 26,000 ``hex_neighbors``
rows into Python tuples; from this copy the whole read (digest and rules included) takes 25-35 ms,
of which decoding the JSON (1 MB) and building the Board is about 14 ms.  The copy
lives in the derived table ``board_cache (key VARCHAR, digest VARCHAR, payload VARCHAR)``, one
row, ``key = 'board'``.

Decisions (the issue is silent on them):

* **JSON, never pickle or marshal.**  A campaign file is shared between umpire and players; a
  tampered payload must at worst be refused, never run code.  The payload is checked as it is
  decoded (every list the length it must be, every field its type's constructor); anything wrong
  (unparsable text, a missing key, a wrong shape) and the Board is read from the tables instead.
* **Keyed by a digest of every row it derives from**, not by a "written at campaign new" flag:
  ``count(*)`` and ``sum(hash(row))`` of each source table (``hexes``, ``hex_neighbors``,
  ``river_cells``, ``road_cells``, ``structures``, ``factions``, ``hex_sea_zones``; the whole
  row, so a column the Board does not read also counts), the SQL text of the ``road_edges`` view,
  which of those objects exist, and :data:`FORMAT`.  Measured on the demo campaign (4,419 hexes,
  25,970 sides): 3-4 ms for the digest against 50-75 ms for reading the tables; it grows with the
  rows as the read does, at about a twentieth of its cost.  A check this cheap covers a map table
  edited by hand, a scenario re-imported over the file, and a file written by another bellica,
  which a write-once flag would not.  The sum is order-free (rows are compared as sets, which is
  how the Board reads them: it sorts) and, unlike a XOR, two equal rows do not cancel.
  ``hash()`` is DuckDB's: should a DuckDB release change it, every cache reads as stale once and
  is rewritten, never wrongly fresh.
* **Written only where the caller says the connection may write** (``write=True``): the ruleset
  passes it for a campaign opened read-write, so the first step that reads the Board (inside its
  own transaction: a step refused or rolled back leaves the file as it was, cache included) writes
  a missing or stale copy, and every later step reads it.  A read-only open (``round status``,
  ``bellica sql``, the web app's looks) never writes: it uses a fresh copy or reads the tables.
  The table is recreated (``CREATE OR REPLACE``), never updated in place, so a hand-made
  ``board_cache`` of another shape cannot make the write fail inside the step's transaction.
* **The rules data is not in the copy**: :func:`engine.vae_victis.rules.read_rules` reads its own
  small table (3 ms) with the TOML defaults, and the Board re-resolves it against the factions.
* **Trust**: the copy is exactly as trusted as the map tables it derives from.  The event log's hash
  chain protects the state tables, not the map: a hand edit of ``hexes`` changes the Board either
  way, and a hand edit of the payload that keeps the digest is the same kind of edit.  The table
  is derived data, never part of the verified state (:mod:`engine.vae_victis.state` does not list
  it; ``bellica round verify`` does not compare it).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

import duckdb

from bellica.engine.vae_victis.model import Board, FactionInfo, Hex, StructureInfo
from bellica.geo.spatialdb import catalog_kinds, run_sql

__all__ = ["CACHE_TABLE", "FORMAT", "SOURCES", "CorruptCache", "board_digest", "decode", "encode", "object_kinds",
           "read_cached", "writable", "write_cache"]

CACHE_TABLE = "board_cache"
KEY = "board"

#: Bump when the payload's layout or the way :mod:`.board` derives the Board changes: older copies then read as stale.
FORMAT = 1

#: The tables (and the one view) the Board is read from; the digest covers every row of each.
SOURCES = ("hexes", "hex_neighbors", "river_cells", "road_cells", "road_edges", "structures", "factions", "hex_sea_zones")


# --- the digest -----------------------------------------------------------------------


def board_digest(con: duckdb.DuckDBPyConnection, kinds: Mapping[str, str]) -> str:
    """The digest of the Board's sources in this database; ``kinds`` maps each existing table or
    view (lower-case name) to ``'table'`` or ``'view'``."""
    parts = []
    for name in SOURCES:
        kind = kinds.get(name)
        if kind == "table":
            parts.append(f"SELECT '{name}', count(*)::HUGEINT, coalesce(sum(hash(x)::HUGEINT), 0) FROM {name} x")
        elif kind == "view":
            # A view's rows follow from its tables (digested above) and its SQL text.
            parts.append(
                f"SELECT '{name}', -1::HUGEINT, coalesce(max(hash(sql)), 0)::HUGEINT FROM duckdb_views() "
                f"WHERE database_name = current_database() AND schema_name = current_schema() "
                f"AND lower(view_name) = '{name}'"
            )
    rows = run_sql(con, " UNION ALL ".join(parts), name="board_cache.digest").fetchall() if parts else []
    text = json.dumps([FORMAT, sorted((n, int(c), int(h)) for n, c, h in rows)])
    return hashlib.sha256(text.encode()).hexdigest()


def object_kinds(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """``{lower-case name: 'table' | 'view'}`` of the current schema (one query: the Board needs the names too)."""
    return catalog_kinds(con)


# --- the payload ----------------------------------------------------------------------


def encode(board: Board) -> str:
    """The Board (less its rules data) as compact JSON, column by column, in the Board's own orders."""
    cells = list(board.hexes)
    hexes = [board.hexes[c] for c in cells]
    zone_sets = sorted(set(board.sea_zones.values()), key=sorted)
    set_index = {z: i for i, z in enumerate(zone_sets)}
    payload = {
        "format": FORMAT,
        "res": board.res,
        "cells": cells,
        "kind": [h.kind for h in hexes],
        "terrain": [h.terrain for h in hexes],
        "river": [h.river for h in hexes],
        "lat": [h.lat for h in hexes],
        "lng": [h.lng for h in hexes],
        # Sides keep the Board's keys (every hex, in hex order) and each hex's clock order, flat:
        # hex i has side_counts[i] entries of side_clocks / side_neighbours.
        "side_cells": list(board.sides),
        "side_counts": [len(s) for s in board.sides.values()],
        "side_clocks": [clock for s in board.sides.values() for clock in s],
        "side_neighbours": [n for s in board.sides.values() for n in s.values()],
        "roads": sorted(board.road_edges),
        "structures": [[s.name, s.kind, s.cell, s.capital, s.coastal, s.start_controller]
                       for s in board.structures.values()],
        "factions": [[f.name, f.player, list(f.capitals), f.influence_multiplier, f.colour]
                     for f in board.factions.values()],
        # Each distinct set of zones once (a few dozen for thousands of water hexes), by index.
        "zone_sets": [sorted(z) for z in zone_sets],
        "sea_cells": list(board.sea_zones),
        "sea_sets": [set_index[z] for z in board.sea_zones.values()],
    }
    # allow_nan=False: a NaN coordinate is refused here (ValueError: no copy) rather than stored
    # as non-standard JSON.
    return json.dumps(payload, separators=(",", ":"), allow_nan=False)


class CorruptCache(ValueError):
    """The stored payload is not a Board this module wrote."""


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise CorruptCache(what)


_STR, _STR_OR_NONE, _BOOL, _FLOAT, _INT = {str}, {str, type(None)}, {bool}, {float}, {int}


def _types(values: list) -> set[type]:
    return set(map(type, values))


def decode(text: str, rules: Any) -> Board:
    """The Board a payload of :func:`encode` holds, with ``rules``; :class:`CorruptCache` when it is not one."""
    try:
        p = json.loads(text)
        _expect(isinstance(p, dict) and p.get("format") == FORMAT, "format")
        cells, kinds, terrains, rivers, lats, lngs = (p[k] for k in ("cells", "kind", "terrain", "river", "lat", "lng"))
        n = len(cells)
        _expect(all(isinstance(v, list) and len(v) == n for v in (cells, kinds, terrains, rivers, lats, lngs)), "hex columns")
        # Type checks column by column (a set of the types seen), not value by value: a few ms less.
        _expect(_types(cells) <= _STR and _types(kinds) <= _STR and _types(terrains) <= _STR_OR_NONE, "hex names")
        _expect(_types(rivers) <= _BOOL and _types(lats) <= _FLOAT and _types(lngs) <= _FLOAT, "hex values")
        hexes = {c: Hex(c, k, t, r, la, ln) for c, k, t, r, la, ln in zip(cells, kinds, terrains, rivers, lats, lngs)}
        _expect(len(hexes) == n, "duplicate cells")
        side_cells, counts, clocks, neighbours = (p[k] for k in ("side_cells", "side_counts", "side_clocks", "side_neighbours"))
        _expect(all(isinstance(v, list) for v in (side_cells, counts, clocks, neighbours)), "sides")
        _expect(len(side_cells) == len(counts) and _types(side_cells) <= _STR and _types(counts) <= _INT
                and min(counts, default=0) >= 0 and sum(counts) == len(clocks) == len(neighbours), "side counts")
        _expect(_types(clocks) <= _INT and hexes.keys() >= set(neighbours), "side clocks and neighbours")
        sides: dict[str, dict[int, str]] = {}
        i = 0
        for c, k in zip(side_cells, counts):
            sides[c] = dict(zip(clocks[i:i + k], neighbours[i:i + k]))
            i += k
        _expect(len(sides) == len(side_cells), "duplicate side cells")
        roads = p["roads"]
        _expect(isinstance(roads, list) and all(isinstance(e, list) and len(e) == 2 for e in roads), "roads")
        road_edges = frozenset((a, b) for a, b in roads)
        _expect(all(type(a) is str and type(b) is str for a, b in road_edges), "road cells")
        structures = {}
        for row in p["structures"]:
            name, kind, cell, capital, coastal, controller = row
            _expect(type(name) is str and type(kind) is str and cell in hexes and type(capital) is bool
                    and type(coastal) is bool and (controller is None or type(controller) is str), "a structure")
            structures[name] = StructureInfo(name=name, kind=kind, cell=cell, capital=capital, coastal=coastal,
                                             start_controller=controller)
        factions = {}
        for row in p["factions"]:
            name, player, capitals, multiplier, colour = row
            _expect(type(name) is str and type(player) is bool and isinstance(capitals, list)
                    and all(type(c) is str for c in capitals) and type(multiplier) is int and type(colour) is str,
                    "a faction")
            factions[name] = FactionInfo(name=name, player=player, capitals=tuple(capitals),
                                         influence_multiplier=multiplier, colour=colour)
        zone_sets, sea_cells, sea_sets = p["zone_sets"], p["sea_cells"], p["sea_sets"]
        _expect(isinstance(zone_sets, list) and all(isinstance(z, list) and _types(z) <= _STR for z in zone_sets)
                and isinstance(sea_cells, list) and isinstance(sea_sets, list) and len(sea_cells) == len(sea_sets)
                and _types(sea_cells) <= _STR and _types(sea_sets) <= _INT
                and all(0 <= i < len(zone_sets) for i in set(sea_sets)), "sea zones")
        frozen = [frozenset(z) for z in zone_sets]
        sea_zones = {c: frozen[i] for c, i in zip(sea_cells, sea_sets)}
        _expect(len(sea_zones) == len(sea_cells), "duplicate sea cells")
        res = p["res"]
        _expect(type(res) is int, "res")
    except CorruptCache:
        raise
    except (ValueError, TypeError, KeyError, AttributeError) as e:  # json.JSONDecodeError is a ValueError
        raise CorruptCache(f"{type(e).__name__}: {e}") from None
    return Board(res=res, hexes=hexes, sides=sides, road_edges=road_edges, structures=structures,
                 factions=factions, sea_zones=sea_zones, rules=rules)


# --- the table ------------------------------------------------------------------------


def read_cached(con: duckdb.DuckDBPyConnection, kinds: Mapping[str, str], digest: str) -> str | None:
    """The stored payload when the copy is of these tables (its digest is ``digest``), else None."""
    if kinds.get(CACHE_TABLE) != "table":
        return None
    try:
        # A hand-made table of another shape fails in the binder, which leaves a transaction usable.
        # (con.execute, not run_sql: that failure is expected and not worth an error in the log).
        row = con.execute(f"SELECT digest, payload FROM {CACHE_TABLE} WHERE key = '{KEY}'").fetchone()
    except duckdb.Error:
        return None
    if row is None or row[0] != digest or not isinstance(row[1], str):
        return None
    return row[1]


def writable(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the connection's database accepts writes (a connection opened read-only does not)."""
    row = run_sql(con, "SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()",
                  name="board_cache.writable").fetchone()
    return row is not None and not row[0]


def write_cache(con: duckdb.DuckDBPyConnection, board: Board, digest: str) -> bool:
    """Store ``board``'s copy under ``digest`` (replacing any); False where the database is read-only
    or the Board cannot be written as JSON (a NaN coordinate): the tables are then read each time."""
    if not writable(con):
        return False
    try:
        payload = encode(board)
    except ValueError:
        return False
    run_sql(con, f"CREATE OR REPLACE TABLE {CACHE_TABLE} (key VARCHAR PRIMARY KEY, digest VARCHAR NOT NULL, "
                 "payload VARCHAR NOT NULL)", name="board_cache.create")
    run_sql(con, f"INSERT INTO {CACHE_TABLE} VALUES (?, ?, ?)", [KEY, digest, payload], name="board_cache.write")
    return True
