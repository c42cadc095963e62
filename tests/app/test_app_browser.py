"""Three browsers (headless Debian chromium) against the app on a real uvicorn: a player signs in,
sees an error as they type, fixes it, submits; the other faction submits in its own browser; the
revealed orders and the map; the umpire, in a third, runs movement, records the engagement's
result, runs administration and victory; the first player sees the next round."""

from __future__ import annotations

import httpx
import pytest

from bellica.app.background import running
from bellica.app.server import create_app
from tests.app.fixtures import field_campaign
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.browser


def test_play_a_round_in_the_browser(tmp_path, shared_playwright):
    require_chromium()
    from playwright.sync_api import expect

    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    with running(create_app(path)) as url, shared_playwright as p:
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
            page.fill("#orders-moves-9", "3 3 q")
            expect(page.locator("#problems-orders li")).to_contain_text("'q' at column 5")
            page.fill("#orders-moves-9", "3 3")
            expect(page.locator("#check-orders")).to_have_text("the orders are legal")
            page.click("#orders-button")
            expect(page.locator("#message")).to_contain_text("orders stored (sealed) for armies 9, 10")
            hanno = browser.new_context().new_page()
            hanno.goto(f"{url}/?token={tokens['carthago']}")
            hanno.fill("#orders-moves-1", "9 9")
            expect(hanno.locator("#check-orders")).to_have_text("the orders are legal")
            hanno.click("#orders-button")
            expect(hanno.locator("#message")).to_contain_text("revealed to every faction and locked")
            page.goto(f"{url}/")
            expect(page.locator("#locked")).to_contain_text("revealed and locked")
            expect(page.locator("#revealed")).to_contain_text("9 9")
            frame = page.frame_locator("#map")
            expect(frame.locator(".leaflet-container").first).to_be_visible(timeout=20000)

            umpire = browser.new_context().new_page()
            umpire.on("pageerror", lambda exc: errors.append(str(exc)))
            umpire.goto(f"{url}/?token={tokens['umpire']}")
            umpire.click("#move-button")
            expect(umpire.locator("#engagement-1")).to_contain_text("awaiting")
            umpire.select_option("#result-engagement", "1")  # the declared result step's form (step_forms)
            umpire.fill("#result-winner", "9")
            umpire.fill("#result-casualties", "9=25\n1=48")
            umpire.click("#result-button")
            expect(umpire.locator("#message")).to_contain_text("army 9 (roma) wins engagement 1, 25% casualties")
            umpire.click("#administer-button")
            expect(umpire.locator("#message")).to_contain_text("army 1 (carthago) lost its battle")
            umpire.click("#victory-button")
            expect(umpire.locator("#message")).to_contain_text("roma +4 VP")
            page.goto(f"{url}/")
            expect(page.locator("#status")).to_contain_text("round 2")
            assert httpx.get(f"{url}/", headers={"Authorization": "Bearer nope"}).status_code == 401
            assert outside == [] and errors == []
        finally:
            browser.close()
