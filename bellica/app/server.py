"""``bellica serve``: the campaign as a web app (Starlette, run by uvicorn), one file shared with the CLI.

Endpoints (every one authorised by a token, :mod:`.tokens`):

=====================  ========  ============================================================
``GET /``              anyone    the viewer's page (:mod:`.step_forms`: status, the forms of the
                                 declared steps it may take now, map, log); ``/?token=T`` signs
                                 in (an HttpOnly, SameSite=Strict cookie) and redirects to ``/``
                                 (opened from another site: a page asks first); no valid token:
                                 401 sign-in page
``POST /signin``       anyone    the same from a form field ``token`` (and the sign-in form's
                                 ``csrf``); ``POST /signout`` clears it (303 to ``/?signedout=1``)
``GET /map``           signed    the faction's map (the umpire's: every army), the HTML
                                 :func:`bellica.services.maps.render_map` writes,
                                 cached per viewer and log head (a new event draws it again)
``POST /umpire/start``  umpire    a campaign not started yet: its start (:mod:`.start`)
``POST /step/NAME``    both      a declared step (:mod:`.step_forms`); ``POST /check/NAME`` its
                                 check, ``POST /preview/NAME`` its preview (:mod:`.key_preview`)
``POST /umpire/sql``   umpire    the read-only SQL console (:mod:`.console`)
older paths            both      what a ruleset's scripts still post (Vae Victis II: ``/orders``,
                                 ``/api/check``, ``/api/preview``, ``/umpire/step``, ...), each a
                                 declared step (:mod:`.older_paths`)
=====================  ========  ============================================================

Every form POST answers 303 to the page (Post/Redirect/Get: :func:`see_page` keeps what it said for
the posting token under a short random key, ``?said=KEY``, never a value in the URL), so a reload
never sends it again; a refused one answers the page at once, the error beside the form and what
was typed kept (400, 409 out of order).  The log comes in pages (:mod:`.logpage`, ``?before=SEQ``),
and the engine's command-line hints are put in the page's words (:mod:`.web_words`).

Every campaign keeps ``/``, the sign-in and ``/map``; :mod:`.routing` gives the other paths: the one
generic page of :mod:`.step_forms` (``POST /step/NAME``, its forms made from the declarations) and
the older paths the rulesets declare.  Every page is a Jinja2 template of ``templates/`` (:mod:`.render`, autoescaped)
in the frame of ``templates/base.html``.

A token may also come as ``Authorization: Bearer T`` (scripts, the load test).  A player's token
reads only its faction's things: its orders before the reveal (everyone's after), the log as
:func:`~bellica.engine.core.sealed.log_view` shows it to that faction, its faction map.  The umpire
sees who has submitted, never what, until the reveal (docs/sealed-orders.md).  Each response
that asks for JSON (``Accept: application/json``) gets JSON, errors included.

Decisions where the issue is silent:

* The app serialises its requests on the campaign with one lock and keeps the campaign open
  while requests keep coming (:class:`CampaignAccess`): it lets the file go after 2 s without a
  request, so the CLI can use it between bursts (while the app holds it, a CLI step is refused
  as "in use": use the app's buttons, or retry).  A file held by another process (a CLI step
  running) answers 503 with ``Retry-After``.  The SQL console and the map renderer read a copy
  of the file, outside the lock, so a long query or render holds up no other request; every
  request runs in a worker thread, never on the event loop.
* The order form holds every live army of the faction; an empty move field stands still.  A form
  that leaves an army's ``moves-ARMY`` field out leaves that army's orders as they are (a script
  may submit one army at a time).  The
  initiative field appears only in the initiative stage.  Sea links are typed ``ZONE:STRUCTURE``,
  several separated by ``;``.
* A token commands a faction's armies, or (an army player's) only some of them (:mod:`.tokens`).
* Orders close at the round's deadline (the engine refuses later ones), and the order check
  says so as one types.
* Errors: the engine's ``InputError`` is 400 with its message, ``StepRefused`` 409, an unknown
  token 401, a role's wrong endpoint 403, a busy file 503.
* Cookies are ``HttpOnly; SameSite=Strict``, ``Secure`` when the operator says the players come
  over HTTPS (:class:`~bellica.app.csrf.Guard`).  SameSite does not stop a page on another port
  of the same host, nor a forged sign-in: every POST must come from the app's own pages, with
  the session's check value (:mod:`.csrf`, 403 otherwise).  The app speaks plain HTTP on loopback
  by default: put it behind an HTTPS proxy (``bellica serve --behind-proxy``) to play over the
  internet.
* Blanks around a token are dropped wherever it comes from (:func:`~bellica.app.tokens.lookup`).
"""

from __future__ import annotations

import secrets
import tempfile
import threading
import time
from collections import OrderedDict
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.middleware import Middleware
from starlette.routing import Route

from bellica.app import pages
from bellica.app.csrf import COOKIE, CsrfMiddleware, Guard
from bellica.app.handover import HandOverLock
from bellica.app.tokens import Identity, lookup

__all__ = ["create_app", "COOKIE", "CampaignAccess", "HttpError", "keep_said", "said_for", "said_kwargs", "see_page"]

MAP_CACHE = 16
BOTH = ("player", "umpire")
#: What a step said, kept for the page its redirect lands on: key -> (token name, what it said).
_SAID: OrderedDict[str, tuple[str, Any]] = OrderedDict()
_SAID_LOCK = threading.Lock()
#: How many are kept (per process); an older key shows the page without its message.
SAID_KEPT = 512


class HttpError(Exception):
    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


def _busy(text: str) -> bool:
    low = text.lower()
    return "locked by" in low or "in use by another" in low or "already open in this process" in low


class CampaignAccess:
    """The campaign file under one lock, held open between requests while they keep coming; the map cache.

    Opening the campaign costs more than most requests (the connection, the board read from the
    map tables): one request after another reuses one open :class:`Campaign` (its board cached),
    and the file is let go after :attr:`hold_s` seconds without a request, so the umpire's CLI
    can use it between bursts.  Steps and page reads take the lock in turn (the file has one
    connection); the slow work that only reads, the SQL console and the map renderer, runs on a
    copy of the file (:meth:`copy`, made under the lock in a few milliseconds), so a long query or
    render holds up no other request.
    """

    def __init__(self, path: Path, *, hold_s: float = 2.0):
        self.path = Path(path)
        self.hold_s = hold_s
        self.lock = HandOverLock()  # taken in the order asked: no request overtakes those waiting (p95)
        self.maps: dict[tuple[str | None, str | None], bytes] = {}
        self.tmp = tempfile.TemporaryDirectory(prefix="bellica-serve-")
        self._held = None
        self._last_used = 0.0
        self._timer: threading.Timer | None = None
        self._small = threading.Lock()  # the map cache and the running consoles, never held across work
        self._consoles: set = set()
        self.stopping = threading.Event()

    def _connect(self):
        from bellica.engine.core.campaign import Campaign
        from bellica.geo.errors import InputError

        try:
            c = Campaign.open(self.path)
        except InputError as err:
            if _busy(str(err)):
                raise HttpError(503, f"the campaign is busy (a step is running on it): retry in a few seconds ({err})",
                                {"Retry-After": "2"}) from None
            raise
        c.warn = lambda _line: None  # a damaged log is the CLI's to report (`bellica round verify`)
        return c

    @contextmanager
    def open(self, *, write: bool = False):
        """The open campaign for one request (``write`` is kept for the callers' intent: every step
        runs in the campaign's own transaction, and a read never writes)."""
        with self.lock:
            c = self._held if self._held is not None else self._connect()
            self._held = None
            try:
                yield c
            except BaseException:
                c.close()  # after a failure start afresh: nothing half-done is kept open
                raise
            self._held = c
            self._last_used = time.monotonic()
            self._arm()

    @contextmanager
    def copy(self):
        """A copy of the campaign file as it is now, for one request to read without the lock:
        yields (its path, its log head); deleted afterwards."""
        import shutil
        import uuid

        folder = Path(self.tmp.name) / uuid.uuid4().hex
        folder.mkdir()
        try:
            with self.open() as c:
                c.con.execute("CHECKPOINT")  # everything in the file itself, no WAL to copy
                head = c.log_head()
                shutil.copyfile(self.path, folder / self.path.name)  # the same name: pages may show it
            yield folder / self.path.name, head
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _arm(self) -> None:
        if self._timer is None:
            self._timer = threading.Timer(self.hold_s, self._idle)
            self._timer.daemon = True
            self._timer.start()

    def _idle(self) -> None:
        with self.lock:
            self._timer = None
            if self._held is None:
                return
            if time.monotonic() - self._last_used >= self.hold_s:
                self.release()
            else:
                self._arm()

    def release(self, *, wait_s: float | None = None) -> None:
        """Close the held campaign (the file is free for other connections and processes); with
        ``wait_s``, give up when a request still holds it that long (the server is stopping: a step
        cut short by the exit commits nothing)."""
        if not self.lock.acquire(timeout=-1 if wait_s is None else wait_s):
            return
        try:
            if self._held is not None:
                held, self._held = self._held, None
                held.close()
        finally:
            self.lock.release()

    @contextmanager
    def console(self, con):
        """Count ``con`` (a console query's connection) as running, so :meth:`stop` can interrupt it."""
        if self.stopping.is_set():  # the server stopped while the console was being made: no query starts
            raise HttpError(503, "the server is stopping: run the query again when the app is back", {"Retry-After": "10"})
        with self._small:
            self._consoles.add(con)
        try:
            yield con
        finally:
            with self._small:
                self._consoles.discard(con)

    def stop(self) -> None:
        """The server is stopping: interrupt the running console queries (each could run 30 s) and
        any that starts from now on, so the graceful shutdown waits for nothing long."""
        self.stopping.set()
        threading.Thread(target=self._interrupt_consoles, daemon=True).start()

    def _interrupt_consoles(self, *, for_s: float = 5.0) -> None:
        """Interrupt the running console queries, again every 50 ms while any runs (for ``for_s``
        seconds at most): a console's own check queries before its long one clear an interrupt
        DuckDB received between them."""
        deadline = time.monotonic() + for_s
        while time.monotonic() < deadline:
            with self._small:
                running = list(self._consoles)
            for con in running:
                con.interrupt()
            time.sleep(0.05)

    def has_map(self, viewer: str | None, head: str | None) -> bool:
        """Whether the map page for ``viewer`` at log head ``head`` is kept (:meth:`render_map`)."""
        with self._small:
            return (viewer, head) in self.maps

    def render_map(self, viewer: str | None, head: str | None, view=None) -> bytes:
        """The map page for ``viewer`` at log head ``head``: what ``bellica render map`` draws, from the
        ruleset's player view (:mod:`bellica.services.maps`), drawn from a copy of the file.  ``view``:
        that player view at ``head``, made already (the terrain under it is the same at every head)."""
        from bellica.services.maps import render_map

        with self._small:
            cached = self.maps.get((viewer, head))
        if cached is not None:
            return cached
        with self.copy() as (path, copied_head):
            out = path.with_name(f"{viewer or 'umpire'}.html")
            render_map(path, out, faction=viewer, view=view)
            html = out.read_bytes()
        if view is None:
            head = copied_head  # drawn from the copy's position: a step since the request began draws anew
        with self._small:
            while len(self.maps) >= MAP_CACHE:
                self.maps.pop(next(iter(self.maps)))
            self.maps[(viewer, head)] = html
        return html


_ACCESS: dict[Path, CampaignAccess] = {}
_ACCESS_LOCK = threading.Lock()


def _access_of(path: Path) -> CampaignAccess:
    """One :class:`CampaignAccess` per file in a process: two apps on one file (tests, a reload)
    share its lock and its open campaign instead of refusing each other."""
    key = path.resolve()
    with _ACCESS_LOCK:
        if key not in _ACCESS:
            _ACCESS[key] = CampaignAccess(path)
        return _ACCESS[key]


# --- requests ------------------------------------------------------------------------------------


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:]  # lookup drops the blanks around it
    return request.cookies.get(COOKIE)


def _wants_json(request: Request) -> bool:
    # /api/ and /preview/ answer only JSON (a script's, or a page's map script's), errors too.
    return "application/json" in request.headers.get("accept", "") or request.url.path.startswith(("/api/", "/preview/"))


def _identify(c, request: Request, roles: tuple[str, ...]) -> Identity:
    ident = lookup(c.con, _token(request))
    if ident is None:
        raise HttpError(401, "sign in with the token the umpire gave you (absent, unknown or revoked token)")
    if ident.role not in roles:
        what = "the umpire's" if roles == ("umpire",) else "a player's (the umpire submits no orders here)"
        raise HttpError(403, f"this is {what}: your token ({ident.name}) may not use it")
    return ident


def _error_response(request: Request, status: int, message: str, headers: dict | None = None, *,
                    who: str | None = None) -> Response:
    if _wants_json(request):
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    body = pages.signin_page(message) if status == 401 else pages.error_page(message, who=who)
    return HTMLResponse(body, status_code=status, headers=headers)


def _guarded(request: Request, fn: Callable[[], Response]) -> Response:
    from bellica.engine.core.machine import StepRefused
    from bellica.geo.errors import BellicaError

    try:
        return fn()
    except HttpError as err:
        return _error_response(request, err.status, err.message, err.headers)
    except StepRefused as err:
        return _error_response(request, 409, str(err))
    except BellicaError as err:
        return _error_response(request, 400, str(err))


async def _form(request: Request) -> dict[str, str]:
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


def _console_refused(access: CampaignAccess, request: Request, page: Callable[..., str], query: str,
                     message: str) -> Response:
    """A refused query: the umpire's page again, the query kept in its box and the error beside it (400)."""
    with access.open() as c:
        ident = _identify(c, request, ("umpire",))
        error = f'<div class="box error" id="sql-error" role="alert">refused: {pages.e(message)}</div>'
        return HTMLResponse(page(c, ident, sql=query, sql_html=error), status_code=400)


def console_endpoint(access: CampaignAccess, page: Callable[..., str]):
    """``POST /umpire/sql``: the read-only SQL console (:mod:`.console`) for the umpire; ``page(c,
    ident, sql=, sql_html=)`` draws the umpire's page of the campaign's ruleset around the result."""

    async def umpire_sql(request: Request) -> Response:
        form = await _form(request)
        query = form.get("query", "")

        def go():
            from bellica.app.console import run_console
            from bellica.geo.errors import BellicaError

            with access.open() as c:
                ident = _identify(c, request, ("umpire",))
            # The query runs on a copy of the file and without the lock: however long it takes,
            # the players' pages and steps go on meanwhile.
            try:
                with access.copy() as (path, _head):
                    results = run_console(path, query, name=access.path, running=access.console)
            except BellicaError as err:
                if _wants_json(request):
                    raise
                return _console_refused(access, request, page, query, str(err))
            if _wants_json(request):
                from bellica.services.jsonout import rows_json

                return JSONResponse([rows_json(cols, rows) for cols, rows, _cut in results])
            html = "".join(pages.table(cols, rows) + (f"<p>first {len(rows)} rows shown</p>" if cut else "")
                           + f"<p>({len(rows)} row{'s' if len(rows) != 1 else ''})</p>" for cols, rows, cut in results)
            # Post/Redirect/Get: the result is kept for the umpire's token, the page shows it.
            return see_page(ident.name, sql=query, sql_html=f'<div id="sql-result">{html}</div>')
        return await run_in_threadpool(_guarded, request, go)
    return umpire_sql


# --- the application ------------------------------------------------------------------------------


def sign_in(access: CampaignAccess, guard: Guard, request: Request, token: str, what: str) -> Response:
    """The token's cookie and a redirect home, or 401 naming ``what`` was unknown.  Blanks around
    the token are dropped (a pasted link or token often ends in one; a token never holds one)."""
    token = token.strip()
    with access.open() as c:
        ident = lookup(c.con, token)
    if ident is None:
        raise HttpError(401, f"{what} is unknown or revoked: ask the umpire for a new one")
    resp = RedirectResponse("/", status_code=303)
    resp.set_cookie(COOKIE, token, httponly=True, samesite="strict", max_age=60 * 60 * 24 * 90, secure=guard.secure(request))
    return resp


def link_sign_in(access: CampaignAccess, guard: Guard, request: Request, token: str) -> Response:
    """``GET /?token=T``: signs in, unless another site sent the browser here (``Sec-Fetch-Site``):
    then a page asks first, so a page elsewhere cannot switch a player to the attacker's token."""
    if request.headers.get("sec-fetch-site") not in ("cross-site", "same-site"):
        return sign_in(access, guard, request, token, "that sign-in link")
    with access.open() as c:
        ident, now = lookup(c.con, token), lookup(c.con, request.cookies.get(COOKIE))
    if ident is None:
        raise HttpError(401, "that sign-in link is unknown or revoked: ask the umpire for a new one")
    return HTMLResponse(pages.confirm_signin_page(token.strip(), ident.name, now.name if now else None),
                        headers={"Cache-Control": "no-store"})


def said_for(name: str, key: str | None):
    """What was kept under ``key`` if the token ``name`` caused it (another viewer's key: None)."""
    with _SAID_LOCK:
        kept = _SAID.get(key or "")
    return kept[1] if kept and kept[0] == name else None


def keep_said(name: str, said) -> str:
    """Keep ``said`` (what a step taken by the token ``name`` said: the page shows it after the
    redirect) and return its key; the newest :data:`SAID_KEPT` are kept, per process."""
    key = secrets.token_urlsafe(12)
    with _SAID_LOCK:
        _SAID[key] = (name, said)
        while len(_SAID) > SAID_KEPT:
            _SAID.popitem(last=False)
    return key


def said_kwargs(said) -> dict[str, Any]:
    """What a kept ``said`` gives the page (:func:`see_page`): its lines (``said``), and the SQL
    console's query and result (``sql``, ``sql_html``) when it kept them."""
    if isinstance(said, dict):
        return {k: v for k, v in said.items() if k in ("said", "sql", "sql_html")}
    return {"said": list(said)} if isinstance(said, (list, tuple)) else {}


def see_page(name: str, said: list[str] | None = None, *, path: str = "/", **more) -> Response:
    """Post/Redirect/Get: a 303 to the viewer's page, what the POST said kept server-side for the
    token ``name`` under a short random key (the URL carries the key only, never a value)."""
    key = keep_said(name, {"said": list(said or ()), **more})
    return RedirectResponse(f"{path}?said={key}", status_code=303)


def home_endpoint(access: CampaignAccess, guard: Guard):
    """``GET /``: the viewer's page, as the campaign's ruleset draws it (:mod:`.routing`); with
    ``?token=T``, the sign-in link."""
    async def home(request: Request) -> Response:
        from bellica.app.routing import home_page

        token = request.query_params.get("token")
        if request.query_params.get("signedout") and not _token(request):
            return HTMLResponse(pages.signin_page("signed out"), headers={"Cache-Control": "no-store"})
        if token is not None:
            return await run_in_threadpool(_guarded, request, lambda: link_sign_in(access, guard, request, token))

        def go():
            from bellica.app.logpage import before_of

            with access.open() as c:
                ident = _identify(c, request, BOTH)
                said = said_for(ident.name, request.query_params.get("said"))
                return HTMLResponse(home_page(c, ident, said, before=before_of(request.query_params.get("before"))))
        return await run_in_threadpool(_guarded, request, go)
    return home


def signin_endpoint(access: CampaignAccess, guard: Guard):
    """``POST /signin``: a token typed into the sign-in form."""
    async def signin(request: Request) -> Response:
        form = await _form(request)
        token = form.get("token", "")
        return await run_in_threadpool(_guarded, request, lambda: sign_in(access, guard, request, token, "that token"))
    return signin


def signout_endpoint(guard: Guard):
    """``POST /signout``: the cookie cleared."""
    async def signout(request: Request) -> Response:
        resp = RedirectResponse("/?signedout=1", status_code=303)  # Post/Redirect/Get, as every form
        resp.delete_cookie(COOKIE, httponly=True, samesite="strict", secure=guard.secure(request))
        return resp
    return signout


def _view_for_map(c, viewer: str | None):
    """The viewer's player view now, where the map draws one: the one their page read at this log
    head (:func:`bellica.app.views.view_of`), so the map loaded after each step does not make it
    again; None for a ruleset drawing its own layers (made from the copy)."""
    from bellica.app.views import view_of
    from bellica.services.maps import draws_from_view

    return view_of(c, viewer) if draws_from_view(c.ruleset) else None


def map_endpoint(access: CampaignAccess):
    """``GET /map``: the viewer's map, drawn from a copy of the file without the lock (cached)."""
    async def map_page(request: Request) -> Response:
        def go():
            with access.open() as c:
                ident = _identify(c, request, BOTH)
                head = c.log_head()
                view = None if access.has_map(ident.faction, head) else _view_for_map(c, ident.faction)
            html = access.render_map(ident.faction, head, view)  # drawn without the lock, from a copy
            return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "private, no-store"})
        return await run_in_threadpool(_guarded, request, go)
    return map_page


def _lifespan(access: CampaignAccess):
    @asynccontextmanager
    async def lifespan(_app):
        access.stopping.clear()  # a server started again in this process (tests) runs queries again
        yield
        # The server stops: the file is free at once, not after the idle delay; a step still
        # running past the wait is cut short by the exit, which commits nothing of it.
        access.release(wait_s=2.0)
    return lifespan


def create_app(campaign: str | Path, *, secure_cookies: bool = False, behind_proxy: bool = False) -> Starlette:
    """The ASGI app serving ``campaign`` (a started campaign file with tokens issued); cookies get
    ``Secure`` with ``secure_cookies``, or over HTTPS as a trusted proxy reports it (``behind_proxy``:
    :class:`~bellica.app.csrf.Guard`)."""
    from bellica.app import routing
    from bellica.app.start import start_endpoint

    access = _access_of(Path(campaign))
    guard = Guard(secure_cookies=secure_cookies, behind_proxy=behind_proxy)
    shared = [Route("/", home_endpoint(access, guard), methods=["GET"]),
              Route("/signin", signin_endpoint(access, guard), methods=["POST"]),
              Route("/signout", signout_endpoint(guard), methods=["POST"]),
              Route("/map", map_endpoint(access), methods=["GET"]),
              Route("/umpire/start", start_endpoint(access), methods=["POST"])]
    routes = shared + routing.by_ruleset(access)  # every other path: the campaign's ruleset's
    app = Starlette(routes=routes, lifespan=_lifespan(access), middleware=[Middleware(CsrfMiddleware, guard=guard)])
    app.state.access, app.state.guard = access, guard
    return app
