"""The app's HTML frame and shared pages, from the Jinja2 templates of ``templates/`` (:mod:`.render`,
autoescaped); no script or style from elsewhere (offline).

One small stylesheet and one small script (the player's live order check) are written into the
pages themselves; the map is the page :mod:`bellica.web_maps` writes, in an iframe.  Pages still
built as HTML text (the Vae Victis and province pages) go into the same frame with :func:`page`,
their values escaped with :func:`e`.
"""

from __future__ import annotations

from html import escape
from typing import Iterable, Sequence

from bellica.app.render import Markup, fragment, render

__all__ = ["e", "page", "frame", "signin_page", "confirm_signin_page", "error_page", "table", "CHECK_SCRIPT"]

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
textarea{width:100%;box-sizing:border-box;font-family:monospace}
select,input{max-width:100%}
.skip{position:absolute;left:-10000px} .skip:focus{position:static}
@media (max-width:40rem){
 body{padding:0 .5rem 2rem}
 #orders table,#orders thead,#orders tbody,#orders tr,#orders td,#orders th{display:block;width:auto}
 #orders thead{position:absolute;left:-10000px} #orders td{border:0;padding:.2rem 0} #orders tr{border-bottom:1px solid #ccc;padding:.4rem 0}
 table{display:block;overflow-x:auto;max-width:100%} iframe{height:60vh}
}
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
    """``value`` escaped for HTML (the hand-written pages' pieces; templates escape by themselves)."""
    return escape("" if value is None else str(value), quote=True)


def page(title: str, body: str, *, who: str | None = None, script: str = "") -> str:
    """A whole page in the one frame every page shares (``templates/base.html``): ``body`` is HTML
    (a hand-written page's, its values escaped), ``script`` the page's own code (never a value)."""
    # Every POST form gets the request's CSRF check value (bellica.app.csrf): none can be forgotten.
    return render("base.html", title=title, body=Markup(body), who=who, style=Markup(STYLE), script=Markup(script))


def frame(who: str | None = None, script: str = "") -> dict:
    """The context ``templates/base.html`` needs besides the title, for a template extending it."""
    return {"who": who, "style": Markup(STYLE), "script": Markup(script)}


def signin_page(message: str) -> str:
    return render("signin.html", title="bellica: sign in", message=message, **frame())


def confirm_signin_page(token: str, name: str, now: str | None) -> str:
    """The sign-in link opened from another site: sign in as ``name`` only when the person asks."""
    return render("confirm_signin.html", title="bellica: sign in", token=token, name=name, now=now, **frame())


def error_page(message: str, *, who: str | None = None) -> str:
    return render("error.html", title="bellica: refused", message=message, **frame(who))


def table(columns: Sequence[str], rows: Iterable[Sequence]) -> str:
    return fragment("table.html", columns=list(columns), rows=[list(r) for r in rows])
