"""Issue 21 item 3: the umpire runs the campaign from the browser, every ruleset: a campaign served
before its start shows the umpire the start form (the ruleset's declared start step, or the seed),
the players a wait; after the start the first round's steps are the page's, and no page names a
command line (the engine's hints in the page's words)."""

from __future__ import annotations

import re
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import create_app  # noqa: E402
from tests.app.test_app_forms import unlabelled  # noqa: E402
from tests.app.test_app_nodes import sicily  # noqa: E402,F401 (the fixture)
from tests.app.test_app_provinces import mare, maps, rome  # noqa: E402,F401 (fixtures)
from tests.cli.test_rise_of_rome_cli import bellica  # noqa: E402

CLI = re.compile(r"`?\b(bellica|tabula) (round|turn|trossian|magna-graecia|rise-of-rome|mare-nostrum|serve)\b")


def client(path, token):
    return TestClient(create_app(path), headers={"Authorization": f"Bearer {token}"}, follow_redirects=False)


def _tokens(path) -> dict[str, str]:
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(path) as c:
        return {i.name: i.token for i in issue_tokens(c)}


def _started(umpire, data) -> str:
    r = umpire.post("/umpire/start", data=data)
    assert r.status_code == 303, r.text[-2000:]
    return umpire.get(r.headers["location"]).text


def test_the_umpire_starts_a_vae_victis_campaign_from_the_page(tmp_path):
    from tests.engine.boards import sketch
    from tests.engine.test_rounds import FIELD, WATER
    from tests.engine.test_state import make_campaign
    from tests.app.fixtures import PLACEMENTS

    path = tmp_path / "new.duckdb"
    c, _m = make_campaign(path, placements=PLACEMENTS, m=sketch(radius=4, structures=FIELD, water=WATER))
    c.close()
    tokens = _tokens(path)
    umpire, roma = client(path, tokens["umpire"]), client(path, tokens["roma"])
    assert "the umpire starts it" in roma.get("/").text and 'id="form-start"' not in roma.get("/").text
    assert roma.post("/umpire/start", data={"seed": "5"}).status_code == 403
    page = umpire.get("/").text
    assert 'id="form-start"' in page and 'id="start-orders_mode"' in page and unlabelled(page) == []
    r = umpire.post("/umpire/start", data={"seed": "x5"})
    assert r.status_code == 400 and 'value="x5"' in r.text and 'id="error"' in r.text
    page = _started(umpire, {"seed": "264", "orders_mode": "sealed"})
    assert "campaign started, round 1" in page and "seed 264" in page and 'id="publish-button"' in page
    assert not CLI.search(page) and unlabelled(page) == []
    assert umpire.post("/umpire/start", data={"seed": "1"}).status_code == 409
    assert 'id="initiative-uses-9"' in roma.get("/").text


def test_the_umpire_starts_and_steps_a_magna_graecia_campaign(capsys, sicily, tmp_path):  # noqa: F811
    path = tmp_path / "dionysian.duckdb"
    code, _o, err = bellica(capsys, "campaign", "new", "--scenario", "magna-graecia/dionysian", "--map", sicily,
                           "--out", path, "-q")
    assert code == 0, err
    tokens = _tokens(path)
    umpire = client(path, tokens["umpire"])
    side = next(n for n in tokens if n != "umpire")
    assert "the umpire starts it" in client(path, tokens[side]).get("/").text
    page = umpire.get("/").text
    assert 'id="start-seed"' in page and unlabelled(page) == []
    page = _started(umpire, {"seed": "4242"})
    assert "campaign started" in page and "seed 4242" in page
    for who in tokens:
        page = client(path, tokens[who]).get("/").text
        assert not CLI.search(page), (who, CLI.search(page))
        assert unlabelled(page) == [], who


@pytest.mark.parametrize("game", ["rome", "mare", "tr"])
def test_no_page_of_a_stepped_game_names_a_command_line(game, request, capsys, tmp_path):
    """Rise of Rome, Mare Nostrum and the Trossian campaign, each viewer's page: the engine's
    next-step words and the steps' help without a command line; every field labelled."""
    if game == "tr":
        from tests.app.test_app_nodes import make_tr

        path, tokens = make_tr(capsys, tmp_path)
    else:
        path, tokens = request.getfixturevalue(game)
    for who in tokens:
        page = client(path, tokens[who]).get("/").text
        assert not CLI.search(page), (who, CLI.search(page), page[max(0, CLI.search(page or "").start() - 200):][:400]
                                      if CLI.search(page) else "")
        assert unlabelled(page) == [], who


def test_the_next_step_links_to_its_form(capsys, tmp_path):
    from tests.app.test_app_nodes import make_tr

    path, tokens = make_tr(capsys, tmp_path)
    page = client(path, tokens["umpire"]).get("/").text
    assert 'id="next-next" href' in page or '<a href="#form-next" id="next-next">' in page
    assert 'id="form-next"' in page
