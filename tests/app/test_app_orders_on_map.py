"""Issue 21: orders given on the player's page stage by stage, previewed by the engine as they are drawn.

The initiative stage shows only the initiative, as a choice of the legal uses, and never stores
moves (the initiative lock); a navy ordered to end on a Sea hex is warned before submission; a move
past the army's MP is refused at check time; the preview endpoint answers from the engine's
movement code, for the signed-in player's own armies only."""

from __future__ import annotations

import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import create_app  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402


def client(path, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(create_app(path), headers=headers)


@pytest.fixture
def unpublished(tmp_path):
    path = tmp_path / "init.duckdb"
    return path, field_campaign(path, publish=False)


def test_initiative_stage_shows_only_a_choice_of_the_legal_uses(unpublished):
    path, tokens = unpublished
    page = client(path, tokens["roma"]).get("/").text
    assert '<select name="initiative-9" id="initiative-9">' in page and '<option value="strength"' in page
    assert 'id="moves-9"' not in page and 'id="sea-9"' not in page  # moves only in the moves stage
    assert '<label for="initiative-9">' in page
    r = client(path, tokens["roma"]).post("/api/check", data={"initiative-9": "Mare Nostrum"})
    assert not r.json()["ok"] and "Mare Nostrum" in r.text
    assert client(path, tokens["roma"]).post("/api/check", data={"initiative-9": "strength"}).json()["ok"]


def test_initiative_lock_submitting_initiative_never_stores_moves(unpublished):
    """Regression (issue 21, "the initiative lock"): a player who submits only initiative in the
    initiative stage must not have every army's orders stored as standing still."""
    path, tokens = unpublished
    roma, carthago, umpire = (client(path, tokens[n]) for n in ("roma", "carthago", "umpire"))
    r = roma.post("/orders", data={"initiative-9": "strength", "initiative-10": "strength"})
    assert r.status_code == 200 and "initiative stored (sealed until publication) for armies 9, 10" in r.text
    r = carthago.post("/orders", data={"initiative-1": "strength", "moves-1": "9 9"})
    assert r.status_code == 200 and "every army's orders are in" not in r.text
    r = roma.post("/orders", data={"moves-9": "3"})  # moves in the initiative stage: refused, nothing stored
    assert r.status_code == 400 and "initiative uses only" in r.text
    assert umpire.post("/umpire/step", data={"step": "publish"}).status_code == 200
    page = roma.get("/").text
    assert "every army's orders are in" not in page and "revealed and locked" not in page
    assert 'id="moves-9"' in page and 'id="initiative-9"' not in page  # the moves stage still takes moves
    r = roma.post("/orders", data={"moves-9": "3", "moves-10": ""})
    assert r.status_code == 200 and "orders stored (sealed) for armies 9, 10" in r.text
    assert "revealed and locked" not in r.text  # carthago's moves are not in yet
