"""Issue 21: orders given on the player's page stage by stage, previewed by the engine as they are drawn.

The initiative stage shows only the initiative, as a choice of the legal uses (the declared
initiative step's form, one select per army: issue 20), and never stores moves (the initiative lock); a navy ordered to end on a Sea hex is warned before submission; a move
past the army's MP is refused at check time; the preview endpoint answers from the engine's
movement code, for the signed-in player's own armies only."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import warnings
from pathlib import Path

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
    assert '<select name="uses-9" id="initiative-uses-9">' in page and '<option value="strength"' in page
    assert 'id=\"orders-moves-9\"' not in page and 'id=\"orders-sea-9\"' not in page  # moves only in the moves stage
    assert '<label for="initiative-uses-9">' in page
    r = client(path, tokens["roma"]).post("/check/initiative", data={"uses-9": "Mare Nostrum"})
    assert not r.json()["ok"] and "Mare Nostrum" in r.text
    assert client(path, tokens["roma"]).post("/check/initiative", data={"uses-9": "strength"}).json()["ok"]
    # the older check URL and field names answer the same
    assert not client(path, tokens["roma"]).post("/api/check", data={"initiative-9": "Mare Nostrum"}).json()["ok"]
    assert client(path, tokens["roma"]).post("/api/check", data={"initiative-9": "strength"}).json()["ok"]


def test_initiative_lock_submitting_initiative_never_stores_moves(unpublished):
    """Regression (issue 21, "the initiative lock"): a player who submits only initiative in the
    initiative stage must not have every army's orders stored as standing still."""
    path, tokens = unpublished
    roma, carthago, umpire = (client(path, tokens[n]) for n in ("roma", "carthago", "umpire"))
    r = roma.post("/step/initiative", data={"uses-9": "strength", "uses-10": "strength"})
    assert r.status_code == 200 and "initiative stored (sealed) for armies 9, 10 until publication" in r.text
    r = carthago.post("/orders", data={"initiative-1": "strength", "moves-1": "9 9"})  # the older URL, moves dropped
    assert r.status_code == 200 and "every army's orders are in" not in r.text
    r = roma.post("/orders", data={"moves-9": "3"})  # moves in the initiative stage: refused, nothing stored
    assert r.status_code == 400 and "initiative uses only" in r.text
    assert umpire.post("/umpire/step", data={"step": "publish"}).status_code == 200
    page = roma.get("/").text
    assert "every army's orders are in" not in page and "revealed and locked" not in page
    assert 'id=\"orders-moves-9\"' in page and 'id="initiative-uses-9"' not in page  # the moves stage still takes moves
    r = roma.post("/orders", data={"moves-9": "3", "moves-10": ""})
    assert r.status_code == 200 and "orders stored (sealed) for armies 9, 10" in r.text
    assert "revealed and locked" not in r.text  # carthago's moves are not in yet


SEA = {"9 9 9": "coast", "9 9 9 9": "sea", "9 9 9 7": "sea"}  # Ostia ("9 9") looks out on a Coast hex, a Sea hex beyond


@pytest.fixture
def seaside(tmp_path):
    """The field campaign with a Sea hex off Ostia, initiative published (every army strength)."""
    path = tmp_path / "sea.duckdb"
    return path, seaside_campaign(path)


#: The file :func:`seaside_campaign` wrote first in this test process (then copied: each test its own).
_SEASIDE: list[Path] = []


def seaside_campaign(path) -> dict[str, str]:
    """Write the field campaign with a Sea hex off Ostia at ``path``, initiative published: its tokens
    (issued for this copy).  Made once a test process, then copied (0.5 s of CPU a test)."""
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds
    from tests.app.fixtures import PLACEMENTS
    from tests.engine.boards import sketch
    from tests.engine.test_rounds import FIELD
    from tests.engine.test_state import make_campaign

    if _SEASIDE and _SEASIDE[0].is_file():
        shutil.copyfile(_SEASIDE[0], path)
    else:
        c, _m = make_campaign(path, placements=PLACEMENTS, m=sketch(radius=4, structures=FIELD, water=SEA))
        c.start(seed=11)
        c.close()
        with Campaign.open(path) as c:
            rounds.publish_initiative(c)
        first = Path(tempfile.mkdtemp(prefix="seaside-campaign-")) / "sea.duckdb"
        atexit.register(shutil.rmtree, first.parent, True)
        _SEASIDE[:] = [shutil.copyfile(path, first)]
    with Campaign.open(path) as c:
        return {i.name: i.token for i in issue_tokens(c)}


def test_navy_at_sea_is_warned_before_submission(seaside):
    """Regression (issue 21, "navy at sea"): a navy ordered to end its move on a Sea hex is warned
    by the check before anything is submitted, in the words of the naval movement step."""
    path, tokens = seaside
    roma = client(path, tokens["roma"])
    j = roma.post("/api/check", data={"moves-9": "", "moves-10": "9 9"}).json()
    assert j["ok"], j  # legal: the seed lets a navy end at sea (and lose its army unless it debarks)
    assert any("army 10" in w and "ends on a Sea hex" in w and "unless it debarks" in w for w in j["warnings"]), j
    j = roma.post("/api/preview", data={"army": "10", "moves": "9 9"}).json()
    assert j["by_sea"] and j["unit"] == "NMP" and j["end"]["name"] == "Ostia 9 9"
    assert any("ends on a Sea hex" in w for w in j["warnings"])
    j = roma.post("/api/check", data={"moves-9": "", "moves-10": "9"}).json()
    assert j["ok"] and not j["warnings"]  # ending on the Coast hex: nothing to warn of


def test_a_move_past_the_armys_mp_is_refused_at_check_time(seaside):
    """The seed's army spends its 12 MP and moves no further; the form refuses the moves it never makes."""
    path, tokens = seaside
    roma = client(path, tokens["roma"])
    j = roma.post("/api/check", data={"moves-9": "1 7 1 7 1 7 1", "moves-10": ""}).json()
    assert not j["ok"] and len(j["problems"]) == 1
    p = j["problems"][0]
    assert p["index"] == 7 and "only 0 of the army's 12 MP are left" in p["text"] and "\n" not in p["text"]
    r = roma.post("/orders", data={"moves-9": "1 7 1 7 1 7 1", "moves-10": ""})
    assert r.status_code == 400 and "only 0 of the army&#39;s 12 MP are left" in r.text
    assert roma.post("/api/check", data={"moves-9": "1 7 1 7 1 7", "moves-10": ""}).json()["ok"]
    j = roma.post("/api/preview", data={"army": "9", "moves": "1 7 1 7 1 7 1"}).json()
    assert not j["ok"] and j["moves"] == "1 7 1 7 1 7" and "12 MP" in j["refused"] and j["left"] == 0


def test_the_preview_walks_the_move_by_the_engine(seaside):
    path, tokens = seaside
    roma = client(path, tokens["roma"])
    j = roma.post("/api/preview", data={"army": "9", "moves": "3 3"}).json()
    assert j["ok"] and j["unit"] == "MP" and j["budget"] == 12 and j["spent"] == 4 and j["left"] == 8
    assert [s["hex"]["name"] for s in j["steps"]] == ["Roma 3", "Capua 9 9"] and j["end"]["name"] == "Capua 9 9"
    import duckdb

    from bellica.web_maps.play_aids import load_hex_names

    from bellica.app.server import _access_of

    _access_of(path).release()  # the app lets the file go: read it as the map does
    with duckdb.connect(str(path), read_only=True) as con:  # named as the map's tooltips name them
        names = load_hex_names(con).names
    assert [names[s["hex"]["cell"]] for s in j["steps"]] == ["Roma 3", "Capua 9 9"]
    assert [s["left"] for s in j["steps"]] == [10, 8] and "farmlands 2" in j["steps"][0]["why"]
    assert {n["clock"] for n in j["next"]} and j["reachable"] and all(len(h["outline"]) == 6 for h in j["reachable"])
    j = roma.post("/api/preview", data={"army": "9", "moves": "3 3 3"}).json()
    assert j["halt"] and "ZoC of army 1 (carthago)" in j["halt"] and not j["reachable"]  # Capua's army halts it
    assert "85" not in j["halt"]  # hexes by name, never an H3 id
    j = roma.post("/api/preview", data={"army": "9", "moves": "3 q"}).json()
    assert not j["ok"] and "'q'" in j["refused"]


def test_the_preview_answers_only_for_your_own_armies(seaside):
    path, tokens = seaside
    r = client(path, tokens["roma"]).post("/api/preview", data={"army": "1", "moves": "9"})
    assert r.status_code == 403 and "not one of your live armies" in r.json()["error"]
    assert client(path, tokens["umpire"]).post("/api/preview", data={"army": "9", "moves": ""}).status_code == 403
    assert client(path).post("/api/preview", data={"army": "9", "moves": ""}).status_code == 401
    page = client(path, tokens["roma"]).get("/").text
    assert '<script defer src="/static/keyed_map.js"></script>' in page  # the declared step's preview, plotted
    assert 'data-preview="/preview/orders" data-preview-param="moves"' in page
    js = client(path, tokens["roma"]).get("/static/keyed_map.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"] and "form[data-preview]" in js.text
    r = client(path, tokens["roma"]).post("/preview/orders", data={"key": "1", "text": "9"})  # the step's own URL
    assert r.status_code == 403 and "not one of your live armies" in r.json()["error"]
    j = client(path, tokens["roma"]).post("/preview/orders", data={"key": "9", "text": "3 3"}).json()
    assert j["end"]["name"] == "Capua 9 9" and j["text"] == "3 3" and j["notes"][0]["text"].startswith("ends at Capua 9 9")


def test_an_army_in_a_port_may_embark_by_a_click(seaside):
    path, tokens = seaside
    roma = client(path, tokens["roma"])
    j = roma.post("/api/preview", data={"army": "10", "moves": ""}).json()
    coast = [n for n in j["next"] if n["name"] == "Ostia 9"]
    assert coast and coast[0]["refused"] is None and coast[0]["cost"] == 1  # Coast 1 NMP: it embarks
    j = roma.post("/api/preview", data={"army": "9", "moves": ""}).json()
    assert all(n["refused"] is None for n in j["next"])  # Roma is inland: every neighbour is land
    j = roma.post("/api/preview", data={"army": "10", "moves": "9"}).json()
    assert j["by_sea"] and j["ok"] and not j["warnings"] and any(n["name"] == "Ostia 9 9" and not n["refused"] for n in j["next"])


def test_the_log_and_the_umpires_messages_name_hexes_as_the_map_does(seaside):
    """Issue 21, item 4: movement's events name hexes by H3 id; the pages show the map's names."""
    import re

    path, tokens = seaside
    roma, carthago, umpire = (client(path, tokens[n]) for n in ("roma", "carthago", "umpire"))
    assert roma.post("/orders", data={"moves-9": "3", "moves-10": ""}).status_code == 200
    assert carthago.post("/orders", data={"moves-1": ""}).status_code == 200  # every army in: revealed
    r = umpire.post("/umpire/step", data={"step": "move"})
    h3_id = re.compile(r"\b8[0-9a-f]{14}\b")
    message = r.text.split('id="message"')[1].split("</div>")[0]
    assert r.status_code == 200 and "→ Roma 3" in message and not h3_id.search(message)
    for page in (roma.get("/").text, umpire.get("/").text):
        log = page.split('id="log"')[1]
        assert "army 9 (roma)" in log and not h3_id.search(log)
