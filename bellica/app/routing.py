"""Which pages a campaign gets: its ruleset's declared steps, or the Vae Victis order pages.

Every ruleset that declares its steps (:meth:`~bellica.engine.core.ruleset.Ruleset.actions`, an
installed one included) gets the one generic page of :mod:`.step_forms`, unless it is named by
:data:`bellica.app.vae_victis.RULESETS` (Vae Victis: its order form checks a faction's orders as
one types, which the generic page does not).  A ruleset that declares no steps gets the Vae
Victis order pages of :mod:`.vae_victis`, as every campaign did before rulesets were plug-ins.
The four stepped rulesets (the province games and the node games) have the generic page: their
hand-written forms (bellica/app/nodes.py, bellica/app/provinces.py) are gone.

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
    """The kind of pages of ``ruleset``: :data:`STEPS` or :data:`ORDERS`."""
    from bellica.app.step_forms import declares_steps

    from bellica.app import vae_victis

    if ruleset.name in vae_victis.RULESETS or not declares_steps(ruleset):
        return ORDERS
    return STEPS


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
