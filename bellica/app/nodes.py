"""The app's pages and forms for Magna Graecia (a node map of Sicily), written by hand.

:mod:`bellica.app.routing` sends a Magna Graecia campaign's paths to :func:`routes` (the shared
pages, ``/``, ``/signin``, ``/signout``, ``/map``, are :mod:`bellica.app.server`'s: ``/`` shows
:func:`home_page`, ``/map`` the ruleset's player view of the viewer, drawn by
:mod:`bellica.web_maps`); a path it lacks is 404.  Each form calls the engine function
``bellica magna-graecia`` calls (``play``), so each rule and refusal is the engine's: a step out of
turn or one the rules refuse (the CLI's exit 3) is 409, a bad input (exit 1) 400, both shown on
the page with what was typed kept and nothing stored; another role's form is 403.  A form that
succeeds answers 303 to ``GET /turn?said=KEY`` (the page with what it said), so a reload never
sends it twice.  These forms stay until Magna Graecia declares its steps (engine/core/steps.py):
then its name leaves :data:`RULESETS` and :mod:`bellica.app.step_forms` makes its pages, as it
does the Trossian campaign's.

=======================  ================  ===================================================
``POST /turn/act``       a side            ``step`` and its fields: move, sail, embark,
                                           disembark, exchange, shelter, attack_city,
                                           end_movement, defence, siege, sally, second_day,
                                           retreat, retreat_fleet, end_turn.  The side is the
                                           token's own.
``POST /umpire/act``     umpire            result, fleet_battle, roll, retreat, agree_end
``GET /api/status``      anyone            the status JSON as the viewer may see it
``POST /umpire/sql``     umpire            the read-only SQL console
=======================  ================  ===================================================

Secrets: a side's page, JSON and map come from the engine's own filtered view (``view(c, side)``,
and the map drawn from it), so another side's element counts and naval points never reach it.
The log shown is :func:`~bellica.engine.core.sealed.log_view` for the viewer; for a side only
the steps are listed (rule events and dice can name a command's elements), another side's
element exchanges without their elements.
"""

from __future__ import annotations

import json
from typing import Callable, Mapping

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bellica.app import pages
from bellica.app.pages import e
from bellica.app.server import HttpError, console_endpoint, _guarded, _identify
from bellica.app.tokens import Identity

__all__ = ["MG", "RULESETS", "is_node", "home_page", "routes", "status_json"]

MG = "magna-graecia"
#: The rulesets whose forms this module still writes by hand (:mod:`bellica.app.routing` reads it):
#: the Trossian campaign declares its steps and has the generic page of :mod:`bellica.app.step_forms`.
RULESETS = (MG,)
BOTH = ("player", "umpire")
_QUIET = {"put_row", "drop_row", "set_campaign", "put_note", "dice"}

#: Magna Graecia: the steps a side takes here, and the umpire's.
MG_SIDE_STEPS = ("move", "sail", "embark", "disembark", "exchange", "shelter", "attack_city", "end_movement",
                 "defence", "siege", "sally", "second_day", "retreat", "retreat_fleet", "end_turn")
MG_UMPIRE_STEPS = ("result", "fleet_battle", "roll", "retreat", "agree_end")


def is_node(ruleset: str) -> bool:
    return ruleset in RULESETS


def _words(text: str) -> list[str]:
    return str(text or "").replace(",", " ").split()


def _path(text: str) -> list[str]:
    """Names in order: separated by commas, semicolons or arrows where the text has any (a name may hold a
    space: "Heraclea Minoa, Akragas"), else by spaces ("Leontini Catana")."""
    t = str(text or "").replace("->", ",").replace(";", ",")
    if "," in t:
        return [p.strip() for p in t.split(",") if p.strip()]
    return t.split()


def _need(form: Mapping[str, str], key: str, what: str) -> str:
    from bellica.geo.errors import InputError

    v = str(form.get(key, "")).strip()
    if not v:
        raise InputError(f"{key}: give {what}")
    return v


def _pairs(text: str, what: str, example: str) -> dict[str, int]:
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    out: dict[str, int] = {}
    for v in _words(text):
        key, _, n = v.rpartition("=")
        count = whole_number(n)  # ASCII digits only: str.isdigit() takes "²", which int() refuses
        if not key.strip() or count is None or count < 1:
            raise InputError(f"{what} {v!r}: give ELEMENT=N with N >= 1 (e.g. {example})")
        out[key.strip()] = out.get(key.strip(), 0) + count
    return out


# --- status --------------------------------------------------------------------------------------------


def _viewer(ident: Identity) -> str | None:
    return ident.faction if ident.role == "player" else None


def status_json(c, ident: Identity) -> dict:
    """What ``bellica magna-graecia status --side S --json`` prints."""
    from bellica.engine.magna_graecia.ruleset import view

    c.require_state()
    return view(c, side=_viewer(ident))


def _status_lines(c, v: Mapping) -> list[str]:
    from bellica.engine.magna_graecia.ruleset import view_lines

    lines = view_lines(v)
    return [ln.replace("CAMPAIGN", c.path.name) for ln in lines]


# --- forms ---------------------------------------------------------------------------------------------


class _Form:
    """HTML of one action form, its fields refilled from ``typed`` when it was the form refused."""

    def __init__(self, typed: Mapping[str, str] | None):
        self.typed = typed or {}

    def _val(self, step: str, name: str) -> str:
        return str(self.typed.get(name, "")) if self.typed.get("step") == step else ""

    def text(self, step: str, name: str, placeholder: str = "", width: str = "10rem") -> str:
        return (f'<input type="text" name="{e(name)}" id="{e(step)}-{e(name)}" style="width:{width}" '
                f'value="{e(self._val(step, name))}" placeholder="{e(placeholder)}" autocomplete="off">')

    def select(self, step: str, name: str, values, labels: Mapping[str, str] | None = None) -> str:
        got = self._val(step, name)
        opts = "".join(f'<option value="{e(v)}"{" selected" if str(v) == got else ""}>{e((labels or {}).get(v, v))}</option>'
                       for v in values)
        return f'<select name="{e(name)}" id="{e(step)}-{e(name)}">{opts}</select>'

    @staticmethod
    def form(step: str, title: str, body: str, button: str, action: str = "/turn/act") -> str:
        return (f'<form method="post" action="{action}" id="form-{e(step)}" class="box"><b>{e(title)}</b> '
                f'<input type="hidden" name="step" value="{e(step)}">{body} '
                f'<button id="{e(step)}-button">{e(button)}</button></form>')


def _mg_side_forms(c, side: str, v: Mapping, f: _Form) -> str:
    mine = [x for x in v["counters"] if "id" in x and x.get("side") == side]
    ids = [str(x["id"]) for x in mine]
    movers = [str(x["id"]) for x in mine if x.get("mp_left")]
    nodes = sorted(c.board.nmap.places)
    parts = []
    if v["phase"] == "movement" and v["phasing"] == side:
        reach = v.get("reach") or {}
        hint = "; ".join(f"{'fleet' if k == 'fleet' else '#' + k}: {', '.join(n)}" for k, n in reach.items())
        if hint:
            parts.append(f'<p id="reach">can reach: {e(hint)}</p>')
        parts += [
            f.form("move", "Move", "command " + f.select("move", "command", movers or ids) + " along "
                   + f.text("move", "path", "Leontini Catana", "16rem"), "move"),
            f.form("sail", "Sail the fleet", "along " + f.text("sail", "path", "Catana Messana", "16rem"), "sail"),
            f.form("embark", "Embark", "commands " + f.text("embark", "commands", "36 37"), "embark"),
            f.form("disembark", "Disembark", "commands " + f.text("disembark", "commands", "36 37"), "disembark"),
            f.form("exchange", "Exchange elements", "from " + f.select("exchange", "from", ids) + " to "
                   + f.select("exchange", "to", ids) + " " + f.text("exchange", "elements", "Sp(O)=2", "12rem"),
                   "exchange"),
            f.form("shelter", "Shelter the fleet", "(in a friendly, garrisoned, fortified port)", "shelter"),
            f.form("attack_city", "Attack a neutral city", "at " + f.select("attack_city", "node", nodes), "attack"),
            f.form("end_movement", "End the movement", "(alliance rolls, sieges, the battles due)", "end the movement"),
        ]
    if v["phase"] == "battles":
        for i, b in enumerate(v["battles"]):
            if b["kind"] != "land":
                continue
            if not b["defence"] and b["attacker"] != side:
                parts.append(f.form("defence", f"Defence at {b['node']}", f'<input type="hidden" name="node" '
                                    f'value="{e(b["node"])}">' + f.select("defence", "defence", ["forward", "central", "rear"]),
                                    "choose the defence"))
            if not b["defence"] and b["attacker"] == side and v["phasing"] == side:
                parts.append(f.form("siege", f"Siege at {b['node']}", f'<input type="hidden" name="node" '
                                    f'value="{e(b["node"])}">(a fortified city: besiege instead of fighting)', "lay siege"))
        for w in v.get("second_day") or ():
            if side in w["waiting_for"]:
                parts.append(f.form("second_day", f"Second day at {w['node']} (sealed until every side wrote)",
                                    f'<input type="hidden" name="node" value="{e(w["node"])}">'
                                    + f.select("second_day", "choice", ["stay", "retire"]), "write the order"))
        owned = {str(x["id"]) for x in mine}
        for r in v["retreats"]:
            if r["command"] and str(r["command"]) in owned:
                parts.append(f.form("retreat", f"Retreat command {r['command']}",
                                    f'<input type="hidden" name="command" value="{e(r["command"])}">along '
                                    + f.text("retreat", "path", " ".join(r["open_paths"][:1]) or "NODE", "14rem"),
                                    "retreat"))
            if r["fleet_side"] == side:
                parts.append(f.form("retreat_fleet", "Retreat the fleet", "along " + f.text("retreat_fleet", "path", "NODE"),
                                    "retreat the fleet"))
        if v["phasing"] == side:
            parts.append(f.form("sally", "Sally", "from the besieged city " + f.select("sally", "node", nodes), "sally"))
            parts.append(f.form("end_turn", "End the turn", "(battles fought, retreats made)", "end the turn"))
    if not parts:
        parts.append('<p id="waiting">nothing for your side to do now: this page follows the campaign</p>')
    return "<h2>Your orders</h2>" + "".join(parts)


def _mg_umpire_forms(c, v: Mapping, f: _Form) -> str:
    sides = [s["side"] for s in v["sides"]]
    parts = []
    for b in v["battles"]:
        if b["kind"] == "naval":
            parts.append(f.form("fleet_battle", f"Fleet battle at {b['node']}",
                                f'<input type="hidden" name="node" value="{e(b["node"])}">retreating instead: '
                                + f.select("fleet_battle", "retreat", ["", *sides], {"": "(none: they fight)"}),
                                "fight", "/umpire/act"))
        elif b["defence"] and not b["undecided"]:
            parts.append(f.form("result", f"Result of the battle at {b['node']}",
                                f'<input type="hidden" name="node" value="{e(b["node"])}">winner '
                                + f.select("result", "winner", [*sides, "none"], {"none": "none (undecided)"})
                                + " losses " + f.text("result", "losses", "40:Sp(I)=2 36:Sp(O)=1", "16rem")
                                + " open paths " + f.text("result", "open", "(default: all but the winner's edge)", "12rem"),
                                "enter the result", "/umpire/act"))
    for r in v["retreats"]:
        if r["command"]:
            parts.append(f.form("retreat", f"Retreat command {r['command']} (for its owner)",
                                f'<input type="hidden" name="command" value="{e(r["command"])}">along '
                                + f.text("retreat", "path", " ".join(r["open_paths"][:1]) or "NODE", "14rem"),
                                "retreat", "/umpire/act"))
    parts.append(f.form("roll", "A die rolled at the table", "label " + f.text("roll", "label", "alliance/1/Gela/Syracuse", "16rem")
                        + " value " + f.text("roll", "value", "1-6", "3rem"), "enter the die", "/umpire/act"))
    parts.append(f.form("agree_end", "End the season by agreement", "(the victory points decide)", "end the season",
                        "/umpire/act"))
    return "<h2>The umpire's steps</h2>" + "".join(parts)


def _log(c, ident: Identity) -> str:
    from bellica.engine.core.sealed import log_view

    viewer = _viewer(ident)
    lines = []
    for ln in log_view(c, viewer=viewer):  # the ruleset's seal decides what this viewer reads
        ev = ln.event
        if ev.kind in _QUIET or (ln.sealed and ev.kind != "step"):
            continue  # bookkeeping, and Magna Graecia's outcomes a side may not read: left out, not listed
        lines.append((ev.round, ln.text))
    lines = lines[-200:]
    return ('<h2>Log</h2><ul class="log" id="log">'
            + "".join(f"<li>{e(r)}: {e(t)}</li>" for r, t in reversed(lines)) + "</ul>")


def home_page(c, ident: Identity, *, message: str | None = None, error: str | None = None,
              typed: Mapping[str, str] | None = None, sql: str = "", sql_html: str = "") -> str:
    """The signed-in viewer's page (``message``: HTML, already escaped)."""
    c.require_state()
    v = status_json(c, ident)
    lines = _status_lines(c, v)
    parts = [f'<div class="box" id="status">{"<br>".join(e(ln) for ln in lines)}</div>']
    if message:
        parts.append(f'<div class="box ok" id="message">{message}</div>')
    if error:
        parts.append(f'<div class="box error" id="error">refused, nothing stored: '
                     f'{e(error.replace("CAMPAIGN", c.path.name))}</div>')
    f = _Form(typed)
    parts.append(_mg_side_forms(c, ident.faction, v, f) if ident.role == "player" else _mg_umpire_forms(c, v, f))
    if ident.role == "umpire":
        parts.append('<h2>SQL console (read-only)</h2><form method="post" action="/umpire/sql" id="sql">'
                     f'<textarea name="query" rows="3">{e(sql)}</textarea><button>run</button></form>{sql_html}')
    what = "the umpire's map" if ident.role == "umpire" else f"{ident.faction}'s map"
    parts.append(f'<h2>Map</h2><iframe id="map" src="/map" title="{e(what)}"></iframe>')
    parts.append(_log(c, ident))
    title = "bellica: Magna Graecia, " + ("umpire" if ident.role == "umpire" else ident.faction)
    return pages.page(title, "".join(parts), who=ident.name)


# --- the actions ---------------------------------------------------------------------------------------


def _own_side(ident: Identity, form: Mapping[str, str]) -> str:
    if ident.role != "player":
        raise HttpError(403, "the umpire takes no side's steps here: each side acts with its own token")
    named = str(form.get("side", form.get("nation", ""))).strip()
    if named and named.casefold() != ident.faction.casefold():
        raise HttpError(403, f"your token ({ident.name}) acts for {ident.faction} only, not for {named}")
    return ident.faction


def _mg_arg(step: str, form: Mapping[str, str]) -> dict:
    from bellica.geo.errors import InputError

    if step in ("move", "retreat"):
        return {"command": _need(form, "command", "the command's number"), "path": _path(form.get("path", ""))}
    if step in ("sail", "retreat_fleet"):
        return {"path": _path(form.get("path", ""))}
    if step in ("embark", "disembark"):
        return {"commands": _words(form.get("commands", ""))}
    if step == "exchange":
        els = _pairs(form.get("elements", ""), "element", "'Sp(O)=2'")
        if not els:
            raise InputError("elements: give ELEMENT=N ... (e.g. Sp(O)=2)")
        return {"from": _need(form, "from", "the giving command"), "to": _need(form, "to", "the taking command"),
                "elements": els}
    if step in ("attack_city", "siege", "sally"):
        return {"node": _need(form, "node", "the node")}
    if step == "defence":
        return {"node": _need(form, "node", "the node"), "defence": str(form.get("defence", "")).strip().lower()}
    if step == "second_day":
        return {"node": _need(form, "node", "the node"), "choice": str(form.get("choice", "")).strip().lower()}
    if step == "result":
        lost: dict[str, dict[str, int]] = {}
        for item in _words(form.get("losses", "")):
            cid, sep, rest = item.partition(":")
            if not sep or not cid.strip():
                raise InputError(f"losses {item!r}: give COMMAND:ELEMENT=N (e.g. 40:Sp(I)=2)")
            for k, n in _pairs(rest, "losses", "40:Sp(I)=2").items():
                lost.setdefault(cid.strip(), {})
                lost[cid.strip()][k] = lost[cid.strip()].get(k, 0) + n
        arg: dict = {"node": _need(form, "node", "the battle's node"), "winner": str(form.get("winner", "")).strip(),
                     "losses": lost}
        if _path(form.get("open", "")):
            arg["open_paths"] = _path(form.get("open", ""))
        return arg
    if step == "fleet_battle":
        return {"node": _need(form, "node", "the node"), "retreat": str(form.get("retreat", "")).strip() or None}
    if step == "roll":
        return {"label": _need(form, "label", "the die's label"), "value": str(form.get("value", "")).strip()}
    return {}


def mg_side_act(c, ident: Identity, form: Mapping[str, str]):
    from bellica.engine.magna_graecia.ruleset import play
    from bellica.geo.errors import InputError

    side = _own_side(ident, form)
    c.require_state()
    step = str(form.get("step", "")).strip().lower().replace("-", "_")
    if step in MG_UMPIRE_STEPS and step != "retreat":
        raise HttpError(403, f"{step} is the umpire's step: your token ({ident.name}) may not take it")
    if step not in MG_SIDE_STEPS:
        raise InputError(f"step {form.get('step', '')!r}: give one of {', '.join(MG_SIDE_STEPS)}")
    return play(c, step, {"side": side, **_mg_arg(step, form)})


def mg_umpire_act(c, ident: Identity, form: Mapping[str, str]):
    from bellica.engine.magna_graecia.ruleset import play
    from bellica.geo.errors import InputError

    c.require_state()
    step = str(form.get("step", "")).strip().lower().replace("-", "_")
    if step not in MG_UMPIRE_STEPS:
        raise InputError(f"step {form.get('step', '')!r}: the umpire gives one of {', '.join(MG_UMPIRE_STEPS)}")
    return play(c, step, _mg_arg(step, form))


# --- the routes -----------------------------------------------------------------------------------------


def _said(events) -> list[str]:
    return [ev.text if ev.kind != "step" else f"== {ev.text}" for ev in events if ev.kind not in _QUIET and ev.text]


def routes(access, ruleset: str) -> list[Route]:
    """The routes of a Magna Graecia campaign (``ruleset``) served through ``access``."""
    from bellica.app.provinces import form_action, turn_page_endpoint

    def action(roles: tuple[str, ...], run: Callable):
        return form_action(access, roles, run, home_page, nothing=lambda c: "done", keep_typed=True, said_of=_said)

    turn_page = turn_page_endpoint(access, home_page)

    async def api_status(request: Request) -> Response:
        def go():
            with access.open() as c:
                ident = _identify(c, request, BOTH)
                return JSONResponse(json.loads(json.dumps(status_json(c, ident), default=str)))
        return await run_in_threadpool(_guarded, request, go)

    if ruleset not in RULESETS:
        raise ValueError(f"ruleset {ruleset!r} is not {' or '.join(RULESETS)}")
    side_run, umpire_run = mg_side_act, mg_umpire_act
    return [Route("/api/status", api_status, methods=["GET"]),
            Route("/turn", turn_page, methods=["GET"]),
            Route("/umpire/sql", console_endpoint(access, home_page), methods=["POST"]),
            Route("/turn/act", action(BOTH, side_run), methods=["POST"]),
            Route("/umpire/act", action(("umpire",), umpire_run), methods=["POST"])]
