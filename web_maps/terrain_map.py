"""The terrain map: every hex coloured by terrain (land) or kind (water), rivers, legend; offline HTML.

Reads the map tables of docs/architecture.md (``hexes``, ``map_rivers``,
``map_meta``) from a map or campaign database.  When the database is a Vae
Victis II campaign, the scenario layers of :mod:`web_maps.scenario_layers` are
drawn on top (structures, roads, named rivers, sea zones, armies); a campaign
of another ruleset is drawn from the player view its ruleset gives
(:mod:`web_maps.feature_layers`, passed in by ``bellica.services.maps``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import h3
import numpy as np
import shapely
from folium import LayerControl

from bellica.datasets.rules import canonical_faction
from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.hexgrid import cell_polygon
from bellica.geo.logs import logger
from bellica.geo.recent import Recent
from bellica.geo.spatialdb import connect, foreign_database, remember_catalog
from bellica.schema import existing_columns, existing_tables
from bellica.schema.view import PlayerView
from bellica.web_maps.assets import OfflineMap, check_output, write_html
from bellica.web_maps.encode import check_precision, encode_lines, encode_rings
from bellica.web_maps.layers import (Column, FitView, HexLayer, HexOutlineLayer, Legend, LegendItem, LegendSection,
                                    LineLayer, PanelToggle, StatusPanel, Title)
from bellica.web_maps.play_aids import HexFacts, load_hex_facts, load_situation
from bellica.web_maps.play_layers import panel_rows

log = logger(__name__)

# Land hexes by terrain, light (easy going) to dark/brown (hard going); peaks
# near white like snow.  Water by kind, pale (coast) to dark (ocean), with
# lakes a brighter blue so they do not read as sea.
TERRAIN_COLOURS = {
    "farmlands": "#dfe9a4",
    "desert": "#efd89a",
    "hills": "#c9a66b",
    "marshes": "#6f9b83",
    "forests": "#2f6e38",
    "mountains": "#8a5a34",
    "peaks": "#ececec",
}
KIND_COLOURS = {
    "coast": "#a9d5f0",
    "sea": "#4b8fcc",
    "ocean": "#1d3b6b",
    "lake": "#18a4f2",
}
UNCLASSIFIED_LAND = "#b5b5b5"  # land hex without (or with an unknown) terrain
UNKNOWN_KIND = "#ff00ff"  # loud on purpose: a kind the schema does not define is a build bug
RIVER_COLOUR = "#1565c0"
ROAD_LEGEND = "#7a4a22"  # the roads' colour of web_maps.scenario_layers

HEX_COLUMNS = ("cell", "kind", "terrain", "elev_mean", "elev_min", "elev_max", "elev_std", "elev_samples",
               "land_fraction", "river")


def open_map_db(db_path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open a map or campaign database read-only; one-line errors for a missing or foreign file."""
    path = Path(db_path)
    if not path.is_file():
        raise MissingInputError(f"map database {path} does not exist: build one with `bellica map build --out {path}`")
    try:
        con = connect(path, read_only=True)
    except duckdb.Error as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "lock" in first.lower():
            raise InputError(f"{path} is open for writing by another process ({first}): "
                             "render it once that command has finished") from e
        why = foreign_database(path) or first
        raise InputError(f"{path} is not a readable DuckDB database ({why}): pass a file written by `bellica map build`") from e
    # Read-only, so its catalog cannot change: remembered (drawing a map asks which columns a table
    # has two dozen times; each a DuckDB catalog query of 1-3 ms).
    remember_catalog(con)
    try:
        require_hexes(con, path)
    except InputError:
        con.close()
        raise
    return con


def require_hexes(con: duckdb.DuckDBPyConnection, path: str | Path) -> None:
    """An :class:`InputError` naming ``path`` unless the database open on ``con`` has a hexes table."""
    if "hexes" not in existing_tables(con):
        raise InputError(f"{path} has no hexes table, so it is not a map database: pass a file written by `bellica map build`")


# The campaign tables (schema/campaign.sql) that make a map database a campaign.
CAMPAIGN_TABLES = ("factions", "structures")


def is_campaign(con: duckdb.DuckDBPyConnection) -> bool:
    """True when the database holds a scenario on top of the map tables."""
    return set(CAMPAIGN_TABLES) <= existing_tables(con)


def require_columns(con: duckdb.DuckDBPyConnection, table: str, needed: tuple[str, ...], db_path) -> list[str]:
    have = existing_columns(con, table)
    missing = [c for c in needed if c not in have]
    if missing:
        raise InputError(
            f"table {table} in {db_path} lacks column(s) {', '.join(missing)}: rebuild it with the current bellica"
        )
    return have


def wkb_geometries(values) -> np.ndarray:
    """shapely geometries from DuckDB ``ST_AsWKB`` values (None stays None)."""
    return shapely.from_wkb(np.array([bytes(v) if v is not None else None for v in values], dtype=object))


@dataclass
class HexTable:
    """The ``hexes`` rows the maps draw, in cell order."""

    cell: list[str]
    kind: list[str | None]
    terrain: list[str | None]
    elev_mean: np.ndarray
    elev_min: np.ndarray
    elev_max: np.ndarray
    elev_std: np.ndarray
    elev_samples: np.ndarray
    land_fraction: np.ndarray
    river: list[bool]
    geom: np.ndarray  # shapely polygons, lon/lat
    res: int | None
    #: What the rows hold (:func:`hexes_fingerprint`), when read through :func:`drawn_hexes`: the
    #: table is then shared by the pages drawn from the same hexes, and never changed.
    key: tuple | None = None

    def __len__(self) -> int:
        return len(self.cell)

    def category(self, i: int) -> str:
        """What a hex is coloured by: its terrain on land, its kind elsewhere."""
        if self.kind[i] == "land":
            return self.terrain[i] if self.terrain[i] in TERRAIN_COLOURS else "land (unclassified)"
        return self.kind[i] if self.kind[i] in KIND_COLOURS else f"{self.kind[i]} (unknown kind)"

    def centres(self) -> dict[str, tuple[float, float]]:
        """cell -> (lat, lng) of its centre, for the markers of the scenario layers."""
        pts = shapely.centroid(self.geom)
        return {c: (float(y), float(x)) for c, x, y in zip(self.cell, shapely.get_x(pts), shapely.get_y(pts))}


#: The hexes of the maps drawn lately, and their terrain layers, by what the hexes hold: every viewer
#: and every step of a campaign draws the same terrain (a Mare Nostrum page spent half its time
#: reading and packing its 7,770 hexes).  Keyed by content, not by file: the app draws each page
#: from a fresh copy of its campaign, and a file can be rebuilt under the same name.
_HEXES, _TERRAIN_LAYERS = Recent(4), Recent(8)


def hexes_fingerprint(con: duckdb.DuckDBPyConnection, have: list[str]) -> tuple:
    """What the ``hexes`` rows hold, as far as the map draws them: their count and the XOR of the
    hashes of every row's drawn columns (``have``: the table's columns; 1-2 ms for 8,000 hexes)."""
    columns = [c for c in (*HEX_COLUMNS, "res", "geom") if c in have]
    return con.execute(f"SELECT count(*), bit_xor(hash({', '.join(columns)})) FROM hexes").fetchone()


def drawn_hexes(con: duckdb.DuckDBPyConnection, *, db_path="database") -> HexTable:
    """:func:`load_hexes`, shared with the pages drawn lately from the same hexes (:data:`_HEXES`)."""
    key = hexes_fingerprint(con, require_columns(con, "hexes", ("cell", "kind", "geom"), db_path))
    hexes = _HEXES.get(key)
    if hexes is None:
        hexes = load_hexes(con, db_path=db_path)
        hexes.key = key
        _HEXES.put(key, hexes)
    return hexes


def load_hexes(con: duckdb.DuckDBPyConnection, *, db_path="database") -> HexTable:
    have = require_columns(con, "hexes", ("cell", "kind", "geom"), db_path)
    # Optional statistics may be absent from older or hand-made tables: shown as blanks then.
    select = ", ".join(c if c in have else f"NULL AS {c}" for c in HEX_COLUMNS)
    res_sql = "res" if "res" in have else "NULL AS res"
    rows = con.execute(
        f"SELECT {select}, {res_sql}, ST_AsWKB(geom) AS wkb FROM hexes ORDER BY cell"
    ).fetchall()
    if not rows:
        raise InputError(f"the hexes table in {db_path} is empty: rebuild the map with `bellica map build`")
    cols = list(zip(*rows))
    cells = list(cols[0])
    geoms = wkb_geometries(cols[-1])
    missing = [i for i, g in enumerate(geoms) if g is None or g.is_empty]
    for i in missing:  # the hexagon is a function of the cell: rebuild rather than drop it
        geoms[i] = cell_polygon(cells[i])
    if missing:
        log.warning("%d hexes have no geom; drew their H3 boundaries", len(missing))

    def num(j):
        return np.array([np.nan if v is None else float(v) for v in cols[j]], dtype=float)

    res_values = {r for r in cols[len(HEX_COLUMNS)] if r is not None}
    res = int(next(iter(res_values))) if len(res_values) == 1 else None
    if res is None:
        try:
            res = h3.get_resolution(cells[0])
        except (h3.H3BaseException, TypeError):
            res = None
    return HexTable(
        cell=cells, kind=list(cols[1]), terrain=list(cols[2]),
        elev_mean=num(3), elev_min=num(4), elev_max=num(5), elev_std=num(6), elev_samples=num(7),
        land_fraction=num(8), river=[bool(v) for v in cols[9]], geom=geoms, res=res,
    )


def _rounded(values: np.ndarray, digits: int) -> list:
    """Numbers for the tooltip: rounded, NaN as null, whole numbers as ints (shorter JSON)."""
    out = []
    for v in values.tolist():
        if v != v:  # NaN
            out.append(None)
        elif digits == 0:
            out.append(int(round(v)))
        else:
            out.append(round(v, digits))
    return out


def hex_layer(hexes: HexTable, *, precision: int, name: str = "Terrain",
              facts: HexFacts | None = None) -> tuple[HexLayer, list[tuple[str, int]]]:
    """The hex layer and the (category, count) list for the legend, in palette order.

    Without ``facts`` (a map file, or the terrain under a ruleset's player view) the tooltip shows
    the build's statistics, and the packed layer is shared with the pages drawn lately from the
    same hexes (:data:`_TERRAIN_LAYERS`); with them (a campaign) it shows play information only:
    the hex's name, cell, terrain, MP to enter off-road, structure, road, river, sea zones, and
    the table of its sides (neighbour, terrain, MP) with the clock rose.
    """
    key = (hexes.key, precision) if facts is None and hexes.key is not None else None
    done = _TERRAIN_LAYERS.get(key) if key is not None else None
    if done is None:
        done = _packed_hexes(hexes, precision=precision, facts=facts)
        if key is not None:
            _TERRAIN_LAYERS.put(key, done)
    return HexLayer(done[0], name=name), done[1]


def _hex_colour(category: str) -> str:
    if category in TERRAIN_COLOURS:
        return TERRAIN_COLOURS[category]
    if category in KIND_COLOURS:
        return KIND_COLOURS[category]
    return UNCLASSIFIED_LAND if category == "land (unclassified)" else UNKNOWN_KIND


def _packed_hexes(hexes: HexTable, *, precision: int, facts: HexFacts | None) -> tuple[str, list[tuple[str, int, str]]]:
    """The hex layer's data (:meth:`HexLayer.pack`) and the legend's (category, count, colour)."""
    categories = [hexes.category(i) for i in range(len(hexes))]
    order = list(TERRAIN_COLOURS) + ["land (unclassified)"] + list(KIND_COLOURS)
    present = sorted(set(categories), key=lambda c: (order.index(c) if c in order else len(order), c))
    index = {c: k for k, c in enumerate(present)}
    kinds = sorted({k for k in hexes.kind if k is not None})
    terrains = sorted({t for t in hexes.terrain if t is not None})
    kind_ix, terrain_ix = {k: i for i, k in enumerate(kinds)}, {t: i for i, t in enumerate(terrains)}
    kind = Column("kind", [kind_ix.get(k) for k in hexes.kind], lookup=kinds)
    terrain = Column("terrain", [terrain_ix.get(t) for t in hexes.terrain], lookup=terrains)
    if facts is not None:
        columns = [
            Column("name", facts.names),
            Column("cell", hexes.cell),
            kind,
            terrain,
            Column("MP to enter", [facts.entry_mp.get(c) for c in hexes.cell] if facts.rules is not None
                   else [None] * len(hexes), suffix=" (off-road)"),
            Column("structure", facts.structure),
            Column("road", facts.road),
            Column("river", facts.river),
            Column("sea zone", facts.zones),
        ]
    else:
        land_pct = [None if v is None else int(round(v * 100)) for v in _rounded(hexes.land_fraction, 4)]
        columns = [
            Column("cell", hexes.cell),
            kind,
            terrain,
            Column("elev mean", _rounded(hexes.elev_mean, 0), suffix=" m"),
            Column("elev min", _rounded(hexes.elev_min, 0), suffix=" m"),
            Column("elev max", _rounded(hexes.elev_max, 0), suffix=" m"),
            Column("elev std", _rounded(hexes.elev_std, 1), suffix=" m"),
            Column("samples", _rounded(hexes.elev_samples, 0)),
            Column("land", land_pct, suffix=" %"),
            Column("river", [1 if r else 0 for r in hexes.river], lookup=["no", "yes"]),
        ]
    packed = HexLayer.pack(encode_rings(hexes.geom, precision=precision), [index[c] for c in categories],
                           [_hex_colour(c) for c in present], columns, precision=precision,
                           sides=facts.sides if facts is not None else None,
                           side_note=facts.note if facts is not None else "")
    counts = dict.fromkeys(present, 0)
    for c in categories:
        counts[c] += 1
    return packed, [(c, counts[c], _hex_colour(c)) for c in present]


def map_river_layer(con, *, precision: int, tolerance: float, db_path, name: str = "Rivers", show: bool = True,
                    bounds: tuple[float, float, float, float] | None = None) -> tuple[LineLayer | None, int]:
    """The ``map_rivers`` lines (clipped to ``bounds`` = west, south, east, north), or None when there are none."""
    if "map_rivers" not in existing_tables(con):
        return None, 0
    have = require_columns(con, "map_rivers", ("geom",), db_path)
    rid = "river_id" if "river_id" in have else "NULL"
    length = "length_km" if "length_km" in have else "NULL"
    rows = con.execute(
        f"SELECT {rid}, {length}, ST_AsWKB(geom) FROM map_rivers WHERE geom IS NOT NULL ORDER BY 1"
    ).fetchall()
    if not rows:
        return None, 0
    geoms = wkb_geometries([r[2] for r in rows])
    if bounds is not None:
        # The build keeps whole river systems that touch the region; past the hexes they are noise.
        geoms = shapely.clip_by_rect(geoms, *bounds)
    parts, owner = encode_lines(geoms, precision=precision, tolerance=tolerance)
    tips = [[("river", r[0]), ("length", None if r[1] is None else f"{r[1]:.0f} km")] for r in rows]
    layer = LineLayer(parts, owner, tips, precision=precision, name=name, colour=RIVER_COLOUR, weight=2.0, show=show)
    return layer, len(rows)


def map_meta(con) -> dict[str, str]:
    if "map_meta" not in existing_tables(con):
        return {}
    have = existing_columns(con, "map_meta")
    if not {"key", "value"} <= set(have):
        return {}
    return {str(k): str(v) for k, v in con.execute("SELECT key, value FROM map_meta").fetchall()}


def build_map(con, *, db_path, precision: int = 5, faction: str | None = None, scenario: bool = True,
              title: str | None = None, view: PlayerView | None = None) -> OfflineMap:
    """The folium map for an open database (see :func:`render_terrain_map`); with ``view`` (a
    ruleset's player view of the campaign in ``con``) that view is drawn over the terrain
    (:mod:`web_maps.feature_layers`) instead of anything read from the campaign's tables."""
    check_precision(precision)
    # A Vae Victis II campaign: its scenario layers and play aids over the terrain.
    campaign = scenario and view is None and is_campaign(con)
    if faction is not None and not campaign:
        raise InputError(f"--faction {faction} needs a campaign database with its scenario layers, and {db_path} "
                         "is a map: pass a file written by `bellica campaign new`")
    hexes = drawn_hexes(con, db_path=db_path)
    west, south, east, north = shapely.total_bounds(hexes.geom).tolist()
    m = OfflineMap(location=[(south + north) / 2, (west + east) / 2], zoom_start=6)
    # Fitted before any layer is added: the hexes are then drawn once, at the fitted view, instead of
    # once at zoom_start and again after the fit.
    m.add_child(FitView(south, west, north, east))

    facts = situation = None
    if campaign:
        facts = load_hex_facts(con, hexes.cell, hexes.kind, hexes.terrain, hexes.river)
        situation = load_situation(con)
    layer, sections = _terrain(m, con, hexes, facts, precision=precision, db_path=db_path, campaign=campaign)

    meta = map_meta(con)
    # A map built from a bbox records its region as JSON null: name it by its file then.
    name = next((v for v in (meta.get("name"), meta.get("region")) if v and v != "null"), Path(str(db_path)).stem)
    if campaign:
        # Imported here: scenario_layers builds on this module's readers.
        from bellica.web_maps.scenario_layers import add_scenario_layers

        more, scenario_title = add_scenario_layers(m, con, hexes, layer, faction=faction, precision=precision,
                                                   db_path=db_path, situation=situation,
                                                   names=dict(zip(hexes.cell, facts.names)))
        sections += more
        name = scenario_title or name
    elif view is not None:
        from bellica.web_maps.feature_layers import add_view_layers

        sections += add_view_layers(m, view, precision=precision)
        name = view.title or name
    elif scenario:
        # A map with a node map on it (`bellica map nodes`): its places and paths over the terrain.
        from bellica.web_maps.node_layers import add_node_layers, has_nodes

        if has_nodes(con):
            sections += add_node_layers(m, con, precision=precision, db_path=db_path)

    label = title
    if label is None:
        res = f"res {hexes.res}" if hexes.res is not None else "mixed resolution"
        label = f"{name} \u2014 {len(hexes):,} hexes, {res}"
        viewer = view.viewer if view is not None else faction
        if campaign or view is not None:
            label += f" \u2014 view of {viewer}" if viewer is not None else " \u2014 umpire's view"
    m.add_child(Title(label))
    if view is not None:
        from bellica.web_maps.feature_layers import view_panel

        m.add_child(view_panel(view))
    if situation is not None:
        names = [f for (f,) in con.execute("SELECT name FROM factions ORDER BY name").fetchall()]
        # add_scenario_layers has refused an unknown faction already: this only spells it as stored.
        viewer = None if faction is None else canonical_faction(faction, names, where="--faction")
        shown = situation if viewer is None else situation.for_faction(viewer)
        m.add_child(StatusPanel("umpire's view" if viewer is None else f"view of {viewer}", panel_rows(shown, names)))
    m.add_child(Legend(sections))
    # Before the layer list, so the button stands at the top of its corner.
    m.add_child(PanelToggle())
    m.add_child(LayerControl(position="topright", collapsed=False))
    return m


def _terrain(m, con, hexes: HexTable, facts: HexFacts | None, *, precision: int, db_path,
             campaign: bool) -> tuple[HexLayer, list[LegendSection]]:
    """The hex layer, the map's rivers and river hexes on ``m``; (the hex layer, their legend sections)."""
    layer, categories = hex_layer(hexes, precision=precision, facts=facts)
    m.add_child(layer)
    west, south, east, north = shapely.total_bounds(hexes.geom).tolist()
    # Simplify river courses to a tenth of a hex edge: finer detail is invisible at map scale.
    edge_deg = (h3.average_hexagon_edge_length(hexes.res, unit="km") / 111.0) if hexes.res is not None else 0.01
    # On a campaign the scenario's named rivers are the ones the rules use; the build's stay available, hidden.
    rivers, n_rivers = map_river_layer(con, precision=precision, tolerance=edge_deg / 10, db_path=db_path,
                                       name="Map rivers" if campaign else "Rivers", show=not campaign,
                                       bounds=(west, south, east, north))
    if rivers is not None:
        m.add_child(rivers)
    n_river_hexes = sum(hexes.river)
    if n_river_hexes:
        # Without river lines, the river hexes are the only river display: show them by default then.
        m.add_child(HexOutlineLayer(layer, [i for i, r in enumerate(hexes.river) if r],
                                    name="Map river hexes" if campaign else "River hexes",
                                    colour=RIVER_COLOUR, show=rivers is None and not campaign, weight=1.5))

    def with_mp(c: str) -> str:
        # The legend is where a player looks up what a terrain costs: the rules' figure beside each.
        if facts is None or facts.rules is None:
            return c
        mp = facts.rules.terrain_mp.get(c)
        return f"{c} \u00b7 {mp} MP" if mp is not None else f"{c} \u00b7 impassable"

    land = [LegendItem(with_mp(c), col, count=n) for c, n, col in categories
            if c in TERRAIN_COLOURS or c.startswith("land")]
    water = [LegendItem(c, col, count=n) for c, n, col in categories if not (c in TERRAIN_COLOURS or c.startswith("land"))]
    lines = []
    if rivers is not None:
        lines.append(LegendItem("map river" if campaign else "river", RIVER_COLOUR, shape="line", count=n_rivers))
    if n_river_hexes:
        lines.append(LegendItem("map river hex" if campaign else "river hex", RIVER_COLOUR, shape="outline",
                                count=n_river_hexes))
    sections = [LegendSection("Terrain", land), LegendSection("Water", water), LegendSection("Rivers", lines)]
    if facts is not None and facts.rules is not None:
        r = facts.rules
        sections.append(LegendSection("Movement (MP to enter a hex)", [
            LegendItem(f"road step: terrain \u00f7 {r.road_divisor}", ROAD_LEGEND, shape="line"),
            LegendItem(f"River hex without Town/City: {r.river_mp:+d}", RIVER_COLOUR, shape="line"),
            LegendItem(f"every step costs {r.min_mp} to {r.max_mp}; water: armies cannot enter", "#333", shape="text"),
            LegendItem("click a hex: its clock sides, neighbours and MP", "#333", shape="text"),
        ]))
    return layer, sections


def render_terrain_map(
    db_path: str | Path,
    out_html: str | Path,
    *,
    faction: str | None = None,
    scenario: bool = True,
    precision: int = 5,
    title: str | None = None,
    view: PlayerView | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
) -> Path:
    """Render the map (and, for a campaign, the scenario layers) of ``db_path`` to ``out_html``.

    ``faction`` renders that faction's view of a Vae Victis II campaign; ``view`` draws a
    ruleset's player view of the campaign in ``db_path`` over its terrain (what the viewer may
    see is the view's: nothing else of the campaign is read); ``precision`` is the decimals of a
    degree kept for vertices (5 = 1.1 m).  ``con``: the caller's connection to ``db_path``, open
    read-only (the campaign its view was taken from), drawn from instead of opening the file a
    second time; the caller closes it.  The page needs no network; it is written atomically.
    Returns the output path.
    """
    start = time.perf_counter()
    check_output(out_html)  # before the work, not after it
    own = con is None
    if own:
        con = open_map_db(db_path)
    else:
        require_hexes(con, db_path)
    try:
        m = build_map(con, db_path=db_path, precision=precision, faction=faction, scenario=scenario, title=title,
                      view=view)
    finally:
        if own:
            con.close()
    page = m.get_root().render()
    out = write_html(page, out_html)
    log.info("rendered %s: %.1f MB in %.2f s", out, len(page.encode()) / 1e6, time.perf_counter() - start)
    return out


__all__ = [
    "KIND_COLOURS",
    "TERRAIN_COLOURS",
    "HexTable",
    "build_map",
    "hex_layer",
    "is_campaign",
    "load_hexes",
    "open_map_db",
    "render_terrain_map",
]
