"""`bellica serve` on Magna Graecia and Trossian campaigns (bellica/app/nodes.py): each role's page,
the forms calling the engine (a Magna Graecia turn to a battle's result; a Trossian phase with a
courier), every refusal (out of turn 409, bad input 400 with what was typed kept, another role's
form 403, nothing stored), Post/Redirect/Get, and the secrets: no side's page, JSON or map holds
another side's element counts, naval points, orders, couriers' messages or treasury, nor any token
or the seed.  The campaigns are made as `bellica campaign new` makes them (Sicily at res 6; the
Trossian scenario's map at res 4, built once per session by tests/engine/trossian/campaign_file.py).
"""

from __future__ import annotations

import html
import json
import re
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import _access_of, create_app  # noqa: E402
from tests.cli.test_rise_of_rome_cli import bellica  # noqa: E402

JSON = {"Accept": "application/json"}
MG_SEED = 4242
TR_SEED = 8181


@pytest.fixture(scope="module")
def sicily(tmp_path_factory, scenario_map):
    """The scenario's map (built once a run: tests/conftest.py scenario_map)."""
    return scenario_map("magna-graecia/dionysian", tmp_path_factory.mktemp("mg-app") / "sicily6.duckdb")


def _tokens(path) -> dict[str, str]:
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(path) as c:
        return {i.name: i.token for i in issue_tokens(c)}


def make_mg(capsys, sicily, tmp_path):
    path = tmp_path / "dionysian.duckdb"
    code, _o, err = bellica(capsys, "campaign", "new", "--scenario", "magna-graecia/dionysian", "--map", sicily,
                           "--out", path, "-q")
    assert code == 0, err
    code, _o, err = bellica(capsys, "magna-graecia", "start", path, "--seed", MG_SEED)
    assert code == 0, err
    return path, _tokens(path)


def make_tr(capsys, tmp_path):
    from tests.engine.trossian.campaign_file import fresh_campaign

    base = tmp_path.parent / "trossian-base"  # the base campaign is made once per session (campaign_file)
    base.mkdir(exist_ok=True)
    path = fresh_campaign(base, tmp_path / "trossian.duckdb")
    code, _o, err = bellica(capsys, "trossian", "start", path, "--seed", TR_SEED)
    assert code == 0, err
    return path, _tokens(path)


@pytest.fixture
def mg(capsys, sicily, tmp_path):
    return make_mg(capsys, sicily, tmp_path)


@pytest.fixture
def tr(capsys, tmp_path):
    return make_tr(capsys, tmp_path)


def client(path, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(create_app(path), headers=headers, follow_redirects=False)


def _ids_unique(html: str) -> str:
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted(i for i in set(ids) if ids.count(i) > 1)
    return html


def _log_len(path) -> int:
    from bellica.engine.core.campaign import Campaign

    _access_of(path).release()
    with Campaign.open(path, read_only=True) as c:
        return len(list(c.events()))


def _post(cl, url, data, status=303):
    r = cl.post(url, data=data)
    assert r.status_code == status, (url, data, r.status_code, r.text[:3000])
    if status == 303:
        assert r.headers["location"].startswith("/turn?said=")
        page = cl.get(r.headers["location"])
        assert page.status_code == 200
        return T(page)
    return T(r)


def T(r) -> str:
    """A response's text with its HTML entities read (an apostrophe is &#x27; in the page)."""
    return html.unescape(r.text)


def _no_secrets(text: str, tokens: dict[str, str], seed: int, *, is_map: bool = False) -> None:
    """No token, and not the seed (on a map, whose coordinates hold every run of digits: not beside "seed")."""
    for t in tokens.values():
        assert t not in text
    pattern = rf"seed\W{{0,12}}{seed}(?!\d)" if is_map else rf"(?<!\d){seed}(?!\d)"
    assert not re.search(pattern, text), f"the seed {seed} shows"


# --- Magna Graecia ---------------------------------------------------------------------------------------


def _mg_secrets(path) -> dict[str, list[str]]:
    """Per side, strings that only it (and the umpire) may read: its commands' element lines and its fleet's NP."""
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.magna_graecia.ruleset import view

    _access_of(path).release()
    out: dict[str, list[str]] = {}
    with Campaign.open(path, read_only=True) as c:
        v = view(c)
        kinds: dict[str, set[str]] = {}
        for x in v["counters"]:
            kinds.setdefault(x.get("side") or "", set()).update(k for k, n in x["elements"].items() if n)
            if x.get("side"):
                out.setdefault(x["side"], []).append(f"#{x['id']} {x['side']}")
        for f in v["fleets"]:
            out.setdefault(f["side"], []).append(f"fleet, {f['np']} NP")
        for side in out:  # element kinds only this side fields (neither the cities nor another side)
            others = set().union(*(k for s, k in kinds.items() if s != side))
            out[side] += sorted(kinds.get(side, set()) - others)
    return out


def _check_mg_secrets(path, tokens, cls) -> None:
    secrets = _mg_secrets(path)
    for side, cl in cls.items():
        page, js, mp = cl.get("/").text.replace("&#x27;", "'"), cl.get("/api/status").text, cl.get("/map").text
        _no_secrets(page + js, tokens, MG_SEED)
        _no_secrets(mp, tokens, MG_SEED, is_map=True)
        for other, strings in secrets.items():
            for s in strings:
                assert (s in page) == (other == side), (side, other, s)
                if other != side:
                    assert s not in mp and s not in js, (side, other, s)
        for x in json.loads(js)["counters"]:
            assert ("elements" in x) == (x.get("side") == side and x["owner"] == side)
        for f in json.loads(js)["fleets"]:
            assert ("np" in f) == (f["side"] == side)


def test_mg_pages_turn_to_a_battle_result_and_refusals(mg):
    path, tokens = mg
    syr, car, ump = client(path, tokens["Syracuse"]), client(path, tokens["Carthage"]), client(path, tokens["umpire"])
    page = _ids_unique(T(syr.get("/")))
    assert ", Syracuse</title>" in page and 'id="form-move"' in page and 'id="form-end-movement"' in page
    assert 'id="map"' in page and "can reach" in page
    cpage = _ids_unique(T(car.get("/")))
    assert 'id="form-move"' not in cpage and "nothing for your side to do now" in cpage
    upage = _ids_unique(T(ump.get("/")))
    assert 'id="form-roll"' in upage and 'id="sql"' in upage and "Cv(O) + 8 Sp(O)" in upage
    _check_mg_secrets(path, tokens, {"Syracuse": syr, "Carthage": car})

    n = _log_len(path)
    # Out of turn (the CLI's exit 3): 409 on the page, nothing stored.
    r = car.post("/step/move", data={"command": "40", "path": "Solus"})
    assert r.status_code == 409 and "it is Syracuse's turn, not Carthage's" in T(r) and "refused, nothing stored" in T(r)
    # Bad input (exit 1): 400, one line, what was typed kept.
    r = syr.post("/step/move", data={"command": "38", "path": "Leontini\nAtlantis"})
    assert r.status_code == 400 and "'Atlantis' is not a place" in T(r)
    assert ">Leontini\nAtlantis</textarea>" in T(r)
    r = syr.post("/step/exchange", data={"giver": "36", "taker": "37", "elements": "Sp(O)=x"})
    assert r.status_code == 400 and "ELEMENT=N" in T(r) and ">Sp(O)=x</textarea>" in T(r)
    r = syr.post("/step/move", data={"command": "thirty-eight", "path": "Leontini"})
    assert r.status_code == 400 and "is not a whole number" in T(r) and 'value="thirty-eight"' in T(r)
    # The rules refuse it (exit 3): a path that is not one.
    r = syr.post("/step/move", data={"command": "38", "path": "Morgantina"})
    assert r.status_code == 409 and "no path from Syracuse to Morgantina" in T(r)
    # Another role's step: 403.
    r = syr.post("/step/roll", data={"label": "alliance/1/Morgantina/Syracuse", "value": "1"})
    assert r.status_code == 403
    r = ump.post("/step/end-movement")
    assert r.status_code == 403 and "the umpire takes none" in T(r)
    r = syr.post("/step/end-movement", data={"side": "Carthage"})
    assert r.status_code == 403 and "acts for Syracuse only" in T(r)
    r = syr.post("/step/result", data={"node": "Gela", "winner": "Syracuse"})
    assert r.status_code == 403
    r = syr.post("/step/warp")
    assert r.status_code == 400 and "has no step 'warp'" in T(r)
    r = ump.post("/step/fleet-battle", data={"node": "Gela"})
    assert r.status_code == 409 and "movement phase" in T(r)
    r = ump.post("/step/result", data={"node": "Gela", "winner": "Syracuse"})
    assert r.status_code == 409
    r = ump.post("/step/move", data={"command": "38", "path": "Leontini"})
    assert r.status_code == 403
    r = syr.post("/step/defence", data={"node": "Gela", "defence": "central"})
    assert r.status_code == 409
    assert _log_len(path) == n

    # Syracuse marches on Morgantina, attacks the neutral city (it joins Carthage); the umpire enters the
    # alliance die rolled at the table (a 1: it stays Carthage's); end of movement: a battle.
    page = _post(syr, "/step/move", {"command": "38", "path": "Leontini\nMorgantina"})
    assert "command 38 moves Leontini -> Morgantina" in page and 'id="message"' in page
    page = _post(syr, "/step/attack-city", {"node": "Morgantina"})
    assert "joins Carthage" in page
    _post(ump, "/step/roll", {"label": "alliance/1/Morgantina/Syracuse", "value": "1"})
    r = ump.post("/step/roll", data={"label": "alliance/1/Morgantina/Syracuse", "value": "9"})
    assert r.status_code == 400 and "from 1 to 6" in T(r)
    page = _post(syr, "/step/end-movement", {})
    assert "battle at Morgantina" in page
    # Reloading the redirected page does not send the step again.
    n = _log_len(path)
    assert syr.get("/").status_code == 200 and _log_len(path) == n

    cpage = T(car.get("/"))
    assert 'id="form-defence"' in cpage
    r = car.post("/step/defence", data={"node": "Morgantina", "defence": "sideways"})
    assert r.status_code == 400
    _post(car, "/step/defence", {"node": "Morgantina", "defence": "central"})
    upage = T(ump.get("/"))
    assert 'id="form-result"' in upage
    r = ump.post("/step/result", data={"node": "Morgantina", "winner": "Syracuse", "losses": "oops"})
    assert r.status_code == 400 and "COMMAND:ELEMENT=N" in T(r) and ">oops</textarea>" in T(r)
    page = _post(ump, "/step/result", {"node": "Morgantina", "winner": "Syracuse", "losses": "38:LH(O)=1\n25:Sp(I)=2"})
    assert "the battle at Morgantina is entered: Syracuse wins" in page
    _check_mg_secrets(path, tokens, {"Syracuse": syr, "Carthage": car})
    # A retreat owed is the umpire's (a city's own command) or its owner's; then Syracuse ends its turn.
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.magna_graecia.ruleset import view

    for _ in range(4):
        _access_of(path).release()
        with Campaign.open(path, read_only=True) as c:
            v = view(c)
        if not v["retreats"]:
            break
        r0 = v["retreats"][0]
        _post(ump, "/step/retreat", {"command": str(r0["command"]), "path": r0["open_paths"][0]})
    page = _post(syr, "/step/end-turn", {})
    assert "Carthage is phasing" in page
    assert 'id="form-move"' in T(car.get("/"))
    code = json.loads(syr.get("/api/status").text)
    assert code["phasing"] == "Carthage" and code["viewer"] == "Syracuse"
    r = ump.post("/umpire/sql", data={"query": "SELECT count(*) AS n FROM mg_commands"})
    assert r.status_code == 303 and 'id="sql-result"' in T(ump.get(r.headers["location"]))  # Post/Redirect/Get
    assert syr.post("/umpire/sql", data={"query": "SELECT 1"}).status_code == 403
    _access_of(path).release()
    code, _o, err = bellica_verify(path)
    assert code == 0, err


def bellica_verify(path):
    from bellica.cli import main

    try:
        main(["round", "verify", str(path), "--readjudicate"])
    except SystemExit as e:
        return (e.code if isinstance(e.code, int) else 1), "", str(e)
    return 0, "", ""


def _two_sided_battle(path) -> tuple[str, list[str], list[str]]:
    """Play the scripted policy (bellica.demo_magna_graecia) until a land battle with a side on each
    part is due: (node, [the two sides], [the defending sides])."""
    from bellica.demo_magna_graecia import march, resolve_battles
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.magna_graecia.battles import camps
    from bellica.engine.magna_graecia.ruleset import play, state_of

    _access_of(path).release()
    with Campaign.open(path) as c:
        for _ in range(60):
            side = march(c, {"Syracuse": "Motya", "Carthage": "Syracuse"})
            play(c, "end_movement", {"side": side})
            s = state_of(c.snapshot())
            for b in s.battles:
                att, dfn = camps(s, b)
                if b.kind == "land" and any(x.side for x in att) and any(x.side for x in dfn):
                    return (b.node, sorted({s.owner(x) for x in att + dfn if x.side}),
                            sorted({s.owner(x) for x in dfn if x.side}))
            resolve_battles(c)
            play(c, "end_turn", {"side": side})
    raise AssertionError("the scripted policy met no battle of two sides")


def _unsaid(text: str) -> str:
    """The page without the words every page may hold (the next step's words, the form's options)."""
    for s in ("stay or retire", "stay-or-retire", '"retire"', ">retire<", "stay|retire"):
        text = text.replace(s, "")
    return text


def test_mg_second_day_is_sealed_until_both_wrote(mg):
    """An undecided battle: each side's stay/retire is sealed from the other side and the umpire
    until both have written one; a second order from one side is refused."""
    path, tokens = mg
    node, (a, b), defenders = _two_sided_battle(path)
    cl = {s: client(path, tokens[s]) for s in (a, b)}
    ump = client(path, tokens["umpire"])
    _post(cl[defenders[0]], "/step/defence", {"node": node, "defence": "central"})
    page = _post(ump, "/step/result", {"node": node, "winner": "none"})
    assert "undecided" in page
    for s in (a, b):
        assert 'id="form-second-day"' in T(cl[s].get("/"))
    r = cl[a].post("/step/second-day", data={"node": node, "choice": "maybe"})
    assert r.status_code == 400 and "'maybe' is not one of stay, retire" in T(r)
    _post(cl[a], "/step/second-day", {"node": node, "choice": "retire"})
    r = cl[a].post("/step/second-day", data={"node": node, "choice": "stay"})
    assert r.status_code == 409 and "written one already" in T(r)
    assert 'id="form-second-day"' not in T(cl[a].get("/"))
    for viewer in (cl[b], ump):
        text = T(viewer.get("/")) + viewer.get("/api/status").text
        assert f"{a} writes its sealed second-day order" in text
        assert "retire" not in _unsaid(text).replace(f"{a} retires", "")
        assert f"{a} retires" not in text
    page = _post(cl[b], "/step/second-day", {"node": node, "choice": "stay"})
    assert f"{a} retires" in page and f"{b} stays" in page


# --- Trossian --------------------------------------------------------------------------------------------


def test_tr_phase_with_a_courier_sealed_orders_and_refusals(tr):
    path, tokens = tr
    rus, ott, ump = (client(path, tokens["Russia"]), client(path, tokens["Ottoman Porte"]),
                     client(path, tokens["umpire"]))
    others = [client(path, tokens[n]) for n in ("Danubian Principalities", "Crimean Khanate")]
    page = _ids_unique(rus.get("/").text.replace("&#x27;", "'"))
    assert ", Russia</title>" in page and "treasury:" in page and "nothing for your nation to do now" in page
    upage = _ids_unique(ump.get("/").text.replace("&#x27;", "'"))
    assert 'id="form-next"' in upage and "treasury:" not in upage
    n = _log_len(path)
    r = rus.post("/step/march", data={"army": "1", "path": "Podolia"})
    assert r.status_code == 409 and "refused, nothing stored" in T(r)
    r = rus.post("/step/next", data={})
    assert r.status_code == 403
    assert _log_len(path) == n
    _post(ump, "/step/next", {})
    page = rus.get("/").text.replace("&#x27;", "'")
    assert 'id="form-courier"' in page and 'id="form-done"' in page
    # Bad input (exit 1): 400 with what was typed kept; an order the rules refuse: 409.
    r = rus.post("/step/march", data={"army": "one", "path": "Podolia"})
    assert r.status_code == 400 and "--army: 'one' is not a whole number" in T(r)
    assert 'value="one"' in T(r) and ">Podolia</textarea>" in T(r)  # what was typed, kept
    r = rus.post("/step/march", data={"army": "1", "path": "Atlantis"})
    assert r.status_code == 400 and "'Atlantis' is not a province" in T(r)
    r = rus.post("/step/march", data={"army": "20", "path": "Thrace"})
    assert r.status_code == 400 and "Ottoman Porte's, not Russia's" in T(r)
    r = rus.post("/step/done", data={"nation": "Ottoman Porte"})
    assert r.status_code == 403
    r = ump.post("/step/done", data={})
    assert r.status_code == 403
    r = rus.post("/step/bank", data={"source": "Yedisan", "target": "Podolia", "ap": "5"})
    assert r.status_code == 409 and "refused, nothing stored" in T(r)
    r = rus.post("/step/recruit", data={"at": "Yedisan", "kinds": "infantry"})
    assert r.status_code == 409
    r = ump.post("/step/result", data={"battle": "1", "winner": "a"})
    assert r.status_code in (400, 409)

    # Russia's courier carries a sealed message; no one else reads it.
    secret = "Kutuzov marches at dawn on Bender"
    _post(rus, "/step/courier", {"courier": "74", "action": "send", "message": secret, "to": "army 1"})
    page = rus.get("/").text.replace("&#x27;", "'")
    assert secret in page and "order 1: courier" in page and "(Yedisan 10)" in page
    for cl in (ott, ump, *others):
        text = cl.get("/").text.replace("&#x27;", "'") + cl.get("/api/status").text
        assert secret not in text and "order 1: courier" not in text
        assert "(Yedisan 10)" not in text and '"Yedisan":10' not in text  # Russia's bank
    _post(rus, "/step/done", {})
    r = rus.post("/step/done", data={})
    assert r.status_code == 409 and "has given all its orders" in T(r)
    r = ump.post("/step/next", data={})
    assert r.status_code == 409 and "cannot go on" in T(r) and "orders from" in T(r)
    for cl in (ott, *others):
        _post(cl, "/step/done", {})
    page = _post(ump, "/step/next", {})
    assert "orders are carried out" in page
    for cl in (ott, ump, *others):
        text = cl.get("/").text.replace("&#x27;", "'") + cl.get("/api/status").text
        assert secret not in text and secret not in cl.get("/map").text
        _no_secrets(text, tokens, TR_SEED)
        _no_secrets(cl.get("/map").text, tokens, TR_SEED, is_map=True)
    _no_secrets(rus.get("/").text.replace("&#x27;", "'") + rus.get("/api/status").text, tokens, TR_SEED)
    assert "treasury: 10 AP" not in ott.get("/").text.replace("&#x27;", "'")
    v = json.loads(ott.get("/api/status").text)
    assert "couriers" in v and all(x["courier"] != 74 for x in v["couriers"])
    assert all(a["units"] is None for a in v["armies"] if a["nation"] != "Ottoman Porte")
    while True:
        v = json.loads(ump.get("/api/status").text)
        if v["next_step"] == "result":
            b = v["battles"][0]
            _post(ump, "/step/result", {"battle": str(b["battle"]), "winner": "draw"})
        elif v["next_step"] == "end":
            page = _post(ump, "/step/next", {})
            break
        else:
            raise AssertionError(v["next"])
    assert json.loads(ump.get("/api/status").text)["phase"] == "begin"
    r = ump.post("/step/result", data={"battle": "x", "winner": "a"})
    assert r.status_code == 400
    r = ump.post("/umpire/sql", data={"query": "SELECT count(*) FROM tr_orders"})
    assert r.status_code == 303 and 'id="sql-result"' in T(ump.get(r.headers["location"]))  # Post/Redirect/Get
    _access_of(path).release()
    code, _o, err = bellica_verify(path)
    assert code == 0, err


def test_tr_alliance_given_and_accepted_in_the_browser(tr):
    path, tokens = tr
    ott, crim, ump = (client(path, tokens["Ottoman Porte"]), client(path, tokens["Crimean Khanate"]),
                      client(path, tokens["umpire"]))
    r = ott.post("/step/ally", data={"partner": "Crimean Khanate"})
    assert r.status_code == 409 and "refused, nothing stored" in T(r)  # not before the orders phase
    _post(ump, "/step/next", {})
    assert 'id="form-ally"' in T(ott.get("/"))
    r = ott.post("/step/ally", data={"partner": "Atlantis"})
    assert r.status_code == 400 and "Atlantis" in T(r)
    _post(ott, "/step/ally", {"partner": "Crimean Khanate"})
    _post(crim, "/step/ally", {"partner": "Ottoman Porte"})
    status = ump.get("/api/status").json()
    assert any({"Crimean Khanate", "Ottoman Porte"} == set(pair) for pair in status["alliances"]), status["alliances"]
    _post(crim, "/step/ally", {"partner": "Ottoman Porte", "brk": "on"})
    assert not ump.get("/api/status").json()["alliances"]
