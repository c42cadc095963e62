"""A Magna Graecia campaign on the web map, drawn from the ruleset's player view
(engine/magna_graecia/player_view.py over :func:`~bellica.engine.magna_graecia.ruleset.view`): the
node map with the places coloured by owner and the counters as one side may see them; nothing of
another side's secrets (its elements, its fleet's naval points) reaches that side's page, and the
page holds exactly what `bellica magna-graecia status --json` says to that side."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout

import pytest

from bellica.cli import main
from bellica.engine.core.campaign import Campaign
from bellica.etl.situation import UnknownFactionError
from bellica.services.maps import render_map
from bellica.web_maps.assets import remote_urls
from tests.web_maps.synthetic import layer_payloads

#: What only Carthage (and the umpire) may read: its commands' elements and its fleet's naval points.
CARTHAGE_SECRETS = ("Bd(F) 2", "Sp(I) 6", "LH(O) 4", "10 NP")
SYRACUSE_SECRETS = ("Art(O) 1", "Sp(O) 8", "LH(O) 2", "20 NP")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    from bellica.demo_magna_graecia import play_turn
    from tests.conftest import scenario_campaign_file

    path = scenario_campaign_file("magna-graecia/dionysian", tmp_path_factory.mktemp("mg-map") / "d.duckdb")
    shutil.copy(path, path.with_name("new.duckdb"))
    with Campaign.open(path) as c:
        c.start(seed=397)
        play_turn(c)  # Syracuse marches
    return path


def _page(campaign, tmp_path, faction=None) -> str:
    out = render_map(campaign, tmp_path / f"{faction or 'umpire'}.html", faction=faction)
    return out.read_text(encoding="utf-8")


def test_a_side_sees_its_own_strength_and_only_the_others_presence(campaign, tmp_path):
    page = _page(campaign, tmp_path, "Syracuse")
    assert not remote_urls(page)
    assert "view of Syracuse" in page
    for secret in CARTHAGE_SECRETS:
        assert secret not in page
    for own in SYRACUSE_SECRETS:
        assert own in page
    points = [p for payload in layer_payloads(page, "point_layer") for p in payload]
    carthage = [p for p in points if p.get("shape") in ("army", "navy") and p["tip"][0][1] == "Carthage"]
    assert carthage and all("sub" not in p for p in carthage)  # presence, not composition
    page = _page(campaign, tmp_path, "carth")
    for secret in SYRACUSE_SECRETS:
        assert secret not in page
    for own in CARTHAGE_SECRETS:
        assert own in page


def test_the_umpire_sees_everything_and_places_take_their_owners_colour(campaign, tmp_path):
    from bellica.engine.magna_graecia.player_view import SIDE_COLOURS

    page = _page(campaign, tmp_path)
    for secret in CARTHAGE_SECRETS + SYRACUSE_SECRETS:
        assert secret in page
    places = {p["tip"][0][1]: p for payload in layer_payloads(page, "point_layer") for p in payload
              if p.get("shape") == "circle" and p.get("tip")}
    assert places["Motya"]["colour"] == SIDE_COLOURS[1] and places["Syracuse"]["colour"] == SIDE_COLOURS[0]


def test_an_unknown_side_is_one_line(campaign, tmp_path):
    with pytest.raises(UnknownFactionError, match="--faction 'Athens' is not a faction of this campaign: use one of "):
        _page(campaign, tmp_path, "Athens")


@pytest.fixture(scope="module")
def battle(tmp_path_factory):
    """First Punic War, turn 1: Rome marches from Messana on Tauromenium, where Hiero's army stands;
    its movement ended, the battle there is due (base edge Messana), its defence not chosen yet."""
    from bellica.demo_magna_graecia import SCENARIO_TARGETS, build_demo_campaign, march
    from bellica.engine.magna_graecia.ruleset import play

    path = build_demo_campaign(tmp_path_factory.mktemp("mg-battle") / "fp.duckdb", scenario="magna-graecia/first-punic")
    with Campaign.open(path) as c:
        c.start(seed=264)
        side = march(c, SCENARIO_TARGETS["first-punic"])
        play(c, "end_movement", {"side": side})
    return path


def _battle_points(page):
    return [p for payload in layer_payloads(page, "point_layer") for p in payload if p.get("shape") == "battle"]


def test_a_battle_due_is_drawn_alike_for_every_viewer(battle, tmp_path):
    from bellica.engine.magna_graecia.ruleset import view

    with Campaign.open(battle, read_only=True) as c:
        due = view(c)["battles"]
    assert [(b["node"], b["attacker"], b["defenders"], b["base_edge"], b["defence"]) for b in due] == [
        ("Tauromenium", "Rome", ["Syracuse"], "Messana", "")]
    tips = {}
    for viewer in (None, "Rome", "Carthage", "Syracuse"):
        page = _page(battle, tmp_path, viewer)
        points = _battle_points(page)
        assert len(points) == 1 and points[0]["ll"]
        tip = dict(map(tuple, points[0]["tip"]))
        assert tip["battle at"] == "Tauromenium" and tip["attacker"] == "Rome" and tip["defender"] == "Syracuse"
        assert tip["attacker's base edge"] == "towards Messana" and tip["defence"] == "not chosen yet"
        tips[viewer] = points[0]["tip"]
        # the attacker's path of entry: one dotted line from Messana to Tauromenium
        entries = [d for d in layer_payloads(page, "line_layer") if d["tips"] and d["tips"][0][0][0] == "attacker"]
        assert len(entries) == 1 and len(entries[0]["v"]) == 1
        assert dict(map(tuple, entries[0]["tips"][0]))["enters"] == "Tauromenium from Messana"
        assert "battle due" in page  # in the legend
    assert all(t == tips[None] for t in tips.values())  # public: the same for everyone


def test_the_defenders_choice_is_drawn_once_made(battle, tmp_path):
    import shutil

    from bellica.engine.magna_graecia.ruleset import play

    path = tmp_path / "chosen.duckdb"
    shutil.copy(battle, path)
    with Campaign.open(path) as c:
        play(c, "defence", {"node": "Tauromenium", "defence": "rear"})
    for viewer in (None, "Rome"):
        (point,) = _battle_points(_page(path, tmp_path, viewer))
        assert dict(map(tuple, point["tip"]))["defence"] == "rear" and point["label"] == "rear defence"


def test_no_battle_no_marker(campaign, tmp_path):
    with Campaign.open(campaign, read_only=True) as c:
        pending = c.con.execute("SELECT count(*) FROM mg_battles").fetchone()[0]
    if not pending:
        page = _page(campaign, tmp_path)
        assert not _battle_points(page) and "attackers' entry" not in page


def test_opposing_stacks_in_a_battle_stand_side_by_side_with_a_size(battle, tmp_path):
    page = _page(battle, tmp_path)
    points = [p for payload in layer_payloads(page, "point_layer") for p in payload]
    here = [p for p in points if p.get("shape") == "army" and ["node", "Tauromenium"] in p["tip"]]
    assert len(here) == 2 and len({p["dx"] for p in here}) == 2  # not drawn one over the other
    assert all(p["r"] > 0 for p in points if p.get("shape") in ("army", "navy"))
    rings = [p for p in points if p.get("shape") == "ring" and (p.get("tip") or [[]])[0] == ["battle at", "Tauromenium"]]
    assert len(rings) == 1


# --- the map agrees with the status, and holds no other side's secret ---------------------------------


def _status(campaign, side) -> dict:
    with redirect_stdout(buf := io.StringIO()):
        try:
            main(["magna-graecia", "status", str(campaign), "--json"] + (["--side", side] if side else []))
        except SystemExit as e:
            assert not e.code
    return json.loads(buf.getvalue())


def _cli_page(campaign, tmp_path, side) -> str:
    out = tmp_path / f"cli-{side or 'umpire'}.html"
    with redirect_stdout(io.StringIO()):
        try:
            main(["render", "map", str(campaign), "--out", str(out)] + (["--faction", side] if side else []))
        except SystemExit as e:
            assert not e.code
    return out.read_text(encoding="utf-8")


def _commands(page: str) -> set[int]:
    """The ids of the commands whose rows a page's counters show (their elements with them)."""
    return {int(row[0].split()[1]) for p in _counters(page) for row in p["tip"] if row[0].startswith("command ")}


def _counters(page: str) -> list[dict]:
    return [p for payload in layer_payloads(page, "point_layer") for p in payload if p.get("shape") in ("army", "navy")]


def test_each_sides_map_holds_exactly_what_its_status_holds(campaign, tmp_path):
    """Per side and for the umpire: the commands shown in full, the stacks, the fleets' naval points
    on the page are exactly those of ``status --json``; another side's commands and naval points
    never reach a side's page, and the umpire's page holds every one."""
    umpire = _status(campaign, None)
    every = {x["id"] for x in umpire["counters"] if x["side"]}
    pages = {}
    for side in (None, "Syracuse", "Carthage"):
        status, page = _status(campaign, side), _cli_page(campaign, tmp_path, side)
        pages[side] = page
        own = {x["id"] for x in status["counters"] if x.get("side")}
        assert _commands(page) == own and (side is not None or own == every)
        stacks: dict[tuple, int] = {}
        for x in status["counters"]:
            who = x["side"] if "side" in x else ("" if x["city"] else x["owner"])
            if who:
                stacks[(x["node"], who)] = stacks.get((x["node"], who), 0) + 1
        drawn = {(dict(map(tuple, p["tip"]))["node"], p["tip"][0][1]): int(p["text"].split("x")[1])
                 for p in _counters(page) if p["shape"] == "army"}
        assert drawn == stacks
        fleets = {(p["tip"][0][1], p.get("sub")) for p in _counters(page) if p["shape"] == "navy"}
        assert fleets == {(f["side"], f"{f['np']} NP" if "np" in f else None) for f in status["fleets"]}
        for secret in (f"{f['np']} NP" for f in umpire["fleets"] if f["side"] != side and side):
            assert secret not in page
    for side in ("Syracuse", "Carthage"):
        others = {x["id"] for x in umpire["counters"] if x["side"] and x["side"] != side}
        assert not _commands(pages[side]) & others
    assert all(f"{f['np']} NP" in pages[None] for f in umpire["fleets"])


def test_a_campaign_not_started_shows_its_node_map_to_anyone(campaign, tmp_path):
    new = campaign.with_name("new.duckdb")
    for side in (None, "Syracuse"):
        page = _page(new, tmp_path, side)
        places = [p for payload in layer_payloads(page, "point_layer") for p in payload if p.get("shape") == "circle"]
        assert len(places) > 20 and not _counters(page) and '["Turn","not started"]' in page
