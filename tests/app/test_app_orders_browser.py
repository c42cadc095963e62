"""Issue 21 in a browser (headless Debian chromium, never a downloaded one): the initiative stage by
choosing from the list, then a land move plotted by clicks on the map only, each click previewed
by the engine, and submitted.  Screenshots of each stage go to build/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest

from bellica.app.background import running
from bellica.app.server import create_app
from tests.app.fixtures import field_campaign
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


def _offline(page, url: str, outside: list[str]) -> None:
    def route(r):  # the app's pages are offline: anything not on our loopback server is refused
        if r.request.url.startswith((url, "data:", "blob:", "about:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()
    page.route("**/*", route)


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"orders-{name}.png"), full_page=True)


def test_initiative_by_choice_and_a_land_move_by_clicks_only(tmp_path, shared_playwright):
    require_chromium()
    from playwright.sync_api import expect

    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path, publish=False)
    with running(create_app(path)) as url, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            outside: list[str] = []
            errors: list[str] = []
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            _offline(page, url, outside)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{url}/?token={tokens['roma']}")
            expect(page.locator("#initiative-uses-9")).to_be_visible()
            assert page.locator("#orders-moves-9").count() == 0  # moves only in the moves stage
            _shot(page, "1-initiative")
            page.select_option("#initiative-uses-9", "strength")
            page.select_option("#initiative-uses-10", "strength")
            expect(page.locator("#check-initiative")).to_have_text("the initiative is legal")
            page.click("#initiative-button")  # the declared initiative step's form (issue 20)
            expect(page.locator("#message")).to_contain_text("initiative stored (sealed) for armies 9, 10 until publication")

            umpire = browser.new_context().new_page()
            _offline(umpire, url, outside)
            umpire.goto(f"{url}/?token={tokens['umpire']}")
            umpire.click("#publish-button")
            expect(umpire.locator("#message")).to_contain_text("naval superiority")

            page.goto(f"{url}/")
            expect(page.locator("#status")).to_contain_text("(moves)")
            assert "revealed" not in page.locator("#status").inner_text()  # the initiative did not lock the round
            frame = page.frame_locator("#map")
            expect(frame.locator(".leaflet-container").first).to_be_visible(timeout=30000)
            army = frame.locator("path.plot-key-9")
            expect(army).to_have_count(1, timeout=20000)
            army.click()  # select army 9 on the map
            expect(page.locator("#preview-orders-9")).to_contain_text("ends at Roma")
            _shot(page, "2-army-selected")
            frame.locator("path.plot-next.plot-clock-3").click()
            expect(page.locator("#orders-moves-9")).to_have_value("3")
            expect(page.locator("#preview-orders-9")).to_contain_text("10 left")
            frame.locator("path.plot-next.plot-clock-1").click()
            expect(page.locator("#orders-moves-9")).to_have_value("3 1")
            expect(page.locator("#preview-orders-9")).to_contain_text("8 left")
            expect(page.locator("#check-orders")).to_have_text("the orders are legal")
            _shot(page, "3-move-plotted")
            frame.locator("path.plot-end").click()  # a click on the end takes the last move back
            expect(page.locator("#orders-moves-9")).to_have_value("3")
            frame.locator("path.plot-next.plot-clock-1").click()
            expect(page.locator("#orders-moves-9")).to_have_value("3 1")

            page.click("#plot-orders-10")  # army 10 walks to and fro until its 12 MP are spent
            expect(page.locator("#preview-orders-10")).to_contain_text("ends at Ostia")
            for k, clock in enumerate((3, 9, 3, 9, 3, 9), 1):
                frame.locator(f"path.plot-next.plot-clock-{clock}").click()
                expect(page.locator("#preview-orders-10")).to_contain_text(f"{12 - 2 * k} left")
            frame.locator("path.plot-next.plot-clock-3").click()  # past its MP: refused at that click
            expect(page.locator("#preview-orders-10 .click-refused")).to_contain_text("only 0 of the army's 12 MP are left")
            expect(page.locator("#orders-moves-10")).to_have_value("3 9 3 9 3 9")
            _shot(page, "4-click-past-mp-refused")
            page.click("#orders-button")
            expect(page.locator("#message")).to_contain_text("orders stored (sealed) for armies 9, 10")
            expect(page.locator("#orders-moves-9")).to_have_value("3 1")
            _shot(page, "5-submitted")
            assert outside == [] and errors == []
        finally:
            browser.close()


def test_navy_at_sea_is_warned_on_the_map_before_submission(tmp_path, shared_playwright):
    """Issue 21's navy-at-sea case by clicks: army 10 embarks at Ostia and is plotted onto the
    Sea hex beyond; the page warns that its army is lost unless it debarks, before any submission."""
    require_chromium()
    from playwright.sync_api import expect

    from tests.app.test_app_orders_on_map import seaside_campaign

    path = tmp_path / "sea.duckdb"
    tokens = seaside_campaign(path)
    with running(create_app(path)) as url, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            outside: list[str] = []
            errors: list[str] = []
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            _offline(page, url, outside)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{url}/?token={tokens['roma']}")
            frame = page.frame_locator("#map")
            expect(frame.locator("path.plot-key-10")).to_have_count(1, timeout=30000)
            page.click("#plot-orders-10")
            expect(page.locator("#preview-orders-10")).to_contain_text("ends at Ostia")
            box = page.locator("#map").bounding_box()  # drag the sea out from under the legend
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 3
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + 300, y, steps=8)
            page.mouse.up()
            frame.locator("path.plot-next.plot-clock-9").click()  # embarks onto the Coast hex
            expect(page.locator("#orders-moves-10")).to_have_value("9")
            frame.locator("path.plot-next.plot-clock-9").click()  # on to the Sea hex
            expect(page.locator("#orders-moves-10")).to_have_value("9 9")
            expect(page.locator("#preview-orders-10")).to_contain_text("ends on a Sea hex")
            expect(page.locator("#warnings-orders")).to_contain_text("army 10: it ends on a Sea hex")
            expect(page.locator("#check-orders")).to_have_text("the orders are legal")
            _shot(page, "6-navy-at-sea-warned")
            assert outside == [] and errors == []
        finally:
            browser.close()
