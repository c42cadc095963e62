"""Cross-site request forgery: every state-changing request must come from the app's own pages.

SameSite=Strict is not enough.  A page on another port of the same host is the same *site* (a
site ignores the port), so the browser sends it the session cookie; and SameSite says nothing of a
page that signs the victim in with the attacker's token (login CSRF).  So :class:`CsrfMiddleware`
checks every request but GET, HEAD and OPTIONS, whatever its path, before the app sees it:

1. **Origin.**  ``Origin`` (when absent, ``Referer``) must be the app's own origin, the scheme and
   ``Host`` the request came to (behind a proxy the operator trusts, ``--behind-proxy``:
   ``X-Forwarded-Proto`` and ``X-Forwarded-Host``); ``Origin: null`` and ``Sec-Fetch-Site``
   ``cross-site``/``same-site`` are refused too.  A request with neither header comes from no
   browser page (a script), and the token below still guards a cookie.
2. **The session's token.**  A request signed in by the cookie carries ``csrf`` (a form field,
   which :func:`stamp` writes into every POST form of :func:`bellica.app.pages.page`) or the
   ``X-CSRF-Token`` header (the page's fetch): an HMAC of the cookie's value under a key the server
   draws at start, so it is bound to the session and nothing is stored; a restart makes the pages
   open before it stale (the refusal says to reload).  ``Authorization: Bearer`` requests need no
   token: no other site can make a browser send that header.
3. **Sign-in** (``POST /signin``) has no session yet: the form's ``csrf`` must equal the
   ``bellica_signin`` cookie (double submit), a value the server signed when it drew the sign-in
   form.  A page on the same host could plant that cookie (cookies ignore ports); the Origin check
   is what stops it there, the cookie stops a post that carries no Origin.

A refusal is 403 with one line, nothing done.  Cookies get ``Secure`` with ``--secure-cookies``, or
for a request the trusted proxy says came over HTTPS (:meth:`Guard.secure`).
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.datastructures import MutableHeaders
from starlette.requests import Request

__all__ = ["COOKIE", "FIELD", "HEADER", "SIGNIN_COOKIE", "CsrfMiddleware", "Guard", "stamp"]

COOKIE = "bellica_token"  # the session cookie: the sign-in token itself (HttpOnly)
SIGNIN_COOKIE = "bellica_signin"
FIELD = "csrf"
HEADER = "x-csrf-token"
SAFE = ("GET", "HEAD", "OPTIONS")
_DEFAULT_PORT = {"http": ":80", "https": ":443"}


def _first(value: str | None) -> str:
    """The first of a proxy header's comma-separated values (the proxy nearest the client adds the first)."""
    return (value or "").split(",")[0].strip()


def _same(given: str | None, expected: str) -> bool:
    """A constant-time comparison that takes any text (``compare_digest`` refuses non-ASCII str)."""
    return hmac.compare_digest((given or "").encode("utf-8", "replace"), expected.encode("utf-8", "replace"))


def _origin(scheme: str, netloc: str) -> str:
    """``scheme://host[:port]`` as a browser writes an Origin: lower case, no default port."""
    scheme, netloc = scheme.lower(), netloc.lower()
    default = _DEFAULT_PORT.get(scheme)
    return f"{scheme}://{netloc.removesuffix(default) if default else netloc}"


@dataclass
class Guard:
    """The server's key and the operator's choices for cookies and proxies."""

    secure_cookies: bool = False
    behind_proxy: bool = False
    key: bytes = field(default_factory=lambda: secrets.token_bytes(32))

    def _sign(self, purpose: str, value: str) -> str:
        return hmac.new(self.key, f"{purpose}\0{value}".encode(), hashlib.sha256).hexdigest()

    def session_token(self, session: str) -> str:
        return self._sign("session", session)

    def new_signin(self) -> str:
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._sign('signin', nonce)}"

    def valid_signin(self, value: str | None) -> bool:
        nonce, _, sig = (value or "").partition(".")
        return bool(nonce) and _same(sig, self._sign("signin", nonce))

    def scheme(self, request: Request) -> str:
        forwarded = _first(request.headers.get("x-forwarded-proto")) if self.behind_proxy else ""
        return forwarded.lower() or request.url.scheme

    def own_origin(self, request: Request) -> str:
        forwarded = _first(request.headers.get("x-forwarded-host")) if self.behind_proxy else ""
        return _origin(self.scheme(request), forwarded or request.headers.get("host", ""))

    def secure(self, request: Request) -> bool:
        """Whether cookies set in answer to ``request`` get ``Secure``."""
        return self.secure_cookies or self.scheme(request) == "https"

    def cross_site(self, request: Request) -> str | None:
        """Why ``request`` did not come from the app's own pages, or None."""
        own = self.own_origin(request)
        fetch_site = request.headers.get("sec-fetch-site", "")
        origin = request.headers.get("origin")
        if origin is None and request.headers.get("referer"):
            parts = urlsplit(request.headers["referer"])
            origin = _origin(parts.scheme, parts.netloc) if parts.scheme and parts.netloc else "null"
        if fetch_site in ("cross-site", "same-site") or (origin is not None and _origin(*_split(origin)) != own):
            return (f"refused, nothing done: a cross-site request (from {origin or 'another site'}, not this app's "
                    f"own pages at {own}); use the app's own page")
        return None


def _split(origin: str) -> tuple[str, str]:
    scheme, sep, rest = origin.partition("://")
    return (scheme, rest.rstrip("/")) if sep else ("", origin)


@dataclass
class _Forms:
    """What :func:`stamp` writes into the forms of one response, and the sign-in cookie it drew."""

    guard: Guard
    request: Request
    minted: str | None = None

    @property
    def session(self) -> str | None:
        session = self.request.cookies.get(COOKIE)
        return self.guard.session_token(session) if session else None

    def signin(self) -> str:
        held = self.request.cookies.get(SIGNIN_COOKIE)
        if self.guard.valid_signin(held):
            return held
        if self.minted is None:
            self.minted = self.guard.new_signin()
        return self.minted


_FORMS: contextvars.ContextVar[_Forms | None] = contextvars.ContextVar("bellica_csrf_forms", default=None)
_POST_FORM = re.compile(r"<form\b[^>]*\bmethod=\"post\"[^>]*>", re.I)


def stamp(html: str) -> str:
    """``html`` with the current request's token in a hidden ``csrf`` field of every POST form (the
    sign-in form's: the sign-in cookie's value); unchanged outside a request or with no session."""
    forms = _FORMS.get()
    if forms is None:
        return html

    def field_for(match: re.Match) -> str:
        tag = match.group(0)
        value = forms.signin() if 'action="/signin"' in tag else forms.session
        return tag if value is None else f'{tag}<input type="hidden" name="{FIELD}" value="{value}">'
    return _POST_FORM.sub(field_for, html)


class CsrfMiddleware:
    """The checks of the module doc around the app (an ASGI middleware)."""

    def __init__(self, app, guard: Guard):
        self.app, self.guard = app, guard

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        if scope["method"] not in SAFE:
            why, receive = await self._refusal(request, receive)
            if why is not None:
                from bellica.app.server import _error_response

                return await _error_response(request, 403, why)(scope, receive, send)
        forms = _Forms(self.guard, request)
        reset = _FORMS.set(forms)
        try:
            await self.app(scope, receive, self._sending(send, forms))
        finally:
            _FORMS.reset(reset)

    def _sending(self, send, forms: _Forms):
        async def sending(message):
            if message["type"] == "http.response.start" and forms.minted is not None:
                secure = "; Secure" if self.guard.secure(forms.request) else ""
                MutableHeaders(scope=message).append(
                    "set-cookie", f"{SIGNIN_COOKIE}={forms.minted}; HttpOnly; SameSite=Strict; Path=/; Max-Age=86400{secure}")
            await send(message)
        return sending

    async def _refusal(self, request: Request, receive):
        """(why ``request`` is refused or None, the receive channel the app reads the body from)."""
        why = self.guard.cross_site(request)
        if why is not None:
            return why, receive
        signin = request.url.path == "/signin"
        bearer = request.headers.get("authorization", "").lower().startswith("bearer ")
        session = request.cookies.get(COOKIE)
        if not signin and (bearer or not session):
            return None, receive  # nothing a forged request could ride on: the app says 401 if need be
        given = request.headers.get(HEADER)
        if given is None:
            given, receive = await _form_field(request, receive, FIELD)
        if signin:
            held = request.cookies.get(SIGNIN_COOKIE)
            if not (self.guard.valid_signin(held) and _same(given, held)):
                return ("refused, nothing done: the sign-in form's check value is missing or stale: reload the "
                        "sign-in page and sign in from it"), receive
        elif not _same(given, self.guard.session_token(session)):
            return ("refused, nothing done: the form's check value (csrf) is missing or stale (a page from before "
                    "the server restarted?): reload the page and send it again"), receive
        return None, receive


async def _form_field(request: Request, receive, name: str):
    """The form field ``name`` of the request's body (None: absent), and a receive channel that hands
    the app the same body again (the app parses the form for itself)."""
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    sent = False

    async def replay():
        nonlocal sent
        if sent:
            return await receive()  # after the body: the disconnect, when it comes
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}
    value = None
    if request.headers.get("content-type", "").startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await Request(request.scope, replay).form()
        got = form.get(name)
        value = got if isinstance(got, str) else None
        await form.close()
        sent = False
    return value, replay
