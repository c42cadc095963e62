"""The web app and engine players (docs/bots.md): every page says which seats a bot plays, and the
umpire lets the bots play with the declared ``bots`` step's button; the bots' orders are taken,
sealed and logged as the seat's own, and the campaign re-adjudicates."""

from __future__ import annotations

from bellica.app.server import _access_of
from tests.app.test_app_nodes import _log_len, bellica, bellica_verify, client, make_tr


def test_the_umpire_lets_the_bots_play_and_everyone_sees_the_bot_seats(capsys, tmp_path):
    path, tokens = make_tr(capsys, tmp_path)
    code, out, err = bellica(capsys, "campaign", "bot", path, "Russia=heuristic", "Ottoman Porte=random")
    assert code == 0, err
    umpire = client(path, tokens["umpire"])
    page = umpire.get("/turn").text
    assert "Russia: played by the heuristic bot" in page and "Ottoman Porte: played by the random bot" in page
    assert 'id="form-bots"' not in page  # the phase has not begun: no bot has a step to give
    assert umpire.post("/step/next", data={}).status_code == 303  # the phase's orders
    page = umpire.get("/turn").text
    assert 'id="form-bots"' in page and "Let the bots play" in page
    before = _log_len(path)
    umpire = client(path, tokens["umpire"])
    said = umpire.post("/step/bots", data={})
    assert said.status_code == 303, said.text[:2000]
    shown = umpire.get(said.headers["location"]).text
    assert "Russia, played by the heuristic bot:" in shown
    assert _log_len(path) > before
    _access_of(path).release()
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(path, read_only=True) as c:
        ready = {k[1] for k in c.snapshot().tables["tr_ready"]}
        assert {"Russia", "Ottoman Porte"} <= ready  # both bots gave their orders and said done
        assert not {"Crimean Khanate", "Danubian Principalities"} & ready  # the persons' seats wait for them
    player = client(path, tokens["Crimean Khanate"])
    page = player.get("/turn").text
    assert "Russia: played by the heuristic bot" in page
    assert 'id="form-bots"' not in page  # the umpire's step
    _access_of(path).release()
    assert bellica_verify(path)[0] == 0


def test_the_vae_victis_umpire_has_the_bots_button(tmp_path):
    from starlette.testclient import TestClient

    from bellica.app.server import create_app
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.core.players import set_seats
    from tests.app.fixtures import field_campaign

    path = tmp_path / "field.duckdb"
    tokens = field_campaign(path)
    umpire = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['umpire']}"})
    assert 'id="bots-button"' not in umpire.get("/").text  # no seat is a bot's
    _access_of(path).release()
    with Campaign.open(path) as c:
        set_seats(c, {"carthago": "heuristic"})
    umpire = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['umpire']}"})
    page = umpire.get("/").text
    assert 'id="bots-button"' in page and "carthago (bot: heuristic)" in page
    r = umpire.post("/umpire/step", data={"step": "bots"})
    assert r.status_code == 200 and "carthago, played by the heuristic bot" in r.text
    _access_of(path).release()
    with Campaign.open(path, read_only=True) as c:
        assert c.con.execute("SELECT count(*) FROM events WHERE kind = 'bot_note'").fetchone()[0] == 1
