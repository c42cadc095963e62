"""Maps a player reads at a glance (issue 21, item 6): the page's JS that places names where they
fit, keeps them off the counters, and marks who owns an area without tinting its terrain.

``CARTOGRAPHY_JS`` rides in every page's header beside ``encode.BELLICA_JS``; the layers of
:mod:`web_maps.layers` call it.  Constants the Python side also needs (the gap between a mark and
its label, the hatch's geometry) are here once and reach the page as JSON.

Decisions where the issue is silent:

- Names are placed, not only hidden.  On every zoom (and when a layer is switched) the labels are
  taken in priority order (a capital before a city before a town; a sea or province name by its
  layer) and each stands at the first of its candidate places (right of its mark, then left,
  above, below, then the four corners; an area's name on its point, then above, then below it)
  that overlaps no name already placed (with ``LABEL_SPACING_PX`` between them), no counter,
  battle or symbol, and no place's mark of the same or a higher priority (a capital's name may
  cross a village's dot, not the reverse); a name with no such place is hidden until a zoom
  makes room.  So a zoomed-out map shows its important names, and a counter is never drawn over
  a town's name: the name moves instead (the counters stay where the rules' stacking puts them,
  so a player's eye finds them in the same place at every zoom).  Each label's size is measured once (its text never changes) and
  the candidates are boxes computed from it: one layout read per label, not one per candidate.
- Owners: an area's owner is drawn as a solid band of the owner's colour inside its border
  (``OWNER_BAND_PX``, clipped to the area so neighbours' bands never overlap) and a sparse
  diagonal hatch (``HATCH``) over the terrain, not a translucent fill: the hexes between the hatch
  lines keep their true terrain colour, so a Roman mountain still reads as a mountain.  The hatch
  is a canvas pattern (Leaflet's canvas renderer takes any ``fillStyle``).  folium's
  ``plugins.StripePattern`` wraps the npm package leaflet.pattern (0.1.0), which fills SVG paths
  only and is loaded from a CDN: these pages draw on a canvas and fetch nothing, so no plugin.
"""

from __future__ import annotations

import json

#: px kept clear between two placed names.
LABEL_SPACING_PX = 3
#: px between a mark's edge and its name.
LABEL_GAP_PX = 3
#: The owner's band inside an area's border, in px.
OWNER_BAND_PX = 5
#: The owner's hatch: line spacing and width in px, and its opacity over the terrain.
HATCH = {"spacing": 10, "width": 1.5, "opacity": 0.6}

_CONSTANTS = json.dumps({"spacing": LABEL_SPACING_PX, "gap": LABEL_GAP_PX, "band": OWNER_BAND_PX, "hatch": HATCH})

CARTOGRAPHY_JS = """
var BELLICA_CARTO = %s;
/* ---- Names where they fit ------------------------------------------------------------------ */
function bellicaHits(a, list, pad) {
  for (var i = 0; i < list.length; i++) {
    var b = list[i];
    if (a.l < b.r + pad && a.r > b.l - pad && a.t < b.b + pad && a.b > b.t - pad) return true;
  }
  return false;
}
function bellicaCandidates(l) {
  /* [dx, dy] of the label's centre from its point, best first */
  var w = l.w / 2, h = l.h / 2, g = l.gap;
  if (l.area) return [[0, 0], [0, -l.h], [0, l.h]];
  var right = [g + w, 0], left = [-(g + w), 0], up = [0, -(g + h)], down = [0, g + h], d = 0.7 * g;
  var first = l.dir === 'left' ? [left, right, up, down] : l.dir === 'top' ? [up, right, left, down]
            : l.dir === 'bottom' ? [down, right, left, up] : [right, left, up, down];
  return first.concat([[d + w, -(d + h)], [d + w, d + h], [-(d + w), -(d + h)], [-(d + w), d + h]]);
}
function bellicaObstacles(map) {
  /* boxes (container px) of every mark shown, each with the priority of the names it blocks:
     a counter, symbol or battle blocks every name; a place's mark only names below its own */
  var out = [], c = map.getContainer().getBoundingClientRect();
  (map._bellicaLabels || []).forEach(function (set) {
    if (!map.hasLayer(set.group)) return;
    set.marks.forEach(function (x) {
      var m = x.mark, box = null;
      if (m._icon) {
        var r = m._icon.getBoundingClientRect();
        if (r.width) box = {l: r.left - c.left, t: r.top - c.top, r: r.right - c.left, b: r.bottom - c.top};
      } else if (m.getRadius) {
        var p = map.latLngToContainerPoint(m.getLatLng()), k = m.getRadius() + (m.options.weight || 0) / 2;
        box = {l: p.x - k, t: p.y - k, r: p.x + k, b: p.y + k};
      }
      if (box) { box.prio = x.prio; out.push(box); }
    });
  });
  return out;
}
function bellicaDeclutter(map) {
  /* Place every shown name at its first candidate clear of the names placed before it (higher
     priority first) and of every mark; hide it when none is clear. */
  var all = [];
  (map._bellicaLabels || []).forEach(function (set) {
    if (map.hasLayer(set.group)) set.labels.forEach(function (l) { all.push(l); });
  });
  all.sort(function (a, b) { return b.prio - a.prio || a.n - b.n; });
  var marks = bellicaObstacles(map), shown = [];
  all.forEach(function (l) {
    var blocked = marks.filter(function (b) { return b.prio >= l.prio; });
    var el = l.tip.getElement();
    if (!el) return;
    if (!l.w) { l.w = el.offsetWidth; l.h = el.offsetHeight; }
    var p = map.latLngToContainerPoint(l.tip.getLatLng()), at = null, cands = bellicaCandidates(l);
    for (var k = 0; k < cands.length && !at; k++) {
      var o = cands[k], box = {l: p.x + o[0] - l.w / 2, t: p.y + o[1] - l.h / 2,
                               r: p.x + o[0] + l.w / 2, b: p.y + o[1] + l.h / 2};
      if (!bellicaHits(box, shown, BELLICA_CARTO.spacing) && !bellicaHits(box, blocked, 1)) at = [o, box];
    }
    l.placed = at ? at[1] : null;
    if (!at) { el.style.visibility = 'hidden'; return; }
    shown.push(at[1]);
    var off = l.tip.options.offset;
    if (!off || off[0] !== at[0][0] || off[1] !== at[0][1]) { l.tip.options.offset = at[0]; l.tip.update(); }
    el.style.visibility = '';
  });
}
function bellicaRegisterLabels(map, group, labels, marks) {
  /* labels: [{tip, prio, gap, dir, area}]; marks: [{mark, prio}], the Leaflet layers names keep
     off (prio: names of this priority or lower; Infinity: every name) */
  if (!map._bellicaLabels) {
    map._bellicaLabels = [];
    map._bellicaLabelCount = 0;
    var later = function () { L.Util.requestAnimFrame(function () { bellicaDeclutter(map); }); };
    map.on('zoomend overlayadd overlayremove resize', later);
    map.whenReady(later);
  }
  labels.forEach(function (l) { l.n = map._bellicaLabelCount++; });
  map._bellicaLabels.push({group: group, labels: labels, marks: marks || []});
}
/* ---- Owners drawn over the terrain, not blended into it ------------------------------------- */
var bellicaHatches = {};
function bellicaHatch(colour) {
  /* a repeating diagonal line in the owner's colour on a transparent tile */
  if (!bellicaHatches[colour]) {
    var h = BELLICA_CARTO.hatch, n = h.spacing, tile = document.createElement('canvas');
    tile.width = tile.height = n;
    var t = tile.getContext('2d');
    t.strokeStyle = colour; t.lineWidth = h.width; t.lineCap = 'square';
    t.beginPath(); t.moveTo(0, n); t.lineTo(n, 0); t.moveTo(-1, 1); t.lineTo(1, -1);
    t.moveTo(n - 1, n + 1); t.lineTo(n + 1, n - 1); t.stroke();
    bellicaHatches[colour] = t.createPattern(tile, 'repeat');
  }
  return bellicaHatches[colour];
}
function bellicaTrace(ctx, parts) {
  ctx.beginPath();
  for (var i = 0; i < parts.length; i++) {
    for (var j = 0; j < parts[i].length; j++) ctx[j ? 'lineTo' : 'moveTo'](parts[i][j].x, parts[i][j].y);
    ctx.closePath();
  }
}
/* An area whose owner is a hatch and a band inside its border (on the map's canvas renderer). */
L.BellicaArea = L.Polygon.extend({
  _updatePath: function () {
    var r = this._renderer, o = this.options;
    if (!r._drawing || !this._parts.length || !r._ctx) return L.Polygon.prototype._updatePath.call(this);
    var ctx = r._ctx, c = BELLICA_CARTO;
    ctx.save();
    bellicaTrace(ctx, this._parts);
    ctx.clip('evenodd');
    ctx.globalAlpha = c.hatch.opacity; ctx.fillStyle = bellicaHatch(o.fillColor); ctx.fill('evenodd');
    if (ctx.setLineDash) ctx.setLineDash([]);
    ctx.globalAlpha = 0.9; ctx.lineWidth = 2 * c.band; ctx.strokeStyle = o.fillColor; ctx.lineJoin = 'round';
    ctx.stroke();  // half of it falls outside and is clipped: a band inside the border
    ctx.restore();
    ctx.globalAlpha = o.opacity; ctx.lineWidth = o.weight; ctx.strokeStyle = o.color; ctx.lineJoin = 'round';
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
});
""" % _CONSTANTS

__all__ = ["CARTOGRAPHY_JS", "HATCH", "LABEL_GAP_PX", "LABEL_SPACING_PX", "OWNER_BAND_PX"]
