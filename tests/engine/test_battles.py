"""Engagements, battles and FoG II set-up, with the seed's own examples and numbers."""

from __future__ import annotations

import pytest

from engine.battles import (
    Engagement,
    EngagementResult,
    army_battle_outcomes,
    battle_outcomes,
    check_results,
    engagement_setup,
    find_engagements,
    group_battles,
)
from engine.logistics import logistics_for
from engine.model import Siege
from geo.errors import InputError
from tests.engine.boards import sketch

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
    m = field
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
