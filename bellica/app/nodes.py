"""The app's pages and forms for Magna Graecia (a node map of Sicily) and the Trossian campaign.

:func:`bellica.app.server.create_app` passes its routes through :func:`by_ruleset` after
:func:`bellica.app.provinces.by_ruleset`: the shared pages (``/``, ``/signin``, ``/signout``,
``/map``) stay as they are (``/`` shows :func:`home_page` for these campaigns, ``/map`` the
ruleset's player view of the viewer, drawn by :mod:`bellica.web_maps`), and every other path of a Magna
Graecia or Trossian campaign goes to this module's routes (a path they lack is 404).  Each form
calls the engine function the CLI command calls (``play`` for ``bellica magna-graecia``; ``act``,
``next_step`` and ``enter_result`` for ``bellica trossian``), so each rule and refusal is the
engine's: a step out of turn or one the rules refuse (the CLI's exit 3) is 409, a bad input
(exit 1) 400, both shown on the page with what was typed kept and nothing stored; another
role's form is 403.  A form that succeeds answers 303 to ``GET /turn?said=KEY`` (the page with
what it said), so a reload never sends it twice.

=======================  ================  ===================================================
``POST /turn/act``       a side / nation   ``step`` and its fields.  Magna Graecia: move,
                                           sail, embark, disembark, exchange, shelter,
                                           attack_city, end_movement, defence, siege, sally,
                                           second_day, retreat, retreat_fleet, end_turn.
                                           Trossian: march, sail, courier, army, done, bank,
                                           recruit.  The side is the token's own.
``POST /umpire/act``     umpire            Magna Graecia: result, fleet_battle, roll,
                                           retreat, agree_end.  Trossian: next, result.
``GET /api/status``      anyone            the status JSON as the viewer may see it
``POST /umpire/sql``     umpire            the read-only SQL console
=======================  ================  ===================================================

Secrets: a side's page, JSON and map come from the engine's own filtered views
(``view(c, side)``, ``status_view(c, nation)``, and the map drawn from them), so another side's element
counts and naval points (Magna Graecia) or another nation's orders, couriers, messages and
treasury (Trossian) never reach it.  The log shown is :func:`~bellica.engine.core.sealed.log_view`
for the viewer; for a Magna Graecia side only the steps are listed (rule events and dice can
name a command's elements), another side's element exchanges without their elements.
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
from bellica.app.server import HttpError, console_endpoint, _error_response, _guarded, _identify
from bellica.app.tokens import Identity

__all__ = ["MG", "TR", "RULESETS", "is_node", "home_page", "by_ruleset", "routes", "status_json"]

MG = "magna-graecia"
TR = "trossian"
RULESETS = (MG, TR)
BOTH = ("player", "umpire")
_QUIET = {"put_row", "drop_row", "set_campaign", "put_note", "dice"}

#: Magna Graecia: the steps a side takes here, and the umpire's.
MG_SIDE_STEPS = ("move", "sail", "embark", "disembark", "exchange", "shelter", "attack_city", "end_movement",
                 "defence", "siege", "sally", "second_day", "retreat", "retreat_fleet", "end_turn")
MG_UMPIRE_STEPS = ("result", "fleet_battle", "roll", "retreat", "agree_end")
TR_NATION_STEPS = ("march", "sail", "courier", "army", "done", "bank", "recruit", "ally")
TR_UMPIRE_STEPS = ("next", "result")


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
    """What ``bellica magna-graecia status --side S --json`` / ``bellica trossian status --nation N --json`` print."""
    c.require_state()
    if c.ruleset.name == MG:
        from bellica.engine.magna_graecia.ruleset import view

        return view(c, side=_viewer(ident))
    from bellica.engine.trossian.ruleset import status_view

    return status_view(c, _viewer(ident))


def _status_lines(c, v: Mapping) -> list[str]:
    if c.ruleset.name == MG:
        from bellica.engine.magna_graecia.ruleset import view_lines

        lines = view_lines(v)
    else:
        from bellica.engine.trossian.ruleset import status_lines

        lines = status_lines(v)
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


def _tr_nation_forms(c, nation: str, v: Mapping, f: _Form) -> str:
    armies = [str(a["army"]) for a in v["armies"] if a["nation"] == nation]
    couriers = [str(x["courier"]) for x in v.get("couriers") or ()]
    navies = [str(n["navy"]) for n in v["navies"] if n["nation"] == nation]
    provinces = list(c.board.provinces)
    others = [n for n in c.board.nations if n != nation]
    parts = []
    if v["phase"] in ("orders", "winter") and others:
        # Alliances are public words, given in the orders phase (done or not) and in winter quarters.
        parts.append(f.form("ally", "Alliance", "with " + f.select("ally", "with", others) + " "
                            + f.select("ally", "word", ["offer or accept", "break"]), "give your word"))
    if v["phase"] == "orders" and nation not in v["ready"]:
        parts += [
            f.form("march", "March", "army " + f.select("march", "army", armies) + " through "
                   + f.text("march", "path", "Podolia Moldavia", "16rem"), "give the order"),
            f.form("sail", "Navy", "navy " + f.select("sail", "navy", navies) + " actions "
                   + f.text("sail", "actions", "sail:LANE put_in:TOWN", "18rem"), "give the order"),
            f.form("courier", "Courier", "courier " + f.select("courier", "courier", couriers) + " "
                   + f.select("courier", "action", ["send", "move", "deliver"]) + " message "
                   + f.text("courier", "message", "march on Bender", "14rem") + " to "
                   + f.text("courier", "to", "army 1", "8rem") + " via " + f.text("courier", "path", "Podolia", "12rem"),
                   "give the order"),
            f.form("army", "Army", "army " + f.select("army", "army", armies) + " "
                   + f.select("army", "action", ["merge", "detach", "hold", "home"]) + " with "
                   + f.text("army", "with", "13", "5rem") + " units " + f.text("army", "units", "2 3", "6rem")
                   + " name " + f.text("army", "name", "", "8rem"), "give the order"),
            f.form("done", "Done", "(your orders are sealed until every nation is done)", "done for this phase"),
        ]
    elif v["phase"] == "winter":
        parts += [
            f.form("bank", "Move banked AP", "from " + f.select("bank", "source", provinces) + " to "
                   + f.select("bank", "target", provinces) + " AP " + f.text("bank", "ap", "5", "4rem"), "move"),
            f.form("recruit", "Recruit", "at " + f.select("recruit", "at", provinces) + " buy "
                   + f.text("recruit", "kinds", "infantry cavalry courier", "14rem") + " quality "
                   + f.select("recruit", "quality", ["line", "guard", "militia"]), "recruit"),
        ]
    if not parts:
        parts.append('<p id="waiting">nothing for your nation to do now: this page follows the campaign</p>')
    return "<h2>Your orders</h2>" + "".join(parts)


def _tr_umpire_forms(c, v: Mapping, f: _Form) -> str:
    parts = []
    if v["next_step"] in ("begin", "resolve", "end", "spring"):
        parts.append(f.form("next", "Next", f"({v['next_step']})", f"run: {v['next_step']}", "/umpire/act"))
    for b in v["battles"]:
        parts.append(f.form("result", f"Battle {b['battle']} in {b['province']}",
                            f'<input type="hidden" name="battle" value="{e(b["battle"])}">winner '
                            + f.select("result", "winner", ["a", "b", "draw"],
                                       {"a": f"a ({' & '.join(b['nations'][0])})", "b": f"b ({' & '.join(b['nations'][1])})"})
                            + " fates " + f.text("result", "fates", "7=destroyed 8=routed", "14rem")
                            + " retreats " + f.text("result", "retreats", "ARMY=PROVINCE", "12rem")
                            + " dice " + f.text("result", "dice", "LABEL=FACE", "12rem"),
                            "enter the result", "/umpire/act"))
    return "<h2>The umpire's steps</h2>" + "".join(parts)


def _log(c, ident: Identity) -> str:
    from bellica.engine.core.sealed import log_view

    viewer = _viewer(ident)
    lines = []
    for ln in log_view(c, viewer=viewer):  # the ruleset's seal decides what this viewer reads
        ev = ln.event
        if ev.kind in _QUIET or (c.ruleset.name == MG and ln.sealed and ev.kind != "step"):
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
    if c.ruleset.name == MG:
        parts.append(_mg_side_forms(c, ident.faction, v, f) if ident.role == "player" else _mg_umpire_forms(c, v, f))
    else:
        parts.append(_tr_nation_forms(c, ident.faction, v, f) if ident.role == "player" else _tr_umpire_forms(c, v, f))
    if ident.role == "umpire":
        parts.append('<h2>SQL console (read-only)</h2><form method="post" action="/umpire/sql" id="sql">'
                     f'<textarea name="query" rows="3">{e(sql)}</textarea><button>run</button></form>{sql_html}')
    what = "the umpire's map" if ident.role == "umpire" else f"{ident.faction}'s map"
    parts.append(f'<h2>Map</h2><iframe id="map" src="/map" title="{e(what)}"></iframe>')
    parts.append(_log(c, ident))
    game = "Magna Graecia" if c.ruleset.name == MG else "Trossian campaign"
    title = f"bellica: {game}, " + ("umpire" if ident.role == "umpire" else ident.faction)
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


def tr_nation_act(c, ident: Identity, form: Mapping[str, str]):
    from bellica.engine.trossian.ruleset import act, ally
    from bellica.geo.errors import InputError

    from bellica.geo.files import whole_number

    nation = _own_side(ident, form)
    c.require_state()
    step = str(form.get("step", "")).strip().lower()
    if step not in TR_NATION_STEPS:
        raise InputError(f"step {form.get('step', '')!r}: give one of {', '.join(TR_NATION_STEPS)}")
    if step == "ally":
        return ally(c, nation, _need(form, "with", "the nation"), brk=str(form.get("word", "")).strip() == "break")

    def whole(key: str, what: str) -> int:
        v = _need(form, key, what)
        if whole_number(v) is None:
            raise InputError(f"{key} {v!r}: give a whole number ({what})")
        return whole_number(v)

    if step == "march":
        arg = {"army": whole("army", "the army's number"), "path": _path(form.get("path", ""))}
    elif step == "sail":
        arg = {"navy": whole("navy", "the navy's number"), "actions": _path(form.get("actions", ""))}
    elif step == "courier":
        arg = {"courier": whole("courier", "the courier's number"), "action": str(form.get("action", "")).strip(),
               "message": str(form.get("message", "")).strip() or None, "to": str(form.get("to", "")).strip() or None,
               "path": _path(form.get("path", ""))}
    elif step == "army":
        units = _words(form.get("units", ""))
        if any(whole_number(u) is None for u in units):
            raise InputError(f"units {form.get('units')!r}: give unit numbers")
        arg = {"army": whole("army", "the army's number"), "action": str(form.get("action", "")).strip(),
               "with": _words(form.get("with", "")), "units": [whole_number(u) for u in units],
               "name": str(form.get("name", "")).strip()}
    elif step == "bank":
        arg = {"source": _need(form, "source", "the city the AP leave"), "target": _need(form, "target", "the city"),
               "ap": whole("ap", "the AP moved")}
    elif step == "recruit":
        arg = {"at": _need(form, "at", "the city"), "kinds": _words(form.get("kinds", "")),
               "quality": str(form.get("quality", "line")).strip() or "line"}
    else:
        arg = {}
    return act(c, step, nation, **arg)


def tr_umpire_act(c, ident: Identity, form: Mapping[str, str]):
    from bellica.engine.trossian.ruleset import enter_result, next_step, parse_dice, parse_fates
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    c.require_state()
    step = str(form.get("step", "")).strip().lower()
    if step == "next":
        return next_step(c)
    if step != "result":
        raise InputError(f"step {form.get('step', '')!r}: the umpire gives next or result")
    battle = _need(form, "battle", "the battle's number")
    if whole_number(battle) is None:
        raise InputError(f"battle {battle!r}: give the battle's number")
    retreats = {}
    for item in _words(form.get("retreats", "")):
        army, sep, prov = item.partition("=")
        if not sep or whole_number(army) is None or not prov.strip():
            raise InputError(f"retreats {item!r}: give ARMY=PROVINCE")
        retreats[whole_number(army)] = prov.strip()
    return enter_result(c, whole_number(battle), _need(form, "winner", "a, b or draw"), parse_fates(_words(form.get("fates", ""))),
                        retreats, parse_dice(_words(form.get("dice", ""))))


# --- the routes -----------------------------------------------------------------------------------------


def _said(events) -> list[str]:
    return [ev.text if ev.kind != "step" else f"== {ev.text}" for ev in events if ev.kind not in _QUIET and ev.text]


def routes(access, ruleset: str) -> list[Route]:
    """The routes of a ``ruleset`` (Magna Graecia or Trossian) campaign served through ``access``."""
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

    side_run, umpire_run = (mg_side_act, mg_umpire_act) if ruleset == MG else (tr_nation_act, tr_umpire_act)
    if ruleset not in RULESETS:
        raise ValueError(f"ruleset {ruleset!r} is not {' or '.join(RULESETS)}")
    return [Route("/api/status", api_status, methods=["GET"]),
            Route("/turn", turn_page, methods=["GET"]),
            Route("/umpire/sql", console_endpoint(access, home_page), methods=["POST"]),
            Route("/turn/act", action(BOTH, side_run), methods=["POST"]),
            Route("/umpire/act", action(("umpire",), umpire_run), methods=["POST"])]


def by_ruleset(access, others: list[Route]) -> list[Route]:
    """``others`` (the routes :func:`bellica.app.provinces.by_ruleset` gives) with every non-shared path
    sent, for a Magna Graecia or Trossian campaign, to :func:`routes` (a path they lack: 404), and
    for any other campaign to ``others``' route as before."""
    from bellica.app.provinces import SHARED, ruleset_of

    table: dict[str, dict[str, Route]] = {}
    for r in others:
        if r.path not in SHARED:
            table.setdefault(r.path, {})["other"] = r
    for kind in RULESETS:
        for r in routes(access, kind):
            table.setdefault(r.path, {})[kind] = r

    def dispatch(path: str, by_kind: Mapping[str, Route]):
        async def endpoint(request: Request) -> Response:
            from bellica.geo.errors import BellicaError

            try:
                kind = await run_in_threadpool(ruleset_of, access)
            except HttpError as err:
                return _error_response(request, err.status, err.message, err.headers)
            except BellicaError:
                kind = "other"
            route = by_kind.get(kind if is_node(kind) else "other")
            if route is None or request.method not in (route.methods or ()):
                return _error_response(request, 404, f"{path} is no page of a {kind} campaign: see / for its forms")
            return await route.endpoint(request)
        return endpoint

    methods = lambda rs: sorted({m for r in rs.values() for m in (r.methods or ()) if m != "HEAD"})  # noqa: E731
    return ([r for r in others if r.path in SHARED]
            + [Route(path, dispatch(path, rs), methods=methods(rs)) for path, rs in table.items()])
