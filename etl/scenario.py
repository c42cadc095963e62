"""Scenario files: the format, the loader and its validation.

A scenario is a folder (``datasets/scenarios/<name>/`` or any path) of small,
hand-edited, diff-friendly files; docs/scenario_format.md describes each one.

    scenario.toml      name, region (bbox), H3 resolution, start rules, [rules] overrides of the
                       ruleset's constants (datasets/rules/<ruleset>.toml), road/river cost knobs
    factions.toml      [[faction]]: name, colour, army list, player?, capitals, influence multiplier, army numbers
    structures.csv     one town/city a line: Latin name, modern name, kind, lat, lon, controller at start
    roads.toml         [[road]]: name, ordered waypoints (structure names or [lat, lon]), note
    rivers.toml        [[river]]: name, ordered waypoints from the mouth upstream, note
    sea_zones.geojson  one polygon feature per sea zone (``name``); ``"ocean": true`` marks impassable sea
    overrides.toml     [[override]]: terrain for cells/points/polygons/structures, each with a reason
    placements.csv     army, faction, structure: the starting positions (optional; ``bellica campaign place``)

Loading happens in two steps.  :func:`load_scenario` reads and checks the files
on their own (names, references, numbers, geometry syntax); every error is an
:class:`~geo.errors.InputError` naming the file, the line or feature, and the fix.
:func:`resolve_on_map` then checks the scenario against a map (points in the
sea, zones leaving sea hexes uncovered, overrides on water) and turns it into
cells, collecting :class:`Note` s for what it adjusted (structures snapped off
a coast hex, overrides applied) so that nothing is changed silently.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import h3
import shapely
from shapely.geometry import shape

from bellica.datasets import SCENARIOS_DIR
from bellica.datasets.rules import DEFAULT_RULESET, load_rules, resolve_factions
from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.files import parse_user_toml, read_user_text, whole_number
from bellica.geo.hexgrid import cell_at, check_resolution
from bellica.geo.words import with_article

STRUCTURE_KINDS = ("town", "city")
LAND_TERRAINS = ("farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks")
STRUCTURE_COLUMNS = ("name", "modern", "kind", "lat", "lon", "controller")
PLACEMENT_COLUMNS = ("army", "faction", "structure")
FACTION_KEYS = {"name", "colour", "army_list", "player", "capitals", "influence_multiplier", "first_army", "last_army", "note"}
ROUTE_KEYS = {"name", "waypoints", "note"}
OVERRIDE_KEYS = {"terrain", "reason", "cells", "points", "polygon", "structures"}

# Road and river routing knobs; a scenario may override any of them in [routing].
DEFAULT_ROUTING = {
    # Cost of a road step into a hex of each terrain: the rules' MP costs halved,
    # so a road prefers what an army would find easy.  Peaks are never entered.
    "road_terrain_cost": {"farmlands": 1.0, "desert": 2.0, "hills": 3.0, "marshes": 4.0, "forests": 5.0, "mountains": 6.0},
    # Extra cost per 1000 m of mean elevation: two routes over equal terrain
    # classes take the lower one (valleys, passes rather than ridges).
    "road_elevation_per_km": 1.0,
    # Extra cost of a hex that is neither next to a coast hex nor a river hex:
    # ancient roads hug coasts and valleys.
    "road_off_valley_penalty": 0.5,
    # Rivers: a map river hex costs 1, any other land hex this much; plus the
    # elevation term, so that where the map has no river line the route runs downhill-ish.
    "river_off_river_cost": 4.0,
    "river_elevation_per_km": 4.0,
    # How many hexes a structure or waypoint on water may be moved to reach land.
    "snap_rings": 2,
}


@dataclass(frozen=True)
class Source:
    """Where a scenario item was written: file and line (or GeoJSON feature)."""

    file: str
    line: int | None = None
    feature: str | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.file} line {self.line}"
        if self.feature is not None:
            return f"{self.file} feature {self.feature}"
        return self.file


@dataclass(frozen=True)
class Faction:
    name: str
    colour: str
    army_list: str
    player: bool
    capitals: tuple[str, ...]
    influence_multiplier: int
    first_army: int | None
    last_army: int | None
    source: Source

    @property
    def armies(self) -> range:
        if self.first_army is None or self.last_army is None:
            return range(0)
        return range(self.first_army, self.last_army + 1)


@dataclass(frozen=True)
class Structure:
    name: str
    modern: str
    kind: str
    lat: float
    lon: float
    controller: str | None
    capital: bool
    source: Source


@dataclass(frozen=True)
class Waypoint:
    """A route point: a structure (by name) or a coordinate."""

    structure: str | None
    lat: float | None
    lon: float | None
    source: Source

    def label(self) -> str:
        return self.structure if self.structure is not None else f"({self.lat}, {self.lon})"


@dataclass(frozen=True)
class Route:
    """A road or a river: a name and ordered waypoints (rivers: from the mouth upstream)."""

    name: str
    waypoints: tuple[Waypoint, ...]
    note: str
    source: Source


@dataclass(frozen=True)
class SeaZone:
    name: str
    geom: shapely.Geometry
    ocean: bool
    note: str
    source: Source


@dataclass(frozen=True)
class Override:
    """A designer's terrain decision for some land hexes, with the reason."""

    terrain: str
    reason: str
    cells: tuple[str, ...] = ()
    points: tuple[tuple[float, float], ...] = ()  # (lat, lon)
    polygon: shapely.Geometry | None = None
    structures: tuple[str, ...] = ()
    source: Source = Source("overrides.toml")


@dataclass(frozen=True)
class Placement:
    army: int
    faction: str
    structure: str
    source: Source


@dataclass
class Scenario:
    name: str
    title: str
    directory: Path
    bbox: tuple[float, float, float, float]
    resolution: int
    start_fp: int
    armies_per_faction: int
    rules: dict
    routing: dict
    meta: dict
    factions: list[Faction]
    structures: list[Structure]
    roads: list[Route]
    rivers: list[Route]
    sea_zones: list[SeaZone]
    overrides: list[Override]
    placements: list[Placement] | None
    ruleset: str = DEFAULT_RULESET
    merged_rules: dict = field(default_factory=dict)
    """The ruleset file's values with this scenario's [rules] merged in, validated, faction
    names resolved to factions.toml's spelling: what `campaign new` freezes in `rules`."""

    def faction(self, name: str) -> Faction | None:
        return next((f for f in self.factions if f.name == name), None)

    def structure(self, name: str) -> Structure | None:
        return next((s for s in self.structures if s.name == name), None)


@dataclass(frozen=True)
class Note:
    """Something the loader adjusted or decided, reported to the designer and stored in the campaign."""

    topic: str
    subject: str
    message: str

    def __str__(self) -> str:
        return f"{self.topic} {self.subject}: {self.message}"


# --------------------------------------------------------------------------- files


def list_scenarios() -> list[str]:
    """Names of the scenarios shipped in ``datasets/scenarios``: hex scenarios (``scenario.toml``),
    province scenarios (``provinces.toml`` naming its ruleset in ``[scenario]``) and node scenarios
    (``<folder>/<file>``: a TOML file whose ``[scenario]`` names its ruleset and node file)."""
    if not SCENARIOS_DIR.is_dir():
        return []
    return sorted([p.name for p in SCENARIOS_DIR.iterdir()
                   if (p / "scenario.toml").is_file() or (p / PROVINCE_SCENARIO_FILE).is_file()]
                  + list_node_scenarios())


#: The file that makes a folder a province scenario (Rise of Rome): its ``[scenario]`` names the ruleset.
PROVINCE_SCENARIO_FILE = "provinces.toml"


@dataclass(frozen=True)
class ProvinceScenario:
    """A province scenario as the map side needs it: where, at what resolution, which ruleset,
    and each province's capital (the province builder's seeds).  The rules side (the ruleset's
    own loader) reads and checks everything else in the folder."""

    name: str
    title: str
    directory: Path
    bbox: tuple[float, float, float, float]
    resolution: int
    ruleset: str
    capitals: tuple[tuple[str, float, float], ...]  # (province, lon, lat), in file order
    meta: dict = field(default_factory=dict)


def _province_dir(name_or_path: str | Path) -> Path | None:
    """The folder of a province scenario given by path or shipped name (None: not one)."""
    path = Path(name_or_path)
    if (path / PROVINCE_SCENARIO_FILE).is_file() and not (path / "scenario.toml").is_file():
        return path
    shipped = SCENARIOS_DIR / str(name_or_path)
    if (shipped / PROVINCE_SCENARIO_FILE).is_file() and not (shipped / "scenario.toml").is_file():
        return shipped
    return None


def is_province_scenario(name_or_path: str | Path) -> bool:
    """Is this a province scenario (a folder with provinces.toml and no scenario.toml)?"""
    return _province_dir(name_or_path) is not None


def scenario_ruleset(name_or_path: str | Path) -> str:
    """The ruleset a scenario is played with, read without loading it: a province or node scenario's
    ``[scenario] ruleset``, else the hex scenario's (scenario.toml, default Vae Victis II)."""
    return _scenario_head(name_or_path, "ruleset")


def scenario_title(name_or_path: str | Path) -> str:
    """A scenario's title, whatever its kind (for `bellica campaign scenarios`)."""
    return _scenario_head(name_or_path, "title")


def _scenario_head(name_or_path: str | Path, key: str) -> str:
    """``key`` of a scenario's ``[scenario]`` table, whatever its kind: a node file, a province
    folder, else a hex scenario's folder."""
    if _node_file(name_or_path) is not None:
        return str(getattr(load_node_scenario(name_or_path), key))
    directory = _province_dir(name_or_path)
    if directory is not None:
        return str(getattr(load_province_scenario(directory), key))
    return str(_load_meta(scenario_dir(name_or_path))[key])


def load_province_scenario(name_or_path: str | Path) -> ProvinceScenario:
    """Read a province scenario's ``[scenario]`` table and its provinces' capitals (provinces.toml)."""
    directory = _province_dir(name_or_path)
    if directory is None:
        raise MissingInputError(f"scenario {str(name_or_path)!r}: no {PROVINCE_SCENARIO_FILE} there; give a province "
                                f"scenario folder or a shipped name ({', '.join(list_scenarios()) or 'none'})")
    path = directory / PROVINCE_SCENARIO_FILE
    data, _lines = _read_toml(path)
    meta = data.get("scenario")
    where = f"{directory.name}/{PROVINCE_SCENARIO_FILE}"
    if not isinstance(meta, dict) or not meta.get("ruleset"):
        raise InputError(f"{where}: no [scenario] table with ruleset = \"...\": add one (e.g. ruleset = \"rise-of-rome\")")
    bbox = meta.get("bbox")
    if not (isinstance(bbox, list) and len(bbox) == 4):
        raise InputError(f"{where} [scenario] bbox = {bbox!r}: give [west, south, east, north] in degrees")
    bbox_t = tuple(_float(v, where, "bbox", -180, 180) for v in bbox)
    if not (bbox_t[0] < bbox_t[2] and bbox_t[1] < bbox_t[3]):
        raise InputError(f"{where} [scenario] bbox = {bbox!r}: give [west, south, east, north] with west < east and south < north")
    resolution = _int(meta.get("resolution", 5), where, "resolution")
    check_resolution(resolution)
    capitals = []
    for i, row in enumerate(data.get("province", []), start=1):
        name = row.get("name") if isinstance(row, dict) else None
        if not name:
            raise InputError(f"{where} province #{i}: give each province a name")
        capitals.append((str(name), _float(row.get("lon"), where, f"province {name!r} lon", -180, 180),
                         _float(row.get("lat"), where, f"province {name!r} lat", -90, 90)))
    if not capitals:
        raise InputError(f"{where}: no [[province]] entries: give each province a name, lon and lat")
    return ProvinceScenario(name=str(meta.get("name", directory.name)), title=str(meta.get("title", directory.name)),
                            directory=directory, bbox=bbox_t, resolution=resolution, ruleset=str(meta["ruleset"]),
                            capitals=tuple(capitals), meta=dict(meta))


# --------------------------------------------------------------------------- node scenarios


@dataclass(frozen=True)
class NodeScenario:
    """A node scenario as the map side needs it (Magna Graecia): one TOML file in a scenario folder
    whose ``[scenario]`` names its ``ruleset``, its node file (``nodes``, a file beside it: the places
    and paths, docs/nodes.md), ``year`` (negative BC: the places and paths standing then),
    ``bbox`` and ``resolution`` of its hex map.  The ruleset's own loader reads the rest."""

    name: str  # "<folder>/<file stem>", e.g. "magna-graecia/dionysian"
    title: str
    path: Path
    nodes: Path
    year: int
    bbox: tuple[float, float, float, float]
    resolution: int
    ruleset: str
    meta: dict = field(default_factory=dict)

    @property
    def directory(self) -> Path:
        return self.path.parent


def _node_head(path: Path) -> dict | None:
    """The ``[scenario]`` table of a TOML file when it names a ruleset and a node file (else None)."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None
    head = data.get("scenario")
    if isinstance(head, dict) and head.get("ruleset") and head.get("nodes"):
        return head
    return None


def _node_file(name_or_path: str | Path) -> Path | None:
    """The file of a node scenario given by path or by shipped name ``<folder>/<stem>`` (None: not one)."""
    text = str(name_or_path)
    candidates = [Path(text)] if text.endswith(".toml") else []
    if "/" in text.strip("/"):
        candidates.append(SCENARIOS_DIR / (text if text.endswith(".toml") else f"{text}.toml"))
    for path in candidates:
        if path.is_file() and _node_head(path) is not None:
            return path
    return None


def list_node_scenarios() -> list[str]:
    """The shipped node scenarios, as ``<folder>/<stem>`` (a folder that is a hex or province scenario has none)."""
    out = []
    for folder in sorted(p for p in SCENARIOS_DIR.iterdir() if p.is_dir()):
        if (folder / "scenario.toml").is_file() or (folder / PROVINCE_SCENARIO_FILE).is_file():
            continue
        out += [f"{folder.name}/{f.stem}" for f in sorted(folder.glob("*.toml")) if _node_head(f) is not None]
    return out


def is_node_scenario(name_or_path: str | Path) -> bool:
    """Is this a node scenario (a TOML file whose ``[scenario]`` names a ruleset and a node file)?"""
    return _node_file(name_or_path) is not None


def load_node_scenario(name_or_path: str | Path) -> NodeScenario:
    """Read a node scenario's ``[scenario]`` table: its ruleset, node file, year, bbox and resolution."""
    path = _node_file(name_or_path)
    if path is None:
        raise MissingInputError(f"scenario {str(name_or_path)!r}: no node scenario there; give a TOML file whose "
                                "[scenario] names ruleset and nodes, or a shipped name "
                                f"({', '.join(list_node_scenarios()) or 'none'})")
    head = _node_head(path)
    where = f"{path.parent.name}/{path.name}"
    raw = head["nodes"]
    # The node file lies in the scenario's folder: an absolute path or a ".." would read any file on the disk.
    if not isinstance(raw, str) or not raw.strip() or Path(raw).is_absolute() or ".." in Path(raw).parts:
        raise InputError(f"{where} [scenario] nodes = {raw!r}: name the node file (docs/nodes.md) in the scenario's "
                         "folder, e.g. nodes = \"sicily-nodes.toml\"")
    nodes = path.parent / raw
    if not nodes.is_file():
        raise MissingInputError(f"{where} [scenario] nodes = {head['nodes']!r}: no such file beside it; "
                                "name the node file (docs/nodes.md) in the scenario's folder")
    year = head.get("year")
    if isinstance(year, bool) or not isinstance(year, int) or year == 0:
        raise InputError(f"{where} [scenario] year = {year!r}: give a whole year, negative BC (e.g. -397)")
    bbox = head.get("bbox")
    if not (isinstance(bbox, list) and len(bbox) == 4):
        raise InputError(f"{where} [scenario] bbox = {bbox!r}: give [west, south, east, north] in degrees")
    bbox_t = tuple(_float(v, where, "bbox", -180, 180) for v in bbox)
    if not (bbox_t[0] < bbox_t[2] and bbox_t[1] < bbox_t[3]):
        raise InputError(f"{where} [scenario] bbox = {bbox!r}: give [west, south, east, north] with west < east and south < north")
    resolution = _int(head.get("resolution", 6), where, "resolution")
    try:
        check_resolution(resolution)
    except InputError as e:
        raise InputError(f"{where} [scenario] {e}") from None
    name = f"{path.parent.name}/{path.stem}"
    return NodeScenario(name=name, title=str(head.get("title", name)), path=path, nodes=nodes, year=year,
                        bbox=bbox_t, resolution=resolution, ruleset=str(head["ruleset"]), meta=dict(head))


def scenario_dir(name_or_path: str | Path) -> Path:
    """The folder of a scenario given by shipped name or by path."""
    path = Path(name_or_path)
    if (path / "scenario.toml").is_file():
        return path
    shipped = SCENARIOS_DIR / str(name_or_path)
    if (shipped / "scenario.toml").is_file():
        return shipped
    if _province_dir(name_or_path) is not None:
        raise InputError(f"scenario {str(name_or_path)!r} is a province scenario ({PROVINCE_SCENARIO_FILE}, ruleset "
                         f"{load_province_scenario(name_or_path).ruleset}): it has no hex scenario files; "
                         "`bellica campaign new` makes its campaign")
    known = ", ".join(list_scenarios()) or "none"
    raise MissingInputError(
        f"scenario {str(name_or_path)!r}: no scenario.toml there; give a folder holding one or a shipped name ({known})"
    )


def _read_text(path: Path, what: str = "scenario file") -> str:
    """A scenario (or placements) file's text through the one user-file reader: a missing,
    unreadable, oversized or non-UTF-8 file is one line naming it."""
    if not path.exists() and not path.is_symlink():
        raise MissingInputError(f"{path.name}: missing from {path.parent}: create it (see docs/scenario_format.md)")
    return read_user_text(path, what)


def _read_toml(path: Path) -> tuple[dict, list[str]]:
    text = _read_text(path)
    return parse_user_toml(text, path.name), text.splitlines()


def _table_lines(lines: list[str], header: str) -> list[int]:
    """1-based line numbers of each ``[[header]]`` in a TOML text, in order.

    tomllib gives no positions, so errors locate an array-of-tables entry by
    counting its headers; the n-th entry starts at the n-th header.
    """
    pattern = re.compile(r"^\s*\[\[\s*" + re.escape(header) + r"\s*\]\]")
    return [i + 1 for i, line in enumerate(lines) if pattern.match(line)]


def _line_of(lines: list[str], start: int, needle: str) -> int:
    """First line at or after ``start`` that contains ``needle`` (falls back to ``start``)."""
    for i in range(max(start - 1, 0), len(lines)):
        if needle in lines[i]:
            return i + 1
        if i >= start and lines[i].lstrip().startswith("[["):
            break
    return start


def _check_keys(entry: dict, allowed: set[str], where: str, what: str) -> None:
    """Refuse keys the format does not know: a misspelt key would otherwise be silently ignored."""
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise InputError(f"{where}: {what} has unknown key(s) {unknown}: use {', '.join(sorted(allowed))}")


def _csv_rows(path: Path, columns: tuple[str, ...], *, required: bool = True, what: str = "scenario file") -> list[tuple[int, dict]]:
    """Rows of a CSV file with a header; ``#`` lines and blank lines are comments.

    Returns (line number, row) pairs so that every error can name its line.
    """
    if not required and not path.exists():
        return []
    text = _read_text(path, what)
    header: list[str] | None = None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            values = [v.strip() for v in next(csv.reader([line]), [])]
        except csv.Error as e:  # a field over the csv module's size limit, a NUL byte
            raise InputError(f"{path.name} line {number}: not a CSV line ({e}): fix the line") from None
        if header is None:
            header = [h.lower() for h in values]
            missing = [c for c in columns if c not in header]
            if missing:
                raise InputError(f"{path.name} line {number}: header lacks column(s) {missing}: the header is {', '.join(columns)}")
            continue
        if len(values) != len(header):
            raise InputError(
                f"{path.name} line {number}: {len(values)} fields where the header has {len(header)}: "
                "quote fields that contain commas"
            )
        rows.append((number, dict(zip(header, values))))
    return rows


def _float(value, where: str, what: str, lo: float, hi: float) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: {what} {value!r} is not a number: write a decimal number") from None
    if not (lo <= x <= hi) or math.isnan(x):
        raise InputError(f"{where}: {what} {x} is outside {lo}..{hi}: check the coordinate (lat, lon in degrees)")
    return x


def _int(value, where: str, what: str) -> int:
    # TOML integers are ints already; text (a CSV field) takes ASCII digits only: int() would read "٩" as 9.
    x = value if isinstance(value, int) and not isinstance(value, bool) else whole_number(value, signed=True)
    if x is None:
        raise InputError(f"{where}: {what} {value!r} is not a whole number: write an integer in digits 0-9")
    return x


# --------------------------------------------------------------------------- sections


def _load_meta(directory: Path) -> dict:
    path = directory / "scenario.toml"
    data, lines = _read_toml(path)
    where = path.name
    _check_keys(data, {"scenario", "rules", "routing"}, where, "scenario.toml")
    sc = data.get("scenario")
    if not isinstance(sc, dict):
        raise InputError(f"{where}: no [scenario] table: add [scenario] with name, region and resolution")
    for key in ("name", "bbox", "resolution", "start_fp", "armies_per_faction"):
        if key not in sc:
            line = _line_of(lines, 1, "[scenario]")
            raise InputError(f"{where} line {line}: [scenario] lacks `{key}`: add it (see docs/scenario_format.md)")
    bbox = sc["bbox"]
    if not (isinstance(bbox, list) and len(bbox) == 4 and all(isinstance(v, (int, float)) for v in bbox)):
        raise InputError(f"{where} line {_line_of(lines, 1, 'bbox')}: bbox must be [west, south, east, north] in degrees")
    west, south, east, north = (float(v) for v in bbox)
    if not (-180 <= west < east <= 180 and -90 <= south < north <= 90):
        raise InputError(f"{where} line {_line_of(lines, 1, 'bbox')}: bbox {bbox} is empty or not lon/lat: give west < east, south < north")
    try:
        res = check_resolution(sc["resolution"])
    except InputError as e:
        raise InputError(f"{where} line {_line_of(lines, 1, 'resolution')}: {e}") from None
    start_fp = _int(sc["start_fp"], f"{where} line {_line_of(lines, 1, 'start_fp')}", "start_fp")
    per_faction = _int(sc["armies_per_faction"], f"{where} line {_line_of(lines, 1, 'armies_per_faction')}", "armies_per_faction")
    if start_fp <= 0 or per_faction < 0:
        raise InputError(f"{where}: start_fp = {start_fp}, armies_per_faction = {per_faction}: give start_fp > 0 and armies_per_faction >= 0")
    ruleset = str(sc.get("ruleset", DEFAULT_RULESET))
    overrides = dict(data.get("rules") or {})
    # [scenario] start_fp is the scenario's strength at the start: the rules' start.army_fp.
    start = dict(overrides.get("start") or {})
    if "army_fp" in start and start["army_fp"] != start_fp:
        raise InputError(f"{where}: [scenario] start_fp = {start_fp} but [rules.start] army_fp = {start['army_fp']}: "
                         "give the starting strength once")
    overrides["start"] = {**start, "army_fp": start_fp}
    merged = load_rules(ruleset, overrides, source=f"{where} [rules]")
    routing = dict(DEFAULT_ROUTING)
    for key, value in (data.get("routing") or {}).items():
        if key not in DEFAULT_ROUTING:
            raise InputError(
                f"{where} line {_line_of(lines, 1, key)}: unknown [routing] key `{key}`: use one of {sorted(DEFAULT_ROUTING)}"
            )
        if key == "road_terrain_cost":
            costs = dict(DEFAULT_ROUTING[key])
            for terrain, cost in value.items():
                if terrain not in costs:
                    raise InputError(
                        f"{where} line {_line_of(lines, 1, terrain)}: road_terrain_cost names terrain `{terrain}`: "
                        f"use {', '.join(costs)} (peaks are never routed through)"
                    )
                costs[terrain] = float(cost)
            value = costs
        routing[key] = value
    return {
        "name": str(sc["name"]),
        "title": str(sc.get("title", sc["name"])),
        "bbox": (west, south, east, north),
        "resolution": res,
        "start_fp": start_fp,
        "armies_per_faction": per_faction,
        "rules": dict(data.get("rules") or {}),
        "ruleset": ruleset,
        "merged_rules": merged,
        "routing": routing,
        "meta": {k: v for k, v in sc.items() if k not in ("bbox", "ruleset")},
    }


def _load_factions(directory: Path, armies_per_faction: int) -> list[Faction]:
    path = directory / "factions.toml"
    data, lines = _read_toml(path)
    entries = data.get("faction")
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{path.name}: no [[faction]] entries: add one [[faction]] table per faction")
    starts = _table_lines(lines, "faction")
    factions: list[Faction] = []
    capital_owner: dict[str, str] = {}
    for i, entry in enumerate(entries):
        line = starts[i] if i < len(starts) else None
        where = f"{path.name} line {line}" if line else path.name
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{where}: faction without a name: add name = \"...\"")
        _check_keys(entry, FACTION_KEYS, where, f"faction {name!r}")
        if any(f.name == name for f in factions):
            raise InputError(f"{where}: faction {name!r} is defined twice: merge the two [[faction]] tables")
        player = entry.get("player", True)
        if not isinstance(player, bool):
            raise InputError(f"{where}: faction {name!r} player = {player!r}: write true or false")
        capitals = entry.get("capitals", [])
        if isinstance(capitals, str):
            capitals = [capitals]
        for cap in capitals:
            if cap in capital_owner:
                other = capital_owner[cap]
                raise InputError(
                    f"{path.name} line {_line_of(lines, line or 1, cap)}: two capitals named {cap!r} "
                    f"(factions {other!r} and {name!r}): a capital is one structure of one faction; rename one"
                )
            capital_owner[cap] = name
        first, last = entry.get("first_army"), entry.get("last_army")
        if player:
            if first is None or last is None:
                raise InputError(f"{where}: player faction {name!r} needs first_army and last_army (its army numbers)")
            first = _int(first, where, "first_army")
            last = _int(last, where, "last_army")
            if last < first or first < 1:
                raise InputError(f"{where}: faction {name!r} armies {first}-{last}: give 1 <= first_army <= last_army")
            if last - first + 1 != armies_per_faction:
                raise InputError(
                    f"{where}: faction {name!r} has armies {first}-{last} ({last - first + 1}) but scenario.toml says "
                    f"armies_per_faction = {armies_per_faction}: make them agree"
                )
            for other in factions:
                if other.armies and not (last < other.armies.start or first > other.armies.stop - 1):
                    raise InputError(
                        f"{where}: army numbers {first}-{last} of {name!r} overlap {other.name!r} "
                        f"({other.first_army}-{other.last_army}): number each army once"
                    )
        elif first is not None or last is not None:
            raise InputError(f"{where}: non-player faction {name!r} has army numbers: non-player factions field no armies")
        mult = _int(entry.get("influence_multiplier", 1 if player else 0), where, "influence_multiplier")
        colour = str(entry.get("colour", "#888888"))
        if not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
            raise InputError(f"{where}: faction {name!r} colour {colour!r}: write an HTML colour like \"#b22222\"")
        factions.append(
            Faction(
                name=name,
                colour=colour,
                army_list=str(entry.get("army_list", "")),
                player=player,
                capitals=tuple(capitals),
                influence_multiplier=mult,
                first_army=first if player else None,
                last_army=last if player else None,
                source=Source(path.name, line),
            )
        )
    return factions


def _load_structures(directory: Path, factions: list[Faction]) -> list[Structure]:
    path = directory / "structures.csv"
    names = {f.name for f in factions}
    capitals = {c: f.name for f in factions for c in f.capitals}
    structures: list[Structure] = []
    seen: dict[str, int] = {}
    for line, row in _csv_rows(path, STRUCTURE_COLUMNS):
        where = f"{path.name} line {line}"
        name = row["name"]
        if not name:
            raise InputError(f"{where}: structure without a name: fill the name column")
        if name in seen:
            raise InputError(
                f"{where}: two structures named {name!r} (also line {seen[name]}): names identify structures; rename one"
            )
        seen[name] = line
        kind = row["kind"].lower()
        if kind not in STRUCTURE_KINDS:
            raise InputError(f"{where}: structure {name!r} kind {row['kind']!r}: write town or city")
        lat = _float(row["lat"], where, "lat", -90, 90)
        lon = _float(row["lon"], where, "lon", -180, 180)
        controller = row["controller"] or None
        if controller is not None and controller.lower() in ("none", "-"):
            controller = None
        if controller is not None and controller not in names:
            raise InputError(
                f"{where}: structure {name!r} controller {controller!r} is not a faction: "
                f"use one of {', '.join(sorted(names))} or leave it empty for nobody"
            )
        structures.append(
            Structure(name, row["modern"], kind, lat, lon, controller, name in capitals, Source(path.name, line))
        )
    if not structures:
        raise InputError(f"{path.name}: no structures: add one line per town or city")
    by_name = {s.name: s for s in structures}
    for cap, faction in capitals.items():
        f = next(x for x in factions if x.name == faction)
        s = by_name.get(cap)
        if s is None:
            raise InputError(f"factions.toml line {f.source.line}: capital {cap!r} of {faction!r} is not in structures.csv: add it or fix the name")
        if s.controller != faction:
            raise InputError(
                f"{s.source}: capital {cap!r} of {faction!r} is controlled by {s.controller!r} at start: "
                f"a faction starts holding its capital; set its controller to {faction}"
            )
    return structures


def _waypoint(value, where: str, structures: dict[str, Structure], route: str, index: int) -> Waypoint:
    if isinstance(value, str):
        if value not in structures:
            close = [n for n in structures if n.lower().startswith(value[:3].lower())][:5]
            hint = f" (close: {', '.join(close)})" if close else ""
            raise InputError(
                f"{where}: {route} waypoint {index} {value!r} is not a structure{hint}: "
                "use a name from structures.csv or a [lat, lon] pair"
            )
        return Waypoint(value, None, None, Source(where))
    if isinstance(value, list) and len(value) == 2:
        lat = _float(value[0], where, f"{route} waypoint {index} lat", -90, 90)
        lon = _float(value[1], where, f"{route} waypoint {index} lon", -180, 180)
        return Waypoint(None, lat, lon, Source(where))
    raise InputError(f"{where}: {route} waypoint {index} {value!r}: write a structure name or [lat, lon]")


def _load_routes(directory: Path, filename: str, header: str, structures: list[Structure], *, required: bool) -> list[Route]:
    path = directory / filename
    if not path.is_file():
        if required:
            raise MissingInputError(f"{filename}: missing from {directory}: create it (see docs/scenario_format.md)")
        return []
    data, lines = _read_toml(path)
    entries = data.get(header, [])
    if not isinstance(entries, list):
        raise InputError(f"{filename}: `{header}` must be an array of tables: write [[{header}]] per entry")
    starts = _table_lines(lines, header)
    by_name = {s.name: s for s in structures}
    routes: list[Route] = []
    for i, entry in enumerate(entries):
        start = starts[i] if i < len(starts) else 1
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(f"{filename} line {start}: [[{header}]] without a name: add name = \"...\"")
        if any(r.name == name for r in routes):
            raise InputError(f"{filename} line {start}: two {header}s named {name!r}: rename one")
        _check_keys(entry, ROUTE_KEYS, f"{filename} line {start}", f"{header} {name!r}")
        raw = entry.get("waypoints")
        if not isinstance(raw, list) or len(raw) < 2:
            raise InputError(f"{filename} line {start}: {header} {name!r} needs at least two waypoints")
        points = []
        for j, value in enumerate(raw, start=1):
            needle = f'"{value}"' if isinstance(value, str) else "waypoints"
            where = f"{filename} line {_line_of(lines, start, needle)}"
            points.append(_waypoint(value, where, by_name, f"{header} {name!r}", j))
        for a, b in zip(points, points[1:]):
            if a.structure is not None and a.structure == b.structure:
                raise InputError(f"{a.source}: {header} {name!r} repeats waypoint {a.structure!r}: drop the repeat")
        routes.append(Route(name, tuple(points), str(entry.get("note", "")), Source(filename, start)))
    return routes


def _load_sea_zones(directory: Path) -> list[SeaZone]:
    path = directory / "sea_zones.geojson"
    if not path.is_file():
        return []
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError as e:
        raise InputError(f"{path.name} line {e.lineno}: not valid JSON ({e.msg}): fix the syntax") from e
    except RecursionError:
        raise InputError(f"{path.name}: nested too deeply to be read: this is not a GeoJSON file") from None
    features = data.get("features") if isinstance(data, dict) else None
    if not isinstance(features, list):
        raise InputError(f"{path.name}: not a GeoJSON FeatureCollection: write {{\"type\": \"FeatureCollection\", \"features\": [...]}}")
    zones: list[SeaZone] = []
    for i, feat in enumerate(features, start=1):
        props = (feat or {}).get("properties") or {}
        name = props.get("name")
        label = f"{i} ({name!r})" if name else str(i)
        where = f"{path.name} feature {label}"
        if not isinstance(name, str) or not name:
            raise InputError(f"{where}: sea zone without a name: add properties.name")
        if any(z.name == name for z in zones):
            raise InputError(f"{where}: two sea zones named {name!r}: merge them into one (Multi)Polygon")
        try:
            geom = shape(feat["geometry"])
        except Exception as e:  # shapely raises several types for bad GeoJSON
            raise InputError(f"{where}: unreadable geometry ({e}): give a Polygon or MultiPolygon in lon/lat") from None
        if geom.geom_type not in ("Polygon", "MultiPolygon") or geom.is_empty:
            raise InputError(f"{where}: geometry is {geom.geom_type}: a sea zone is a Polygon or MultiPolygon")
        if not geom.is_valid:
            raise InputError(f"{where}: polygon is invalid ({shapely.is_valid_reason(geom)}): fix the ring (no self-crossing)")
        zones.append(SeaZone(name, geom, bool(props.get("ocean", False)), str(props.get("note", "")), Source(path.name, feature=label)))
    return zones


def _load_overrides(directory: Path, structures: list[Structure]) -> list[Override]:
    path = directory / "overrides.toml"
    if not path.is_file():
        return []
    data, lines = _read_toml(path)
    entries = data.get("override", [])
    starts = _table_lines(lines, "override")
    names = {s.name for s in structures}
    out = []
    for i, entry in enumerate(entries):
        line = starts[i] if i < len(starts) else None
        where = f"{path.name} line {line}" if line else path.name
        _check_keys(entry, OVERRIDE_KEYS, where, "override")
        terrain = entry.get("terrain")
        if terrain not in LAND_TERRAINS:
            raise InputError(f"{where}: terrain {terrain!r}: use one of {', '.join(LAND_TERRAINS)}")
        reason = str(entry.get("reason", "")).strip()
        if not reason:
            raise InputError(f"{where}: override without a reason: say why the designer overrides the map")
        cells = tuple(str(c) for c in entry.get("cells", []))
        for c in cells:
            if not h3.is_valid_cell(c):
                raise InputError(f"{where}: {c!r} is not an H3 cell: copy the id from the map (hexes.cell)")
        points = []
        for p in entry.get("points", []):
            if not (isinstance(p, list) and len(p) == 2):
                raise InputError(f"{where}: point {p!r}: write [lat, lon]")
            points.append((_float(p[0], where, "lat", -90, 90), _float(p[1], where, "lon", -180, 180)))
        polygon = None
        if "polygon" in entry:
            try:
                polygon = shapely.Polygon([(float(x), float(y)) for x, y in entry["polygon"]])
            except (TypeError, ValueError) as e:
                raise InputError(f"{where}: polygon must be [[lon, lat], ...] ({e})") from None
            if not polygon.is_valid or polygon.is_empty:
                raise InputError(f"{where}: polygon is invalid or empty: give at least three [lon, lat] corners, not self-crossing")
        ss = entry.get("structures", [])
        if isinstance(ss, str):
            ss = [ss]
        for s in ss:
            if s not in names:
                raise InputError(f"{where}: override names structure {s!r}, which is not in structures.csv: fix the name")
        if not (cells or points or polygon is not None or ss):
            raise InputError(f"{where}: override selects no hex: give cells, points, polygon or structures")
        out.append(Override(terrain, reason, cells, tuple(points), polygon, tuple(ss), Source(path.name, line)))
    return out


def load_placements(path: Path | str, scenario: Scenario) -> list[Placement]:
    """Read and check a placements CSV (army, faction, structure) against the scenario's rules.

    Each army of every player faction is placed exactly once, in a town or city
    its faction controls at start, never two armies of one faction in one structure.
    """
    path = Path(path)
    rows = _csv_rows(path, PLACEMENT_COLUMNS, what="placements file")
    placements: list[Placement] = []
    by_army: dict[int, int] = {}
    by_structure: dict[tuple[str, str], tuple[int, int]] = {}
    for line, row in rows:
        where = f"{path.name} line {line}"
        army = _int(row["army"], where, "army")
        faction = scenario.faction(row["faction"])
        if faction is None:
            raise InputError(f"{where}: faction {row['faction']!r} is not in this scenario: use one of {', '.join(f.name for f in scenario.factions)}")
        if army not in faction.armies:
            rng = f"{faction.first_army}-{faction.last_army}" if faction.armies else "none"
            raise InputError(f"{where}: army {army} is not an army of {faction.name} (its armies: {rng}): fix the number or faction")
        if army in by_army:
            raise InputError(f"{where}: army {army} is placed twice (also line {by_army[army]}): keep one line per army")
        by_army[army] = line
        s = scenario.structure(row["structure"])
        if s is None:
            raise InputError(f"{where}: army {army} starts in {row['structure']!r}, which is not a structure: use a name from structures.csv")
        if s.controller != faction.name:
            raise InputError(
                f"{where}: army {army} of {faction.name} starts in {s.name}, controlled by {s.controller or 'nobody'}: "
                f"armies start in their own faction's towns and cities"
            )
        key = (faction.name, s.name)
        if key in by_structure:
            raise InputError(
                f"{where}: armies {by_structure[key][0]} and {army} of {faction.name} both start in {s.name} "
                f"(line {by_structure[key][1]}): one army of a faction per starting structure"
            )
        by_structure[key] = (army, line)
        placements.append(Placement(army, faction.name, s.name, Source(path.name, line)))
    for f in scenario.factions:
        missing = [a for a in f.armies if a not in by_army]
        if missing:
            raise InputError(f"{path.name}: army(ies) {missing} of {f.name} have no starting structure: add a line for each")
    return placements


def load_scenario(name_or_path: str | Path, *, placements: str | Path | None = None) -> Scenario | ProvinceScenario:
    """Read and check a scenario folder (see the module doc); ``placements`` replaces its placements.csv.

    A province scenario (``provinces.toml``, e.g. Rise of Rome) is read as a :class:`ProvinceScenario`
    (its map side only: its ruleset's own loader reads the rest)."""
    if _province_dir(name_or_path) is not None:
        if placements is not None:
            raise InputError(f"scenario {str(name_or_path)!r} is a province scenario: it takes no placements; omit --placements")
        return load_province_scenario(name_or_path)
    directory = scenario_dir(name_or_path)
    meta = _load_meta(directory)
    factions = _load_factions(directory, meta["armies_per_faction"])
    structures = _load_structures(directory, factions)
    scenario = Scenario(
        name=meta["name"],
        title=meta["title"],
        directory=directory,
        bbox=meta["bbox"],
        resolution=meta["resolution"],
        start_fp=meta["start_fp"],
        armies_per_faction=meta["armies_per_faction"],
        rules=meta["rules"],
        routing=meta["routing"],
        meta=meta["meta"],
        factions=factions,
        structures=structures,
        roads=_load_routes(directory, "roads.toml", "road", structures, required=False),
        rivers=_load_routes(directory, "rivers.toml", "river", structures, required=False),
        sea_zones=_load_sea_zones(directory),
        overrides=_load_overrides(directory, structures),
        placements=None,
        ruleset=meta["ruleset"],
        merged_rules=resolve_factions(meta["merged_rules"], [f.name for f in factions], ruleset=meta["ruleset"],
                                      source=f"{directory.name}/scenario.toml [rules]"),
    )
    west, south, east, north = scenario.bbox
    for s in structures:
        if not (west <= s.lon <= east and south <= s.lat <= north):
            raise InputError(
                f"{s.source}: structure {s.name!r} at ({s.lat}, {s.lon}) lies outside the scenario bbox {list(scenario.bbox)}: "
                "fix the coordinates or widen bbox in scenario.toml"
            )
    if placements is not None:
        scenario.placements = load_placements(placements, scenario)
    elif (directory / "placements.csv").is_file():
        scenario.placements = load_placements(directory / "placements.csv", scenario)
    return scenario


# --------------------------------------------------------------------------- on a map


@dataclass
class MapCells:
    """What :func:`resolve_on_map` needs to know of the map: kind and terrain per cell, and adjacency."""

    kind: dict[str, str]
    terrain: dict[str, str | None]
    neighbors: dict[str, list[str]]
    latlng: dict[str, tuple[float, float]]

    @classmethod
    def from_db(cls, con) -> "MapCells":
        kind, terrain, latlng = {}, {}, {}
        for cell, k, t, lat, lng in con.execute("SELECT cell, kind, terrain, lat, lng FROM hexes").fetchall():
            kind[cell], terrain[cell], latlng[cell] = k, t, (lat, lng)
        neighbors: dict[str, list[str]] = {c: [] for c in kind}
        for cell, nbr in con.execute("SELECT cell, neighbor FROM hex_neighbors ORDER BY cell, clock").fetchall():
            if cell in neighbors:
                neighbors[cell].append(nbr)
        return cls(kind, terrain, neighbors, latlng)


@dataclass
class Resolved:
    """A scenario placed on a map: cells for everything, plus the notes of what was adjusted."""

    structure_cells: dict[str, str]
    override_cells: list[tuple[str, Override]]  # (cell, override) in file order; later ones win
    zone_cells: dict[str, list[str]]  # zone -> cells
    ocean_cells: dict[str, SeaZone]  # water cells made ocean, by the feature that did it
    notes: list[Note] = field(default_factory=list)


def _routable(cells: MapCells, cell: str) -> bool:
    return cells.kind.get(cell) == "land" and cells.terrain.get(cell) != "peaks"


def nearest_land(cells: MapCells, cell: str, lat: float, lon: float, *, rings: int, taken: Iterable[str] = ()) -> str | None:
    """The routable land cell nearest to (lat, lon) among those within ``rings`` hexes of ``cell``, skipping ``taken``.

    Nearest to the real point, not first found by ring: on a ragged shore the
    hex one ring away may lie farther from the place than one two rings away.
    """
    taken = set(taken)
    candidates = [c for c in h3.grid_disk(cell, rings) if _routable(cells, c) and c not in taken]
    if not candidates:
        return None
    # A lone island hex (no passable land neighbour) is taken only when nothing
    # else is in reach: a shore town belongs to the shore, not to an islet off it.
    return min(
        candidates,
        key=lambda c: (
            not any(_routable(cells, n) for n in cells.neighbors.get(c, ())),
            h3.great_circle_distance((lat, lon), cells.latlng[c]),
            c,
        ),
    )


def resolve_on_map(scenario: Scenario, cells: MapCells) -> Resolved:
    """Check the scenario against a map and give every item its cells (see the module doc)."""
    res = scenario.resolution
    rings = int(scenario.routing["snap_rings"])
    notes: list[Note] = []
    structure_cells: dict[str, str] = {}
    owner: dict[str, str] = {}
    pending: list[tuple[Structure, str, str]] = []
    # Pass 1: structures whose point lies in a passable land hex keep it (first
    # listed wins a shared hex); pass 2 moves the others to the nearest free land
    # hex, so a shore town never pushes an inland one out of its own hex.
    for s in scenario.structures:
        cell = cell_at(s.lat, s.lon, res)
        kind = cells.kind.get(cell)
        if kind is None:
            raise InputError(
                f"{s.source}: structure {s.name!r} at ({s.lat}, {s.lon}) is off the map: build or pass a map covering the scenario bbox"
            )
        if kind in ("sea", "ocean", "lake"):
            raise InputError(
                f"{s.source}: structure {s.name!r} at ({s.lat}, {s.lon}) lies in {with_article(kind)} hex ({cell}), not on land: "
                "fix the coordinates (lat, lon order?)"
            )
        if _routable(cells, cell) and cell not in owner:
            structure_cells[s.name] = cell
            owner[cell] = s.name
        else:
            pending.append((s, cell, kind))
    for s, cell, kind in pending:
        target = nearest_land(cells, cell, s.lat, s.lon, rings=rings, taken=owner)
        if target is None:
            raise InputError(
                f"{s.source}: structure {s.name!r} at ({s.lat}, {s.lon}) has no free land hex within {rings} hexes: "
                "move the point onto land or drop the structure"
            )
        if cell in owner:
            why = f"its hex {cell} already holds {owner[cell]}"
        elif kind == "coast":
            why = f"its point falls in coast hex {cell}"
        else:
            why = f"its hex {cell} is {cells.terrain.get(cell)} (impassable)"
        km = h3.great_circle_distance((s.lat, s.lon), cells.latlng[target])
        notes.append(Note("structure", s.name, f"{why}; placed in the nearest free land hex {target} ({km:.0f} km from the site)"))
        structure_cells[s.name] = target
        owner[target] = s.name
    structure_cells = {s.name: structure_cells[s.name] for s in scenario.structures}

    override_cells: list[tuple[str, Override]] = []
    for o in scenario.overrides:
        chosen: list[str] = list(o.cells)
        chosen += [cell_at(lat, lon, res) for lat, lon in o.points]
        chosen += [structure_cells[name] for name in o.structures]
        if o.polygon is not None:
            from shapely import contains_xy

            inside = [c for c, (lat, lng) in cells.latlng.items() if contains_xy(o.polygon, lng, lat)]
            if not inside:
                raise InputError(f"{o.source}: override polygon contains no hex centre of the map: enlarge it or give cells")
            chosen += sorted(inside)
        for c in dict.fromkeys(chosen):
            if c not in cells.kind:
                raise InputError(f"{o.source}: override hex {c} is not on the map: use a cell of the scenario region")
            if cells.kind[c] != "land":
                if o.polygon is not None and c not in o.cells:
                    continue  # a polygon may lap over the shore: only its land hexes change
                raise InputError(
                    f"{o.source}: override hex {c} is a {cells.kind[c]} hex: terrain applies to land hexes only; pick a land hex"
                )
            before = cells.terrain.get(c)
            override_cells.append((c, o))
            notes.append(Note("override", c, f"{before} -> {o.terrain}: {o.reason} ({o.source})"))

    zone_cells, ocean_cells = _assign_sea_zones(scenario, cells)
    by_feature: dict[str, list[str]] = {}
    for cell, zone in ocean_cells.items():
        by_feature.setdefault(zone.name, []).append(cell)
    for name, made in by_feature.items():
        zone = next(z for z in scenario.sea_zones if z.name == name)
        notes.append(Note("ocean", name, f"{len(made)} sea/coast hexes made ocean (impassable to ships) by {zone.source}"))
    return Resolved(structure_cells, override_cells, zone_cells, ocean_cells, notes)


def _assign_sea_zones(scenario: Scenario, cells: MapCells) -> tuple[dict[str, list[str]], dict[str, SeaZone]]:
    """Water hexes per zone: a hex belongs to every zone its hexagon overlaps by more than a sliver.

    Overlap (not centre-in-polygon) makes the hexes a zone border runs through
    belong to both zones, as the rules' striped border hexes do, even when the
    designer draws the polygons edge to edge.
    """
    from bellica.geo.hexgrid import cell_polygon

    water = sorted(c for c, k in cells.kind.items() if k in ("coast", "sea"))
    zone_cells: dict[str, list[str]] = {z.name: [] for z in scenario.sea_zones if not z.ocean}
    ocean_cells: dict[str, SeaZone] = {}
    polys = {c: cell_polygon(c) for c in water}
    covered: set[str] = set()
    for z in scenario.sea_zones:
        shapely.prepare(z.geom)
        for c in water:
            p = polys[c]
            if not z.geom.intersects(p):
                continue
            # 5 % of the hexagon: a polygon that merely grazes a hex does not claim it.
            if not z.geom.contains(p) and z.geom.intersection(p).area < 0.05 * p.area:
                continue
            if z.ocean:
                ocean_cells.setdefault(c, z)
            else:
                zone_cells[z.name].append(c)
                covered.add(c)
    # A hex in a zone stays navigable even if an ocean polygon laps over it.
    for c in covered:
        ocean_cells.pop(c, None)
    west, south, east, north = scenario.bbox
    orphans = [
        c for c in water
        if c not in covered and c not in ocean_cells and west <= cells.latlng[c][1] <= east and south <= cells.latlng[c][0] <= north
    ]
    if orphans:
        lat, lng = cells.latlng[orphans[0]]
        raise InputError(
            f"sea_zones.geojson: {len(orphans)} sea/coast hex(es) of the scenario area lie in no sea zone "
            f"(first: {orphans[0]} at {lat:.2f}N {lng:.2f}E): enlarge a zone polygon or add a feature with \"ocean\": true"
        )
    return zone_cells, ocean_cells


__all__ = [
    "DEFAULT_ROUTING",
    "Faction",
    "MapCells",
    "Note",
    "Override",
    "Placement",
    "Resolved",
    "Route",
    "Scenario",
    "SeaZone",
    "Source",
    "Structure",
    "Waypoint",
    "PROVINCE_SCENARIO_FILE",
    "ProvinceScenario",
    "NodeScenario",
    "is_node_scenario",
    "list_node_scenarios",
    "load_node_scenario",
    "is_province_scenario",
    "list_scenarios",
    "load_placements",
    "load_province_scenario",
    "load_scenario",
    "nearest_land",
    "resolve_on_map",
    "scenario_dir",
    "scenario_ruleset",
    "scenario_title",
]
