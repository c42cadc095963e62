"""Issue 21, item 2 on the pages: a player gives its own administration choices from lists on its
page (a navy's debarkation, a winner's advance), for its own armies only; the umpire's page shows
who has chosen, never what; administration runs them in place of the umpire's box.  The lists are
the declared choose step's form (issue 20: one field per army the token commands, posted to
/step/choose); /choices still takes the older field names."""

from __future__ import annotations

import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import create_app  # noqa: E402


def client(path, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(create_app(path), headers=headers)


@pytest.fixture
def battles(tmp_path):
    """Round 1 in the battles phase: army 9 (roma) won engagement 1 against army 1 (carthago); navy
    10 (roma) is on a Coast hex (tests/engine/test_vv_player_choices.py)."""
    from bellica.app.tokens import issue_tokens
    from tests.engine.test_vv_player_choices import fought

    path = tmp_path / "battles.duckdb"
    c = fought(path)
    tokens = {i.name: i.token for i in issue_tokens(c, {"admiral": ("roma", (10,))})}
    c.close()
    return path, tokens


def test_a_player_chooses_its_navys_debarkation_from_a_list(battles):
    path, tokens = battles
    roma, carthago, umpire = (client(path, tokens[n]) for n in ("roma", "carthago", "umpire"))
    page = roma.get("/").text
    assert '<select name="debarks-10" id="choose-debarks-10">' in page and '<label for="choose-debarks-10">' in page
    assert '<option value="3">clock 3: ' in page and "stays at sea" in page
    assert '<select name="advances-9" id="choose-advances-9">' in page  # army 9 won engagement 1
    assert "your choices: not given yet" in page
    assert 'id="form-choose"' not in carthago.get("/").text  # carthago has nothing to choose
    r = umpire.get("/").text
    assert 'id="choosers"' in r and "not given: your choices below stand for its armies" in r
    r = roma.post("/step/choose", data={"debarks-10": "3", "advances-9": ""}, follow_redirects=False)
    assert r.status_code == 303, r.text
    page = roma.get(r.headers["location"]).text
    assert "administration choices given by roma" in page
    assert '<option value="3" selected>' in page and "your choices: given by token:roma" in page
    r = umpire.get("/").text
    assert "given by token:roma (sealed until administration)" in r.split('id="choosers"')[1].split("</div>")[0]
    assert "debark" not in r.split('id="choosers"')[1].split("</div>")[0]  # who, never what
    sql = umpire.post("/umpire/sql", data={"query": "SELECT data FROM events WHERE kind = 'choices_given'"}).text
    shown = sql.split('id="sql"')[1].split("</form>")[1]  # the console's answer: the sealed stand-in only
    assert "sealed" in shown and "debarks" not in shown and "roma" in shown
    r = umpire.post("/umpire/administer", data={"choices": "[debark]\n10 = 1\n"})
    assert r.status_code == 200 and "navy 10 (roma) debarked" in r.text
    sql = umpire.post("/umpire/sql", data={"query": "SELECT value FROM round_notes WHERE key = 'administration_choices'"})
    assert "&#34;10&#34;: &#34;3&#34;" in sql.text or '"10": "3"' in sql.text  # roma's choice ran, not the box's 1


def test_a_player_may_not_choose_for_another_factions_army(battles):
    path, tokens = battles
    carthago = client(path, tokens["carthago"])
    r = carthago.post("/step/choose", data={"debarks-10": "3"})
    assert r.status_code == 400 and "army 10 is roma&#39;s, not carthago&#39;s: choose for your own armies only" in r.text
    r = client(path, tokens["roma"]).post("/step/choose", data={"debarks-10": "4"})  # no side at clock 4: the engine's words
    assert r.status_code == 400 and "has no side at clock 4" in r.text and '<option value="4"' not in r.text
    assert client(path, tokens["umpire"]).post("/step/choose", data={"debarks-10": "3"}).status_code == 403


def test_an_army_player_chooses_for_the_armies_it_commands_only(battles):
    path, tokens = battles
    admiral = client(path, tokens["admiral"])  # roma's player of navy 10 alone
    page = admiral.get("/").text
    assert 'id="choose-debarks-10"' in page and 'id="choose-advances-9"' not in page
    r = admiral.post("/step/choose", data={"advances-9": "3"})
    assert r.status_code == 400 and "army 9 is not one you command: choose for your own armies only" in r.text
    roma = client(path, tokens["roma"])
    assert roma.post("/step/choose", data={"advances-9": "3", "debarks-10": "1"}, follow_redirects=False).status_code == 303
    r = admiral.post("/step/choose", data={"debarks-10": "3"}, follow_redirects=False)
    assert r.status_code == 303
    page = roma.get("/").text  # the admiral's choice for its navy, roma's earlier one for army 9 kept
    assert page.split('id="choose-debarks-10"')[1].split("</select>")[0].count("selected") == 1
    assert '<option value="3" selected>' in page.split('id="choose-debarks-10"')[1].split("</select>")[0]
    assert '<option value="3" selected>' in page.split('id="choose-advances-9"')[1].split("</select>")[0]
    umpire = client(path, tokens["umpire"]).get("/").text
    assert "given by token:admiral" in umpire.split('id="choosers"')[1].split("</div>")[0]


def test_the_older_choices_url_takes_the_older_field_names(battles):
    """/choices (scripts written before the declared form) is the choose step under the older names."""
    path, tokens = battles
    roma = client(path, tokens["roma"])
    r = roma.post("/choices", data={"debark-10": "3", "advance-9": ""}, follow_redirects=False)
    assert r.status_code == 303, r.text
    page = roma.get(r.headers["location"]).text
    assert "administration choices given by roma" in page
    assert '<option value="3" selected>' in page.split('id="choose-debarks-10"')[1].split("</select>")[0]
    assert client(path, tokens["carthago"]).post("/choices", data={"debark-10": "3"}).status_code == 400


def test_the_choices_form_offers_only_the_signers_own(battles):
    """The offers name the token's own armies only: nothing of carthago's in roma's form, and the
    step's JSON check says the same as the step would."""
    path, tokens = battles
    page = client(path, tokens["roma"]).get("/").text
    form = page.split('id="form-choose"')[1].split("</form>")[0]
    assert "army 1" not in form and "navy 10" in form and "army 9" in form
    r = client(path, tokens["carthago"]).post("/step/choose", json={"debarks": ["10=3"]},
                                              headers={"Accept": "application/json"})
    assert r.status_code == 400 and "not carthago" in r.json()["error"]
