"""A player in headless Debian chromium against the app on a real uvicorn: sign in, an error shown
as they type, fixed, submitted; the other faction submits; the revealed orders and the map."""

from __future__ import annotations

import httpx
import pytest

from tabula.app.background import running
from tabula.app.server import create_app
from tests.app.fixtures import field_campaign
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.browser


def test_play_a_round_in_the_browser(tmp_path):
    require_chromium()
    from playwright.sync_api import expect, sync_playwright

    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    with running(create_app(path)) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            outside: list[str] = []

            def route(r):  # the app's pages are offline: anything not on our loopback server is refused
                if r.request.url.startswith((url, "data:", "blob:", "about:")):
                    r.continue_()
                else:
                    outside.append(r.request.url)
                    r.abort()
            page.route("**/*", route)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{url}/?token={tokens['roma']}")
            assert page.url == f"{url}/"  # the token left the address bar for a cookie
            page.fill("#moves-9", "3 3 q")
            expect(page.locator("#problems li")).to_contain_text("'q' at column 5")
            page.fill("#moves-9", "3 3")
            expect(page.locator("#check-state")).to_have_text("the orders are legal")
            page.click("#submit")
            expect(page.locator("#message")).to_contain_text("orders stored (sealed) for armies 9, 10")
            r = httpx.post(f"{url}/orders", data={"moves-1": "9 9"}, headers={"Authorization": f"Bearer {tokens['carthago']}"})
            assert r.status_code == 200
            page.goto(f"{url}/")
            expect(page.locator("#locked")).to_contain_text("revealed and locked")
            expect(page.locator("#revealed")).to_contain_text("9 9")
            frame = page.frame_locator("#map")
            expect(frame.locator(".leaflet-container").first).to_be_visible(timeout=20000)
            assert outside == [] and errors == []
        finally:
            browser.close()
