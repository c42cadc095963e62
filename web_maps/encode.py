"""Compact geometry encoding for the pages: integer vertex deltas, rebuilt into Leaflet shapes in JS.

A map of ~28,000 hexagons written as GeoJSON (coordinates at 4 decimals,
per-feature property dicts, folium's per-feature style switch) is ~10 MB of
HTML.  Here each ring or line is one flat integer array
``[x0, y0, dx1, dy1, ...]`` at a fixed scale (10**precision units per degree;
5 decimals = 1.1 m), the first vertex absolute and the rest as differences
from the previous one, so a hexagon costs ~75 characters instead of ~120 and
properties travel as columns instead of repeated keys: about a third of the
size (measured in the report of ``render_terrain_map``).  ``TABULA_JS``
decodes it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import shapely

from tabula.geo.errors import InputError

# Decoder shared by every layer: one function, defined once in the page header.
TABULA_JS = """
function tabulaDecode(v, q) {
  /* [x0, y0, dx1, dy1, ...] in 1/q degree units -> [[lat, lng], ...] for Leaflet */
  var x = v[0], y = v[1], out = [[y / q, x / q]];
  for (var j = 2; j < v.length; j += 2) { x += v[j]; y += v[j + 1]; out.push([y / q, x / q]); }
  return out;
}
function tabulaEsc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
  });
}
function tabulaDeclutter(map) {
  /* Hide permanent labels that would overlap a label of higher priority (capital > city > town),
     so a zoomed-out map stays legible; zooming in brings them back. */
  var shown = [], all = [];
  (map._tabulaLabels || []).forEach(function (set) {
    if (map.hasLayer(set.group)) set.labels.forEach(function (l) { all.push(l); });
  });
  all.sort(function (a, b) { return b.prio - a.prio; });
  all.forEach(function (l) {
    var el = l.tip.getElement();
    if (!el) return;
    el.style.visibility = '';
    var r = el.getBoundingClientRect();
    var clash = shown.some(function (s) {
      return r.left < s.right && r.right > s.left && r.top < s.bottom && r.bottom > s.top;
    });
    if (clash) { el.style.visibility = 'hidden'; } else { shown.push(r); }
  });
}
function tabulaRegisterLabels(map, group, labels) {
  if (!map._tabulaLabels) {
    map._tabulaLabels = [];
    var later = function () { L.Util.requestAnimFrame(function () { tabulaDeclutter(map); }); };
    map.on('zoomend overlayadd overlayremove', later);
    map.whenReady(later);
  }
  map._tabulaLabels.push({group: group, labels: labels});
}
function tabulaCentre(ring) {
  /* mean of a hexagon's vertices: its centre, closely enough for a label */
  var la = 0, ln = 0;
  for (var i = 0; i < ring.length; i++) { la += ring[i][0]; ln += ring[i][1]; }
  return [la / ring.length, ln / ring.length];
}
function tabulaColumn(D, label, i) {
  for (var j = 0; j < D.cols.length; j++) {
    var col = D.cols[j];
    if (col.l !== label) continue;
    var x = col.v[i];
    if (x === null || x === undefined) return null;
    return col.k ? col.k[x] : x;
  }
  return null;
}
function tabulaSides(D, i) {
  /* the table of a hex's sides: clock, neighbour's name, its terrain (or kind), MP to enter it */
  var s = D.sides[i];
  if (!s || !s.length) return '';
  var h = '<table class="tabula-sides"><tr><th>side</th><th>neighbour</th><th>terrain</th><th>MP</th></tr>';
  for (var k = 0; k < s.length; k += 3) {
    var j = s[k + 1], name = tabulaColumn(D, 'name', j) || tabulaColumn(D, 'cell', j);
    var what = tabulaColumn(D, 'terrain', j) || tabulaColumn(D, 'kind', j) || '';
    h += '<tr><td><b>' + s[k] + '</b></td><td>' + tabulaEsc(name) + '</td><td>' + tabulaEsc(what) +
         '</td><td><b>' + (s[k + 2] < 0 ? '\u2013' : s[k + 2]) + '</b></td></tr>';
  }
  h += '</table>';
  if (D.sideNote) h += '<div class="tabula-note">MP: ' + tabulaEsc(D.sideNote) + '</div>';
  return h;
}
function tabulaCounter(box, p) {
  /* an army counter: its number, and under it its strength where the viewer may see it */
  var n = document.createElement('span'); n.className = 'id'; n.textContent = p.text; box.appendChild(n);
  if (p.sub) {
    box.style.flexDirection = 'column'; box.style.lineHeight = '11px'; n.style.fontSize = '9px';
    var s = document.createElement('span'); s.className = 'fp'; s.textContent = p.sub; box.appendChild(s);
  }
}
function tabulaTable(rows) {
  /* rows: [[label, value], ...]; values are escaped, null rows skipped */
  var h = '<table>';
  for (var i = 0; i < rows.length; i++) {
    if (rows[i][1] === null || rows[i][1] === undefined) continue;
    h += '<tr><td>' + tabulaEsc(rows[i][0]) + '</td><td><b>' + tabulaEsc(rows[i][1]) + '</b></td></tr>';
  }
  return h + '</table>';
}
"""


def check_precision(precision: int) -> int:
    if isinstance(precision, bool) or not isinstance(precision, int) or not 3 <= precision <= 7:
        raise InputError(f"precision {precision!r} is outside 3-7: pass the number of decimals of a degree to keep")
    return precision


def _delta_arrays(coords: np.ndarray, index: np.ndarray, count: int, scale: int) -> list[list[int]]:
    """Split quantised ``coords`` by ``index`` (0..count-1) into delta-encoded flat lists."""
    q = np.rint(coords * scale).astype(np.int64)
    d = q.copy()
    d[1:] -= q[:-1]
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]]) if len(index) else np.array([], dtype=np.int64)
    d[starts] = q[starts]  # each shape's first vertex is absolute
    bounds = np.r_[starts, len(index)]
    out: list[list[int]] = [[] for _ in range(count)]
    flat = d.ravel().tolist()
    for s, e in zip(bounds[:-1], bounds[1:]):
        out[int(index[s])] = flat[2 * s : 2 * e]
    return out


def encode_rings(polygons: Sequence, *, precision: int = 5) -> list[list[int]]:
    """Exterior ring of each polygon (closing vertex dropped) as a delta array; one per polygon."""
    check_precision(precision)
    geoms = np.asarray(polygons, dtype=object)
    if len(geoms) == 0:
        return []
    rings = shapely.get_exterior_ring(geoms)
    coords, index = shapely.get_coordinates(rings, return_index=True)
    # Drop each ring's closing vertex: Leaflet closes polygons itself.
    last = np.r_[index[1:] != index[:-1], True]
    keep = ~last
    return _delta_arrays(coords[keep], index[keep], len(geoms), 10**precision)


def encode_lines(lines: Sequence, *, precision: int = 5, tolerance: float = 0.0) -> tuple[list[list[int]], list[int]]:
    """Every linear part of ``lines`` (LineString/MultiLineString; others skipped) as delta arrays.

    Returns (parts, owner) where ``owner[i]`` is the index in ``lines`` that
    part ``i`` came from.  ``tolerance`` (degrees) simplifies lines first:
    river courses digitised at 100 m are not worth their vertices on a hex map.
    """
    check_precision(precision)
    geoms = np.asarray(lines, dtype=object)
    if len(geoms) == 0:
        return [], []
    parts, owner = shapely.get_parts(geoms, return_index=True)
    linear = shapely.get_type_id(parts) == 1  # LineString
    parts, owner = parts[linear], owner[linear]
    if tolerance > 0:
        parts = shapely.simplify(parts, tolerance, preserve_topology=False)
    coords, index = shapely.get_coordinates(parts, return_index=True)
    encoded = _delta_arrays(coords, index, len(parts), 10**precision)
    keep = [i for i, e in enumerate(encoded) if len(e) >= 4]
    return [encoded[i] for i in keep], [int(owner[i]) for i in keep]


def to_json(value) -> str:
    """Compact JSON safe to embed in a ``<script>`` element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # "</" would let a name from the database close the script element early.
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


__all__ = ["TABULA_JS", "check_precision", "encode_lines", "encode_rings", "to_json"]
