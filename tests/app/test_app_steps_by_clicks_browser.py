"""Issue 21 items 1 and 7 for the stepped games, in headless Debian chromium (never a downloaded one):
a Magna Graecia turn and a Trossian phase played by clicks, and one turn of each province game
(Rise of Rome, Mare Nostrum) with its orders clicked on the map.  Each order is plotted with the
form's "plot on the map" button: the force chosen on the map, then the next node or province;
each click is checked by the step itself (a refused click says why, the field unchanged), the
typed field follows, and the step is sent with its button.  Screenshots of each stage go to
build/screenshots/steps-GAME-N-STAGE.png."""

from __future__ import annotations

import warnings
from pathlib import Path

import httpx
import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from bellica.app.background import running  # noqa: E402
from bellica.app.server import create_app  # noqa: E402
from tests.app.test_app_nodes import _log_len, _mg_secrets, make_mg, make_tr, sicily  # noqa: E402,F401
from tests.app.test_app_provinces import _campaign, maps  # noqa: E402,F401
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium  # noqa: E402

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


class Players:
    """The test process's one headless chromium (tests/app/conftest.py); each :meth:`page` a context of
    its own (its own cookie), offline but for the app, its page errors recorded."""

    def __init__(self, p, url: str, viewport: dict | None = None):
        self.url, self.viewport = url, viewport or {"width": 1200, "height": 900}
        self.browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        self.outside: list[str] = []
        self.errors: list[str] = []

    def page(self, token: str, viewport: dict | None = None):
        page = self.browser.new_context(viewport=viewport or self.viewport).new_page()

        def route(r):
            if r.request.url.startswith((self.url, "data:", "blob:", "about:")):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()
        page.route("**/*", route)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.goto(f"{self.url}/?token={token}")
        return page

    def close(self):
        self.browser.close()


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"steps-{name}.png"), full_page=True)


def _say(page, step: str):
    return page.locator(f"#plot-say-{step}")


def _plot(page, step: str) -> None:
    """Press the form's "plot on the map" button; the map's legend folded away (a click on its toggle)."""
    from playwright.sync_api import expect

    frame = page.frame_locator("#map")
    expect(frame.locator(".leaflet-container").first).to_be_visible(timeout=30000)
    toggle = frame.locator("button.bellica-toggle")
    if toggle.count() and toggle.get_attribute("aria-expanded") == "true":
        toggle.click()
    page.click(f"#plot-{step}")
    expect(page.locator(f"#plot-{step}")).to_have_attribute("aria-pressed", "true")
    expect(_say(page, step)).to_contain_text("next click", timeout=30000)


def _click(page, step: str, value: str) -> None:
    """Click ``value``'s target on the map as a player does: a marker where it stands, or a point
    inside its area (the map moved to it first, as a player drags it)."""
    from playwright.sync_api import expect

    frame = page.frame_locator("#map")
    target = frame.locator(f'.plot-target[data-value="{value}"]').first
    expect(target).to_be_attached(timeout=30000)
    if target.evaluate("e => e.tagName.toLowerCase()") != "path":
        target.click()
        return
    at = page.evaluate("""async ([step, value]) => {
        const m = await (await fetch('/api/step-map?step=' + encodeURIComponent(step))).json();
        for (const p of m.params) for (const t of p.targets) if (t.value === value) return t.at;
        return null; }""", [step, value])
    assert at, (step, value)
    page.locator("#map").scroll_into_view_if_needed()
    point = frame.locator("body").evaluate("""(b, at) => {
        let map = null;
        for (const k in window) { if (k.startsWith('map_')) { try { if (window[k] instanceof L.Map) map = window[k]; } catch (e) {} } }
        map.panTo(at, {animate: false});
        const p = map.latLngToContainerPoint(at), r = map.getContainer().getBoundingClientRect();
        return {x: r.left + p.x, y: r.top + p.y}; }""", at)
    box = page.locator("#map").bounding_box()
    page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])


def _send(page, step: str, expect_text: str) -> None:
    from playwright.sync_api import expect

    page.click(f"#{step}-button")
    page.wait_for_load_state()
    expect(page.locator("#message, #error").first).to_contain_text(expect_text)


def _axe_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("axe_playwright_python") is not None


def _status(url: str, token: str) -> dict:
    return httpx.get(f"{url}/api/status", headers={"Authorization": f"Bearer {token}"}).json()


# --- Magna Graecia ----------------------------------------------------------------------------------


def test_a_magna_graecia_turn_by_clicks(capsys, sicily, tmp_path, shared_playwright):  # noqa: F811
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = make_mg(capsys, sicily, tmp_path)
    with running(create_app(path)) as url, shared_playwright as p:
        b = Players(p, url)
        try:
            # On a phone (390x844): the same plot, nothing wider than the screen.
            phone = b.page(tokens["Syracuse"], viewport={"width": 390, "height": 844})
            _plot(phone, "move")
            _click(phone, "move", "38")
            _click(phone, "move", "Leontini")
            expect(phone.locator("#move-path")).to_have_value("Leontini")
            assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
            box = phone.locator("#plot-move").bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390
            _shot(phone, "390-mg-move")
            expect(phone.locator("#plot-map-note")).to_be_in_viewport()  # the engine's words above the map in sight
            phone.screenshot(path=str(SHOTS / "steps-390-mg-move-map.png"))
            phone.context.close()
            syr = b.page(tokens["Syracuse"])
            _plot(syr, "move")
            # Syracuse's own commands only are offered on the map, set side by side where they stand.
            frame = syr.frame_locator("#map")
            values = frame.locator(".plot-target").evaluate_all("es => es.map(e => e.dataset.value)")
            assert values == ["36", "37", "38", "39"]
            _shot(syr, "mg-1-choose-command")
            _click(syr, "move", "38")
            expect(syr.locator("#move-command")).to_have_value("38")
            expect(_say(syr, "move")).to_contain_text("Acrae, Helorus, Leontini")  # where it may go from Syracuse
            _click(syr, "move", "Leontini")
            expect(syr.locator("#move-path")).to_have_value("Leontini")
            expect(_say(syr, "move")).to_contain_text("the engine accepts this move as it stands")
            _shot(syr, "mg-2-path")
            # A click the rules refuse: refused at that click in the engine's words, the field unchanged.
            _click(syr, "move", "Gela")
            expect(_say(syr, "move").locator(".click-refused")).to_contain_text("no path from Leontini to Gela")
            expect(syr.locator("#move-path")).to_have_value("Leontini")
            _shot(syr, "mg-3-click-refused")
            if _axe_installed():  # the plotting page, a refused click on it, has no WCAG level-A violation
                from tests.app.test_app_axe import _violations

                assert _violations(syr) == []
            _click(syr, "move", "Catana")
            expect(syr.locator("#move-path")).to_have_value("Leontini\nCatana")
            expect(_say(syr, "move")).to_contain_text("none the engine accepts")  # its 2 MP are spent
            assert frame.locator("path.plot-path").count() == 1  # the path drawn
            _shot(syr, "mg-4-path-end")
            # The typed field stays in step: typing a path redraws the plot from it.
            syr.fill("#move-path", "Leontini")
            expect(_say(syr, "move").locator("li")).to_have_count(1)
            _click(syr, "move", "Catana")
            expect(syr.locator("#move-path")).to_have_value("Leontini\nCatana")
            syr.keyboard.press("Escape")  # the plot ends; the fields keep what the clicks wrote
            expect(syr.locator("#plot-move")).to_have_attribute("aria-pressed", "false")
            expect(syr.locator("#plot-move")).to_be_focused()
            assert frame.locator(".plot-target").count() == 0
            expect(syr.locator("#move-path")).to_have_value("Leontini\nCatana")
            _send(syr, "move", "command 38 moves Leontini -> Catana")
            _send(syr, "end-movement", "Syracuse ends its movement")
            _send(syr, "end-turn", "Carthage")
            # Carthage's player-turn, by clicks too: a command of its own to a node the engine accepts.
            car = b.page(tokens["Carthage"])
            expect(car.locator("#status")).to_contain_text("Carthage is phasing")
            _plot(car, "move")
            _click(car, "move", "40")
            expect(car.locator("#move-command")).to_have_value("40")
            first = car.frame_locator("#map").locator('.plot-target.plot-reach[data-param="path"]').first
            expect(first).to_be_attached(timeout=30000)
            goal = first.get_attribute("data-value")
            _click(car, "move", goal)
            expect(car.locator("#move-path")).to_have_value(goal)
            _shot(car, "mg-5-carthage-move")
            _send(car, "move", f"command 40 moves {goal}")
            _send(car, "end-movement", "Carthage ends its movement")
            _send(car, "end-turn", "turn 2")
            expect(car.locator("#status")).to_contain_text("turn 2 of")
            # Nothing of Syracuse's hidden forces on Carthage's page or in its previews.
            page_text = car.content() + car.frame_locator("#map").locator("body").inner_html()
            for s in _mg_secrets(path)["Syracuse"]:
                assert s not in page_text
            assert not b.outside and not b.errors, (b.outside, b.errors)
        finally:
            b.close()


# --- the Trossian campaign --------------------------------------------------------------------------


def test_a_trossian_phase_by_clicks(capsys, tmp_path, shared_playwright):
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = make_tr(capsys, tmp_path)
    with running(create_app(path)) as url, shared_playwright as p:
        b = Players(p, url)
        try:
            ump = b.page(tokens["umpire"])
            _send(ump, "next", "begins")
            rus = b.page(tokens["Russia"])
            _plot(rus, "march")
            frame = rus.frame_locator("#map")
            assert frame.locator(".plot-target").evaluate_all("es => es.map(e => e.dataset.value)") == ["1", "13"]
            _shot(rus, "tr-1-choose-army")
            _click(rus, "march", "1")
            expect(rus.locator("#march-army")).to_have_value("1")
            expect(_say(rus, "march")).to_contain_text("Bessarabia")  # a province it may march into, highlighted
            _click(rus, "march", "Bessarabia")
            expect(rus.locator("#march-path")).to_have_value("Bessarabia")
            _shot(rus, "tr-2-path")
            _click(rus, "march", "Crimea")
            expect(_say(rus, "march").locator(".click-refused")).to_contain_text("Crimea does not border Bessarabia")
            expect(rus.locator("#march-path")).to_have_value("Bessarabia")
            _shot(rus, "tr-3-click-refused")
            _send(rus, "march", "march")
            _send(rus, "done", "Russia")
            for nation in ("Ottoman Porte", "Danubian Principalities", "Crimean Khanate"):
                _send(b.page(tokens[nation]), "done", nation)
            ump.goto(f"{url}/")
            _send(ump, "next", "army 1 (Russia) marched Yedisan -> Bessarabia")  # the order clicked, carried out
            for _ in range(10):
                v = _status(url, tokens["umpire"])
                ump.goto(f"{url}/")
                if v["next_step"] == "result":
                    ump.select_option("#result-battle", str(v["battles"][0]["battle"]))
                    ump.fill("#result-winner", "Russia")  # the umpire's word for the table's result
                    _send(ump, "result", "battle")
                elif v["next_step"] == "end":
                    _send(ump, "next", "ends")
                    break
            assert _status(url, tokens["umpire"])["phase"] == "begin"
            army = next(a for a in _status(url, tokens["Russia"])["armies"] if a["army"] == 1)
            assert army["province"] == "Bessarabia", army  # it won the battle there and stays
            rus.goto(f"{url}/")
            _shot(rus, "tr-4-marched")
            assert not b.outside and not b.errors, (b.outside, b.errors)
        finally:
            b.close()


# --- the province games -------------------------------------------------------------------------


def _rome_decides(page, url: str, token: str, v: dict) -> None:
    """Rome's decision the turn waits for, by clicks (the attack and the province on the map); the
    table's result is the umpire's word (Rome wins by a Major Victory)."""
    from playwright.sync_api import expect

    step = v["next_step"]
    if step == "spend":
        _send(page, "spend", "spend")  # the defaults: everything to Civic Improvement
    elif step == "result":
        b = v["pending_battle"]
        page.fill("#result-winner", "attacker" if b["attacker"] == "Romans" else "defender")
        page.select_option("#result-margin", "major")
        _send(page, "result", "")
    elif step == "province":
        _plot(page, "province")
        first = page.frame_locator("#map").locator('.plot-target.plot-reach[data-param="province"]').first
        expect(first).to_be_attached(timeout=30000)
        chosen = first.get_attribute("data-value")
        _click(page, "province", chosen)
        expect(page.locator("#province-province")).to_have_value(chosen)
        _send(page, "province", chosen)
    else:
        _send(page, "next", "")


def test_a_rise_of_rome_turn_with_its_attack_clicked_on_the_map(capsys, maps, tmp_path, shared_playwright):  # noqa: F811
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = _campaign(capsys, maps, tmp_path, "rise-of-rome", 10)
    with running(create_app(path)) as url, shared_playwright as p:
        b = Players(p, url)
        try:
            rome = b.page(tokens["Romans"])
            _send(rome, "next", "Rome's attack")  # the engine runs the turn until Rome must decide
            targets = _status(url, tokens["Romans"])["targets"]
            assert "Samnites" in targets
            _plot(rome, "attack")
            frame = rome.frame_locator("#map")
            drawn = set(frame.locator(".plot-target").evaluate_all("es => es.map(e => e.dataset.value)"))
            assert drawn == set(targets)  # a power Rome may attack is any of its provinces on the map
            _shot(rome, "ror-1-choose-target")
            _click(rome, "attack", "Samnites")
            expect(rome.locator("#attack-target")).to_have_value("Samnites")
            expect(_say(rome, "attack")).to_contain_text("the engine accepts this attack as it stands")
            _shot(rome, "ror-2-target-clicked")
            _send(rome, "attack", "attack Samnites")
            for _ in range(30):
                v = _status(url, tokens["Romans"])
                if v["turn"] > 1:
                    break
                rome.goto(f"{url}/")
                _rome_decides(rome, url, tokens["Romans"], v)
            assert _status(url, tokens["Romans"])["turn"] == 2
            rome.goto(f"{url}/")
            _shot(rome, "ror-3-turn-2")
            assert not b.outside and not b.errors, (b.outside, b.errors)
        finally:
            b.close()


def test_a_mare_nostrum_turn_with_its_attack_clicked_on_the_map(capsys, maps, tmp_path, shared_playwright):  # noqa: F811
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = _campaign(capsys, maps, tmp_path, "mare-nostrum", 290)
    with running(create_app(path)) as url, shared_playwright as p:
        b = Players(p, url)
        try:
            ump = b.page(tokens["umpire"])
            _send(ump, "begin", "Turn 1 of 15")  # the wheels drawn from the campaign's seed
            view = _status(url, tokens["umpire"])
            assert view["acting"] == "Gauls"  # with this seed the Gauls act first
            gauls = b.page(tokens["Gauls"])
            _plot(gauls, "attack")
            _shot(gauls, "mn-1-choose-base")
            _click(gauls, "attack", "Gallia Cisalpina")
            expect(gauls.locator("#attack-base")).to_have_value("Gallia Cisalpina")
            expect(_say(gauls, "attack")).to_contain_text("highlighted on the map: Etruria")  # the one it may attack by land
            _click(gauls, "attack", "Sicilia")
            expect(_say(gauls, "attack").locator(".click-refused")).to_contain_text(
                "Sicilia cannot be reached by land from Gallia Cisalpina")
            expect(gauls.locator("#attack-into")).to_have_value("")
            _shot(gauls, "mn-2-click-refused")
            _click(gauls, "attack", "Etruria")
            expect(gauls.locator("#attack-into")).to_have_value("Etruria")
            expect(_say(gauls, "attack")).to_contain_text("the engine accepts this attack as it stands")
            _shot(gauls, "mn-3-attack-plotted")
            _send(gauls, "attack", "Gauls attacks Etruria")
            # Each nation finishes in the order of play, by the done button on its page.
            for _ in range(6):
                acting = _status(url, tokens["umpire"]).get("acting")
                if not acting:
                    break
                _send(gauls if acting == "Gauls" else b.page(tokens[acting]), "done", "has finished its actions")
            # The umpire clicks the battle's province on the map for its result, then ends the turn.
            ump.goto(f"{url}/")
            for a in _status(url, tokens["umpire"])["attacks"]:
                _plot(ump, "result")
                _click(ump, "result", a["target"])
                expect(ump.locator("#result-battle")).to_have_value(a["target"])
                ump.fill("#result-winner", "defender")  # the table's result, in the umpire's word
                _send(ump, "result", f"battle for {a['target']}")
            _send(ump, "end", "the battles and the end of the turn")
            view = _status(url, tokens["umpire"])
            assert view["turn"] == 2 and view["phase"] == "begin"
            gauls.goto(f"{url}/")
            _shot(gauls, "mn-4-turn-2")
            assert not b.outside and not b.errors, (b.outside, b.errors)
        finally:
            b.close()
