"""Provinces from real geography: `bellica map provinces` (docs/provinces.md).

A province file (TOML) names the provinces, each with its capital (lon, lat), and optionally a
region polygon (GeoJSON) and cells the designer moved into it; declared adjacency exceptions;
named sea areas.  :func:`compute_provinces` turns it and a map into provinces:

1. every capital becomes a hex (a capital in a water hex next to land moves to the nearest
   passable land neighbour, and is reported; deeper water, the map's outside or impassable
   terrain are refused), and so does every one of a province's ``towns`` (a town in a hex
   another place holds leaves it to that place, and is reported);
2. every land hex whose centre lies in a province's region polygon is that province's;
3. every other land hex goes to the province it is cheapest to reach from, by least-cost
   allocation over the land hex graph (one multi-source Dijkstra per province, sources its
   capital, town and region hexes; no step crosses a designer's ``[[barrier]]`` line; a province
   with a ``reach_km`` grows only over the hexes within that distance of its sources; entering a
   hex costs its terrain's cost; water is no node; barrier terrain, peaks by default, is entered but never left for passable land, so it
   belongs to a province without being a way through); ties go to the first province name in
   sorted order; land no capital reaches (an island without one) stays unassigned and is reported;
4. the designer's ``cells_add`` move single hexes last, over everything else.

:func:`write_provinces` writes the tables of ``schema/provinces.sql`` and the views of
``schema/province_views.sql`` in one transaction; :func:`build_provinces` does all of it for a
map file, refusing to replace existing province tables without ``force`` and nothing written
on bad input.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import h3
import numpy as np
import shapely
import shapely.geometry
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, dijkstra

from bellica.datasets.rules import DEFAULT_RULESET, RULES_DIR
from bellica.etl.design_files import (check_keys, insert_geometry_rows, joined_ends, list_of_tables, name_text, named_entry,
                                       number, open_map_for, write_to_map)
from bellica.geo.errors import InputError, MissingInputError, first_line
from bellica.geo.words import with_article
from bellica.schema import PROVINCE_VIEWS, PROVINCES, run_schema, schema_tables

__all__ = [
    "DEFAULT_BARRIERS",
    "PROVINCE_TABLES",
    "DeclaredAdjacency",
    "ProvinceResult",
    "ProvinceSeed",
    "ProvinceSpec",
    "SeaArea",
    "build_provinces",
    "compute_provinces",
    "scenario_spec",
    "default_costs",
    "load_province_file",
    "write_provinces",
]

#: Terrains entered but never crossed (the rules' impassable land): a province holds them, no path runs through them.
DEFAULT_BARRIERS = ("peaks",)

#: Water hex kinds a sea area is made of (lakes are inland water, never a sea).
SEA_KINDS = ("coast", "sea", "ocean")

PROVINCE_TABLES = schema_tables(PROVINCES)
PROVINCE_VIEW_NAMES = schema_tables(PROVINCE_VIEWS)

_TOP_KEYS = {"province", "exception", "sea", "allocation", "barrier"}
_PROVINCE_KEYS = {"name", "capital", "region", "cells_add", "note", "towns", "reach_km"}
_BARRIER_KEYS = {"name", "line", "note"}
_EXCEPTION_KEYS = {"from", "to", "one_way", "note"}
_SEA_KEYS = {"name", "region", "bbox"}
_ALLOCATION_KEYS = {"costs", "barriers", "barrier_cost", "reach_km"}

# Order of strength of a hex's source (docs/provinces.md): a later step overrides an earlier one.
SOURCES = ("allocated", "town", "capital", "region", "moved")


def default_costs() -> dict[str, float]:
    """The cost of entering a hex of each land terrain: the movement points of the default ruleset's data."""
    with open(RULES_DIR / f"{DEFAULT_RULESET}.toml", "rb") as f:
        data = tomllib.load(f)
    return {k: float(v) for k, v in data["movement"]["terrain_mp"].items()}


# --------------------------------------------------------------------------- the province file


@dataclass(frozen=True)
class ProvinceSeed:
    """One ``[[province]]`` entry: its capital (lon, lat), region polygon (or None) and moved cells."""

    name: str
    lon: float
    lat: float
    region: Any = None  # a shapely (Multi)Polygon in lon/lat
    region_file: str | None = None
    cells_add: tuple[str, ...] = ()
    note: str | None = None
    towns: tuple[tuple[str, float, float], ...] = ()  # (name, lon, lat): more seeds of the province besides its capital
    reach_km: float | None = None  # this province's own cap on growth (None: the file's [allocation] reach_km)


@dataclass(frozen=True)
class BarrierLine:
    """One ``[[barrier]]``: a line (a river, a ridge, a strait) that growth may not cross: no hex is
    reached over a neighbour pair whose centre-to-centre segment crosses it (land adjacency unchanged)."""

    name: str
    geom: Any  # a shapely LineString / MultiLineString in lon/lat


@dataclass(frozen=True)
class DeclaredAdjacency:
    """One ``[[exception]]``: an army of ``from_`` may reach ``to`` (and back unless ``one_way``)."""

    from_: str
    to: str
    one_way: bool = False
    note: str | None = None


@dataclass(frozen=True)
class SeaArea:
    """One ``[[sea]]``: a named polygon; the map's water hexes whose centre it holds are the area."""

    name: str
    geom: Any


@dataclass(frozen=True)
class ProvinceSpec:
    """A whole province file, checked."""

    provinces: tuple[ProvinceSeed, ...]
    exceptions: tuple[DeclaredAdjacency, ...] = ()
    seas: tuple[SeaArea, ...] = ()
    costs: dict[str, float] = field(default_factory=default_costs)
    barriers: frozenset[str] = frozenset(DEFAULT_BARRIERS)
    barrier_cost: float | None = None  # None: the highest terrain cost
    source: str = "<provinces>"
    lines: tuple[BarrierLine, ...] = ()
    reach_km: float | None = None  # None: no cap; else no hex farther than this from its province's capital and towns


def _where(source: str, what: str) -> str:
    return f"{source}: {what}"


def read_geojson_polygon(path: Path, *, name: str | None, where: str):
    """The (multi)polygon of a GeoJSON file, in lon/lat.

    When some features carry a ``name`` property, only those named ``name`` are used (one QGIS
    layer may hold every region); otherwise every feature is.  Bad files are one-line errors.
    """
    fix = "export the layer from QGIS as GeoJSON in EPSG:4326 (polygons)"
    if not path.is_file():
        raise MissingInputError(f"{where}: region file {path} does not exist: correct the path (relative to the province file)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{where}: region file {path} is not GeoJSON ({str(e).splitlines()[0]}): {fix}") from None
    if not isinstance(data, dict) or "type" not in data:
        raise InputError(f"{where}: region file {path} is not a GeoJSON object: {fix}")
    crs = (((data.get("crs") or {}).get("properties") or {}).get("name") or "") if isinstance(data.get("crs"), dict) else ""
    if crs and not any(tag in crs.upper() for tag in ("CRS84", "4326")):
        raise InputError(f"{where}: region file {path} is in {crs}, not lon/lat: {fix}")
    if data["type"] == "FeatureCollection":
        features = data.get("features") or []
    elif data["type"] == "Feature":
        features = [data]
    else:
        features = [{"type": "Feature", "properties": {}, "geometry": data}]
    if not isinstance(features, list) or not all(isinstance(f, dict) for f in features):
        raise InputError(f"{where}: region file {path} has malformed features: {fix}")
    named = [f for f in features if isinstance(f.get("properties"), dict) and "name" in f["properties"]]
    if named and name is not None:
        features = [f for f in named if str(f["properties"]["name"]).strip().lower() == name.lower()]
        if not features:
            names = sorted({str(f["properties"]["name"]) for f in named})
            raise InputError(f"{where}: region file {path} has no feature named {name!r} (it has {', '.join(names[:8])}): "
                             "name the feature as the entry, or pass a file of its own")
    geoms = []
    for f in features:
        try:
            g = shapely.geometry.shape(f.get("geometry"))
        except Exception as e:  # noqa: BLE001 - shapely raises many kinds on bad coordinates
            raise InputError(f"{where}: region file {path} has a geometry that cannot be read ({e}): {fix}") from None
        if g.geom_type not in ("Polygon", "MultiPolygon") or g.is_empty:
            raise InputError(f"{where}: region file {path} holds a {g.geom_type}, not a polygon: {fix}")
        if not g.is_valid:
            raise InputError(f"{where}: region file {path} has an invalid polygon ({shapely.is_valid_reason(g)}): "
                             "run QGIS's Fix geometries on it and export again")
        minx, miny, maxx, maxy = g.bounds
        if minx < -180 or maxx > 180 or miny < -90 or maxy > 90:
            raise InputError(f"{where}: region file {path} has coordinates outside lon/lat: {fix}")
        geoms.append(g)
    if not geoms:
        raise InputError(f"{where}: region file {path} holds no polygon: {fix}")
    return shapely.union_all(geoms)


def load_province_file(path: str | Path) -> ProvinceSpec:
    """Read and check a province file (TOML, docs/provinces.md); region paths are relative to it."""
    path = Path(path)
    if not path.is_file():
        raise MissingInputError(f"province file {path} does not exist: pass a TOML file of [[province]] entries (docs/provinces.md)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"province file {path} is not TOML ({str(e).splitlines()[0]}): fix its syntax (docs/provinces.md)") from None
    return spec_from_dict(data, base=path.parent, source=str(path))


def spec_from_dict(data: dict, *, base: Path = Path("."), source: str = "<provinces>") -> ProvinceSpec:
    """A :class:`ProvinceSpec` from the parsed TOML (tests and callers with their own data)."""
    check_keys(data, _TOP_KEYS, source)
    seen: dict[str, str] = {}  # lower-case name -> the name as written, for duplicates and exceptions
    seeds = [_province_seed(entry, i, source, base, seen)
             for i, entry in enumerate(list_of_tables(data, "province", source))]
    if not seeds:
        raise InputError(f"{source}: no [[province]] entries: give each province a name and a capital = [lon, lat]")
    exceptions = [_exception(entry, i, source, seen) for i, entry in enumerate(list_of_tables(data, "exception", source))]
    sea_names: set[str] = set()
    seas = [_sea_area(entry, i, source, base, sea_names) for i, entry in enumerate(list_of_tables(data, "sea", source))]
    allocation, costs, barriers, barrier_cost = _allocation(data, source)
    return ProvinceSpec(tuple(seeds), tuple(exceptions), tuple(seas), costs, frozenset(barriers), barrier_cost, source,
                        read_barrier_lines(data.get("barrier", []), source),
                        read_reach(allocation.get("reach_km"), f"{source} [allocation]"))


def _province_seed(entry: dict, i: int, source: str, base: Path, seen: dict[str, str]) -> ProvinceSeed:
    """The ``i``-th [[province]]: a new name, a lon/lat capital, an optional region file and added cells."""
    name, where = named_entry(entry, i, source, "province", _PROVINCE_KEYS, seen)
    capital = entry.get("capital")
    if not isinstance(capital, list) or len(capital) != 2:
        raise InputError(f"{where}: capital must be [lon, lat] in degrees, e.g. capital = [12.48, 41.89]")
    lon, lat = (number(v, f"{where} capital") for v in capital)
    if not (-180 <= lon <= 180 and -90 <= lat <= 90):
        raise InputError(f"{where}: capital [{lon}, {lat}] is not a lon/lat: write capital = [lon, lat] in degrees")
    region = region_file = None
    if "region" in entry:
        region_file = name_text(entry["region"], f"{where} region")
        region = read_geojson_polygon(base / region_file, name=name, where=where)
    cells = entry.get("cells_add", [])
    if not isinstance(cells, list):
        raise InputError(f"{where}: cells_add must be a list of H3 cells, e.g. cells_add = [\"851e8053fffffff\"]")
    cells_add = []
    for c in cells:
        if not isinstance(c, str) or not h3.is_valid_cell(c.strip().lower()):
            raise InputError(f"{where}: cells_add holds {c!r}, not an H3 cell: copy the cell ids from the hexes layer")
        cells_add.append(c.strip().lower())
    note = entry.get("note")
    return ProvinceSeed(name, lon, lat, region, region_file, tuple(cells_add), None if note is None else str(note),
                        read_towns(entry.get("towns", []), where), read_reach(entry.get("reach_km"), where))


def _exception(entry: dict, i: int, source: str, seen: dict[str, str]) -> DeclaredAdjacency:
    """The ``i``-th [[exception]]: two different provinces of the file, joined one way or both."""
    first, second, where = joined_ends(entry, i, source, "exception", _EXCEPTION_KEYS, seen, "province")
    one_way = entry.get("one_way", False)
    if not isinstance(one_way, bool):
        raise InputError(f"{where}: one_way = {one_way!r}: write true or false")
    return DeclaredAdjacency(first, second, one_way, None if entry.get("note") is None else str(entry["note"]))


def _sea_area(entry: dict, i: int, source: str, base: Path, sea_names: set[str]) -> SeaArea:
    """The ``i``-th [[sea]]: a new name and either a region file or a lon/lat bbox."""
    name, where = named_entry(entry, i, source, "sea", _SEA_KEYS, sea_names, each="sea area")
    if ("region" in entry) == ("bbox" in entry):
        raise InputError(f"{where}: give either region = \"file.geojson\" or bbox = [west, south, east, north]")
    if "bbox" in entry:
        bbox = entry["bbox"]
        if not isinstance(bbox, list) or len(bbox) != 4:
            raise InputError(f"{where}: bbox must be [west, south, east, north] in degrees")
        w, s, e, n = (number(v, f"{where} bbox") for v in bbox)
        if not (w < e and s < n):
            raise InputError(f"{where}: bbox {bbox} is empty: give west < east and south < north")
        geom = shapely.box(w, s, e, n)
    else:
        geom = read_geojson_polygon(base / name_text(entry["region"], f"{where} region"), name=name, where=where)
    return SeaArea(name, geom)


def _allocation(data: dict, source: str):
    """The [allocation] table and its entry costs (the defaults, overridden), barrier terrains and the
    optional cost of crossing one; every cost positive."""
    allocation = data.get("allocation", {})
    if not isinstance(allocation, dict):
        raise InputError(f"{source}: allocation must be a table: write [allocation]")
    check_keys(allocation, _ALLOCATION_KEYS, f"{source} [allocation]")
    costs = default_costs()
    extra = allocation.get("costs", {})
    if not isinstance(extra, dict):
        raise InputError(f"{source} [allocation]: costs must be a table of terrain = cost, e.g. costs = {{ hills = 4 }}")
    for terrain, value in extra.items():
        costs[terrain] = number(value, f"{source} [allocation] costs.{terrain}")
    barriers = allocation.get("barriers", list(DEFAULT_BARRIERS))
    if not isinstance(barriers, list) or not all(isinstance(b, str) for b in barriers):
        raise InputError(f"{source} [allocation]: barriers must be a list of terrain names, e.g. barriers = [\"peaks\"]")
    barrier_cost = allocation.get("barrier_cost")
    if barrier_cost is not None:
        barrier_cost = number(barrier_cost, f"{source} [allocation] barrier_cost")
    for terrain, value in [*costs.items(), *([("barrier_cost", barrier_cost)] if barrier_cost is not None else [])]:
        if value <= 0:
            raise InputError(f"{source} [allocation]: cost {terrain} = {value} is not positive: every hex costs something to enter")
    return allocation, costs, barriers, barrier_cost


def scenario_spec(path: str | Path) -> ProvinceSpec:
    """The province spec of a province scenario's ``provinces.toml`` (what `bellica campaign new` builds):
    each ``[[province]]``'s capital ``lon``/``lat`` and its ``towns``, ``reach_km``, the file's
    ``[[exception]]``, ``[[barrier]]`` and ``[allocation]``; every other key is the rules' own."""
    path = Path(path)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    source = f"{path.parent.name}/{path.name}"
    builder = {"province": [{"name": p.get("name"), "capital": [p.get("lon"), p.get("lat")],
                             **{k: p[k] for k in ("towns", "reach_km") if k in p}}
                            for p in data.get("province", []) if isinstance(p, dict)]}
    for key in ("exception", "barrier", "allocation"):
        if key in data:
            builder[key] = data[key]
    return spec_from_dict(builder, base=path.parent, source=source)


def read_reach(value, where: str) -> float | None:
    """A ``reach_km`` (None when absent): a positive distance in km."""
    if value is None:
        return None
    km = number(value, f"{where} reach_km")
    if km <= 0:
        raise InputError(f"{where}: reach_km = {km} is not positive: give the farthest a province grows from its places, in km")
    return km


def read_towns(value, where: str) -> tuple[tuple[str, float, float], ...]:
    """A province's ``towns``: ``[{name = "Tarquinii", lon = 11.76, lat = 42.25}, ...]`` (lon, lat in degrees)."""
    fix = 'write towns = [{name = "Tarquinii", lon = 11.76, lat = 42.25}, ...]'
    if not isinstance(value, list):
        raise InputError(f"{where}: towns must be a list: {fix}")
    towns = []
    for i, town in enumerate(value, 1):
        if not isinstance(town, dict) or not {"name", "lon", "lat"} <= set(town):
            raise InputError(f"{where}: town #{i} = {town!r} is not a table with name, lon and lat: {fix}")
        name = name_text(town["name"], f"{where} town #{i} name")
        lon, lat = number(town["lon"], f"{where} town {name!r} lon"), number(town["lat"], f"{where} town {name!r} lat")
        if not (-180 <= lon <= 180 and -90 <= lat <= 90):
            raise InputError(f"{where}: town {name!r} at [{lon}, {lat}] is not a lon/lat in degrees: {fix}")
        towns.append((name, lon, lat))
    return tuple(towns)


def read_barrier_lines(value, source: str) -> tuple[BarrierLine, ...]:
    """The ``[[barrier]]`` lines: ``name`` and ``line = [[lon, lat], ...]`` (two points or more)."""
    if not isinstance(value, list):
        raise InputError(f"{source}: barrier must be a list of tables: write [[barrier]] entries")
    lines = []
    for i, entry in enumerate(value, 1):
        where = f"{source} [[barrier]] #{i}"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: not a table: write [[barrier]] with name and line")
        check_keys(entry, _BARRIER_KEYS, where)
        name = name_text(entry.get("name", f"barrier {i}"), f"{where} name")
        line = entry.get("line")
        fix = "give line = [[lon, lat], [lon, lat], ...] (two points or more, degrees)"
        if not isinstance(line, list) or len(line) < 2 or not all(isinstance(pt, list) and len(pt) == 2 for pt in line):
            raise InputError(f"{where} {name!r}: {fix}")
        pts = [(number(x, f"{where} line"), number(y, f"{where} line")) for x, y in line]
        if not all(-180 <= x <= 180 and -90 <= y <= 90 for x, y in pts):
            raise InputError(f"{where} {name!r}: a point is not a lon/lat: {fix}")
        lines.append(BarrierLine(name, shapely.LineString(pts)))
    return tuple(lines)


# --------------------------------------------------------------------------- the map


@dataclass
class MapHexes:
    """The hexes of a map as arrays, and its neighbour pairs as index arrays."""

    cells: np.ndarray  # str, sorted
    kind: np.ndarray
    terrain: np.ndarray
    lat: np.ndarray
    lng: np.ndarray
    res: int
    nb_from: np.ndarray  # int indices into cells
    nb_to: np.ndarray
    index: dict[str, int] = field(default_factory=dict)
    bbox: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection, what: str = "map") -> "MapHexes":
        try:
            hexes = con.execute("SELECT cell, kind, terrain, lat, lng, res FROM hexes ORDER BY cell").fetchnumpy()
            pairs = con.execute("SELECT cell, neighbor FROM hex_neighbors").fetchnumpy()
        except duckdb.Error as e:
            first = first_line(e)
            raise InputError(f"{what} cannot be read ({first}): rebuild it with `bellica map build`") from None
        cells = np.asarray(hexes["cell"], dtype=object)
        if len(cells) == 0:
            raise InputError(f"{what} has no hexes: rebuild it with `bellica map build`")
        resolutions = set(np.asarray(hexes["res"]).tolist())
        if len(resolutions) != 1:
            raise InputError(f"{what} mixes H3 resolutions {sorted(resolutions)}: rebuild it with `bellica map build`")
        index = {c: i for i, c in enumerate(cells.tolist())}
        frm = np.fromiter((index.get(c, -1) for c in pairs["cell"]), dtype=np.int64, count=len(pairs["cell"]))
        to = np.fromiter((index.get(c, -1) for c in pairs["neighbor"]), dtype=np.int64, count=len(pairs["neighbor"]))
        keep = (frm >= 0) & (to >= 0)
        lat = np.asarray(hexes["lat"], dtype=float)
        lng = np.asarray(hexes["lng"], dtype=float)
        return cls(cells, np.asarray(hexes["kind"], dtype=object), np.asarray(hexes["terrain"], dtype=object),
                   lat, lng, resolutions.pop(), frm[keep], to[keep], index,
                   (float(lng.min()), float(lat.min()), float(lng.max()), float(lat.max())))


def _haversine_km(lat1, lng1, lat2, lng2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    a = np.sin((p2 - p1) / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(np.radians(np.asarray(lng2) - lng1) / 2) ** 2
    return 2 * 6371.0088 * np.arcsin(np.sqrt(a))


# --------------------------------------------------------------------------- allocation


@dataclass
class ProvinceResult:
    """What :func:`compute_provinces` made: the rows of the province tables and the report."""

    provinces: list[dict]  # name, capital_cell, capital_lon, capital_lat, hex_count, area_km2, parts, geom (shapely)
    cells: list[tuple[str, str, str, bool]]  # (province, cell, source, barrier)
    exceptions: list[tuple[str, str, bool, str | None]]
    seas: list[dict]  # name, hex_count, geom
    sea_cells: list[tuple[str, str]]  # (sea, cell)
    unassigned: int = 0
    unassigned_pieces: list[tuple[int, float, float]] = field(default_factory=list)  # (hexes, lon, lat), largest first
    notes: list[str] = field(default_factory=list)

    def summary(self) -> list[str]:
        lines = [f"{len(self.provinces)} provinces, {sum(p['hex_count'] for p in self.provinces)} land hexes; "
                 f"{len(self.seas)} sea areas; {len(self.exceptions)} exceptions"]
        for p in self.provinces:
            parts = "" if p["parts"] == 1 else f", {p['parts']} pieces"
            lines.append(f"  {p['name']}: {p['hex_count']} hexes, {p['area_km2']:,.0f} km2, capital {p['capital_cell']}{parts}")
        if self.unassigned:
            top = ", ".join(f"{n} near {lon:.2f},{lat:.2f}" for n, lon, lat in self.unassigned_pieces[:5])
            lines.append(f"unassigned: {self.unassigned} land hexes in {len(self.unassigned_pieces)} pieces no capital reaches "
                         f"({top}): give them a region or a capital to belong to a province")
        lines.extend(f"note: {n}" for n in self.notes)
        return lines

    def as_json(self) -> dict:
        return {
            "provinces": [{k: v for k, v in p.items() if k != "geom"} for p in self.provinces],
            "seas": [{k: v for k, v in s.items() if k != "geom"} for s in self.seas],
            "exceptions": len(self.exceptions),
            "unassigned": self.unassigned,
            "unassigned_pieces": [list(p) for p in self.unassigned_pieces],
            "notes": self.notes,
        }


def _capital_cell(seed: ProvinceSeed, m: MapHexes, passable: np.ndarray, source: str) -> tuple[int, str | None]:
    """The map index of a province's capital hex, and a note when it was moved off the water."""
    return _seed_cell(seed.name, seed.name, seed.lon, seed.lat, m, passable, f"{source} province {seed.name!r}")


def _seed_cell(province: str, place: str, lon: float, lat: float, m: MapHexes, passable: np.ndarray, where: str,
               *, what: str = "capital") -> tuple[int, str | None]:
    """The map index of a capital's (or town's) hex, and a note when it was moved off the water (a town
    also off barrier terrain) to the nearest passable land neighbour."""

    class seed:  # noqa: N801 - the names the messages below use
        name = province

    seed.lon, seed.lat = lon, lat
    cell = h3.latlng_to_cell(seed.lat, seed.lon, m.res)
    i = m.index.get(cell)
    if i is None:
        w, s, e, n = m.bbox
        hint = " (lon and lat look swapped: write capital = [lon, lat])" if h3.latlng_to_cell(seed.lon, seed.lat, m.res) in m.index else ""
        raise InputError(f"{where}: {what} [{seed.lon}, {seed.lat}] lies outside the map "
                         f"(hexes span {w:.2f},{s:.2f} to {e:.2f},{n:.2f}){hint}: correct it or build a map that covers it")
    if m.kind[i] == "land" and (passable[i] or what == "capital"):
        if not passable[i]:
            raise InputError(f"{where}: capital [{seed.lon}, {seed.lat}] lies in hex {cell} of {m.terrain[i]}, which is a barrier: "
                             "move it to a passable hex nearby")
        return i, None
    near = [m.index[c] for c in h3.grid_ring(cell, 1) if c in m.index]
    near = [j for j in near if m.kind[j] == "land" and passable[j]]
    if not near:
        land = np.flatnonzero((m.kind == "land") & passable)
        j = land[np.argmin(_haversine_km(seed.lat, seed.lon, m.lat[land], m.lng[land]))]
        raise InputError(f"{where}: {what} [{seed.lon}, {seed.lat}] lies at sea ({m.kind[i]} hex {cell}): move it onto land; "
                         f"the nearest land hex is {m.cells[j]} at [{m.lng[j]:.3f}, {m.lat[j]:.3f}]")
    dist = _haversine_km(seed.lat, seed.lon, m.lat[near], m.lng[near])
    j = min(zip(dist.round(6).tolist(), m.cells[near].tolist(), near))[2]
    label = "capital" if what == "capital" else f"{what} {place}"
    kind = m.kind[i] if m.kind[i] != "land" else str(m.terrain[i])
    return j, (f"{seed.name}: {label} [{seed.lon}, {seed.lat}] lies in {with_article(kind)} hex; "
               f"it is the neighbouring land hex {m.cells[j]}")


def _pieces(members: np.ndarray, m: MapHexes) -> tuple[int, np.ndarray]:
    """Connected pieces (over hex_neighbors) of the hexes whose mask is ``members``: (count, label per member)."""
    idx = np.flatnonzero(members)
    local = np.full(len(m.cells), -1)
    local[idx] = np.arange(len(idx))
    keep = members[m.nb_from] & members[m.nb_to]
    g = csr_matrix((np.ones(int(keep.sum())), (local[m.nb_from[keep]], local[m.nb_to[keep]])), shape=(len(idx), len(idx)))
    return connected_components(g, directed=False)


def _dissolve(cells: list[str]):
    """The outline of hexes, always a MultiPolygon (one geometry type per layer, as QGIS wants)."""
    if not cells:
        return shapely.MultiPolygon()
    shape = shapely.geometry.shape(h3.cells_to_geo(cells))
    return shape if shape.geom_type == "MultiPolygon" else shapely.MultiPolygon([shape])


def compute_provinces(m: MapHexes, spec: ProvinceSpec) -> ProvinceResult:
    """Allocate the map's land hexes to the provinces of ``spec`` (module docstring); one-line errors on bad input."""
    source = spec.source
    land, barrier, cost = _hex_costs(m, spec)
    passable = land & ~barrier

    order = sorted(range(len(spec.provinces)), key=lambda k: spec.provinces[k].name)
    seeds = [spec.provinces[k] for k in order]  # alphabetical: argmin breaks ties by name
    owner = np.full(len(m.cells), -1)
    how = np.full(len(m.cells), "", dtype=object)
    notes: list[str] = []
    capitals = _place_capitals(seeds, m, passable, source, owner, how, notes)
    _place_towns(seeds, m, passable, source, owner, how, notes)
    _place_regions(seeds, m, land, source, owner, how)

    dist = _allocation_distances(m, spec, seeds, land, barrier, cost, owner)
    best = np.argmin(dist, axis=0)
    reached = np.isfinite(dist.min(axis=0)) & land
    free = reached & (owner < 0)
    owner[free], how[free] = best[free], "allocated"
    _move_added_cells(seeds, m, land, source, owner, how)

    provinces = [_province_row(seed, owner == p, capitals[p], m) for p, seed in enumerate(seeds)]
    cell_rows = [(seeds[owner[i]].name, m.cells[i], how[i], bool(barrier[i])) for i in np.flatnonzero(owner >= 0)]
    unassigned_mask = land & (owner < 0)
    pieces = _unassigned_pieces(unassigned_mask, m)
    seas, sea_cells = _sea_areas(m, spec)
    exceptions = [(e.from_, e.to, e.one_way, e.note) for e in spec.exceptions]
    return ProvinceResult(provinces, cell_rows, exceptions, seas, sea_cells, int(unassigned_mask.sum()), pieces, notes)


def _hex_costs(m: MapHexes, spec: ProvinceSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per hex: land, barrier terrain, and the cost to enter it (0 off land); every land terrain must have a cost."""
    land = m.kind == "land"
    barrier = land & np.isin(m.terrain, list(spec.barriers))
    unknown = sorted({str(t) for t in m.terrain[land & ~barrier]} - set(spec.costs))
    if unknown:
        raise InputError(f"{spec.source}: the map has land of terrain {', '.join(unknown)} with no cost: "
                         f"add it under [allocation] costs (known: {', '.join(sorted(spec.costs))})")
    barrier_cost = spec.barrier_cost if spec.barrier_cost is not None else max(spec.costs.values())
    cost = np.array([barrier_cost if b else spec.costs.get(t, 0.0) if k else 0.0
                     for k, b, t in zip(land, barrier, m.terrain)], dtype=float)
    return land, barrier, cost


def _place_capitals(seeds: list[ProvinceSeed], m: MapHexes, passable: np.ndarray, source: str, owner: np.ndarray,
                    how: np.ndarray, notes: list[str]) -> list[int]:
    """Each province owns its capital's hex (two capitals in one hex is an error); the capitals' map indices."""
    capitals = []
    for p, seed in enumerate(seeds):
        i, note = _capital_cell(seed, m, passable, source)
        if note:
            notes.append(note)
        if owner[i] >= 0:
            raise InputError(f"{source}: provinces {seeds[owner[i]].name!r} and {seed.name!r} have their capital in the same "
                             f"hex {m.cells[i]}: move one capital to another hex")
        owner[i], how[i] = p, "capital"
        capitals.append(i)
    return capitals


def _place_towns(seeds: list[ProvinceSeed], m: MapHexes, passable: np.ndarray, source: str, owner: np.ndarray,
                 how: np.ndarray, notes: list[str]) -> None:
    """Each province owns its towns' hexes where no other place holds them first."""
    # Towns in their own land hex first, then the ports moved off the water onto a neighbour: a town's own
    # hex is never lost to a harbour next to it (Braila's to Galati's).
    placed = []
    for p, seed in enumerate(seeds):
        for town, lon, lat in seed.towns:
            where = f"{source} province {seed.name!r} town {town!r}"
            i, moved = _seed_cell(seed.name, town, lon, lat, m, passable, where, what="town")  # a port: its land hex, silently
            placed.append((moved is not None, p, town, i))
    for _moved, p, town, i in sorted(placed, key=lambda t: t[0]):
        if owner[i] >= 0 and owner[i] != p:  # at this resolution two places share a hex: the first keeps it
            other = seeds[owner[i]].name
            notes.append(f"{seeds[p].name}: town {town} lies in hex {m.cells[i]}, "
                         f"{'the capital' if how[i] == 'capital' else 'a town'} of {other}: the hex is {other}'s")
        elif owner[i] < 0:
            owner[i], how[i] = p, "town"


def _place_regions(seeds: list[ProvinceSeed], m: MapHexes, land: np.ndarray, source: str, owner: np.ndarray,
                   how: np.ndarray) -> None:
    """Each province with a region owns the land hexes whose centres it holds; regions must not overlap."""
    for p, seed in enumerate(seeds):
        if seed.region is None:
            continue
        inside = np.flatnonzero(land & shapely.contains_xy(seed.region, m.lng, m.lat))
        if len(inside) == 0:
            raise InputError(f"{source} province {seed.name!r}: region {seed.region_file} holds no land hex centre of the map: "
                             "check the polygon covers land of this map")
        for i in inside:
            if owner[i] >= 0 and owner[i] != p:
                other = seeds[owner[i]].name
                what = f"the capital of {other!r}" if how[i] == "capital" else f"also in the region of {other!r}"
                raise InputError(f"{source} province {seed.name!r}: its region holds hex {m.cells[i]}, {what}: "
                                 "make the region polygons not overlap there")
            if owner[i] < 0:
                owner[i], how[i] = p, "region"


def _allocation_distances(m: MapHexes, spec: ProvinceSpec, seeds: list[ProvinceSeed], land: np.ndarray,
                          barrier: np.ndarray, cost: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Per province and hex, the least cost to reach the hex from the hexes the province already owns
    (inf where it cannot, or lies beyond the province's reach)."""
    # Least-cost allocation: entering hex v from u costs cost[v]; no edge leaves a barrier for passable land.
    keep = land[m.nb_from] & land[m.nb_to] & ~(barrier[m.nb_from] & ~barrier[m.nb_to])
    if spec.lines:  # the designer's barrier lines: no growth over a neighbour pair whose centres they part
        lines = shapely.union_all([b.geom for b in spec.lines])
        shapely.prepare(lines)
        cand = np.flatnonzero(keep)
        f, t = m.nb_from[cand], m.nb_to[cand]
        segs = shapely.linestrings(np.stack([np.stack([m.lng[f], m.lat[f]], 1), np.stack([m.lng[t], m.lat[t]], 1)], 1))
        keep[cand[shapely.intersects(lines, segs)]] = False
    n = len(m.cells)
    graph = csr_matrix((cost[m.nb_to[keep]], (m.nb_from[keep], m.nb_to[keep])), shape=(n, n))
    dist = np.full((len(seeds), n), np.inf)
    for p in range(len(seeds)):
        sources = np.flatnonzero(owner == p)
        reach = seeds[p].reach_km if seeds[p].reach_km is not None else spec.reach_km
        if reach is None:
            dist[p] = dijkstra(graph, directed=True, indices=sources, min_only=True)
        else:
            dist[p] = _distances_within_reach(m, keep, cost, sources, reach)
    return dist


def _distances_within_reach(m: MapHexes, keep: np.ndarray, cost: np.ndarray, sources: np.ndarray,
                            reach: float) -> np.ndarray:
    """Least costs from ``sources`` over the kept edges, inf beyond ``reach`` km of every source."""
    n = len(m.cells)
    # The cap: no hex farther than reach from the province's own capital, towns and region, and no path
    # through one either (the allocation runs on the hexes within reach only).
    near = np.zeros(n, dtype=bool)
    for k in range(0, len(sources), 64):
        src = sources[k:k + 64]
        near |= (_haversine_km(m.lat[src][:, None], m.lng[src][:, None], m.lat[None, :], m.lng[None, :]) <= reach).any(axis=0)
    inside = keep & near[m.nb_from] & near[m.nb_to]
    sub = csr_matrix((cost[m.nb_to[inside]], (m.nb_from[inside], m.nb_to[inside])), shape=(n, n))
    dist = dijkstra(sub, directed=True, indices=sources, min_only=True)
    dist[~near] = np.inf
    return dist


def _move_added_cells(seeds: list[ProvinceSeed], m: MapHexes, land: np.ndarray, source: str, owner: np.ndarray,
                      how: np.ndarray) -> None:
    """The designer's cells_add: each a land hex of the map, moved to one province only, never a capital."""
    moved_by: dict[int, int] = {}
    for p, seed in enumerate(seeds):
        for c in seed.cells_add:
            i = m.index.get(c)
            where = f"{source} province {seed.name!r}"
            if i is None or not land[i]:
                raise InputError(f"{where}: cells_add holds {c}, " + ("not a hex of this map" if i is None else f"a {m.kind[i]} hex")
                                 + ": move only land hexes of this map")
            if i in moved_by and moved_by[i] != p:
                raise InputError(f"{where}: cells_add holds {c}, also in the cells_add of {seeds[moved_by[i]].name!r}: "
                                 "move each hex to one province")
            if how[i] == "capital" and owner[i] != p:
                raise InputError(f"{where}: cells_add holds {c}, the capital of {seeds[owner[i]].name!r}: move that capital first")
            moved_by[i] = p
            owner[i], how[i] = p, "moved"


def _province_row(seed: ProvinceSeed, mine: np.ndarray, capital: int, m: MapHexes) -> dict:
    """One province's layer row: its capital, size, area, number of pieces and outline."""
    cells = m.cells[mine].tolist()
    parts, _ = _pieces(mine, m)
    area = float(sum(h3.cell_area(c, "km^2") for c in cells))
    i = capital
    return {
        "name": seed.name, "capital_cell": m.cells[i], "capital_lon": float(m.lng[i]), "capital_lat": float(m.lat[i]),
        "hex_count": len(cells), "area_km2": round(area, 1), "parts": int(parts), "geom": _dissolve(cells),
    }


def _unassigned_pieces(unassigned_mask: np.ndarray, m: MapHexes) -> list[tuple[int, float, float]]:
    """The connected pieces of land no province reached: (hexes, lon, lat of their mean), largest first."""
    pieces: list[tuple[int, float, float]] = []
    if unassigned_mask.any():
        count, labels = _pieces(unassigned_mask, m)
        idx = np.flatnonzero(unassigned_mask)
        for label in range(count):
            members = idx[labels == label]
            pieces.append((len(members), round(float(m.lng[members].mean()), 3), round(float(m.lat[members].mean()), 3)))
        pieces.sort(key=lambda t: (-t[0], t[1], t[2]))
    return pieces


def _sea_areas(m: MapHexes, spec: ProvinceSpec) -> tuple[list[dict], list[tuple[str, str]]]:
    """Each sea area's water hexes (its polygon holds their centres; areas must not overlap): the layer
    rows and the (sea, cell) rows."""
    source = spec.source
    water = np.isin(m.kind, list(SEA_KINDS))
    sea_owner = np.full(len(m.cells), -1)
    seas, sea_cells = [], []
    for s, sea in enumerate(spec.seas):
        inside = np.flatnonzero(water & shapely.contains_xy(sea.geom, m.lng, m.lat))
        if len(inside) == 0:
            raise InputError(f"{source} sea {sea.name!r}: its polygon holds no water hex centre of the map: check it covers sea of this map")
        clash = inside[sea_owner[inside] >= 0]
        if len(clash):
            raise InputError(f"{source} sea {sea.name!r}: hex {m.cells[clash[0]]} is also in sea {spec.seas[sea_owner[clash[0]]].name!r}: "
                             "make the sea polygons not overlap there")
        sea_owner[inside] = s
        cells = m.cells[inside].tolist()
        seas.append({"name": sea.name, "hex_count": len(cells), "geom": _dissolve(cells)})
        sea_cells.extend((sea.name, c) for c in cells)
    return seas, sea_cells


# --------------------------------------------------------------------------- writing


def write_provinces(con: duckdb.DuckDBPyConnection, result: ProvinceResult, *, replace: bool = False) -> None:
    """Write the province tables and views into ``con`` in one transaction (the map tables must be there).

    Existing province tables are an error unless ``replace``.
    """
    present = sorted(set(PROVINCE_TABLES + PROVINCE_VIEW_NAMES) & {r[0] for r in con.execute(
        "SELECT lower(table_name) FROM information_schema.tables WHERE table_catalog = current_database() "
        "AND table_schema = current_schema()").fetchall()})
    if present and not replace:
        raise InputError(f"the database already has province tables ({', '.join(present)}): pass --force to replace them")
    con.execute("BEGIN")
    try:
        for view in PROVINCE_VIEW_NAMES:
            con.execute(f"DROP VIEW IF EXISTS {view}")
        for table in PROVINCE_TABLES:
            con.execute(f"DROP TABLE IF EXISTS {table}")
        run_schema(con, PROVINCES)
        cols = ["name", "capital_cell", "capital_lon", "capital_lat", "hex_count", "area_km2", "parts", "geom"]
        insert_geometry_rows(con, "provinces", cols, [tuple(p[c] if c != "geom" else shapely.to_wkb(p["geom"]) for c in cols)
                                          for p in result.provinces], geom="geom")
        insert_geometry_rows(con, "province_cells", ["province", "cell", "source", "barrier"], result.cells)
        insert_geometry_rows(con, "province_exceptions", ["from_province", "to_province", "one_way", "note"], result.exceptions)
        insert_geometry_rows(con, "sea_areas", ["name", "hex_count", "geom"],
                [(s["name"], s["hex_count"], shapely.to_wkb(s["geom"])) for s in result.seas], geom="geom")
        insert_geometry_rows(con, "sea_area_cells", ["sea", "cell"], result.sea_cells)
        run_schema(con, PROVINCE_VIEWS)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def build_provinces(map_db: str | Path, province_file: str | Path, *, force: bool = False) -> ProvinceResult:
    """Read the map and the province file, allocate, and write the province tables into the map.

    Everything is checked before the map is opened for writing: on bad input nothing is written.
    A campaign is refused (build the provinces on its map, then make the campaign)."""
    map_db = Path(map_db)
    spec = load_province_file(province_file)
    con, _tables = open_map_for(map_db, "provinces", PROVINCE_TABLES, force=force)
    try:
        hexes = MapHexes.read(con, what=f"map database {map_db}")
    finally:
        con.close()
    result = compute_provinces(hexes, spec)
    write_to_map(map_db, lambda con: write_provinces(con, result, replace=force))
    return result
