"""Issue 21 item 7, accessibility: axe-core (bundled by the PyPI package axe-playwright-python, so
nothing is downloaded at test time) finds no violation of WCAG level A (tags wcag2a, wcag21a) on
the players' and the umpire's pages of a Vae Victis campaign (the initiative stage, the moves stage,
a refused form, the battles phase) and of a Magna Graecia campaign, in headless Debian chromium; the
Magna Graecia pages at 390x844 too (no field cut: build/screenshots/forms-390-mg-*.png)."""

from __future__ import annotations

import pytest

from bellica.app.background import running
from bellica.app.server import create_app
from tests.app.fixtures import field_campaign
from tests.app.test_app_nodes import sicily  # noqa: F401 (the fixture)
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.browser
LEVEL_A = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag21a"]}, "resultTypes": ["violations"]}


def _violations(page) -> list[str]:
    """axe's level-A violations of ``page`` as lines (rule, impact, the first elements hit)."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options=LEVEL_A).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}" for v in found]


def _check(browser, url: str, token: str, name: str, then=None, *, phone: bool = False) -> list[str]:
    """axe's findings on the viewer's page (after ``then``); ``phone``: at 390x844, every field fitting."""
    from tests.app.test_app_forms_browser import PHONE, _fields_fit

    page = browser.new_page(viewport=PHONE) if phone else browser.new_page()
    page.goto(f"{url}/?token={token}")
    if then is not None:
        then(page)
    if phone:
        _fields_fit(page, name.replace(" ", "-"), some=False)
    page.frame_locator("#map").locator("body").first.wait_for(timeout=30000) if page.locator("#map").count() else None
    out = [f"{name}: {v}" for v in _violations(page)]
    page.close()
    return out


def test_vae_victis_pages_have_no_level_a_violation(tmp_path, shared_playwright):
    require_chromium()
    pytest.importorskip("axe_playwright_python")

    path, early = tmp_path / "field.duckdb", tmp_path / "init.duckdb"
    tokens, first = field_campaign(path), field_campaign(early, publish=False)

    def refused(page):
        page.fill("#orders-moves-9", "3 3 q")
        page.click("#orders-button")
        page.locator("#error").wait_for()  # the declared orders step refused: every problem said
    with running(create_app(path)) as url, running(create_app(early)) as url0, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            found = (_check(browser, url0, first["roma"], "initiative (roma)")
                     + _check(browser, url0, first["umpire"], "initiative (umpire)")
                     + _check(browser, url, tokens["roma"], "moves (roma)")
                     + _check(browser, url, tokens["roma"], "refused orders (roma)", refused)
                     + _check(browser, url, tokens["umpire"], "moves (umpire)"))
            found += _battles(browser, url, tokens)
        finally:
            browser.close()
    assert found == []


def _battles(browser, url: str, tokens) -> list[str]:
    """The battles phase: the umpire's result form (a refused result kept) and a player's retreat buttons."""
    for who, moves in (("roma", "3 3"), ("carthago", "9 9")):
        page = browser.new_page()
        page.goto(f"{url}/?token={tokens[who]}")
        page.fill(f"#orders-moves-{9 if who == 'roma' else 1}", moves)
        page.click("#orders-button")
        page.locator("#message").wait_for()
        page.close()

    def moved(page):
        page.click("#move-button")
        page.locator("#engagement-1").wait_for()
        page.fill("#result-casualties", "9=250")  # the declared step's form (step_forms): refused, kept
        page.click("#result-button")
        page.locator("#error").wait_for()
    return _check(browser, url, tokens["umpire"], "battles (umpire)", moved) + \
        _check(browser, url, tokens["roma"], "battles (roma)")


def test_magna_graecia_pages_have_no_level_a_violation(capsys, sicily, tmp_path, shared_playwright):  # noqa: F811
    require_chromium()
    pytest.importorskip("axe_playwright_python")

    from tests.app.test_app_nodes import make_mg

    path, tokens = make_mg(capsys, sicily, tmp_path)
    with running(create_app(path)) as url, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            found = [v for who, token in sorted(tokens.items())
                     for v in _check(browser, url, token, f"mg {who}", phone=True)]
        finally:
            browser.close()
    assert found == []
