"""Folium elements that draw compactly encoded data with Leaflet only (no folium plugins, no CDN).

Each layer is a ``folium.map.Layer`` so folium's ``LayerControl`` lists it and
adds it to the map when ``show`` is true.  Lines and markers are Leaflet
objects on the map's renderer (a canvas: ``prefer_canvas=True``).  Hexes are
not: one Leaflet polygon per hex made a 238k-hex page take seconds and most
of a GiB of heap, so every hex layer (:class:`HexLayer`, :class:`HexOutlineLayer`,
:class:`HexZoneLayer`) is one ``L.BellicaHexes`` (``encode.BELLICA_JS``) that
draws its hexes in view batched, one canvas path per colour, and finds the
hex under the pointer through a bucket grid (issue 11, item 3).

Decisions where the issue is silent:

- The batched layer is an ``L.Path`` on the map's own canvas renderer rather
  than a canvas of its own or canvas tiles: it keeps its place in the draw
  and hit-test order (a river or a city drawn later still takes the pointer),
  zoom animation and partial redraws come from Leaflet, and a hover redraws
  only the box of the hexes it leaves and enters.
- The grey hex outline is one stroke pass over all hexes in view, so an inner
  edge is stroked once instead of twice: its opacity is that of the two old
  strokes composited (0.35 -> 0.58), which keeps the look.
- The page still carries the delta-encoded rings (exact vertices), not cell
  ids rebuilt into hexagons in JS; the hex layer packs them as one base64
  string of varints (``encode.pack_rings``, about half the characters) and
  its payload is a JSON string given to ``JSON.parse``: a 28 MB object
  literal took Chromium ~0.8 s to parse before any of the page ran.
- Below a hex edge of 2.5 px (``raster_edge_px``; thin mode starts at 4 px)
  the hex layer scan-converts its hexes into an image (a pixel takes the
  colour of the hex holding its centre) instead of tracing a canvas path per
  hex: at 238k hexes in view the paths took ~0.7 s, the image ~60 ms, and
  it has no seams.  Zone and outline layers keep paths (they are thin
  strokes or translucent, and cover few hexes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from folium.map import Layer
from folium.template import Template

from bellica.web_maps.assets import RawMacroElement
from bellica.web_maps.encode import pack_rings, to_json, to_json_string

#: A map narrower than this (px) is a phone's: its legend and layer list start folded.
NARROW_PX = 640


@dataclass
class Column:
    """One tooltip row across all features: ``values[i]`` for feature ``i`` (None = row omitted).

    With ``lookup``, values are indices into it (strings repeated 28,000 times
    cost more than their index).  ``suffix`` is appended to the shown value.
    """

    label: str
    values: Sequence
    lookup: Sequence[str] | None = None
    suffix: str = ""

    def spec(self) -> dict:
        out = {"l": self.label, "v": list(self.values)}
        if self.lookup is not None:
            out["k"] = list(self.lookup)
        if self.suffix:
            out["s"] = self.suffix
        return out


class HexLayer(Layer, RawMacroElement):
    """Filled hexagons: ``rings`` (delta arrays), a colour class per hex, tooltip columns, packed by :meth:`pack`.

    ``sides`` (optional, one list per hex: ``[clock, neighbour index, MP, ...]``,
    MP -1 where an army cannot enter) adds a table of the hex's sides to its
    tooltip (neighbour named by the ``name`` column, its terrain or kind from
    the ``terrain``/``kind`` columns, ``side_note`` saying what MP includes)
    and a clock rose drawn on the hex when it is clicked.  A click pins the
    tooltip as a popup (close button, second click or a map click unpins).

    ``raster_edge_px``: below this hex edge on screen the hexes are drawn as an
    image, one pixel per pixel-centre (see the module's decisions).

    All hexes are one ``L.BellicaHexes`` (``encode.BELLICA_JS``) drawn in
    batches on the map's canvas; the tooltip and the pin find the hex under
    the pointer through its grid.  The decoded geometry stays on
    ``<name>_data.g`` (rings: ``<name>_data.ring(i)``) for layers that draw
    a subset of the same hexes (:class:`HexOutlineLayer`, :class:`HexZoneLayer`).
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }}_data = JSON.parse({{ this.data_json }});
        var {{ this.get_name() }} = (function (D) {
            // Decode once into typed arrays shared with the outline and zone layers over these hexes
            // (D.g, D.ring(i)); the packed rings then go.
            D.g = bellicaHexGeometry(D);
            D.vb = null;
            D.ring = function (i) { return bellicaRing(D.g, i); };
            var o = {{ this.style_json }};
            var layer = new L.BellicaHexes(D.g, L.extend({cls: D.c, colours: D.colours, interactive: true,
                                                          strokeAll: true, hover: {{ this.hover_json }}}, o));
            function tipOf(i) {
                var rows = [];
                for (var j = 0; j < D.cols.length; j++) {
                    var col = D.cols[j], x = col.v[i];
                    if (x === null || x === undefined) continue;
                    if (col.k) x = col.k[x];
                    rows.push([col.l, x + (col.s || '')]);
                }
                return bellicaTable(rows) + (D.sides ? bellicaSides(D, i) : '');
            }
            // One sticky tooltip for the whole layer: its content follows the hex under the pointer,
            // found through the layer's grid.  These handlers are bound before the tooltip's own, so the
            // hex is known when the tooltip opens.
            var shown = -1;
            layer.on('mouseover mousemove', function (e) {
                var i = layer.hexAt(e.layerPoint);
                if (i < 0 || i === shown) return;
                shown = i;
                layer.setHovered(i);
                var tip = layer.getTooltip();
                if (tip && tip.isOpen()) tip.update();
            });
            layer.on('mouseout', function () { shown = -1; layer.setHovered(-1); });
            layer.bindTooltip(function () { return tipOf(shown); },
                              {sticky: true, className: 'bellica-tip bellica-hex-tip', direction: 'top', offset: [0, -8]});
            // Click: pin the tooltip (a popup with a close button) and, where the sides are known,
            // draw the clock rose of the hex; a second click on it, the close button or a click on
            // the map unpins.
            var pinned = null, rose = L.layerGroup(), pin = null;
            function unpin() {
                var map = layer._map;
                rose.clearLayers();
                if (map) { map.removeLayer(rose); L.DomUtil.removeClass(map.getContainer(), 'bellica-pinning'); }
                pinned = null;
            }
            layer.on('click', function (e) {
                L.DomEvent.stop(e);
                var map = layer._map, i = layer.hexAt(e.layerPoint);
                if (i < 0) return;
                if (pinned === i) { map.closePopup(pin); return; }
                if (pin) map.closePopup(pin);
                unpin();
                pinned = i;
                var ring = D.ring(i);
                rose.addLayer(L.polygon(ring, {fill: false, color: '#000', weight: 3, interactive: false}));
                if (D.sides) {
                    var s = D.sides[i], c = bellicaCentre(ring);
                    for (var k = 0; k < s.length; k += 3) {
                        var n = bellicaCentre(D.ring(s[k + 1]));
                        var at = [c[0] + 0.42 * (n[0] - c[0]), c[1] + 0.42 * (n[1] - c[1])];
                        var el = document.createElement('div');
                        el.className = 'bellica-rose'; el.textContent = s[k];
                        rose.addLayer(L.marker(at, {icon: L.divIcon({html: el, className: '', iconSize: [18, 18],
                                                                     iconAnchor: [9, 9]}),
                                                    interactive: false, keyboard: false}));
                    }
                }
                rose.addTo(map);
                L.DomUtil.addClass(map.getContainer(), 'bellica-pinning');
                pin = L.popup({className: 'bellica-tip bellica-pinned', maxWidth: 420, autoPanPadding: [10, 10]})
                    // Anchored at the hex's top so the popup stands above the rose, not over it.
                    .setLatLng(ring.reduce(function (a, b) { return b[0] > a[0] ? b : a; })).setContent(tipOf(i));
                pin.on('remove', function () { if (pinned === i) unpin(); });
                pin.openOn(map);
            });
            return layer;
        })({{ this.get_name() }}_data);
        {% endmacro %}
        """
    )

    def __init__(self, data_json: str, *, name: str, show: bool = True, stroke: str = "#3a3a3a",
                 stroke_weight: float = 0.5, stroke_opacity: float = 0.35, fill_opacity: float = 0.92,
                 min_edge_px: float = 4.0, raster_edge_px: float = 2.5):
        """``data_json``: the hexes as :meth:`pack` packs them (packed once, a terrain can be drawn
        again on other pages: its geometry and tooltips are most of a map page's work)."""
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "HexLayer"
        self.data_json = data_json
        # Every inner edge used to be stroked twice (once per polygon): one batched stroke pass
        # draws it once, so it takes the opacity of the two strokes composited.
        self.style_json = to_json({"stroke": stroke, "weight": stroke_weight,
                                   "opacity": round(1 - (1 - stroke_opacity) ** 2, 4),
                                   "fillOpacity": fill_opacity, "thinEdgePx": float(min_edge_px),
                                   "rasterEdgePx": float(raster_edge_px)})
        self.hover_json = to_json({"color": "#000000", "weight": 2.5, "opacity": 1.0})

    @staticmethod
    def pack(rings: list[list[int]], classes: Sequence[int], colours: Sequence[str], columns: Sequence[Column], *,
             precision: int, sides: Sequence[Sequence[int]] | None = None, side_note: str = "") -> str:
        """The hexes as the page's script reads them: one JSON string (the class doc)."""
        if sides is not None and len(sides) != len(rings):
            raise ValueError("HexLayer: sides must have one entry per hex")
        if not (len(rings) == len(classes) and all(len(c.values) == len(rings) for c in columns)):
            raise ValueError("HexLayer: rings, classes and every column must have one entry per hex")
        blob, n_vertices = pack_rings(rings)
        return to_json_string(
            {
                "q": 10**precision,
                "n": len(rings),
                "nv": n_vertices,
                "vb": blob,
                "c": list(classes),
                "colours": list(colours),
                "cols": [c.spec() for c in columns],
                **({"sides": [list(x) for x in sides], "sideNote": side_note} if sides is not None else {}),
            }
        )


class HexOutlineLayer(Layer, RawMacroElement):
    """Outlines of some hexes of a :class:`HexLayer`, given by their indices in it (no geometry repeated)."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (D, which) {
            // Drawn batched from the hex layer's geometry (one stroke path), not one polygon per hex.
            return new L.BellicaHexes(D.g, L.extend({which: which, cls: which.map(function () { return 0; })},
                                                   {{ this.style_json }}));
        })({{ this.hexes.get_name() }}_data, {{ this.indices_json }});
        {% endmacro %}
        """
    )

    def __init__(self, hexes: HexLayer, indices: Sequence[int], *, name: str, colour: str, show: bool = True,
                 weight: float = 2.0):
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "HexOutlineLayer"
        self.hexes = hexes
        self.indices_json = to_json([int(i) for i in indices])
        self.style_json = to_json({"colours": [colour], "fillOpacity": 0, "stroke": colour, "weight": weight,
                                   "opacity": 0.9, "interactive": False})


class PointLayer(Layer, RawMacroElement):
    """Markers: circles (canvas), stars, symbols and army counters (small DOM icons), permanent labels.

    Each point is ``{"ll": [lat, lng], "shape": "circle"|"star"|"army"|"navy"|"symbol"|"ring"|"battle"|"none",
    "colour", "r" (px), "text" (counter text, or a symbol's glyph), "sub" (a counter's second line:
    its strength, or absent), "label" (permanent label or None), "lc" (label class), "ldir" (the
    label's preferred side of its mark; "center" or shape "none": an area's name, on its point),
    "prio" (labels are placed highest first; a lower one gives way), "tip" ([[label, value], ...]
    hover rows)}``; an army counter's top-left corner sits ``dx``/``dy`` px from its centre point
    plus half its width to the left (a navy is an army counter shaped as a hull; a symbol a round
    badge of radius ``r``).  A ring is an unfilled circle of radius ``r`` in ``colour``, stroke
    ``w`` px, dashed by ``dash``.  Labels and marks are handed to ``bellicaRegisterLabels``
    (:mod:`web_maps.cartography`), which places each name clear of the counters and of the names
    placed before it on every zoom.  Every string reaches the page through ``textContent`` or an
    escaper.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (P) {
            var group = L.featureGroup(), labels = [], marks = [];
            P.forEach(function (p) {
                var mark = null;
                if (p.shape === 'circle') {
                    mark = L.circleMarker(p.ll, {radius: p.r, color: '#1a1a1a', weight: 1.5, fillColor: p.colour,
                                                 fillOpacity: 1});
                } else if (p.shape === 'star') {
                    var star = document.createElement('div');
                    star.className = 'bellica-star'; star.textContent = '\u2605';
                    star.style.color = p.colour; star.style.fontSize = (2 * p.r) + 'px';
                    star.style.lineHeight = star.style.width = star.style.height = (2 * p.r) + 'px';
                    mark = L.marker(p.ll, {icon: L.divIcon({html: star, className: '', iconSize: [2 * p.r, 2 * p.r],
                                                            iconAnchor: [p.r, p.r]}), keyboard: false});
                } else if (p.shape === 'army') {
                    var box = document.createElement('div');
                    box.className = 'bellica-army'; bellicaCounter(box, p);
                    var aw = p.sub ? Math.max(2 * p.r, 34) : 2 * p.r, ah = p.sub ? 2 * p.r + 8 : 2 * p.r;
                    box.style.background = p.colour; box.style.width = aw + 'px'; box.style.height = ah + 'px';
                    mark = L.marker(p.ll, {icon: L.divIcon({html: box, className: '', iconSize: [aw, ah],
                                                            iconAnchor: [aw / 2 - (p.dx || 0), -(p.dy || 0)]}),
                                           keyboard: false, zIndexOffset: 1000});
                } else if (p.shape === 'navy') {
                    // A navy: the army counter drawn as a hull (flat deck, rounded keel), wider than tall,
                    // so it never reads as a land army even in a faction's own colour.
                    var hull = document.createElement('div'), w = 2 * p.r + 8;
                    var hh = p.sub ? 2 * p.r + 8 : 2 * p.r;
                    if (p.sub) w = Math.max(w, 38);
                    hull.className = 'bellica-army bellica-navy'; bellicaCounter(hull, p);
                    hull.style.background = p.colour; hull.style.width = w + 'px'; hull.style.height = hh + 'px';
                    hull.style.borderRadius = '2px 2px 50% 50% / 2px 2px 85% 85%';
                    mark = L.marker(p.ll, {icon: L.divIcon({html: hull, className: '', iconSize: [w, hh],
                                                            iconAnchor: [w / 2 - (p.dx || 0), -(p.dy || 0)]}),
                                           keyboard: false, zIndexOffset: 1000});
                } else if (p.shape === 'battle') {
                    var x = document.createElement('div');
                    x.className = 'bellica-battle'; x.textContent = '\u2694';
                    mark = L.marker(p.ll, {icon: L.divIcon({html: x, className: '', iconSize: [22, 22],
                                                            iconAnchor: [11 - (p.dx || 0), 11 - (p.dy || 0)]}),
                                           keyboard: false, zIndexOffset: 900});
                } else if (p.shape === 'symbol') {
                    // A resource or value: its glyph on a round badge of its colour (the legend names it).
                    var sym = document.createElement('div'), d = 2 * p.r;
                    sym.className = 'bellica-symbol'; sym.textContent = p.text || '';
                    sym.style.background = p.colour; sym.style.width = sym.style.height = d + 'px';
                    sym.style.lineHeight = d + 'px'; sym.style.fontSize = Math.round(1.2 * p.r) + 'px';
                    mark = L.marker(p.ll, {icon: L.divIcon({html: sym, className: '', iconSize: [d, d],
                                                            iconAnchor: [p.r - (p.dx || 0), -(p.dy || 0)]}),
                                           keyboard: false, zIndexOffset: 950});
                } else if (p.shape === 'ring') {
                    // A ring around a marker (a blockade): only its stroke takes the pointer, so the
                    // marker inside keeps its own tooltip.
                    mark = L.circleMarker(p.ll, {radius: p.r, color: p.colour, weight: p.w || 3, opacity: 0.95,
                                                 fill: false, dashArray: p.dash || null});
                }
                if (mark) {
                    if (p.tip) {
                        mark.bindTooltip(bellicaTable(p.tip), {className: 'bellica-tip', direction: 'top'});
                        // A click pins the same rows (close button or a second click unpins).
                        mark.bindPopup(bellicaTable(p.tip), {className: 'bellica-tip bellica-pinned', autoPan: false});
                    }
                    group.addLayer(mark);
                    // Names keep off every mark but a ring (a ring surrounds a place and its name).
                    // A counter, symbol or battle keeps every name off; a place's mark only names below its own.
                    var counter = p.shape === 'army' || p.shape === 'navy' || p.shape === 'symbol' || p.shape === 'battle';
                    if (p.shape !== 'ring') marks.push({mark: mark, prio: counter ? Infinity : (p.prio || 0)});
                }
                if (p.label) {
                    // Centred on its point; bellicaDeclutter moves it beside its mark, where it fits.
                    var tip = L.tooltip({permanent: true, interactive: false, direction: 'center', offset: [0, 0],
                                         className: p.lc || 'bellica-label'})
                        .setLatLng(p.ll).setContent(bellicaEsc(p.label));
                    group.addLayer(tip);
                    var area = p.shape === 'none' || p.ldir === 'center';
                    labels.push({tip: tip, prio: p.prio || 0, dir: p.ldir || 'right', area: area,
                                 gap: area ? 0 : (p.r || 0) + BELLICA_CARTO.gap});
                }
            });
            if (labels.length || marks.length) bellicaRegisterLabels({{ this._parent.get_name() }}, group, labels, marks);
            return group;
        })({{ this.data_json }});
        {% endmacro %}
        """
    )

    def __init__(self, points: Sequence[dict], *, name: str, show: bool = True):
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "PointLayer"
        self.data_json = to_json(list(points))


class ProvinceLayer(Layer, RawMacroElement):
    """Areas (provinces, sea areas, outlined sets of them): delta-encoded polygons
    (``encode.encode_polygons``), one fill colour (and optionally stroke colour) and tooltip each.

    ``owned``: the colour is an owner's, drawn as a hatch and a band inside the border
    (``L.BellicaArea``, :mod:`web_maps.cartography`) so the terrain under it keeps its colours;
    ``fill_opacity`` is then unused."""

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
                group.addLayer(D.owned ? new L.BellicaArea(polys, st) : L.polygon(polys, st));
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
                 interactive: bool = True, owned: bool = False):
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
        if owned:
            data["owned"] = True
        self.data_json = to_json(data)


class LineLayer(Layer, RawMacroElement):
    """Polylines (delta arrays), each owned by a feature with tooltip rows ``[[label, value], ...]``."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (D) {
            var group = L.featureGroup();
            for (var i = 0; i < D.v.length; i++) {
                var line = L.polyline(bellicaDecode(D.v[i], D.q), L.extend({owner: D.o[i]}, D.style));
                group.addLayer(line);
            }
            if (D.tips.length) {
                group.bindTooltip(function (layer) { return bellicaTable(D.tips[layer.options.owner]); },
                                  {sticky: true, className: 'bellica-tip'});
            }
            return group;
        })({{ this.data_json }});
        {% endmacro %}
        """
    )

    def __init__(
        self,
        parts: list[list[int]],
        owner: Sequence[int],
        tips: Sequence[Sequence[tuple[str, object]]],
        *,
        precision: int,
        name: str,
        colour: str,
        weight: float = 2.0,
        opacity: float = 0.9,
        dash: str | None = None,
        show: bool = True,
    ):
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "LineLayer"
        style = {"color": colour, "weight": weight, "opacity": opacity, "lineCap": "round", "lineJoin": "round"}
        if dash:
            style["dashArray"] = dash
        self.data_json = to_json(
            {"q": 10**precision, "v": parts, "o": list(owner), "tips": [[list(r) for r in t] for t in tips],
             "style": style}
        )


class HexZoneLayer(Layer, RawMacroElement):
    """Lightly filled, dashed outlines of some hexes of a :class:`HexLayer` (indices in it), each in its own colour.

    Not interactive: a zone drawn over the terrain must leave the hexes'
    own tooltips to the pointer.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (D, Z) {
            // Drawn batched from the hex layer's geometry: one path per colour, filled and stroked.
            var colours = [], cls = Z.c.map(function (c) {
                var k = colours.indexOf(c);
                if (k < 0) { k = colours.length; colours.push(c); }
                return k;
            });
            var st = Z.style, dash = st.dashArray ? st.dashArray.split(/[ ,]+/).map(Number) : null;
            return new L.BellicaHexes(D.g, {which: Z.i, cls: cls, colours: colours, fillOpacity: st.fillOpacity,
                                           stroke: null, weight: st.weight, opacity: st.opacity, dash: dash,
                                           interactive: false});
        })({{ this.hexes.get_name() }}_data, {{ this.data_json }});
        {% endmacro %}
        """
    )

    def __init__(self, hexes: HexLayer, indices: Sequence[int], colours: Sequence[str], *, name: str,
                 show: bool = True, weight: float = 2.0, dash: str | None = "4 3", fill_opacity: float = 0.18):
        super().__init__(name=name, overlay=True, control=True, show=show)
        self._name = "HexZoneLayer"
        if len(indices) != len(colours):
            raise ValueError("HexZoneLayer: indices and colours must have one entry per hex")
        self.hexes = hexes
        style = {"weight": weight, "opacity": 0.95, "fill": True, "fillOpacity": fill_opacity, "interactive": False}
        if dash:
            style["dashArray"] = dash
        self.data_json = to_json({"i": [int(i) for i in indices], "c": list(colours), "style": style})


@dataclass
class LegendItem:
    label: str
    colour: str
    shape: str = "swatch"  # swatch | outline | hatch | line | dot | smalldot | star | ring | dashed | hull | battle | symbol | text
    count: int | None = None
    text: str = ""  # a symbol's glyph


@dataclass
class LegendSection:
    title: str
    items: list[LegendItem] = field(default_factory=list)


class Legend(RawMacroElement):
    """A Leaflet control listing colour swatches/lines by section; labels inserted as text, not HTML."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function (sections) {
            var legend = L.control({position: {{ this.position|tojson }}});
            var map = {{ this._parent.get_name() }};
            legend.onAdd = function () {
                var div = L.DomUtil.create('div', 'bellica-legend');
                L.DomEvent.disableScrollPropagation(div);
                L.DomEvent.disableClickPropagation(div);
                // A button folds the legend to itself (it stands in the first heading's line, so the open
                // legend is no taller for it); folded at load on a narrow map (a phone).
                var head = L.DomUtil.create('button', 'bellica-legend-head', div);
                var body = L.DomUtil.create('div', 'bellica-legend-body', div);
                head.type = 'button'; body.id = 'bellica-legend-body-' + L.Util.stamp(div);
                head.setAttribute('aria-controls', body.id);
                function open(yes) {
                    if (yes) L.DomUtil.removeClass(div, 'bellica-legend-closed');
                    else L.DomUtil.addClass(div, 'bellica-legend-closed');
                    head.textContent = (yes ? '\u25be ' : '\u25b8 ') + 'Legend';
                    head.setAttribute('aria-expanded', yes ? 'true' : 'false');
                }
                div._bellicaOpen = open;
                open(map.getContainer().clientWidth >= {{ this.narrow_px }});
                L.DomEvent.on(head, 'click', function () { open(L.DomUtil.hasClass(div, 'bellica-legend-closed')); });
                sections.forEach(function (s) {
                    var h = L.DomUtil.create('h4', '', body); h.textContent = s.title;
                    s.items.forEach(function (it) {
                        var row = L.DomUtil.create('div', 'bellica-legend-item', body);
                        var sw = L.DomUtil.create('span', it.shape === 'line' ? 'ln' : 'sw', row);
                        if (it.shape === 'line') { sw.style.borderTopColor = it.colour; }
                        else { sw.style.background = it.colour; }
                        if (it.shape === 'outline') { sw.style.background = 'none'; sw.style.border = '2px solid ' + it.colour; }
                        if (it.shape === 'dot') { sw.style.borderRadius = '50%'; sw.style.width = '12px'; }
                        if (it.shape === 'smalldot') { sw.style.borderRadius = '50%'; sw.style.width = '8px';
                            sw.style.height = '8px'; sw.style.margin = '0 8px 0 2px'; sw.style.verticalAlign = '0'; }
                        if (it.shape === 'star') { sw.style.background = 'none'; sw.style.border = 'none';
                            sw.style.color = it.colour; sw.textContent = '\u2605'; sw.style.fontSize = '15px'; }
                        if (it.shape === 'ring') { sw.style.background = 'none'; sw.style.borderRadius = '50%';
                            sw.style.width = '10px'; sw.style.border = '2px dashed ' + it.colour; }
                        if (it.shape === 'dashed') { sw.className = 'ln'; sw.style.background = 'none';
                            sw.style.borderTopColor = it.colour; sw.style.borderTopStyle = 'dashed'; }
                        if (it.shape === 'hull') { sw.style.width = '18px';
                            sw.style.borderRadius = '2px 2px 50% 50% / 2px 2px 85% 85%'; }
                        if (it.shape === 'text') { sw.style.display = 'none'; }
                        if (it.shape === 'hatch') { sw.style.border = '3px solid ' + it.colour; sw.style.width = '10px';
                            sw.style.height = '8px'; sw.style.background = 'repeating-linear-gradient(135deg, ' +
                            it.colour + ' 0 2px, transparent 2px 5px)'; }
                        if (it.shape === 'symbol') { sw.className = 'sw bellica-symbol'; sw.textContent = it.text || '';
                            sw.style.width = sw.style.height = sw.style.lineHeight = '16px'; sw.style.fontSize = '11px'; }
                        if (it.shape === 'battle') { sw.style.background = 'none'; sw.style.border = 'none';
                            sw.textContent = '\u2694'; }
                        var t = L.DomUtil.create('span', '', row); t.textContent = it.label;
                        if (it.count !== null && it.count !== undefined) {
                            var n = L.DomUtil.create('span', 'n', row); n.textContent = '(' + it.count + ')';
                        }
                    });
                });
                return div;
            };
            legend.addTo(map);
            // The legend never runs under the controls at the top of its side (a panel with six
            // nations' rows, the title): it takes the height the map leaves below them, and scrolls.
            function fit() {
                var div = legend.getContainer(), box = map.getContainer().getBoundingClientRect();
                var side = /leaflet-right/.test(div.parentNode.className) ? 'right' : 'left';
                var top = map.getContainer().querySelector('.leaflet-top.leaflet-' + side), used = 0;
                if (top) Array.prototype.forEach.call(top.children, function (el) {
                    used = Math.max(used, el.getBoundingClientRect().bottom - box.top);
                });
                // Anchored at the bottom (above the scale bar): its top may rise to 10 px below them.
                var css = getComputedStyle(div), pad = parseFloat(css.paddingTop) + parseFloat(css.paddingBottom);
                var bottom = div.getBoundingClientRect().bottom - box.top;
                div.style.maxHeight = Math.max(60, bottom - used - 10 - pad) + 'px';
            }
            map.on('resize', fit);
            setTimeout(fit, 0);  // after the other controls are added
        })({{ this.data_json }});
        {% endmacro %}
        """
    )

    def __init__(self, sections: Sequence[LegendSection], *, position: str = "bottomleft", narrow_px: int = NARROW_PX):
        super().__init__()
        self._name = "Legend"
        self.position = position
        self.narrow_px = int(narrow_px)
        self.data_json = to_json(
            [{"title": s.title, "items": [vars(i) for i in s.items]} for s in sections if s.items]
        )


class Title(RawMacroElement):
    """A plain text box naming the map (database, resolution, faction view)."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function (text) {
            var title = L.control({position: {{ this.position|tojson }}});
            title.onAdd = function () {
                var div = L.DomUtil.create('div', 'bellica-title');
                div.textContent = text;
                return div;
            };
            title.addTo({{ this._parent.get_name() }});
        })({{ this.text_json }});
        {% endmacro %}
        """
    )

    def __init__(self, text: str, *, position: str = "topleft"):
        super().__init__()
        self._name = "Title"
        self.position = position
        self.text_json = to_json(text)


class StatusPanel(RawMacroElement):
    """The round, phase and VP of a campaign: a heading line and ``rows`` ([label, value], as text)."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function (P) {
            var panel = L.control({position: {{ this.position|tojson }}});
            panel.onAdd = function () {
                var div = L.DomUtil.create('div', 'bellica-panel');
                var h = L.DomUtil.create('div', 'head', div); h.textContent = P.head;
                var t = L.DomUtil.create('table', '', div);
                P.rows.forEach(function (r) {
                    var tr = L.DomUtil.create('tr', '', t);
                    L.DomUtil.create('td', '', tr).textContent = r[0];
                    L.DomUtil.create('td', '', tr).textContent = r[1];
                });
                return div;
            };
            panel.addTo({{ this._parent.get_name() }});
        })({{ this.data_json }});
        {% endmacro %}
        """
    )

    def __init__(self, head: str, rows: Sequence[tuple[str, str]], *, position: str = "topleft"):
        super().__init__()
        self._name = "StatusPanel"
        self.position = position
        self.data_json = to_json({"head": head, "rows": [[str(a), str(b)] for a, b in rows]})


class PanelToggle(RawMacroElement):
    """A button that shows or hides the legend, the layer list and the panel's table (for phones).

    Collapsed at load when the map is narrower than ``narrow_px``: on a phone
    the legend and layer list would cover half the screen.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function (map, narrow) {
            var ctl = L.control({position: 'topright'});
            ctl.onAdd = function () {
                var b = L.DomUtil.create('button', 'bellica-toggle');
                b.type = 'button';
                var box = map.getContainer();
                function label() {
                    var c = L.DomUtil.hasClass(box, 'bellica-collapsed');
                    b.textContent = c ? '\u2630 Legend & layers' : '\u2715 Hide';
                    b.setAttribute('aria-expanded', c ? 'false' : 'true');
                }
                if (box.clientWidth < narrow) L.DomUtil.addClass(box, 'bellica-collapsed');
                label();
                L.DomEvent.disableClickPropagation(b);
                L.DomEvent.on(b, 'click', function () {
                    if (L.DomUtil.hasClass(box, 'bellica-collapsed')) {
                        L.DomUtil.removeClass(box, 'bellica-collapsed');
                        // Asked for the legend: show it unfolded, not as a second button to press.
                        var lg = box.querySelector('.bellica-legend');
                        if (lg && lg._bellicaOpen) lg._bellicaOpen(true);
                    } else L.DomUtil.addClass(box, 'bellica-collapsed');
                    label();
                });
                return b;
            };
            ctl.addTo(map);
        })({{ this._parent.get_name() }}, {{ this.narrow_px }});
        {% endmacro %}
        """
    )

    def __init__(self, *, narrow_px: int = NARROW_PX):
        super().__init__()
        self._name = "PanelToggle"
        self.narrow_px = int(narrow_px)


class FitView(RawMacroElement):
    """Fit the map to bounds at load, without animation.

    folium's ``fit_bounds`` animates from the initial zoom; while Leaflet
    animates a zoom the canvas ignores the pointer, so a hover right after
    load would show nothing.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        {{ this._parent.get_name() }}.fitBounds({{ this.bounds_json }}, {animate: false, padding: [8, 8]});
        {% endmacro %}
        """
    )

    def __init__(self, south: float, west: float, north: float, east: float):
        super().__init__()
        self._name = "FitView"
        self.bounds_json = to_json([[south, west], [north, east]])


__all__ = ["Column", "FitView", "HexLayer", "HexOutlineLayer", "HexZoneLayer", "Legend", "LegendItem", "LegendSection", "LineLayer",
           "PanelToggle", "PointLayer", "ProvinceLayer", "StatusPanel", "Title"]
