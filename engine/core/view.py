"""Building blocks of a ruleset's player view (:class:`bellica.schema.view.PlayerView`): the map's
named places as geometry, and features made from them.

A ruleset decides what a viewer may see (its ``player_view``); these helpers only give that
decision a place on the map: a province or sea area is its polygon (``provinces``,
``sea_areas``, docs/provinces.md), a node its site (``nodes``, docs/nodes.md), a path its line
(``node_paths``).  A marker in a region stands at a point inside it (shapely's
``point_on_surface`` of the largest part), so it is never drawn in a neighbour.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Iterable, Mapping

from bellica.schema import existing_columns, existing_tables
from bellica.schema.view import Feature, FeatureLayer, Style

__all__ = ["NOBODY", "PALETTE", "SEA", "Places", "as_multi", "feature_layer", "owner_styles", "point", "province_layer",
           "scalar"]

#: Colours of the factions a scenario gives none, in the order of its factions: a qualitative palette.
PALETTE = ("#c62828", "#6d4c41", "#f9a825", "#2e7d32", "#1565c0", "#8e24aa", "#00897b", "#ef6c00",
           "#3949ab", "#ad1457", "#546e7a", "#9e9d24", "#4e342e", "#26a69a")
#: What nobody holds.
NOBODY = "#bdbdbd"
#: Sea areas (quadrants, lanes) drawn over the sea.
SEA = "#0b3a66"


def scalar(value: Any) -> Any:
    """A property value an exported column can hold: scalars as they are, lists and mappings as JSON."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def feature_layer(name: str, geometry_type: str, rows: Iterable[Feature | tuple[Any, Mapping[str, Any]]], *,
                  public: bool = True, description: str = "", columns: Iterable[str] = (),
                  show: bool = True, title: str = "") -> FeatureLayer:
    """A layer of features (or ``(geometry, properties)`` rows); those without a geometry (a place
    the map lacks) are left out, properties made scalar.  ``columns``: the properties in order
    (default: every property of the features, in the order first met), so an empty layer keeps them.
    ``show`` and ``title``: whether a map shows it at first, and its name there."""
    features = []
    for row in rows:
        f = row if isinstance(row, Feature) else Feature(*row)
        if f.geometry is not None:
            features.append(replace(f, properties={k: scalar(v) for k, v in f.properties.items()}))
    names = list(columns)
    for f in features:
        names += [k for k in f.properties if k not in names]
    return FeatureLayer(name, geometry_type, tuple(features), public=public, description=description,
                        columns=tuple(names), show=show, title=title)


def owner_styles(kind: str, colours: Mapping[str, str], shape: str, size: int = 0,
                 words: str | Mapping[str, str] = "") -> dict[str, Style]:
    """A style per owner of ``colours`` (owner -> colour), keyed ``"<kind>:<owner>"``, and
    ``"<kind>:"`` for what nobody owns (grey); ``words`` the same for all, or per owner (the
    legend lists a line per distinct words)."""
    def said(owner: str) -> str:
        return words if isinstance(words, str) else words.get(owner, "")

    out = {f"{kind}:{owner}": Style(colour, shape, size, said(owner)) for owner, colour in colours.items()}
    out[f"{kind}:"] = Style(NOBODY, shape, size, said(""))
    return out


def point(lon: float | None, lat: float | None):
    """The point at ``lon``, ``lat`` (None when either is unknown)."""
    import shapely

    return None if lon is None or lat is None else shapely.Point(float(lon), float(lat))


class Places:
    """The named places of a campaign's map, read once: regions (provinces, sea areas), nodes, paths."""

    def __init__(self, con) -> None:
        self._con = con
        self._tables = existing_tables(con)
        self._regions: dict[str, Any] | None = None
        self._nodes: dict[str, Any] | None = None

    def _read(self, table: str, key: str = "name") -> dict[str, Any]:
        import shapely  # here, not at import: the warm server preloads the core and never shapely (its threads)

        if table not in self._tables or "geom" not in existing_columns(self._con, table):
            return {}
        rows = self._con.execute(f"SELECT {key}, ST_AsWKB(geom) FROM {table} ORDER BY 1").fetchall()
        return {name: shapely.from_wkb(bytes(wkb)) for name, wkb in rows if wkb is not None}

    @property
    def regions(self) -> dict[str, Any]:
        """Province and sea-area polygons by name (a sea area never shares a province's name)."""
        if self._regions is None:
            self._regions = {**self._read("sea_areas"), **self._read("provinces")}
        return self._regions

    @property
    def nodes(self) -> dict[str, Any]:
        """Node sites (points) by name."""
        if self._nodes is None:
            self._nodes = self._read("nodes")
        return self._nodes

    def region(self, name: str | None):
        return self.regions.get(name) if name else None

    def inside(self, name: str | None):
        """A point inside region ``name`` (its largest part), or the node ``name``'s site; None if neither."""
        import shapely

        if name in self.nodes:
            return self.nodes[name]
        geom = self.region(name)
        if geom is None:
            return None
        parts = shapely.get_parts(geom)
        big = max(parts, key=lambda p: p.area) if len(parts) else geom
        return shapely.point_on_surface(big)

    def paths(self, kind: str | None = None) -> list[tuple[str, str, str, Any]]:
        """``(a, b, kind, line)`` of every node path (``kind`` 'land' or 'sea', or both)."""
        import shapely

        if "node_paths" not in self._tables:
            return []
        where, params = ("WHERE kind = ?", [kind]) if kind else ("", [])
        rows = self._con.execute(f"SELECT a, b, kind, ST_AsWKB(geom) FROM node_paths {where} ORDER BY a, b, kind",
                                 params).fetchall()
        return [(a, b, k, shapely.from_wkb(bytes(w))) for a, b, k, w in rows if w is not None]


def province_layer(places: Places, holders: Mapping[str, str | None], extra: Mapping[str, Mapping[str, Any]] | None = None,
                   *, name: str = "provinces", display: Mapping[str, Mapping[str, Any]] | None = None,
                   title: str = "Provinces") -> FeatureLayer:
    """Every province of ``holders`` as its polygon with its ``holder`` (None: nobody) and any
    ``extra`` properties of it: who holds what is on the board for every viewer.  ``display``:
    per province how a map shows it (:class:`Feature`'s ``label``, ``style``, ``tooltip``)."""
    extra, display = extra or {}, display or {}
    return feature_layer(name, "MultiPolygon", (
        Feature(as_multi(places.region(p)), {"province": p, "holder": h, **extra.get(p, {})}, **display.get(p, {}))
        for p, h in holders.items()), title=title)


def as_multi(geom):
    """Polygons as MultiPolygons, so one layer holds one geometry type (GeoPackage wants one)."""
    import shapely

    if geom is None or geom.geom_type == "MultiPolygon":
        return geom
    return shapely.MultiPolygon([geom]) if geom.geom_type == "Polygon" else geom
