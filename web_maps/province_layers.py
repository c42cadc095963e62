"""Province campaigns on the map: provinces coloured by owner, their markers, sea quadrants, a panel.

A province campaign (Rise of Rome, Mare Nostrum) keeps its provinces' geometry in the province
builder's tables (``provinces``: dissolved hexes, ``sea_areas``: the sea quadrants;
docs/provinces.md) and its state in the ruleset's own tables.  This module draws the first and
asks the ruleset, through a small data interface, what to draw on them:

* a **reader** per ruleset, ``reader(con, faction) -> ProvinceMap``, registered under the name a
  campaign file records in ``scenario_meta.ruleset`` (:func:`province_reader`);
* a :class:`ProvinceMap`: each province's owner and tooltip rows (:class:`ProvinceFacts`), a
  colour per owner, markers (:class:`Marker`: ``seat``, ``capital``, ``resource``,
  ``fortification``, ``suburb``, ``temple``, ``fleet``, ``army``) placed in a province or a sea
  quadrant, the sea quadrants' tooltip rows (:class:`SeaFacts`), outlined sets of provinces
  (:class:`Outline`, e.g. "Rome may attack"), the panel's rows and, for a faction's view, what the
  view leaves out, in words.

Web maps import no engine module (the layering of tests/test_packaging.py), so a reader reads
the ruleset's tables with SQL, as :mod:`web_maps.scenario_layers` does for Vae Victis.  The Rise of
Rome's reader is :func:`rise_of_rome` below, Mare Nostrum's :func:`mare_nostrum`: each a function of
that signature decorated with ``@province_reader(ruleset)`` (docs/provinces.md, "Maps").

Decisions where the issue is silent:

- The provinces are drawn translucent over the hex terrain layer, which stays underneath (and
  keeps its own tooltips where no province lies: seas, unassigned land).
- A power's *seat* (a star) is the capital of its first home province in scenario order; every
  other province's capital is a dot in its owner's colour.
- Markers that share a province stand side by side at a point inside it (shapely's
  ``point_on_surface``), the seat and capitals at the capital's hex.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from folium.map import Layer
from folium.template import Template

from bellica.geo.errors import InputError
from bellica.geo.logs import logger
from bellica.schema import existing_columns, existing_tables
from bellica.web_maps.encode import to_json
from bellica.web_maps.layers import LegendItem, LegendSection, PointLayer, StatusPanel

log = logger(__name__)

__all__ = [
    "MARKER_STYLES",
    "PALETTE",
    "Marker",
    "Outline",
    "ProvinceFacts",
    "ProvinceLayer",
    "ProvinceMap",
    "SeaFacts",
    "add_province_layers",
    "mare_nostrum",
    "province_reader",
    "province_ruleset",
    "rise_of_rome",
    "trossian",
]

#: Owner colours in order of the ruleset's powers (the player's first): a qualitative palette.
PALETTE = ("#c62828", "#6d4c41", "#f9a825", "#2e7d32", "#1565c0", "#8e24aa", "#00897b", "#ef6c00",
           "#3949ab", "#ad1457", "#546e7a", "#9e9d24", "#4e342e", "#26a69a")
NOBODY = "#bdbdbd"  # a province nobody holds (or an external army occupies)
SEA_COLOUR = "#0b3a66"

#: kind -> (PointLayer shape, colour or None for the owner's, size in px, legend words).
MARKER_STYLES = {
    "seat": ("star", None, 11, "a power's seat (capital of its first home province)"),
    "capital": ("circle", None, 4, "a province's capital"),
    "resource": ("army", "#b8860b", 9, "resource (its name's first letters)"),
    "fortification": ("army", "#424242", 8, "fortification (F)"),
    "suburb": ("army", "#8d6e63", 8, "suburb (S)"),
    "temple": ("army", "#6a1b9a", 8, "temple (T)"),
    "fleet": ("navy", None, 9, "fleet, in its sea quadrant"),
    "army": ("army", None, 11, "army (points)"),
    # Trossian (trossian below):
    "town": ("circle", "#424242", 3, "town"),
    "port": ("circle", "#0d47a1", 5, "port (navies berth there)"),
    "navy": ("navy", None, 9, "navy, in its sea lane"),
    "ice": ("army", "#81d4fa", 9, "frozen sea lane (ice)"),
    "courier": ("army", "#fdd835", 8, "your courier in transit (C)"),
}


@dataclass(frozen=True)
class ProvinceFacts:
    """One province as the ruleset sees it: ``owner`` (None: nobody) and tooltip rows after the
    province's name and owner (``(label, value)``; a None value leaves the row out)."""

    name: str
    owner: str | None
    rows: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Marker:
    """Something drawn in a province (or, with ``sea``, a sea quadrant): ``kind`` one of
    :data:`MARKER_STYLES`; ``text`` the counter's text (or the label of a seat); ``owner`` gives
    the colour where the kind has none of its own; ``lon``/``lat`` override the placement."""

    kind: str
    text: str = ""
    province: str | None = None
    sea: str | None = None
    owner: str | None = None
    rows: tuple[tuple[str, object], ...] = ()
    sub: str | None = None
    lon: float | None = None
    lat: float | None = None


@dataclass(frozen=True)
class SeaFacts:
    """A sea quadrant's tooltip rows (its name comes first)."""

    name: str
    rows: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Outline:
    """A layer outlining some provinces (e.g. those the player may attack this turn)."""

    name: str
    colour: str
    provinces: tuple[str, ...]
    show: bool = True


@dataclass(frozen=True)
class ProvinceMap:
    """What a ruleset's reader gives the map (see the module doc)."""

    title: str
    viewer: str | None
    colours: Mapping[str, str]
    provinces: Sequence[ProvinceFacts]
    markers: Sequence[Marker] = ()
    seas: Sequence[SeaFacts] = ()
    outlines: Sequence[Outline] = ()
    panel: Sequence[tuple[str, str]] = ()
    hidden: str = ""
    legend: Sequence[LegendItem] = field(default_factory=tuple)
    owner_notes: Mapping[str, str] = field(default_factory=dict)
    """A few words after an owner's name in the legend (its status, its revenue)."""

    def colour(self, owner: str | None) -> str:
        return self.colours.get(owner, NOBODY) if owner else NOBODY


ProvinceReader = Callable[[object, "str | None"], ProvinceMap]
READERS: dict[str, ProvinceReader] = {}


def province_reader(ruleset: str) -> Callable[[ProvinceReader], ProvinceReader]:
    """Register ``reader(con, faction) -> ProvinceMap`` for campaigns of ``ruleset``."""

    def register(reader: ProvinceReader) -> ProvinceReader:
        READERS[ruleset] = reader
        return reader

    return register


def province_ruleset(con) -> str | None:
    """The ruleset of a province campaign this module can draw (its reader is registered and the
    file has the province builder's ``provinces``), else None."""
    tables = existing_tables(con)
    if "provinces" not in tables or "scenario_meta" not in tables:
        return None
    row = con.execute("SELECT value FROM scenario_meta WHERE key = 'ruleset'").fetchone()
    return row[0] if row and row[0] in READERS else None


# --- geometry ---------------------------------------------------------------------------------


def _encode_ring(coords: np.ndarray, scale: int) -> list[int]:
    q = np.rint(np.asarray(coords)[:-1, :2] * scale).astype(np.int64)  # Leaflet closes rings itself
    d = q.copy()
    d[1:] -= q[:-1]
    return d.ravel().tolist()


def encode_polygons(geom, *, precision: int) -> list[list[list[int]]]:
    """A (Multi)Polygon as ``[[exterior, hole, ...], ...]`` delta arrays (``bellicaDecode``'s format)."""
    scale = 10**precision
    out = []
    for part in shapely.get_parts(geom):
        if part.is_empty or part.geom_type != "Polygon":
            continue
        rings = [part.exterior, *part.interiors]
        out.append([_encode_ring(np.asarray(r.coords), scale) for r in rings])
    return out


class ProvinceLayer(Layer):
    """Filled polygons (provinces or sea quadrants), one colour and tooltip each; optional permanent labels."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (D) {
            var group = L.featureGroup();
            for (var i = 0; i < D.p.length; i++) {
                var polys = D.p[i].map(function (poly) {
                    return poly.map(function (ring) { return bellicaDecode(ring, D.q); });
                });
                var st = L.extend({}, D.style, {fillColor: D.c[i], owner: i});
                if (D.stroke) st.color = D.stroke[i] || st.color;
                group.addLayer(L.polygon(polys, st));
            }
            if (D.tips.length) {
                group.bindTooltip(function (layer) { return bellicaTable(D.tips[layer.options.owner]); },
                                  {sticky: true, className: 'bellica-tip'});
                group.on('mouseover', function (e) { e.layer.setStyle({weight: D.style.weight + 2}); });
                group.on('mouseout', function (e) { e.layer.setStyle({weight: D.style.weight}); });
                group.on('click', function (e) {
                    L.DomEvent.stop(e);
                    L.popup({className: 'bellica-tip bellica-pinned', autoPan: false}).setLatLng(e.latlng)
                        .setContent(bellicaTable(D.tips[e.layer.options.owner])).openOn(e.layer._map);
                });
            }
            return group;
        })({{ this.data_json }});
        {% endmacro %}
        """
    )

    def __init__(self, polygons: Sequence[list], colours: Sequence[str], tips: Sequence[Sequence[tuple[str, object]]], *,
                 precision: int, name: str, show: bool = True, stroke: str = "#1b1b1b", weight: float = 1.5,
                 fill_opacity: float = 0.45, dash: str | None = None, strokes: Sequence[str] | None = None,
                 interactive: bool = True):
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "ProvinceLayer"
        if not len(polygons) == len(colours) == len(tips):
            raise ValueError("ProvinceLayer: polygons, colours and tips must have one entry per feature")
        style = {"color": stroke, "weight": weight, "opacity": 0.9, "fillOpacity": fill_opacity,
                 "lineJoin": "round", "interactive": interactive}
        if dash:
            style["dashArray"] = dash
        data = {"q": 10**precision, "p": list(polygons), "c": list(colours),
                "tips": [[[str(a), b if b is None or isinstance(b, (int, float)) else str(b)] for a, b in t] for t in tips]
                if interactive else [], "style": style}
        if strokes is not None:
            data["stroke"] = list(strokes)
        self.data_json = to_json(data)


def _geometries(con, table: str) -> dict[str, tuple[object, tuple[float, float] | None]]:
    """{name: (geometry, capital (lon, lat) or None)} of the ``provinces`` or ``sea_areas`` table."""
    from bellica.web_maps.terrain_map import wkb_geometries

    cols = existing_columns(con, table)
    if "geom" not in cols or "name" not in cols:
        return {}
    capital = "capital_lon, capital_lat" if {"capital_lon", "capital_lat"} <= set(cols) else "NULL, NULL"
    rows = con.execute(f"SELECT name, {capital}, ST_AsWKB(geom) FROM {table} ORDER BY name").fetchall()
    geoms = wkb_geometries([r[3] for r in rows])
    return {r[0]: (g, (float(r[1]), float(r[2])) if r[1] is not None else None) for r, g in zip(rows, geoms)}


def _inside(geom) -> tuple[float, float]:
    """(lon, lat) of a point inside ``geom`` (its largest part)."""
    parts = shapely.get_parts(geom)
    big = max(parts, key=lambda p: p.area) if len(parts) else geom
    p = shapely.point_on_surface(big)
    return float(p.x), float(p.y)


def _points(pm: ProvinceMap, provinces, seas) -> list[dict]:
    """The markers as PointLayer points; markers sharing a place stand side by side."""
    points, slots = [], {}
    for mk in pm.markers:
        shape, colour, r, _words = MARKER_STYLES.get(mk.kind, MARKER_STYLES["army"])
        colour = colour or pm.colour(mk.owner)
        if mk.lon is not None and mk.lat is not None:
            lon, lat = mk.lon, mk.lat
        elif mk.sea is not None and mk.sea in seas:
            lon, lat = _inside(seas[mk.sea][0])
        elif mk.province in provinces:
            geom, capital = provinces[mk.province]
            lon, lat = capital if mk.kind in ("seat", "capital") and capital else _inside(geom)
        else:
            log.warning("marker %s %r stands in %r, which has no geometry: left out", mk.kind, mk.text,
                        mk.sea or mk.province)
            continue
        p = {"ll": [round(lat, 5), round(lon, 5)], "shape": shape, "colour": colour, "r": r,
             "text": mk.text, "tip": [[str(a), str(b)] for a, b in mk.rows if b is not None] or None}
        if mk.sub:
            p["sub"] = mk.sub
        if shape in ("army", "navy"):
            key = (mk.sea, mk.province, mk.lon, mk.lat)
            n = slots.get(key, 0)
            slots[key] = n + 1
            p["dx"], p["dy"] = n * (2 * r + 6), 6
        if mk.kind == "seat":
            p["label"], p["lc"], p["prio"] = mk.text, "bellica-label capital", 3
        points.append(p)
    return points


def add_province_layers(m, con, *, faction: str | None, precision: int) -> tuple[list[LegendSection], str, StatusPanel]:
    """Draw the province campaign of ``con`` on ``m``: the legend's sections, the page's title, its panel."""
    ruleset = province_ruleset(con)
    if ruleset is None:
        raise InputError("this database is no province campaign this map can draw: make one with "
                         "`bellica campaign new --scenario rise-of-rome`")
    pm = READERS[ruleset](con, faction)
    provinces = _geometries(con, "provinces")
    seas = _geometries(con, "sea_areas") if "sea_areas" in existing_tables(con) else {}

    sections: list[LegendSection] = []
    if seas:
        facts = {s.name: s for s in pm.seas}
        names = sorted(seas)
        m.add_child(ProvinceLayer([encode_polygons(seas[n][0], precision=precision) for n in names],
                                  [SEA_COLOUR] * len(names),
                                  [[("sea", n), *facts.get(n, SeaFacts(n)).rows] for n in names],
                                  precision=precision, name="Sea quadrants", stroke=SEA_COLOUR, weight=2,
                                  fill_opacity=0.08, dash="6 4"))
        m.add_child(PointLayer([{"ll": [round(y, 5), round(x, 5)], "shape": "none", "r": 0, "label": n,
                                 "lc": "bellica-zone-label", "prio": 1}
                                for n in names for x, y in [_inside(seas[n][0])]], name="Sea quadrant names"))
    drawn = [f for f in pm.provinces if f.name in provinces]
    missing = sorted(f.name for f in pm.provinces if f.name not in provinces)
    if missing:
        log.warning("provinces without geometry (not drawn): %s", ", ".join(missing))
    m.add_child(ProvinceLayer([encode_polygons(provinces[f.name][0], precision=precision) for f in drawn],
                              [pm.colour(f.owner) for f in drawn],
                              [[("province", f.name), ("owner", f.owner or "nobody"), *f.rows] for f in drawn],
                              precision=precision, name="Provinces"))
    m.add_child(PointLayer([{"ll": [round(y, 5), round(x, 5)], "shape": "none", "r": 0, "label": f.name,
                             "lc": "bellica-label", "prio": 2}
                            for f in drawn for x, y in [_inside(provinces[f.name][0])]], name="Province names"))
    for o in pm.outlines:
        shown = [p for p in o.provinces if p in provinces]
        if shown:
            m.add_child(ProvinceLayer([encode_polygons(provinces[p][0], precision=precision) for p in shown],
                                      [o.colour] * len(shown), [[] for _ in shown], precision=precision, name=o.name,
                                      show=o.show, stroke=o.colour, weight=4, fill_opacity=0.0, dash="8 5",
                                      interactive=False))
    points = _points(pm, provinces, seas)
    if points:
        m.add_child(PointLayer(points, name="Capitals, resources, forces"))

    held: dict[str | None, int] = {}
    for f in drawn:
        held[f.owner] = held.get(f.owner, 0) + 1
    owners = [LegendItem(o + (" (you)" if o == pm.viewer else "") + (f" \u00b7 {pm.owner_notes[o]}" if pm.owner_notes.get(o) else ""),
                         c, count=held.get(o)) for o, c in pm.colours.items() if held.get(o)]
    if held.get(None):
        owners.append(LegendItem("nobody (or occupied)", NOBODY, count=held[None]))
    sections.append(LegendSection("Provinces by owner", owners))
    kinds = [k for k in MARKER_STYLES if any(mk.kind == k for mk in pm.markers)]
    shapes = {"star": "star", "circle": "dot", "army": "swatch", "navy": "hull"}
    marks = [LegendItem(MARKER_STYLES[k][3], MARKER_STYLES[k][1] or "#555", shape=shapes[MARKER_STYLES[k][0]],
                        count=sum(1 for mk in pm.markers if mk.kind == k)) for k in kinds]
    marks += [LegendItem(o.name, o.colour, shape="dashed", count=len(o.provinces)) for o in pm.outlines]
    if seas:
        marks.append(LegendItem("sea quadrant", SEA_COLOUR, shape="dashed", count=len(seas)))
    sections.append(LegendSection("On the map", marks + list(pm.legend)))
    rows = list(pm.panel)
    if pm.hidden:
        rows.append(("Hidden", pm.hidden))
    head = "umpire's view" if pm.viewer is None else f"view of {pm.viewer}"
    return sections, pm.title, StatusPanel(head, rows)


# --- the Rise of Rome ---------------------------------------------------------------------------


def _one(con, sql: str, params=None, default=None):
    row = con.execute(sql, params or []).fetchone()
    return row[0] if row and row[0] is not None else default


def _rule(rules: Mapping[str, str], key: str, default=None):
    import json

    value = rules.get(key)
    return default if value is None else json.loads(value)


def _bc(year: int) -> str:
    return f"{-year} BC" if year < 0 else f"AD {year}"


@province_reader("rise-of-rome")
def rise_of_rome(con, faction: str | None) -> ProvinceMap:
    """The Rise of Rome: the nineteen provinces by controlling power, every capital, each power's seat,
    the resources, the external armies; Rome's attack options outlined; the turn, phase, Civic
    Development and verdict bands in the panel.

    A faction's view (any of the nine powers) hides nothing: the solo player sees the whole board
    and every power's state; what nobody knows, the powers' future dice (ruler changes, attack and
    target rolls, battles), is drawn only when its phase is played, so no page can show it."""
    tables = existing_tables(con)
    powers = con.execute("SELECT name, external, player FROM ror_powers ORDER BY ord").fetchall()
    nations = [p for p, ext, _ in powers if not ext]
    player = next((p for p, _e, pl in powers if pl), nations[0] if nations else None)
    viewer = None
    if faction is not None:
        by_lower = {p.lower(): p for p in nations}
        viewer = by_lower.get(faction.strip().lower())
        if viewer is None:
            raise InputError(f"--faction {faction!r} is no power of this campaign: use one of {', '.join(nations)}")
    colours = {p: PALETTE[i % len(PALETTE)] for i, (p, _e, _pl) in enumerate(powers)}
    control = dict(con.execute("SELECT province, power FROM ror_control").fetchall())
    armies = con.execute("SELECT power, province, points, arrived, paymaster FROM ror_externals ORDER BY power").fetchall()
    occupied = {prov: (w, pts) for w, prov, pts, _a, _pay in armies if prov}
    status = {r[0]: r[1:] for r in con.execute(
        "SELECT power, status, provinces, revenue, civic_only FROM ror_powers_state").fetchall()}
    nxt = ({r[0]: r[1] for r in con.execute("SELECT power, total FROM ror_revenue_next").fetchall()}
           if "ror_revenue_next" in tables else {})
    rules = dict(con.execute("SELECT key, value FROM rules").fetchall()) if "rules" in tables else {}
    campaign = dict(con.execute("SELECT key, value FROM campaign").fetchall()) if "campaign" in tables else {}
    game = dict(con.execute("SELECT key, value FROM ror_game").fetchall())
    rows = con.execute("SELECT name, home, resource, coastal, revenue, capital FROM ror_provinces ORDER BY ord").fetchall()

    facts, markers, seats = [], [], set()
    for name, home, resource, coastal, revenue, capital in rows:
        army = occupied.get(name)
        owner = None if army else control.get(name)
        st = status.get(owner) if owner else None
        facts.append(ProvinceFacts(name, owner, (
            ("held by (occupied)", control.get(name) if army else None),
            ("occupied by", f"the {army[0]} army, {army[1]} points" if army else None),
            ("owner's status", st[0] if st else None),
            ("home of", home),
            ("capital", capital or None),
            ("revenue", revenue),
            ("resource", resource or None),
            ("coastal", "yes" if coastal else "no"),
            ("owner's revenue next turn", nxt.get(owner) if owner else None),
        )))
        seat = home is not None and home not in seats
        if seat:
            seats.add(home)
        if capital:
            markers.append(Marker("seat" if seat else "capital", capital if seat else "", province=name, owner=owner,
                                  rows=(("capital", capital), ("of", name),
                                        ("seat of", home if seat else None), ("held by", owner or "nobody"))))
        if resource:
            markers.append(Marker("resource", resource[:3].capitalize(), province=name,
                                  rows=(("resource", resource), ("province", name), ("held by", owner or "nobody"))))
    for w, prov, pts, arrived, paymaster in armies:
        if prov:
            markers.append(Marker("army", str(pts), province=prov, owner=w,
                                  rows=(("army of", w), ("points", pts), ("in", prov), ("landed on turn", arrived),
                                        ("paid by", paymaster))))

    outlines = []
    if "ror_attackable" in tables and player:
        targets = tuple(r[0] for r in con.execute(
            "SELECT DISTINCT province FROM ror_attackable WHERE attacker = ? ORDER BY 1", [player]).fetchall())
        outlines.append(Outline(f"{player} may attack", "#b71c1c", targets))

    turn = int(game.get("turn", 0) or 0)
    turns = _rule(rules, "game.turns")
    first, per = _rule(rules, "game.first_year"), _rule(rules, "game.years_per_turn")
    panel = []
    if turn and first is not None and per is not None:
        y0 = first + (turn - 1) * per
        panel.append(("Turn", f"{turn} of {turns} ({_bc(y0)} to {_bc(y0 + per)})"))
    else:
        panel.append(("Turn", "not started"))
    phase = campaign.get("phase")
    if phase:
        panel.append(("Phase", phase + (f" ({campaign['stage']})" if campaign.get("stage") else "")))
    spent, lost = int(game.get("civic_spent", 0) or 0), int(game.get("civic_penalty", 0) or 0)
    panel.append(("Civic Development", f"{spent - lost} ({spent} spent - {lost} lost)"))
    bands = [(k, _rule(rules, f"civic.verdicts.{k}")) for k in ("assured", "italy", "provincial")]
    if all(v is not None for _k, v in bands):
        panel.append(("Verdict bands", f"assured {bands[0][1]}+, Italy {bands[1][1]}+, provincial over {bands[2][1]}"))
    if game.get("verdict"):
        panel.append(("Verdict", game["verdict"]))
    if player and nxt.get(player) is not None:
        panel.append((f"{player}' revenue next turn", str(nxt[player])))
    notes = {}
    for w in nations:
        st = status.get(w)
        if st is not None and st[0] != "active":
            notes[w] = st[0]
        elif nxt.get(w) is not None:
            notes[w] = f"revenue next turn {nxt[w]}"

    title = _one(con, "SELECT value FROM scenario_meta WHERE key = 'title'", default="Rise of Rome")
    hidden = HIDDEN_FROM_ROME if viewer else ""
    return ProvinceMap(title=title, viewer=viewer, colours=colours, provinces=facts, markers=markers,
                       outlines=outlines, panel=panel, hidden=hidden, owner_notes=notes)


#: What a Rise of Rome faction's view leaves out: nothing on the board (the solo player sees every power's
#: state); the powers' future dice (rulers, attacks, targets, battles) are drawn only when their phase is played.
HIDDEN_FROM_ROME = "nothing (only the powers' future dice, not yet rolled)"


# --- Mare Nostrum -------------------------------------------------------------------------------

#: What a Mare Nostrum faction's view leaves out: nothing.  The seed's campaign is played in the open (the
#: umpire posts the map after every turn, the players declare their actions on the forum, the lottery numbers
#: are public), so a nation sees every nation's provinces, works, fleets, stability and treasury.
HIDDEN_IN_MARE_NOSTRUM = "nothing: the campaign is played in the open (only lottery numbers not yet drawn)"

#: The colour of pirate fleets (event "Pirates"), which belong to no nation.
PIRATE_COLOUR = "#212121"
_WORKS = (("fortifications", "fortification", "F"), ("suburbs", "suburb", "S"), ("temples", "temple", "T"))


@province_reader("mare-nostrum")
def mare_nostrum(con, faction: str | None) -> ProvinceMap:
    """Mare Nostrum: the thirty-eight provinces by holding nation in the nation's own colour
    (``mn_nations.colour``), each nation's capital (a star) and every province's chief city, the
    fortifications, suburbs and temples standing, Defensive Artworks, the fleets in their sea
    quadrants (pirates' included), the invaders' and allied armies of this turn's battles; the
    provinces the acting nation (or, in a faction's view, that nation) may attack are outlined
    (the ``mn_attackable`` view), and so are this turn's battles; the panel gives the turn and its
    years, the phase, the acting nation, the order of play and each nation's provinces, treasury,
    stability and actions.

    A faction's view (any of the six nations) hides nothing (:data:`HIDDEN_IN_MARE_NOSTRUM`)."""
    import json

    tables = existing_tables(con)
    nations = con.execute("SELECT name, colour, capital FROM mn_nations ORDER BY ord").fetchall()
    names = [n for n, _c, _cap in nations]
    viewer = None
    if faction is not None:
        by_lower = {n.lower(): n for n in names}
        viewer = by_lower.get(faction.strip().lower())
        if viewer is None:
            raise InputError(f"--faction {faction!r} is no nation of this campaign: use one of {', '.join(names)}")
    colours = {n: (c or PALETTE[i % len(PALETTE)]) for i, (n, c, _cap) in enumerate(nations)}
    rules = dict(con.execute("SELECT key, value FROM rules").fetchall()) if "rules" in tables else {}
    pirates = _rule(rules, "events.pirates.title")  # the pirate fleets' owner, as the rules name it
    colours[pirates] = PIRATE_COLOUR
    capitals = {cap: n for n, _c, cap in nations}

    def rows_of(table: str, sql: str) -> list:  # a campaign not yet started has no state tables
        return con.execute(sql).fetchall() if table in tables else []

    started = "mn_control" in tables
    control = (dict(rows_of("mn_control", "SELECT province, nation FROM mn_control")) if started else
               dict(con.execute("SELECT name, nation FROM mn_provinces").fetchall()))  # the scenario's start
    works = {r[0]: r[1:] for r in rows_of("mn_works", "SELECT province, fortifications, suburbs, temples FROM mn_works")}
    state = {r[0]: r[1:] for r in rows_of(
        "mn_nations_state", "SELECT nation, stability, treasury, actions, used, event, artworks, left_game, provinces "
        "FROM mn_nations_state")}
    fleets = rows_of("mn_fleets", "SELECT fleet, owner, sea FROM mn_fleets ORDER BY fleet")
    attacks = rows_of("mn_attacks", "SELECT seq, kind, attacker, target, defender, base, sea, army, managed_by "
                                    "FROM mn_attacks ORDER BY seq")
    order = [r[0] for r in rows_of("mn_order", "SELECT nation FROM mn_order ORDER BY position")]
    game = dict(rows_of("mn_game", "SELECT key, value FROM mn_game"))
    campaign = dict(con.execute("SELECT key, value FROM campaign").fetchall()) if "campaign" in tables else {}
    titles = {k.split(".")[1]: json.loads(v) for k, v in rules.items() if k.startswith("events.") and k.endswith(".title")}
    sea_notes = dict(con.execute("SELECT name, note FROM mn_seas").fetchall()) if "mn_seas" in tables else {}
    rows = con.execute("SELECT name, nation, role, city, seas, revenue FROM mn_provinces ORDER BY ord").fetchall()

    battles = {t: (kind, attacker, army, managed, base, sea) for _s, kind, attacker, t, _d, base, sea, army, managed in attacks}
    facts, markers, facing = [], [], {}
    for name, nation, role, city, seas_json, revenue in rows:
        owner = control.get(name)
        seas = json.loads(seas_json or "[]")
        for s in seas:
            facing.setdefault(s, []).append(name)
        w = works.get(name, (0, 0, 0))
        st = state.get(owner) if owner else None
        fight = battles.get(name)
        attacker = None
        if fight:
            kind, who, army, managed, base, sea = fight
            attacker = (f"{who}" if who else f"invaders ({army}, played by {managed})") + (
                f" with the {army}" if who and army else "") + (f" from {base}" if base else "") + (f" across {sea}" if sea else "")
        facts.append(ProvinceFacts(name, owner, (
            ("province of", f"{nation} ({role})" if nation else "independent"),
            ("chief city", city or None),
            ("treasury points", revenue),
            ("faces", ", ".join(seas) or "no sea (inland)"),
            ("works", ", ".join(f"{n} {label}" for n, (_c, label, _t) in zip(w, _WORKS) if n) or None),
            ("attacked this turn by", attacker),
            ("holder's stability", st[0] if st else None),
        )))
        seat = capitals.get(name) == nation and role == "capital"
        markers.append(Marker("seat" if seat else "capital", city if seat else "", province=name, owner=owner,
                              rows=(("chief city", city), ("of", name), ("capital of", nation if seat else None),
                                    ("held by", owner or "independent"))))
        for n, (_col, kind, letter) in zip(w, _WORKS):
            if n:
                markers.append(Marker(kind, letter, province=name,
                                      rows=((kind, name), ("held by", owner or "independent"))))
    for n in names:
        st = state.get(n)
        if st and st[5]:
            markers.append(Marker("fortification", "A", province=st[5],
                                  rows=(("Defensive Artworks of", n), ("in", st[5]), ("for", "this turn"))))
    for fleet, owner, sea in fleets:
        markers.append(Marker("fleet", str(fleet), sea=sea, owner=owner,
                              rows=(("fleet", fleet), ("of", owner), ("in", sea))))
    for _seq, kind, attacker, target, defender, _base, _sea, army, managed in attacks:
        if kind in ("invasion", "alliance"):
            markers.append(Marker("army", "Inv" if kind == "invasion" else "All", province=target, owner=attacker,
                                  rows=(("army", army), ("invades" if kind == "invasion" else "allied with", attacker or target),
                                        ("against", defender or "the independents"), ("played by", managed or attacker))))

    seas = []
    for s in sorted(set(sea_notes) | set(facing)):
        here = [f"{f} ({o})" for f, o, q in fleets if q == s]
        seas.append(SeaFacts(s, (("note", sea_notes.get(s) or None), ("coasts", ", ".join(facing.get(s, [])) or None),
                                 ("fleets", ", ".join(here) or "none"))))

    phase = campaign.get("phase") or game.get("phase")
    acting = campaign.get("stage") if phase == "actions" else None
    turn = int(game.get("turn", 0) or 0)
    outlines = []
    who = viewer or acting
    if who and "mn_attackable" in tables:
        targets = tuple(r[0] for r in con.execute(
            "SELECT province FROM mn_attackable WHERE attacker = ? ORDER BY province", [who]).fetchall())
        outlines.append(Outline(f"{who} may attack by land", "#b71c1c", targets))
    if attacks:
        outlines.append(Outline(f"battles of turn {turn}", "#ff6f00", tuple(a[3] for a in attacks)))

    turns, first, per = _rule(rules, "game.turns"), _rule(rules, "game.first_year"), _rule(rules, "game.years_per_turn")
    panel = []
    if phase == "begin" or turn == 0:
        nxt = turn + 1
        panel.append(("Turn", (f"{turn} of {turns} over; " if turn else "") + f"turn {nxt} to begin"))
    elif first is not None and per is not None:
        y0 = first + (turn - 1) * per
        panel.append(("Turn", f"{turn} of {turns} ({_bc(y0)} to {_bc(y0 + per)})"))
    else:
        panel.append(("Turn", str(turn)))
    if phase:
        panel.append(("Phase", phase))
    if acting:
        panel.append(("Acting", acting))
    if order:
        panel.append(("Order of play", ", ".join(order)))
    if game.get("winner"):
        panel.append(("Winner", game["winner"]))
    if game.get("verdict"):
        panel.append(("Verdict", game["verdict"]))
    notes = {}
    for n in names:
        st = state.get(n)
        if st is None:
            continue
        stab, treas, acts, used, event, _art, out, held = st
        if out:
            text = f"out of the game ({out})"
        else:
            text = f"{held} provinces, treasury {treas}, stability {stab}, {used} of {acts} actions used"
            if event and event in titles:
                text += f", {titles[event]}"
        panel.append((n, text))
        notes[n] = "out" if out else f"stability {stab}, treasury {treas}"

    title = _one(con, "SELECT value FROM scenario_meta WHERE key = 'title'", default="Mare Nostrum")
    legend = [LegendItem("pirates' fleet", PIRATE_COLOUR, shape="hull")] if any(o == pirates for _f, o, _s in fleets) else []
    return ProvinceMap(title=title, viewer=viewer, colours=colours, provinces=facts, markers=markers, seas=seas,
                       outlines=outlines, panel=panel, hidden=HIDDEN_IN_MARE_NOSTRUM if viewer else "",
                       legend=legend, owner_notes=notes)


# --- Trossian --------------------------------------------------------------------------------------

#: What a nation's view leaves out (Trossian).
HIDDEN_IN_TROSSIAN = ("other nations' army strengths, treasuries, couriers and orders (an army is seen where it "
                      "stands; its units when it fights)")


@province_reader("trossian")
def trossian(con, faction: str | None) -> ProvinceMap:
    """Trossian: the provinces by holder (``tr_nations.colour``), each nation's capital (a star),
    every town and port, the sea lanes with their ice this phase (``tr_lanes_now``), the navies in
    their lanes, the armies (a nation's own with their number of units, others' as a counter with
    no strength), the battles and sieges under way (outlined), and in a nation's view its own
    couriers in transit with their messages and the provinces its armies may reach (``tr_march``);
    the panel gives the date, the step, who has given the phase's orders and, for a nation, its
    treasury.  Another nation's couriers and orders are never read into a nation's view, and the
    umpire's map shows no courier at all (the umpire reads ``tr_couriers_in_transit``)."""
    import json

    tables = existing_tables(con)
    nations = con.execute("SELECT name, colour, capital FROM tr_nations ORDER BY ord").fetchall()
    names = [n for n, _c, _cap in nations]
    viewer = None
    if faction is not None:
        by_lower = {n.lower(): n for n in names}
        viewer = by_lower.get(faction.strip().lower())
        if viewer is None:
            raise InputError(f"--faction {faction!r} is no nation of this campaign: use one of {', '.join(names)}")
    colours = {n: (c or PALETTE[i % len(PALETTE)]) for i, (n, c, _cap) in enumerate(nations)}
    capitals = {cap: n for n, _c, cap in nations}
    started = "tr_control" in tables

    def rows_of(table: str, sql: str, params=None) -> list:
        return con.execute(sql, params).fetchall() if table in tables else []

    control = (dict(rows_of("tr_control", "SELECT province, nation FROM tr_control")) if started else
               dict(con.execute("SELECT name, holder FROM tr_provinces").fetchall()))
    provinces = con.execute("SELECT name, seat, home, kind, note FROM tr_provinces ORDER BY ord").fetchall()
    towns = con.execute("SELECT name, province, lon, lat, port, lane FROM tr_towns ORDER BY ord").fetchall()
    armies = rows_of("tr_armies", "SELECT army, nation, province, aboard, strength, name, rest, standing FROM tr_armies "
                                  "ORDER BY army")
    fleets = rows_of("tr_navies", "SELECT navy, nation, lane, berth FROM tr_navies ORDER BY navy")
    sieges = rows_of("tr_sieges", "SELECT province, nation, done, needed FROM tr_sieges ORDER BY province")
    battles = rows_of("tr_battles", "SELECT battle, province, nations FROM tr_battles ORDER BY battle")
    lanes = rows_of("tr_lanes_now", "SELECT lane, freezes, frozen, note FROM tr_lanes_now") if started else [
        (n, f, False, note) for n, f, note in con.execute("SELECT name, freezes, note FROM tr_lanes ORDER BY ord").fetchall()]
    now = rows_of("tr_now", "SELECT year, phase_name, round, stage FROM tr_now") if started else []
    towns_of: dict[str, list[str]] = {}
    for tname, prov, _lon, _lat, port, _lane in towns:
        towns_of.setdefault(prov, []).append(tname + (" (port)" if port else ""))
    siege_at = {p: (n, d, k) for p, n, d, k in sieges}

    facts, markers = [], []
    for name, seat, home, kind, note in provinces:
        s = siege_at.get(name)
        facts.append(ProvinceFacts(name, control.get(name), (
            ("homeland of", home), ("kind", kind), ("towns", ", ".join(towns_of.get(name, [])) or None),
            ("under siege by", f"{s[0]} ({s[1]} of {s[2]} phases)" if s else None), ("note", note or None))))
        if capitals.get(name) and control.get(name) == capitals[name]:
            markers.append(Marker("seat", capitals[name], province=name, owner=capitals[name],
                                  rows=(("capital of", capitals[name]), ("seat", seat))))
    for tname, prov, lon, lat, port, lane in towns:
        markers.append(Marker("port" if port else "town", "", province=prov, lon=float(lon), lat=float(lat),
                              rows=(("port" if port else "town", tname), ("in", prov),
                                    ("on the lane", lane or None), ("held by", control.get(prov) or "nobody"))))
    for navy, nation, lane, berth in fleets:
        where = berth[5:] if berth.startswith("port:") else (f"off {berth[6:]}" if berth.startswith("coast:") else "at sea")
        markers.append(Marker("navy", str(navy), sea=lane, owner=nation,
                              rows=(("navy", navy), ("of", nation), ("in", lane), ("berth", where))))
    for army, nation, province, aboard, strength, aname, rest, standing in armies:
        own = viewer is not None and nation == viewer
        rows = [("army", f"{army}" + (f" ({aname})" if aname else "")), ("of", nation),
                ("where", f"aboard navy {aboard}" if aboard else province)]
        if own or viewer is None:
            rows += [("units", strength), ("rests", rest or None), ("without HQ", standing or None)]
        text = str(strength) if (own or viewer is None) else "?"
        if aboard:
            lane = next((ln for n, _na, ln, _b in fleets if n == aboard), None)
            markers.append(Marker("army", text, sea=lane, owner=nation, rows=tuple(rows)))
        else:
            markers.append(Marker("army", text, province=province, owner=nation, rows=tuple(rows)))
    seas = []
    for lane, freezes, frozen, note in lanes:
        here = [f"{n} ({na})" for n, na, ln, _b in fleets if ln == lane]
        seas.append(SeaFacts(lane, (("ice", "frozen this phase" if frozen else ("freezes in winter" if freezes else "never freezes")),
                                    ("navies", ", ".join(here) or "none"), ("note", note or None))))
        if frozen:
            markers.append(Marker("ice", "ice", sea=lane, rows=(("lane", lane), ("frozen", "this phase"))))

    outlines = []
    if battles:
        outlines.append(Outline("battles to fight on the table", "#ff6f00", tuple(b[1] for b in battles)))
    if sieges:
        outlines.append(Outline("pacification and sieges", "#6a1b9a", tuple(s[0] for s in sieges)))
    panel: list[tuple[str, str]] = []
    if now:
        year, phase_name, rnd, stage = now[0]
        panel.append(("Date", f"{phase_name} {year}"))
        panel.append(("Step", f"{stage} (round {rnd})"))
        if stage == "orders" and "tr_ready" in tables:
            ready = [r[0] for r in con.execute("SELECT nation FROM tr_ready WHERE round = ? ORDER BY nation", [rnd]).fetchall()]
            panel.append(("Orders in from", ", ".join(ready) or "nobody yet"))
    else:
        panel.append(("Date", "not started"))
    frozen = [ln for ln, _f, fr, _n in lanes if fr]
    panel.append(("Frozen lanes", ", ".join(frozen) or "none"))
    if started:  # diplomacy is public: every nation's page lists the alliances and open offers
        game = dict(rows_of("tr_game", "SELECT key, value FROM tr_game WHERE key IN ('alliances', 'offers')"))
        pairs = json.loads(game.get("alliances") or "[]")
        panel.append(("Alliances", "; ".join(" & ".join(p) for p in pairs) or "none: every nation at war"))
        offers = json.loads(game.get("offers") or "[]")
        if offers:
            panel.append(("Offers of alliance", "; ".join(f"{a} to {b}" for a, b in offers)))
    for b, prov, sides in battles:
        ns = json.loads(sides)
        panel.append((f"Battle {b}", f"{prov}: {' & '.join(ns[0])} against {' & '.join(ns[1])}"))

    if viewer is not None and started:
        bank = con.execute("SELECT treasury, bank FROM tr_treasury WHERE nation = ?", [viewer]).fetchone()
        if bank:
            panel.append(("Your treasury", f"{bank[0]} AP (" + ", ".join(f"{k} {v}" for k, v in json.loads(bank[1]).items()) + ")"))
        for courier, place, mode, to, message, _moved in con.execute(
                "SELECT courier, place, mode, addressee, message, moved FROM tr_couriers_of(?) ORDER BY courier",
                [viewer]).fetchall():
            is_lane = any(place == ln for ln, *_r in lanes)
            markers.append(Marker("courier", "C", sea=place if is_lane else None, province=None if is_lane else place,
                                  rows=(("courier", courier), ("in", place), ("by", mode), ("to", to),
                                        ("message", message))))
        reach = tuple(r[0] for r in con.execute(
            "SELECT DISTINCT \"to\" FROM tr_march WHERE nation = ? ORDER BY 1", [viewer]).fetchall())
        if reach:
            outlines.append(Outline(f"{viewer}'s armies may reach", "#1b5e20", reach, show=False))
        orders = con.execute("SELECT count(*) FROM tr_orders o, tr_now n WHERE o.round = n.round AND o.nation = ?",
                             [viewer]).fetchone()[0]
        panel.append(("Your orders this phase", str(orders)))

    held: dict[str, int] = {}
    for n in control.values():
        if n:
            held[n] = held.get(n, 0) + 1
    notes = {n: f"{held.get(n, 0)} provinces" for n in names}
    title = _one(con, "SELECT value FROM scenario_meta WHERE key = 'title'", default="Trossian campaign")
    return ProvinceMap(title=title, viewer=viewer, colours=colours, provinces=facts, markers=markers, seas=seas,
                       outlines=outlines, panel=panel, hidden=HIDDEN_IN_TROSSIAN if viewer else "", owner_notes=notes)
