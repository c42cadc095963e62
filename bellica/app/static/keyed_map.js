// A keyed step's items plotted on the map (bellica/app/key_preview.py): for every form of a step
// that declares a preview (form[data-preview]), each field of its previewed keyed parameter
// (NAME-KEY, e.g. moves-9) gets a button to plot it and a box for the preview's words.  Choose a
// key (its button, or its place on the map), then click the hexes the preview offers next; each
// click is previewed by the step (POST /preview/NAME) before its text is added to the field, which
// stays the one place the step reads, kept in step both ways.  Nothing here knows a ruleset: it
// draws what the preview returns (start, end, path, next, reachable, lines, notes, refused, text).
// The map is the app's own page in the iframe (same origin): its Leaflet is used, nothing is
// fetched from elsewhere.
(function () {
  'use strict';
  var frame = document.getElementById('map');
  var shared = window.bellicaMapFrame;  // map_frame.js: the frame's Leaflet and the plot's pane
  if (!frame || !shared) return;
  document.querySelectorAll('form[data-preview]').forEach(plotter);

  function plotter(form) {
    var step = form.id.replace(/^form-/, ''), url = form.dataset.preview, prefix = form.dataset.previewParam + '-';
    var keys = {}, order = [], starts = {}, active = null, last = null, drawn = null, startLayer = null, timer = null;
    // Each answer shown is the newest asked: an older one arriving late (a busy server) is dropped,
    // so it cannot wipe a click's refusal or draw a plot the field no longer holds.
    var asked = 0;

    function csrf() { return form.elements.csrf ? form.elements.csrf.value : ''; }

    function post(data) {
      return fetch(url, {method: 'POST', body: data, credentials: 'same-origin',
                         headers: {'X-CSRF-Token': csrf(), 'Accept': 'application/json'}})
        .then(function (r) { return r.json(); });
    }

    function preview(key, text) {
      var data = new FormData();
      data.append('key', key);
      if (text !== null) data.append('text', text);
      return post(data);
    }

    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.name.indexOf(prefix) !== 0) return;
      var key = el.name.slice(prefix.length), button = document.createElement('button'), box = document.createElement('div');
      button.type = 'button';
      button.className = 'plot plot-key-button';
      button.id = 'plot-' + step + '-' + key;
      button.dataset.key = key;
      button.setAttribute('aria-pressed', 'false');
      button.setAttribute('aria-controls', 'map');
      button.textContent = 'plot ' + key + ' on the map';
      box.className = 'preview';
      box.id = 'preview-' + step + '-' + key;
      box.setAttribute('aria-live', 'polite');
      el.insertAdjacentElement('afterend', box);
      el.insertAdjacentElement('afterend', button);
      button.addEventListener('click', function () { select(key); });
      el.addEventListener('input', function () { if (active === key) schedule(); });
      keys[key] = {field: el, box: box, button: button};
      order.push(key);
    });
    if (!order.length) return;

    function leaflet() { return shared.leaflet(frame); }

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

    function drawStarts() {
      var lf = leaflet();
      if (!lf || startLayer) return;
      // Leaflet focuses its map on a press: without preventScroll the page jumps to show the whole
      // frame between the press and the release, and the click lands on another hex.
      var container = lf.map.getContainer();
      container.addEventListener('mousedown', function () { container.focus({preventScroll: true}); }, true);
      startLayer = lf.L.layerGroup().addTo(lf.map);
      order.forEach(function (key) {
        var s = starts[key];
        if (!s || !s.start) return;
        var p = polygon(lf, s.start, {color: '#1565c0', weight: 3, fill: true, fillOpacity: 0.05}, 'plot-key plot-key-' + key);
        p.bindTooltip(s.start_tip || key);
        p.on('click', function () { select(key); });
        p.addTo(startLayer);
      });
    }

    function say(key, j) {
      var b = keys[key].box;
      b.innerHTML = '';
      var ol = document.createElement('ol');
      (j.lines || []).forEach(function (l) {
        var li = document.createElement('li');
        li.textContent = l.text;
        if (l.title) li.title = l.title;
        ol.appendChild(li);
      });
      if (ol.children.length) b.appendChild(ol);
      (j.notes || []).forEach(function (n) {
        var p = document.createElement('div'); p.textContent = n.text; if (n.error) p.className = 'error'; b.appendChild(p);
      });
      if (j.error) { var e = document.createElement('div'); e.className = 'error'; e.textContent = j.error; b.appendChild(e); }
    }

    function draw(j) {
      var lf = leaflet();
      if (!lf || !j.start) return;
      if (drawn) drawn.remove();
      drawn = lf.L.layerGroup().addTo(lf.map);
      (j.reachable || []).forEach(function (h) {
        polygon(lf, h, {color: '#1e88e5', weight: 1, fillColor: '#90caf9', fillOpacity: 0.35, interactive: false}, 'plot-reach').addTo(drawn);
      });
      var pts = (j.path || [j.start]).map(centre);
      lf.L.polyline(pts, {renderer: shared.renderer(lf), color: '#b71c1c', weight: 4, className: 'plot-path', interactive: false}).addTo(drawn);
      var end = polygon(lf, j.end || j.start, {color: '#b71c1c', weight: 3, fillOpacity: 0.1}, 'plot-end');
      if (j.end_tip) end.bindTooltip(j.end_tip);
      end.on('click', takeBack);
      end.addTo(drawn);
      (j.next || []).forEach(function (h) {
        var ok = !h.refused;
        var p = polygon(lf, h, ok ? {color: '#2e7d32', weight: 2, fillColor: '#66bb6a', fillOpacity: 0.3}
                                : {color: '#9e9e9e', weight: 1, dashArray: '4', fillOpacity: 0.05},
                        'plot-next ' + (h.cls || '') + (ok ? '' : ' plot-refused'));
        if (h.tip) p.bindTooltip(h.tip);
        p.on('click', function () { extend(h.append); });
        p.addTo(drawn);
      });
    }

    function show(key) {
      var mine = ++asked;
      return preview(key, keys[key].field.value).then(function (j) {
        if (mine !== asked) return j;
        say(key, j);
        if (!j.error) { last = j; draw(j); }
        return j;
      });
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(function () { if (active) show(active); }, 250);
    }

    function setText(key, text) {
      keys[key].field.value = text;
      keys[key].field.dispatchEvent(new Event('input', {bubbles: true}));  // the step's check runs too
    }

    function extend(append) {
      if (!active || append == null) return;
      var key = active, now = keys[key].field.value.trim(), mine = ++asked;
      preview(key, (now ? now + ' ' : '') + append).then(function (j) {
        if (mine !== asked) return;
        if (j.refused || j.error) {  // refused at this click: the field keeps what it had
          var p = document.createElement('div');
          p.className = 'error click-refused';
          p.textContent = 'that click is refused: ' + (j.refused || j.error);
          keys[key].box.appendChild(p);
          return;
        }
        setText(key, j.text);
        clearTimeout(timer);  // the field's input event asks for this very answer again: it is here
        last = j; say(key, j); draw(j);
      });
    }

    function takeBack() {
      if (!active) return;
      var parts = keys[active].field.value.trim().split(/\s+/).filter(Boolean);
      if (!parts.length) return;
      parts.pop();
      setText(active, parts.join(' '));
    }

    function select(key) {
      active = key;
      if (frame.getBoundingClientRect().bottom > window.innerHeight) frame.scrollIntoView({block: 'nearest'});
      order.forEach(function (k) { keys[k].button.setAttribute('aria-pressed', k === key ? 'true' : 'false'); });
      show(key);
    }

    // Where each key starts, asked once (a preview with no text is only its start): drawn to be clicked.
    Promise.all(order.map(function (key) {
      return preview(key, null).then(function (j) { starts[key] = j; }, function () {});
    })).then(function () { startLayer = null; drawStarts(); });
    frame.addEventListener('load', function () { startLayer = null; drawn = null; drawStarts(); if (active && last) draw(last); });
  }
})();
