"""Cross-site posts refused in real Chromium (issue 23, item 4): a victim signed in as Roma opens an
attacker's page, served from another port of the same host (the same *site*, so SameSite=Strict
sends the cookie) and from another host name (127.0.0.1 and localhost are different sites).  The
page auto-posts orders for Roma's army 9, sends them with a no-cors fetch, posts Carthago's token
to ``/signin`` (login CSRF) and navigates to Carthago's sign-in link.  Every post is refused (403,
nothing stored, the victim still Roma); the link asks first; the real pages still work."""

from __future__ import annotations

import threading
import warnings
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from bellica.app.background import running  # noqa: E402
from bellica.app.server import create_app  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium  # noqa: E402

pytestmark = pytest.mark.browser


def attack_pages(app: str, carthago: str) -> dict[str, str]:
    """The attacker's pages, each aimed at the app at ``app``."""
    auto = "<script>document.forms[0].submit()</script>"
    return {
        "/orders": f'<form method="post" action="{app}/orders"><input name="moves-9" value="3 3"></form>{auto}',
        "/fetch": ("<script>fetch('" + app + "/orders', {method: 'POST', mode: 'no-cors', credentials: 'include', "
                   "body: new URLSearchParams({'moves-9': '3 3'})})</script>"),
        "/signin": f'<form method="post" action="{app}/signin"><input name="token" value="{carthago}"></form>{auto}',
        "/link": f"<script>location.href = '{app}/?token={carthago}'</script>",
    }


@contextmanager
def attacker(host: str = "127.0.0.1"):
    """A web server of the attacker's on ``host`` (a free port); yields (its base URL, its pages to fill)."""
    pages: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = f"<!doctype html><html><body>{pages.get(self.path, 'nothing')}</body></html>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}", pages
    finally:
        server.shutdown()
        server.server_close()


def army_9_orders(url: str, token: str) -> str:
    """What Roma's own page says of army 9's orders ("no orders yet" or who sent them)."""
    page = httpx.get(f"{url}/", headers={"Authorization": f"Bearer {token}"}).text
    return page.split('<label for="orders-moves-9">')[1].split("</label>")[0].removesuffix(")")


def attack(page, evil: str, path: str, app: str) -> int:
    """Open the attacker's page ``path``; the status of the request it makes to the app."""
    with page.expect_response(lambda r: r.url.startswith(app) and r.request.method == "POST") as got:
        page.goto(f"{evil}{path}")
    return got.value.status


@pytest.mark.parametrize("victim_host", ["127.0.0.1", "localhost"])
def test_cross_site_posts_are_refused(tmp_path, victim_host, shared_playwright):
    """The victim uses the app at ``victim_host``; the attacker's page is on 127.0.0.1, another port:
    the same site as the victim's 127.0.0.1, another site than its localhost."""
    require_chromium()
    from playwright.sync_api import expect

    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    with running(create_app(path)) as url, attacker() as (evil, pages), shared_playwright as p:
        app = url.replace("127.0.0.1", victim_host)
        pages.update(attack_pages(app, tokens["carthago"]))
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            page.goto(f"{app}/?token={tokens['roma']}")
            expect(page.locator("header")).to_contain_text("signed in as roma")
            assert attack(page, evil, "/orders", app) == 403
            assert "cross-site" in page.content()
            assert attack(page, evil, "/fetch", app) == 403
            assert army_9_orders(url, tokens["roma"]).endswith("no orders yet")
            assert attack(page, evil, "/signin", app) == 403
            # The sign-in link opened from another site asks before it signs in.
            page.goto(f"{evil}/link")
            expect(page.locator("#confirm-signin")).to_be_visible()
            assert "carthago" in page.locator("#message").inner_text()
            page.goto(f"{app}/")
            expect(page.locator("header")).to_contain_text("signed in as roma")
            # The real pages still work: the check as one types, then the submission.
            page.fill("#orders-moves-9", "3 3")
            expect(page.locator("#check-orders")).to_have_text("the orders are legal")
            page.click("#orders-button")
            expect(page.locator("#message")).to_contain_text("orders stored (sealed) for armies 9, 10")
            assert army_9_orders(url, tokens["roma"]).endswith("(sealed)")
            # The link, confirmed by the person at the keyboard, does sign in.
            page.goto(f"{evil}/link")
            page.click("#confirm-signin button")
            expect(page.locator("header")).to_contain_text("signed in as carthago")
            page.click("header button")  # sign out
            expect(page.locator("#message")).to_contain_text("signed out")
            page.fill("input[name=token]", tokens["roma"] + " ")  # a pasted trailing blank is stripped
            page.click("form[action='/signin'] button")
            expect(page.locator("header")).to_contain_text("signed in as roma")
        finally:
            browser.close()
