"""Compact geometry encoding for the pages: integer vertex deltas, rebuilt into Leaflet shapes in JS.

A map of ~28,000 hexagons written as GeoJSON (coordinates at 4 decimals,
per-feature property dicts, folium's per-feature style switch) is ~10 MB of
HTML.  Here each ring or line is one flat integer array
``[x0, y0, dx1, dy1, ...]`` at a fixed scale (10**precision units per degree;
5 decimals = 1.1 m), the first vertex absolute and the rest as differences
from the previous one, so a hexagon costs ~75 characters instead of ~120 and
properties travel as columns instead of repeated keys: about a third of the
size (measured in the report of ``render_terrain_map``).  ``BELLICA_JS``
decodes it.  The hex layer's rings, the bulk of a large page, go further:
:func:`pack_rings` writes them as zigzag varints in one base64 string
(half the characters again, decoded straight into typed arrays), and
:func:`to_json_string` lets the page hand its payload to ``JSON.parse``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import shapely

from bellica.geo.errors import InputError

# Decoder shared by every layer: one function, defined once in the page header.
BELLICA_JS = """
function bellicaDecode(v, q) {
  /* [x0, y0, dx1, dy1, ...] in 1/q degree units -> [[lat, lng], ...] for Leaflet */
  var x = v[0], y = v[1], out = [[y / q, x / q]];
  for (var j = 2; j < v.length; j += 2) { x += v[j]; y += v[j + 1]; out.push([y / q, x / q]); }
  return out;
}
function bellicaEsc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
  });
}
function bellicaCentre(ring) {
  /* mean of a hexagon's vertices: its centre, closely enough for a label */
  var la = 0, ln = 0;
  for (var i = 0; i < ring.length; i++) { la += ring[i][0]; ln += ring[i][1]; }
  return [la / ring.length, ln / ring.length];
}
function bellicaColumn(D, label, i) {
  for (var j = 0; j < D.cols.length; j++) {
    var col = D.cols[j];
    if (col.l !== label) continue;
    var x = col.v[i];
    if (x === null || x === undefined) return null;
    return col.k ? col.k[x] : x;
  }
  return null;
}
function bellicaSides(D, i) {
  /* the table of a hex's sides: clock, neighbour's name, its terrain (or kind), MP to enter it */
  var s = D.sides[i];
  if (!s || !s.length) return '';
  var h = '<table class="bellica-sides"><tr><th>side</th><th>neighbour</th><th>terrain</th><th>MP</th></tr>';
  for (var k = 0; k < s.length; k += 3) {
    var j = s[k + 1], name = bellicaColumn(D, 'name', j) || bellicaColumn(D, 'cell', j);
    var what = bellicaColumn(D, 'terrain', j) || bellicaColumn(D, 'kind', j) || '';
    h += '<tr><td><b>' + s[k] + '</b></td><td>' + bellicaEsc(name) + '</td><td>' + bellicaEsc(what) +
         '</td><td><b>' + (s[k + 2] < 0 ? '\u2013' : s[k + 2]) + '</b></td></tr>';
  }
  h += '</table>';
  if (D.sideNote) h += '<div class="bellica-note">MP: ' + bellicaEsc(D.sideNote) + '</div>';
  return h;
}
function bellicaCounter(box, p) {
  /* an army counter: its number, and under it its strength where the viewer may see it */
  var n = document.createElement('span'); n.className = 'id'; n.textContent = p.text; box.appendChild(n);
  if (p.sub) {
    box.style.flexDirection = 'column'; box.style.lineHeight = '11px'; n.style.fontSize = '9px';
    var s = document.createElement('span'); s.className = 'fp'; s.textContent = p.sub; box.appendChild(s);
  }
}
function bellicaTable(rows) {
  /* rows: [[label, value], ...]; values are escaped, null rows skipped */
  var h = '<table>';
  for (var i = 0; i < rows.length; i++) {
    if (rows[i][1] === null || rows[i][1] === undefined) continue;
    h += '<tr><td>' + bellicaEsc(rows[i][0]) + '</td><td><b>' + bellicaEsc(rows[i][1]) + '</b></td></tr>';
  }
  return h + '</table>';
}
/* ---- Hexes drawn in batches on the map's canvas ------------------------------------------
   One Leaflet polygon per hexagon made a 238k-hex page take seconds and most of a GiB: every
   polygon kept its own LatLng and Point objects, was projected and clipped on each zoom and
   filled with its own canvas calls.  Here the hexes of a page share one geometry store (typed
   arrays, projected once to zoom-0 Web-Mercator pixels), each layer keeps a coarse spatial grid
   of its hexes, and a redraw fills one canvas path per colour with only the hexes inside the
   part of the canvas being redrawn (two multiply-adds per vertex).  The hex under the pointer is
   found through the grid and a point-in-polygon test, so tooltips need no per-hex handler. */
function bellicaBytes(b64) {
  /* base64 -> Uint8Array: the browser's own decoder where it has one (Chromium 140+) */
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(b64);
  var s = atob(b64), out = new Uint8Array(s.length);
  for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
function bellicaHexGeometry(D) {
  /* Decode D.vb (encode.pack_rings: per hex a vertex count, then zigzag varint differences;
     D.n hexes, D.nv vertices, 1/q degree units) into
       G.qv  Int32Array  quantised [lng, lat] per vertex: exact lat/lng for rings, popups, the rose
       G.w   Float64Array the same vertices in zoom-0 Web-Mercator pixels (Leaflet's EPSG:3857)
       G.off Int32Array  hex i owns vertices off[i] .. off[i + 1] - 1 */
  var B = bellicaBytes(D.vb), n = D.n, p = 0, i, j, k = 0, fx = 0, fy = 0;
  var off = new Int32Array(n + 1), qv = new Int32Array(2 * D.nv), w = new Float64Array(2 * D.nv);
  var q = D.q, rad = Math.PI / 180, maxLat = 85.0511287798;
  function next() {  // one LEB128 varint (up to 35 bits: float arithmetic, not 32-bit shifts)
    var b = B[p++], v = b & 127, m = 128;
    while (b & 128) { b = B[p++]; v += (b & 127) * m; m *= 128; }
    return v;
  }
  function signed() { var z = next(); return z % 2 ? -(z + 1) / 2 : z / 2; }
  for (i = 0; i < n; i++) {
    var c = next(), x = 0, y = 0;
    off[i] = k;
    for (j = 0; j < c; j++, k++) {
      if (j) { x += signed(); y += signed(); } else { fx += signed(); fy += signed(); x = fx; y = fy; }
      qv[2 * k] = x; qv[2 * k + 1] = y;
      // L.Projection.SphericalMercator + L.CRS.EPSG3857's transformation at zoom 0, inlined:
      // calling them would allocate a LatLng and two Points per vertex.
      var s = Math.sin(Math.max(Math.min(y / q, maxLat), -maxLat) * rad);
      w[2 * k] = 256 * (0.5 + x / q / 360);
      w[2 * k + 1] = 256 * (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI));
    }
  }
  off[n] = k;
  return {n: n, q: q, qv: qv, w: w, off: off, crs: 'EPSG3857'};
}
function bellicaHexProject(G, crs) {
  /* On a map in another CRS, project the vertices with that CRS instead (slower, exact). */
  if (G.crs === crs.code) return;
  if (crs === L.CRS.EPSG3857) { G.crs = crs.code; return; }
  for (var k = 0; k < G.qv.length; k += 2) {
    var p = crs.latLngToPoint(L.latLng(G.qv[k + 1] / G.q, G.qv[k] / G.q), 0);
    G.w[k] = p.x; G.w[k + 1] = p.y;
  }
  G.crs = crs.code;
}
function bellicaRing(G, i) {
  /* hex i as Leaflet [[lat, lng], ...], exactly the decoded values */
  var out = [];
  for (var k = G.off[i]; k < G.off[i + 1]; k++) out.push([G.qv[2 * k + 1] / G.q, G.qv[2 * k] / G.q]);
  return out;
}
function bellicaHexGrid(G, which) {
  /* A bucket grid over the hexes `which` (indices into G; null = all), keyed by each hex's centre
     in zoom-0 pixels.  r is the largest centre-to-vertex distance, so a hex touching a point or a
     rectangle has its centre within r of it.  Buckets are about two hexes wide, stored as CSR
     arrays (start, item) rather than thousands of small JS arrays. */
  var m = which ? which.length : G.n, w = G.w, off = G.off;
  var cx = new Float64Array(m), cy = new Float64Array(m), r = 0, k, t;
  var minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
  for (k = 0; k < m; k++) {
    var h = which ? which[k] : k, a = off[h], b = off[h + 1], sx = 0, sy = 0;
    for (t = a; t < b; t++) { sx += w[2 * t]; sy += w[2 * t + 1]; }
    sx /= (b - a) || 1; sy /= (b - a) || 1;
    cx[k] = sx; cy[k] = sy;
    for (t = a; t < b; t++) r = Math.max(r, Math.abs(w[2 * t] - sx), Math.abs(w[2 * t + 1] - sy));
    if (sx < minx) minx = sx; if (sx > maxx) maxx = sx;
    if (sy < miny) miny = sy; if (sy > maxy) maxy = sy;
  }
  if (!m) { minx = miny = maxx = maxy = 0; }
  var side = Math.max(4 * r, 1e-9), gw, gh;
  for (;;) {  // coarser buckets where the hexes are sparse over a wide area
    gw = Math.floor((maxx - minx) / side) + 1; gh = Math.floor((maxy - miny) / side) + 1;
    if (gw * gh <= 4 * m + 64) break;
    side *= 1.5;
  }
  var cell = new Int32Array(m), start = new Int32Array(gw * gh + 1), item = new Int32Array(m);
  for (k = 0; k < m; k++) {
    cell[k] = Math.floor((cy[k] - miny) / side) * gw + Math.floor((cx[k] - minx) / side);
    start[cell[k] + 1]++;
  }
  for (t = 0; t < gw * gh; t++) start[t + 1] += start[t];
  var fill = start.slice(0, gw * gh);
  for (k = 0; k < m; k++) item[fill[cell[k]]++] = k;
  return {which: which, m: m, cx: cx, cy: cy, r: r, side: side, gw: gw, gh: gh, minx: minx, miny: miny,
          start: start, item: item, box: [minx - r, miny - r, maxx + r, maxy + r]};
}
function bellicaGridEach(X, x0, y0, x1, y1, fn) {
  /* fn(k) for every hex k of grid X whose centre lies within X.r of the rectangle (zoom-0 px) */
  var r = X.r, gx0 = Math.max(0, Math.floor((x0 - r - X.minx) / X.side)),
      gx1 = Math.min(X.gw - 1, Math.floor((x1 + r - X.minx) / X.side)),
      gy0 = Math.max(0, Math.floor((y0 - r - X.miny) / X.side)),
      gy1 = Math.min(X.gh - 1, Math.floor((y1 + r - X.miny) / X.side));
  for (var gy = gy0; gy <= gy1; gy++) {
    for (var c = gy * X.gw + gx0, e = gy * X.gw + gx1; c <= e; c++) {
      for (var t = X.start[c]; t < X.start[c + 1]; t++) {
        var k = X.item[t];
        if (X.cx[k] >= x0 - r && X.cx[k] <= x1 + r && X.cy[k] >= y0 - r && X.cy[k] <= y1 + r) fn(k);
      }
    }
  }
}
function bellicaHexContains(G, h, x, y) {
  /* even-odd point-in-polygon on hex h's zoom-0 ring */
  var w = G.w, a = G.off[h], b = G.off[h + 1], inside = false;
  for (var i = a, j = b - 1; i < b; j = i++) {
    var xi = w[2 * i], yi = w[2 * i + 1], xj = w[2 * j], yj = w[2 * j + 1];
    if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
/* A layer of hexes drawn on the map's canvas renderer.  It is an L.Path to that renderer, so it
   takes its place in the renderer's draw order and hit testing like any polygon (a city marker
   drawn later still wins the pointer), but it draws all its hexes itself, batched.
   options: which (indices into G, null = all), cls (colour class per entry), colours,
   fillOpacity (0 = no fill), stroke (a colour, or null = the hex's own colour), weight, opacity,
   dash, strokeAll (one stroke pass over every hex, in the fixed stroke colour, after the fills),
   thinEdgePx (below this hex edge in screen px: fills opaque, stroked in their own colour, 1 px),
   rasterEdgePx (below this edge, with a fill: hexes are scan-converted into an image, see _raster),
   hover (outline of the hex under the pointer: {color, weight, opacity}), interactive. */
L.BellicaHexes = L.Path.extend({
  options: {fillOpacity: 0.92, stroke: null, weight: 1, opacity: 1, dash: null, strokeAll: false,
            thinEdgePx: 0, rasterEdgePx: 0, hover: null, interactive: false},
  initialize: function (G, options) {
    L.setOptions(this, options);
    this._G = G;
    this._grid = null;  // built on first add: a hidden layer costs no time at load
    this._hovered = -1;
  },
  beforeAdd: function (map) {
    // Batched drawing needs a canvas: the map's when it prefers canvas, else one of our own.
    var ren = map.getRenderer(this);
    if (!(ren instanceof L.Canvas)) {
      map._bellicaCanvas = map._bellicaCanvas || L.canvas();
      this.options.renderer = map._bellicaCanvas;
    }
    L.Path.prototype.beforeAdd.call(this, map);
    bellicaHexProject(this._G, map.options.crs);
    if (!this._grid) this._grid = bellicaHexGrid(this._G, this.options.which);
  },
  getBounds: function () {
    var b = this._grid ? this._grid.box : null, crs = L.CRS.EPSG3857;
    if (!b) return L.latLngBounds([]);
    return L.latLngBounds(crs.pointToLatLng(L.point(b[0], b[3]), 0), crs.pointToLatLng(L.point(b[2], b[1]), 0));
  },
  hexIndex: function (k) { return this.options.which ? this.options.which[k] : k; },
  isThin: function () { return !!this._thin; },
  isRaster: function () { return !!this._rasterMode; },
  _project: function () {
    // Layer px = zoom-0 px * s - pixel origin: the whole projection of a zoom step.
    var map = this._map, crs = map.options.crs, b = this._grid.box, pad = this.options.weight + 1;
    this._s = crs.scale(map.getZoom()) / crs.scale(0);
    this._o = map.getPixelOrigin();
    this._pxBounds = L.bounds([b[0] * this._s - this._o.x - pad, b[1] * this._s - this._o.y - pad],
                              [b[2] * this._s - this._o.x + pad, b[3] * this._s - this._o.y + pad]);
    var G = this._G, w = G.w, h = this.hexIndex(0), a = G.off[h];
    var edge = this._grid.m ? Math.hypot(w[2 * a + 2] - w[2 * a], w[2 * a + 3] - w[2 * a + 1]) * this._s : 0;
    this._thin = edge < this.options.thinEdgePx;
    this._rasterMode = this.options.fillOpacity > 0 && edge < this.options.rasterEdgePx;
  },
  _update: function () {},  // nothing to clip or simplify: _updatePath draws from the grid
  _trace: function (ctx, h) {
    var G = this._G, w = G.w, s = this._s, ox = this._o.x, oy = this._o.y, a = G.off[h], b = G.off[h + 1];
    ctx.moveTo(w[2 * a] * s - ox, w[2 * a + 1] * s - oy);
    for (var t = a + 1; t < b; t++) ctx.lineTo(w[2 * t] * s - ox, w[2 * t + 1] * s - oy);
    ctx.closePath();
  },
  _updatePath: function () {
    var ren = this._renderer;
    if (!ren._drawing || !this._map) return;
    var o = this.options, ctx = ren._ctx, X = this._grid, s = this._s, ox = this._o.x, oy = this._o.y;
    // Only the part of the canvas being redrawn: all of it after a pan or zoom, a hex's box on hover.
    var b = ren._redrawBounds || ren._bounds, self = this;
    var lists = o.colours.map(function () { return []; }), all = [];
    bellicaGridEach(X, (b.min.x + ox) / s, (b.min.y + oy) / s, (b.max.x + ox) / s, (b.max.y + oy) / s,
                   function (k) { lists[o.cls[k]].push(k); });
    if (this._rasterMode) { this._raster(ctx, b, lists); this._drawHover(ctx); return; }
    var thin = this._thin, n = L.BellicaHexes.CHUNK, t, e, c;
    ctx.lineJoin = thin ? 'miter' : 'round'; ctx.lineCap = 'round';
    ctx.setLineDash(!thin && o.dash ? o.dash : []);
    for (c = 0; c < lists.length; c++) {
      var list = lists[c];
      // Chunks of a few hundred hexes: one path of 100k hexagons makes Skia's stroker and scan
      // converter crawl (seconds), while chunks cost a few hundred calls per frame.
      for (t = 0; t < list.length; t = e) {
        e = Math.min(list.length, t + n);
        ctx.beginPath();
        for (var u = t; u < e; u++) this._trace(ctx, this.hexIndex(list[u]));
        if (o.fillOpacity > 0) {
          ctx.globalAlpha = thin ? 1 : o.fillOpacity;
          ctx.fillStyle = o.colours[c];
          ctx.fill('nonzero');
        }
        if (thin && o.fillOpacity > 0) {
          // Hairline seams between anti-aliased fills show as moire: close them with the hex's own colour.
          ctx.globalAlpha = 1; ctx.lineWidth = 1; ctx.strokeStyle = o.colours[c]; ctx.stroke();
        } else if (!o.strokeAll && o.weight > 0) {
          ctx.globalAlpha = o.opacity; ctx.lineWidth = o.weight;
          ctx.strokeStyle = o.stroke || o.colours[c]; ctx.stroke();
        }
      }
      if (o.strokeAll) all.push(list);
    }
    if (o.strokeAll && !thin && o.weight > 0) {
      ctx.globalAlpha = o.opacity; ctx.lineWidth = o.weight; ctx.strokeStyle = o.stroke;
      for (c = 0; c < all.length; c++) {
        for (t = 0; t < all[c].length; t = e) {
          e = Math.min(all[c].length, t + n);
          ctx.beginPath();
          for (u = t; u < e; u++) this._trace(ctx, this.hexIndex(all[c][u]));
          ctx.stroke();
        }
      }
    }
    this._drawHover(ctx);
  },
  _drawHover: function (ctx) {
    var o = this.options, hv = this._hovered;
    if (o.hover && hv >= 0) {
      ctx.setLineDash([]);
      ctx.beginPath(); this._trace(ctx, hv);
      ctx.globalAlpha = o.hover.opacity; ctx.lineWidth = o.hover.weight; ctx.strokeStyle = o.hover.color;
      ctx.stroke();
    }
    ctx.setLineDash([]); ctx.globalAlpha = 1;
  },
  _raster: function (ctx, b, lists) {
    /* Hexes a couple of pixels across: a canvas path per hex costs more than the pixels it covers
       (a 238k-hex view took ~0.7 s of Skia).  Instead each hex is scan-converted into an RGBA
       buffer at device resolution - a pixel takes the colour of the hex holding its centre, so
       neighbours tile with neither gaps nor seams - and the buffer is drawn in one drawImage.
       Opaque, as the thin mode's fills are. */
    var o = this.options, m = L.Browser.retina ? 2 : 1, G = this._G, w = G.w, off = G.off;
    var x0 = Math.floor(b.min.x), y0 = Math.floor(b.min.y);
    var W = Math.max(1, Math.ceil((Math.ceil(b.max.x) - x0) * m)), H = Math.max(1, Math.ceil((Math.ceil(b.max.y) - y0) * m));
    var s = this._s * m, ox = (this._o.x + x0) * m, oy = (this._o.y + y0) * m;
    if (!this._rgba) this._rgba = L.BellicaHexes.rgba(o.colours);
    var img = new ImageData(W, H), px = new Uint32Array(img.data.buffer), xs = [], ys = [];
    for (var c = 0; c < lists.length; c++) {
      var list = lists[c], col = this._rgba[c];
      for (var u = 0; u < list.length; u++) {
        var h = this.hexIndex(list[u]), a = off[h], e = off[h + 1], nv = e - a, t, lo = Infinity, hi = -Infinity;
        for (t = 0; t < nv; t++) {
          xs[t] = w[2 * (a + t)] * s - ox; ys[t] = w[2 * (a + t) + 1] * s - oy;
          if (ys[t] < lo) lo = ys[t]; if (ys[t] > hi) hi = ys[t];
        }
        var r0 = Math.max(0, Math.ceil(lo - 0.5)), r1 = Math.min(H - 1, Math.ceil(hi - 0.5) - 1);
        for (var r = r0; r <= r1; r++) {
          var yc = r + 0.5, xl = Infinity, xr = -Infinity;
          for (var i = 0, j = nv - 1; i < nv; j = i++) {
            if ((ys[i] > yc) !== (ys[j] > yc)) {
              var xc = xs[i] + (yc - ys[i]) * (xs[j] - xs[i]) / (ys[j] - ys[i]);
              if (xc < xl) xl = xc; if (xc > xr) xr = xc;
            }
          }
          // pixels whose centre lies in [xl, xr): hexes are convex, so one span per row
          var c0 = Math.max(0, Math.ceil(xl - 0.5)), c1 = Math.min(W - 1, Math.ceil(xr - 0.5) - 1);
          for (var q = r * W + c0, qe = r * W + c1; q <= qe; q++) px[q] = col;
        }
      }
    }
    var cv = this._rasterCanvas || (this._rasterCanvas = document.createElement('canvas'));
    cv.width = W; cv.height = H;
    cv.getContext('2d').putImageData(img, 0, 0);
    ctx.save();
    ctx.globalAlpha = 1; ctx.imageSmoothingEnabled = false;
    ctx.drawImage(cv, x0, y0, W / m, H / m);
    ctx.restore();
  },
  statics: {
    CHUNK: 512,
    rgba: function (colours) {
      /* CSS colours -> opaque RGBA words as a Uint32Array over ImageData bytes stores them */
      var cv = document.createElement('canvas'), g = cv.getContext('2d'), out = new Uint32Array(colours.length);
      cv.width = cv.height = 1;
      for (var i = 0; i < colours.length; i++) {
        g.clearRect(0, 0, 1, 1); g.fillStyle = colours[i]; g.fillRect(0, 0, 1, 1);
        var d = g.getImageData(0, 0, 1, 1).data;
        out[i] = new Uint32Array(new Uint8Array([d[0], d[1], d[2], 255]).buffer)[0];
      }
      return out;
    }
  },
  hexAt: function (p) {
    /* the index (into G) of the hex of this layer under layer point p, or -1 */
    if (!this._map || !this._grid) return -1;
    var x = (p.x + this._o.x) / this._s, y = (p.y + this._o.y) / this._s, G = this._G, self = this, hit = -1;
    bellicaGridEach(this._grid, x, y, x, y, function (k) {
      var h = self.hexIndex(k);
      if (hit < 0 && bellicaHexContains(G, h, x, y)) hit = h;
    });
    return hit;
  },
  _containsPoint: function (p) {
    this._hit = this.hexAt(p);
    return this._hit >= 0;
  },
  setHovered: function (h) {
    /* outline hex h (-1: none), redrawing only the boxes of the old and the new hex */
    if (h === this._hovered) return;
    var old = this._hovered;
    this._hovered = h;
    if (old >= 0) this._redrawHex(old);
    if (h >= 0) this._redrawHex(h);
  },
  _redrawHex: function (h) {
    var ren = this._renderer, G = this._G, w = G.w, s = this._s, ox = this._o.x, oy = this._o.y;
    if (!ren || !this._map) return;
    var bounds = L.bounds([]);
    for (var t = G.off[h]; t < G.off[h + 1]; t++) bounds.extend(L.point(w[2 * t] * s - ox, w[2 * t + 1] * s - oy));
    // The renderer's own partial redraw: it clears this box and redraws every layer crossing it.
    ren._extendRedrawBounds({_pxBounds: bounds, options: {weight: (this.options.hover || {}).weight || 3}});
    ren._redrawRequest = ren._redrawRequest || L.Util.requestAnimFrame(ren._redraw, ren);
  }
});
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

def _varints(values: np.ndarray) -> bytes:
    """Unsigned LEB128 of each (non-negative, < 2**35) value, concatenated."""
    v = np.asarray(values, dtype=np.uint64)
    nbytes = np.ones(len(v), dtype=np.int64)
    for k in range(1, 5):
        nbytes += v >= np.uint64(1 << (7 * k))
    groups = np.stack([(v >> np.uint64(7 * k)) & np.uint64(0x7F) for k in range(5)], axis=1).astype(np.uint8)
    more = np.arange(5)[None, :] < (nbytes[:, None] - 1)
    groups |= np.where(more, 0x80, 0).astype(np.uint8)
    return groups[np.arange(5)[None, :] < nbytes[:, None]].tobytes()


def pack_rings(rings: Sequence[Sequence[int]]) -> tuple[str, int]:
    """Delta rings (:func:`encode_rings`) as one base64 blob of varints for ``bellicaHexGeometry``.

    Per ring: its vertex count, then its first vertex as a difference from the
    previous ring's first vertex, then its own vertex differences, each
    zigzag-coded (``2v`` or ``-2v-1``) as a LEB128 varint.  Neighbouring hexes
    lie close together, so almost every number takes one or two bytes: about
    half the characters of the JSON arrays, and the page hands the browser a
    string to decode instead of a quarter of a million array literals to parse.
    The vertices are the same integers (exact); returns (blob, vertex count).
    """
    import base64

    counts = np.fromiter((len(r) // 2 for r in rings), dtype=np.int64, count=len(rings))
    flat = np.fromiter((x for r in rings for x in r), dtype=np.int64, count=int(2 * counts.sum()))
    xy = flat.reshape(-1, 2).copy()
    firsts = np.cumsum(np.r_[0, counts[:-1]])[counts > 0]
    if len(firsts):
        xy[firsts[1:]] -= xy[firsts[:-1]]
    zig = (xy << 1) ^ (xy >> 63)  # zigzag: small magnitudes of either sign -> small unsigned
    # Interleave each ring's count before its vertices.
    seq = np.empty(len(counts) + 2 * len(xy), dtype=np.int64)
    pos = np.arange(len(counts)) + 2 * np.cumsum(np.r_[0, counts[:-1]])
    seq[pos] = counts
    mask = np.ones(len(seq), dtype=bool)
    mask[pos] = False
    seq[mask] = zig.ravel()
    return base64.b64encode(_varints(seq)).decode("ascii"), int(counts.sum())


def unpack_rings(blob: str, n: int) -> list[list[int]]:
    """The inverse of :func:`pack_rings`: ``n`` delta rings (for tests and tools reading a page)."""
    import base64

    data, values, cur, shift = base64.b64decode(blob), [], 0, 0
    for b in data:
        cur |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            values.append(cur)
            cur = shift = 0
    out, p, fx, fy = [], 0, 0, 0
    unzig = lambda z: (z >> 1) ^ -(z & 1)  # noqa: E731
    for _ in range(n):
        c = values[p]
        p += 1
        ring = [unzig(z) for z in values[p : p + 2 * c]]
        p += 2 * c
        if c:
            fx, fy = fx + ring[0], fy + ring[1]
            ring[0], ring[1] = fx, fy
        out.append(ring)
    return out


def to_json(value) -> str:
    """Compact JSON safe to embed in a ``<script>`` element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # "</" would let a name from the database close the script element early.
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def to_json_string(value) -> str:
    """``value`` as a JS string literal of its JSON, for ``JSON.parse``: V8 parses a large JSON text
    several times faster than the same object literal in a script (measured by bench_maps)."""
    text = to_json(value)  # already free of "</" and line separators
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


__all__ = ["BELLICA_JS", "check_precision", "encode_lines", "encode_polygons", "encode_rings", "pack_rings", "to_json",
           "to_json_string", "unpack_rings"]
