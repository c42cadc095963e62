"""The campaign's start from the browser (issue 21 item 3): the umpire's start form, every ruleset.

A campaign served before it has started (its tokens issued, ``bellica serve`` on a new file) shows
the umpire one form, the ruleset's declared ``start`` step with its parameters (Vae Victis: the
seed and how orders are taken), or, for a ruleset that declares none, the seed the core's start
takes; a player sees that the umpire has not started it yet.  ``POST /umpire/start`` starts it
(:meth:`~bellica.engine.core.campaign.Campaign.start`, through the ruleset's step when declared)
and answers 303 to the page, which is then the ruleset's own (its first round's steps); a refused
start shows the form again with the error beside it and what was typed kept (400).
"""

from __future__ import annotations

from typing import Any, Mapping

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from bellica.app.pages import frame
from bellica.app.render import render
from bellica.app.server import HttpError, _guarded, _identify, _wants_json, see_page
from bellica.app.tokens import Identity
from bellica.app.web_words import web_words

__all__ = ["start_action", "start_page", "start_endpoint"]


def _core_start(c, _actor, *, seed=None) -> list[str]:
    s = c.start(seed=seed)
    return [f"campaign started, {c.ruleset.round_word} {s.campaign('round')}, seed {s.campaign('seed')}"]


def start_action(ruleset):
    """The ruleset's declared ``start`` step, or one with the seed the core's start takes."""
    from bellica.engine.core.steps import UMPIRE, Action, Param

    for a in ruleset.actions():
        if a.name == "start":
            return a
    return Action("start", "Start the campaign: every side at its start, the first turn.", _core_start, UMPIRE, (
        Param("seed", "The campaign's random seed (default 1); recorded in the campaign table.", "whole", "--seed"),))


def _factions(c) -> tuple[str, ...]:
    try:
        return tuple(c.ruleset.factions(c))
    except Exception:  # a ruleset that reads its sides from the started state: a start form has no side field
        return ()


def start_page(c, ident: Identity, *, error: str | None = None, typed: Mapping[str, Any] | None = None,
               invalid: str = "") -> str:
    """The page of a campaign not started yet: the umpire's start form, or a player's wait."""
    from bellica.app.step_forms import field_of

    action = start_action(c.ruleset)
    fields = [field_of("start", p, _factions(c), typed, invalid, tuple(p.choices) if p.kind == "choice" else None)
              for p in action.params]
    title = c.ruleset.title or c.ruleset.name
    return render("start.html", title=f"bellica: {title}, not started", **frame(ident.name),
                  umpire=ident.role == "umpire", summary=web_words(action.summary), fields=fields,
                  error=web_words(error) if error else None)


def _start(request: Request, c, ident: Identity, given: Mapping[str, Any]) -> Response:
    from bellica.engine.core.steps import ParamError, parse_input
    from bellica.geo.errors import BellicaError

    action = start_action(c.ruleset)
    try:
        typed = parse_input(action, given, _factions(c), c.ruleset.faction_flag.lstrip("-"))
        said = [str(line).replace(f"{c.path}: ", "") for line in action.run(c, None, **typed)]
    except BellicaError as err:
        if _wants_json(request):
            raise
        invalid = err.param.name if isinstance(err, ParamError) else ""
        return HTMLResponse(start_page(c, ident, error=str(err), typed=given, invalid=invalid), status_code=400)
    nxt = web_words(c.ruleset.next_step(c, c.snapshot()).replace("CAMPAIGN", c.path.name))
    return see_page(ident.name, [*said, f"next: {nxt}"])


def start_endpoint(access):
    """``POST /umpire/start``: the umpire starts the campaign (its fields: the start step's parameters)."""
    async def endpoint(request: Request) -> Response:
        form = await request.form()
        given = {k: v for k, v in form.items() if isinstance(v, str) and k != "csrf" and v != ""}

        def go():
            with access.open(write=True) as c:
                ident = _identify(c, request, ("umpire",))
                if c.has_state():
                    raise HttpError(409, "the campaign has already started: its page shows its steps")
                return _start(request, c, ident, given)
        return await run_in_threadpool(_guarded, request, go)
    return endpoint
