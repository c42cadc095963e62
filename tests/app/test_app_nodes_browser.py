"""Magna Graecia and the Trossian campaign played through browsers (headless Debian chromium) against
`bellica serve` on a real uvicorn, as tests/app/test_app_provinces_browser.py plays the province games.

Both games have the generic page of their declared steps (bellica/app/step_forms.py).

(a) Magna Graecia: Syracuse's, Carthage's and the umpire's browsers play a turn to a battle's result:
    Syracuse marches on the neutral city of Morgantina and attacks it (it joins Carthage), a move
    of Carthage's out of turn is refused on its page (nothing stored), the umpire enters the
    alliance die rolled at the table, Syracuse ends its movement, Carthage chooses the defence,
    the umpire enters the result with the losses, and the retreat and end of turn follow; no
    page or map of Carthage's carries Syracuse's element counts or its fleet's naval points.
(b) Trossian (the generic page of its declared steps, bellica/app/step_forms.py): Russia's and the
    Ottomans' browsers and the umpire's play a phase in which Russia's courier carries a sealed
    message (never on the Ottomans' or the umpire's page), a bad order is refused with what was
    typed kept, and the umpire carries the orders out and ends the phase; every field has its
    label, and a reload after a step never takes it again.
"""

from __future__ import annotations

import html
import json
import warnings

import httpx
import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from bellica.app.background import running  # noqa: E402
from bellica.app.server import create_app  # noqa: E402
from tests.app.test_app_nodes import _log_len, _mg_secrets, make_mg, make_tr, sicily  # noqa: E402,F401
from tests.app.test_app_provinces_browser import Browser  # noqa: E402
from tests.web_maps.browser import require_chromium  # noqa: E402

pytestmark = pytest.mark.browser


def _status(url: str, token: str) -> dict:
    return httpx.get(f"{url}/api/status", headers={"Authorization": f"Bearer {token}"}).json()


def _act(page, step: str, fields: dict[str, str] | None = None, *, expect_text: str | None = None):
    """Fill the form of ``step`` on ``page`` (inputs and selects by their ids) and send it."""
    from playwright.sync_api import expect

    for name, value in (fields or {}).items():
        loc = page.locator(f"#{step}-{name}".replace("(", "\\(").replace(")", "\\)"))
        if loc.evaluate("el => el.tagName") == "SELECT":
            loc.select_option(value)
        else:
            loc.fill(value)
    page.click(f"#{step}-button")
    page.wait_for_load_state()
    if expect_text:
        expect(page.locator("#message, #error").first).to_contain_text(expect_text)


def test_magna_graecia_turn_to_a_battle_result_in_three_browsers(capsys, sicily, tmp_path, shared_playwright):  # noqa: F811
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = make_mg(capsys, sicily, tmp_path)
    with running(create_app(path)) as url, shared_playwright as p:
        b = Browser(p, url)
        try:
            syr, car, ump = b.page(tokens["Syracuse"]), b.page(tokens["Carthage"]), b.page(tokens["umpire"])
            expect(syr.locator("#status")).to_contain_text("Syracuse is phasing (view of Syracuse)")
            assert car.locator("#form-move").count() == 0
            # Syracuse marches on Morgantina (the command chosen among its own, the path one node a line).
            own = syr.locator("#move-command option").all_inner_texts()
            assert "38" in own and "40" not in own  # Syracuse's command, not Carthage's
            expect(syr.locator("#move-path-hint")).to_contain_text("one a line, from: Acrae")
            _act(syr, "move", {"command": "38", "path": "Leontini\nMorgantina"},
                 expect_text="command 38 moves Leontini -> Morgantina")
            _act(syr, "attack-city", {"node": "Morgantina"}, expect_text="joins Carthage")
            # Carthage cannot act out of its turn: a forged post is refused on its page, nothing stored.
            n = _log_len(path)
            r = httpx.post(f"{url}/step/end-movement",
                           headers={"Authorization": f"Bearer {tokens['Carthage']}"})
            assert r.status_code == 409 and "Syracuse's turn" in html.unescape(r.text)
            assert _log_len(path) == n
            # The umpire enters the alliance die rolled at the table; Syracuse ends its movement.
            ump.reload()
            _act(ump, "roll", {"label": "alliance/1/Morgantina/Syracuse", "value": "1"},
                 expect_text="alliance/1/Morgantina/Syracuse: 1")
            _act(syr, "end-movement", expect_text="Syracuse ends its movement")
            expect(syr.locator("#status")).to_contain_text("land battle at Morgantina")
            # Carthage (Morgantina's ally) chooses the defence in its browser.
            car.reload()
            expect(car.locator("#form-defence")).to_be_visible()
            _act(car, "defence", {"node": "Morgantina", "defence": "central"}, expect_text="central defence")
            # The umpire enters the table's result: a typo is refused with the text kept, then the losses.
            ump.reload()
            _act(ump, "result", {"node": "Morgantina", "winner": "Syracuse", "losses": "38:LH(O)"}, expect_text="give ELEMENT=N")
            expect(ump.locator("#result-losses")).to_have_value("38:LH(O)")
            _act(ump, "result", {"node": "Morgantina", "winner": "Syracuse", "losses": "38:LH(O)=1\n25:Sp(I)=2"},
                 expect_text="the battle at Morgantina is entered: Syracuse wins")
            v = _status(url, tokens["umpire"])
            for r0 in v["retreats"]:
                ump.reload()
                _act(ump, "retreat", {"command": str(r0["command"]), "path": r0["open_paths"][0]}, expect_text="retreats")
            syr.reload()
            _act(syr, "end-turn", expect_text="Carthage")
            expect(syr.locator("#status")).to_contain_text("Carthage is phasing")
            car.reload()
            expect(car.locator("#form-move")).to_be_visible()
            # Secrets: Carthage's page and map never carry Syracuse's elements or naval points.
            secrets = _mg_secrets(path)
            page_text = car.content() + car.frame_locator("#map").locator("body").inner_html()
            for s in secrets["Syracuse"]:
                assert s not in html.unescape(page_text)
            assert not b.outside and not b.errors, (b.outside, b.errors)
        finally:
            b.close()


def test_trossian_phase_with_a_courier_in_three_browsers(capsys, tmp_path, shared_playwright):
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = make_tr(capsys, tmp_path)
    secret = "Hold the Dniester line until May"
    with running(create_app(path)) as url, shared_playwright as p:
        b = Browser(p, url)
        try:
            rus, ott, ump = b.page(tokens["Russia"]), b.page(tokens["Ottoman Porte"]), b.page(tokens["umpire"])
            _act(ump, "next", expect_text="begins")
            assert "/turn?said=" in ump.url  # Post/Redirect/Get: a reload shows the page, never sends the step again
            n = _log_len(path)
            ump.reload()
            assert _log_len(path) == n
            rus.reload()
            # Every input of the step forms (made from the declared parameters) has its label.
            unlabelled = rus.evaluate("() => [...document.querySelectorAll('form.step :is(input, select, textarea)')]"
                                      ".filter(e => e.type !== 'hidden' && !(e.labels && e.labels.length)).map(e => e.id)")
            assert rus.locator("form.step").count() >= 4 and unlabelled == [], unlabelled
            # A bad order: refused on the page, what was typed kept.
            _act(rus, "march", {"army": "1", "path": "Atlantis"}, expect_text="'Atlantis' is not a province")
            expect(rus.locator("#march-path")).to_have_value("Atlantis")
            _act(rus, "courier", {"courier": "74", "action": "send", "message": secret, "to": "army 1"},
                 expect_text="courier")
            expect(rus.locator("#status")).to_contain_text(secret)
            _act(rus, "done", expect_text="Russia")
            ott.reload()
            assert secret not in ott.content()
            _act(ott, "done", expect_text="Ottoman Porte")
            for n in ("Danubian Principalities", "Crimean Khanate"):
                r = httpx.post(f"{url}/step/done", headers={"Authorization": f"Bearer {tokens[n]}"})
                assert r.status_code == 303
            ump.reload()
            _act(ump, "next", expect_text="orders are carried out")
            for _ in range(10):
                v = _status(url, tokens["umpire"])
                if v["next_step"] == "result":
                    ump.reload()
                    _act(ump, "result", {"battle": str(v["battles"][0]["battle"]), "winner": "draw"}, expect_text="battle")
                elif v["next_step"] == "end":
                    ump.reload()
                    _act(ump, "next", expect_text="ends")
                    break
            assert _status(url, tokens["umpire"])["phase"] == "begin"
            for pg in (ott, ump):
                pg.reload()
                assert secret not in pg.content()
                assert secret not in pg.frame_locator("#map").locator("body").inner_html()
            assert json.dumps(_status(url, tokens["Ottoman Porte"])).find(secret) < 0
            assert not b.outside and not b.errors, (b.outside, b.errors)
        finally:
            b.close()
