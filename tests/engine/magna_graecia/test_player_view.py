"""Magna Graecia's player view on the map (engine/magna_graecia/player_view.py): the battles due
as every viewer sees them, and a side's counters as stacks that say only what the ruleset's view
lets that side read."""

from __future__ import annotations

import shapely

from bellica.engine.magna_graecia.player_view import NEUTRAL_WORDS, _battle, _city_forces, _stacks, _styles


class _Places:
    """Every node at one point (what Places.inside answers, without a map)."""

    def inside(self, name):
        return shapely.Point(14.0, 37.5)


def _b(**kw) -> dict:
    return {"node": "Gela", "kind": "land", "attacker": "Carthage", "defenders": ["city:Gela"], "base_edge": "Gela",
            "defence": "", "day": 1, "undecided": False, "sally": False, **kw}


def test_every_kind_of_battle_in_words():
    gela = dict(_battle(_b(), None).tooltip)
    assert gela["defender"] == "Gela's own forces" and gela["attacker's base edge"].startswith("none")  # nobody entered
    catana = _battle(_b(node="Catana", kind="naval", attacker="Rome", defenders=["Syracuse"], base_edge=""), None)
    assert dict(catana.tooltip)["kind"] == "fleet fight" and "defence" not in dict(catana.tooltip) and not catana.label
    messana = _battle(_b(node="Messana", attacker="Rome", defenders=["Carthage", "Syracuse"], base_edge="Tauromenium",
                         defence="forward", day=2, undecided=True), None)
    tip = dict(messana.tooltip)
    assert tip["defender"] == "Carthage, Syracuse" and tip["defence"] == "forward" and tip["day"] == "2"
    assert "sealed" in tip["undecided"] and messana.label == "forward defence"
    assert dict(_battle(_b(sally=True), None).tooltip)["kind"] == "sally"


def test_stacks_say_only_what_the_view_holds():
    """A side's own commands in full; another side's only as how many stand in a node; a neutral
    city's own forces (its place's "(n)") are no stack."""
    status = {"counters": [
        {"node": "Syracuse", "owner": "Syracuse", "city": "", "in_city": False, "id": 36, "side": "Syracuse",
         "elements": {"Sp(O)": 8}, "general": "Cv(O)", "strength": 9, "aboard": False},
        {"node": "Syracuse", "owner": "Syracuse", "city": "", "in_city": True, "id": 39, "side": "Syracuse",
         "elements": {}, "general": "Cv(O)", "strength": 1, "aboard": False},
        {"node": "Panormus", "owner": "Carthage", "city": "", "in_city": False},
        {"node": "Panormus", "owner": "Carthage", "city": "", "in_city": False},
        {"node": "Panormus", "owner": "Carthage", "city": "Panormus", "in_city": True},  # the city's own, allied
        {"node": "Henna", "owner": "", "city": "Henna", "in_city": True},
    ]}
    carthage, syracuse = _stacks(status, ["Syracuse", "Carthage"], _Places())  # by node
    p = syracuse.properties
    assert (p["node"], p["side"], p["counters"], p["strength"]) == ("Syracuse", "Syracuse", 2, 10)
    assert syracuse.text == "Syr x2" and syracuse.sub == "10 el." and "command 39 (inside)" in dict(syracuse.tooltip)
    p = carthage.properties
    assert (p["node"], p["side"], p["counters"], p["strength"]) == ("Panormus", "Carthage", 2, None)
    assert carthage.text == "Car x2" and not carthage.sub
    assert dict(carthage.tooltip) == {"side": "Carthage", "node": "Panormus", "counters": "2"}


def test_a_places_n_counts_the_city_commands_standing_there_now_and_the_legend_says_so():
    """The "(n)" after a place's name is what the stacks leave out: the commands of a city's own
    (neutral, or another side's ally) standing there now, not the node map's count at the start."""
    status = {"counters": [
        {"node": "Henna", "owner": "", "city": "Henna", "in_city": True},
        {"node": "Henna", "owner": "", "city": "Henna", "in_city": True},
        {"node": "Panormus", "owner": "Carthage", "city": "Panormus", "in_city": True},
        {"node": "Panormus", "owner": "Carthage", "city": "", "in_city": False},  # a side's: in its stack
        {"node": "Gela", "owner": "Syracuse", "city": "Gela", "in_city": True, "id": 7, "side": "Syracuse"},  # the viewer's
    ]}
    assert _city_forces(status) == {"Henna": 2, "Panormus": 1}
    assert _city_forces({"counters": [c for c in status["counters"] if c["node"] != "Henna"]}).get("Henna", 0) == 0
    assert "(n)" in NEUTRAL_WORDS and _styles(["Syracuse"])["place:"].words == NEUTRAL_WORDS
