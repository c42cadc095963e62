"""Issue 21, item 3: a land move across a strait is offered, drawn and previewed like any other step.

The strait's far land hex is among the hexes next to the army (its two clock moves, the strait hex
named), the Coast hex itself says why it is not entered alone, and the preview of the two moves is
one step at the far hex's cost that ends the army's move, as movement plays it."""

from __future__ import annotations

import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import create_app  # noqa: E402


@pytest.fixture
def coast(tmp_path):
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds
    from tests.app.test_app_vv_round_by_clicks_browser import coast_campaign

    path = tmp_path / "coast.duckdb"
    tokens = coast_campaign(path)
    with Campaign.open(path) as c:
        rounds.publish_initiative(c)
    return path, tokens


def test_the_land_across_a_strait_is_a_next_hex_and_its_crossing_one_step(coast):
    path, tokens = coast
    roma = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['roma']}"})
    j = roma.post("/api/preview", data={"army": "10", "moves": ""}).json()
    cross = [n for n in j["next"] if n["then"] is not None]
    assert [(n["clock"], n["then"], n["name"], n["strait"]["name"], n["cost"], n["refused"]) for n in cross] == \
        [(9, 7, "Ostia 7 9", "Ostia 9", 2, None)]
    j = roma.post("/api/preview", data={"army": "10", "moves": "9 7"}).json()
    assert j["ok"] and not j["by_sea"] and j["end"]["name"] == "Ostia 7 9"
    [step] = j["steps"]
    assert step["strait"]["name"] == "Ostia 9" and step["cost"] == 2 and step["left"] == 10
    assert "crossed the strait at Ostia 9 into Ostia 7 9 and stops there" in j["halt"] and not j["next"]
    assert roma.post("/api/check", data={"moves-9": "", "moves-10": "9 7"}).json()["ok"]
