"""`bellica serve` on province campaigns: Rise of Rome and Mare Nostrum on the page of declared steps
(bellica/app/step_forms.py, from engine/rise_of_rome/steps.py and engine/mare_nostrum/steps.py): a
Rise of Rome turn played by Rome's player through the app, a Mare Nostrum turn with a nation's action
and an out-of-turn refusal, the authorisation matrix of both (Rome's choices its player's alone, the
umpire running the engine and entering results; a nation acting for itself only, in its turn), and
Rome clicking through a turn in headless chromium.

The maps are the real ones (the scenarios' bboxes at res 5 and 4, built once for the module);
the campaigns are made with `bellica campaign new --scenario ...` as the CLI tests make them.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")  # starlette 1.x nudges towards httpx2; httpx is pinned

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import _access_of, create_app  # noqa: E402
from tests.cli.test_mare_nostrum_cli import WHEELS  # noqa: E402
from tests.cli.test_rise_of_rome_cli import bellica  # noqa: E402

JSON = {"Accept": "application/json"}


@pytest.fixture(scope="module")
def maps(tmp_path_factory, scenario_map):
    """The two scenarios' maps (built once a run: tests/conftest.py scenario_map)."""
    folder = tmp_path_factory.mktemp("province-maps")
    scenario_map("rise-of-rome", folder / "italy5.duckdb")
    scenario_map("mare-nostrum", folder / "mn4.duckdb", res=4)
    return folder


#: (scenario, seed) -> the started campaign :func:`_campaign` made first in this test process.
_STARTED: dict[tuple[str, int], Path] = {}


def _campaign(capsys, maps, tmp_path, scenario: str, seed: int) -> tuple:
    """A started campaign of ``scenario`` with its app tokens: (path, {name: token}).  `campaign new`
    and `turn start` run once a test process for a scenario and seed (1-2 s of CPU; a dozen tests
    ask for four), the file copied after; the tokens are issued for each test's own copy."""
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign

    path = tmp_path / f"{scenario}.duckdb"
    first = _STARTED.get((scenario, seed))
    if first is not None and first.is_file():
        shutil.copyfile(first, path)
    else:
        map_path = maps / ("italy5.duckdb" if scenario == "rise-of-rome" else "mn4.duckdb")
        code, _out, err = bellica(capsys, "campaign", "new", "--scenario", scenario, "--map", map_path, "--out", path, "-q")
        assert code == 0, err
        code, _out, err = bellica(capsys, "turn", "start", path, "--seed", seed)
        assert code == 0, err
        _STARTED[scenario, seed] = shutil.copyfile(path, maps / f"{scenario}-started-{seed}.duckdb")
    with Campaign.open(path) as c:
        return path, {i.name: i.token for i in issue_tokens(c)}


@pytest.fixture
def rome(capsys, maps, tmp_path):
    return _campaign(capsys, maps, tmp_path, "rise-of-rome", 348)


@pytest.fixture
def mare(capsys, maps, tmp_path):
    return _campaign(capsys, maps, tmp_path, "mare-nostrum", 290)


def client(path, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(create_app(path), headers=headers)


def _cli(capsys, path, *args) -> str:
    _access_of(path).release()  # the app holds the file between requests: let the in-process CLI open it
    code, out, err = bellica(capsys, *args)
    assert code == 0, (args, err)
    return out


def _ids_unique(text: str) -> str:
    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), sorted(i for i in set(ids) if ids.count(i) > 1)
    return text


def _message(r) -> str:
    """What the step told its taker, on the page it landed on (unescaped)."""
    assert 'id="message"' in r.text, r.text[:2000]
    return html.unescape(r.text.split('id="message">', 1)[1].split("</div>", 1)[0])


def _error(r) -> str:
    assert 'id="error"' in r.text, r.text[:2000]
    return html.unescape(r.text.split('id="error"', 1)[1].split("</div>", 1)[0])


#: Steps open at any time (a die rolled at the table, entered before it is needed): not the decision now.
ANY_TIME = {"roll"}


def _forms(page: str) -> list[str]:
    """The steps a page offers a form for (but those open at any time)."""
    return [s for s in re.findall(r'<form method="post" action="/step/([^"]+)"', page) if s not in ANY_TIME]


# --- Rise of Rome ---------------------------------------------------------------------------------


def _rome_decides(rome, view: dict):
    """Rome's decision as the forms post it: attacks the poorest neighbour, half its free revenue to
    Attack; defends with a fifth; wins its battles narrowly; takes provinces by the seed's rule."""
    step = view["next_step"]
    if step == "attack":
        revenue = {p["power"]: p["revenue"] or 0 for p in view["powers"]}
        if not view["targets"]:
            return rome.post("/step/attack", data={"none": "on"})
        return rome.post("/step/attack", data={"target": min(view["targets"], key=lambda t: (revenue[t], t))})
    if step == "spend":
        free = view["rome_free"]
        if any(a["player"] for a in view["plan"]):
            return rome.post("/step/spend", data={"attack": str(free // 2), "defence": "", "civic": ""})
        return rome.post("/step/spend", data={"defence": str(free // 5), "civic": str(free - free // 5)})
    if step == "result":
        b = view["pending_battle"]
        winner = "attacker" if b["attacker"] == "Romans" else "defender"
        return rome.post("/step/result", data={"battle": str(b["index"]), "winner": winner, "margin": "minor"})
    if step == "province":
        return rome.post("/step/province", data={"by_rule": "on"})
    raise AssertionError(f"unexpected step {step}")


def test_a_rise_of_rome_turn_played_through_the_app_to_the_next_turn(rome, capsys):
    path, tokens = rome
    romans = client(path, tokens["Romans"])
    r = romans.get("/")
    assert r.status_code == 200 and re.search(r"<title>bellica: [^<]*, Romans</title>", r.text), r.text[:500]
    assert "turn 1 of 12, phase revenue" in r.text and 'id="next-button"' in r.text and 'src="/map"' in r.text
    assert _forms(r.text) == ["next"]
    r = romans.post("/step/next")
    assert r.status_code == 200 and "== Turn 1 of 12: 348 to 341 BC" in _message(r) and _forms(r.text) == ["attack"]
    view = romans.get("/api/status").json()
    assert view["next_step"] == "attack" and "Samnites" in view["targets"]
    # The page offers the powers Rome may attack, as the status lists them.
    offered = re.findall(r'<option value="([^"]*)"', r.text.split('id="attack-target"', 1)[1].split("</select>")[0])
    assert offered == ["", *view["targets"]]
    # The app's status is `bellica turn status --json`'s.
    assert json.loads(_cli(capsys, path, "turn", "status", path, "--json")) == view
    r = romans.post("/step/attack", data={"target": "Samnites"})
    assert r.status_code == 200 and "Rome's decision" in _message(r) and "Samnites" in _message(r)
    view = romans.get("/api/status").json()
    assert view["next_step"] == "spend" and _forms(romans.get("/").text) == ["spend"]
    # A spending over the revenue is the engine's refusal, on the page (400), nothing stored.
    r = romans.post("/step/spend", data={"attack": str(view["rome_free"] + 1)})
    assert r.status_code == 400 and "is more than the" in _error(r) and _forms(r.text) == ["spend"]
    assert f'value="{view["rome_free"] + 1}"' in r.text  # what was typed is kept
    seen, decisions = set(), 0
    while view["turn"] == 1:
        if view["next_step"] in ("revenue", "rulers", "attacks", "battles", "end"):
            r = romans.post("/step/next")
        else:
            seen.add(view["next_step"])
            r = _rome_decides(romans, view)
            decisions += 1
        assert r.status_code == 200, r.text[:2000]
        view = romans.get("/api/status").json()
        _ids_unique(romans.get("/").text)
        assert decisions < 20
    assert {"spend", "result"} <= seen  # Rome's battle was played on the table and its result entered here
    assert view["turn"] == 2 and view["next_step"] in ("attack", "spend")
    page = romans.get("/").text
    assert "turn 2 of 12" in page and "Turn 1, phase 6: end of the turn" in page.split('id="log"', 1)[1]
    # The steps the app took are the CLI's own: the log re-adjudicates.
    out = _cli(capsys, path, "round", "verify", path, "--readjudicate")
    assert "re-adjudicated from the scenario give the same" in out


# --- Mare Nostrum ---------------------------------------------------------------------------------


def test_a_mare_nostrum_nation_acts_in_its_turn_and_is_refused_out_of_it(mare):
    path, tokens = mare
    umpire, romans, gauls = (client(path, tokens[n]) for n in ("umpire", "Romans", "Gauls"))
    page = umpire.get("/").text
    assert re.search(r"<title>bellica: [^<]*, umpire</title>", page) and 'id="begin-button"' in page
    assert {"lottery", "begin", "next"} <= set(_forms(page)) and _forms(romans.get("/").text) == []
    for wheel, numbers in WHEELS.items():
        r = umpire.post("/step/lottery", data={"wheel": wheel, "numbers": "\n".join(map(str, numbers))})
        assert r.status_code == 200 and f"for turn 1: {' '.join(map(str, numbers))}" in _message(r)
    r = umpire.post("/step/lottery", data={"label": "siege/1/Africa", "numbers": "70"})
    assert r.status_code == 200 and "the number for siege/1/Africa: 70" in _message(r)
    _ids_unique(r.text)
    r = umpire.post("/step/begin")
    assert r.status_code == 200 and "Turn 1 of 15" in _message(r)
    assert "order of play: Romans (MI 88), Carthaginians (BA 75)" in r.text
    page = _ids_unique(romans.get("/").text)
    assert {"peace", "build", "attack", "naval", "grain", "done"} <= set(_forms(page))
    assert "artworks" not in _forms(page) and "destroy" not in _forms(page)  # no event of the Romans' gives them
    page = gauls.get("/").text
    assert _forms(page) == [] and 'id="waiting"' in page and "Romans acts" in page.split('id="next"', 1)[1]
    # The acting nation's action.
    r = romans.post("/step/build", data={"work": "fortification", "province": "Latium", "sea": ""})
    assert r.status_code == 200 and "Romans builds a fortification in Latium" in _message(r)
    # Out of turn: the engine refuses (409) with its message, on the nation's page and as JSON.
    r = gauls.post("/step/build", data={"work": "suburbs", "province": "Celtica"})
    assert r.status_code == 409 and "it is Romans' turn to act, not Gauls'" in _error(r)
    r = gauls.post("/step/grain", headers=JSON)
    assert r.status_code == 409 and "turn to act" in r.json()["error"]
    # Another nation's token never acts for the one whose turn it is; nor does the umpire.
    r = gauls.post("/step/grain", data={"nation": "Romans"})
    assert r.status_code == 403 and "acts for Gauls only, not for Romans" in _error(r)
    r = umpire.post("/step/grain")
    assert r.status_code == 403 and "the umpire takes none" in _error(r)
    # A bad input is 400 and stores nothing.
    r = romans.post("/step/build", data={"work": "castle", "province": "Latium"})
    assert r.status_code == 400 and "castle" in _error(r)
    r = romans.post("/step/done", headers=JSON)
    assert r.status_code == 200 and any("has finished its actions" in t for t in r.json()["said"])
    view = romans.get("/api/status").json()
    assert view["acting"] == "Carthaginians"
    assert romans.post("/step/grain").status_code == 409  # the Romans' turn is over
    # The others finish; the umpire enters the battles' results and ends the turn.
    for nation in [o["nation"] for o in view["order"]][1:]:
        r = client(path, tokens[nation]).post("/step/done")
        assert r.status_code == 200, r.text[:2000]
    page = _ids_unique(umpire.get("/").text)
    assert {"result", "end"} <= set(_forms(page))
    waiting = [a["target"] for a in umpire.get("/api/status").json()["attacks"]]
    offered = re.findall(r'<option value="([^"]*)"', page.split('id="result-battle-list"', 1)[1].split("</datalist>")[0])
    assert offered == waiting and waiting
    r = umpire.post("/step/end")
    assert r.status_code == 409 and "awaits its result" in _error(r)
    for target in waiting:
        r = umpire.post("/step/result", data={"battle": target, "winner": "defender"})
        assert r.status_code == 200 and f"battle for {target}" in _message(r)
    r = umpire.post("/step/end")
    assert r.status_code == 200 and "the battles and the end of the turn" in _message(r)
    view = umpire.get("/api/status").json()
    assert view["phase"] == "begin" and view["turn"] == 2


def test_a_form_that_succeeds_redirects_so_a_reload_sends_nothing_again(mare):
    path, tokens = mare
    umpire, romans = client(path, tokens["umpire"]), client(path, tokens["Romans"])
    r = umpire.post("/step/next", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/turn?said=")
    view = umpire.get("/api/status").json()
    acting = client(path, tokens[view["acting"]])
    r = acting.post("/step/grain", follow_redirects=False)
    assert r.status_code == 303
    where = r.headers["location"]
    for _ in range(2):  # the page it lands on, shown twice (a reload): one grain distribution
        page = acting.get(where)
        assert page.status_code == 200 and "Grain Distribution" in _message(page)
    used = {n["nation"]: n["used"] for n in umpire.get("/api/status").json()["nations"]}
    assert used[view["acting"]] == 1
    # another token's page shows no message for that key; a key unknown shows the page without one
    other = romans if view["acting"] != "Romans" else client(path, tokens["Gauls"])
    assert 'id="message"' not in other.get(where).text
    assert 'id="message"' not in acting.get("/turn?said=nope").text
    # refusals answer at once with the page and the error (no redirect), JSON as before
    r = other.post("/step/grain", follow_redirects=False)
    assert r.status_code == 409 and 'id="error"' in r.text
    assert other.get("/turn", headers={"Authorization": ""}).status_code == 401


def _ids_left_out(page: bytes) -> str:
    """A map page without the random ids folium gives its elements."""
    return re.sub(r"_[0-9a-f]{32}", "_ID", page.decode())


def test_the_map_beside_a_page_draws_the_view_the_page_read(mare, monkeypatch):
    """The map page loaded beside a player's page draws the player view that page made at the same
    log head (bellica/app/server.py _view_for_map): the view is made once for the two, the map is what
    `bellica render map --faction` draws, and a step, or another viewer, makes a view of its own."""
    from bellica.engine.core.stepped import SteppedRuleset
    from bellica.services.maps import render_map

    path, tokens = mare
    made = []
    real = SteppedRuleset.player_view

    def counted(self, c, viewer):
        made.append(viewer)
        return real(self, c, viewer)

    monkeypatch.setattr(SteppedRuleset, "player_view", counted)
    romans = client(path, tokens["Romans"])
    assert romans.get("/").status_code == 200 and made == ["Romans"]
    drawn = romans.get("/map")
    assert drawn.status_code == 200 and made == ["Romans"], made
    _access_of(path).release()  # the app holds the file between requests: let render_map open it
    expected = render_map(path, path.with_name("romans.html"), faction="Romans")
    assert made == ["Romans", "Romans"]
    assert _ids_left_out(drawn.content) == _ids_left_out(expected.read_bytes())
    gauls = client(path, tokens["Gauls"]).get("/map")
    assert made[-1] == "Gauls" and "view of Gauls" in gauls.text and "view of Romans" not in gauls.text
    assert client(path, tokens["umpire"]).post("/step/next", follow_redirects=False).status_code == 303
    before = len(made)
    assert romans.get("/map").status_code == 200 and made[before:] == ["Romans"]


# --- who may do what --------------------------------------------------------------------------------


def _matrix(path, tokens, roles, endpoints) -> dict:
    got: dict[str, dict[str, int]] = {}
    for role, token in roles.items():
        c = client(path, token)
        got[role] = {}
        for name, method, url, form in endpoints:
            r = c.get(url) if method == "GET" else c.post(url, data=form)
            got[role][name] = r.status_code
    return got


ROR_ENDPOINTS = [
    ("home", "GET", "/", None),
    ("map", "GET", "/map", None),
    ("status", "GET", "/api/status", None),
    ("steps", "GET", "/api/steps", None),
    ("next", "POST", "/step/next", {}),  # at Rome's decision: nothing to run
    ("attack", "POST", "/step/attack", {"target": "Nobody"}),
    ("spend", "POST", "/step/spend", {"attack": "1"}),
    ("province", "POST", "/step/province", {"province": "Latium"}),
    ("result", "POST", "/step/result", {"battle": "1", "winner": "attacker", "margin": "minor"}),
    ("sql", "POST", "/umpire/sql", {"query": "SELECT count(*) AS n FROM ror_control"}),
    ("old-attack", "POST", "/turn/attack", {"target": "none"}),  # the hand-written forms' paths are gone
    ("act", "POST", "/turn/act", {"action": "grain"}),  # Mare Nostrum's old path
    ("orders", "POST", "/orders", {"moves-1": ""}),  # Vae Victis'
]
_GONE = {"old-attack": 404, "act": 404, "orders": 404}
ROR_EXPECTED = {
    "none": {**dict.fromkeys([n for n, *_ in ROR_ENDPOINTS], 401), **_GONE},
    "wrong": {**dict.fromkeys([n for n, *_ in ROR_ENDPOINTS], 401), **_GONE},
    "Romans": {"home": 200, "map": 200, "status": 200, "steps": 200, "next": 200, "attack": 400, "spend": 409,
               "province": 409, "result": 409, "sql": 403, **_GONE},
    "Samnites": {"home": 200, "map": 200, "status": 200, "steps": 200, "next": 403, "attack": 403, "spend": 403,
                 "province": 403, "result": 403, "sql": 403, **_GONE},
    "umpire": {"home": 200, "map": 200, "status": 200, "steps": 200, "next": 200, "attack": 403, "spend": 403,
               "province": 403, "result": 409, "sql": 200, **_GONE},
}


def test_rise_of_rome_authorisation_matrix(rome, capsys):
    path, tokens = rome
    assert client(path, tokens["umpire"]).post("/step/next").status_code == 200  # to Rome's attack
    before = client(path, tokens["umpire"]).get("/api/status").json()
    assert before["next_step"] == "attack"
    roles = {"none": None, "wrong": "nope", "Romans": tokens["Romans"], "Samnites": tokens["Samnites"],
             "umpire": tokens["umpire"]}
    assert _matrix(path, tokens, roles, ROR_ENDPOINTS) == ROR_EXPECTED
    assert client(path, tokens["umpire"]).get("/api/status").json() == before  # nothing was stored
    # Rome's page offers its attack; the umpire's only what it may take (nothing to run now); the
    # other powers' pages follow the campaign without forms.
    assert _forms(client(path, tokens["Romans"]).get("/").text) == ["attack"]
    assert _forms(client(path, tokens["umpire"]).get("/").text) == []
    samnites = client(path, tokens["Samnites"])
    page = samnites.get("/").text
    assert _forms(page) == [] and 'id="waiting"' in page and samnites.get("/api/steps").json() == []
    r = samnites.post("/step/attack", data={"none": "on"})
    assert "the attack is Rome's decision, made by the Romans' token: the Samnites' player (the engine plays them)" \
        in _error(r)
    r = client(path, tokens["umpire"]).post("/step/spend", data={"civic": "1"}, headers=JSON)
    assert r.status_code == 403 and r.json()["error"].startswith("the spending is Rome's decision")
    # The command line refuses a power the engine plays in the same words; the keyboard is Rome's.
    _access_of(path).release()
    code, _out, err = bellica(capsys, "turn", "attack", path, "--none", "--power", "Samnites")
    assert code == 1 and "the attack is Rome's decision" in err
    code, _out, err = bellica(capsys, "turn", "province", path, "--by-rule", "--power", "Romans")
    assert code == 3, err  # Rome's own, but not now: the position refuses it


MN_ENDPOINTS = [
    ("home", "GET", "/", None),
    ("map", "GET", "/map", None),
    ("status", "GET", "/api/status", None),
    ("act", "POST", "/step/build", {"work": "castle", "province": "Latium"}),
    ("act-for-romans", "POST", "/step/build", {"work": "castle", "province": "Latium", "nation": "Romans"}),
    ("turn", "POST", "/step/end", {}),
    ("lottery", "POST", "/step/lottery", {"wheel": "XX", "numbers": "1"}),
    ("result", "POST", "/step/result", {"battle": "Latium", "winner": "attacker"}),
    ("sql", "POST", "/umpire/sql", {"query": "SELECT count(*) AS n FROM mn_control"}),
    ("old-act", "POST", "/turn/act", {"action": "grain"}),  # the hand-written forms' path is gone
    ("spend", "POST", "/turn/spend", {"attack": "1"}),  # Rise of Rome's old path
    ("step", "POST", "/umpire/step", {"step": "move"}),  # Vae Victis'
]
_MN_GONE = {"old-act": 404, "spend": 404, "step": 404}
MN_EXPECTED = {
    "none": {**dict.fromkeys([n for n, *_ in MN_ENDPOINTS], 401), **_MN_GONE},
    "wrong": {**dict.fromkeys([n for n, *_ in MN_ENDPOINTS], 401), **_MN_GONE},
    "Romans": {"home": 200, "map": 200, "status": 200, "act": 400, "act-for-romans": 400, "turn": 403, "lottery": 403,
               "result": 403, "sql": 403, **_MN_GONE},
    "Gauls": {"home": 200, "map": 200, "status": 200, "act": 409, "act-for-romans": 403, "turn": 403, "lottery": 403,
              "result": 403, "sql": 403, **_MN_GONE},
    "umpire": {"home": 200, "map": 200, "status": 200, "act": 403, "act-for-romans": 403, "turn": 409, "lottery": 400,
               "result": 409, "sql": 200, **_MN_GONE},
}


def test_mare_nostrum_authorisation_matrix(mare):
    path, tokens = mare
    umpire = client(path, tokens["umpire"])
    assert umpire.post("/step/next").status_code == 200  # turn 1 begins (seeded draw)
    before = umpire.get("/api/status").json()
    assert before["acting"] == before["order"][0]["nation"]
    acting = before["acting"]
    other = next(n for n in ("Gauls", "Seleucids") if n != acting)
    roles = {"none": None, "wrong": "nope", acting: tokens[acting], other: tokens[other], "umpire": tokens["umpire"]}
    endpoints = [(n, m, u, ({**f, "nation": acting} if n == "act-for-romans" else f)) for n, m, u, f in MN_ENDPOINTS]
    expected = {({"Romans": acting, "Gauls": other}.get(k, k)): v for k, v in MN_EXPECTED.items()}
    assert _matrix(path, tokens, roles, endpoints) == expected
    assert umpire.get("/api/status").json() == before  # nothing was stored
    # what each may take now, as JSON: the acting nation its actions, the other nothing, the umpire the turn's
    steps = {who: {s["step"] for s in client(path, tokens[who]).get("/api/steps").json()}
             for who in (acting, other, "umpire")}
    assert {"build", "grain", "done"} <= steps[acting] and steps[other] == set()
    assert steps["umpire"] == {"lottery"}


# --- in a browser ---------------------------------------------------------------------------------


@pytest.mark.browser
def test_rome_clicks_through_a_turn_in_the_browser(rome, shared_playwright):
    from playwright.sync_api import expect

    from bellica.app.background import running
    from tests.web_maps.browser import CHROMIUM, CHROMIUM_ARGS

    path, tokens = rome
    with running(create_app(path)) as url, shared_playwright as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            outside: list[str] = []
            errors: list[str] = []

            def route(r):  # offline: anything not on our loopback server is refused
                if r.request.url.startswith((url, "data:", "blob:", "about:")):
                    r.continue_()
                else:
                    outside.append(r.request.url)
                    r.abort()
            page.route("**/*", route)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"{url}/?token={tokens['Romans']}")
            assert page.url == f"{url}/"
            expect(page.locator("#status")).to_contain_text("turn 1 of 12, phase revenue")
            page.click("#next-button")
            expect(page.locator("#message")).to_contain_text("Turn 1 of 12: 348 to 341 BC")
            page.select_option("#attack-target", "Samnites")
            page.click("#attack-button")
            expect(page.locator("#message")).to_contain_text("Rome's decision")
            page.fill("#spend-attack", "10")
            page.click("#spend-button")
            expect(page.locator("#message")).to_contain_text("10 Attack")
            for _ in range(20):  # the battles and the end of the turn: Rome wins what it plays on the table
                if page.locator("#status").inner_text().startswith("turn 2"):
                    break
                if page.locator("#next-button").count():
                    page.click("#next-button")
                elif page.locator("#result-button").count():
                    page.fill("#result-winner", "attacker")
                    page.click("#result-button")
                elif page.locator("#province-button").count():
                    page.check("#province-by_rule")
                    page.click("#province-button")
                elif page.locator("#attack-button").count():
                    break  # turn 2's attack is asked for: the turn is over
                page.wait_for_load_state()
            expect(page.locator("#status")).to_contain_text("turn 2 of 12")
            expect(page.frame_locator("#map").locator(".leaflet-container").first).to_be_visible(timeout=20000)
            assert outside == [] and errors == []
        finally:
            browser.close()
