"""A whole round from browsers alone (issue 10): orders, movement, a player's retreat or the umpire's
engagement result, administration choices typed in the app (a hex by its map name), victory; army
players' tokens; commit-reveal orders through the app; orders closing at the deadline.

The field is tests/app/fixtures.py's: roma's army 9 at Roma, 10 at Ostia; carthago's army 1 at
Capua.  Roma moves 9 "3 3" and carthago 1 "9 9": they meet, engagement 1 (tests/cli/test_round_cli.py
plays the same round through the CLI, with the same figures).
"""

from __future__ import annotations

import html
import warnings

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import _access_of, create_app  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402
from tests.cli.test_round_cli import bellica  # noqa: E402
from tests.cli.test_sealed_cli import just_passed  # noqa: E402

JSON = {"Accept": "application/json"}


def client(path, token):
    return TestClient(create_app(path), headers={"Authorization": f"Bearer {token}"})


def _to_engagement(path, tokens):
    roma, carthago, umpire = (client(path, tokens[n]) for n in ("roma", "carthago", "umpire"))
    assert roma.post("/orders", data={"moves-9": "3 3", "moves-10": ""}).status_code == 200
    assert carthago.post("/orders", data={"moves-1": "9 9"}).status_code == 200
    r = umpire.post("/umpire/step", data={"step": "move"})
    assert r.status_code == 200 and "engagement 1: Open Battle" in r.text
    return roma, carthago, umpire


def test_a_round_with_a_battle_played_from_browsers(tmp_path):
    from bellica.engine.core.readjudicate import readjudicate

    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    roma, carthago, umpire = _to_engagement(path, tokens)

    # Each player may retreat only its own armies (the declared retreat step's form, a box per army it
    # commands); the umpire records results.
    page = roma.get("/").text
    assert 'id="engagement-1"' in page and 'id="form-retreat"' in page
    assert "army 9 retreats rather than fight" in page and "army 1 retreats rather than fight" not in page
    assert 'id="form-result"' not in page  # results are the umpire's
    assert "army 1 retreats rather than fight" in carthago.get("/").text
    r = roma.post("/retreat", data={"army": "1"})
    assert r.status_code == 400 and "army 1 is not one you command" in r.text
    page = umpire.get("/").text
    # The umpire's result is its declared step's form (step_forms), offering the engagement and its armies.
    assert 'id="form-result"' in page and 'id="result-winner"' in page and 'id="result-casualties"' in page
    assert '<option value="1">1</option>' in page and "1=PCT, 9=PCT" in page

    # A result missing an army's casualties is refused on the umpire's page, nothing stored.
    r = umpire.post("/umpire/result", data={"engagement": "1", "winner": "9", "casualties-9": "25"})
    assert r.status_code == 400 and 'id="error"' in r.text and "give a result for exactly those armies" in r.text
    assert "result: awaiting" in r.text
    r = umpire.post("/umpire/result", data={"engagement": "1", "winner": "9", "casualties-9": "25", "casualties-1": "48"})
    assert r.status_code == 200 and "army 9 (roma) wins engagement 1, 25% casualties" in r.text
    assert 'id="form-retreat"' not in roma.get("/").text  # an engagement is fought: no retreats any more

    # Administration: the declared step's form, offering the round's winner an advance.
    page = umpire.get("/").text
    assert 'id="form-administer"' in page and "one a line, from: 9=HEX" in page
    r = umpire.post("/step/administer", data={"advances": "9=Nowhere 3"})
    assert r.status_code == 400 and "advance of army 9 'Nowhere 3' is neither an H3 cell" in html.unescape(r.text)
    assert ">9=Nowhere 3</textarea>" in r.text  # the typed choices are kept
    typed = '[advance]\n9 = "Nowhere 3"\n'  # a script's choices file, posted as text: the same refusal
    r = umpire.post("/umpire/administer", data={"choices": typed})
    assert r.status_code == 400 and "advance of army 9 'Nowhere 3' is neither an H3 cell" in html.unescape(r.text)
    r = umpire.post("/umpire/administer", data={"choices": "[advance]\n"})
    assert r.status_code == 200 and "army 1 (carthago) lost its battle and is removed from the map" in r.text
    r = umpire.post("/umpire/step", data={"step": "victory"}, headers=JSON)
    assert r.status_code == 200 and any("roma +4 VP: engagement 1 fought (+1) and won (+3)" in t for t in r.json()["said"])
    assert "round 2" in roma.get("/").text

    _access_of(path).release()
    assert readjudicate(path) > 0  # the app's steps replay from the log


def test_a_player_retreats_rather_than_fight(tmp_path):
    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    roma, carthago, umpire = _to_engagement(path, tokens)
    r = carthago.post("/retreat", data={"army": "1"})
    assert r.status_code == 200 and "army 1 (carthago) retreats rather than fight army 9" in r.text
    assert 'id="engagement-1"' not in umpire.get("/").text  # listed again without army 1: none left
    r = carthago.post("/retreat", data={"army": "1"}, headers=JSON)
    assert r.status_code == 400 and "fights no engagement" in r.json()["error"]


def test_a_player_retreats_its_own_army_from_the_page(tmp_path):
    """The player page's retreat form is the declared retreat step's, posted to /step/retreat."""
    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    roma, carthago, umpire = _to_engagement(path, tokens)
    page = carthago.get("/").text
    assert 'action="/step/retreat"' in page and 'name="army"' in page and 'value="9"' not in page.split("form-retreat")[1]
    r = carthago.post("/step/retreat", data={"army": "1"})
    assert r.status_code == 200 and "army 1 (carthago) retreats rather than fight army 9" in r.text
    assert 'id="form-retreat"' not in carthago.get("/").text  # no engagement left: nothing to retreat from


def test_the_umpire_retreats_any_army_from_its_page(tmp_path):
    """The retreat is a side's step the umpire may take too: the umpire's page offers its form."""
    path = tmp_path / "field.duckdb"
    roma, carthago, umpire = _to_engagement(path, field_campaign(path))
    page = umpire.get("/").text
    assert 'id="form-retreat"' in page and 'action="/step/retreat"' in page
    r = umpire.post("/step/retreat", data={"army": "9"})
    assert r.status_code == 200 and "army 9 (roma) retreats rather than fight army 1" in r.text


def test_an_army_token_may_not_retreat_another_army(tmp_path, capsys):
    path = tmp_path / "field.duckdb"
    _to_engagement(path, field_campaign(path))
    code, out, err = bellica(capsys, "serve", "tokens", path, "--player", "Scipio=Roma:10")  # its tokens anew
    assert code == 0, err
    scipio = client(path, next(ln for ln in out.splitlines() if ln.split()[0] == "Scipio").split("token=")[1].split()[0])
    assert 'id="form-retreat"' not in scipio.get("/").text  # army 10 fights no engagement: nothing offered
    for army in ("9", "1"):  # its faction's army it does not command, another faction's
        r = scipio.post("/step/retreat", data={"army": army}, headers=JSON)
        assert r.status_code == 400, r.text
        assert r.json()["error"] == f"army {army} is not one you command: you may retreat only your own armies"
    assert 'id="engagement-1"' in scipio.get("/").text  # nothing retreated


def test_army_players_command_only_their_armies(tmp_path, capsys):
    path = tmp_path / "field.duckdb"
    field_campaign(path)
    code, _, err = bellica(capsys, "serve", "tokens", path, "--player", "Scipio=carthago:9")
    assert code == 1 and "army 9 is not an army of carthago (1)" in err
    code, _, err = bellica(capsys, "serve", "tokens", path, "--player", "Scipio:9")
    assert code == 1 and "is not NAME=FACTION:ARMY,ARMY" in err  # bad input inside the value (README's table)
    code, out, err = bellica(capsys, "serve", "tokens", path, "--player", "Scipio=Roma:9")
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if ln.split()[0] == "Scipio")
    assert line.endswith("(armies 9 of roma)")
    scipio = client(path, line.split("token=")[1].split()[0])
    page = scipio.get("/").text
    assert "signed in as <b>Scipio</b>" in page and 'id=\"orders-moves-9\"' in page and 'id=\"orders-moves-10\"' not in page
    r = scipio.post("/orders", data={"moves-10": "3"})  # army 10 is the faction's, not Scipio's
    assert r.status_code == 400 and "names none of your armies" in r.text
    r = scipio.post("/orders", data={"moves-9": "3"}, headers=JSON)
    assert r.json() == {"stored": [9], "revealed": False}
    r = scipio.post("/commit", data={"digest": "a" * 64})  # a commitment is the whole faction's step
    assert r.status_code == 403 and "commit is a step of the whole faction" in html.unescape(r.text)


def test_commit_reveal_through_the_app(tmp_path):
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.orders import parse_orders_text

    path = tmp_path / "cr.duckdb"
    tokens = field_campaign(path, orders_mode="commit-reveal")
    roma, carthago = client(path, tokens["roma"]), client(path, tokens["carthago"])
    page = roma.get("/").text
    assert 'id="form-commit"' in page and 'id="form-orders"' not in page and 'data-name="moves-9"' in page
    assert 'data-name="secret"' in page and ' name="secret"' not in page  # the secret is never posted
    files = {"roma": 'faction = "roma"\nround = 1\n[armies.9]\nmoves = "3"\n[armies.10]\nmoves = ""\n',
             "carthago": '[armies.1]\nmoves = "9"\n'}
    # What `bellica round commitment` computes on each player's own machine:
    digests = {f: rounds.orders_commitment(dict(parse_orders_text(t).orders), f"secret-{f}") for f, t in files.items()}
    r = roma.post("/step/commit", data={"moves-9": "3", "secret": "s"})  # the browser's own fields: never read here
    assert r.status_code == 400 and "give --digest D" in html.unescape(r.text)
    r = roma.post("/commit", data={"digest": digests["roma"]})
    assert r.status_code == 200 and "roma commits to its round 1 orders" in r.text
    assert files["roma"] not in path.read_bytes().decode("latin-1")
    assert roma.post("/orders", data={"moves-9": "3"}).status_code == 400
    assert carthago.post("/commit", data={"digest": digests["carthago"]}).status_code == 200
    assert 'id="form-reveal-orders"' in roma.get("/").text  # every faction committed: the window is open
    r = roma.post("/reveal-orders", data={"orders": files["roma"].replace('"3"', '"5"'), "secret": "secret-roma"})
    assert r.status_code == 400 and "tampered" in r.text
    r = roma.post("/reveal-orders", data={"orders": files["roma"], "secret": "secret-roma"})
    assert r.status_code == 200 and 'id="form-reveal-orders"' not in r.text
    r = carthago.post("/reveal-orders", data={"orders": files["carthago"], "secret": "secret-carthago"})
    assert r.status_code == 200 and 'id="locked"' in r.text


def test_orders_close_at_the_deadline(tmp_path):
    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    roma, umpire = client(path, tokens["roma"]), client(path, tokens["umpire"])
    passed = just_passed()  # a deadline may not be before the campaign's start
    assert umpire.post("/umpire/deadline", data={"when": passed}).status_code == 200
    r = roma.post("/api/check", data={"moves-9": "3", "moves-10": ""})
    assert not r.json()["ok"] and f"deadline {passed} has passed" in r.json()["problems"][0]["text"]
    r = roma.post("/orders", data={"moves-9": "3", "moves-10": ""})
    assert r.status_code == 400 and "has passed" in r.text
