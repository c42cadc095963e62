"""The app's HTML: plain f-strings, every value escaped, no script or style from elsewhere (offline).

One small stylesheet and one small script (the player's live order check) are written into the
pages themselves; the map is the page :mod:`bellica.web_maps` writes, in an iframe.
"""

from __future__ import annotations

from html import escape
from typing import Iterable, Sequence

from bellica.app.csrf import stamp

__all__ = ["e", "page", "signin_page", "confirm_signin_page", "error_page", "table", "CHECK_SCRIPT"]

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;padding:0 1rem 2rem;max-width:70rem;color:#222}
header{display:flex;gap:1rem;align-items:baseline;flex-wrap:wrap;border-bottom:1px solid #ccc;margin-bottom:1rem}
h1{font-size:1.3rem} h2{font-size:1.1rem;margin-top:1.5rem}
.box{border:1px solid #ccc;border-radius:4px;padding:.5rem 1rem;margin:.5rem 0}
.error{border-color:#b00;background:#fee} .ok{border-color:#070;background:#efe}
table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}
input[type=text]{width:100%;box-sizing:border-box;font-family:monospace}
iframe{width:100%;height:70vh;border:1px solid #ccc}
#problems li{color:#b00} .log{max-height:20rem;overflow:auto;font-size:.9rem}
textarea{width:100%;font-family:monospace}
"""

#: The player's order form calls /api/check as they type (debounced) and lists every problem.
CHECK_SCRIPT = """
(function(){
  var form = document.getElementById('orders'); if (!form || form.dataset.locked) return;
  var timer = null, list = document.getElementById('problems'), state = document.getElementById('check-state');
  function show(j){
    list.innerHTML = '';
    (j.problems || []).forEach(function(p){ var li = document.createElement('li'); li.textContent = p.text; list.appendChild(li); });
    state.textContent = j.ok ? 'the orders are legal' : (j.problems.length + ' problem(s)');
    state.className = j.ok ? 'ok' : 'error';
  }
  function check(){
    var csrf = form.elements.csrf ? form.elements.csrf.value : '';
    fetch('/api/check', {method: 'POST', body: new FormData(form), credentials: 'same-origin', headers: {'X-CSRF-Token': csrf}})
      .then(function(r){ return r.json(); }).then(show)
      .catch(function(){ state.textContent = 'the check could not reach the server; submitting still checks'; });
  }
  form.addEventListener('input', function(){ clearTimeout(timer); timer = setTimeout(check, 300); });
})();
"""


def e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def page(title: str, body: str, *, who: str | None = None, script: str = "") -> str:
    signed = (f'<span>signed in as <b>{e(who)}</b></span><form method="post" action="/signout">'
              '<button>sign out</button></form>') if who else ""
    js = f"<script>{script}</script>" if script else ""
    # Every POST form gets the request's CSRF check value (bellica.app.csrf): none can be forgotten.
    return stamp(f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
                 f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                 f"<title>{e(title)}</title><style>{STYLE}</style></head><body>"
                 f"<header><h1>{e(title)}</h1>{signed}</header>{body}{js}</body></html>")


def signin_page(message: str) -> str:
    body = (f'<div class="box error" id="message">{e(message)}</div>'
            '<form method="post" action="/signin"><label>Your token (from the umpire) '
            '<input type="text" name="token" autocomplete="off"></label> <button>sign in</button></form>')
    return page("bellica: sign in", body)


def confirm_signin_page(token: str, name: str, now: str | None) -> str:
    """The sign-in link opened from another site: sign in as ``name`` only when the person asks."""
    current = f" You are signed in as <b>{e(now)}</b> now." if now else ""
    body = (f'<div class="box" id="message">This sign-in link was opened from another site or page: sign in as '
            f'<b>{e(name)}</b>?{current}</div><form method="post" action="/signin" id="confirm-signin">'
            f'<input type="hidden" name="token" value="{e(token)}"><button>sign in as {e(name)}</button></form>')
    return page("bellica: sign in", body)


def error_page(message: str, *, who: str | None = None) -> str:
    return page("bellica: refused", f'<div class="box error" id="message">{e(message)}</div><p><a href="/">back</a></p>', who=who)


def table(columns: Sequence[str], rows: Iterable[Sequence]) -> str:
    head = "".join(f"<th>{e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
