"""Scenario layers over the terrain map of a campaign: structures, roads, rivers, sea zones, armies, navies.

Reads the campaign tables of docs/architecture.md and, when the campaign has
started, the engine state of engine/vae_victis/sql/state.sql (``armies``, ``control``,
``sieges``, and the naval tables read by :mod:`web_maps.naval_layers`: an army on
a Coast or Sea hex is a navy, drawn as a hull, with its ZoC, blockades, sea links
and each zone's naval superiority).  Before the start, the ``placements`` are shown as the armies and
``structures.controller`` as control.

A faction's view is a pure redaction of the loaded :class:`Scenario`
(:func:`faction_view`), applied before anything reaches the page, so hidden
values are never in the HTML: counters are on the board for everyone to see,
but another faction's army strength (its Force Points) is not, and neither
are another faction's chosen sea links.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace

import duckdb
import h3
import numpy as np
import shapely

from bellica.datasets.rules import canonical_faction
from bellica.geo.errors import InputError
from bellica.geo.logs import logger
from bellica.web_maps.encode import encode_lines
from bellica.web_maps.layers import HexLayer, HexOutlineLayer, LegendItem, LegendSection, LineLayer, PointLayer
from bellica.web_maps.play_aids import Situation
from bellica.web_maps.play_layers import add_play_layers
from bellica.web_maps.naval_layers import (NAVY_KINDS, Naval, add_naval_layers, blockade_text, load_naval,
                                          superiority_legend, superiority_rows)
from bellica.schema import Faction, Structure, existing_columns, existing_tables, read_factions, read_structures
from bellica.web_maps.terrain_map import HexTable, wkb_geometries

log = logger(__name__)

NEUTRAL = "#9e9e9e"  # structures nobody controls
ROAD_COLOUR = "#7a4a22"
NAMED_RIVER_COLOUR = "#0d47a1"
ZONE_COLOUR = "#0b3a66"
STAR_R = 13  # capital star half-size in px; army counters stand just below it
_CSS_COLOUR = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20})$")


@dataclass(frozen=True)
class ArmyMark:
    id: int
    faction: str
    cell: str
    strength: int | None  # None: not known to the viewer
    placed: bool  # from placements: the campaign has not started
    navy: bool = False  # stands on a Coast or Sea hex: a navy
    hex_kind: str | None = None  # the kind of its hex (coast, sea) for a navy


@dataclass(frozen=True)
class NamedLine:
    name: str
    geom: object  # shapely geometry, lon/lat
    cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """What the layers draw: the campaign-table records (bellica.schema) as they stand now."""

    title: str | None
    factions: tuple[Faction, ...]  # colour checked as a CSS colour
    structures: tuple[Structure, ...]  # controller: the current one; capital: also when in a capitals list
    roads: tuple[NamedLine, ...]
    rivers: tuple[NamedLine, ...]
    sea_zones: tuple[NamedLine, ...]
    armies: tuple[ArmyMark, ...]
    besieged_by: dict[str, str] = field(default_factory=dict)  # structure -> besieging faction
    naval: Naval = field(default_factory=Naval)  # navies' ZoC, blockades, sea links, superiority
    viewer: str | None = None  # None: the umpire's view

    def colour(self, faction: str | None) -> str:
        for f in self.factions:
            if f.name == faction:
                return f.colour
        return NEUTRAL


def _colour(value, faction: str) -> str:
    # A colour goes into CSS: anything but a plain hex code or colour name is refused, not injected.
    if value is not None and _CSS_COLOUR.match(str(value).strip()):
        return str(value).strip()
    log.warning("faction %s has colour %r, not a CSS colour: drawn grey", faction, value)
    return NEUTRAL


def _rows(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def _lines_from_cells(cells: list[str], centres: dict[str, tuple[float, float]]):
    pts = [(centres[c][1], centres[c][0]) for c in cells if c in centres]
    return shapely.LineString(pts) if len(pts) >= 2 else None


def load_scenario(con: duckdb.DuckDBPyConnection, hexes: HexTable, *, db_path="database") -> Scenario:
    """Everything the scenario layers draw, read from a campaign database."""
    tables = existing_tables(con)
    meta = dict(_rows(con, "SELECT key, value FROM scenario_meta")) if "scenario_meta" in tables else {}
    centres = hexes.centres()
    factions, structures = _factions_and_structures(con, tables, centres, db_path)
    sieges = {}
    if "sieges" in tables and {"structure", "faction"} <= set(existing_columns(con, "sieges")):
        sieges = dict(_rows(con, "SELECT structure, faction FROM sieges"))
    kinds = dict(zip(hexes.cell, hexes.kind))
    armies = _armies(con, tables, meta, centres, kinds)
    title = meta.get("title") or meta.get("name")
    besieged = {s.name: sieges[s.name] for s in structures if s.name in sieges}
    naval = load_naval(con, kinds, [(a.id, a.faction, a.cell) for a in armies if a.navy], structures, besieged)
    return Scenario(title, factions, tuple(structures), tuple(_roads(con, tables, centres)),
                    tuple(_rivers(con, tables, centres)), tuple(_zones(con, tables)), tuple(armies), besieged, naval)


def _factions_and_structures(con, tables: set, centres: dict, db_path) -> tuple[tuple, list]:
    """The factions (with their colours) and the structures on the map, each with its controller now."""
    try:
        stored_factions, stored_structures = read_factions(con), read_structures(con)
    except InputError as e:
        raise InputError(f"{db_path}: {e}") from e
    factions = tuple(replace(f, colour=_colour(f.colour, f.name)) for f in stored_factions)
    known = {f.name for f in factions}
    # A faction's capitals list is the rules' word on capitals, whatever structures.capital says.
    capitals = {c for f in factions for c in f.capitals}
    control = {}
    if "control" in tables and {"structure", "controller"} <= set(existing_columns(con, "control")):
        # The engine's current control supersedes the scenario's control at start.
        control = dict(_rows(con, "SELECT structure, controller FROM control"))
    structures = []
    for s in stored_structures:
        if s.cell not in centres:
            log.warning("structure %s lies in %s, which is not on the map: not drawn", s.name, s.cell)
            continue
        controller = control.get(s.name, s.controller)
        if controller is not None and controller not in known:
            log.warning("structure %s is controlled by %s, which is not a faction: drawn neutral", s.name, controller)
        structures.append(replace(s, controller=controller, capital=bool(s.capital) or s.name in capitals))
    return factions, structures


def _roads(con, tables: set, centres: dict) -> list[NamedLine]:
    if "road_cells" in tables:
        by_road = defaultdict(list)
        for road, cell in _rows(con, "SELECT road, cell FROM road_cells ORDER BY road, seq"):
            by_road[road].append(cell)
        # The road is the chain of hexes the rules move along: draw it through their centres.
        lines = ((road, _lines_from_cells(cells, centres), cells) for road, cells in by_road.items())
        return [NamedLine(road, line, tuple(cells)) for road, line, cells in lines if line is not None]
    if "roads" in tables:
        return [NamedLine(n, g) for n, g in _named_geoms(con, "roads") if g is not None]
    return []


def _rivers(con, tables: set, centres: dict) -> list[NamedLine]:
    if "rivers" not in tables:
        return []
    river_cells = defaultdict(list)
    if "river_cells" in tables:
        for river, cell in _rows(con, "SELECT river, cell FROM river_cells ORDER BY river, cell"):
            river_cells[river].append(cell)
    rivers = []
    for name, geom in _named_geoms(con, "rivers"):
        if geom is None and river_cells.get(name):
            geom = _lines_from_cells(river_cells[name], centres)
        rivers.append(NamedLine(name, geom, tuple(river_cells.get(name, ()))))
    return rivers


def _zones(con, tables: set) -> list[NamedLine]:
    if "sea_zones" not in tables:
        return []
    zone_cells = defaultdict(list)
    if "hex_sea_zones" in tables:
        for cell, zone in _rows(con, "SELECT cell, zone FROM hex_sea_zones ORDER BY zone, cell"):
            zone_cells[zone].append(cell)
    return [NamedLine(name, geom, tuple(zone_cells.get(name, ()))) for name, geom in _named_geoms(con, "sea_zones")]


def _armies(con, tables: set, meta: dict, centres: dict, kinds: dict) -> list[ArmyMark]:
    """The armies on the map (before the start: the placements, at the scenario's start FP); one at sea is a navy."""
    armies: list[ArmyMark] = []
    acols = existing_columns(con, "armies") if "armies" in tables else []
    if {"id", "faction", "cell"} <= set(acols):
        strength = "strength" if "strength" in acols else "NULL"
        alive = "WHERE NOT coalesce(eliminated, FALSE)" if "eliminated" in acols else ""
        for i, faction, cell, s in _rows(con, f"SELECT id, faction, cell, {strength} FROM armies {alive} ORDER BY id"):
            armies.append(ArmyMark(int(i), faction, cell, None if s is None else int(s), False))
    if not armies and "placements" in tables:
        start = int(meta["start_fp"]) if str(meta.get("start_fp", "")).isdigit() else None
        for army, faction, cell in _rows(con, "SELECT army, faction, cell FROM placements ORDER BY army"):
            armies.append(ArmyMark(int(army), faction, cell, start, True))
    off_map = [a.id for a in armies if a.cell not in centres]
    if off_map:
        log.warning("armies %s stand in cells that are not on the map: not drawn", off_map)
        armies = [a for a in armies if a.cell in centres]
    # An army at sea is a navy (placements are always on land structures, so only started campaigns have navies).
    return [replace(a, navy=True, hex_kind=kinds[a.cell]) if not a.placed and kinds.get(a.cell) in NAVY_KINDS else a
            for a in armies]


def _named_geoms(con, table: str) -> list[tuple[str, object]]:
    cols = existing_columns(con, table)
    if "name" not in cols:
        raise InputError(f"table {table} lacks column name: rebuild the campaign with `bellica campaign new`")
    if "geom" not in cols:
        return [(n, None) for (n,) in _rows(con, f"SELECT name FROM {table} ORDER BY name")]
    rows = _rows(con, f"SELECT name, ST_AsWKB(geom) FROM {table} ORDER BY name")
    geoms = wkb_geometries([r[1] for r in rows])
    return [(r[0], g) for r, g in zip(rows, geoms)]


def faction_view(scenario: Scenario, faction: str) -> Scenario:
    """What ``faction`` may see: every counter, but other factions' army strength and sea links hidden."""
    names = [f.name for f in scenario.factions]
    try:  # the one faction resolver: "etrusci" is Etrusci
        faction = canonical_faction(faction, names, where="--faction")
    except InputError:
        raise InputError(f"faction {faction!r} is not in this campaign: pass --faction with one of {', '.join(names)}") from None
    armies = tuple(a if a.faction == faction else replace(a, strength=None) for a in scenario.armies)
    return replace(scenario, armies=armies, naval=scenario.naval.for_faction(faction), viewer=faction)


def _zone_border(zone: NamedLine, kinds: dict[str, str | None]):
    """A sea zone's border with other water: the hex edges between its hexes and water hexes outside it.

    Edges against land are the coastline, which the hexes' colours already
    show: drawn as well, every coast would read as a zone border.
    """
    inside = set(zone.cells)
    edges = []
    for c in zone.cells:
        if c not in kinds:
            continue
        for n in h3.grid_ring(c, 1):
            if n in inside or kinds.get(n) in (None, "land"):
                continue
            edge = h3.cells_to_directed_edge(c, n)
            edges.append(shapely.LineString([(lng, lat) for lat, lng in h3.directed_edge_to_boundary(edge)]))
    return shapely.line_merge(shapely.MultiLineString(edges)) if edges else shapely.LineString()


def _army_points(scenario: Scenario, centres, *, navies: bool = False) -> list[dict]:
    """The counters of the land armies, or (``navies``) of the navies, drawn as hulls."""
    by_cell = defaultdict(list)
    for a in scenario.armies:
        if a.navy == navies:
            by_cell[a.cell].append(a)
    points = []
    r = 11
    for cell, stack in by_cell.items():
        lat, lng = centres[cell]
        # A stack sits side by side just below the hex centre: every counter stays readable and the
        # town, capital star and label at the centre stay visible.
        for k, a in enumerate(stack):
            # A counter showing strength is 34 px wide (a hull 38): spaced by the widest in the stack.
            width = max(34 if b.strength is not None else 2 * r for b in stack)
            dx = int((k - (len(stack) - 1) / 2) * (width + (10 if navies else 2)))
            rows = [["navy" if a.navy else "army", a.id], ["faction", a.faction], ["cell", a.cell],
                    ["strength", f"{a.strength} FP" if a.strength is not None else "hidden"]]
            if a.placed:
                rows.append(["status", "placed (campaign not started)"])
            if a.navy:
                zones = scenario.naval.zones_of.get(a.cell, ())
                rows += [["hex", a.hex_kind], ["sea zones", ", ".join(zones) or None],
                         ["ZoC", f"{len(scenario.naval.zoc.get(a.id, ()))} hexes"]]
                rows = [r for r in rows if r[1] is not None]
            points.append({"ll": [round(lat, 5), round(lng, 5)], "shape": "navy" if a.navy else "army",
                           "colour": scenario.colour(a.faction),
                           # A navy's hex holds no structure: its hull stands on the centre.
                           "r": r, "dx": dx, "dy": -r if navies else STAR_R + 1, "text": str(a.id),
                           **({"sub": str(a.strength)} if a.strength is not None else {}), "tip": rows})
    return points


def add_scenario_layers(m, con, hexes: HexTable, hex_layer: HexLayer, *, faction: str | None, precision: int,
                        db_path="database", situation: Situation | None = None,
                        names: dict[str, str] | None = None) -> tuple[list[LegendSection], str | None]:
    """Add the scenario layers to ``m``; returns the legend sections and the scenario's title.

    ``situation`` (:func:`web_maps.play_aids.load_situation`, unredacted) adds
    the play-aid layers of :mod:`web_maps.play_layers`, redacted here for a
    faction's view; ``names`` are the hexes' names for their tooltips.
    """
    scenario = load_scenario(con, hexes, db_path=db_path)
    if faction is not None:
        scenario = faction_view(scenario, faction)
        if situation is not None:
            situation = situation.for_faction(scenario.viewer)
    centres = hexes.centres()
    index = {c: i for i, c in enumerate(hexes.cell)}
    # Sea zones first, so roads, rivers and markers draw over their borders.
    zones = [z for z in scenario.sea_zones if z.geom is not None or z.cells]
    lines = _zone_layers(m, scenario, zones, hexes, centres, precision)
    lines += _river_and_road_layers(m, scenario, index, hex_layer, precision)
    navies = [(a.id, a.faction, a.cell) for a in scenario.armies if a.navy]
    naval_items = add_naval_layers(
        m, scenario.naval, colour=scenario.colour, factions=[f.name for f in scenario.factions], navies=navies,
        structures=scenario.structures, centres=centres, hex_index=index, hex_layer=hex_layer, precision=precision,
        ring_radius=_structure_radius)
    play_sections: list[LegendSection] = []
    if situation is not None:
        by_name = {x.name: x for x in scenario.structures}
        play_sections = add_play_layers(
            m, situation, colour=scenario.colour, factions=[f.name for f in scenario.factions],
            structures=scenario.structures, names=names or {}, centres=centres, hex_index=index, hex_layer=hex_layer,
            zones=zones, precision=precision,
            ring_radius=lambda name: _structure_radius(by_name[name]) if name in by_name else 5)
    if scenario.structures:
        m.add_child(PointLayer(_structure_points(scenario, centres), name="Towns and cities"))
    if any(not a.navy for a in scenario.armies):
        m.add_child(PointLayer(_army_points(scenario, centres), name="Armies"))
    if navies:
        m.add_child(PointLayer(_army_points(scenario, centres, navies=True), name="Navies"))
    return _legend(scenario, lines, navies, naval_items) + play_sections, scenario.title


def _zone_layers(m, scenario: Scenario, zones: list[NamedLine], hexes: HexTable, centres: dict,
                 precision: int) -> list[LegendItem]:
    """The sea zones' borders and names."""
    if not zones:
        return []
    kinds = dict(zip(hexes.cell, hexes.kind))
    outlines = [_zone_border(z, kinds) if z.cells else z.geom.boundary for z in zones]
    parts, owner = encode_lines(outlines, precision=precision)
    tips = [[("sea zone", z.name), ("hexes", len(z.cells) or None), *superiority_rows(scenario.naval, z.name)]
            for z in zones]
    m.add_child(LineLayer(parts, owner, tips, precision=precision, name="Sea zones", colour=ZONE_COLOUR,
                          weight=2.5, opacity=0.85, dash="6 4"))
    labels = []
    for z in zones:
        pts = [centres[c] for c in z.cells if c in centres]
        if pts:
            lat, lng = float(np.mean([p[0] for p in pts])), float(np.mean([p[1] for p in pts]))
        else:
            p = shapely.point_on_surface(z.geom)
            lat, lng = p.y, p.x
        labels.append({"ll": [round(lat, 5), round(lng, 5)], "shape": "none", "r": 0, "label": z.name,
                       "lc": "bellica-zone-label", "ldir": "center", "prio": 3})
    m.add_child(PointLayer(labels, name="Sea zone names"))
    return [LegendItem("sea zone border", ZONE_COLOUR, shape="line", count=len(zones))]


def _river_and_road_layers(m, scenario: Scenario, index: dict[str, int], hex_layer: HexLayer,
                           precision: int) -> list[LegendItem]:
    """The scenario's rivers (lines and, hidden at load, their hexes) and roads."""
    items = []
    rivers = [r for r in scenario.rivers if r.geom is not None]
    if rivers:
        parts, owner = encode_lines([r.geom for r in rivers], precision=precision)
        tips = [[("river", r.name), ("river hexes", len(r.cells) or None)] for r in rivers]
        m.add_child(LineLayer(parts, owner, tips, precision=precision, name="Rivers (scenario)",
                              colour=NAMED_RIVER_COLOUR, weight=3.0))
        items.append(LegendItem("river (scenario)", NAMED_RIVER_COLOUR, shape="line", count=len(rivers)))
    river_hexes = sorted({index[c] for r in scenario.rivers for c in r.cells if c in index})
    if river_hexes:
        m.add_child(HexOutlineLayer(hex_layer, river_hexes, name="River hexes (scenario)", colour=NAMED_RIVER_COLOUR,
                                    show=False, weight=2.0))
        items.append(LegendItem("river hex (scenario)", NAMED_RIVER_COLOUR, shape="outline", count=len(river_hexes)))
    if scenario.roads:
        parts, owner = encode_lines([r.geom for r in scenario.roads], precision=precision)
        tips = [[("road", r.name), ("hexes", len(r.cells) or None)] for r in scenario.roads]
        m.add_child(LineLayer(parts, owner, tips, precision=precision, name="Roads", colour=ROAD_COLOUR, weight=3.0))
        items.append(LegendItem("road", ROAD_COLOUR, shape="line", count=len(scenario.roads)))
    return items


def _structure_points(scenario: Scenario, centres: dict) -> list[dict]:
    """A marker per town and city in its controller's colour: a star for a capital."""
    points = []
    for s in scenario.structures:
        lat, lng = centres[s.cell]
        rows = [["name", s.name], ["modern", s.modern], ["kind", s.kind], ["cell", s.cell],
                ["controller", s.controller or "nobody"], ["capital", "yes" if s.capital else None],
                ["besieged by", scenario.besieged_by.get(s.name)]]
        if s.name in scenario.naval.blockades:
            rows.append(["blockaded by", blockade_text(scenario.naval.blockades[s.name])])
        city = (s.kind or "").lower() == "city"
        points.append({"ll": [round(lat, 5), round(lng, 5)], "shape": "star" if s.capital else "circle",
                       "colour": scenario.colour(s.controller), "r": _structure_radius(s),
                       "label": s.name, "lc": "bellica-label capital" if s.capital else "bellica-label",
                       "prio": 4 if s.capital else (2 if city else 1), "tip": rows})
    return points


def _legend(scenario: Scenario, lines: list[LegendItem], navies: list, naval_items: list[LegendItem]) -> list[LegendSection]:
    """The legend's sections of the scenario: factions, marks and lines, what is at sea, superiority."""
    counts = defaultdict(int)
    for s in scenario.structures:
        counts[s.controller] += 1
    factions = LegendSection("Factions", [
        LegendItem(f.name + (" (you)" if f.name == scenario.viewer else ""), f.colour, shape="dot",
                   count=counts.get(f.name, 0))
        for f in scenario.factions
    ] + ([LegendItem("uncontrolled", NEUTRAL, shape="dot", count=counts[None])] if counts.get(None) else []))
    marks = []
    if any(s.capital for s in scenario.structures):
        marks.append(LegendItem("capital", "#333333", shape="star"))
    if any((s.kind or "").lower() == "city" for s in scenario.structures):
        marks.append(LegendItem("city", "#333333", shape="dot"))
    if any((s.kind or "").lower() != "city" for s in scenario.structures):
        marks.append(LegendItem("town", "#333333", shape="smalldot"))
    land = sum(1 for a in scenario.armies if not a.navy)
    if land:
        marks.append(LegendItem("army (number; strength in FP where you may see it)", "#333333", shape="swatch",
                                count=land))
    at_sea = ([LegendItem("navy (army number)", "#333333", shape="hull", count=len(navies))] if navies else [])
    return [factions, LegendSection("Scenario", marks + lines), LegendSection("At sea", at_sea + naval_items),
            LegendSection("Naval superiority", superiority_legend(scenario.naval, ZONE_COLOUR))]


def _structure_radius(s: Structure) -> int:
    """A structure marker's radius in px: capitals' stars largest, then cities, then towns."""
    if s.capital:
        return STAR_R
    return 7 if (s.kind or "").lower() == "city" else 5


__all__ = ["ArmyMark", "Scenario", "add_scenario_layers", "faction_view", "load_scenario"]
