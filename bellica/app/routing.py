"""Which pages a campaign gets: its ruleset's declared steps, or the order pages.

A ruleset says which in :attr:`~bellica.engine.core.ruleset.Ruleset.web_pages`: ``steps`` (the
default, an installed ruleset's too) gets the one generic page of :mod:`.step_forms`, a form per
declared step; ``orders`` (Vae Victis II declares it) gets the order pages of :mod:`.vae_victis`:
a player's order form per army, checked as one types and plotted on the hex map, the umpire's
steps the declared forms all the same.  A ruleset that declares no steps gets the order pages, as
every campaign did before rulesets were plug-ins.  No ruleset is named here.

The shared pages (``/``, ``/signin``, ``/signout``, ``/map``) are :mod:`.server`'s; ``/`` asks
:func:`home_page` for the viewer's page.  Every other path goes, per request, to the route of the
campaign's kind of pages (read on the first request, so a file another process holds when the app
starts answers 503 like any request); a path that kind lacks is 404.
"""

from __future__ import annotations

import threading
from typing import Mapping

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bellica.app.server import CampaignAccess, HttpError, _error_response

__all__ = ["STEPS", "ORDERS", "kind_of", "home_page", "by_ruleset"]

#: The kind of pages of a ruleset that declares its steps, and of one with the Vae Victis order pages.
STEPS, ORDERS = "steps", "orders"

_KINDS: dict = {}
_KINDS_LOCK = threading.Lock()


def kind_of(ruleset) -> str:
    """The kind of pages of ``ruleset``: :data:`STEPS` or :data:`ORDERS` (its :attr:`web_pages`)."""
    from bellica.app.step_forms import declares_steps

    kind = getattr(ruleset, "web_pages", STEPS)
    if kind not in (STEPS, ORDERS):
        raise ValueError(f"ruleset {ruleset.name}: web_pages {kind!r} is not one of {STEPS!r}, {ORDERS!r}")
    return kind if declares_steps(ruleset) else ORDERS


def _kind_served(access: CampaignAccess) -> str:
    """The kind of pages of the campaign ``access`` serves, read once per file."""
    key = access.path.resolve()
    with _KINDS_LOCK:
        if key in _KINDS:
            return _KINDS[key]
    with access.open() as c:
        kind = kind_of(c.ruleset)
    with _KINDS_LOCK:
        _KINDS[key] = kind
    return kind


def home_page(c, ident, said=None, *, before: int | None = None) -> str:
    """The viewer's page of campaign ``c``, with what their last POST ``said`` (kept by
    :func:`~bellica.app.server.see_page`) and the log's page ending ``before`` an entry."""
    from bellica.app.server import said_kwargs

    if not c.has_state():  # a campaign served before its start: the umpire starts it from the page
        from bellica.app.start import start_page

        return start_page(c, ident)
    kind = kind_of(c.ruleset)
    if kind == STEPS:
        from bellica.app import step_forms

        return step_forms.home_page(c, ident, **said_kwargs(said), before=before)
    from bellica.app import vae_victis

    return vae_victis.home_page(c, ident, **said_kwargs(said), before=before)


def _routes_by_kind(access: CampaignAccess) -> dict[str, list[Route]]:
    from bellica.app import step_forms, vae_victis

    return {ORDERS: vae_victis.routes(access), STEPS: step_forms.routes(access)}


def _dispatch(access: CampaignAccess, path: str, by_kind: Mapping[str, Route]):
    async def endpoint(request: Request) -> Response:
        from bellica.geo.errors import BellicaError

        try:
            kind = await run_in_threadpool(_kind_served, access)
        except HttpError as err:
            return _error_response(request, err.status, err.message, err.headers)
        except BellicaError:
            kind = ORDERS  # not a campaign the core opens: the order pages' endpoint says why
        route = by_kind.get(kind)
        if route is None or request.method not in (route.methods or ()):
            return _error_response(request, 404, f"{path} is no page of this campaign: see / for its forms")
        return await route.endpoint(request)
    return endpoint


def by_ruleset(access: CampaignAccess) -> list[Route]:
    """A route per path of any kind of pages, each sent per request to the campaign's kind's."""
    table: dict[str, dict[str, Route]] = {}
    for kind, routes in _routes_by_kind(access).items():
        for r in routes:
            table.setdefault(r.path, {})[kind] = r

    def methods(rs: Mapping[str, Route]) -> list[str]:
        return sorted({m for r in rs.values() for m in (r.methods or ()) if m != "HEAD"})
    return [Route(path, _dispatch(access, path, rs), methods=methods(rs)) for path, rs in table.items()]
