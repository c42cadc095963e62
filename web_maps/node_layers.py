"""Node maps on the web map: places and their land and sea paths (docs/nodes.md).

A node map lives in the tables ``bellica map nodes`` writes (``nodes``, ``node_paths``,
``node_path_terrain``; schema/nodes.sql).  This module draws them and nothing else: it knows no
ruleset.  A ruleset that wants its owners on the map passes ``owners`` (place name -> colour) to
:func:`add_node_layers`; its counters and fleets it draws itself, as further layers over these.

* places: a circle each, filled by owner colour when ``owners`` is given (white for places it
  leaves out), else by coastal (blue) or inland (ochre); a fortified place is larger and ringed;
  a permanent label with its name and, when it raises neutral commands, their number in brackets
  (the seed's node maps wrote it so); a tooltip with terrain, coastal, fortified, commands, years
  and note;
* paths: land paths solid brown, sea paths dashed blue, each with a tooltip (its ends, length,
  hexes, terrain crossed, years).

:func:`render_node_map` renders a map file's terrain with its node map over it, the way
``bellica render map`` renders a map.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import shapely
from folium import LayerControl

from bellica.geo.errors import InputError
from bellica.schema import existing_tables
from bellica.web_maps.encode import check_precision, encode_lines
from bellica.web_maps.layers import Legend, LegendItem, LegendSection, LineLayer, PointLayer

__all__ = [
    "COASTAL_FILL",
    "INLAND_FILL",
    "LAND_PATH_COLOUR",
    "NEUTRAL_FILL",
    "SEA_PATH_COLOUR",
    "NodeMap",
    "add_node_layers",
    "has_nodes",
    "read_node_map",
    "render_node_map",
]

COASTAL_FILL = "#4f8fc0"
INLAND_FILL = "#c9a25e"
NEUTRAL_FILL = "#ffffff"
FORT_RING = "#1a1a1a"
LAND_PATH_COLOUR = "#8b5a2b"
SEA_PATH_COLOUR = "#1f5fa8"
SEA_DASH = "6 6"
RADIUS = 5
FORT_RADIUS = 7


@dataclass
class NodeMap:
    """A node map as read from a map file: place rows and path rows (with shapely lines)."""

    nodes: list[dict] = field(default_factory=list)
    paths: list[dict] = field(default_factory=list)


def has_nodes(con) -> bool:
    """True when the database holds the node tables of `bellica map nodes`."""
    return {"nodes", "node_paths"} <= existing_tables(con)


def _exists(year: int | None, first, last) -> bool:
    return year is None or ((first is None or first <= year) and (last is None or year <= last))


def read_node_map(con, *, year: int | None = None, db_path="database") -> NodeMap:
    """The places and paths of the map file (those of ``year`` only, when given)."""
    if not has_nodes(con):
        raise InputError(f"{db_path} has no node tables: write them with `bellica map nodes {db_path} NODE_FILE`")
    cols = ["name", "lon", "lat", "terrain", "coastal", "fortified", "commands", "from_year", "until_year", "note"]
    nodes = [dict(zip(cols, r)) for r in con.execute(f"SELECT {', '.join(cols)} FROM nodes ORDER BY name").fetchall()]
    nodes = [n for n in nodes if _exists(year, n["from_year"], n["until_year"])]
    alive = {n["name"] for n in nodes}
    terrain: dict[tuple, dict[str, int]] = {}
    if "node_path_terrain" in existing_tables(con):
        for a, b, kind, t, count in con.execute(
                "SELECT a, b, kind, terrain, hexes FROM node_path_terrain ORDER BY a, b, kind, hexes DESC, terrain").fetchall():
            terrain.setdefault((a, b, kind), {})[t] = count
    pcols = ["a", "b", "kind", "length_km", "hexes", "from_year", "until_year", "note"]
    paths = []
    for row in con.execute(f"SELECT {', '.join(pcols)}, ST_AsWKB(geom) FROM node_paths ORDER BY kind, a, b").fetchall():
        p = dict(zip(pcols, row[:-1]))
        if p["a"] not in alive or p["b"] not in alive or not _exists(year, p["from_year"], p["until_year"]):
            continue
        p["geom"] = shapely.from_wkb(bytes(row[-1])) if row[-1] is not None else None
        p["terrain"] = terrain.get((p["a"], p["b"], p["kind"]), {})
        paths.append(p)
    return NodeMap(nodes, paths)


def _years(first, last) -> str | None:
    def y(v):
        return f"{-v} BC" if v < 0 else f"AD {v}"

    if first is None and last is None:
        return None
    if first is None:
        return f"until {y(last)}"
    if last is None:
        return f"from {y(first)}"
    return f"{y(first)} to {y(last)}"


def _node_point(n: dict, owners: Mapping[str, str] | None) -> dict:
    fill = (owners.get(n["name"], NEUTRAL_FILL) if owners is not None
            else COASTAL_FILL if n["coastal"] else INLAND_FILL)
    tip = [["place", n["name"]]]
    if owners is not None and n["name"] in owners:
        tip.append(["owner colour", owners[n["name"]]])
    tip += [["terrain", n["terrain"] or "?"], ["coastal", "yes" if n["coastal"] else "no"],
            ["fortified", "yes" if n["fortified"] else "no"], ["neutral commands", str(n["commands"] or 0)]]
    years = _years(n["from_year"], n["until_year"])
    if years:
        tip.append(["stands", years])
    if n["note"]:
        tip.append(["note", n["note"]])
    label = n["name"] + (f" ({n['commands']})" if n["commands"] else "")
    return {"ll": [n["lat"], n["lon"]], "shape": "circle", "colour": fill,
            "r": FORT_RADIUS if n["fortified"] else RADIUS, "label": label,
            "prio": (2 if n["fortified"] else 1) + (n["commands"] or 0), "tip": tip}


def _path_tip(p: dict) -> list[tuple[str, object]]:
    tip = [("path", f"{p['a']} \u2013 {p['b']}"), ("by", p["kind"]), ("length", f"{p['length_km']:.0f} km"),
           ("hexes", p["hexes"])]
    if p["terrain"]:
        tip.append(("crosses", ", ".join(f"{t} {n}" for t, n in p["terrain"].items())))
    years = _years(p["from_year"], p["until_year"])
    if years:
        tip.append(("open", years))
    if p["note"]:
        tip.append(("note", p["note"]))
    return tip


def add_node_layers(m, con, *, precision: int = 5, owners: Mapping[str, str] | None = None,
                    owner_labels: Mapping[str, str] | None = None, year: int | None = None,
                    db_path="database", show_labels: bool = True) -> list[LegendSection]:
    """Add the node map's path and place layers to the folium map ``m``; return their legend sections.

    ``owners``: place name -> colour (a ruleset's owners), places not in it drawn white; None draws
    places by coastal/inland.  ``owner_labels``: colour -> what the legend calls it (a side's name;
    default the colour).  ``year`` draws only that year's places and paths."""
    check_precision(precision)
    nm = read_node_map(con, year=year, db_path=db_path)
    sections = []
    path_items = []
    for kind, colour, dash, name in (("land", LAND_PATH_COLOUR, None, "Land paths"), ("sea", SEA_PATH_COLOUR, SEA_DASH, "Sea paths")):
        drawn = [p for p in nm.paths if p["kind"] == kind and p["geom"] is not None]
        if not drawn:
            continue
        parts, owner = encode_lines([p["geom"] for p in drawn], precision=precision)
        m.add_child(LineLayer(parts, owner, [_path_tip(p) for p in drawn], precision=precision, name=name,
                              colour=colour, weight=3.0 if kind == "land" else 2.5, dash=dash))
        path_items.append(LegendItem(f"{kind} path", colour, shape="dashed" if dash else "line", count=len(drawn)))
    points = []
    for n in nm.nodes:
        if n["fortified"]:  # the ring first: the place's own circle stays on top and takes the pointer
            points.append({"ll": [n["lat"], n["lon"]], "shape": "ring", "colour": FORT_RING, "r": FORT_RADIUS + 3, "w": 2})
        point = _node_point(n, owners)
        if not show_labels:
            point["label"] = None
        points.append(point)
    m.add_child(PointLayer(points, name="Places"))
    place_items = []
    if owners is None:
        place_items += [LegendItem("coastal place", COASTAL_FILL, shape="dot", count=sum(1 for n in nm.nodes if n["coastal"])),
                        LegendItem("inland place", INLAND_FILL, shape="dot", count=sum(1 for n in nm.nodes if not n["coastal"]))]
    else:
        for colour in dict.fromkeys(owners.get(n["name"]) for n in nm.nodes if n["name"] in owners):
            label = (owner_labels or {}).get(colour, f"owner {colour}")
            place_items.append(LegendItem(label, colour, shape="dot",
                                          count=sum(1 for n in nm.nodes if owners.get(n["name"]) == colour)))
        unowned = sum(1 for n in nm.nodes if n["name"] not in owners)
        if unowned:
            place_items.append(LegendItem("no owner", NEUTRAL_FILL, shape="dot", count=unowned))
    place_items += [LegendItem("fortified (ringed)", FORT_RING, shape="ring", count=sum(1 for n in nm.nodes if n["fortified"])),
                    LegendItem("(n): neutral commands", "#333", shape="text")]
    sections.append(LegendSection("Places" + (f" in {-year} BC" if year is not None and year < 0 else
                                              f" in AD {year}" if year is not None else ""), place_items))
    sections.append(LegendSection("Paths", path_items))
    return sections


def render_node_map(db_path: str | Path, out_html: str | Path, *, owners: Mapping[str, str] | None = None,
                    owner_labels: Mapping[str, str] | None = None, year: int | None = None, precision: int = 5,
                    title: str | None = None) -> Path:
    """Render the map file's terrain with its node map over it to ``out_html`` (no network needed; atomic)."""
    from bellica.web_maps.assets import check_output, write_html
    from bellica.web_maps.terrain_map import build_map, open_map_db

    check_output(out_html)
    con = open_map_db(db_path)
    try:
        if not has_nodes(con):
            raise InputError(f"{db_path} has no node tables: write them with `bellica map nodes {db_path} NODE_FILE`")
        label = title or f"{Path(str(db_path)).stem} \u2014 node map" + (
            "" if year is None else f", {-year} BC" if year < 0 else f", AD {year}")
        m = build_map(con, db_path=db_path, precision=precision, scenario=False, title=label)
        sections = add_node_layers(m, con, precision=precision, owners=owners, owner_labels=owner_labels, year=year,
                                   db_path=db_path)
    finally:
        con.close()
    m.add_child(Legend(sections, position="bottomright"))
    # build_map added its layer control already: it must come after every layer it lists (its script
    # names them), so it moves to the end.
    for key in [k for k, child in m._children.items() if isinstance(child, LayerControl)]:
        m._children.move_to_end(key)
    return write_html(m.get_root().render(), out_html)

