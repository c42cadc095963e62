"""The province games played through browsers (headless Debian chromium) against `bellica serve` on a
real uvicorn, as tests/app/test_app_browser.py plays the hex game, on the page of declared steps
(bellica/app/step_forms.py: a form per step the viewer may take now, its fields offering the values
the ruleset's ``choices`` gives).

(a) Rise of Rome: Rome's player, in its browser, plays a turn in which it is attacked twice and
    wins a battle that leaves it a choice of provinces: the page offers the Defense split against
    each attacker and the provinces Rome may take, and what the player picks is what the campaign
    records; it plays on to Rome's next decision.
(b) Mare Nostrum: the umpire's browser and two nations' browsers: each nation sees its own action
    forms only in its turn of the order of play, acts in that order, a nation acting out of turn is
    refused on its page (nothing stored), the umpire enters a battle's result and ends the turn; and
    no page, status or map a nation may read carries another nation's token or the campaign's seed
    (which would tell the lottery numbers not yet drawn), the only things the open game keeps
    private (docs/rules/mare-nostrum.md, "What each player sees"); a form that succeeds lands on
    a GET page (Post/Redirect/Get), so reloading it takes no action twice.

The maps are the real ones (the scenarios' bboxes at res 5 and 4), built once for the module; the
campaigns are made with `bellica campaign new --scenario ...` as the CLI tests make them.
"""

from __future__ import annotations

import json
import re
import warnings

import httpx
import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from bellica.app.background import running  # noqa: E402
from bellica.app.server import _access_of, create_app  # noqa: E402
from tests.app.test_app_provinces import _campaign, maps  # noqa: E402,F401  (the module's map fixture)
from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium  # noqa: E402

pytestmark = pytest.mark.browser

#: Rise of Rome: with this seed and turn 1 played as :func:`_rome_turn_one` plays it, Rome is attacked
#: by the Etruscans and the Samnites in turn 2 and its win leaves it a choice of provinces.
ROR_SEED = 10


class Browser:
    """One headless chromium; each :meth:`page` a context of its own (its own cookie), offline but for
    the app, its page errors and refused requests recorded."""

    def __init__(self, p, url: str):
        self.url = url
        self.browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        self.outside: list[str] = []
        self.errors: list[str] = []

    def page(self, token: str):
        page = self.browser.new_context().new_page()

        def route(r):
            if r.request.url.startswith((self.url, "data:", "blob:", "about:")):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()
        page.route("**/*", route)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.goto(f"{self.url}/?token={token}")
        assert page.url == f"{self.url}/"  # the token left the address bar for a cookie
        return page

    def close(self):
        self.browser.close()


def _status(url: str, token: str) -> dict:
    return httpx.get(f"{url}/api/status", headers={"Authorization": f"Bearer {token}"}).json()


# --- Rise of Rome --------------------------------------------------------------------------------


def _rome_turn_one(path) -> None:
    """Turn 1 played through the engine (the browser plays turn 2): Rome attacks its poorest
    neighbour with half its free revenue and a quarter to Defense, wins every battle played on the
    table by a Major Victory and takes provinces by the seed's rule."""
    from bellica.engine.rise_of_rome.steps import rome_spending
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.rise_of_rome import ruleset as ror

    with Campaign.open(path) as c:
        rome = c.board.player
        for _ in range(30):
            ror.play_until_decision(c)
            v = ror.turn_view(c)
            if v.turn > 1:
                return
            if v.next_step == "attack":
                revenue = {q["power"]: q["revenue"] or 0 for q in v.powers}
                ror.give_attack(c, min(v.targets, key=lambda t: (revenue[t], t)) if v.targets else None)
            elif v.next_step == "spend":
                attacking = any(a.attacker == rome for a in v.plan)
                ror.give_spending(c, rome_spending(c, v.rome_free // 2 if attacking else 0, v.rome_free // 4, None,
                                                   names=("attack", "defence")))
            elif v.next_step == "result":
                b = v.pending_battle
                ror.enter_result(c, b["index"], "attacker" if b["attacker"] == rome else "defender", True)
            elif v.next_step == "province":
                ror.choose_province(c, None)
        raise AssertionError("turn 1 did not end")


def _recorded(path, turn: int) -> tuple[dict | None, list[tuple]]:
    """(the Defense split noted for ``turn``, the provinces chosen in it) as the campaign stores them."""
    from bellica.engine.core.campaign import Campaign

    access = _access_of(path)
    # Under the app's lock: the page's own requests (its map, its status) would otherwise reopen the
    # file read-write between the release and this read-only open, which DuckDB refuses in one process.
    with access.lock:
        access.release()
        with Campaign.open(path, read_only=True) as c:
            snap = c.snapshot()
            split = snap.note(turn, "defence_split")
            chosen = sorted((b, k, p) for (t, b, k), (_t, _b, _k, p) in snap.tables["ror_province_choices"].items()
                            if t == turn)
    return split, chosen


def test_rome_splits_its_defence_and_chooses_its_province_in_the_browser(capsys, maps, tmp_path, shared_playwright):  # noqa: F811
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = _campaign(capsys, maps, tmp_path, "rise-of-rome", ROR_SEED)
    _rome_turn_one(path)
    with running(create_app(path)) as url, shared_playwright as p:
        b = Browser(p, url)
        try:
            page = b.page(tokens["Romans"])
            expect(page.locator("#status")).to_contain_text("turn 2 of 12")
            if page.locator("#next-button").count():
                page.click("#next-button")
            # Rome's attack: the page offers the neighbours it may attack; the player picks one.
            view = _status(url, tokens["Romans"])
            assert view["turn"] == 2 and view["next_step"] == "attack"
            offered = page.locator("#attack-target option").evaluate_all("os => os.map(o => o.value)")
            assert offered == ["", *view["targets"]]
            revenue = {q["power"]: q["revenue"] or 0 for q in view["powers"]}
            target = min(view["targets"], key=lambda t: (revenue[t], t))
            page.select_option("#attack-target", target)
            page.click("#attack-button")
            expect(page.locator("#message")).to_contain_text("Rome's decision")

            # Rome's spending: attacked twice, the page offers the Defense against each attack.
            view = _status(url, tokens["Romans"])
            on_rome = [a["attacker"] for a in view["plan"] if a["target"] == "Romans"]
            assert view["next_step"] == "spend" and len(on_rome) == 2, view["plan"]
            offered = page.locator("#spend-defence_split-list option").evaluate_all("os => os.map(o => o.value)")
            assert offered == [f"{attacker}=" for attacker in on_rome]
            free = view["rome_free"]
            attack, defence = free // 2, free // 4
            first = defence - defence // 3                  # most of it against the first attack
            page.fill("#spend-attack", str(attack))
            page.fill("#spend-defence", str(defence))
            page.fill("#spend-defence_split", f"{on_rome[0]}={first},{on_rome[1]}={defence - first}")
            page.click("#spend-button")
            expect(page.locator("#message")).to_contain_text(
                f"Defense {first} against {on_rome[0]}, {defence - first} against {on_rome[1]}")
            split, _ = _recorded(path, 2)
            assert split == {"Romans": {on_rome[0]: first, on_rome[1]: defence - first}}

            # The battles: Rome wins what it plays on the table; where it may take one of several
            # provinces the page offers exactly those, and the one picked is the one recorded.
            picked = []
            for _ in range(30):
                view = _status(url, tokens["Romans"])
                if view["turn"] > 2:
                    break
                step = view["next_step"]
                if step == "result":
                    battle = view["pending_battle"]
                    side = "attacker" if battle["attacker"] == "Romans" else "defender"
                    page.fill("#result-winner", side)
                    page.select_option("#result-margin", "major")
                    page.click("#result-button")
                    expect(page.locator("#message")).to_contain_text(f"battle {battle['index']}")
                elif step == "province":
                    q = view["pending_province"]
                    options = page.locator("#province-province-list option").evaluate_all("os => os.map(o => o.value)")
                    assert options == q["options"] and len(q["options"]) > 1
                    choice = q["options"][-1]
                    page.fill("#province-province", choice)
                    page.click("#province-button")
                    expect(page.locator("#message")).to_contain_text(f"the province taken, {choice}")
                    picked.append((q["battle"], q["kind"], choice))
                elif step in ("attack", "spend"):
                    break
                else:
                    page.click("#next-button")
                    page.wait_for_load_state()
            assert picked, "no choice of provinces was offered"
            _, chosen = _recorded(path, 2)
            assert chosen == sorted(picked)
            # The next decision: turn 3's attack (or its spending), asked for on the page.
            view = _status(url, tokens["Romans"])
            assert view["turn"] == 3 and view["next_step"] in ("attack", "spend")
            expect(page.locator("#status")).to_contain_text("turn 3 of 12")
            expect(page.locator("#attack-button, #spend-button").first).to_be_visible()
            # The other powers' pages follow the campaign without forms.
            samnites = b.page(tokens["Samnites"])
            expect(samnites.locator("#waiting")).to_contain_text("nothing for your power to do now")
            assert samnites.locator("form[action^='/step']").count() == 0
            assert b.outside == [] and b.errors == []
        finally:
            b.close()
    _access_of(path).release()
    from tests.cli.test_rise_of_rome_cli import bellica

    code, out, err = bellica(capsys, "round", "verify", path, "--readjudicate")
    assert code == 0 and "re-adjudicated from the scenario give the same" in out, err
    assert _held(path, [c for _b, _k, c in picked]) == "Romans"


def _held(path, provinces: list[str]) -> str | None:
    """The one holder of ``provinces`` now (None if they differ)."""
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(path, read_only=True) as c:
        control = c.snapshot().tables["ror_control"]
        holders = {control[(p,)][1] for p in provinces}
    return holders.pop() if len(holders) == 1 else None


# --- Mare Nostrum --------------------------------------------------------------------------------

#: Turn 1's draw: order Romans, Carthaginians, Macedonians, Ptolemaics, Seleucids, Gauls; the
#: Seleucids' event brings the Attalid invasion of Phrygia (a battle for the umpire to enter).
MN_WHEELS = {"MI": (88, 57, 14, 3, 61), "BA": (75, 47, 22, 9, 30), "FI": (61, 78, 5, 40, 2),
             "GE": (44, 53, 70, 18, 6), "NA": (30, 38, 20, 77, 51), "CA": (12, 83, 64, 25, 89)}
MN_SEED = 290


def test_mare_nostrum_umpire_and_two_nations_play_a_turn_in_their_browsers(capsys, maps, tmp_path, shared_playwright):  # noqa: F811
    require_chromium()
    from playwright.sync_api import expect

    path, tokens = _campaign(capsys, maps, tmp_path, "mare-nostrum", MN_SEED)
    with running(create_app(path)) as url, shared_playwright as p:
        b = Browser(p, url)
        try:
            umpire = b.page(tokens["umpire"])
            romans = b.page(tokens["Romans"])
            carthage = b.page(tokens["Carthaginians"])
            game = "bellica: Mare Nostrum: the Mediterranean, 290-140 BC"  # the scenario's title
            assert umpire.title() == f"{game}, umpire" and romans.title() == f"{game}, Romans"
            expect(romans.locator("#waiting")).to_be_visible()  # no nation acts before the turn begins
            # The umpire enters the real draw, wheel by wheel, then begins the turn.
            for wheel, numbers in MN_WHEELS.items():
                umpire.fill("#lottery-wheel", wheel)
                umpire.fill("#lottery-numbers", "\n".join(map(str, numbers)))
                umpire.click("#lottery-button")
                expect(umpire.locator("#message")).to_contain_text(f"for turn 1: {' '.join(map(str, numbers))}")
            # Before the turn begins no nation has forms.
            romans.reload()
            assert romans.locator("#form-build").count() == 0
            umpire.click("#begin-button")
            expect(umpire.locator("#message")).to_contain_text("Turn 1 of 15")
            expect(umpire.locator("#status")).to_contain_text("order of play: Romans (MI 88), Carthaginians (BA 75)")
            assert umpire.locator("#form-build").count() == 0  # the umpire takes no nation's actions

            # Each nation sees its own page: the Romans, first in the order, their forms; the
            # Carthaginians, second, a wait.
            romans.reload()
            carthage.reload()
            expect(romans.locator("#next")).to_contain_text("Romans acts")
            expect(romans.locator("#form-peace")).to_be_visible()
            expect(carthage.locator("#waiting")).to_contain_text("nothing for your nation to do now")
            expect(carthage.locator("#next")).to_contain_text("Romans acts")
            assert carthage.locator("#form-build").count() == 0
            # Out of turn: the Carthaginians' form kept from an earlier page (its session's CSRF
            # check value with it) is refused on their page.
            carthage.evaluate("""() => { const f = document.createElement('form'); f.method = 'post';
                f.action = '/step/grain'; f.id = 'forged';
                const csrf = document.querySelector('input[name=csrf]').value;
                for (const [k, v] of [['csrf', csrf]]) { const i = document.createElement('input');
                  i.type = 'hidden'; i.name = k; i.value = v; f.appendChild(i); }
                document.body.appendChild(f); f.submit(); }""")
            expect(carthage.locator("#error")).to_contain_text("it is Romans' turn to act, not Carthaginians'")
            assert _status(url, tokens["umpire"])["nations"][0]["used"] == 0  # nothing stored

            # The Romans act: an alliance with invaders (the page offers only the provinces invaders
            # threaten that another nation holds), then a land attack.
            from bellica.engine.mare_nostrum.scenario import default_scenario

            scenario = default_scenario()
            threatened = [q for q in dict.fromkeys(i.province for i in scenario.invaders)
                          if scenario.provinces[q].nation not in (None, "Romans")]
            offered = romans.locator("#ally-against-list option").evaluate_all("os => os.map(o => o.value)")
            assert offered == threatened and "Latium" not in offered
            romans.fill("#ally-against", "Judaea")
            romans.click("#ally-button")
            expect(romans.locator("#message")).to_contain_text("against Judaea")
            # the page the form lands on is a GET (Post/Redirect/Get): reloading it sends nothing again
            assert "/turn?said=" in romans.url
            romans.reload()
            expect(romans.locator("#message")).to_contain_text("against Judaea")
            assert next(n for n in _status(url, tokens["umpire"])["nations"] if n["nation"] == "Romans")["used"] == 1
            romans.fill("#attack-base", "Bruttium")
            romans.fill("#attack-into", "Sicilia")
            romans.click("#attack-button")
            expect(romans.locator("#message")).to_contain_text("Romans attacks Sicilia")
            # Their two actions spent, a third is refused on the page.
            romans.click("#grain-button")
            expect(romans.locator("#error")).to_contain_text("no action left this turn (2 used)")
            romans.click("#done-button")
            expect(romans.locator("#message")).to_contain_text("has finished its actions")
            assert romans.locator("#form-build").count() == 0  # its turn is over: no forms

            # The Carthaginians' turn: their forms now; they build and finish.
            carthage.goto(f"{url}/")  # (not a reload: that would send the refused form again)
            expect(carthage.locator("#next")).to_contain_text("Carthaginians acts")
            carthage.fill("#build-work", "fortification")
            carthage.fill("#build-province", "Africa")
            carthage.click("#build-button")
            expect(carthage.locator("#message")).to_contain_text("Carthaginians builds a fortification in Africa")
            # peace only on the nations after them in the order: the Romans, before, are not offered
            offered = carthage.locator("#peace-partner option").evaluate_all("os => os.map(o => o.value)")
            assert offered == [o["nation"] for o in _status(url, tokens["umpire"])["order"][2:]]
            carthage.select_option("#peace-partner", "Macedonians")
            carthage.click("#peace-button")
            expect(carthage.locator("#message")).to_contain_text("peace on Macedonians")
            carthage.click("#done-button")
            expect(carthage.locator("#message")).to_contain_text("has finished its actions")

            # The nations without a browser here finish from theirs (as the CLI would take them).
            view = _status(url, tokens["umpire"])
            for o in view["order"][2:]:
                r = httpx.post(f"{url}/step/done", data={},
                               headers={"Authorization": f"Bearer {tokens[o['nation']]}", "Accept": "application/json"})
                assert r.status_code == 200, r.text

            # The umpire enters each battle's result and ends the turn.
            umpire.reload()
            view = _status(url, tokens["umpire"])
            assert view["phase"] == "battles" and {a["target"] for a in view["attacks"]} >= {"Sicilia", "Phrygia"}
            for a in view["attacks"]:
                offered = umpire.locator("#result-battle-list option").evaluate_all("os => os.map(o => o.value)")
                assert a["target"] in offered
                umpire.fill("#result-battle", a["target"])
                umpire.fill("#result-winner", "attacker" if a["target"] == "Sicilia" else "defender")
                umpire.click("#result-button")
                expect(umpire.locator("#message")).to_contain_text(f"battle for {a['target']}")
            umpire.click("#end-button")
            expect(umpire.locator("#message")).to_contain_text("the battles and the end of the turn")
            view = _status(url, tokens["umpire"])
            assert view["turn"] == 2 and view["phase"] == "begin"
            romans.reload()
            expect(romans.locator("#status")).to_contain_text("turn 2 of 15")

            # What a nation may read carries no token and not the campaign's seed.
            for nation, page in (("Romans", romans), ("Carthaginians", carthage)):
                page.reload()
                texts = {"page": page.content(),
                         "status": json.dumps(_status(url, tokens[nation])),
                         "map": httpx.get(f"{url}/map", headers={"Authorization": f"Bearer {tokens[nation]}"}).text}
                for what, text in texts.items():
                    for other, token in tokens.items():  # its own included: that lives in its cookie
                        assert token not in text, (nation, what, other)
                    assert not re.search(r"\bseed\b", text, re.IGNORECASE), (nation, what)
                # and the umpire's console is refused
                r = httpx.post(f"{url}/umpire/sql", data={"query": "SELECT * FROM campaign"},
                               headers={"Authorization": f"Bearer {tokens[nation]}"})
                assert r.status_code == 403
            assert b.outside == [] and b.errors == []
        finally:
            b.close()
