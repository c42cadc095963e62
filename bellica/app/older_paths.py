"""Older spellings of a ruleset's page forms, which scripts may still post: each taken to one of the
ruleset's declared steps (:attr:`~bellica.engine.core.ruleset.Ruleset.older_paths`).

Nothing here knows a ruleset.  A path the ruleset declares is ``step`` (the step taken as ``POST
/step/NAME`` takes it), ``check`` (checked as ``POST /check/NAME``) or ``preview`` (previewed as ``POST
/preview/NAME``); :meth:`~bellica.engine.core.ruleset.Ruleset.older_form` says which step and renames
the fields, and the step itself checks everything, as when a page posts it.  The routes are those
every registered ruleset declares; a campaign whose ruleset does not declare a path answers 404.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bellica.app.server import HttpError, _error_response, _guarded, _identify, _wants_json, see_page

__all__ = ["routes"]


def _declared() -> dict[str, str]:
    """path -> kind, of every registered ruleset's older paths."""
    from bellica.engine.core.ruleset import get_ruleset, ruleset_names

    out: dict[str, str] = {}
    for name in ruleset_names():
        out.update({path: kind for path, (kind, _roles) in get_ruleset(name).older_paths.items()})
    return out


def _answer(request: Request, c, ident, kind: str, path: str, given: dict):
    """The answer of ``path`` in campaign ``c`` (the preview's: a function to call once ``c`` is let go)."""
    from bellica.app.key_preview import preview_key
    from bellica.app.step_forms import _refused, check_step, map_words, next_words, signer_of, take_step
    from bellica.geo.errors import BellicaError

    step = path
    try:
        step, fields = c.ruleset.older_form(c, signer_of(ident), path, given)
        if kind == "check":
            return JSONResponse(check_step(c, ident, step, fields))
        if kind == "preview":
            return preview_key(c, ident, step, str(fields.get("key", "")), fields.get("text"))
        _events, said = take_step(c, ident, step, fields)
    except (BellicaError, HttpError) as err:
        if kind != "step" and isinstance(err, HttpError):
            raise
        if kind == "check":  # a check answers what it finds, even before a step is named
            return JSONResponse({"ok": False, "problems": [{"text": map_words(c, str(err))}], "warnings": []})
        return _refused(request, c, ident, step, given, err)
    if _wants_json(request):
        shaped = c.ruleset.older_answer(c, path, step, fields)
        return JSONResponse(shaped if shaped is not None else {"step": step, "said": said, "next": next_words(c)})
    return see_page(ident.name, said)  # Post/Redirect/Get to /, as these forms did: a reload never takes the step twice


def _endpoint(access, path: str, kind: str):
    async def serve(request: Request) -> Response:
        from bellica.app.key_preview import answered
        from bellica.app.step_forms import _given

        try:
            given = await _given(request)
        except HttpError as err:
            return _error_response(request, err.status, err.message)

        def go():
            with access.open(write=kind == "step") as c:
                declared = c.ruleset.older_paths.get(path)
                if declared is None:
                    raise HttpError(404, f"{path} is no page of this campaign: see / for its forms")
                answer = _answer(request, c, _identify(c, request, declared[1]), kind, path, given)
            return answer if isinstance(answer, Response) else JSONResponse(answered(answer))
        return await run_in_threadpool(_guarded, request, go)
    return serve


def routes(access) -> list[Route]:
    return [Route(path, _endpoint(access, path, kind), methods=["POST"]) for path, kind in sorted(_declared().items())]
