"""The app's pages and forms for province campaigns: Rise of Rome (Rome, solo) and Mare Nostrum (six nations).

:mod:`bellica.app.routing` sends a province campaign's paths to :func:`routes` (the shared
pages, ``/``, ``/signin``, ``/signout``, ``/map``, are :mod:`bellica.app.server`'s: ``/`` shows this
module's page for a province campaign); a path its ruleset lacks is 404.  These forms are written
by hand until Rise of Rome and Mare Nostrum declare their steps (engine/core/steps.py): then
their names leave :data:`RULESETS` and :mod:`bellica.app.step_forms` makes their pages.  Every form
calls the engine function its ``bellica turn`` command calls (so each rule and each refusal is
the engine's), and every page shows the engine's ``turn_view`` (what ``bellica turn status``
prints; ``GET /api/status`` gives its ``--json`` object).

**Rise of Rome** (tokens: one per power and the umpire; only Rome's token decides):

=======================  ================  ===================================================
``POST /turn/next``      Rome, umpire      ``play_until_decision``: the engine's phases run
                                           until Rome must decide (nothing to run at a
                                           decision: the page says which)
``POST /turn/attack``    Rome              ``give_attack``: ``target`` (a power, or ``none``)
``POST /turn/spend``     Rome              ``give_spending``: ``attack``, ``defence``, ``civic``
                                           (empty: what is left), ``split-POWER`` (Defense
                                           against each named attacker, optional)
``POST /turn/province``  Rome              ``choose_province``: ``province`` (or ``by-rule``)
``POST /turn/result``    Rome, umpire      ``enter_result``: ``battle``, ``winner``
                                           (attacker/defender), ``margin`` (major/minor)
=======================  ================  ===================================================

**Mare Nostrum** (tokens: one per nation and the umpire):

=======================  ================  ===================================================
``POST /turn/act``       a nation          ``act``: ``action`` = build | peace | ally | grain |
                                           attack | naval | destroy | artworks | done, and its
                                           fields (``work``, ``province``, ``sea``, ``target``,
                                           ``base``, ``enemy``); an attack with a ``sea`` is
                                           amphibious.  The nation is the token's own.
``POST /umpire/turn``    umpire            ``run_engine_step``: ``step`` = begin | end | next
``POST /umpire/lottery`` umpire            ``enter_wheel`` (``wheel``, ``numbers``, ``turn``)
                                           or ``enter_number`` (``label``, ``number``)
``POST /turn/result``    umpire            ``enter_result``: ``province``, ``winner``
=======================  ================  ===================================================

Both: ``GET /api/status`` (anyone signed in) and ``POST /umpire/sql`` (the read-only console).

A form that succeeds answers Post/Redirect/Get: a 303 to ``GET /turn?said=KEY``, the viewer's
page with what the action said (kept in this process, the newest :data:`SAID_KEPT`, shown only
to the token that acted), so a browser's reload or back button shows the page again rather than
sending the action a second time (a Mare Nostrum action would be taken twice, spending another
action).  A refused form (400, 403, 409) answers with the page and its error at once; a JSON
request (``Accept: application/json``) gets ``{"events"}`` or ``{"error"}`` as before.

Decisions where the issue is silent:

* Rise of Rome is solo: the other powers' tokens (``bellica serve tokens`` issues one per
  power) read the same page without forms; their posts are refused (403).  The umpire's
  token may run the engine and enter a table-played battle's result (the person at the
  table may hold either link), never Rome's own choices.
* Mare Nostrum: a nation's token acts only for its nation (a ``nation`` field naming another
  is 403), and only in its turn of the order of play (the engine refuses any other: 409).
  The umpire runs the turn, enters the draws and the battles' results, and takes no nation's
  actions (403): a nation that sends its actions by other means has them typed on the CLI.
* Errors as for Vae Victis: the engine's ``InputError`` 400 and ``StepRefused`` 409, shown on
  the page with the message (JSON ``{"error"}`` when asked for), another role's form 403.
"""

from __future__ import annotations

from typing import Callable, Mapping

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from bellica.app import pages
from bellica.app.pages import e
from bellica.app.server import (HttpError, console_endpoint, _form, _guarded, _identify, _wants_json, keep_said,
                                said_for)
from bellica.app.tokens import Identity

__all__ = ["ROR", "MN", "RULESETS", "is_province", "home_page", "form_action", "routes",
           "status_json"]

ROR = "rise-of-rome"
MN = "mare-nostrum"
RULESETS = (ROR, MN)
BOTH = ("player", "umpire")

#: Mare Nostrum's actions as the forms name them -> the engine's step, and the fields each takes.
ACTIONS = {"build": "build", "peace": "peace", "ally": "alliance", "alliance": "alliance", "grain": "grain",
           "attack": "attack", "amphibious": "amphibious", "naval": "naval", "destroy": "destroy",
           "artworks": "artworks", "done": "done"}
FIELDS = {"build": ("work", "province", "sea"), "peace": ("target",), "alliance": ("province",), "grain": (),
          "attack": ("base", "target"), "amphibious": ("base", "sea", "target"), "naval": ("sea", "enemy"),
          "destroy": ("work", "province"), "artworks": ("province",), "done": ()}


def is_province(ruleset: str) -> bool:
    return ruleset in RULESETS


def _quiet() -> set[str]:
    """The bookkeeping kinds a page leaves out (what the rules said is in the other events)."""
    return {"put_row", "drop_row", "set_campaign", "put_note"}


def _view(c):
    if c.ruleset.name == MN:
        from bellica.engine.mare_nostrum.ruleset import turn_view
    else:
        from bellica.engine.rise_of_rome.ruleset import turn_view
    return turn_view(c)


def status_json(c) -> dict:
    """What ``bellica turn status --json`` prints."""
    c.require_state()
    return _view(c).as_json()


def _said(events) -> list[str]:
    quiet = _quiet()
    return [ev.text if ev.kind != "step" else f"== {ev.text}" for ev in events if ev.kind not in quiet and ev.text]


def _options(values, *, selected: str | None = None, labels: Mapping[str, str] | None = None) -> str:
    return "".join(f'<option value="{e(v)}"{" selected" if v == selected else ""}>{e((labels or {}).get(v, v))}</option>'
                   for v in values)


def _select(name: str, values, *, ident: str | None = None, labels=None, blank: str | None = None) -> str:
    first = f'<option value="">{e(blank)}</option>' if blank is not None else ""
    return f'<select name="{e(name)}" id="{e(ident or name)}">{first}{_options(values, labels=labels)}</select>'


def _text(name: str, *, ident: str | None = None, placeholder: str = "", width: str = "5rem") -> str:
    return (f'<input type="text" name="{e(name)}" id="{e(ident or name)}" style="width:{width}" '
            f'placeholder="{e(placeholder)}" autocomplete="off">')


def _log(c, viewer: str | None) -> str:
    from bellica.engine.core.sealed import log_view

    quiet = _quiet()
    lines = [ln for ln in log_view(c, viewer=viewer) if ln.event.kind not in quiet][-200:]
    return ('<h2>Log</h2><ul class="log" id="log">'
            + "".join(f"<li>turn {e(ln.event.round)}: {e(ln.text)}</li>" for ln in reversed(lines)) + "</ul>")


def _sql_section(sql: str, sql_html: str) -> str:
    return ('<h2>SQL console (read-only)</h2><form method="post" action="/umpire/sql" id="sql">'
            f'<textarea name="query" rows="3">{e(sql)}</textarea><button>run</button></form>{sql_html}')


def home_page(c, ident: Identity, *, message: str | None = None, error: str | None = None, sql: str = "",
              sql_html: str = "") -> str:
    """The signed-in viewer's page of a province campaign (``message``: HTML, already escaped)."""
    c.require_state()
    view = _view(c)
    lines = [ln.replace("CAMPAIGN", c.path.name) for ln in view.lines()[:-1]]
    parts = [f'<div class="box" id="turn">{"<br>".join(e(ln) for ln in lines)}</div>']
    if message:
        parts.append(f'<div class="box ok" id="message">{message}</div>')
    if error:
        said = error.replace("CAMPAIGN", c.path.name)
        parts.append(f'<div class="box error" id="error">refused, nothing stored: {e(said)}</div>')
    parts.append(_ror_forms(c, ident, view) if c.ruleset.name == ROR else _mn_forms(c, ident, view))
    if ident.role == "umpire":
        parts.append(_sql_section(sql, sql_html))
    what = "the umpire's map" if ident.role == "umpire" else f"{ident.faction}' map"
    parts.append(f'<h2>Map</h2><iframe id="map" src="/map" title="{e(what)}"></iframe>')
    parts.append(_log(c, ident.faction if ident.role == "player" else None))
    game = "Rise of Rome" if c.ruleset.name == ROR else "Mare Nostrum"
    title = f"bellica: {game}, " + ("umpire" if ident.role == "umpire" else ident.faction)
    return pages.page(title, "".join(parts), who=ident.name)


# --- Rise of Rome -----------------------------------------------------------------------------------


def _rome(c) -> str:
    return c.board.player


def _is_rome(c, ident: Identity) -> bool:
    return ident.role == "player" and ident.faction == _rome(c)


def _ror_next_words(c, ident: Identity, view) -> str:
    step = view.next_step
    rome = _is_rome(c, ident)
    if step is None:
        return view.next_words
    if step in ("revenue", "rulers", "attacks", "battles", "end"):
        return ("run the turn with the button below (the engine plays until Rome's next decision)"
                if rome or ident.role == "umpire" else "the engine runs the turn when Rome's player asks")
    if step == "result":
        b = view.pending_battle or {}
        below = " (below)" if rome or ident.role == "umpire" else ""
        return f"enter the result of battle {b.get('index')}, played on the table{below}"
    decision = {"attack": "Rome's attack", "spend": "Rome's spending", "province": "the province Rome takes"}[step]
    return f"give {decision} (below)" if rome else f"{decision} is awaited from Rome's player"


def _ror_forms(c, ident: Identity, view) -> str:
    rome, umpire = _is_rome(c, ident), ident.role == "umpire"
    parts = [f'<p id="next">next: {e(_ror_next_words(c, ident, view))}</p>']
    if ident.role == "player" and not rome:
        parts.append(f'<p id="engine-plays">The engine plays the {e(ident.faction)}: this page follows the campaign.</p>')
    step = view.next_step
    if step in ("revenue", "rulers", "attacks", "battles", "end") and (rome or umpire):
        parts.append('<form method="post" action="/turn/next" id="next-form"><button id="next-button">next: run the '
                     "turn until Rome's next decision</button></form>")
    elif step == "attack" and rome:
        labels = {"none": "no attack this turn"}
        parts.append('<h2>Rome\'s attack</h2><form method="post" action="/turn/attack" id="attack">attack '
                     + _select("target", [*view.targets, "none"], labels=labels)
                     + ' <button id="attack-button">give the attack</button></form>')
    elif step == "spend" and rome:
        on_rome = [a.attacker for a in view.plan if a.target == _rome(c)]
        split = ""
        if len(on_rome) > 1:
            split = ("<p>Attacked more than once: Defense against each attack (optional; the rest is spread evenly "
                     "over the attacks not named): " + " ".join(
                         f'<label>{e(p)} {_text(f"split-{p}", ident=f"split-{i}")}</label>' for i, p in enumerate(on_rome))
                     + "</p>")
        parts.append(f"<h2>Rome's spending</h2><p>Rome may spend {e(view.rome_free)} freely.</p>"
                     '<form method="post" action="/turn/spend" id="spend">'
                     f'<label>Attack {_text("attack", ident="spend-attack", placeholder="0")}</label> '
                     f'<label>Defense {_text("defence", ident="spend-defence", placeholder="0")}</label> '
                     f'<label>Civic Improvement {_text("civic", ident="spend-civic", placeholder="the rest")}</label>{split} '
                     '<button id="spend-button">give the spending</button></form>')
    elif step == "result" and (rome or umpire):
        b = view.pending_battle or {}
        labels = {"attacker": f"attacker ({b.get('attacker')})", "defender": f"defender ({b.get('army')})"}
        parts.append(f"<h2>Battle {e(b.get('index'))}, played on the table</h2>"
                     '<form method="post" action="/turn/result" id="result">'
                     f'<input type="hidden" name="battle" value="{e(b.get("index"))}">winner '
                     + _select("winner", ["attacker", "defender"], labels=labels) + " margin "
                     + _select("margin", ["minor", "major"], labels={"minor": "Minor Victory", "major": "Major Victory"})
                     + ' <button id="result-button">enter the result</button></form>')
    elif step == "province" and rome:
        q = view.pending_province or {}
        parts.append(f"<h2>Battle {e(q.get('battle'))}: the province Rome takes</h2>"
                     '<form method="post" action="/turn/province" id="province">'
                     + _select("province", [*q.get("options", ()), "by-rule"], ident="province-choice",
                               labels={"by-rule": "as the seed's rule picks it"})
                     + ' <button id="province-button">take it</button></form>')
    return "".join(parts)


def _need_rome(c, ident: Identity, what: str) -> None:
    if not _is_rome(c, ident):
        who = "the umpire" if ident.role == "umpire" else f"the {ident.faction}' player (the engine plays them)"
        raise HttpError(403, f"{what} is Rome's decision, made by the {_rome(c)}' token: {who} may not make it")


def _need_rome_or_umpire(c, ident: Identity, what: str) -> None:
    if ident.role != "umpire" and not _is_rome(c, ident):
        raise HttpError(403, f"{what} is for Rome's player or the umpire: the {ident.faction}' token may not "
                             "(the engine plays them)")


def _whole(form: Mapping[str, str], key: str, *, default: int | None = None) -> int | None:
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    text = str(form.get(key, "")).strip()
    if not text:
        return default
    n = whole_number(text)
    if n is None:
        raise InputError(f"{key} {text!r} is not a whole number in digits 0-9")
    return n


def ror_next(c, ident, form):
    from bellica.engine.rise_of_rome.ruleset import play_until_decision

    _need_rome_or_umpire(c, ident, "running the turn")
    c.require_state()
    return play_until_decision(c)


def ror_attack(c, ident, form):
    from bellica.engine.rise_of_rome.ruleset import give_attack
    from bellica.geo.errors import InputError

    _need_rome(c, ident, "the attack")
    target = str(form.get("target", "")).strip()
    if not target:
        raise InputError("target: choose a power to attack, or none")
    return give_attack(c, None if target.lower() == "none" else target)


def ror_spend(c, ident, form):
    from bellica.engine.rise_of_rome.steps import rome_spending
    from bellica.engine.rise_of_rome.ruleset import give_spending

    _need_rome(c, ident, "the spending")
    given = rome_spending(c, _whole(form, "attack", default=0), _whole(form, "defence", default=0),
                          _whole(form, "civic"), names=("attack", "defence"))
    split = {k.removeprefix("split-"): _whole(form, k) for k, v in form.items()
             if k.startswith("split-") and str(v).strip()}
    return give_spending(c, given, split or None)


def ror_province(c, ident, form):
    from bellica.engine.rise_of_rome.ruleset import choose_province
    from bellica.geo.errors import InputError

    _need_rome(c, ident, "the province taken")
    province = str(form.get("province", "")).strip()
    if not province:
        raise InputError("province: choose the province Rome takes, or by-rule")
    return choose_province(c, None if province.lower() == "by-rule" else province)


def ror_result(c, ident, form):
    from bellica.engine.rise_of_rome.ruleset import enter_result
    from bellica.geo.errors import InputError

    _need_rome_or_umpire(c, ident, "a battle's result")
    battle = _whole(form, "battle")
    margin = str(form.get("margin", "")).strip().lower()
    if battle is None:
        raise InputError("battle: give the battle's number")
    if margin not in ("major", "minor"):
        raise InputError(f"margin {form.get('margin', '')!r}: give major or minor")
    return enter_result(c, battle, str(form.get("winner", "")), margin == "major")


# --- Mare Nostrum ------------------------------------------------------------------------------------


def _mn_next_words(ident: Identity, view) -> str:
    step = view.next_step
    if step is None:
        return view.next_words
    umpire = ident.role == "umpire"
    if step == "begin":
        return f"the umpire begins turn {view.turn}" + (" (below; enter the real draw first, if any)" if umpire else "")
    if step == "actions":
        if ident.role == "player" and ident.faction == view.acting:
            return "your actions (below), then done"
        return f"{view.acting} acts"
    if step == "result":
        return "the umpire enters the Field of Glory results" + (" (below)" if umpire else "")
    return "the umpire ends the turn" + (" (below)" if umpire else "")


def _mn_forms(c, ident: Identity, view) -> str:
    parts = [f'<p id="next">next: {e(_mn_next_words(ident, view))}</p>']
    if ident.role == "umpire":
        parts.append(_mn_umpire_forms(c, view))
    else:
        parts.append(_mn_nation_forms(c, ident.faction, view))
    return "".join(parts)


def _act_form(action: str, title: str, body: str, button: str) -> str:
    return (f'<form method="post" action="/turn/act" id="act-{action}"><input type="hidden" name="action" value="{action}">'
            f"<b>{e(title)}</b> {body} <button id=\"{action}-button\">{e(button)}</button></form>")


def _mn_nation_forms(c, nation: str, view) -> str:
    from bellica.engine.mare_nostrum.building import WORKS
    from bellica.engine.mare_nostrum.model import pirates_name, provinces_of
    from bellica.engine.mare_nostrum.ruleset import state_of

    board = c.board
    me = next((n for n in view.nations if n["nation"] == nation), None)
    state = state_of(board, c.snapshot())
    mine = list(provinces_of(board, state, nation))
    seas = list(board.seas)
    provinces = list(board.provinces)
    parts = []
    pending = (me or {}).get("pending") or []
    if "defensive_artworks" in pending and view.phase in ("actions", "battles"):
        parts.append(_act_form("artworks", "Defensive Artworks (no action, before the battles)",
                               _select("province", mine, ident="artworks-province"), "raise them"))
    if view.acting != nation:
        if view.phase == "actions":
            parts.insert(0, f'<p id="waiting">{e(view.acting)} acts now; your forms appear in your turn of the '
                            "order of play.</p>")
        return "<h2>Your actions</h2>" + "".join(parts) if parts else ""
    o = view.options or {}
    others = [n for n in board.nations if n != nation]
    # an alliance is sought against a province the scenario's invaders threaten, held by another nation
    threatened = [p for p in dict.fromkeys(i.province for i in board.invaders)
                  if state.control.get(p) not in (None, nation)]
    land = "; ".join(f"{t} (from {', '.join(b)})" for t, b in (o.get("land") or {}).items()) or "none"
    parts[:0] = [
        f'<p id="actions-left">{e(o.get("actions_left"))} action(s) left. Land attacks open to you: {e(land)}.</p>',
        _act_form("build", "Build", _select("work", list(WORKS), ident="build-work") + " in "
                  + _select("province", mine, ident="build-province") + " fleet's sea "
                  + _select("sea", seas, ident="build-sea", blank="(none / the only one)"), "build"),
        _act_form("attack", "Attack", "from " + _select("base", mine, ident="attack-base") + " into "
                  + _select("target", [p for p in provinces if p not in mine], ident="attack-target")
                  + " across " + _select("sea", seas, ident="attack-sea", blank="(by land)"), "attack"),
        _act_form("naval", "Attack fleets", "in " + _select("sea", seas, ident="naval-sea") + " of "
                  + _select("enemy", [*others, pirates_name(c.rules)], ident="naval-enemy"), "attack the fleets"),
        *([_act_form("ally", "Ally with the invaders", "against " + _select("province", threatened, ident="ally-province"),
                     "seek the alliance")] if threatened else []),
        _act_form("grain", "Distribute grain", "(+stability)", "distribute grain"),
    ]
    if o.get("peace"):
        parts.insert(1, _act_form("peace", "Impose peace", "on " + _select("target", o["peace"], ident="peace-target"),
                                  "impose peace"))
    destroy = [w for w, key in (("fortification", "destroy_enemy_fortification"), ("temple", "destroy_enemy_temple"))
               if key in pending]
    if destroy:
        parts.append(_act_form("destroy", "Destroy (Earthquake / Great Blaze, no action)",
                               _select("work", destroy, ident="destroy-work") + " in "
                               + _select("province", [p for p in provinces if p not in mine], ident="destroy-province"),
                               "destroy"))
    parts.append(_act_form("done", "Finish", "(your works stand, the next nation acts)", "done"))
    return "<h2>Your actions</h2>" + "".join(parts)


def _mn_umpire_forms(c, view) -> str:
    from bellica.engine.mare_nostrum.ruleset import WHEEL_CITIES

    parts = []
    step = view.next_step
    if step == "begin":
        parts.append('<form method="post" action="/umpire/turn" id="turn-begin"><button name="step" value="begin" '
                     f'id="begin-button">begin turn {e(view.turn)}</button></form>')
    if step in ("result", "end"):
        for i, a in enumerate(view.attacks):
            who = a["attacker"] or f"the invaders ({a['army']})"
            labels = {"attacker": f"attacker ({who})", "defender": f"defender ({a['defender'] or 'independent'})"}
            done = f"entered: the {a['result']} won" if a["result"] else "awaiting its result"
            parts.append(f'<div class="box" id="battle-{i}"><p>battle for {e(a["target"])}: {e(who)} against '
                         f'{e(a["defender"] or "the independents")} ({e(a["attacker_army"])} vs {e(a["defender_army"])}); '
                         f"{e(done)}</p>" + ("" if a["result"] else
                         '<form method="post" action="/turn/result">'
                         f'<input type="hidden" name="province" value="{e(a["target"])}">winner '
                         + _select("winner", ["attacker", "defender"], ident=f"winner-{i}", labels=labels)
                         + f' <button id="result-{i}">enter the result</button></form>') + "</div>")
        parts.append('<form method="post" action="/umpire/turn" id="turn-end"><button name="step" value="end" '
                     'id="end-button">fight the battles and end the turn</button></form>')
    if step is not None:
        codes = [n.wheel for n in c.board.nations.values()]
        labels = {w: f"{w} ({WHEEL_CITIES.get(w, w)})" for w in codes}
        parts.append("<h2>Lottery</h2>"
                     '<form method="post" action="/umpire/lottery" id="lottery-wheel">the real draw of '
                     + _select("wheel", codes, ident="lottery-wheel-code", labels=labels) + " numbers "
                     + _text("numbers", ident="lottery-numbers", placeholder="12 45 3 8 9", width="10rem") + " for turn "
                     + _text("turn", ident="lottery-turn", placeholder="next", width="4rem")
                     + ' <button id="wheel-button">enter the draw</button></form>'
                     '<form method="post" action="/umpire/lottery" id="lottery-number">one test\'s number: label '
                     + _text("label", ident="lottery-label", placeholder="siege/3/Apulia", width="14rem") + " number "
                     + _text("number", ident="lottery-value", placeholder="70", width="4rem")
                     + ' <button id="number-button">enter the number</button></form>')
    return "<h2>The turn</h2>" + "".join(parts)


def _need_nation(ident: Identity, form: Mapping[str, str]) -> str:
    if ident.role != "player":
        raise HttpError(403, "the umpire takes no nation's actions: each nation acts with its own token")
    named = str(form.get("nation", "")).strip()
    if named and named.casefold() != ident.faction.casefold():
        raise HttpError(403, f"your token ({ident.name}) acts for the {ident.faction} only, not for {named}")
    return ident.faction


def mn_act(c, ident, form):
    from bellica.engine.mare_nostrum.ruleset import act
    from bellica.geo.errors import InputError

    nation = _need_nation(ident, form)
    c.require_state()
    name = str(form.get("action", "")).strip().lower()
    if name not in ACTIONS:
        raise InputError(f"action {form.get('action', '')!r}: give one of {', '.join(sorted(set(ACTIONS) - {'alliance'}))}")
    step = ACTIONS[name]
    if step == "attack" and str(form.get("sea", "")).strip():
        step = "amphibious"
    arg = {k: str(form.get(k, "")).strip() for k in FIELDS[step]}
    return act(c, step, nation, **arg)


def mn_turn(c, ident, form):
    from bellica.engine.mare_nostrum.ruleset import next_decision, run_engine_step
    from bellica.geo.errors import InputError

    c.require_state()
    step = str(form.get("step", "")).strip().lower()
    if step == "next":
        step = next_decision(c, c.snapshot())[0]
        if step not in ("begin", "end"):
            return []
    if step not in ("begin", "end"):
        raise InputError(f"step {form.get('step', '')!r}: give begin, end or next")
    return run_engine_step(c, step)


def mn_lottery(c, ident, form):
    from bellica.engine.mare_nostrum.ruleset import enter_number, enter_wheel
    from bellica.geo.errors import InputError

    c.require_state()
    wheel, label = str(form.get("wheel", "")).strip(), str(form.get("label", "")).strip()
    if bool(wheel) == bool(label):
        raise InputError("give a wheel and its numbers, or a label and its number (one of them)")
    if label:
        number = _whole(form, "number")
        if number is None:
            raise InputError(f"number: give the number drawn for {label}")
        return enter_number(c, label, number)
    words = str(form.get("numbers", "")).replace(",", " ").split()
    numbers = [_whole({"numbers": w}, "numbers") for w in words]
    if not numbers:
        raise InputError(f"numbers: give the numbers drawn on wheel {wheel}, in the order drawn")
    return enter_wheel(c, wheel, numbers, turn=_whole(form, "turn"))


def mn_result(c, ident, form):
    from bellica.engine.mare_nostrum.ruleset import enter_result
    from bellica.geo.errors import InputError

    c.require_state()
    province = str(form.get("province", "")).strip()
    if not province:
        raise InputError("province: give the province the battle was fought for")
    return enter_result(c, province, str(form.get("winner", "")))


# --- the routes ---------------------------------------------------------------------------------------


def form_action(access, roles: tuple[str, ...], run: Callable, page: Callable, *, nothing: Callable,
                keep_typed: bool = False, said_of: Callable | None = None):
    """``run(c, ident, form) -> events`` as a POST endpoint of a game's pages (the province games'
    and the node games'): JSON ``{"events"}``, or a redirect (303) to ``GET /turn`` with what
    happened; a refusal shown on ``page(c, ident, error=...)`` (400, 409 for a step out of order,
    an HTTP error its own status), with what was typed kept when ``keep_typed``.  ``nothing(c)``:
    the words when the step said nothing; ``said_of(events)``: the lines the actor is shown
    (default: every explanation, not the bookkeeping kinds)."""
    async def endpoint(request: Request) -> Response:
        form = await _form(request)

        def go():
            from bellica.engine.core.machine import StepRefused
            from bellica.geo.errors import BellicaError

            typed = {"typed": form} if keep_typed else {}
            with access.open(write=True) as c:
                ident = _identify(c, request, roles)
                try:
                    events = run(c, ident, form)
                except BellicaError as err:
                    if _wants_json(request):
                        raise
                    code = 409 if isinstance(err, StepRefused) else 400
                    return HTMLResponse(page(c, ident, error=str(err), **typed), status_code=code)
                except HttpError as err:
                    if _wants_json(request):
                        raise
                    return HTMLResponse(page(c, ident, error=err.message, **typed), status_code=err.status)
                said = (said_of or _said)(events)
                if _wants_json(request):
                    return JSONResponse({"events": said})
                # Post/Redirect/Get: the browser lands on GET /turn, so reloading the page (or going
                # back to it) shows what happened again instead of sending the form a second time.
                key = keep_said(ident.name, "<br>".join(e(t) for t in said) or nothing(c))
                return RedirectResponse(f"/turn?said={key}", status_code=303)
        return await run_in_threadpool(_guarded, request, go)
    return endpoint


def turn_page_endpoint(access, page: Callable):
    """``GET /turn``, where a form's post redirects: the viewer's ``page`` with what its action said."""
    async def turn_page(request: Request) -> Response:
        def go():
            with access.open() as c:
                ident = _identify(c, request, BOTH)
                return HTMLResponse(page(c, ident, message=said_for(ident.name, request.query_params.get("said"))))
        return await run_in_threadpool(_guarded, request, go)
    return turn_page


def routes(access, ruleset: str) -> list[Route]:
    """The province routes of a ``ruleset`` campaign served through ``access`` (server.CampaignAccess)."""

    def action(roles: tuple[str, ...], run: Callable):
        return form_action(access, roles, run, home_page,
                           nothing=lambda c: "nothing to run: " + _view(c).next_words.replace("CAMPAIGN", c.path.name))

    turn_page = turn_page_endpoint(access, home_page)

    async def api_status(request: Request) -> Response:
        def go():
            with access.open() as c:
                _identify(c, request, BOTH)
                return JSONResponse(status_json(c))
        return await run_in_threadpool(_guarded, request, go)

    umpire_sql = console_endpoint(access, home_page)

    out = [Route("/api/status", api_status, methods=["GET"]),
           Route("/turn", turn_page, methods=["GET"]),
           Route("/umpire/sql", umpire_sql, methods=["POST"])]
    if ruleset == ROR:
        out += [Route("/turn/next", action(BOTH, ror_next), methods=["POST"]),
                Route("/turn/attack", action(BOTH, ror_attack), methods=["POST"]),
                Route("/turn/spend", action(BOTH, ror_spend), methods=["POST"]),
                Route("/turn/province", action(BOTH, ror_province), methods=["POST"]),
                Route("/turn/result", action(BOTH, ror_result), methods=["POST"])]
    elif ruleset == MN:
        out += [Route("/turn/act", action(BOTH, mn_act), methods=["POST"]),
                Route("/umpire/turn", action(("umpire",), mn_turn), methods=["POST"]),
                Route("/umpire/lottery", action(("umpire",), mn_lottery), methods=["POST"]),
                Route("/turn/result", action(("umpire",), mn_result), methods=["POST"])]
    else:
        raise ValueError(f"ruleset {ruleset!r} is not a province ruleset ({', '.join(RULESETS)})")
    return out
