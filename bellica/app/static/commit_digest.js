// Commit-reveal orders in the browser, on the declared steps' forms (bellica/app/step_forms.py):
// the commit form's local fields (Param.local: drawn with data-name, never posted) hold the moves
// per army and the secret; this script makes the orders file and the engine's digest from them on
// the player's own machine and puts only the digest in the form's posted field.  The digest is the
// engine's (engine/vae_victis/rounds/reveal.py, orders_commitment): SHA-256 of the UTF-8 canonical
// JSON {"orders": [...], "secret": S}, keys sorted, no spaces.  SHA-256 is computed by the script
// itself (Web Crypto is missing on a page served over plain http).  The file and the secret are
// kept in this browser's localStorage until the reveal, whose form (a file's text and a secret)
// they then fill in; they never reach the server before it.
(function () {
  'use strict';
  var commit = document.querySelector('form[data-local] [data-name=secret]');
  var helper = commit ? commit.form : null;
  var reveal = document.querySelector('form[data-local] textarea[name=orders]');
  reveal = reveal ? reveal.form : null;
  var faction = ((helper || reveal || {}).dataset || {}).local || '';
  var key = 'bellica-commit:' + location.host + ':' + faction;

  var K = [0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];

  function sha256(bytes) {  // FIPS 180-4, on a Uint8Array; the hex digest
    var n = bytes.length, total = ((n + 9 + 63) >> 6) << 6, m = new Uint8Array(total);
    m.set(bytes); m[n] = 0x80;
    var bits = n * 8;
    for (var i = 0; i < 4; i++) m[total - 1 - i] = (bits >>> (8 * i)) & 0xff;
    m[total - 5] = Math.floor(n / 0x20000000) & 0xff;
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var w = new Array(64);
    function rotr(x, r) { return (x >>> r) | (x << (32 - r)); }
    for (var off = 0; off < total; off += 64) {
      for (var t = 0; t < 16; t++) {
        w[t] = (m[off + 4 * t] << 24) | (m[off + 4 * t + 1] << 16) | (m[off + 4 * t + 2] << 8) | m[off + 4 * t + 3];
      }
      for (t = 16; t < 64; t++) {
        var s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
        var s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
      for (t = 0; t < 64; t++) {
        var t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
        var t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
      h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
    }
    return h.map(function (x) { return ('00000000' + (x >>> 0).toString(16)).slice(-8); }).join('');
  }

  function canonical(orders, secret) {
    // json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False): the keys written in order.
    var items = orders.map(function (o) {
      return '{"army":' + o.army + ',"assault":null,"initiative":"strength","lift_siege":false,"moves":[' +
        o.moves.join(',') + '],"sea_links":[],"transfers":[]}';
    });
    return '{"orders":[' + items.join(',') + '],"secret":' + JSON.stringify(secret) + '}';
  }

  function newSecret() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return ('0' + x.toString(16)).slice(-2); }).join('');
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text) e.textContent = text;
    return e;
  }

  function make() {
    var said = document.getElementById('cr-said'), secret = helper.querySelector('[data-name=secret]').value;
    var orders = [], lines = ['faction = ' + JSON.stringify(faction), ''];
    var bad = null;
    helper.querySelectorAll('[data-name^="moves-"]').forEach(function (f) {
      var army = f.dataset.name.slice('moves-'.length);
      var words = f.value.trim().split(/\s+/).filter(Boolean);
      if (words.some(function (w) { return !/^[0-9]+$/.test(w); })) bad = 'army ' + army + ': moves are clock numbers 0-12, e.g. "9 11"';
      orders.push({army: Number(army), moves: words.map(Number)});
      lines.push('[armies.' + army + ']', 'moves = ' + JSON.stringify(words.join(' ')), '');
    });
    if (bad || !secret) { said.textContent = bad || 'give a secret first (or "new secret")'; return; }
    orders.sort(function (x, y) { return x.army - y.army; });
    var digest = sha256(new TextEncoder().encode(canonical(orders, secret)));
    helper.elements.digest.value = digest;
    var file = lines.join('\n');
    document.getElementById('cr-file').value = file;
    try { localStorage.setItem(key, JSON.stringify({file: file, secret: secret})); } catch (e) { /* private mode */ }
    said.textContent = 'digest made here; the orders file and the secret are kept in this browser for the reveal';
  }

  if (helper) {  // the helper's buttons, its words and the file it makes, after the secret's field
    var at = helper.querySelector('[data-name=secret]').parentNode, box = el('div', {id: 'cr-helper'});
    var again = el('button', {type: 'button', id: 'cr-new-secret'}, 'new secret');
    var go = el('button', {type: 'button', id: 'cr-make'}, 'make the digest');
    box.appendChild(el('p')).append(again, ' ', go);
    box.appendChild(el('p', {id: 'cr-said', role: 'status'}));
    box.appendChild(el('label', {for: 'cr-file'}, 'your orders file (kept in this browser for the reveal)'));
    box.appendChild(el('textarea', {id: 'cr-file', rows: '6', readonly: ''}));
    at.insertAdjacentElement('afterend', box);
    again.addEventListener('click', function () { helper.querySelector('[data-name=secret]').value = newSecret(); });
    go.addEventListener('click', make);
  }
  if (reveal) {
    var kept = null;
    try { kept = JSON.parse(localStorage.getItem(key) || 'null'); } catch (e) { kept = null; }
    var file = reveal.elements.orders, secret = reveal.elements.secret;
    if (kept && file && !file.value) file.value = kept.file;
    if (kept && secret && !secret.value) secret.value = kept.secret;
  }
})();
