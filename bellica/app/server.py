"""``bellica serve``: the campaign as a web app (Starlette, run by uvicorn), one file shared with the CLI.

Endpoints (every one authorised by a token, :mod:`.tokens`):

=====================  ========  ============================================================
``GET /``              anyone    the player's page (map, round, log, order form) or the
                                 umpire's; ``/?token=T`` signs in (an HttpOnly, SameSite=Strict
                                 cookie) and redirects to ``/`` (opened from another site: a page
                                 asks first); no valid token: 401 sign-in page
``POST /signin``       anyone    the same from a form field ``token`` (and the sign-in form's
                                 ``csrf``); ``POST /signout`` clears it
``GET /map``           signed    the faction's map (the umpire's: every army), the HTML
                                 :func:`bellica.services.maps.render_map` writes,
                                 cached per viewer and log head (a new event draws it again)
``POST /api/check``    player    the order form checked by the engine's validator without storing:
                                 ``{"ok", "problems": [{"army", "field", "index", "message", "text"}]}``
``POST /orders``       player    submit (:func:`rounds.submit_orders`, ``submitted_by="token:NAME"``);
                                 again to replace, until the reveal
``POST /umpire/step``  umpire    ``step`` = publish | reveal | move | administer | victory
``POST /umpire/deadline`` umpire ``when`` (ISO-8601 UTC)
``POST /umpire/sql``   umpire    the read-only SQL console (:mod:`.console`)
``POST /umpire/result``  umpire  an engagement's result; ``POST /umpire/administer`` the
                                 administration choices; ``POST /retreat`` a retreat (a player:
                                 its own armies); ``POST /commit`` and ``/reveal-orders`` a
                                 faction's commit-reveal orders (:mod:`.adjudication`)
=====================  ========  ============================================================

A province campaign (Rise of Rome, Mare Nostrum) keeps ``/``, the sign-in and ``/map`` and gets
the turn forms of :mod:`.provinces` instead of the order forms above.  A Magna Graecia or Trossian campaign likewise
gets the forms of :mod:`.nodes`.

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

import tempfile
import threading
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.middleware import Middleware
from starlette.routing import Route

from bellica.app import adjudication, pages
from bellica.app.csrf import COOKIE, CsrfMiddleware, Guard
from bellica.app.pages import e
from bellica.app.tokens import Identity, lookup

__all__ = ["create_app", "COOKIE", "STEPS"]

#: The umpire's buttons: a step name of the phase machine -> what runs it (results stay on the CLI).
STEPS = ("publish", "reveal", "move", "administer", "victory")
MAP_CACHE = 16


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
        self.lock = threading.RLock()
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
        with self._small:
            self._consoles.add(con)
        try:
            if self.stopping.is_set():
                con.interrupt()
            yield con
        finally:
            with self._small:
                self._consoles.discard(con)

    def stop(self) -> None:
        """The server is stopping: interrupt the running console queries (each could run 30 s) and
        any that starts from now on, so the graceful shutdown waits for nothing long."""
        self.stopping.set()
        with self._small:
            for con in self._consoles:
                con.interrupt()

    def render_map(self, viewer: str | None, head: str | None) -> bytes:
        """The map page for ``viewer`` at log head ``head``: what ``bellica render map`` draws, from the
        ruleset's player view (:mod:`bellica.services.maps`), drawn from a copy of the file."""
        from bellica.services.maps import render_map

        with self._small:
            cached = self.maps.get((viewer, head))
        if cached is not None:
            return cached
        with self.copy() as (path, head):
            out = path.with_name(f"{viewer or 'umpire'}.html")
            render_map(path, out, faction=viewer)
            html = out.read_bytes()
        with self._small:
            while len(self.maps) >= MAP_CACHE:
                self.maps.pop(next(iter(self.maps)))
            self.maps[(viewer, head)] = html  # the copy's head: a step since the request began draws anew
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
    return "application/json" in request.headers.get("accept", "") or request.url.path.startswith("/api/")


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


# --- the player's page ---------------------------------------------------------------------------


def _sea_links(text: str) -> list[str]:
    return [s.strip() for s in text.replace("\n", ";").split(";") if s.strip()]


def orders_from_form(r, ident: Identity, form: dict[str, str]):
    """(orders, problems) of the order form: one entry per live army ``ident`` commands; syntax
    problems (layer 1 of the validator) of every army together."""
    from bellica.engine.vae_victis.orders import OrderError, army_orders_from_cli
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE

    orders, problems = {}, []
    for a in r.live_armies():
        if not ident.commands(a) or f"moves-{a.id}" not in form:
            continue  # an army another player commands, or one the form leaves out (a script's partial orders)
        moves = form.get(f"moves-{a.id}", "")
        use = form.get(f"initiative-{a.id}", "").strip() if r.stage == STAGE_INITIATIVE else ""
        try:
            orders[a.id] = army_orders_from_cli(a.id, moves, initiative=use or "strength",
                                                sea_links=_sea_links(form.get(f"sea-{a.id}", "")))
        except OrderError as err:
            problems += err.problems
    return orders, problems


def _problem_json(p) -> dict[str, Any]:
    return {"army": p.army, "field": p.field, "index": p.index, "message": p.message, "text": str(p)}


def check_orders(c, ident: Identity, form: dict[str, str]) -> list:
    """Every problem of the form's orders as the engine sees them now, nothing stored: the same
    checks as a submission (syntax, the step, the reveal, legality with the faction's stored orders)."""
    from bellica.engine.vae_victis.orders import OrderError, OrderProblem
    from bellica.engine.vae_victis.rounds.machine import read_round, require
    from bellica.engine.vae_victis.rounds.orders_step import order_events
    from bellica.engine.vae_victis.rounds.reveal import COMMIT_REVEAL, orders_mode, refuse_after_deadline
    from bellica.geo.errors import InputError

    r = read_round(c)
    try:
        require(c, r, "orders")
        if orders_mode(r.snap) == COMMIT_REVEAL:
            raise InputError("this campaign takes orders in commit-reveal mode: commit the digest of your orders file "
                             "and reveal it later (the forms on your page, or `bellica round commit`/`reveal-orders`)")
        refuse_after_deadline(r, None, "the order form")
        orders, problems = orders_from_form(r, ident, form)
        if not orders and not problems:
            raise InputError(f"the form gives no orders: {ident.faction} has no live army this round, or the form "
                             "names none of its armies (fields moves-ARMY)")
    except OrderError as err:
        return list(err.problems)
    except InputError as err:
        return [OrderProblem(None, "file", str(err))]
    if orders:
        # The armies whose fields parse are checked in the position too, so every problem shows at once.
        try:
            order_events(c, r, orders, faction=ident.faction, submitted_by=ident.submitted_by, source="the order form")
        except OrderError as err:
            problems += list(err.problems)
        except InputError as err:
            problems.append(OrderProblem(None, "file", str(err)))
    return problems


def _orders_text(o) -> dict[str, str]:
    return {"moves": " ".join(map(str, o.moves)), "initiative": o.initiative or "strength",
            "sea": "; ".join(f"{z}:{s}" for z, s in o.sea_links)}


def player_page(c, ident: Identity, *, typed: dict[str, str] | None = None, problems=(), message: str | None = None,
                error: str | None = None) -> str:
    from bellica.engine.core.sealed import log_view
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, read_round
    from bellica.app.adjudication import battles_section, commit_reveal_section
    from bellica.engine.vae_victis.rounds.reveal import COMMIT_REVEAL, is_locked, orders_mode

    f = ident.faction
    status = rounds.round_status(c)
    r = read_round(c)
    ordering = status.phase == "orders"
    locked = not ordering or is_locked(r)
    view = {army: (fac, o) for army, fac, o in rounds.orders_view(c, faction=f)}
    submitters = rounds.order_submitters(c) if ordering else {}
    own = [a for a in r.live_armies() if ident.commands(a)]
    commit_reveal = orders_mode(r.snap) == COMMIT_REVEAL
    parts = [f'<div class="box" id="round">round {e(status.round)}, phase {e(status.phase)}'
             + (f" ({e(status.stage)})" if ordering and status.stage else "")
             + (f"; deadline {e(status.deadline)}" + (" (passed)" if status.deadline_passed else "") if status.deadline else "")
             + ("; orders revealed" if ordering and status.revealed else "")
             + (f"; campaign won by {e(status.winner)}" if status.winner else "") + "</div>"]
    if message:
        parts.append(f'<div class="box ok" id="message">{e(message)}</div>')
    if error:
        parts.append(f'<div class="box error" id="error">refused, nothing stored: {e(error)}</div>')
    if problems:
        items = "".join(f"<li>{e(p)}</li>" for p in problems)
        parts.append(f'<div class="box error" id="submit-problems">nothing stored: {len(problems)} problem(s)<ul>{items}</ul></div>')
    parts.append("<h2>Orders</h2>")
    if ordering and not locked and commit_reveal:
        parts.append(commit_reveal_section(c, ident))
    elif ordering and not locked:
        initiative = status.stage == STAGE_INITIATIVE
        rows = []
        for a in own:
            o = view.get(a.id, (None, None))[1]
            stored = _orders_text(o) if o is not None and a.id in submitters else {"moves": "", "initiative": "strength", "sea": ""}
            if typed is not None:
                stored = {"moves": typed.get(f"moves-{a.id}", ""), "initiative": typed.get(f"initiative-{a.id}", "strength"),
                          "sea": typed.get(f"sea-{a.id}", "")}
            state = f"in from {e(submitters[a.id])} (sealed)" if a.id in submitters else "no orders yet"
            cells = (f"<td>army {a.id}<br><small>strength {e(a.strength)}; {state}</small></td>"
                     f'<td><input type="text" name="moves-{a.id}" id="moves-{a.id}" value="{e(stored["moves"])}" '
                     f'placeholder="e.g. 9 11 0" autocomplete="off"></td>')
            if initiative:
                cells += (f'<td><input type="text" name="initiative-{a.id}" id="initiative-{a.id}" '
                          f'value="{e(stored["initiative"])}"></td>')
            cells += (f'<td><input type="text" name="sea-{a.id}" id="sea-{a.id}" value="{e(stored["sea"])}" '
                      f'placeholder="Mare Sardoum:Caralis"></td>')
            rows.append(f"<tr>{cells}</tr>")
        head = "<th>army</th><th>moves (clock positions, 0 stays)</th>" + ("<th>initiative</th>" if initiative else "") + "<th>sea links</th>"
        parts.append(
            f'<form id="orders" method="post" action="/orders"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
            '</tbody></table><p><span id="check-state"></span></p><ul id="problems"></ul>'
            '<button id="submit">submit orders (replaces your earlier ones until the reveal)</button></form>'
            "<p><small>An empty move field stands still. Your orders are sealed: no other faction, nor the umpire, "
            "reads them before the reveal (every army's orders in, or the deadline).</small></p>")
    else:
        rows = []
        for army, (fac, o) in sorted(view.items()):
            if fac != f and not (ordering and status.revealed):
                continue  # before the reveal (or out of the orders phase) only one's own, as the engine shows them
            if o is None:
                rows.append((army, fac, "-", "", ""))
            else:
                t = _orders_text(o)
                rows.append((army, fac, t["moves"], t["initiative"], t["sea"]))
        note = ("the orders are revealed and locked" if ordering else f"phase {status.phase}: no orders are taken now")
        parts.append(f'<p id="locked">{e(note)}</p><div id="revealed">{pages.table(["army", "faction", "moves", "initiative", "sea links"], rows)}</div>')
    parts.append(battles_section(c, ident))
    parts.append('<h2>Map</h2><iframe id="map" src="/map" title="faction map"></iframe>')
    lines = [ln for ln in log_view(c, viewer=f) if ln.event.kind != "put_note"][-200:]
    log_rows = "".join(f"<li>round {e(ln.event.round)}: {e(ln.text)}</li>" for ln in reversed(lines))
    parts.append(f'<h2>Log</h2><ul class="log" id="log">{log_rows}</ul>')
    return pages.page(f"bellica: {f}", "".join(parts), who=ident.name, script=pages.CHECK_SCRIPT)


# --- the umpire's page ---------------------------------------------------------------------------


def allowed_steps(c) -> list[str]:
    from bellica.engine.core.machine import StepRefused

    snap = c.snapshot()
    out = []
    for step in STEPS:
        try:
            c.ruleset.require(c, snap, step)
        except StepRefused:
            continue
        out.append(step)
    return out


def run_step(c, step: str):
    from bellica.engine.vae_victis import rounds
    from bellica.geo.errors import InputError

    steps = {"publish": rounds.publish_initiative, "reveal": rounds.reveal_round, "move": rounds.run_movement,
             "administer": rounds.run_administration, "victory": rounds.run_victory}
    if step not in steps:
        raise InputError(f"step {step!r} is not one of {', '.join(STEPS)} (results and retreats: `bellica round result`/`retreat`)")
    return steps[step](c)


def umpire_page(c, ident: Identity, *, message: str | None = None, sql: str = "", sql_html: str = "",
                choices: str | None = None, error: str | None = None) -> str:
    from bellica.app.adjudication import administration_section, battles_section
    from bellica.commands.jsonout import status_json
    from bellica.engine.core.sealed import log_view
    from bellica.engine.vae_victis import rounds

    status = rounds.round_status(c)
    data = status_json(status, campaign=c)
    parts = [f'<div class="box" id="round">{"<br>".join(e(line) for line in status.lines())}</div>']
    if message:
        parts.append(f'<div class="box ok" id="message">{message}</div>')
    if error:
        parts.append(f'<div class="box error" id="error">refused, nothing stored: {e(error)}</div>')
    if data["orders"] is not None:
        submitters = rounds.order_submitters(c)
        rows = [(f, ", ".join(map(str, data["orders"]["submitted"][f])) or "-", ", ".join(map(str, data["orders"]["missing"][f])) or "-",
                 ", ".join(sorted({str(submitters.get(a)) for a in data["orders"]["submitted"][f]})) or "-")
                for f in data["orders"]["submitted"]]
        parts.append('<h2>Orders (who, never what, until the reveal)</h2><div id="submitted">'
                     + pages.table(["faction", "armies in", "armies missing", "submitted by"], rows) + "</div>")
        parts.append('<form method="post" action="/umpire/deadline" id="deadline">deadline (UTC) '
                     f'<input type="text" name="when" style="width:14rem" value="{e(data["deadline"] or "")}" placeholder="2025-06-01T18:00:00Z"> '
                     "<button>set the deadline</button></form>")
    parts.append(battles_section(c, ident))
    steps = allowed_steps(c)
    buttons = "".join(f'<button name="step" value="{s}" id="step-{s}">{s}</button> ' for s in steps if s != "administer")
    if buttons or "administer" not in steps:
        parts.append(f'<h2>Next step</h2><form method="post" action="/umpire/step" id="steps">{buttons or "none"}</form>')
    if "administer" in steps:
        parts.append(administration_section(c, choices))
    parts.append('<h2>SQL console (read-only)</h2><form method="post" action="/umpire/sql" id="sql">'
                 f'<textarea name="query" rows="3">{e(sql)}</textarea><button>run</button></form>{sql_html}')
    parts.append('<h2>Map</h2><p><a href="/map" target="_blank">the umpire\'s map (every army)</a></p>')
    lines = [ln for ln in log_view(c, viewer=None) if ln.event.kind != "put_note"][-200:]
    parts.append('<h2>Log</h2><ul class="log" id="log">'
                 + "".join(f"<li>round {e(ln.event.round)}: {e(ln.text)}</li>" for ln in reversed(lines)) + "</ul>")
    return pages.page("bellica: umpire", "".join(parts), who=ident.name)


def console_endpoint(access: CampaignAccess, page: Callable[..., str]):
    """``POST /umpire/sql``: the read-only SQL console (:mod:`.console`) for the umpire; ``page(c,
    ident, sql=, sql_html=)`` draws the umpire's page of the campaign's ruleset around the result."""

    async def umpire_sql(request: Request) -> Response:
        form = await _form(request)
        query = form.get("query", "")

        def go():
            from bellica.app.console import run_console

            with access.open() as c:
                _identify(c, request, ("umpire",))
            # The query runs on a copy of the file and without the lock: however long it takes,
            # the players' pages and steps go on meanwhile.
            with access.copy() as (path, _head):
                results = run_console(path, query, name=access.path, running=access.console)
            if _wants_json(request):
                from bellica.commands.jsonout import rows_json

                return JSONResponse([rows_json(cols, rows) for cols, rows, _cut in results])
            html = "".join(pages.table(cols, rows) + (f"<p>first {len(rows)} rows shown</p>" if cut else "")
                           + f"<p>({len(rows)} row{'s' if len(rows) != 1 else ''})</p>" for cols, rows, cut in results)
            with access.open() as c:
                ident = _identify(c, request, ("umpire",))
                return HTMLResponse(page(c, ident, sql=query, sql_html=f'<div id="sql-result">{html}</div>'))
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


def create_app(campaign: str | Path, *, secure_cookies: bool = False, behind_proxy: bool = False) -> Starlette:
    """The ASGI app serving ``campaign`` (a started campaign file with tokens issued); cookies get
    ``Secure`` with ``secure_cookies``, or over HTTPS as a trusted proxy reports it (``behind_proxy``:
    :class:`~bellica.app.csrf.Guard`)."""
    from bellica.app import nodes, provinces

    access = _access_of(Path(campaign))
    guard = Guard(secure_cookies=secure_cookies, behind_proxy=behind_proxy)
    both = ("player", "umpire")

    def read(request, roles, fn, *, write=False):
        def go():
            with access.open(write=write) as c:
                return fn(c, _identify(c, request, roles))
        return _guarded(request, go)

    async def home(request: Request) -> Response:
        token = request.query_params.get("token")
        if token is not None:
            return await run_in_threadpool(_guarded, request, lambda: link_sign_in(access, guard, request, token))

        def show(c, ident):
            if provinces.is_province(c.ruleset.name):  # Rise of Rome, Mare Nostrum: bellica.app.provinces' page
                return HTMLResponse(provinces.home_page(c, ident))
            if nodes.is_node(c.ruleset.name):  # Magna Graecia, Trossian: bellica.app.nodes' page
                return HTMLResponse(nodes.home_page(c, ident))
            body = player_page(c, ident) if ident.role == "player" else umpire_page(c, ident)
            return HTMLResponse(body)
        return await run_in_threadpool(read, request, both, show)

    async def signin(request: Request) -> Response:
        form = await _form(request)
        token = form.get("token", "")
        return await run_in_threadpool(_guarded, request, lambda: sign_in(access, guard, request, token, "that token"))

    async def signout(request: Request) -> Response:
        resp = HTMLResponse(pages.signin_page("signed out"), status_code=200)
        resp.delete_cookie(COOKIE, httponly=True, samesite="strict", secure=guard.secure(request))
        return resp

    async def map_page(request: Request) -> Response:
        def go():
            with access.open() as c:
                ident = _identify(c, request, both)
                head = c.log_head()
            html = access.render_map(ident.faction, head)  # drawn without the lock, from a copy
            return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "private, no-store"})
        return await run_in_threadpool(_guarded, request, go)

    async def api_check(request: Request) -> Response:
        form = await _form(request)

        def go(c, ident):
            problems = check_orders(c, ident, form)
            return JSONResponse({"ok": not problems, "problems": [_problem_json(p) for p in problems]})
        return await run_in_threadpool(read, request, ("player",), go)

    async def submit(request: Request) -> Response:
        form = await _form(request)

        def go(c, ident):
            from bellica.engine.vae_victis import rounds
            from bellica.engine.vae_victis.orders import OrderError, OrderSyntaxError
            from bellica.engine.vae_victis.rounds.machine import read_round

            from bellica.geo.errors import InputError

            try:
                orders, problems = orders_from_form(read_round(c), ident, form)
                if not orders and not problems:
                    raise InputError("the form gives no orders: it names none of your armies (fields moves-ARMY)")
                if problems:
                    raise OrderSyntaxError(problems, "the order form")
                events = rounds.submit_orders(c, orders, faction=ident.faction, submitted_by=ident.submitted_by,
                                              source="the order form")
            except OrderError as err:
                if _wants_json(request):
                    return JSONResponse({"error": str(err), "problems": [_problem_json(p) for p in err.problems]}, status_code=400)
                return HTMLResponse(player_page(c, ident, typed=form, problems=err.problems), status_code=400)
            stored = sorted(int(ev.data["army"]) for ev in events if ev.kind == "put_orders")
            revealed = any(ev.kind == "orders_revealed" for ev in events)
            if _wants_json(request):
                return JSONResponse({"stored": stored, "revealed": revealed})
            msg = f"orders stored (sealed) for arm{'y' if len(stored) == 1 else 'ies'} {', '.join(map(str, stored))}"
            if revealed:
                msg += "; every army's orders are in: the round's orders are revealed and locked"
            return HTMLResponse(player_page(c, ident, message=msg))
        return await run_in_threadpool(read, request, ("player",), go, write=True)

    async def umpire_step(request: Request) -> Response:
        form = await _form(request)

        def go(c, ident):
            events = run_step(c, form.get("step", ""))
            done = "<br>".join(e(ev.text) for ev in events if ev.kind != "put_note") or e(f"{form.get('step')}: done")
            if _wants_json(request):
                return JSONResponse({"step": form.get("step"), "events": [ev.text for ev in events if ev.kind != "put_note"]})
            return HTMLResponse(umpire_page(c, ident, message=done))
        return await run_in_threadpool(read, request, ("umpire",), go, write=True)

    def action(roles: tuple[str, ...], run: Callable):
        """An endpoint running ``run(c, ident, form) -> events`` (an engine step): JSON ``{"events"}``,
        or the signed-in role's page with what happened; a refusal shows on that page (400, or 409
        for a step out of order), the typed administration choices kept."""
        async def endpoint(request: Request) -> Response:
            form = await _form(request)

            def go(c, ident):
                from bellica.engine.core.machine import StepRefused
                from bellica.geo.errors import BellicaError

                def home(**kw):
                    if ident.role == "umpire":
                        return umpire_page(c, ident, choices=form.get("choices"), **kw)
                    return player_page(c, ident, **kw)
                try:
                    events = run(c, ident, form)
                except BellicaError as err:
                    if _wants_json(request):
                        raise
                    return HTMLResponse(home(error=str(err)), status_code=409 if isinstance(err, StepRefused) else 400)
                said = [ev.text for ev in events if ev.kind != "put_note" and ev.text]
                if _wants_json(request):
                    return JSONResponse({"events": said})
                if ident.role == "umpire":  # the umpire's message box takes HTML: one escaped line per event
                    return HTMLResponse(home(message="<br>".join(e(t) for t in said) or "done"))
                return HTMLResponse(home(message="; ".join(said) or "done"))
            return await run_in_threadpool(read, request, roles, go, write=True)
        return endpoint

    async def umpire_deadline(request: Request) -> Response:
        form = await _form(request)

        def go(c, ident):
            from bellica.engine.vae_victis import rounds

            events = rounds.set_deadline(c, form.get("when", ""))
            if _wants_json(request):
                return JSONResponse({"deadline": events[0].data["value"]})
            return HTMLResponse(umpire_page(c, ident, message=e(events[0].text)))
        return await run_in_threadpool(read, request, ("umpire",), go, write=True)

    umpire_sql = console_endpoint(access, umpire_page)

    routes = [
        Route("/", home, methods=["GET"]),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/map", map_page, methods=["GET"]),
        Route("/api/check", api_check, methods=["POST"]),
        Route("/orders", submit, methods=["POST"]),
        Route("/umpire/step", umpire_step, methods=["POST"]),
        Route("/umpire/deadline", umpire_deadline, methods=["POST"]),
        Route("/umpire/sql", umpire_sql, methods=["POST"]),
        Route("/umpire/result", action(("umpire",), lambda c, i, f: adjudication.post_result(c, f)), methods=["POST"]),
        Route("/umpire/administer", action(("umpire",), lambda c, i, f: adjudication.post_administer(c, f)), methods=["POST"]),
        Route("/retreat", action(both, adjudication.post_retreat), methods=["POST"]),
        Route("/commit", action(("player",), adjudication.post_commit), methods=["POST"]),
        Route("/reveal-orders", action(("player",), adjudication.post_reveal), methods=["POST"]),
    ]
    routes = provinces.by_ruleset(access, routes)  # a province campaign's forms instead of the order forms
    routes = nodes.by_ruleset(access, routes)  # Magna Graecia's and the Trossian campaign's forms

    @asynccontextmanager
    async def lifespan(_app):
        access.stopping.clear()  # a server started again in this process (tests) runs queries again
        yield
        # The server stops: the file is free at once, not after the idle delay; a step still
        # running past the wait is cut short by the exit, which commits nothing of it.
        access.release(wait_s=2.0)

    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(CsrfMiddleware, guard=guard)])
    app.state.access, app.state.guard = access, guard
    return app
