"""Issue 21, item 7: a whole Vae Victis II round played in headless Debian chromium by clicks only.

Two players and the umpire, each in their own browser context, on a small field (Roma and Ostia
against Capua, a Coast off Ostia): the initiative chosen from its list (army 10's influence in
Mare Tyrrhenum), the publication, a land move plotted on the map, army 10 embarking at Ostia and
sailing on to a second Coast hex, a sea link chosen from its list, the reveal (the last orders in),
movement, the battle's result, the navy's debarkation chosen by its own player from a list,
administration and victory.  No clock string is typed: every move is clicked on the map, each
click previewed by the engine (the process's one chromium: tests/app/conftest.py).  A screenshot
of each stage goes to
build/screenshots/vv-round-N-STAGE.png (the closing note of issue 21 cites them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bellica.app.background import running
from bellica.app.server import create_app
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


def _shot(page, name: str) -> None:
    if page.locator("#map").count():  # the map drawn in the picture, not a blank frame
        page.frame_locator("#map").locator(".leaflet-container").first.wait_for(timeout=30000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"vv-round-{name}.png"), full_page=True)


def coast_campaign(path) -> dict[str, str]:
    """The field of tests/engine/test_vv_player_choices.py in its initiative stage: its tokens."""
    from bellica.app.tokens import issue_tokens
    from tests.engine.boards import sketch
    from tests.engine.test_rounds import FIELD
    from tests.engine.test_state import make_campaign
    from tests.engine.test_vv_player_choices import COAST, PLACEMENTS

    c, _m = make_campaign(path, placements=PLACEMENTS, m=sketch(radius=4, structures=FIELD, water=COAST))
    c.start(seed=11)
    try:
        return {i.name: i.token for i in issue_tokens(c)}
    finally:
        c.close()


def _page(browser, url: str, token: str, outside: list[str], errors: list[str]):
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()

    def route(r):  # the app's pages are offline: anything not on our loopback server is refused
        if r.request.url.startswith((url, "data:", "blob:", "about:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()
    page.route("**/*", route)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/?token={token}")
    return page


def _click_hexes(page, army: int, clocks, expect) -> None:
    """Plot ``army``'s move by clicking the highlighted hexes next to its end, one clock at a time."""
    frame = page.frame_locator("#map")
    done = []
    for clock in clocks:
        frame.locator(f"path.plot-next.plot-clock-{clock}").click()
        done.append(str(clock))
        expect(page.locator(f"#orders-moves-{army}")).to_have_value(" ".join(done))


def _centre_on(page, army: int) -> None:
    """Centre the map on ``army``'s hex, so the hexes it is plotted into lie clear of the map's
    legend and layer control (a view change, no order: a drag that began on a plotted hex would
    not pan, and the click then fell on a control)."""
    h = page.evaluate("""(key) => fetch('/preview/orders', {method: 'POST', body: new URLSearchParams({key: key}),
        headers: {'X-CSRF-Token': document.querySelector('#form-orders input[name=csrf]').value,
                  'Accept': 'application/json'}}).then(r => r.json())""", str(army))["start"]  # where it stands
    lat, lng = (sum(p[i] for p in h["outline"]) / len(h["outline"]) for i in (0, 1))
    frame = next(f for f in page.frames if f.url.endswith("/map"))
    frame.evaluate("""([lat, lng]) => { for (const k in window) {
        if (k.indexOf('map_') === 0 && window[k] instanceof L.Map) window[k].setView([lat, lng], window[k].getZoom(), {animate: false});
    } }""", [lat, lng])


def _initiative(roma, carthago, umpire, expect) -> None:
    expect(roma.locator("#initiative-uses-10")).to_be_visible()  # the declared initiative step's form (issue 20)
    roma.select_option("#initiative-uses-9", "strength")
    roma.select_option("#initiative-uses-10", "Mare Tyrrhenum")  # influence: the list offers the zone
    expect(roma.locator("#check-initiative")).to_have_text("the initiative is legal")
    _shot(roma, "1-initiative-chosen")
    roma.click("#initiative-button")
    expect(roma.locator("#message")).to_contain_text("initiative stored (sealed) for armies 9, 10 until publication")
    carthago.select_option("#initiative-uses-1", "strength")
    carthago.click("#initiative-button")
    expect(carthago.locator("#message")).to_contain_text("initiative stored")
    umpire.click("#publish-button")
    expect(umpire.locator("#message")).to_contain_text("naval superiority")
    _shot(umpire, "2-initiative-published")


def _roma_orders(roma, expect) -> None:
    roma.goto(roma.url.split("?")[0])
    expect(roma.locator("#status")).to_contain_text("(moves)")
    frame = roma.frame_locator("#map")
    expect(frame.locator(".leaflet-container").first).to_be_visible(timeout=30000)
    army = frame.locator("path.plot-key-9")
    expect(army).to_have_count(1, timeout=20000)
    _centre_on(roma, 9)
    army.click()  # a land move: Roma towards Capua
    expect(roma.locator("#preview-orders-9")).to_contain_text("ends at Roma")
    _click_hexes(roma, 9, (3, 3), expect)
    expect(roma.locator("#preview-orders-9")).to_contain_text("8 left")
    _centre_on(roma, 10)
    roma.click("#plot-orders-10")  # army 10 embarks at Ostia and sails along the coast
    expect(roma.locator("#preview-orders-10")).to_contain_text("ends at Ostia")
    _click_hexes(roma, 10, (9, 11), expect)
    expect(roma.locator("#preview-orders-10")).to_contain_text("NMP")
    expect(roma.locator("#preview-orders-10")).not_to_contain_text("Sea hex")  # it ends on a Coast hex: nothing lost
    assert roma.locator("#orders-sea-10-list option").evaluate_all("os => os.map(o => o.value)") == ["Mare Tyrrhenum:Ostia"]
    roma.fill("#orders-sea-10", "Mare Tyrrhenum:Ostia")  # a sea link, the one its list offers
    expect(roma.locator("#orders-sea-10")).to_have_value("Mare Tyrrhenum:Ostia")
    expect(roma.locator("#check-orders")).to_have_text("the orders are legal")
    _shot(roma, "3-orders-plotted")
    roma.click("#orders-button")
    expect(roma.locator("#message")).to_contain_text("orders stored (sealed) for armies 9, 10")


def _carthago_orders(carthago, expect) -> None:
    carthago.goto(carthago.url.split("?")[0])
    frame = carthago.frame_locator("#map")
    army = frame.locator("path.plot-key-1")
    expect(army).to_have_count(1, timeout=30000)
    _centre_on(carthago, 1)
    army.click()
    expect(carthago.locator("#preview-orders-1")).to_contain_text("ends at Capua")
    _click_hexes(carthago, 1, (9, 9), expect)
    carthago.click("#orders-button")  # the last orders in: the round's orders are revealed and locked
    expect(carthago.locator("#message")).to_contain_text("revealed to every faction and locked")
    expect(carthago.locator("#revealed")).to_contain_text("Mare Tyrrhenum:Ostia")
    _shot(carthago, "4-revealed")


def _battle(roma, umpire, expect) -> None:
    umpire.goto(umpire.url.split("?")[0])
    umpire.click("#move-button")
    expect(umpire.locator("#message")).to_contain_text("army 10 (roma) embarked at Ostia")
    expect(umpire.locator("#engagement-1")).to_be_visible()
    _shot(umpire, "5-movement")
    umpire.select_option("#result-engagement", "1")  # the declared result step's form (step_forms)
    umpire.fill("#result-winner", "9")
    umpire.fill("#result-casualties", "9=25\n1=48")  # casualties as Field of Glory II shows them
    umpire.click("#result-button")
    expect(umpire.locator("#message")).to_contain_text("army 9 (roma) wins engagement 1")
    _shot(umpire, "6-battle-result")
    roma.goto(roma.url.split("?")[0])
    expect(roma.locator("#note-choose")).to_contain_text("not given yet")  # the declared choose step's form
    land = roma.locator("#choose-debarks-10 option[value='3']").inner_text()
    roma.select_option("#choose-debarks-10", "3")  # the player, not the umpire, says where the navy lands
    roma.click("#choose-button")
    expect(roma.locator("#message")).to_contain_text("administration choices given by roma")
    expect(roma.locator("#choose-debarks-10")).to_have_value("3")
    _shot(roma, "7-debark-chosen-by-the-player")
    return land.split(": ", 1)[1]


def _administration_and_victory(umpire, land: str, expect) -> None:
    umpire.goto(umpire.url.split("?")[0])
    expect(umpire.locator("#choosers")).to_contain_text("given by token:roma (sealed until administration)")
    expect(umpire.locator("#choosers")).to_contain_text("not given")  # carthago: nothing chosen
    _shot(umpire, "8-who-has-chosen")
    umpire.click("#administer-button")
    expect(umpire.locator("#message")).to_contain_text(f"navy 10 (roma) debarked from Ostia 9 11 into {land}")
    _shot(umpire, "9-administration")
    umpire.click("#victory-button")
    expect(umpire.locator("#status")).to_contain_text("round 2")
    _shot(umpire, "10-victory")


def test_a_whole_vae_victis_round_by_clicks_only(tmp_path, shared_playwright):
    require_chromium()
    from playwright.sync_api import expect

    path = tmp_path / "coast.duckdb"
    tokens = coast_campaign(path)
    with running(create_app(path)) as url, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            outside: list[str] = []
            errors: list[str] = []
            roma, carthago, umpire = (_page(browser, url, tokens[n], outside, errors) for n in ("roma", "carthago", "umpire"))
            _initiative(roma, carthago, umpire, expect)
            _roma_orders(roma, expect)
            _carthago_orders(carthago, expect)
            land = _battle(roma, umpire, expect)
            _administration_and_victory(umpire, land, expect)
            assert outside == [] and errors == []
        finally:
            browser.close()


def test_commit_reveal_digest_is_made_in_the_browser(tmp_path, shared_playwright):
    """Issue 21, item 4: the commit-reveal page names no command line; its own script makes the
    orders file and the engine's digest on the player's machine (only the digest is posted), and
    fills in the reveal from what the browser kept."""
    require_chromium()
    from playwright.sync_api import expect

    from bellica.engine.vae_victis.orders import parse_orders_text
    from bellica.engine.vae_victis.rounds.reveal import orders_commitment
    from tests.app.fixtures import field_campaign

    path = tmp_path / "cr.duckdb"
    tokens = field_campaign(path, orders_mode="commit-reveal")
    with running(create_app(path)) as url, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            outside: list[str] = []
            errors: list[str] = []
            for faction, moves in (("roma", {9: "3 1", 10: ""}), ("carthago", {1: "9"})):
                page = _page(browser, url, tokens[faction], outside, errors)
                assert "bellica round" not in page.content()
                for army, text in moves.items():
                    page.fill(f"#commit-moves-{army}", text)
                page.click("#cr-new-secret")
                page.click("#cr-make")
                expect(page.locator("#cr-said")).to_contain_text("digest made here")
                file, secret = page.locator("#cr-file").input_value(), page.locator("#commit-secret").input_value()
                digest = orders_commitment(dict(parse_orders_text(file, "the page's file").orders), secret)
                expect(page.locator("#commit-digest")).to_have_value(digest)  # the engine's digest, made in the browser
                if faction == "roma":
                    _shot(page, "cr-1-digest-made-in-the-browser")
                page.click("#commit-button")
                expect(page.locator("#message")).to_contain_text(f"{faction} commits to its round 1 orders")
            page.goto(f"{url}/")
            expect(page.locator("#reveal-orders-orders")).to_have_value(file)  # kept by this browser, filled in
            expect(page.locator("#reveal-orders-secret")).to_have_value(secret)
            page.click("#reveal-orders-button")
            expect(page.locator("#message")).to_contain_text("carthago reveals")
            assert outside == [] and errors == []
        finally:
            browser.close()


def test_a_strait_is_crossed_by_one_click(tmp_path, shared_playwright):
    """Issue 21, item 3: the land across the strait off Ostia is highlighted beside the army's other
    neighbours; one click on it gives the crossing's two clock moves, previewed as one step."""
    require_chromium()
    from playwright.sync_api import expect

    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds

    path = tmp_path / "strait.duckdb"
    tokens = coast_campaign(path)
    with Campaign.open(path) as c:
        rounds.publish_initiative(c)
    with running(create_app(path)) as url, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            outside: list[str] = []
            errors: list[str] = []
            roma = _page(browser, url, tokens["roma"], outside, errors)
            expect(roma.frame_locator("#map").locator("path.plot-key-10")).to_have_count(1, timeout=30000)
            _centre_on(roma, 10)
            roma.click("#plot-orders-10")
            expect(roma.locator("#preview-orders-10")).to_contain_text("ends at Ostia")
            roma.frame_locator("#map").locator("path.plot-cross-9-7").click()
            expect(roma.locator("#orders-moves-10")).to_have_value("9 7")
            expect(roma.locator("#preview-orders-10")).to_contain_text("clock 9: Ostia 7 9 (across the strait at Ostia 9)")
            expect(roma.locator("#preview-orders-10")).to_contain_text("crossed the strait at Ostia 9 into Ostia 7 9")
            expect(roma.locator("#check-orders")).to_have_text("the orders are legal")
            _shot(roma, "strait-crossed-by-a-click")
            assert outside == [] and errors == []
        finally:
            browser.close()
