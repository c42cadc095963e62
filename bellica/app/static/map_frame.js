// The map in a page's iframe (id "map"), shared by the scripts that plot on it (keyed_map.js: a
// keyed step's items previewed by the step, such as an army's moves; steps_map.js: a declared
// step's fields).  The map is the app's own Folium page (same origin): its Leaflet is used,
// nothing is fetched from elsewhere.
//   bellicaMapFrame.leaflet(frame) -> {L, map} once the frame's map is drawn, else null
//   bellicaMapFrame.renderer(lf)   -> an SVG renderer in a pane of its own above the map's layers
//                                     and counters, so a click reaches what is plotted; one per
//                                     map (a reloaded frame is a new map, so a new renderer)
(function () {
  'use strict';
  var PANE = 'bellicaPlot';

  function leaflet(frame) {
    var w = frame && frame.contentWindow;
    if (!w || !w.L) return null;
    for (var k in w) {
      if (k.indexOf('map_') !== 0) continue;
      try { if (w[k] instanceof w.L.Map) return {L: w.L, map: w[k]}; } catch (e) { /* not a map */ }
    }
    return null;
  }

  function renderer(lf) {
    if (!lf.map.getPane(PANE)) lf.map.createPane(PANE).style.zIndex = 640;
    if (!lf.map.bellicaRenderer) lf.map.bellicaRenderer = lf.L.svg({pane: PANE});
    return lf.map.bellicaRenderer;
  }

  window.bellicaMapFrame = {leaflet: leaflet, renderer: renderer, pane: PANE};
})();
