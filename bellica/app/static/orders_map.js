// The player's order form (bellica/app/templates/orders_player.html): the engine's check as one
// types (POST /api/check: problems, and warnings such as a navy ending on a Sea hex), and orders
// plotted on the map: choose one of your armies (its button, or its hex on the map), then click
// the hexes next to it; each click is previewed by the engine (POST /api/preview) before it is
// added to the typed clock numbers, which stay and are kept in step both ways.  The map is the
// app's own Folium page in the iframe (same origin): its Leaflet is used, nothing is fetched
// from elsewhere.
(function () {
  'use strict';
  var form = document.getElementById('orders');
  if (!form || form.dataset.locked) return;
  var state = document.getElementById('check-state');
  var list = document.getElementById('problems');
  var warnList = document.getElementById('warnings');
  var checkTimer = null;

  function csrf() { return form.elements.csrf ? form.elements.csrf.value : ''; }

  function post(url, data) {
    return fetch(url, {method: 'POST', body: data, credentials: 'same-origin', headers: {'X-CSRF-Token': csrf()}})
      .then(function (r) { return r.json(); });
  }

  function items(ul, texts) {
    if (!ul) return;
    ul.innerHTML = '';
    texts.forEach(function (t) { var li = document.createElement('li'); li.textContent = t; ul.appendChild(li); });
  }

  function showCheck(j) {
    items(list, (j.problems || []).map(function (p) { return p.text; }));
    items(warnList, (j.warnings || []).map(function (w) { return 'warning: ' + w; }));
    state.textContent = j.ok ? 'the orders are legal' : ((j.problems || []).length + ' problem(s)');
    state.className = j.ok ? 'ok' : 'error';
  }

  function check() {
    post('/api/check', new FormData(form)).then(showCheck)
      .catch(function () { state.textContent = 'the check could not reach the server; submitting still checks'; });
  }

  form.addEventListener('input', function (ev) {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(check, 300);
    var m = /^moves-(\d+)$/.exec(ev.target.id || '');
    if (m && active === m[1]) schedulePreview();
  });
  if (form.dataset.stage !== 'moves') return;

  // A sea link chosen from its list is added to the typed field (once), and the list reset, so
  // the field stays the one place the order is read from, the list only a way of clicking it in.
  document.querySelectorAll('select.sea-pick').forEach(function (sel) {
    sel.addEventListener('change', function () {
      var text = document.getElementById('sea-' + sel.dataset.army), v = sel.value;
      if (!v || !text) return;
      var have = text.value.split(';').map(function (x) { return x.trim(); }).filter(Boolean);
      if (have.indexOf(v) < 0) have.push(v);
      text.value = have.join('; ');
      sel.value = '';
      text.dispatchEvent(new Event('input', {bubbles: true}));
    });
  });

  // --- plotting on the map ------------------------------------------------------------------
  var frame = document.getElementById('map');
  var armiesData = JSON.parse((document.getElementById('army-data') || {}).textContent || '[]');
  var active = null, last = null, drawn = null, armyLayer = null, previewTimer = null;
  var shared = window.bellicaMapFrame;  // map_frame.js: the frame's Leaflet and the plot's pane

  function leaflet() { return shared.leaflet(frame); }

  function field(army) { return document.getElementById('moves-' + army); }
  function box(army) { return document.getElementById('preview-' + army); }

  function centre(h) {
    var lat = 0, lng = 0;
    h.outline.forEach(function (p) { lat += p[0]; lng += p[1]; });
    return [lat / h.outline.length, lng / h.outline.length];
  }

  function polygon(lf, h, style, cls) {
    var opts = {renderer: shared.renderer(lf), bubblingMouseEvents: false, className: cls};
    for (var k in style) opts[k] = style[k];
    return lf.L.polygon(h.outline, opts);
  }

  function drawArmies() {
    var lf = leaflet();
    if (!lf || armyLayer) return;
    // Leaflet focuses its map on a press: without preventScroll the page jumps to show the whole
    // frame between the press and the release, and the click lands on another hex.
    var box = lf.map.getContainer();
    box.addEventListener('mousedown', function () { box.focus({preventScroll: true}); }, true);
    armyLayer = lf.L.layerGroup().addTo(lf.map);
    armiesData.forEach(function (a) {
      var p = polygon(lf, a, {color: '#1565c0', weight: 3, fill: true, fillOpacity: 0.05}, 'plot-army plot-army-' + a.id);
      p.bindTooltip('army ' + a.id + ' at ' + a.name + ': click to plot its move');
      p.on('click', function () { select(String(a.id)); });
      p.addTo(armyLayer);
    });
  }

  function say(army, j) {
    var b = box(army);
    if (!b) return;
    b.innerHTML = '';
    function line(text, cls) {
      var p = document.createElement('div'); p.textContent = text; if (cls) p.className = cls; b.appendChild(p);
    }
    var ol = document.createElement('ol');
    (j.steps || []).forEach(function (s) {
      var li = document.createElement('li');
      var where = s.hex ? s.hex.name : 'stands still';
      li.textContent = 'clock ' + s.clock + ': ' + where + (s.strait ? ' (across the strait at ' + s.strait.name + ')' : '') +
        ', ' + s.cost + ' ' + j.unit + ' (' + s.why + '), ' + s.left + ' left' + (s.made ? '' : ' (not made)');
      if (s.hex) li.title = s.hex.cell;
      ol.appendChild(li);
    });
    if (ol.children.length) b.appendChild(ol);
    if (j.end) line('ends at ' + j.end.name + ': ' + j.spent + ' of ' + j.budget + ' ' + j.unit + ' spent, ' + j.left + ' left', 'end');
    if (j.halt) line('halt: ' + j.halt, 'error');
    (j.warnings || []).forEach(function (w) { line('warning: ' + w, 'error'); });
    if (j.refused) line('refused: ' + j.refused, 'error');
  }

  function draw(j) {
    var lf = leaflet();
    if (!lf) return;
    if (drawn) drawn.remove();
    drawn = lf.L.layerGroup().addTo(lf.map);
    (j.reachable || []).forEach(function (h) {
      polygon(lf, h, {color: '#1e88e5', weight: 1, fillColor: '#90caf9', fillOpacity: 0.35, interactive: false}, 'plot-reach').addTo(drawn);
    });
    var pts = [centre(j.start)];
    (j.steps || []).forEach(function (s) { if (s.hex && s.made) pts.push(centre(s.hex)); });
    lf.L.polyline(pts, {renderer: shared.renderer(lf), color: '#b71c1c', weight: 4, className: 'plot-path', interactive: false}).addTo(drawn);
    var end = polygon(lf, j.end, {color: '#b71c1c', weight: 3, fillOpacity: 0.1}, 'plot-end');
    end.bindTooltip('army ' + j.army + ' ends at ' + j.end.name + (j.steps.length ? ': click to take back the last move' : ''));
    end.on('click', takeBack);
    end.addTo(drawn);
    (j.next || []).forEach(function (h) {
      var ok = !h.refused, cross = h.then != null;
      // A strait crossing is one step of two clock moves: its far land hex is drawn and clicked
      // like any neighbour, its own classes telling it from the hex on its first clock side.
      var cls = cross ? 'plot-next plot-cross plot-cross-' + h.clock + '-' + h.then : 'plot-next plot-clock-' + h.clock;
      var p = polygon(lf, h, ok ? {color: '#2e7d32', weight: 2, fillColor: '#66bb6a', fillOpacity: 0.3}
                              : {color: '#9e9e9e', weight: 1, dashArray: '4', fillOpacity: 0.05},
                      cls + (ok ? '' : ' plot-refused'));
      p.bindTooltip((cross ? 'clocks ' + h.clock + ' ' + h.then + ': across the strait at ' + h.strait.name + ' to '
                           : 'clock ' + h.clock + ': ') + h.name + (ok ? ', ' + h.cost + ' ' + j.unit : ': ' + h.refused));
      p.on('click', function () { extend(cross ? h.clock + ' ' + h.then : h.clock); });
      p.addTo(drawn);
    });
  }

  function preview(army, moves) {
    var data = new FormData();
    data.append('army', army);
    data.append('moves', moves);
    return post('/api/preview', data);
  }

  function show(army) {
    return preview(army, field(army).value).then(function (j) {
      if (j.error) { say(army, {refused: j.error}); return j; }
      last = j; say(army, j); draw(j); return j;
    });
  }

  function schedulePreview() {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(function () { if (active) show(active); }, 250);
  }

  function setMoves(army, moves) {
    field(army).value = moves;
    field(army).dispatchEvent(new Event('input', {bubbles: true}));
  }

  function extend(clock) {
    if (!active) return;
    var army = active, now = field(army).value.trim();
    var moves = (now ? now + ' ' : '') + clock;
    preview(army, moves).then(function (j) {
      if (j.refused || j.error) {  // refused at this click: the field keeps what it had
        var b = box(army), p = document.createElement('div');
        p.className = 'error click-refused';
        p.textContent = 'that click is refused: ' + (j.refused || j.error);
        b.appendChild(p);
        return;
      }
      setMoves(army, j.moves);
      last = j; say(army, j); draw(j);
    });
  }

  function takeBack() {
    if (!active) return;
    var parts = field(active).value.trim().split(/\s+/).filter(Boolean);
    if (!parts.length) return;
    parts.pop();
    setMoves(active, parts.join(' '));
  }

  function select(army) {
    active = army;
    if (frame.getBoundingClientRect().bottom > window.innerHeight) frame.scrollIntoView({block: 'nearest'});
    document.querySelectorAll('button.plot').forEach(function (b) {
      b.setAttribute('aria-pressed', b.dataset.army === army ? 'true' : 'false');
    });
    show(army);
  }

  document.querySelectorAll('button.plot').forEach(function (b) {
    b.addEventListener('click', function () { select(b.dataset.army); });
  });
  if (frame) {
    frame.addEventListener('load', function () { armyLayer = null; drawn = null; drawArmies(); if (active && last) draw(last); });
    drawArmies();
  }
})();
