"""Node maps from real geography: `bellica map nodes` (docs/nodes.md).

A node file (TOML) lists places (``[[place]]``: name, ``at = [lon, lat]``, optional terrain and
coastal overrides, fortified, neutral commands, the years it exists, a note) and the paths that
join them (``[[path]]``: from, to, ``by = "land"|"sea"``, optional ``via`` waypoints and years).
:func:`compute_nodes` puts them on a hex map:

1. every place becomes a hex: the hex its point falls in; a point in a coast or lake hex (a
   harbour town at this resolution) takes the nearest land neighbour, and is reported; deeper
   water, the map's outside, or a hex with no land neighbour are refused;
2. a place's terrain is the designer's, else the terrain class of its hex; it is coastal by the
   designer's word, else when its hex or a neighbour is a coast or sea hex (ocean and lakes are
   no way for a fleet);
3. a land path is routed over land hexes the way roads are (:func:`bellica.etl.roads.road_cost`
   with the scenario defaults, :data:`bellica.etl.scenario.DEFAULT_ROUTING`): never peaks or water;
4. a sea path joins two coastal places over coast and sea hexes (:func:`sea_cost`: a coast hex
   costs 1, an open sea hex a little more, so ships keep near the shore as ancient ones did); a
   place declared coastal whose own hex touches no water sails from the nearest coast hex within
   two rings of it;
5. every path gets its line (a's site, the hex centres between, b's site), its length in km along
   that line, its hex count, the terrain it crosses (hexes per terrain class, the kind for water
   hexes; a sea path's land ends not counted) and the bearing at which it leaves each end.

:func:`write_nodes` writes the tables of ``schema/nodes.sql`` and the views and macros of
``schema/node_views.sql`` in one transaction; :func:`build_nodes` does all of it for a map file,
refusing to replace existing node tables without ``force``, nothing written on bad input.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import h3
import shapely

from bellica.etl.design_files import (check_keys, insert_geometry_rows, joined_ends, list_of_tables, name_text, named_entry,
                                       number, open_map_for, write_to_map)
from bellica.etl.roads import CostFn, HexGraph, road_cost, shortest_path
from bellica.etl.scenario import DEFAULT_ROUTING, LAND_TERRAINS
from bellica.geo.errors import InputError, MissingInputError, first_line
from bellica.geo.files import read_user_text
from bellica.geo.words import with_article
from bellica.schema import SCHEMA_DIR, run_schema, schema_tables

__all__ = [
    "NODE_TABLES",
    "NODE_VIEWS",
    "NODE_MACROS",
    "NodeFile",
    "NodePath",
    "NodeResult",
    "Place",
    "build_nodes",
    "compute_nodes",
    "copy_node_tables",
    "create_node_views",
    "drop_node_objects",
    "load_node_file",
    "node_file_from_dict",
    "sea_cost",
    "write_nodes",
]

NODES_SQL = SCHEMA_DIR / "nodes.sql"
NODE_VIEWS_SQL = SCHEMA_DIR / "node_views.sql"
NODE_TABLES = schema_tables(NODES_SQL)
NODE_VIEWS = schema_tables(NODE_VIEWS_SQL)
#: The table macros of node_views.sql (schema_tables lists tables and views only).
NODE_MACROS = tuple(m.lower() for m in re.findall(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)", NODE_VIEWS_SQL.read_text(), re.I))

#: Water a fleet sails (coast: water next to land; sea: open water). Ocean is impassable to ships, lakes inland.
NAVIGABLE = ("coast", "sea")
#: Cost of a sea step into each navigable kind (open sea a little dearer: ancient ships kept near the shore).
DEFAULT_SEA_COST = {"coast": 1.0, "sea": 1.25}
#: Rings searched for a harbour hex of a place declared coastal whose own hex touches no water.
HARBOUR_RINGS = 2
MAX_COMMANDS = 3
KINDS = ("land", "sea")

_TOP_KEYS = {"place", "path", "routing"}
_PLACE_KEYS = {"name", "at", "terrain", "coastal", "fortified", "commands", "from_year", "until_year", "note"}
_PATH_KEYS = {"from", "to", "by", "via", "from_year", "until_year", "note"}
_ROUTING_KEYS = {"road_terrain_cost", "road_elevation_per_km", "road_off_valley_penalty", "sea_cost"}
FILE_HELP = "docs/nodes.md"


# --------------------------------------------------------------------------- the node file


@dataclass(frozen=True)
class Place:
    """One ``[[place]]``: its real site and the designer's facts (None: derive from the map)."""

    name: str
    lon: float
    lat: float
    terrain: str | None = None
    coastal: bool | None = None
    fortified: bool = False
    commands: int = 0
    from_year: int | None = None
    until_year: int | None = None
    note: str | None = None

    def exists_in(self, year: int | None) -> bool:
        return _in_years(year, self.from_year, self.until_year)


@dataclass(frozen=True)
class NodePath:
    """One ``[[path]]``: ``a`` and ``b`` are the place names in byte order (the stored canonical order)."""

    a: str
    b: str
    kind: str  # land | sea
    via: tuple[tuple[float, float], ...] = ()  # (lon, lat) waypoints, in the order from a to b
    from_year: int | None = None
    until_year: int | None = None
    note: str | None = None
    entry: int = 0  # its number in the file (1-based), for messages


@dataclass(frozen=True)
class NodeFile:
    """A whole node file, checked."""

    places: tuple[Place, ...]
    paths: tuple[NodePath, ...] = ()
    routing: dict = field(default_factory=lambda: dict(DEFAULT_ROUTING))
    sea_cost: dict = field(default_factory=lambda: dict(DEFAULT_SEA_COST))
    source: str = "<nodes>"

    def for_year(self, year: int | None) -> "NodeFile":
        """The places of ``year`` and the paths that exist then (both places too); all with None."""
        if year is None:
            return self
        places = tuple(p for p in self.places if p.exists_in(year))
        alive = {p.name for p in places}
        paths = tuple(p for p in self.paths if p.a in alive and p.b in alive and _in_years(year, p.from_year, p.until_year))
        return NodeFile(places, paths, self.routing, self.sea_cost, self.source)


def _in_years(year: int | None, first: int | None, last: int | None) -> bool:
    return year is None or ((first is None or first <= year) and (last is None or year <= last))


def _flag(value, where: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{where}: {value!r} is not true or false: write true or false")
    return value


def _year(value, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value == 0:
        raise InputError(f"{where}: {value!r} is not a year: write a whole number, negative BC (e.g. -397), there is no year 0")
    return value


def _point(value, where: str, example: str) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise InputError(f"{where}: must be [lon, lat] in degrees, e.g. {example}")
    lon, lat = (number(v, where) for v in value)
    if not (-180 <= lon <= 180 and -90 <= lat <= 90):
        raise InputError(f"{where}: [{lon}, {lat}] is not a lon/lat: write [lon, lat] in degrees, e.g. {example}")
    return lon, lat


def _note(entry: dict) -> str | None:
    return None if entry.get("note") is None else str(entry["note"])


def _years(entry: dict, where: str) -> tuple[int | None, int | None]:
    first = _year(entry.get("from_year"), f"{where} from_year")
    last = _year(entry.get("until_year"), f"{where} until_year")
    if first is not None and last is not None and last < first:
        raise InputError(f"{where}: until_year {last} is before from_year {first}: swap them (years are negative BC)")
    return first, last


def load_node_file(path: str | Path) -> NodeFile:
    """Read and check a node file (TOML, docs/nodes.md)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"node file {path} is a directory: pass the TOML file of [[place]] and [[path]] entries ({FILE_HELP})")
    if not path.is_file():  # missing (a FIFO or a device is no file either: reading one could block)
        raise MissingInputError(f"node file {path} does not exist: pass a TOML file of [[place]] and [[path]] entries ({FILE_HELP})")
    text = read_user_text(path, "node file")  # over-large, non-UTF-8, a directory: one line naming it
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"node file {path} is not TOML ({str(e).splitlines()[0]}): fix its syntax ({FILE_HELP})") from None
    except RecursionError:  # tomllib recurses per "[": thousands of them exhaust the stack
        raise InputError(f"node file {path} is not TOML (arrays or tables nested thousands of levels deep): "
                         f"write [[place]] and [[path]] entries ({FILE_HELP})") from None
    return node_file_from_dict(data, source=str(path))


def node_file_from_dict(data: dict, *, source: str = "<nodes>") -> NodeFile:
    """A :class:`NodeFile` from the parsed TOML (tests and callers with their own data)."""
    check_keys(data, _TOP_KEYS, source)
    seen: dict[str, str] = {}  # lower-case name -> the name as written, for duplicates and paths' ends
    places = [_place(entry, i, source, seen) for i, entry in enumerate(list_of_tables(data, "place", source))]
    if not places:
        raise InputError(f"{source}: no [[place]] entries: give each place a name and at = [lon, lat] ({FILE_HELP})")
    pairs: dict[tuple[str, str, str], int] = {}  # (end, end, kind) -> the path's number, for duplicates
    paths = [_node_path(entry, i, source, seen, pairs) for i, entry in enumerate(list_of_tables(data, "path", source))]
    routing, sea = _routing(data, source)
    return NodeFile(tuple(places), tuple(paths), routing, sea, source)


def _place(entry: dict, i: int, source: str, seen: dict[str, str]) -> Place:
    """The ``i``-th [[place]]: a new name, a lon/lat site, and its optional terrain, coast, walls and commands."""
    name, where = named_entry(entry, i, source, "place", _PLACE_KEYS, seen)
    if "at" not in entry:
        raise InputError(f"{where}: no at: give its site as at = [lon, lat], e.g. at = [15.29, 37.07]")
    lon, lat = _point(entry["at"], f"{where} at", "at = [15.29, 37.07]")
    terrain = None if entry.get("terrain") is None else name_text(entry["terrain"], f"{where} terrain").lower()
    if terrain is not None and terrain not in LAND_TERRAINS:
        raise InputError(f"{where}: terrain = {terrain!r} is no terrain class: use one of {', '.join(LAND_TERRAINS)}")
    coastal = None if entry.get("coastal") is None else _flag(entry["coastal"], f"{where} coastal")
    fortified = _flag(entry.get("fortified", False), f"{where} fortified")
    commands = entry.get("commands", 0)
    if isinstance(commands, bool) or not isinstance(commands, int) or not 0 <= commands <= MAX_COMMANDS:
        raise InputError(f"{where}: commands = {commands!r}: write a whole number 0 to {MAX_COMMANDS} (the neutral commands it raises)")
    first, last = _years(entry, where)
    return Place(name, lon, lat, terrain, coastal, fortified, commands, first, last, _note(entry))


def _node_path(entry: dict, i: int, source: str, seen: dict[str, str], pairs: dict[tuple[str, str, str], int]) -> NodePath:
    """The ``i``-th [[path]]: two different places of the file, by land or sea, its waypoints ordered
    from the alphabetically first end; one path of a kind between two places."""
    *ends, where = joined_ends(entry, i, source, "path", _PATH_KEYS, seen, "place", nearest=6)
    where = f"{source} path {ends[0]} - {ends[1]}"
    kind = entry.get("by", "land")
    if kind not in KINDS:
        raise InputError(f"{where}: by = {kind!r}: write by = \"land\" or by = \"sea\"")
    via_raw = entry.get("via", [])
    if not isinstance(via_raw, list):
        raise InputError(f"{where}: via must be a list of [lon, lat] waypoints, e.g. via = [[14.9, 37.6]]")
    via = [_point(v, f"{where} via #{k + 1}", "via = [[14.9, 37.6]]") for k, v in enumerate(via_raw)]
    a, b = sorted(ends)
    if (a, b) != tuple(ends):
        via.reverse()
    key3 = (a, b, kind)
    if key3 in pairs:
        raise InputError(f"{where}: the {kind} path between them is listed twice (#{pairs[key3]} and #{i + 1}): keep one")
    pairs[key3] = i + 1
    first, last = _years(entry, where)
    return NodePath(a, b, kind, tuple(via), first, last, _note(entry), i + 1)


def _routing(data: dict, source: str) -> tuple[dict, dict]:
    """The [routing] table over the defaults: numbers, and tables of positive costs (sea costs only for
    navigable water); the routing settings and the sea costs."""
    routing_in = data.get("routing", {})
    if not isinstance(routing_in, dict):
        raise InputError(f"{source}: routing must be a table: write [routing]")
    check_keys(routing_in, _ROUTING_KEYS, f"{source} [routing]")
    routing = dict(DEFAULT_ROUTING)
    sea = dict(DEFAULT_SEA_COST)
    for key, value in routing_in.items():
        where = f"{source} [routing] {key}"
        if key in ("road_terrain_cost", "sea_cost"):
            if not isinstance(value, dict):
                raise InputError(f"{where}: must be a table of name = cost, e.g. {key} = {{ hills = 3 }}")
            costs = {str(k): number(v, f"{where}.{k}") for k, v in value.items()}
            if any(v <= 0 for v in costs.values()):
                raise InputError(f"{where}: every cost must be positive: a step always costs something")
            if key == "sea_cost":
                unknown = sorted(set(costs) - set(NAVIGABLE))
                if unknown:
                    raise InputError(f"{where}: {', '.join(unknown)} is no navigable water: price only {', '.join(NAVIGABLE)}")
                sea.update(costs)
            else:
                routing[key] = {**routing[key], **costs}
        else:
            routing[key] = number(value, where)
    return routing, sea


# --------------------------------------------------------------------------- routing


def sea_cost(costs: dict[str, float] | None = None) -> CostFn:
    """Step cost into a hex for a sea path: coast and sea hexes by ``costs`` (None = never)."""
    table = dict(DEFAULT_SEA_COST if costs is None else costs)

    def cost(g: HexGraph, cell: str) -> float | None:
        return table.get(g.kind.get(cell) or "")

    return cost


def _haversine_km(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lng2 - lng1) / 2) ** 2
    return 2 * 6371.0088 * math.asin(math.sqrt(min(1.0, a)))


def _bearing(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lng2 - lng1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return round(math.degrees(math.atan2(y, x)) % 360.0, 1)


@dataclass
class NodeResult:
    """What :func:`compute_nodes` made: the rows of the node tables and the report."""

    nodes: list[dict]  # name, lon, lat, cell, terrain, coastal, fortified, commands, from_year, until_year, note
    paths: list[dict]  # a, b, kind, length_km, hexes, bearing_a, bearing_b, from_year, until_year, note, cells, terrain, line
    year: int | None = None
    notes: list[str] = field(default_factory=list)

    def summary(self) -> list[str]:
        land = [p for p in self.paths if p["kind"] == "land"]
        sea = [p for p in self.paths if p["kind"] == "sea"]
        coastal = sum(1 for n in self.nodes if n["coastal"])
        era = f" in {_year_text(self.year)}" if self.year is not None else ""
        lines = [f"{len(self.nodes)} places{era} ({coastal} coastal, {sum(1 for n in self.nodes if n['fortified'])} fortified); "
                 f"{len(land)} land paths ({sum(p['length_km'] for p in land):,.0f} km), "
                 f"{len(sea)} sea paths ({sum(p['length_km'] for p in sea):,.0f} km)"]
        for n in self.nodes:
            facts = [n["terrain"] or "?", "coastal" if n["coastal"] else "inland"]
            if n["fortified"]:
                facts.append("fortified")
            if n["commands"]:
                facts.append(f"{n['commands']} command{'s' if n['commands'] > 1 else ''}")
            lines.append(f"  {n['name']}: {', '.join(facts)} (hex {n['cell']})")
        lines.extend(f"note: {n}" for n in self.notes)
        return lines

    def as_json(self) -> dict:
        return {
            "year": self.year,
            "nodes": self.nodes,
            "paths": [{k: v for k, v in p.items() if k not in ("cells", "line")} for p in self.paths],
            "notes": self.notes,
        }


def _year_text(year: int) -> str:
    return f"{-year} BC" if year < 0 else f"AD {year}"


def _place_cell(place: Place, g: HexGraph, res: int, bbox, source: str) -> tuple[str, str | None]:
    """The hex of a place, and a note when its point fell in water next to land."""
    where = f"{source} place {place.name!r}"
    cell = h3.latlng_to_cell(place.lat, place.lon, res)
    if cell not in g.kind:
        w, s, e, n = bbox
        swapped = h3.latlng_to_cell(place.lon, place.lat, res) in g.kind if -90 <= place.lon <= 90 else False
        hint = " (lon and lat look swapped: write at = [lon, lat])" if swapped else ""
        raise InputError(f"{where}: at = [{place.lon}, {place.lat}] lies outside the map "
                         f"(hexes span {w:.2f},{s:.2f} to {e:.2f},{n:.2f}){hint}: correct it or build a map that covers it")
    if g.kind[cell] == "land":
        return cell, None
    near = [c for c, _clock in g.neighbors.get(cell, ()) if g.kind.get(c) == "land"]
    if g.kind[cell] not in ("coast", "lake") or not near:
        raise InputError(f"{where}: at = [{place.lon}, {place.lat}] lies at sea ({g.kind[cell]} hex {cell}, no land beside it): "
                         "move it onto the land of its site")
    lat0, lng0 = place.lat, place.lon
    best = min(near, key=lambda c: (round(_haversine_km(lat0, lng0, *g.latlng[c]), 6), c))
    return best, (f"{place.name}: [{place.lon}, {place.lat}] lies in {with_article(g.kind[cell])} hex at this resolution; "
                  f"its node is the neighbouring land hex {best}")


def _waypoint(point: tuple[float, float], kind: str, g: HexGraph, res: int, where: str) -> str:
    lon, lat = point
    cell = h3.latlng_to_cell(lat, lon, res)
    want = ("land",) if kind == "land" else NAVIGABLE
    if g.kind.get(cell) not in want:
        what = "outside the map" if cell not in g.kind else f"in {with_article(g.kind[cell])} hex"
        need = "a land hex" if kind == "land" else "a coast or sea hex"
        raise InputError(f"{where}: via [{lon}, {lat}] lies {what}: a {kind} path's waypoints must lie in {need}; move it")
    return cell


def _harbour(cell: str, g: HexGraph) -> str | None:
    """The nearest navigable hex within HARBOUR_RINGS of a land hex with no water beside it (None: none)."""
    lat0, lng0 = g.latlng[cell]
    for k in range(1, HARBOUR_RINGS + 1):
        ring = [c for c in h3.grid_ring(cell, k) if g.kind.get(c) in NAVIGABLE]
        if ring:
            return min(ring, key=lambda c: (round(_haversine_km(lat0, lng0, *g.latlng[c]), 6), c))
    return None


def _line(points: list[tuple[float, float]]) -> tuple[shapely.LineString, float]:
    """The line through (lon, lat) points, consecutive duplicates dropped, and its length in km."""
    pts = [p for i, p in enumerate(points) if i == 0 or p != points[i - 1]]
    if len(pts) == 1:
        pts = pts * 2
    km = sum(_haversine_km(p[1], p[0], q[1], q[0]) for p, q in zip(pts, pts[1:]))
    return shapely.LineString(pts), km


def compute_nodes(g: HexGraph, res: int, spec: NodeFile, *, year: int | None = None) -> NodeResult:
    """Place the nodes of ``spec`` on the map ``g`` and route its paths (module docstring); one-line errors on bad input."""
    source = spec.source
    if not g.kind:
        raise InputError(f"{source}: the map has no hexes: rebuild it with `bellica map build`")
    lats = [ll[0] for ll in g.latlng.values()]
    lngs = [ll[1] for ll in g.latlng.values()]
    bbox = (min(lngs), min(lats), max(lngs), max(lats))
    chosen = spec.for_year(year)
    if not chosen.places:
        raise InputError(f"{source}: no place exists in {_year_text(year)}: check from_year/until_year or pass another --year")
    notes: list[str] = []
    nodes, cells, coastal = [], {}, {}
    for place in chosen.places:
        node = _node_row(place, g, res, bbox, source, notes)
        cells[place.name], coastal[place.name] = node["cell"], node["coastal"]
        nodes.append(node)
    site = {p.name: (p.lon, p.lat) for p in chosen.places}
    costs = {"land": road_cost(spec.routing), "sea": sea_cost(spec.sea_cost)}
    paths = [_route_path(path, g, res, cells, coastal, site, costs, source, notes) for path in chosen.paths]
    nodes.sort(key=lambda n: n["name"])
    paths.sort(key=lambda p: (p["a"], p["b"], p["kind"]))
    return NodeResult(nodes, paths, year, list(dict.fromkeys(notes)))  # a harbour is noted once


def _node_row(place: Place, g: HexGraph, res: int, bbox, source: str, notes: list[str]) -> dict:
    """A place's node: its hex, its terrain (the place's own, else its hex's) and whether it is coastal
    (as declared, else water in or beside its hex)."""
    cell, note = _place_cell(place, g, res, bbox, source)
    if note:
        notes.append(note)
    water_here = g.kind[cell] in NAVIGABLE or any(g.kind.get(c) in NAVIGABLE for c, _ in g.neighbors.get(cell, ()))
    is_coastal = water_here if place.coastal is None else place.coastal
    terrain = place.terrain if place.terrain is not None else g.terrain.get(cell)
    return {"name": place.name, "lon": place.lon, "lat": place.lat, "cell": cell, "terrain": terrain,
            "coastal": bool(is_coastal), "fortified": place.fortified, "commands": place.commands,
            "from_year": place.from_year, "until_year": place.until_year, "note": place.note}


def _route_path(path: NodePath, g: HexGraph, res: int, cells: dict[str, str], coastal: dict[str, bool],
                site: dict[str, tuple[float, float]], costs: dict[str, CostFn], source: str,
                notes: list[str]) -> dict:
    """One path's route over the hexes, from place to place through its waypoints, and its layer row."""
    where = f"{source} {path.kind} path {path.a} - {path.b} ([[path]] #{path.entry})"
    start, goal = cells[path.a], cells[path.b]
    head: list[str] = []
    tail: list[str] = []
    if path.kind == "sea":
        start, goal, head, tail = _sea_ends(path, g, cells, coastal, where, notes)
    waypoints = [start, *(_waypoint(v, path.kind, g, res, where) for v in path.via), goal]
    chain = head + _chain(path, g, waypoints, costs[path.kind], where) + tail
    pts = [site[path.a], *((g.latlng[c][1], g.latlng[c][0]) for c in chain[1:-1]), site[path.b]]
    line, km = _line(pts)
    coords = list(line.coords)
    bearing_a = _bearing(coords[0][1], coords[0][0], coords[1][1], coords[1][0]) if len(set(coords)) > 1 else None
    bearing_b = _bearing(coords[-1][1], coords[-1][0], coords[-2][1], coords[-2][0]) if len(set(coords)) > 1 else None
    # A sea path crosses water: its land ends (the places' own hexes) are not counted.
    crossed = Counter((g.terrain.get(c) if g.kind.get(c) == "land" else g.kind.get(c)) or "unknown" for c in chain
                      if path.kind == "land" or g.kind.get(c) != "land")
    return {"a": path.a, "b": path.b, "kind": path.kind, "length_km": round(km, 1), "hexes": len(chain),
            "bearing_a": bearing_a, "bearing_b": bearing_b, "from_year": path.from_year,
            "until_year": path.until_year, "note": path.note, "cells": chain,
            "terrain": dict(sorted(crossed.items())), "line": line}


def _sea_ends(path: NodePath, g: HexGraph, cells: dict[str, str], coastal: dict[str, bool], where: str,
              notes: list[str]) -> tuple[str, str, list[str], list[str]]:
    """A sea path's ends: both places coastal; one whose hex has no water beside it sails from its
    nearest harbour hex.  ``(start, goal, head, tail)``: the hexes the ships sail between, and the
    place's own hex before or after them when it is not one of them."""
    start, goal = cells[path.a], cells[path.b]
    for end in (path.a, path.b):
        if not coastal[end]:
            raise InputError(f"{where}: {end} is not coastal (its hex {cells[end]} has no coast or sea hex beside it): "
                             f"make it a land path, or set coastal = true on {end} if it had a harbour")
    ends = []
    for end, cell in ((path.a, start), (path.b, goal)):
        if any(g.kind.get(c) in NAVIGABLE for c, _ in g.neighbors.get(cell, ())) or g.kind[cell] in NAVIGABLE:
            ends.append(cell)
            continue
        harbour = _harbour(cell, g)
        if harbour is None:
            raise InputError(f"{where}: {end} is declared coastal but no coast or sea hex lies within "
                             f"{HARBOUR_RINGS} hexes of it on this map: move it to its harbour or make it a land path")
        notes.append(f"{end}: declared coastal, sails from the coast hex {harbour} at this resolution")
        ends.append(harbour)
    head = [start] if ends[0] != start else []
    tail = [goal] if ends[1] != goal else []
    return ends[0], ends[1], head, tail


def _chain(path: NodePath, g: HexGraph, waypoints: list[str], cost: CostFn, where: str) -> list[str]:
    """The hexes of the cheapest route through ``waypoints`` in order, each leg by :func:`shortest_path`."""
    chain = [waypoints[0]]
    for k, (u, v) in enumerate(zip(waypoints, waypoints[1:])):
        leg = shortest_path(g, u, v, cost)
        if leg is None:
            labels = [path.a, *(f"via #{j + 1}" for j in range(len(path.via))), path.b]
            over = ("passable land (water and peaks are no road)" if path.kind == "land"
                    else "coast and sea hexes (ocean and lakes are no way for ships)")
            raise InputError(f"{where}: no {path.kind} route from {labels[k]} to {labels[k + 1]} over {over}: "
                             + ("add a waypoint, or join them by sea" if path.kind == "land" else "add a waypoint, or join them by land"))
        chain.extend(leg[1:])
    return chain


# --------------------------------------------------------------------------- writing


def _present(con) -> list[str]:
    names = {r[0] for r in con.execute(
        "SELECT lower(table_name) FROM information_schema.tables WHERE table_catalog = current_database() "
        "AND table_schema = current_schema()").fetchall()}
    return sorted(set(NODE_TABLES + NODE_VIEWS) & names)


def drop_node_objects(con) -> None:
    """Drop the node macros, views and tables (in that order) where they exist."""
    for macro in reversed(NODE_MACROS):
        con.execute(f"DROP MACRO TABLE IF EXISTS {macro}")
    for view in reversed(NODE_VIEWS):
        con.execute(f"DROP VIEW IF EXISTS {view}")
    for table in NODE_TABLES:
        con.execute(f"DROP TABLE IF EXISTS {table}")


def create_node_views(con) -> None:
    """The views and macros of ``schema/node_views.sql`` over node tables already there (a campaign copying them)."""
    run_schema(con, NODE_VIEWS_SQL)


def copy_node_tables(con, catalog: str) -> bool:
    """Copy the node tables of the attached database ``catalog`` (a map) into ``con``'s own, with
    the views and macros (a campaign made from a map with a node map). False when it has none."""
    from bellica.schema import existing_tables

    if not set(NODE_TABLES) <= existing_tables(con, catalog=catalog):
        return False
    drop_node_objects(con)
    run_schema(con, NODES_SQL)
    for table in NODE_TABLES:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {catalog}.{table}")
    create_node_views(con)
    return True


def write_nodes(con: duckdb.DuckDBPyConnection, result: NodeResult, *, replace: bool = False) -> None:
    """Write the node tables, views and macros into ``con`` in one transaction (spatial loaded).

    Existing node tables are an error unless ``replace``.
    """
    present = _present(con)
    if present and not replace:
        raise InputError(f"the database already has node tables ({', '.join(present)}): pass --force to replace them")
    con.execute("BEGIN")
    try:
        drop_node_objects(con)
        run_schema(con, NODES_SQL)
        cols = ["name", "lon", "lat", "cell", "terrain", "coastal", "fortified", "commands", "from_year", "until_year", "note"]
        insert_geometry_rows(con, "nodes", [*cols, "geom"],
                [tuple(n[c] for c in cols) + (shapely.to_wkb(shapely.Point(n["lon"], n["lat"])),) for n in result.nodes],
                geom="geom")
        pcols = ["a", "b", "kind", "length_km", "hexes", "bearing_a", "bearing_b", "from_year", "until_year", "note"]
        insert_geometry_rows(con, "node_paths", [*pcols, "geom"],
                [tuple(p[c] for c in pcols) + (shapely.to_wkb(p["line"]),) for p in result.paths], geom="geom")
        insert_geometry_rows(con, "node_path_terrain", ["a", "b", "kind", "terrain", "hexes"],
                [(p["a"], p["b"], p["kind"], t, n) for p in result.paths for t, n in p["terrain"].items()])
        insert_geometry_rows(con, "node_path_cells", ["a", "b", "kind", "seq", "cell"],
                [(p["a"], p["b"], p["kind"], k, c) for p in result.paths for k, c in enumerate(p["cells"])])
        run_schema(con, NODE_VIEWS_SQL)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _map_res(con, cells) -> int:
    rows = con.execute("SELECT DISTINCT res FROM hexes").fetchall()
    if len(rows) != 1 or rows[0][0] is None:
        res = {h3.get_resolution(c) for c in list(cells)[:1000]}
        if len(res) != 1:
            raise InputError("the map mixes H3 resolutions: rebuild it with `bellica map build`")
        return res.pop()
    return int(rows[0][0])


def build_nodes(map_db: str | Path, node_file: str | Path, *, force: bool = False, year: int | None = None) -> NodeResult:
    """Read the map and the node file, place and route, and write the node tables into the map.

    Everything is checked before the map is opened for writing: on bad input nothing is written.
    ``year`` keeps only the places and paths of that year. A campaign is refused (build the nodes
    on its map, then make the campaign)."""
    map_db = Path(map_db)
    spec = load_node_file(node_file)
    if year is not None and (isinstance(year, bool) or not isinstance(year, int) or year == 0):
        raise InputError(f"--year {year!r}: give a whole year, negative BC (e.g. --year -397)")
    con, _tables = open_map_for(map_db, "nodes", NODE_TABLES, force=force)
    try:
        g = HexGraph.from_db(con)
        res = _map_res(con, g.kind)
    except duckdb.Error as e:
        first = first_line(e)
        raise InputError(f"map database {map_db} cannot be read ({first}): rebuild it with `bellica map build`") from None
    finally:
        con.close()
    result = compute_nodes(g, res, spec, year=year)
    write_to_map(map_db, lambda con: write_nodes(con, result, replace=force))
    return result
