"""A keyed item previewed by its step, for the map: ``POST /preview/NAME`` and the map's script.

Nothing here knows a ruleset.  A step that declares ``preview`` (engine/core/steps.py,
``Action.preview``) tells what one keyed item typed so far would do: Vae Victis II's ``orders``
previews an army's moves by the movement step's own code.  The page's form then gets, beside each
field of the step's keyed parameter that the ruleset offers the signer (``moves-9``), a button to
plot that key on the map and a box for the preview's words; ``static/keyed_map.js`` draws what the
hook returns, and a click on a hex it offers adds that hex's text to the field, previewed first.

==============================  ================  ================================================
``POST /preview/NAME``          the step's taker  fields ``key`` and ``text``: the step's ``preview``
                                                  of that key's text (no ``text``: only where the
                                                  key starts, its ``start``), as JSON (its own keys,
                                                  and the ones the script draws: ``start``, ``end``,
                                                  ``path``, ``next``, ``reachable``, ``lines``,
                                                  ``notes``, ``refused``, ``text``); 403 for a key
                                                  that is not the signer's, 404 for a step with no
                                                  preview
``GET /static/keyed_map.js``    anyone            the map's script
==============================  ================  ================================================

The answer is the hook's, as the step's own check would judge the signer: a key the signer does not
command is refused before anything is read (:class:`~bellica.engine.core.steps.NotYours`, 403), and
the hook reads nothing another viewer may not see (the ruleset's rule, as for its check).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bellica.app.server import HttpError, _form, _guarded, _identify
from bellica.app.tokens import Identity

__all__ = ["answered", "preview_key", "preview_param", "routes", "static_script"]

BOTH = ("player", "umpire")


def preview_param(action):
    """The keyed parameter a step's preview previews the items of (its first keyed one), or None."""
    if action.preview is None:
        return None
    return next((p for p in action.params if p.keyed and p.on_page), None)


def preview_key(c, ident: Identity, name: str, key: str, text: str):
    """The step ``name``'s preview of ``key``'s ``text`` as ``ident`` (who takes the step as the page
    would run it): the hook's answer (see :func:`answered`)."""
    from bellica.app.step_forms import _actor, signer_of
    from bellica.engine.core.steps import NotYours

    c.require_state()
    action = c.ruleset.action(name)
    if action.preview is None:
        raise HttpError(404, f"the {name} step previews nothing: its check (POST /check/{name}) says what it refuses")
    actor = _actor(c, ident, action, {})
    try:
        return action.preview(c, actor, key, text, signer=signer_of(ident))
    except NotYours as err:
        raise HttpError(403, str(err)) from None


def answered(answer) -> dict[str, Any]:
    """The hook's answer as JSON-ready data: a function of no arguments (the costly part of the
    preview, which needs the campaign no more) is called first, after the campaign is let go."""
    if callable(answer):
        answer = answer()
    return json.loads(json.dumps(answer, default=str))


def endpoint(access, *, name: str = "", roles: tuple[str, ...] = BOTH, adapt=None):
    """``POST /preview/NAME`` (or the step ``name``), fields ``key`` and ``text`` (``adapt(fields) ->
    fields``: an older spelling of them), answered as JSON."""
    async def serve(request: Request) -> Response:
        form: Mapping[str, str] = await _form(request)
        if adapt is not None:
            form = adapt(form)
        step = name or request.path_params["name"]

        def go():
            with access.open() as c:
                ident = _identify(c, request, roles)
                answer = preview_key(c, ident, step, form.get("key", ""), form.get("text"))  # no text: the key's start
            return JSONResponse(answered(answer))  # the costly part runs without the campaign's lock
        return await run_in_threadpool(_guarded, request, go)
    return serve


def static_script(name: str):
    """``GET /static/NAME``: one of the app's own scripts (``bellica/app/static/``), no CDN."""
    body = (Path(__file__).with_name("static") / name).read_bytes()

    async def serve(_request):
        return Response(body, media_type="text/javascript; charset=utf-8", headers={"Cache-Control": "no-cache"})
    return serve


def routes(access) -> list[Route]:
    return [Route("/preview/{name}", endpoint(access), methods=["POST"]),
            Route("/static/keyed_map.js", static_script("keyed_map.js"), methods=["GET"])]
