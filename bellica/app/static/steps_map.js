// Orders by clicking the map on a stepped game's page (bellica/app/templates/steps.html): a step
// form whose fields the map's features stand for (its button's data-plot: a command or army, a path of nodes or
// provinces, a province attacked, a power by any of its provinces) gets a "plot on the map" button.
// While it is pressed the map shows what the next click may take; each click is sent to the engine
// (GET /api/step-preview, the step's own check, nothing stored) and is refused at that click in the
// engine's words, or written into the form's field.  The typed fields stay and are kept in step
// both ways: typing redraws the plot.  The map is the app's own Folium page in the iframe (same
// origin): its Leaflet draws the plot, nothing is fetched from elsewhere.
(function () {
  'use strict';
  var frame = document.getElementById('map');
  var forms = Array.prototype.slice.call(document.querySelectorAll('form.step'));
  var mapNote = document.getElementById('plot-map-note');
  var active = null;   // {form, step, plot: [field names], map: {name: param}, answer}
  var drawn = null, seq = 0, typingTimer = null, setting = false;
  var shared = window.bellicaMapFrame;  // map_frame.js: the frame's Leaflet and the plot's pane

  function leaflet() { return shared.leaflet(frame); }

  function pane(lf) { return shared.renderer(lf); }

  function getJSON(url) {
    return fetch(url, {credentials: 'same-origin', headers: {Accept: 'application/json'}})
      .then(function (r) { return r.json(); });
  }

  // --- the form's fields ---------------------------------------------------------------------
  function field(name) { return active.form.elements[name]; }

  function values(name) {
    var el = field(name);
    if (!el) return [];
    var text = el.value || '';
    return (el.tagName === 'TEXTAREA' ? text.split('\n') : [text])
      .map(function (v) { return v.trim(); }).filter(Boolean);
  }

  function query(click, value, focus) {
    var q = new URLSearchParams();
    q.append('step', active.step);
    Array.prototype.forEach.call(active.form.elements, function (el) {
      if (!el.name || el.name === 'csrf' || el.tagName === 'BUTTON') return;
      if (el.type === 'checkbox') { if (el.checked) q.append(el.name, 'on'); return; }
      (el.tagName === 'TEXTAREA' ? el.value.split('\n') : [el.value]).forEach(function (v) {
        if (v.trim()) q.append(el.name, v.trim());
      });
    });
    if (click) { q.append('click', click); q.append('value', value); }
    if (focus) q.append('focus', focus);
    return '/api/step-preview?' + q.toString();
  }

  function setField(name, value) {
    var el = field(name);
    if (!el) return;
    setting = true;
    el.value = Array.isArray(value) ? value.join('\n') : value;
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
    setting = false;
  }

  function labelOf(name) {
    var l = active.form.querySelector('label[for="' + active.step + '-' + name + '"]');
    return l ? l.textContent.trim().replace(/\.$/, '') : name;
  }

  // --- what the engine said ------------------------------------------------------------------
  function say(lines) {
    var box = document.getElementById('plot-say-' + active.step);
    box.innerHTML = '';
    var note = [];
    lines.forEach(function (l) {
      var el = document.createElement(l.list ? 'ol' : 'div');
      if (l.list) {
        l.list.forEach(function (t) { var li = document.createElement('li'); li.textContent = t; el.appendChild(li); });
      } else {
        el.textContent = l.text;
        note.push(l.text);
      }
      if (l.cls) el.className = l.cls;
      box.appendChild(el);
    });
    if (mapNote) mapNote.textContent = note.join(' · ');
  }

  function wordsOf(j) {
    var lines = [];
    if (j.click && j.click.refused) {
      lines.push({text: 'that click is refused (' + j.click.value + '): ' + j.click.refused, cls: 'error click-refused'});
    }
    active.plot.forEach(function (name) {
      var p = active.map[name];
      if (p && p.many && j.fields[name] && j.fields[name].length) {
        var start = (j.starts || {})[name];
        lines.push({text: labelOf(name) + (start ? ', from ' + start : '') + ':'});
        lines.push({list: j.fields[name], cls: 'plot-path-list'});
      }
    });
    var v = j.verdict || {};
    lines.push(v.ok ? {text: 'the engine accepts this ' + j.step + ' as it stands: send it with its button', cls: 'ok plot-ok'}
                    : {text: 'not yet: ' + v.refused, cls: 'plot-not-yet'});
    if (j.next) {
      var n = j.next.reach.length;
      lines.push({text: 'next click: ' + labelOf(j.next.param) + ' (' + (n ? n + ' highlighted on the map: ' +
                  j.next.reach.join(', ') : 'none the engine accepts') + ')', cls: 'plot-next'});
    }
    return lines;
  }

  // --- the plot on the map -------------------------------------------------------------------
  function targetsOf(name) { return (active.map[name] || {}).targets || []; }

  function place(name, value) {
    var ts = targetsOf(name);
    for (var i = 0; i < ts.length; i++) if (ts[i].value === value) return ts[i];
    return null;
  }

  function shape(lf, t, style, index) {
    var layer;
    if (t.rings) {
      var opts = {renderer: pane(lf), bubblingMouseEvents: false};
      for (var k in style) opts[k] = style[k];
      layer = lf.L.polygon(t.rings.map(function (r) { return [r]; }), opts);
    } else {
      // A marker: a force's number written on it (several on one place set side by side); a place,
      // whose name the map already writes, a ring (its name in the tooltip).
      var short = t.value.length <= 4 || index > 0;
      var text = short ? t.value.replace(/[&<>"]/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }) : '';
      layer = lf.L.marker(t.at, {pane: shared.pane, keyboard: false, icon: lf.L.divIcon({
        className: 'plot-target-icon', iconSize: null, iconAnchor: short ? [12 - 30 * index, 12] : [9, 9],
        html: '<span style="display:inline-block;box-sizing:border-box;border-radius:10px;font:bold 12px sans-serif;text-align:center;' +
              (short ? 'min-width:1.4em;padding:2px 4px;' : 'width:18px;height:18px;') +
              'background:' + (style.fillColor || '#fff') + ';border:' + (short ? 2 : 3) + 'px solid ' + style.color + '">' +
              text + '</span>'})});
    }
    return layer;
  }

  function draw() {
    var lf = leaflet();
    if (!lf || !active || !active.answer) return;
    if (drawn) drawn.remove();
    pane(lf);
    drawn = lf.L.layerGroup().addTo(lf.map);
    var j = active.answer, next = j.next || {}, reach = next.reach || [], refused = next.refused || {};
    var current = next.param || null;
    // The path so far (a list field): from where the force stands through each place clicked.
    active.plot.forEach(function (name) {
      var p = active.map[name];
      if (!p || !p.many) return;
      var start = (j.starts || {})[name], pts = [];
      [start].concat(j.fields[name] || []).forEach(function (v) { var t = v && place(name, v); if (t) pts.push(t.at); });
      if (pts.length > 1) lf.L.polyline(pts, {renderer: pane(lf), color: '#b71c1c', weight: 4, interactive: false, className: 'plot-path'}).addTo(drawn);
    });
    // The values chosen for the other fields (the force selected, the province attacked from).
    active.plot.forEach(function (name) {
      if (name === current || !active.map[name] || active.map[name].many) return;
      var chosen = values(name)[0];  // every feature standing for it: a power's provinces, say
      targetsOf(name).filter(function (t) { return t.value === chosen; }).forEach(function (t) {
        shape(lf, t, {color: '#b71c1c', weight: 3, fillColor: '#ffcdd2', fillOpacity: 0.2, interactive: false}, 0).addTo(drawn);
      });
    });
    if (!current) return;
    var seen = {};
    targetsOf(current).forEach(function (t) {
      var ok = reach.indexOf(t.value) >= 0, no = refused[t.value], key = t.at.join(',');
      seen[key] = (seen[key] || 0) + 1;
      var style = ok ? {color: '#2e7d32', weight: 2, fillColor: '#a5d6a7', fillOpacity: 0.45}
                : no ? {color: '#757575', weight: 1, dashArray: '4', fillColor: '#eeeeee', fillOpacity: 0.2}
                     : {color: '#1565c0', weight: 1, fillColor: '#e3f2fd', fillOpacity: 0.08};
      var layer = shape(lf, t, style, seen[key] - 1);
      var named = t.label === t.value ? t.value : t.label + ' (' + t.value + ')';
      layer.bindTooltip(labelOf(current) + ': ' + named + (ok ? ': the engine accepts it' : no ? ': ' + no : ''));
      layer.on('click', function () { clickOn(current, t.value); });
      layer.addTo(drawn);
      var el = layer.getElement && layer.getElement();
      if (el) {
        el.setAttribute('data-value', t.value);
        el.setAttribute('data-param', current);
        el.classList.add('plot-target', ok ? 'plot-reach' : no ? 'plot-refused' : 'plot-other');
      }
    });
  }

  // --- asking the engine ---------------------------------------------------------------------
  function refresh(click, value, focus) {
    if (!active) return Promise.resolve();
    var mine = ++seq, step = active.step;
    return getJSON(query(click, value, focus)).then(function (j) {
      if (!active || mine !== seq || step !== active.step) return;
      if (j.error) { say([{text: 'the map cannot plot this step now: ' + j.error, cls: 'error'}]); return; }
      if (j.click && !j.click.refused) setField(j.click.param, j.fields[j.click.param]);
      active.answer = j;
      say(wordsOf(j));
      draw();
    }).catch(function (e) { if (window.console) console.error(e); say([{text: 'the preview could not reach the server; sending the form still checks it', cls: 'error'}]); });
  }

  function clickOn(param, value) { refresh(param, value); }

  function stop() {
    if (drawn) { drawn.remove(); drawn = null; }
    if (active) {
      active.button.setAttribute('aria-pressed', 'false');
      document.getElementById('plot-say-' + active.step).innerHTML = '';
    }
    if (mapNote) mapNote.textContent = '';
    active = null;
  }

  function start(form, button) {
    stop();
    var step = form.id.replace(/^form-/, '');
    active = {form: form, step: step, button: button, plot: button.dataset.plot.split(' '), map: {}, answer: null};
    button.setAttribute('aria-pressed', 'true');
    // The map in sight, with the engine's words written just above it (on a phone the form is far up).
    if (frame && frame.getBoundingClientRect().top > window.innerHeight / 2) (mapNote || frame).scrollIntoView({block: 'start'});
    getJSON('/api/step-map?step=' + encodeURIComponent(step)).then(function (m) {
      if (!active || active.step !== step) return;
      if (m.error) { say([{text: 'the map cannot plot this step now: ' + m.error, cls: 'error'}]); return; }
      (m.params || []).forEach(function (p) { active.map[p.name] = p; });
      refresh(null, null, active.plot[0]);  // the first field first: the force to move, the province attacked from
    });
  }

  forms.forEach(function (form) {
    var button = form.querySelector('button.plot[data-plot]');
    if (!button) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      if (active && active.form === form) stop(); else start(form, button);
    });
    form.addEventListener('input', function () {
      if (setting || !active || active.form !== form) return;
      clearTimeout(typingTimer);  // typed: the plot follows the fields
      typingTimer = setTimeout(function () { refresh(); }, 300);
    });
  });
  // Escape ends the plot (its button again does too), on the page or on the map just clicked;
  // the fields keep what the clicks wrote.
  function onKey(ev) {
    if (ev.key === 'Escape' && active) { var b = active.button; stop(); b.focus(); }
  }
  function listenOnMap() {
    try { frame.contentWindow.document.addEventListener('keydown', onKey); } catch (e) { /* not loaded yet */ }
  }
  document.addEventListener('keydown', onKey);
  if (frame) {
    frame.addEventListener('load', function () { drawn = null; listenOnMap(); draw(); });
    if (frame.contentDocument && frame.contentDocument.readyState === 'complete') listenOnMap();
  }
})();
