"""The app's pages for Vae Victis campaigns: the player's page, and the umpire's page.

:mod:`bellica.app.routing` sends a Vae Victis campaign's paths here, and those of any ruleset that
declares no steps as data.  A player's initiative uses, orders, own administration choices and
retreats are the declared steps' forms (``initiative``, ``orders``, ``choose`` and ``retreat``, one
field or box per army the token commands: ``POST /step/NAME``, checked as one types by ``POST
/check/NAME``; the orders' moves plotted on the map by the step's declared preview, ``POST
/preview/orders``, :mod:`.key_preview`); the umpire's steps are the declared steps' forms too
(:mod:`bellica.app.step_forms`).  For scripts, older spellings of them stay: ``/orders`` and ``POST
/api/check`` (fields ``moves-ARMY``, ``sea-ARMY``, ``sea-pick-ARMY``; in the initiative stage
``initiative-ARMY``), ``POST /api/preview`` (``army``, ``moves``), ``/choices``, ``/retreat``,
``/umpire/step``, ``/umpire/deadline`` and ``/umpire/result``.  Still this module's own:
``/umpire/sql``, ``/umpire/administer`` (for scripts), ``/commit`` and ``/reveal-orders``.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from bellica.app import key_preview, pages
from bellica.app.key_preview import static_script
from bellica.app.render import Markup, render
from bellica.app.server import (CampaignAccess, HttpError, _form, _guarded, _identify, _wants_json, console_endpoint,
                                see_page)
from bellica.app.step_forms import check_endpoint, map_words, step_endpoint
from bellica.app.tokens import Identity
from bellica.app.web_words import web_words

__all__ = ["home_page", "player_page", "umpire_page", "routes"]

BOTH = ("player", "umpire")
#: The declared steps a player's page draws as their forms.
PLAYER_STEPS = ("initiative", "orders", "commit", "reveal-orders", "choose", "retreat")


def home_page(c, ident: Identity, *, said: list[str] | None = None, sql: str = "", sql_html: str = "",
              before: int | None = None, error: str | None = None, failed: str = "", typed=None,
              invalid: str = "") -> str:
    """The signed-in viewer's page: a player's order form, or the umpire's steps; ``said``: what
    their last POST said (Post/Redirect/Get), ``sql``/``sql_html`` the umpire's console, ``before``
    the log's page; ``error``: the one line a refused declared step ``failed`` answered (the
    umpire's form keeps what was ``typed``, ``invalid`` the field it names)."""
    if ident.role == "player":
        return player_page(c, ident, said=said, before=before, error=error, failed=failed or "", step_typed=typed,
                           invalid=invalid)
    return umpire_page(c, ident, said=said, sql=sql, sql_html=sql_html, before=before, error=error, failed=failed or "",
                       typed=typed, invalid=invalid)


# --- the player's page ---------------------------------------------------------------------------


def _log(c, viewer: str | None, before: int | None = None):
    """A page of the log as ``viewer`` reads it (:mod:`.logpage`), hexes named as the map names them."""
    from bellica.app.logpage import PAGE_SIZE, page_of
    from bellica.engine.core.sealed import log_view

    lines = [ln for ln in log_view(c, viewer=viewer) if ln.event.kind != "put_note"]
    kept = [ln for ln in lines if before is None or ln.event.seq < before][-PAGE_SIZE:]
    named_lines = {id(ln): map_words(c, ln.text) for ln in kept}  # only the page's lines are named (the costly part)
    return page_of([(ln.event.seq, f"round {ln.event.round}: {web_words(named_lines.get(id(ln), ''))}")
                    for ln in lines], before)


def player_page(c, ident: Identity, *, error: str | None = None, said: list[str] | None = None,
                before: int | None = None, failed: str = "", step_typed=None, invalid: str = "") -> str:
    """A player's page (``templates/orders_player.html``): the round, the declared steps' forms the
    token may take now (initiative, orders, commit and reveal, retreat, choose), the ruleset's own
    sections (the orders once revealed, the engagements), map, log; a refused declared step
    (``failed``) keeps what was typed into it (``step_typed``, ``invalid`` the field it names)."""
    from bellica.app.step_forms import forms_of, sections_of

    f = ident.faction
    status = c.ruleset.player_view(c, f).status
    steps = {f.name: f for f in forms_of(c, ident, failed=failed, typed=step_typed, invalid=invalid)
             if f.name in PLAYER_STEPS}
    return render("orders_player.html", title=f"bellica: {f}", **pages.frame(ident.name),
                  status=status, ordering=status["phase"] == "orders", said=_said_lines(said),
                  error=web_words(error or "") or None, faction=f, word="faction",
                  forms=[steps[n] for n in PLAYER_STEPS if n in steps], sections=sections_of(c, f), log=_log(c, f, before))


# --- the umpire's page ---------------------------------------------------------------------------


def umpire_page(c, ident: Identity, *, message: str | None = None, sql: str = "", sql_html: str = "",
                error: str | None = None, said: list[str] | None = None, typed: dict | None = None,
                failed: str = "", invalid: str = "", before: int | None = None) -> str:
    """The umpire's page (``templates/orders_umpire.html``): the round's status and who has submitted
    (never what), the engagements, and a form per declared step the umpire may take now
    (:func:`bellica.app.step_forms.forms_of`); ``said``: what the last step said (or ``message``, one
    line); a refused step (``failed``: its name) shows ``error`` and keeps what was ``typed`` into it."""
    from bellica.app.step_forms import forms_of, next_words, sections_of

    status = c.ruleset.player_view(c, None).status
    return render("orders_umpire.html", title="bellica: umpire", **pages.frame(ident.name),
                  status_lines=[web_words(line) for line in c.ruleset.status_lines(status)], said=_said_lines(said, message),
                  error=web_words(error) if error else None, sections=sections_of(c, None),
                  deadline_local=str(status.get("deadline") or ""),
                  forms=forms_of(c, ident, failed=failed, typed=typed, invalid=invalid), faction=None, word="faction",
                  next=web_words(next_words(c)), sql=sql, sql_html=Markup(sql_html), log=_log(c, None, before))


def _said_lines(said: list[str] | None, message: str | None = None) -> list[str]:
    """What a POST said, a line each, in the page's words (no command line named)."""
    return [web_words(line) for line in (said if said is not None else [message] if message else []) if line]


# --- the endpoints -------------------------------------------------------------------------------


def _read(access: CampaignAccess, request: Request, roles: tuple[str, ...], fn: Callable, *, write: bool = False):
    def go():
        with access.open(write=write) as c:
            return fn(c, _identify(c, request, roles))
    return _guarded(request, go)


def _order_fields(c, ident: Identity, form: dict) -> dict:
    """The older order form's fields as the declared orders step's: ``moves-ARMY`` and ``sea-ARMY``
    of the armies the token commands (that form ignored the others, and so does this), a link
    chosen in ``sea-pick-ARMY`` added to ``sea-ARMY``."""
    from bellica.engine.vae_victis.order_form import sea_links
    from bellica.engine.vae_victis.rounds.machine import read_round

    mine = {str(a.id) for a in read_round(c).live_armies() if ident.commands(a)}
    out: dict = {}
    for name in ("moves", "sea"):
        out.update({k: v for k, v in form.items() if k.startswith(f"{name}-") and k[len(name) + 1:] in mine})
    for k, picked in form.items():
        army = k.removeprefix("sea-pick-")
        if k.startswith("sea-pick-") and army in mine and str(picked).strip():
            links = sea_links(str(out.get(f"sea-{army}", "")))
            out[f"sea-{army}"] = "; ".join(links + ([picked.strip()] if picked.strip() not in links else []))
    return out


def api_check(access: CampaignAccess):
    """``POST /api/check``: the order form checked by the declared orders step's check (``POST
    /check/orders``), nothing stored; in the initiative stage, the initiative step's."""
    async def endpoint(request: Request) -> Response:
        form = await _form(request)

        def go(c, ident):
            from bellica.app.step_forms import check_step
            from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, read_round

            if read_round(c).stage == STAGE_INITIATIVE:  # the initiative step's own check, under the older names
                return JSONResponse(check_step(c, ident, "initiative", _initiative_fields(form)))
            return JSONResponse(check_step(c, ident, "orders", _order_fields(c, ident, form)))
        return await run_in_threadpool(_read, access, request, ("player",), go)
    return endpoint


def _submit(request: Request, c, ident: Identity, form: dict[str, str]) -> Response:
    """``/orders``: the declared orders step (``POST /step/orders``) under the older field names,
    answering scripts as that form did (JSON ``{"stored", "revealed"}``)."""
    from bellica.app.step_forms import _refused, take_step
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, read_round
    from bellica.engine.vae_victis.rounds.reveal import is_locked
    from bellica.geo.errors import BellicaError, InputError

    if read_round(c).stage == STAGE_INITIATIVE:
        return _submit_initiative(request, c, ident, form)
    fields = _order_fields(c, ident, form)
    try:
        if not any(k.startswith("moves-") for k in fields):
            raise InputError("the form gives no orders: it names none of your armies (fields moves-ARMY)")
        _events, said = take_step(c, ident, "orders", fields)
    except (BellicaError, HttpError) as err:
        return _refused(request, c, ident, "orders", fields, err, home_page)
    if _wants_json(request):
        return JSONResponse({"stored": sorted(int(k.removeprefix("moves-")) for k in fields if k.startswith("moves-")),
                             "revealed": is_locked(read_round(c))})
    return see_page(ident.name, said)  # Post/Redirect/Get: a reload never sends the orders again


def _submit_initiative(request: Request, c, ident: Identity, form: dict[str, str]) -> Response:
    """The initiative stage's ``/orders`` (its older field names ``initiative-ARMY``): the declared
    initiative step, initiative uses only, never moves, so no army's orders are in before
    publication (issue 21, the initiative lock)."""
    from bellica.app.step_forms import _refused, take_step
    from bellica.geo.errors import BellicaError, InputError

    fields = _initiative_fields(form)
    try:
        if not any(k.startswith("uses-") for k in fields):
            raise InputError("the initiative stage takes initiative uses only (fields initiative-ARMY); moves come "
                             "after the umpire publishes naval superiority")
        events, said = take_step(c, ident, "initiative", fields)
    except (BellicaError, HttpError) as err:
        return _refused(request, c, ident, "initiative", fields, err, home_page)
    if _wants_json(request):
        return JSONResponse({"initiative": sorted(int(ev.data["army"]) for ev in events
                                                  if not isinstance(ev, str) and ev.kind == "put_orders"),
                             "revealed": False})
    return see_page(ident.name, said)


def _initiative_fields(form: dict) -> dict:
    """The initiative form's older field names (``initiative-ARMY``) as the declared step's (``uses-ARMY``)."""
    return {("uses-" + k.removeprefix("initiative-")) if k.startswith("initiative-") else k: v for k, v in form.items()
            if k.startswith("initiative-")}


def submit(access: CampaignAccess):
    """``POST /orders``: a player's orders, stored sealed."""
    async def endpoint(request: Request) -> Response:
        form = await _form(request)
        return await run_in_threadpool(_read, access, request, ("player",),
                                       lambda c, ident: _submit(request, c, ident, form), write=True)
    return endpoint


def _choice_fields(given: dict) -> dict:
    """The older choices form's fields (``debark-ARMY``, ``advance-ARMY``, ``siege-ARMY``; boxes
    ``surrender-NAME``, ``takeover-NAME``) as the declared choose step's (``debarks-ARMY``, ...;
    ``surrenders``, ``take_overs``: the names ticked)."""
    keyed = {"debark-": "debarks-", "advance-": "advances-", "siege-": "sieges-"}
    boxes = {"surrender-": "surrenders", "takeover-": "take_overs"}
    out: dict = {}
    for k, v in given.items():
        old = next((o for o in (*keyed, *boxes) if k.startswith(o)), None)
        if old in keyed:
            out[keyed[old] + k.removeprefix(old)] = v
        elif old in boxes:
            if v:
                out.setdefault(boxes[old], []).append(k.removeprefix(old))
        else:
            out[k] = v
    return out


def _administer_fields(given: dict) -> dict:
    """``/umpire/administer``'s field ``choices`` (a choices file's text) as the administer step's ``choices_text``."""
    return {("choices_text" if k == "choices" else k): v for k, v in given.items()}


def _deadline_fields(given: dict) -> dict:
    """The deadline picker's older field names (``tz``, ``offset``) as the declared step's ``when_*``."""
    renamed = {"tz": "when_tz", "offset": "when_offset"}
    return {renamed.get(k, k): v for k, v in given.items()}


def _result_fields(given: dict) -> dict:
    """An older result form's fields (``casualties-ARMY``: PCT each; ``winner`` ``draw``) as the declared
    result step's (``casualties``: ARMY=PCT items; ``draw``)."""
    out = {k: v for k, v in given.items() if not k.startswith("casualties-")}
    out["casualties"] = [f"{k.removeprefix('casualties-')}={str(v).strip()}" for k, v in given.items()
                         if k.startswith("casualties-")]
    if str(out.get("winner", "")).strip() == "draw":
        out.pop("winner")
        out["draw"] = "on"
    return out


def _preview_fields(given: dict) -> dict:
    """``/api/preview``'s older field names (``army``, ``moves``) as the preview's (``key``, ``text``)."""
    return {"key": given.get("army", ""), "text": given.get("moves", "")}


def turn_page(access: CampaignAccess):
    """``GET /turn?said=KEY``: the page after a declared step (where :func:`step_endpoint` sends it)."""
    async def endpoint(request: Request) -> Response:
        from bellica.app.logpage import before_of
        from bellica.app.server import said_for, said_kwargs

        return await run_in_threadpool(_read, access, request, BOTH, lambda c, ident: HTMLResponse(home_page(
            c, ident, **said_kwargs(said_for(ident.name, request.query_params.get("said"))),
            before=before_of(request.query_params.get("before")))))
    return endpoint


def routes(access: CampaignAccess) -> list[Route]:
    """The Vae Victis routes besides the shared pages."""
    return [
        Route("/api/check", api_check(access), methods=["POST"]),
        # /api/preview (fields army, moves) is the orders step's declared preview (/preview/orders), for scripts.
        Route("/api/preview", key_preview.endpoint(access, name="orders", roles=("player",), adapt=_preview_fields),
              methods=["POST"]),
        *key_preview.routes(access),
        Route("/static/map_frame.js", static_script("map_frame.js"), methods=["GET"]),
        Route("/static/commit_digest.js", static_script("commit_digest.js"), methods=["GET"]),
        Route("/orders", submit(access), methods=["POST"]),
        # The declared steps (step_forms): the umpire's forms, and /umpire/step naming the step in a field.
        Route("/step/{name}", step_endpoint(access, home_page), methods=["POST"]),
        Route("/umpire/step", step_endpoint(access, home_page), methods=["POST"]),
        Route("/check/{name}", check_endpoint(access), methods=["POST"]),
        Route("/turn", turn_page(access), methods=["GET"]),
        Route("/umpire/deadline", step_endpoint(access, home_page, name="deadline", adapt=_deadline_fields),
              methods=["POST"]),
        Route("/umpire/sql", console_endpoint(access, umpire_page), methods=["POST"]),
        Route("/umpire/result", step_endpoint(access, home_page, name="result", adapt=_result_fields), methods=["POST"]),
        # /umpire/administer (field choices: a choices file's text) is the declared administer step, for scripts.
        Route("/umpire/administer", step_endpoint(access, home_page, name="administer", adapt=_administer_fields),
              methods=["POST"]),
        # /retreat (field army) is the declared retreat step, for scripts that post it.
        Route("/retreat", step_endpoint(access, home_page, name="retreat"), methods=["POST"]),
        Route("/choices", step_endpoint(access, home_page, name="choose", adapt=_choice_fields), methods=["POST"]),
        # /commit (field digest) and /reveal-orders (orders, secret): the declared steps, for scripts.
        Route("/commit", step_endpoint(access, home_page, name="commit"), methods=["POST"]),
        Route("/reveal-orders", step_endpoint(access, home_page, name="reveal-orders"), methods=["POST"]),
    ]
