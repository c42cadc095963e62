"""A ruleset's player view on the web map: every feature layer of a
:class:`~bellica.schema.view.PlayerView` drawn the way its styles say, its panel and its legend.

The ruleset has decided what the viewer may see and how each thing looks (a feature's geometry,
``label``, counter ``text`` and ``sub``, ``style`` key and ``tooltip``; the view's styles, title,
panel and hidden words): this module draws exactly that and knows no game.  It reads nothing
from the campaign file.

Decisions where the view is silent:

- A feature without a style key is data only (an export's row): the map leaves it out.
- Layers sharing a title are one map layer (one entry in the layer control, one legend section),
  so a ruleset may export its seats, resources and armies apart and still draw them together.
- Areas: ``fill`` is an owner's colour: a hatch over the terrain and a band inside the border
  (:mod:`web_maps.cartography`), never a tint that changes the terrain's colours; ``outline`` a
  thick dashed edge without fill (not interactive unless its features have tooltip rows),
  ``zone`` a faint fill in a dashed edge.  The group takes the shape of its first feature's style; each feature its own colour.
  The labels of areas stand at a point inside their largest part, in a layer of their own
  ("<title>: names"), so they can be hidden without the areas; an owned area's name is in spaced
  capitals, so a province never reads as the town of the same name beside it.
- Points: counters (``army``, ``navy``) and symbols (``symbol``: the feature's ``text``, one glyph,
  on a round badge; the legend shows the glyph beside the style's words) at one point stand side
  by side in a row, in the order the view gives them, the first under the point; a ``battle``
  is a ring round its point with crossed swords on top of it; a ``walled`` place a dot in a dark
  ring.  Names are placed clear of the counters by the page (:mod:`web_maps.cartography`).
- Lines: one map layer per style when a layer has several (``<title>: <words>``), since a
  Leaflet line layer has one stroke.
- Legend: a section per map layer, a line per distinct ``words`` of the styles its features use
  (with how many), in the order of the view's styles; a style without words is not listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import shapely

from bellica.geo.logs import logger
from bellica.schema.view import Feature, FeatureLayer, PlayerView, Style
from bellica.web_maps.encode import encode_lines, encode_polygons
from bellica.web_maps.layers import LegendItem, LegendSection, LineLayer, PointLayer, ProvinceLayer, StatusPanel

log = logger(__name__)

__all__ = ["add_view_layers", "view_panel"]

#: A style key the view does not define: drawn grey, so the gap shows without breaking the page.
UNSTYLED = Style("#808080")
#: The ring of a walled place.
WALL = "#1a1a1a"
#: area shape -> (stroke weight, fill opacity, dash, label class, label priority)
AREAS = {"fill": (1.5, 0.45, None, "bellica-label bellica-area-label", 2), "outline": (4.0, 0.0, "8 5", "bellica-zone-label", 1),
         "zone": (2.0, 0.08, "6 4", "bellica-zone-label", 1)}
#: point shape -> default radius in px
POINT_SIZES = {"dot": 4, "walled": 7, "star": 11, "ring": 14, "dashed-ring": 14, "battle": 18, "army": 11, "navy": 9,
               "symbol": 9}
#: Point shapes that stand in a point's row of counters.
IN_ROW = ("army", "navy", "symbol")
#: line shape -> dash pattern
LINE_DASHES = {"line": None, "dashed": "6 6", "dotted": "2 6"}
#: a style's shape -> the legend's swatch
LEGEND_SHAPES = {"fill": "swatch", "outline": "dashed", "zone": "dashed", "dot": "dot", "walled": "dot", "star": "star",
                 "ring": "ring", "dashed-ring": "ring", "battle": "battle", "army": "swatch", "navy": "hull",
                 "line": "line", "dashed": "dashed", "dotted": "dashed", "label": "text", "symbol": "symbol"}
#: A shape drawn as an owner's hatch and band (:class:`ProvinceLayer` ``owned``): its legend swatch.
OWNED_SWATCH = "hatch"
GAP = 6  # px between counters standing side by side


@dataclass
class _Group:
    """The view's layers drawn as one map layer."""

    title: str
    kind: str  # "area", "point" or "line"
    layers: list[FeatureLayer] = field(default_factory=list)

    @property
    def features(self) -> list[Feature]:
        """The features drawn: those with a geometry and a style (one without is data only)."""
        return [f for layer in self.layers for f in layer.features if f.geometry is not None and f.style]

    @property
    def show(self) -> bool:
        return any(layer.show for layer in self.layers)


def _kind(geometry_type: str) -> str:
    return "area" if "Polygon" in geometry_type else "line" if "LineString" in geometry_type else "point"


def _groups(view: PlayerView) -> list[_Group]:
    groups: dict[tuple[str, str], _Group] = {}
    for layer in view.layers:
        key = (layer.title or layer.name, _kind(layer.geometry_type))
        groups.setdefault(key, _Group(*key)).layers.append(layer)
    return list(groups.values())


def _style(view: PlayerView, f: Feature) -> Style:
    return view.styles.get(f.style, UNSTYLED)


def _tip(f: Feature) -> list[list]:
    """Tooltip rows as the page shows them (a None value leaves its row out)."""
    return [[str(a), b if isinstance(b, (int, float)) else str(b)] for a, b in f.tooltip if b is not None]


def _ll(point) -> list[float]:
    return [round(float(point.y), 5), round(float(point.x), 5)]


def _inside(geom):
    """A point inside ``geom``'s largest part (where its label stands)."""
    parts = shapely.get_parts(geom)
    return shapely.point_on_surface(max(parts, key=lambda p: p.area) if len(parts) else geom)


# --- areas --------------------------------------------------------------------------------------


def _add_areas(m, view: PlayerView, g: _Group, *, precision: int) -> None:
    features = g.features
    styles = [_style(view, f) for f in features]
    shape = styles[0].shape if styles[0].shape in AREAS else "fill"
    weight, opacity, dash, label_class, prio = AREAS[shape]
    tips = [_tip(f) for f in features]
    edged = shape != "fill"  # an outline or zone is edged in its own colour
    m.add_child(ProvinceLayer([encode_polygons(f.geometry, precision=precision) for f in features],
                              [s.colour for s in styles], tips, precision=precision, name=g.title, show=g.show,
                              stroke=styles[0].colour if edged else "#1b1b1b", weight=weight, fill_opacity=opacity,
                              dash=dash, strokes=[s.colour for s in styles] if edged else None,
                              interactive=shape != "outline" or any(tips), owned=shape == "fill"))
    labels = [{"ll": _ll(_inside(f.geometry)), "shape": "none", "r": 0, "label": f.label, "lc": label_class, "prio": prio}
              for f in features if f.label]
    if labels:
        m.add_child(PointLayer(labels, name=f"{g.title}: names", show=g.show))


# --- points -------------------------------------------------------------------------------------


def _counter_width(shape: str, r: int, sub: str) -> int:
    """A counter's width in px, as PointLayer draws it."""
    if shape == "navy":
        return max(2 * r + 8, 38) if sub else 2 * r + 8
    if shape == "symbol":
        return 2 * r
    return max(2 * r, 34) if sub else 2 * r


def _marks(f: Feature, style: Style, row: dict[tuple, float]) -> list[dict]:
    """The PointLayer points of one feature; ``row``: per point, where the next counter starts."""
    shape = style.shape or "dot"
    r = style.size or POINT_SIZES.get(shape, 6)
    ll = _ll(f.geometry)
    tip = _tip(f) or None
    mark = {"ll": ll, "colour": style.colour, "r": r, "tip": tip}
    if f.label:
        mark.update(label=f.label, lc="bellica-label capital" if shape == "star" else "bellica-label",
                    prio=3 if shape == "star" else 2 if shape == "walled" else 1)
    if shape in IN_ROW:
        width = _counter_width(shape, r, f.sub)
        left = row.get(tuple(ll), -width / 2)  # the first counter centred under its point
        row[tuple(ll)] = left + width + GAP
        mark.update(shape=shape, text=f.text, dx=round(left + width / 2), dy=GAP)
        if f.sub:
            mark["sub"] = f.sub
        return [mark]
    if shape == "battle":
        ring = {"ll": ll, "shape": "ring", "colour": style.colour, "r": r, "w": 3, "tip": tip}
        swords = dict(mark, shape="battle", r=11, dy=-r, ldir="right", prio=20)
        return [ring, swords]
    if shape in ("ring", "dashed-ring"):
        return [dict(mark, shape="ring", w=3, **({"dash": "4 3"} if shape == "dashed-ring" else {}))]
    if shape == "walled":  # the ring first: the place's own dot stays on top and takes the pointer
        return [{"ll": ll, "shape": "ring", "colour": WALL, "r": r + 3, "w": 2}, dict(mark, shape="circle")]
    if shape == "label":
        return [dict(mark, shape="none", r=0, tip=None)]
    return [dict(mark, shape="star" if shape == "star" else "circle")]


def _add_points(m, view: PlayerView, g: _Group) -> None:
    row: dict[tuple, float] = {}
    points = [p for f in g.features for p in _marks(f, _style(view, f), row)]
    m.add_child(PointLayer(points, name=g.title, show=g.show))


# --- lines --------------------------------------------------------------------------------------


def _add_lines(m, view: PlayerView, g: _Group, *, precision: int) -> None:
    by_style: dict[str, list[Feature]] = {}
    for f in g.features:
        by_style.setdefault(f.style, []).append(f)
    for key, features in by_style.items():
        style = view.styles.get(key, UNSTYLED)
        name = g.title if len(by_style) == 1 else f"{g.title}: {style.words or key}"
        parts, owner = encode_lines([f.geometry for f in features], precision=precision)
        m.add_child(LineLayer(parts, owner, [_tip(f) for f in features], precision=precision, name=name,
                              colour=style.colour, weight=float(style.size or 3), dash=LINE_DASHES.get(style.shape),
                              show=g.show))


# --- legend and panel ---------------------------------------------------------------------------


def _legend(view: PlayerView, g: _Group) -> LegendSection:
    """One line per distinct words of the styles ``g``'s features use, in the view's style order."""
    used: dict[str, int] = {}
    glyphs: dict[str, str] = {}  # a symbol style's glyph: its first feature's text
    for f in g.features:
        used[f.style] = used.get(f.style, 0) + 1
        glyphs.setdefault(f.style, f.text)
    order = list(view.styles)
    lines: dict[str, list] = {}
    for key in sorted(used, key=lambda k: order.index(k) if k in order else len(order)):
        style = view.styles.get(key, UNSTYLED)
        if not style.words:
            continue
        line = lines.setdefault(style.words, [style, 0, set(), glyphs.get(key, "")])
        line[1] += used[key]
        line[2].add(style.colour)
    items = [LegendItem(words, colours.pop() if len(colours) == 1 else "#555", shape=_swatch(g.kind, style.shape),
                        count=n, text=glyph)
             for words, (style, n, colours, glyph) in lines.items()]
    return LegendSection(g.title, items)


def _swatch(kind: str, shape: str) -> str:
    """The legend's swatch of a style: an area's owner fill is its hatch."""
    if kind == "area" and shape in ("fill", ""):
        return OWNED_SWATCH
    return LEGEND_SHAPES.get(shape, "swatch")


def view_panel(view: PlayerView) -> StatusPanel:
    """The view's panel: whose view it is, its rows, and what it leaves out."""
    rows = [(str(a), str(b)) for a, b in view.panel]
    if view.hidden:
        rows.append(("Hidden", "; ".join(view.hidden)))
    return StatusPanel("umpire's view" if view.viewer is None else f"view of {view.viewer}", rows)


def add_view_layers(m, view: PlayerView, *, precision: int) -> list[LegendSection]:
    """Draw every non-empty layer of ``view`` on the folium map ``m``, in the view's order; the
    legend's sections (the panel and title are the caller's: :func:`view_panel`, ``view.title``)."""
    missing = sorted({f.style for x in view.layers for f in x.features if f.style and f.style not in view.styles})
    if missing:
        log.warning("the view of %s has no style %s: drawn grey", view.ruleset, ", ".join(missing))
    sections = []
    for g in _groups(view):
        if not g.features:
            continue
        if g.kind == "area":
            _add_areas(m, view, g, precision=precision)
        elif g.kind == "line":
            _add_lines(m, view, g, precision=precision)
        else:
            _add_points(m, view, g)
        sections.append(_legend(view, g))
    return sections


