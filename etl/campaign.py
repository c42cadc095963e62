"""Create a campaign database from a scenario and a map (``bellica campaign new``).

Steps, all inside one temporary DuckDB file that replaces ``out`` only at the
end (an error or a kill leaves no half-written campaign; the work folder,
``.NAME.PID.tmpdir`` next to ``out``, is removed by the next run for the same
``out`` if a kill left it, see :mod:`etl.files`):

1. load and check the scenario files (:func:`etl.scenario.load_scenario`);
2. take the map: the file given with ``map_path`` (any map whose resolution is
   the scenario's and whose extent covers its bbox; a larger map is clipped to
   the bbox), or one built for the scenario region by ``etl.build.build_map``;
3. create the map and campaign tables and views of the one schema
   (``schema/*.sql``) and copy into them the map's ``hexes``, ``hex_neighbors``,
   ``map_rivers`` and ``map_meta`` for the hexes whose centre lies in the bbox;
4. check the scenario against the map and give everything its cells
   (:func:`etl.scenario.resolve_on_map`), apply terrain overrides and ocean
   marks to ``hexes`` and record them in ``terrain_overrides``;
5. route roads and rivers (:mod:`etl.roads`), fill the campaign tables,
   the placements and the notes, and install the structure views.
"""

from __future__ import annotations

import os
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from bellica.datasets.rules import rules_rows
from bellica.etl.files import check_out_dir, clear_leftovers, open_duckdb, refuse_overwrite, table_names, temp_path
from bellica.etl.structure_views import install_structure_views
from bellica.etl.roads import HexGraph, chain_wkt, river_cost, road_cost, route_chain
from bellica.etl.scenario import (
    MapCells,
    Note,
    Placement,
    ProvinceScenario,
    Resolved,
    Route,
    Scenario,
    Faction,
    Structure,
    Source,
    load_placements,
    load_scenario,
    nearest_land,
    resolve_on_map,
)
from bellica.geo.errors import InputError, first_line
from bellica.geo.hexgrid import cell_at, cells_in_bbox
from bellica.geo.logs import logger
from bellica.geo.spatialdb import connect
from bellica.geo.words import with_article
from bellica.schema import (
    CAMPAIGN,
    create_campaign_tables,
    create_database,
    create_map_tables,
    create_tables,
    existing_tables,
    read_factions,
    read_structures,
    table_columns,
)

log = logger(__name__)

__all__ = ["CampaignResult", "NodeCampaignResult", "ProvinceCampaignResult", "create_campaign", "create_node_campaign", "create_province_campaign", "open_campaign", "place_armies", "structure_summary", "write_placements"]



@dataclass
class CampaignResult:
    path: Path
    scenario: str
    seconds: float
    counts: dict[str, int]
    notes: list[Note] = field(default_factory=list)
    map_built: bool = False


def _bulk_insert(con, table: str, columns: list[str], rows: list[tuple], *, exprs: dict[str, str] | None = None) -> None:
    """Insert many rows at once through an Arrow table (executemany goes row by row and
    is most of a campaign's creation time otherwise); ``exprs`` wraps a column, e.g. WKT -> GEOMETRY."""
    if not rows:
        return
    import pyarrow as pa

    data = pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns)})
    exprs = exprs or {}
    # A column mapped to None only feeds another column's expression.
    select = ", ".join(e for c in columns if (e := exprs.get(c, f'"{c}"')) is not None)
    con.register("_bellica_rows", data)
    try:
        con.execute(f"INSERT INTO {table} SELECT {select} FROM _bellica_rows")
    finally:
        con.unregister("_bellica_rows")


# --------------------------------------------------------------------------- map copy


def _copy_columns(con, table: str) -> str:
    """The schema's columns of ``table`` as a select list over the attached map ``m`` (NULL for a column it lacks)."""
    have = {r[0] for r in con.execute(
        "SELECT lower(column_name) FROM information_schema.columns WHERE table_catalog = 'm' AND table_name = ?", [table]
    ).fetchall()}
    return ", ".join(c if c in have else f"NULL AS {c}" for c in table_columns(table))


def _from_map(con, map_path: Path, sql: str, params=None, *, name: str = "<inline>"):
    """Run a statement that reads the attached user map ``m``: a map that opens but cannot be read
    (truncated, damaged) is the user's input, so one InputError line naming it, not a query error."""
    try:
        return con.execute(sql, params) if params is not None else con.execute(sql)
    except duckdb.Error as e:
        log.debug("reading the map failed in %s: %s", name, e)
        first = first_line(e)
        raise InputError(f"map {map_path} cannot be read ({first}): rebuild it with `bellica map build` or omit --map") from None


def _copy_map(con: duckdb.DuckDBPyConnection, map_path: Path, scenario: Scenario) -> None:
    """Create the map tables and views of the schema and fill them with the map's hexes in the bbox."""
    west, south, east, north = scenario.bbox
    create_map_tables(con)
    try:
        con.execute(f"ATTACH '{str(map_path).replace(chr(39), chr(39) * 2)}' AS m (READ_ONLY)")
    except duckdb.Error as e:
        first = first_line(e)
        raise InputError(f"map {map_path} cannot be opened ({first}): pass a map written by `bellica map build` or omit --map") from None
    try:
        tables = existing_tables(con, catalog="m")
        missing = {"hexes", "hex_neighbors"} - tables
        if missing:
            raise InputError(f"map {map_path}: lacks table(s) {sorted(missing)}: pass a map written by `bellica map build`")
        resolutions = [r[0] for r in _from_map(con, map_path, "SELECT DISTINCT res FROM m.hexes").fetchall()]
        if resolutions != [scenario.resolution]:
            raise InputError(
                f"map {map_path}: resolution {resolutions} but scenario {scenario.name!r} needs {scenario.resolution}: "
                f"build the map with --res {scenario.resolution} or omit --map"
            )
        _from_map(
            con, map_path,
            f"INSERT INTO hexes SELECT {_copy_columns(con, 'hexes')} FROM m.hexes "
            "WHERE lat BETWEEN ? AND ? AND lng BETWEEN ? AND ? ORDER BY cell",
            [south, north, west, east],
            name="campaign.copy_hexes",
        )
        copied = con.execute("SELECT count(*) FROM hexes").fetchone()[0]
        expected = len(cells_in_bbox(scenario.bbox, scenario.resolution))
        # polygon_to_cells and the lat/lng filter differ only along the edges.
        if copied < 0.95 * expected:
            raise InputError(
                f"map {map_path}: covers {copied} of the {expected} hexes of scenario bbox {list(scenario.bbox)}: "
                "build a map over the scenario region or omit --map"
            )
        _from_map(
            con, map_path,
            f"INSERT INTO hex_neighbors SELECT {_copy_columns(con, 'hex_neighbors')} FROM m.hex_neighbors "
            "WHERE cell IN (SELECT cell FROM hexes) AND neighbor IN (SELECT cell FROM hexes) ORDER BY cell, clock",
            name="campaign.copy_neighbors",
        )
        if "map_rivers" in tables:
            _copy_rivers(con, map_path, scenario.bbox)
        if "map_meta" in tables:
            _from_map(con, map_path, "INSERT INTO map_meta SELECT key, value FROM m.map_meta", name="campaign.copy_meta")
    finally:
        con.execute("DETACH m")


def _copy_rivers(con, map_path: Path, bbox) -> None:
    """The map's river lines over ``bbox``, cut to the campaign's own hexes as `map build` cuts them
    to its map's (:func:`bellica.etl.rivers.clip_rivers`): past them a line describes no hex here."""
    import geopandas as gpd
    import shapely

    from bellica.etl.rivers import clip_rivers
    from bellica.geo.hexgrid import cells_outline

    west, south, east, north = bbox
    rows = _from_map(con, map_path, "SELECT river_id, length_km, ST_AsWKB(geom) FROM m.map_rivers "
                     "WHERE ST_Intersects(geom, ST_MakeEnvelope(?, ?, ?, ?)) ORDER BY river_id",
                     [west, south, east, north], name="campaign.copy_rivers").fetchall()
    if not rows:
        return
    rivers = gpd.GeoDataFrame({"river_id": [r[0] for r in rows], "length_km": [r[1] for r in rows]},
                              geometry=shapely.from_wkb([bytes(r[2]) for r in rows]), crs="EPSG:4326")
    cells = [r[0] for r in con.execute("SELECT cell FROM hexes").fetchall()]
    kept = clip_rivers(rivers, cells_outline(cells))
    _bulk_insert(con, "map_rivers", ["river_id", "length_km", "wkb"],
                 list(zip(kept["river_id"], kept["length_km"], shapely.to_wkb(kept.geometry.values))),
                 exprs={"wkb": "ST_GeomFromWKB(wkb)"})


# --------------------------------------------------------------------------- writing


def _apply_overrides(con, scenario: Scenario, resolved: Resolved, cells: MapCells) -> int:
    rows = []
    for cell, zone in sorted(resolved.ocean_cells.items()):
        reason = zone.note or f"outside every sea zone of {scenario.name}: impassable to ships"
        rows.append((cell, cells.kind[cell], None, "ocean", None, reason, str(zone.source)))
    final: dict[str, tuple] = {}
    for cell, o in resolved.override_cells:  # later overrides of one hex win, as in the file
        final[cell] = (cell, "land", cells.terrain.get(cell), "land", o.terrain, o.reason, str(o.source))
    rows += list(final.values())
    if rows:
        _bulk_insert(con, "terrain_overrides", ["cell", "kind_before", "terrain_before", "kind", "terrain", "reason", "source"], rows)
    con.execute(
        "UPDATE hexes SET kind = 'ocean', terrain = NULL FROM terrain_overrides AS o "
        "WHERE o.cell = hexes.cell AND o.kind = 'ocean'"
    )
    con.execute(
        "UPDATE hexes SET terrain = o.terrain FROM terrain_overrides AS o "
        "WHERE o.cell = hexes.cell AND o.kind = 'land'"
    )
    return len(rows)


def _waypoint_cells(route: Route, resolved: Resolved, cells: MapCells, scenario: Scenario, notes: list[Note], what: str) -> list[str]:
    out = []
    rings = int(scenario.routing["snap_rings"])
    for wp in route.waypoints:
        if wp.structure is not None:
            out.append(resolved.structure_cells[wp.structure])
            continue
        cell = cell_at(wp.lat, wp.lon, scenario.resolution)
        if cell not in cells.kind:
            raise InputError(f"{wp.source}: {what} {route.name!r} waypoint ({wp.lat}, {wp.lon}) is off the map: fix it or widen the bbox")
        target = nearest_land(cells, cell, wp.lat, wp.lon, rings=rings)
        if target is None:
            raise InputError(
                f"{wp.source}: {what} {route.name!r} waypoint ({wp.lat}, {wp.lon}) has no passable land hex within {rings} hexes: "
                "move it onto land"
            )
        if target != cell:
            notes.append(Note(what, route.name, f"waypoint ({wp.lat}, {wp.lon}) in {with_article(cells.kind[cell])}/{cells.terrain.get(cell)} hex moved to land hex {target}"))
        out.append(target)
    return out


def _route_all(con, scenario: Scenario, resolved: Resolved, notes: list[Note]) -> tuple[int, int]:
    graph = HexGraph.from_db(con)
    # Overrides (and ocean marks) are already in hexes, so the cells for snapping are read back from them.
    cells = MapCells(graph.kind, graph.terrain, {c: [n for n, _ in v] for c, v in graph.neighbors.items()}, graph.latlng)
    road_rows, cell_rows = [], []
    rcost = road_cost(scenario.routing)
    for road in scenario.roads:
        wps = _waypoint_cells(road, resolved, cells, scenario, notes, "road")
        chain = route_chain(graph, wps, rcost, name=f"{road.source} road {road.name!r}", labels=[w.label() for w in road.waypoints])
        road_rows.append((road.name, chain_wkt(graph, chain)))
        cell_rows += [(road.name, i, c) for i, c in enumerate(chain)]
    if road_rows:
        _bulk_insert(con, "roads", ["name", "wkt"], road_rows, exprs={"wkt": "ST_GeomFromText(wkt)"})
        _bulk_insert(con, "road_cells", ["road", "seq", "cell"], cell_rows)
    river_rows, rcell_rows = [], []
    vcost = river_cost(scenario.routing)
    for river in scenario.rivers:
        wps = _waypoint_cells(river, resolved, cells, scenario, notes, "river")
        chain = route_chain(graph, wps, vcost, name=f"{river.source} river {river.name!r}", labels=[w.label() for w in river.waypoints])
        river_rows.append((river.name, chain_wkt(graph, chain)))
        rcell_rows += [(river.name, c) for c in dict.fromkeys(chain)]
    if river_rows:
        _bulk_insert(con, "rivers", ["name", "wkt"], river_rows, exprs={"wkt": "ST_GeomFromText(wkt)"})
        _bulk_insert(con, "river_cells", ["river", "cell"], rcell_rows)
    return len(cell_rows), len(rcell_rows)


def _write_scenario_tables(con, scenario: Scenario, resolved: Resolved) -> None:
    _bulk_insert(
        con,
        "factions",
        ["name", "colour", "army_list", "player", "capitals", "influence_multiplier", "first_army", "last_army"],
        [
            (f.name, f.colour, f.army_list, f.player, list(f.capitals), f.influence_multiplier, f.first_army, f.last_army)
            for f in scenario.factions
        ],
    )
    # geom is the real place (lon/lat); cell is the hex the rules use, which for
    # a place on the shore is the nearest land hex (see scenario_notes).
    _bulk_insert(
        con,
        "structures",
        ["name", "modern", "kind", "cell", "controller", "capital", "lon", "lat"],
        [
            (s.name, s.modern, s.kind, resolved.structure_cells[s.name], s.controller, s.capital, s.lon, s.lat)
            for s in scenario.structures
        ],
        exprs={"lon": "ST_Point(lon, lat)", "lat": None},
    )
    zones = [z for z in scenario.sea_zones if not z.ocean]
    if zones:
        _bulk_insert(con, "sea_zones", ["name", "wkt"], [(z.name, z.geom.wkt) for z in zones], exprs={"wkt": "ST_GeomFromText(wkt)"})
        ocean = set(resolved.ocean_cells)
        rows = [(c, zone) for zone, cs in resolved.zone_cells.items() for c in cs if c not in ocean]
        if rows:
            _bulk_insert(con, "hex_sea_zones", ["cell", "zone"], sorted(rows))


def _meta_rows(scenario: Scenario, extra: dict) -> list[tuple[str, str]]:
    rows = {
        "name": scenario.name,
        "title": scenario.title,
        "source": str(scenario.directory),
        "bbox": ",".join(str(v) for v in scenario.bbox),
        "resolution": str(scenario.resolution),
        "start_fp": str(scenario.start_fp),
        "armies_per_faction": str(scenario.armies_per_faction),
    }
    for k, v in scenario.meta.items():
        rows.setdefault(str(k), str(v))
    rows["ruleset"] = scenario.ruleset  # the values themselves are in the `rules` table
    rows.update({k: str(v) for k, v in extra.items()})
    return sorted(rows.items())


def write_placements(con, placements: list[Placement] | None) -> int:
    """(Re)write the ``placements`` table; structures must already be in ``con``."""
    create_tables(con, CAMPAIGN, ["placements"], replace=True)
    if not placements:
        return 0
    cells = dict(con.execute("SELECT name, cell FROM structures").fetchall())
    _bulk_insert(
        con,
        "placements",
        ["army", "faction", "structure", "cell"],
        [(p.army, p.faction, p.structure, cells[p.structure]) for p in sorted(placements, key=lambda p: p.army)],
    )
    return len(placements)


def _write_rules(con, scenario: Scenario) -> None:
    """Freeze the scenario's merged rules (the ruleset file with its [rules] over it) in the
    campaign: ``rules(key, value)``, one row per dotted key, the value as JSON.  The engine
    and the SQL views read only this table, so a package upgrade never changes a running
    campaign's rules."""
    con.executemany("INSERT INTO rules VALUES (?, ?)", rules_rows(scenario.merged_rules))


# --------------------------------------------------------------------------- entry points


def _check_map_file(map_path: Path) -> None:
    """One-line errors for a --map that is missing, not a DuckDB file, in use, or not a map."""
    fix = "pass a map written by `bellica map build` or omit --map"
    con = open_duckdb(map_path, what="map", fix=fix)
    try:
        missing = {"hexes", "hex_neighbors"} - table_names(con, "map", map_path)
    finally:
        con.close()
    if missing:
        raise InputError(f"map {map_path}: lacks table(s) {sorted(missing)}: {fix}")


def open_campaign(campaign: str | Path, *, needs: tuple[str, ...] = ("factions", "structures"), read_only: bool = True):
    """Open a campaign database for the designer's commands; one-line errors for a file that is
    missing, not a DuckDB database, in use, or without the ``needs`` tables (a map file)."""

    campaign = Path(campaign)
    fix = "pass a campaign made by `bellica campaign new`"
    con = open_duckdb(campaign, what="campaign", fix=fix)
    if not read_only:
        con.close()
        try:
            con = connect(campaign)
        except duckdb.Error as e:
            first = first_line(e)
            raise InputError(f"campaign {campaign} cannot be opened for writing ({first}): "
                             "try again once other commands on it have finished") from None
    try:
        tables = table_names(con, "campaign", campaign)
    except BaseException:
        con.close()
        raise
    missing = [t for t in needs if t not in tables]
    if missing:
        con.close()
        what = "a map, not a campaign" if "hexes" in tables else "not a campaign"
        raise InputError(f"{campaign} has no {'/'.join(missing)} table{'s' if len(missing) > 1 else ''}, so it is {what}: {fix}")
    return con


@contextmanager
def _new_campaign_file(out: Path, scenario, map_path, *, force: bool):
    """The campaign being written, as ``(con, map_path, built)``: ``map_path`` checked (or, None,
    a map built for the scenario's bbox and resolution: ``built``), a fresh database in a
    temporary folder beside ``out`` that replaces ``out`` only when the block ends without an
    error (checkpointed, and ``out`` checked once more in case it appeared meanwhile); the
    folder is removed whatever happens, so a failed run leaves nothing half-written."""
    if map_path is not None:
        map_path = Path(map_path)
        _check_map_file(map_path)
    check_out_dir(out)
    clear_leftovers(out, command="bellica campaign new")
    workdir = temp_path(out, "tmpdir")
    workdir.mkdir()
    tmp = workdir / out.name
    try:
        built = map_path is None
        if built:
            from bellica.etl.build import build_map  # the map ETL; imported late so a --map run needs none of it

            map_path = workdir / "map.duckdb"
            log.info("building the %s map for %s", scenario.resolution, scenario.name)
            # Its progress bars only on a terminal: in a script or a log they are noise (and `-q` asks for one line).
            build_map(map_path, bbox=scenario.bbox, res=scenario.resolution)  # a bar on a terminal only (geo/progress.py)
        con = create_database(tmp)
        try:
            yield con, map_path, built
            con.execute("CHECKPOINT")
        finally:
            con.close()
        refuse_overwrite(out, force=force, what="campaign", protect_campaign=False)  # appeared meanwhile?
        os.replace(tmp, out)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def create_campaign(
    scenario_ref: str | Path,
    out: str | Path,
    *,
    map_path: str | Path | None = None,
    placements: str | Path | None = None,
    force: bool = False,
) -> CampaignResult:
    """Write a new campaign database for a scenario (see the module doc); returns what was written."""
    t0 = time.perf_counter()
    out = Path(out)
    # A campaign may replace a campaign, with --force; refuse_overwrite also refuses a file in use.
    refuse_overwrite(out, force=force, what="campaign", protect_campaign=False)
    scenario = load_scenario(scenario_ref, placements=placements)
    if isinstance(scenario, ProvinceScenario):
        raise InputError(f"scenario {scenario.name!r} is a province scenario (ruleset {scenario.ruleset}): "
                         "make its campaign with `bellica campaign new` (create_province_campaign)")
    with _new_campaign_file(out, scenario, map_path, force=force) as (con, map_path, built):
        _copy_map(con, map_path, scenario)
        create_campaign_tables(con)
        cells = MapCells.from_db(con)
        resolved = resolve_on_map(scenario, cells)
        notes = list(resolved.notes)
        n_over = _apply_overrides(con, scenario, resolved, cells)
        _write_scenario_tables(con, scenario, resolved)
        n_road, n_river = _route_all(con, scenario, resolved, notes)
        n_place = write_placements(con, scenario.placements)
        _write_rules(con, scenario)
        install_structure_views(con)
        if notes:
            _bulk_insert(con, "scenario_notes", ["topic", "subject", "message"], [(n.topic, n.subject, n.message) for n in notes])
        seconds = time.perf_counter() - t0
        counts = {
            "hexes": con.execute("SELECT count(*) FROM hexes").fetchone()[0],
            "structures": len(scenario.structures),
            "roads": len(scenario.roads),
            "road_cells": n_road,
            "rivers": len(scenario.rivers),
            "river_cells": n_river,
            "sea_zones": len([z for z in scenario.sea_zones if not z.ocean]),
            "hex_sea_zones": con.execute("SELECT count(*) FROM hex_sea_zones").fetchone()[0],
            "overrides": n_over - len(resolved.ocean_cells),
            "ocean_hexes": len(resolved.ocean_cells),
            "placements": n_place,
        }
        _bulk_insert(
            con,
            "scenario_meta",
            ["key", "value"],
            _meta_rows(
                scenario,
                {
                    "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "created_seconds": f"{seconds:.2f}",
                    "map": "built for the scenario" if built else str(map_path),
                },
            ),
        )
    return CampaignResult(out, scenario.name, time.perf_counter() - t0, counts, notes, built)


class _Roster:
    """The factions and structures of an existing campaign, for validating placements."""

    def __init__(self, con):
        self.factions = [
            Faction(f.name, f.colour, f.army_list, f.player, f.capitals, f.influence_multiplier, f.first_army,
                    f.last_army, Source("factions"))
            for f in read_factions(con)
        ]
        self._structures = {
            s.name: Structure(s.name, s.modern, s.kind, 0.0, 0.0, s.controller, bool(s.capital), Source("structures"))
            for s in read_structures(con)
        }

    def faction(self, name):
        return next((f for f in self.factions if f.name == name), None)

    def structure(self, name):
        return self._structures.get(name)


def place_armies(campaign: str | Path, placements: str | Path) -> int:
    """Validate a placements file against a campaign's factions and structures and store it."""
    campaign = Path(campaign)
    con = open_campaign(campaign, read_only=False)
    try:
        tables = existing_tables(con)
        # Placement is the scenario's starting position: once the umpire has started
        # the campaign (an event log exists), moving armies goes through the engine.
        if "events" in tables and con.execute("SELECT count(*) FROM events").fetchone()[0] > 0:
            raise InputError(
                f"campaign {campaign}: has already started (its event log is not empty): "
                "placements can only change before `bellica round start`"
            )
        roster = _Roster(con)
        rows = load_placements(placements, roster)
        con.execute("BEGIN")
        n = write_placements(con, rows)
        con.execute("COMMIT")
        return n
    finally:
        con.close()


def structure_summary(con) -> list[tuple]:
    """(structure, kind, controller, terrain, coast, resilience) rows, for the CLI
    (``con`` from :func:`open_campaign` with ``needs=("structure_resilience",)``)."""
    return con.execute(
        "SELECT structure, kind, coalesce(controller, '-'), terrain, adjacent_to_coast, resilience "
        "FROM structure_resilience ORDER BY controller NULLS LAST, structure"
    ).fetchall()



# --------------------------------------------------------------------------- province campaigns


@dataclass
class ProvinceCampaignResult:
    path: Path
    scenario: str
    ruleset: str
    seconds: float
    counts: dict[str, int]
    notes: list[str] = field(default_factory=list)
    map_built: bool = False
    provinces_from: str = "built"  # "built" from the capitals, or "map" (copied from the map's province tables)


def _province_spec(scenario: ProvinceScenario):
    from bellica.etl.provinces import scenario_spec

    return scenario_spec(scenario.directory / "provinces.toml")  # capitals, towns, barriers, exceptions, reach


def _scenario_seas(m, scenario: ProvinceScenario) -> tuple[list[dict], list[tuple[str, str]]]:
    """The sea quadrants of the scenario's ``seas.toml`` (``[[sea]]`` with ``bounds`` = [west, south,
    east, north] and a point ``lon``/``lat``) as sea areas: each navigable water hex (coast, sea; the
    ocean is impassable to ships) goes to the quadrant whose bounds hold its centre, the nearest
    point's quadrant where several or none do (the rule seas.toml states).  None: no seas.toml."""
    import tomllib

    import numpy as np

    from bellica.etl.provinces import _dissolve

    path = scenario.directory / "seas.toml"
    if not path.is_file():
        return [], []
    seas = [s for s in tomllib.loads(path.read_text()).get("sea", []) if len(s.get("bounds") or ()) == 4]
    water = np.flatnonzero(np.isin(m.kind, ["coast", "sea"]))
    if not seas or not len(water):
        return [], []
    lng, lat = m.lng[water, None], m.lat[water, None]
    box = np.array([s["bounds"] for s in seas], dtype=float)
    inside = (lng >= box[:, 0]) & (lat >= box[:, 1]) & (lng <= box[:, 2]) & (lat <= box[:, 3])
    pts = np.array([(s["lon"], s["lat"]) for s in seas], dtype=float)
    dist = ((lng - pts[:, 0]) * np.cos(np.radians(lat))) ** 2 + (lat - pts[:, 1]) ** 2
    dist = np.where(inside | ~inside.any(axis=1, keepdims=True), dist, np.inf)
    owner = dist.argmin(axis=1)
    rows, cells = [], []
    for i, s in enumerate(seas):
        mine = m.cells[water[owner == i]].tolist()
        if mine:
            rows.append({"name": str(s["name"]), "hex_count": len(mine), "geom": _dissolve(mine)})
            cells.extend((str(s["name"]), c) for c in mine)
    return rows, cells


def _provinces(con, map_path: Path, scenario: ProvinceScenario, notes: list[str]) -> str:
    """The campaign's province tables: the map's own when it has them for exactly the scenario's
    provinces, else built here from the scenario's capitals (least-cost allocation on the copied hexes)."""
    from bellica.etl.provinces import PROVINCE_TABLES, MapHexes, compute_provinces, write_provinces
    from bellica.schema import PROVINCE_VIEWS, PROVINCES, run_schema

    wanted = sorted(name for name, _lon, _lat in scenario.capitals)
    con.execute(f"ATTACH '{str(map_path).replace(chr(39), chr(39) * 2)}' AS m (READ_ONLY)")
    try:
        tables = existing_tables(con, catalog="m")
        if set(PROVINCE_TABLES) <= tables:
            names = sorted(r[0] for r in _from_map(con, map_path, "SELECT name FROM m.provinces").fetchall())
            if names == wanted:
                run_schema(con, PROVINCES)
                for table in PROVINCE_TABLES:
                    _from_map(con, map_path, f"INSERT INTO {table} BY NAME SELECT * FROM m.{table}",
                              name=f"campaign.copy_{table}")
                run_schema(con, PROVINCE_VIEWS)
                return "map"
            notes.append(f"the map's provinces ({len(names)}) are not the scenario's {len(wanted)}: built from the capitals instead")
    finally:
        con.execute("DETACH m")
    hexes = MapHexes.read(con, what=f"map {map_path}")
    result = compute_provinces(hexes, _province_spec(scenario))
    result.seas, result.sea_cells = _scenario_seas(hexes, scenario)
    notes.extend(result.notes)
    write_provinces(con, result)
    return "built"


def _write_designed_meta(con, scenario, t0: float, built: bool, map_path, own: dict[str, str]) -> None:
    """``scenario_meta`` of a province or node campaign: the scenario file's own single values, then
    what every such campaign records (over them), then ``own``, the kind's keys (its source file...)."""
    create_tables(con, CAMPAIGN, ["scenario_meta"])
    meta = {str(k): str(v) for k, v in scenario.meta.items() if not isinstance(v, (list, dict))}
    meta.update({"name": scenario.name, "title": scenario.title, "ruleset": scenario.ruleset,
                 "bbox": ",".join(str(v) for v in scenario.bbox), "resolution": str(scenario.resolution),
                 "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "created_seconds": f"{time.perf_counter() - t0:.2f}",
                 "map": "built for the scenario" if built else str(map_path)})
    meta.update(own)
    _bulk_insert(con, "scenario_meta", ["key", "value"], sorted(meta.items()))


def _counts(con, tables: dict[str, str]) -> dict[str, int]:
    """The rows of each table, by the name the result gives it (the tables are the module's own)."""
    return {label: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for label, table in tables.items()}


def create_province_campaign(scenario: ProvinceScenario, out: str | Path, *, fill, map_path: str | Path | None = None,
                             force: bool = False) -> ProvinceCampaignResult:
    """Write a new campaign database for a province scenario (Rise of Rome).

    Like :func:`create_campaign` (one temporary file replacing ``out`` at the end): the map
    (``map_path``, or one built for the scenario's bbox and resolution) is copied for the bbox,
    the provinces come from the map's province tables or are built from the scenario's capitals
    (:mod:`etl.provinces`), then ``fill(con)`` (the ruleset's writer of its scenario tables and
    rules, given by the caller: the ETL imports no ruleset) and ``scenario_meta``.
    """
    t0 = time.perf_counter()
    out = Path(out)
    refuse_overwrite(out, force=force, what="campaign", protect_campaign=False)
    notes: list[str] = []
    with _new_campaign_file(out, scenario, map_path, force=force) as (con, map_path, built):
        _copy_map(con, map_path, scenario)
        source = _provinces(con, map_path, scenario, notes)
        fill(con)
        _write_designed_meta(con, scenario, t0, built, map_path, {"source": str(scenario.directory), "provinces": source})
        counts = _counts(con, {"hexes": "hexes", "provinces": "provinces", "province_hexes": "province_cells"})
    return ProvinceCampaignResult(out, scenario.name, scenario.ruleset, time.perf_counter() - t0, counts, notes,
                                  built, source)


# --------------------------------------------------------------------------- node campaigns


@dataclass
class NodeCampaignResult:
    path: Path
    scenario: str
    ruleset: str
    seconds: float
    counts: dict[str, int]
    notes: list[str] = field(default_factory=list)
    map_built: bool = False


def create_node_campaign(scenario, out: str | Path, *, fill, map_path: str | Path | None = None,
                         force: bool = False) -> NodeCampaignResult:
    """Write a new campaign database for a node scenario (Magna Graecia: :class:`~etl.scenario.NodeScenario`).

    Like :func:`create_province_campaign` (one temporary file replacing ``out`` at the end): the map
    (``map_path``, or one built for the scenario's bbox and resolution) is copied for the bbox, the
    node tables are built from the scenario's node file for its year on that copy (places placed,
    paths routed: :mod:`etl.nodes`, with their views and macros), then ``fill(con)`` (the ruleset's
    writer of its scenario tables and rules, given by the caller: the ETL imports no ruleset) and
    ``scenario_meta``.
    """
    from bellica.etl.nodes import _map_res, compute_nodes, load_node_file, write_nodes
    from bellica.etl.roads import HexGraph

    t0 = time.perf_counter()
    out = Path(out)
    refuse_overwrite(out, force=force, what="campaign", protect_campaign=False)
    spec = load_node_file(scenario.nodes)  # checked before any map is built
    with _new_campaign_file(out, scenario, map_path, force=force) as (con, map_path, built):
        _copy_map(con, map_path, scenario)
        g = HexGraph.from_db(con)
        result = compute_nodes(g, _map_res(con, g.kind), spec, year=scenario.year)
        write_nodes(con, result)
        fill(con)
        _write_designed_meta(con, scenario, t0, built, map_path, {
            "source": str(scenario.path), "nodes": str(scenario.nodes), "year": str(scenario.year)})
        counts = _counts(con, {"hexes": "hexes", "nodes": "nodes", "paths": "node_paths"})
    return NodeCampaignResult(out, scenario.name, scenario.ruleset, time.perf_counter() - t0, counts,
                              list(result.notes), built)
