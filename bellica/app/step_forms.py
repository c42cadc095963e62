"""One page for every ruleset that declares its steps (engine/core/steps.py): forms follow from the declarations.

Nothing here knows a ruleset.  The page (``templates/steps.html``) shows the viewer's status (the
ruleset's player view, in its :meth:`~bellica.engine.core.ruleset.Ruleset.status_lines`), one form
per step the viewer may take now (:meth:`~bellica.engine.core.ruleset.Ruleset.open_actions`), each
field made from a :class:`~bellica.engine.core.steps.Param`: its help is the label, its example the
placeholder, and its kind the input (``whole``: a number; ``choice``: a select of its choices;
``flag``: a checkbox; ``faction``: a select of the campaign's factions, or of those the ruleset
offers; ``many``: a text area, one value a line, or a box per item the ruleset offers; ``text``: a
text field; a keyed parameter, ``Param.keyed``: one field per key the ruleset offers the signer,
named ``NAME-KEY``, else a text area of ``KEY=VALUE`` lines).  For the umpire, the SQL console; for everyone, the map and
the log as the ruleset's seal lets the viewer read it.

=======================  ================  ===================================================
``POST /check/NAME``     the step's taker  the step's input checked by the step's declared
                                           ``check``, nothing stored: ``{"ok", "problems",
                                           "warnings"}`` (a page checks a form as one types)
``POST /preview/NAME``   the step's taker  a keyed item previewed by the step (:mod:`.key_preview`)
``POST /step/NAME``      the step's taker  the declared step ``NAME``, its fields by parameter
                                           name (a ``many`` one: one value a line, or the field
                                           repeated; a JSON body may give lists; a keyed one:
                                           ``NAME-KEY`` fields, or ``KEY=VALUE`` lines).  The
                                           actor is the signed-in token's faction for a side's
                                           step, none for the umpire's: never a field of the
                                           form.  A ``signed`` step is told the token too (an
                                           army player's token takes it for its armies only).
``GET /turn?said=KEY``   anyone signed in  the page with what the viewer's last step said
``GET /api/status``      anyone signed in  the player view's status as JSON
``GET /api/steps``       anyone signed in  the steps the viewer may take now, with their fields
``POST /umpire/sql``     umpire            the read-only SQL console
=======================  ================  ===================================================

A step's input goes through :func:`~bellica.engine.core.steps.parse_input`, the parser the command
line uses, and ``action.run(campaign, actor, **typed)``.  It succeeds with Post/Redirect/Get (303
to ``/turn?said=KEY``: what :meth:`~bellica.engine.core.ruleset.Ruleset.said` tells the actor, and
the next step); a refused one answers the page at once with the one-line error and what was typed
kept (400 for bad input, a :class:`~bellica.engine.core.steps.ParamError` naming its field; 409 a
step out of order; 403 another role's step, or a form naming another faction than the token's).
Asked for JSON (``Accept: application/json``, or a JSON body), it answers ``{"step", "said",
"next"}`` or ``{"error"}`` (and ``"param"`` for a refused field).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bellica.app.logpage import before_of, page_of
from bellica.app.pages import frame
from bellica.app.web_words import web_words
from bellica.app.render import Markup, render
from bellica.app.server import (HttpError, _error_response, _guarded, _identify, _wants_json, console_endpoint, said_for,
                                said_kwargs, see_page)
from bellica.app.tokens import Identity

__all__ = ["Field", "StepForm", "declares_steps", "forms_of", "home_page", "signer_of", "take_step", "routes"]

BOTH = ("player", "umpire")
#: Log entries that are bookkeeping (what the rules said is in the other events).
QUIET = frozenset({"put_row", "drop_row", "set_campaign", "put_note", "dice"})
#: Form fields that name who acts: a form may repeat the token's own faction, never another's.
ACTOR_FIELDS = ("faction", "side", "nation", "actor")


def declares_steps(ruleset) -> bool:
    """Whether ``ruleset`` declares its steps as data (then this module makes its pages)."""
    return bool(ruleset.actions())


def viewer_of(ident: Identity) -> str | None:
    return ident.faction if ident.role == "player" else None


# --- the forms ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One input of a step's form, made from a declared parameter."""

    id: str
    name: str
    label: str
    widget: str  # number, select, checkbox, textarea, text
    placeholder: str = ""
    value: str = ""
    options: tuple[str, ...] = ()
    required: bool = False
    invalid: bool = False
    #: The values the ruleset offers for a list (``many``) field, said under it.
    hint: str = ""
    #: A ``time`` field's time zone (its ``options`` are the zones offered).
    zone: str = ""
    #: A select's options as (value, words) when the words differ from the value (a keyed field's).
    choices: tuple[tuple[str, str], ...] = ()
    #: What a ticked box sends (a box of a list parameter: its item); empty: "on".
    sends: str = ""
    #: Never posted (``Param.local``): the field has no name, only ``data-name`` for the page's script.
    local: bool = False


@dataclass(frozen=True)
class StepForm:
    """One step's form: its name, its words and its fields."""

    name: str
    summary: str
    details: str
    fields: tuple[Field, ...]
    umpire: bool
    #: The fields a click on the map may fill (:mod:`.step_preview`), in order; empty: none.
    plot: tuple[str, ...] = ()
    #: Where the step stands for the signer, one line (:meth:`Ruleset.form_note`).
    note: str = ""
    #: The step declares a check: the page checks the form as one types (``POST /check/NAME``).
    checks: bool = False
    #: The keyed parameter whose items the step previews for the map (``POST /preview/NAME``,
    #: :mod:`.key_preview`): a button to plot each of its fields; empty: none.
    preview: str = ""
    #: Some fields stay in the browser (``Param.local``), or take a file's text the browser may have
    #: kept: the page's commitment script (static/commit_digest.js) makes a digest from the former
    #: and fills in the latter at the reveal.
    local: bool = False


def _typed_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def field_of(step: str, param, factions: Sequence[str], typed: Mapping[str, Any] | None, invalid: str = "",
             offered: Sequence[str] | None = None) -> Field:
    """The input of ``param`` in the form of ``step``, refilled from ``typed`` (the refused form's
    values); ``offered``: the values the ruleset offers now (:meth:`Ruleset.choices`), a select for
    one value, said under a list."""
    given = (typed or {}).get(param.name)
    value = _typed_text(given) if typed is not None else ""
    options: tuple[str, ...] = ()
    if param.kind == "faction" and offered is None:
        offered = tuple(factions)
    if param.kind == "time":
        return _time_field(step, param, typed, invalid)
    if param.kind == "flag":
        widget, value = "checkbox", ("on" if param.parse(given) else "") if typed is not None else ""
    elif param.repeats or param.multiline:
        widget = "textarea"
    elif offered is not None and param.kind == "text":
        widget, options = "text", tuple(str(o) for o in offered)  # suggestions: any text may still be typed
    elif offered is not None:
        widget = "select"
        options = tuple(str(o) for o in offered)
        options = (("",) if not param.required or not options else ()) + options + \
            ((value,) if value and value not in options else ())  # what was typed stays on the page
    else:
        widget = "number" if param.kind == "whole" else "text"
    placeholder = param.example + (" (one a line)" if param.repeats and param.example else "")
    if param.repeats and not param.example:
        placeholder = "one a line"
    hint = f"one a line, from: {', '.join(map(str, offered))}" if param.repeats and offered else ""
    return Field(id=f"{step}-{param.name}", name=param.name, label=web_words(param.help), widget=widget, placeholder=placeholder,
                 value="" if param.local else value, options=options,
                 required=param.required and param.kind != "flag" and not param.local,
                 invalid=invalid == param.name, hint=hint, local=param.local)


def offered_fields(step: str, param, offers, typed: Mapping[str, Any] | None, invalid: str = "") -> tuple[Field, ...]:
    """The fields the ruleset offers for ``param`` (:meth:`Ruleset.field_offers`): a select (or a
    text field) per key of a keyed parameter, named ``NAME-KEY``; a box per item of a list, each
    sending its item under ``NAME``.  Refilled from ``typed`` (a refused form's fields), else each
    offer's value now; a value typed that is not offered is not added (the list says what may be)."""
    out = []
    for i, o in enumerate(offers):
        if param.keyed:
            name = f"{param.name}-{o.key}"
            value = _typed_text((typed or {}).get(name)) if typed is not None else o.value
            if isinstance((typed or {}).get(name), list):
                value = str(typed[name][-1])
            choices = (("", o.none),) if o.none or o.options is None else ()
            choices += tuple(o.options or ())
            out.append(Field(id=f"{step}-{name}", name=name, label=web_words(o.label),
                             widget="select" if o.options is not None else "text",
                             value="" if param.local else value.strip(),
                             choices=choices if o.options is not None else (), invalid=invalid == param.name,
                             options=tuple(o.suggested) if o.options is None else (), local=param.local))
        else:
            ticked = _items_of((typed or {}).get(param.name)) if typed is not None else ([o.key] if o.value else [])
            out.append(Field(id=f"{step}-{param.name}-{i}", name=param.name, label=web_words(o.label), widget="checkbox",
                             value="on" if o.key in ticked else "", sends=o.key, invalid=invalid == param.name))
    return tuple(out)


def _items_of(given: Any) -> list[str]:
    if isinstance(given, (list, tuple)):
        return [str(v) for v in given]
    return [] if given is None else str(given).splitlines()


def signer_of(ident: Identity):
    """The signer a page's step is told (:class:`~bellica.engine.core.steps.Signer`): the token's
    role, faction and armies, recorded as given by the token."""
    from bellica.engine.core.steps import Signer

    return Signer(ident.role, ident.faction, ident.armies, ident.submitted_by)


def _time_field(step: str, param, typed: Mapping[str, Any] | None, invalid: str) -> Field:
    """A ``time`` parameter's date-time picker and time zone (:mod:`.deadline`), refilled from ``typed``."""
    from bellica.app.deadline import ZONES, local_value, zones

    kept = typed or {}
    value = _typed_text(kept.get(f"{param.name}_local")) or local_value(_typed_text(kept.get(param.name)))
    return Field(id=f"{step}-{param.name}", name=param.name, label=web_words(param.help), widget="datetime",
                 value=value, options=ZONES + zones(), zone=_typed_text(kept.get(f"{param.name}_tz")) or "UTC",
                 required=param.required, invalid=invalid == param.name)


def forms_of(c, ident: Identity, *, failed: str | None = None, typed: Mapping[str, Any] | None = None,
             invalid: str = "", view=None) -> list[StepForm]:
    """A form per step the viewer may take now; the refused step's (``failed``) refilled from ``typed``;
    with the viewer's player ``view``, the fields its map's features stand for (clicked to fill)."""
    from bellica.app.key_preview import preview_param
    from bellica.app.step_preview import targets_of
    from bellica.engine.core.steps import SIDE, UMPIRE

    ruleset = c.ruleset
    out = []
    viewer, signer = viewer_of(ident), signer_of(ident)
    for action in ruleset.open_actions(c, viewer):
        if any(p.server_file and p.required for p in action.params):
            continue  # a step that needs a file on the server is the command line's only
        if ident.armies is not None and action.who == SIDE and not action.signed:
            continue  # an army player's token takes no step of the whole side (_actor)
        kept = typed if action.name == failed else None
        params = [p for p in action.params if not p.server_file and p.on_page]
        offered = [ruleset.choices(c, viewer, action, p) for p in params]
        per_item = [ruleset.field_offers(c, signer, action, p) if p.repeats else None for p in params]
        if per_item and all(o is not None and not o for o in per_item):
            continue  # every field is offered item by item, and there is none: nothing to give now
        fields = _fields(c, action, params, offered, per_item, kept, invalid if kept is not None else "")
        plot = tuple(p.name for p, o in zip(params, offered)
                     if view is not None and o and p.kind != "flag" and targets_of(view, p.name, o))
        previewed = preview_param(action)
        out.append(StepForm(action.name, web_words(action.summary), web_words(action.details), fields,
                            action.who == UMPIRE, plot, web_words(map_words(c, ruleset.form_note(c, signer, action))),
                            action.check is not None, previewed.name if previewed is not None else "",
                            any(p.local or p.multiline for p in params)))
    return out


def _fields(c, action, params, offered, per_item, typed, invalid: str) -> tuple[Field, ...]:
    """The fields of ``action``'s form: a parameter offered item by item as its items' fields,
    any other as one field (:func:`field_of`)."""
    factions = c.ruleset.factions(c)
    out: list[Field] = []
    for p, o, items in zip(params, offered, per_item):
        if items is not None:  # its labels and words name hexes as the map does
            out += [replace(f, label=map_words(c, f.label), choices=tuple((v, map_words(c, w)) for v, w in f.choices))
                    for f in offered_fields(action.name, p, items, typed, invalid)]
        else:
            out.append(field_of(action.name, p, factions, typed, invalid, o))
    return tuple(out)


# --- the page -----------------------------------------------------------------------------------------


def _here(c, text: str) -> str:
    """``text`` with the placeholder ``CAMPAIGN`` of a command's words replaced by the file's name."""
    return text.replace("CAMPAIGN", c.path.name)


def next_words(c) -> str:
    return _here(c, c.ruleset.next_step(c, c.snapshot()))


def map_words(c, text: str) -> str:
    """``text`` with its places named as the map names them (:meth:`Ruleset.map_words`)."""
    return c.ruleset.map_words(c, text) if text else text


def sections_of(c, viewer: str | None) -> list:
    """The ruleset's own blocks of the viewer's page (:meth:`Ruleset.page_sections`), their places
    named as the map names them and in the page's words."""
    def say(text: str) -> str:
        return web_words(map_words(c, text))
    return [replace(s, title=say(s.title), lines=tuple((i, say(t)) for i, t in s.lines),
                    rows=tuple(tuple(say(v) for v in row) for row in s.rows))
            for s in c.ruleset.page_sections(c, viewer)]


def log_lines(c, viewer: str | None) -> list[tuple[int, str]]:
    """The log as ``viewer`` may read it (the ruleset's seal) as (seq, "ROUND: text"), oldest first,
    bookkeeping left out (a row of one of the ruleset's told tables is an order given: kept)."""
    from bellica.engine.core.sealed import log_view

    told = c.ruleset.told_tables
    lines = []
    for ln in log_view(c, viewer=viewer):
        ev = ln.event
        if ev.kind in QUIET and not (ev.kind == "put_row" and ev.data.get("table") in told):
            continue
        if ln.text:
            lines.append((ev.seq, ev.round, ln.text))
    # Places named as the map names them (Ruleset.map_words: Vae Victis II's events name H3 cells).
    return [(seq, f"{rnd}: {web_words(map_words(c, text))}") for seq, rnd, text in lines]


def _bot_seats(c) -> list[str]:
    """The seats an engine player holds (docs/bots.md), one line each: everyone sees who plays whom."""
    from bellica.engine.core.players import seats

    return [f"{faction}: played by the {kind} bot" for faction, kind in seats(c.con).items()]


def home_page(c, ident: Identity, *, said: Sequence[str] | None = None, error: str | None = None,
              failed: str | None = None, typed: Mapping[str, Any] | None = None, invalid: str = "",
              sql: str = "", sql_html: str = "", before: int | None = None) -> str:
    """The signed-in viewer's page (``said``: what their last step told them; ``error``: the one line
    a refused step ``failed`` answered, ``typed`` its values as given, ``invalid`` the field it names;
    ``sql``, ``sql_html``: the umpire's console query and its result; ``before``: the log's page)."""
    from bellica.app.views import view_of

    c.require_state()
    ruleset, viewer = c.ruleset, viewer_of(ident)
    # Kept while the log head stays: the map page loaded beside this one draws this very view.
    view = view_of(c, viewer)
    who = "umpire" if viewer is None else viewer
    forms, nxt = forms_of(c, ident, failed=failed, typed=typed, invalid=invalid, view=view), web_words(next_words(c))
    if any(f.plot for f in forms):  # the map's clicks start from this very view (step_preview)
        from bellica.app.step_preview import look_of

        look_of(c, viewer, view)
    return render(
        "steps.html", title=f"bellica: {view.title or ruleset.title or ruleset.name}, {who}", **frame(ident.name),
        status=[web_words(_here(c, line)) for line in ruleset.status_lines(view.status)] + _bot_seats(c),
        hidden=list(view.hidden),
        said=[web_words(line) for line in said or ()], error=web_words(_here(c, error)) if error else None,
        forms=forms, next=nxt, next_forms=[f.name for f in forms if f"“{f.name}”" in nxt],
        sections=sections_of(c, viewer),
        umpire=ident.role == "umpire", faction=viewer, word=ruleset.faction_flag.lstrip("-"),
        sql=sql, sql_html=Markup(sql_html), log=page_of(log_lines(c, viewer), before))


# --- a step -------------------------------------------------------------------------------------------


def _actor(c, ident: Identity, action, given: Mapping[str, Any]) -> str | None:
    """Who takes ``action``: the token's faction for a side's step, None for the umpire's (and for a
    side's step the umpire may take too, ``Action.umpire_too``); 403 for another role's step, or a
    form naming another faction as the one acting, or a step the ruleset says is never the viewer's
    (:meth:`~bellica.engine.core.ruleset.Ruleset.not_theirs`)."""
    from bellica.engine.core.steps import SIDE

    word = c.ruleset.faction_flag.lstrip("-")
    why = c.ruleset.not_theirs(c, action, viewer_of(ident))
    if why:
        raise HttpError(403, why)
    if action.who == SIDE:
        if ident.role != "player" and getattr(action, "umpire_too", False):
            return None  # a side's step the umpire may take for the side (the ruleset knows whose)
        if ident.role != "player":
            raise HttpError(403, f"{action.name} is a {word}'s step: the umpire takes none (each {word} acts "
                                 "with its own token)")
        if ident.armies is not None and not action.signed:  # a step of the whole side is not an army token's
            raise HttpError(403, f"{action.name} is a step of the whole {word}: your token ({ident.name}) commands "
                                 f"army {', '.join(map(str, ident.armies))} only (its {word}'s own token takes it)")
        params = {p.name for p in action.params}
        for key in {word, *ACTOR_FIELDS} - params:
            named = _typed_text(given.get(key)).strip()
            if named and named.casefold() != ident.faction.casefold():
                raise HttpError(403, f"your token ({ident.name}) acts for {ident.faction} only, not for {named}")
        return ident.faction
    if ident.role != "umpire":
        raise HttpError(403, f"{action.name} is the umpire's step: your token ({ident.name}) may not take it")
    return None


def _typed_input(c, action, given: Mapping[str, Any]) -> dict[str, Any]:
    """The typed input of ``action`` from a page's fields (keyed fields gathered, a time picker's
    moment in UTC), through the declarations' one parser."""
    from bellica.app.deadline import utc_text
    from bellica.engine.core.steps import keyed_fields, parse_input

    ruleset = c.ruleset
    local = {p.name for p in action.params if p.local}  # the browser's own, never read from a page
    given = {k: v for k, v in given.items() if k not in local and k.split("-")[0] not in local}
    given = keyed_fields(action, given)
    given = {**given, **{p.name: utc_text(given, p.name) for p in action.params if p.kind == "time"}}
    return parse_input(action, given, ruleset.factions(c), ruleset.faction_flag.lstrip("-"))


def check_step(c, ident: Identity, name: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The declared step ``name`` with the text ``given`` checked as ``ident`` by its own declared
    check, nothing stored: ``{"ok", "problems": [{"text"}], "warnings"}`` (and ``"param"``, the
    refused field), hexes named as the map names them."""
    from bellica.engine.core.steps import check_action
    from bellica.geo.errors import BellicaError

    c.require_state()
    action = c.ruleset.action(name)
    try:
        actor = _actor(c, ident, action, given)
        _no_server_file(action, given)
        warnings = check_action(action, c, actor, _typed_input(c, action, given), signer_of(ident))
    except (BellicaError, HttpError) as err:
        found = getattr(err, "problems", None) or [err.message if isinstance(err, HttpError) else str(err)]
        invalid = getattr(getattr(err, "param", None), "name", "") or ""
        return {"ok": False, "problems": [_problem(c, p) for p in found],
                "warnings": [], **({"param": invalid} if invalid else {})}
    return {"ok": True, "problems": [], "warnings": [map_words(c, w) for w in warnings]}


def _problem(c, p) -> dict[str, Any]:
    """A problem as JSON: its text, and what a problem of a keyed step says of where it is (the
    ``army``, ``field`` and ``index`` of an order's problem, its ``message`` without them), so a
    page can mark the field; places named as the map names them."""
    out: dict[str, Any] = {"text": map_words(c, str(p))}
    for name in ("army", "field", "index", "message"):
        if not isinstance(p, str) and hasattr(p, name):
            value = getattr(p, name)
            out[name] = map_words(c, value) if isinstance(value, str) else value
    return out


def _no_server_file(action, given: Mapping[str, Any]) -> None:
    for p in action.params:  # a file on the server is never a viewer's to name (Param.server_file)
        if p.server_file and (p.required or _typed_text(given.get(p.name)).strip()):
            raise HttpError(400, f"{p.label} names a file on the server: only the command line takes it "
                                 "(on this page, give what it holds in the step's fields)")


def take_step(c, ident: Identity, name: str, given: Mapping[str, Any]):
    """Run the declared step ``name`` with the text ``given`` as ``ident``: (its events, what it tells
    them).  Raises what refuses it (:class:`HttpError` 403, ``ParamError``, ``InputError``, ``StepRefused``)."""
    from bellica.engine.core.steps import run_action

    c.require_state()
    ruleset = c.ruleset
    action = ruleset.action(name)
    actor = _actor(c, ident, action, given)
    _no_server_file(action, given)
    events = run_action(action, c, actor, _typed_input(c, action, given), signer_of(ident))
    return events, [map_words(c, _here(c, line)) for line in ruleset.said(c, events, viewer_of(ident)) if line]


async def _given(request: Request) -> dict[str, Any]:
    """A step's fields: a JSON object's, or the form's (a field given more than once: a list)."""
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise HttpError(400, "the JSON body must be one object: the step's fields by name")
        return body
    form = await request.form()
    out: dict[str, Any] = {}
    for key, value in form.multi_items():
        if isinstance(value, str) and key != "csrf":
            out[key] = [*out[key], value] if isinstance(out.get(key), list) else ([out[key], value] if key in out else value)
    return out


def _refused(request: Request, c, ident: Identity, name: str, given: Mapping[str, Any], err: Exception,
             page_of=None) -> Response:
    from bellica.engine.core.machine import StepRefused
    status = err.status if isinstance(err, HttpError) else 409 if isinstance(err, StepRefused) else 400
    message = err.message if isinstance(err, HttpError) else str(err)
    invalid = getattr(getattr(err, "param", None), "name", "") or ""  # a ParamError's or an ItemError's field
    if _wants_json(request):
        return JSONResponse({"error": message, **({"param": invalid} if invalid else {})}, status_code=status)
    page = (page_of or home_page)(c, ident, error=message, failed=name, typed=given, invalid=invalid)
    return HTMLResponse(page, status_code=status)


def step_endpoint(access, page_of=None, *, name: str = "", adapt=None):
    """``POST /step/NAME`` (or the step ``name``, or one named in the field ``step``): the declared
    step, as the signed-in viewer, its fields first given to ``adapt(fields) -> fields`` (an older
    form's spelling of them); a refusal answers ``page_of(c, ident, error=, failed=, typed=,
    invalid=)`` (default: this module's page)."""
    async def endpoint(request: Request) -> Response:
        from bellica.geo.errors import BellicaError

        try:
            given = await _given(request)
        except HttpError as err:
            return _error_response(request, err.status, err.message)
        step = name or request.path_params.get("name") or _typed_text(given.pop("step", ""))
        if adapt is not None:
            given = adapt(given)

        def go():
            with access.open(write=True) as c:
                ident = _identify(c, request, BOTH)
                try:
                    _events, said = take_step(c, ident, step, given)
                except (BellicaError, HttpError) as err:
                    return _refused(request, c, ident, step, given, err, page_of)
                nxt = next_words(c)
                if _wants_json(request) or request.headers.get("content-type", "").startswith("application/json"):
                    return JSONResponse({"step": step, "said": said, "next": nxt})
                # Post/Redirect/Get: a reload shows the page again, it never takes the step twice.
                # A ruleset that says_next tells the next step after each (Vae Victis: its status does).
                return see_page(ident.name, [*said, f"next: {nxt}"] if c.ruleset.says_next else said, path="/turn")
        return await run_in_threadpool(_guarded, request, go)
    return endpoint


def check_endpoint(access):
    """``POST /check/NAME``: the declared step's input checked, nothing stored (:func:`check_step`)."""
    async def endpoint(request: Request) -> Response:
        try:
            given = await _given(request)
        except HttpError as err:
            return _error_response(request, err.status, err.message)
        name = request.path_params["name"]
        return await run_in_threadpool(_read, access, request,
                                       lambda c, ident: JSONResponse(check_step(c, ident, name, given)))
    return endpoint


def _read(access, request: Request, fn) -> Response:
    def go():
        with access.open() as c:
            return fn(c, _identify(c, request, BOTH))
    return _guarded(request, go)


def _json(value) -> JSONResponse:
    return JSONResponse(json.loads(json.dumps(value, default=str)))


def _steps_json(c, ident: Identity) -> JSONResponse:
    """The steps open to the viewer, each parameter with the values the ruleset offers now (``offered``: null for any)."""
    viewer = viewer_of(ident)

    def offered(a, p):
        values = c.ruleset.choices(c, viewer, a, p)
        return None if values is None else [str(v) for v in values]
    return _json([{"step": a.name, "summary": a.summary, "who": a.who, "params": [
        {"name": p.name, "kind": p.kind, "help": p.help, "required": p.required, "many": p.many, "keyed": p.keyed,
         "choices": list(p.choices), "offered": offered(a, p), "example": p.example} for p in a.params]}
        for a in c.ruleset.open_actions(c, viewer)])


def routes(access) -> list[Route]:
    """The routes of a campaign whose ruleset declares its steps, served through ``access``."""
    async def turn_page(request: Request) -> Response:
        return await run_in_threadpool(_read, access, request, lambda c, ident: HTMLResponse(
            home_page(c, ident, **said_kwargs(said_for(ident.name, request.query_params.get("said"))),
                      before=before_of(request.query_params.get("before")))))

    async def api_status(request: Request) -> Response:
        from bellica.app.views import view_of

        return await run_in_threadpool(_read, access, request, lambda c, ident: _json(
            view_of(c, viewer_of(ident)).status))

    async def api_steps(request: Request) -> Response:
        return await run_in_threadpool(_read, access, request, _steps_json)

    from bellica.app import key_preview, step_preview

    return [*step_preview.routes(access),  # the map's clicks, checked by the step itself
            *key_preview.routes(access),  # a keyed item previewed by its step, plotted on the map
            Route("/static/commit_digest.js", key_preview.static_script("commit_digest.js"), methods=["GET"]),
            Route("/turn", turn_page, methods=["GET"]),
            Route("/api/status", api_status, methods=["GET"]),
            Route("/api/steps", api_steps, methods=["GET"]),
            Route("/step/{name}", step_endpoint(access), methods=["POST"]),
            Route("/check/{name}", check_endpoint(access), methods=["POST"]),
            Route("/umpire/sql", console_endpoint(access, home_page), methods=["POST"])]
