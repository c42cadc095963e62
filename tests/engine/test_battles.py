"""Engagements, battles and FoG II set-up, with the seed's own examples and numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.vae_victis.battles import (
    Engagement,
    EngagementResult,
    allowed_allies,
    army_battle_outcomes,
    battle_outcomes,
    check_results,
    engagement_setup,
    find_engagements,
    group_battles,
)
from bellica.engine.vae_victis.logistics import logistics_for
from bellica.engine.vae_victis.model import Siege
from bellica.geo.errors import InputError
from tests.engine.boards import sketch
from tests.engine.scenario_rules import first_punic_war_rules

A, B, C, X, Y, Z = 1, 2, 3, 9, 10, 11


def battles(pairs):
    es = group_battles([(a, b, None) for a, b in pairs])
    return sorted({tuple(sorted((e.army_a, e.army_b) for e in es if e.battle == k)) for k in {e.battle for e in es}})


def test_seed_example_1_three_separate_battles():
    assert battles([(A, X), (B, Y), (C, Z)]) == [((A, X),), ((B, Y),), ((C, Z),)]


def test_seed_example_2_shared_opponent_joins():
    assert battles([(A, X), (A, Y), (B, Y), (C, Z)]) == [((A, X), (A, Y), (B, Y)), ((C, Z),)]


def test_seed_example_3_one_battle_of_five():
    got = battles([(A, X), (A, Y), (B, Y), (B, Z), (C, Z)])
    assert got == [((A, X), (A, Y), (B, Y), (B, Z), (C, Z))]


@pytest.fixture(scope="module")
def field():
    return sketch(
        radius=5,
        terrain={"3": "hills", "3 3": "forests", "9 9": "marshes"},
        rivers=["9"],
        roads=[["", "3", "3 3"]],
        structures=[("Roma", "city", "", "roma", True), ("Capua", "town", "5 5", "roma"),
                    ("Carthago", "city", "7 7 7 7", "carthago", True), ("Ravenna", "city", "1 1 1", "carthago")],
    )


def test_find_engagements_mutual_zoc(field):
    m = field
    state = m.state([(1, "carthago", "9"), (2, "carthago", "3 3"), (9, "roma", ""), (10, "roma", "3 3 3 3"), (11, "roma", "5 5 5 5 5")])
    es = find_engagements(m.board, state)
    assert [(e.army_a, e.army_b) for e in es] == [(1, 9)]  # 2 and 10 are two hexes apart
    assert find_engagements(m.board, state, retreats=[1]) == ()


def test_setup_force_points_and_map(field):
    m = field
    # Roman army 9 in Roma (city: +60), Carthaginian army 1 in the river hex west of it (farmlands).
    state = m.state([(1, "carthago", "9", 1480), (9, "roma", "", 1600)])
    es = find_engagements(m.board, state)
    s = engagement_setup(m.board, state, es[0], es, mp_spent={1: 9, 9: 3}, initiative={1: "strength", 9: "strength"})
    carth, rome = s.sides
    # 1480 - 40 (river: spent more MP) + 40 initiative = 1480
    assert carth.fp == 1480 and ("river, spent more MP", -40) in carth.adjustments
    # 1600 + 60 city support, initiative adds nothing above 1600
    assert rome.fp == 1660 and ("initiative (capped at 1600)", 0) in rome.adjustments
    assert s.map == "Mediterranean Agricultural" and s.sets_up == 9  # Roma's hex: farmlands; army 9 spent fewer MP
    assert carth.allies == ()  # no logistics given: not within 6 MP
    text = s.text()
    assert "army 1 (carthago): 1480 FP" in text and "Mediterranean Agricultural" in text and "sets up: army 9" in text
    # FP being transferred this round are not part of the army's strength during the round
    moving = engagement_setup(m.board, state, es[0], es, mp_spent={1: 9, 9: 3}, in_transit={1: 60})
    assert moving.sides[0].fp == 1480 - 60


def test_extra_engagement_penalty_and_initiative_cap(field):
    m = field
    state = m.state([(1, "carthago", "3", 1500), (9, "roma", "", 1550), (10, "roma", "3 3", 1600)])
    es = find_engagements(m.board, state)
    assert len(es) == 2 and {e.battle for e in es} == {1}
    s = engagement_setup(m.board, state, es[0], es, mp_spent={1: 6, 9: 6, 10: 6})
    carth = s.sides[0]
    assert ("1 extra engagement in the battle", -100) in carth.adjustments
    assert carth.fp == 1500 - 100 + 40
    assert s.map == "Mediterranean Agricultural"  # equal MP: farmlands (Roma) before hills
    assert s.sets_up == 1  # equal MP: the weaker army sets up (strength 1500 < 1550)


def test_assault_defender_force_ravenna(field):
    m = field
    # Seed: Ravenna, start Resilience 4, currently 3, brings 1400 + 50 x 3 = 1550 FP.
    state = m.state([(9, "roma", "1 1")], sieges=[Siege("Ravenna", "roma", (9,), 3, 4, 1)])
    es = find_engagements(m.board, state, assaults={9: "Ravenna"})
    assert es == (Engagement(1, 1, 9, None, "Ravenna"),)
    s = engagement_setup(m.board, state, es[0], es, mp_spent={9: 1})
    assert s.sides[1].fp == 1550 and s.sides[1].faction == "carthago" and s.sides[1].allies == ()
    assert s.sets_up == 9
    with pytest.raises(InputError):
        find_engagements(m.board, state, assaults={9: "Carthago"})


def test_allies_within_six_mp(field):
    m = replace(field, board=replace(field.board, rules=first_punic_war_rules()))
    state = m.state([(1, "carthago", "7 7 7 7"), (9, "roma", "7 7 7 9")])
    lg = logistics_for(m.board, state)
    es = find_engagements(m.board, state)
    s = engagement_setup(m.board, state, es[0], es, mp_spent={1: 0, 9: 4}, start_logistics=lg)
    assert s.sides[0].allies == ("Numidian 341-56 BC", "Moorish 341-56 BC")
    assert s.sides[1].allies == ()  # Roma has no allies of its own


def test_results_validation_and_outcomes(field):
    m = field
    state = m.state([(1, "carthago", "3"), (9, "roma", ""), (10, "roma", "3 3")])
    es = find_engagements(m.board, state)
    with pytest.raises(InputError, match="no result"):
        check_results(es, [EngagementResult(1, 1, "win", 10), EngagementResult(1, 9, "loss", 30)])
    with pytest.raises(InputError, match="disagree"):
        check_results(es[:1], [EngagementResult(1, 1, "win", 10), EngagementResult(1, 9, "win", 30)])
    results = [
        EngagementResult(1, 1, "win", 10), EngagementResult(1, 9, "loss", 30),
        EngagementResult(2, 1, "draw", 20), EngagementResult(2, 10, "draw", 20),
    ]
    out = battle_outcomes(m.board, state, es, results)
    assert out[1].winner == "carthago" and out[1].loser == "roma"
    assert army_battle_outcomes(state, es, out) == {1: "win", 9: "loss", 10: "loss"}
    even = [
        EngagementResult(1, 1, "win", 10), EngagementResult(1, 9, "loss", 30),
        EngagementResult(2, 1, "loss", 20), EngagementResult(2, 10, "win", 20),
    ]
    assert battle_outcomes(m.board, state, es, even)[1].winner is None


# --- the seed's FP adjustments, one by one ------------------------------------------------


def test_three_engagements_cost_200_in_each(field):
    # Seed: "an army fighting three engagements in the same battle suffers a -200 FP penalty
    # in each of these three engagements"; its opponents fight one each and pay nothing.
    m = field
    state = m.state([(1, "carthago", "11 11", 1500), (9, "roma", "11 11 11"), (10, "roma", "11 11 9"),
                     (11, "roma", "11 11 1")])
    es = find_engagements(m.board, state)
    assert sorted((e.army_a, e.army_b) for e in es) == [(1, 9), (1, 10), (1, 11)] and {e.battle for e in es} == {1}
    for e in es:
        s = engagement_setup(m.board, state, e, es, mp_spent={1: 2, 9: 2, 10: 2, 11: 2})
        carth, rome = s.sides
        assert ("2 extra engagements in the battle", -200) in carth.adjustments
        assert carth.fp == 1500 - 200 + 40
        assert rome.fp == 1600 and not any("extra" in why for why, _ in rome.adjustments)


def test_town_30_city_60_and_30_one_hex_away(field):
    m = field
    # army 9 in Capua (Roman town): +30; army 10 one hex from Roma (Roman city): +30; army 11 in Roma: +60
    state = m.state([(9, "roma", "5 5", 1500), (2, "carthago", "5 5 5", 1500),
                     (10, "roma", "1", 1500), (3, "carthago", "1 1", 1500)])
    es = find_engagements(m.board, state)
    setups = {e.army_b: engagement_setup(m.board, state, e, es, mp_spent={}) for e in es}
    town, city1 = setups[9].sides[1], setups[10].sides[1]
    assert ("support of Capua", 30) in town.adjustments and town.fp == 1500 + 30 + 40
    assert ("support of Roma", 30) in city1.adjustments and city1.fp == 1500 + 30 + 40
    assert setups[9].sides[0].fp == 1540  # no support for the attacker in the open
    in_roma = m.state([(11, "roma", "", 1500), (3, "carthago", "1", 1500)])
    es = find_engagements(m.board, in_roma)
    rome = engagement_setup(m.board, in_roma, es[0], es, mp_spent={}).sides[1]
    assert ("support of Roma", 60) in rome.adjustments and rome.fp == 1500 + 60 + 40


def test_river_equal_mp_no_penalty_and_initiative_tops_up_to_1600(field):
    m = field
    state = m.state([(1, "carthago", "9", 1580), (9, "roma", "", 1500)])
    es = find_engagements(m.board, state)
    s = engagement_setup(m.board, state, es[0], es, mp_spent={1: 4, 9: 4})
    carth = s.sides[0]
    assert not any("river" in why for why, _ in carth.adjustments)
    assert ("initiative (capped at 1600)", 20) in carth.adjustments and carth.fp == 1600  # 1580 + 20, not + 40
    # the initiative point given to a sea zone adds nothing
    s = engagement_setup(m.board, state, es[0], es, mp_spent={1: 4, 9: 4}, initiative={1: "Mare Tyrrhenum"})
    assert s.sides[0].fp == 1580


def test_map_terrain_priority_forests_before_marshes():
    m = sketch(radius=2, terrain={"": "forests", "3": "marshes"})
    state = m.state([(1, "carthago", "3"), (9, "roma", "")])
    es = find_engagements(m.board, state)
    assert engagement_setup(m.board, state, es[0], es, mp_spent={1: 5, 9: 5}).map == "Mediterranean Wooded"
    assert engagement_setup(m.board, state, es[0], es, mp_spent={1: 4, 9: 5}).map == "Mediterranean Marshy"
    s = engagement_setup(m.board, state, es[0], es, mp_spent={1: 6, 9: 5})
    assert s.map == "Mediterranean Wooded" and s.sets_up == 9
    # seed: Open Battle scenario, Large (40 x 32) map, no map re-rolls
    assert s.scenario == "Open Battle, Large (40 x 32), no map re-rolls" and s.scenario in s.text()


def test_blockaded_ravenna_4_defender_brings_1550(field):
    # Seed: a blockade lowers the Resilience by 1 (Ravenna 4 -> 3), and the assault's defender
    # brings 1400 + 50 x the *current* Resilience: 1400 + 50 x 3 = 1550, not 1600.
    m = field
    state = m.state([(9, "roma", "1 1")], sieges=[Siege("Ravenna", "roma", (9,), 4, 4, 1)])
    es = find_engagements(m.board, state, assaults={9: "Ravenna"})
    assert engagement_setup(m.board, state, es[0], es, mp_spent={9: 1}).sides[1].fp == 1600
    s = engagement_setup(m.board, state, es[0], es, mp_spent={9: 1}, blockaded={"Ravenna"})
    assert s.sides[1].fp == 1550 and "blockaded" in s.text()


def test_assaulting_army_keeps_its_own_city_support():
    # Seed: an assault "is resolved like all other engagements" except for the differences it
    # lists (map, defender FP, defender's list and allies, who sets up, who suffers casualties);
    # structure support is not one of them.  Army 9 (1500 FP) one hex from Roman Roma assaults
    # the Carthaginian town next to it: 1500 + 30 + 40 = 1570 (it used to get no +30).
    m = sketch(radius=3, structures=[("Roma", "city", "", "roma", True), ("Fregellae", "town", "1 1", "carthago")])
    state = m.state([(9, "roma", "1", 1500)], sieges=[Siege("Fregellae", "roma", (9,), 1, 1, 1)])
    es = find_engagements(m.board, state, assaults={9: "Fregellae"})
    s = engagement_setup(m.board, state, es[0], es, mp_spent={9: 0})
    attacker, defender = s.sides
    assert ("support of Roma", 30) in attacker.adjustments and attacker.fp == 1570
    assert defender.fp == 1400 + 50 * 1 and s.sets_up == 9


def test_battle_beside_an_assault_on_a_third_faction_is_judged_per_enemy():
    # Seed: a faction wins a battle "against an enemy faction" when it won more engagements than
    # it lost.  Roman army 9 assaults Syracusan Gela and wins, and draws with Carthaginian army 1
    # that came to fight it: Roma beat Syracusae, but against Carthago the battle is a draw, so
    # army 1 drew (it used to count as having lost the battle, and would have been removed).
    m = sketch(radius=3, structures=[("Gela", "city", "3", "syracusae")])
    state = m.state([(1, "carthago", "9"), (9, "roma", "")], sieges=[Siege("Gela", "roma", (9,), 2, 2, 1)])
    es = find_engagements(m.board, state, assaults={9: "Gela"})
    assert [(e.army_a, e.army_b, e.assault, e.battle) for e in es] == [(1, 9, None, 1), (9, None, "Gela", 1)]
    results = [EngagementResult(1, 1, "draw", 20), EngagementResult(1, 9, "draw", 20),
               EngagementResult(2, 9, "win", 10)]
    out = battle_outcomes(m.board, state, es, results)[1]
    assert out.versus == {("carthago", "roma"): "draw", ("roma", "carthago"): "draw",
                          ("roma", "syracusae"): "win", ("syracusae", "roma"): "loss"}
    assert army_battle_outcomes(state, es, {1: out}) == {1: "draw", 9: "win"}
