"""Victory points (the seed's table) and the five victory conditions."""

from __future__ import annotations

import pytest

from bellica.engine.vae_victis.battles import Engagement, EngagementResult
from bellica.engine.vae_victis.model import Event
from bellica.engine.vae_victis.victory import check_victory, round_victory_points, score_round
from tests.engine.boards import sketch


@pytest.fixture(scope="module")
def m():
    return sketch(radius=3, structures=[
        ("Roma", "city", "", "roma", True), ("Carthago", "city", "9 9", "carthago", True),
        ("Capua", "town", "3 3", "roma"), ("Ravenna", "city", "5 5", "syracusae"),
    ])


def test_engagement_points(m):
    state = m.state([(1, "carthago", "9"), (2, "carthago", "11"), (9, "roma", "3"), (10, "roma", "1")])
    es = [Engagement(1, 1, 1, 9), Engagement(2, 2, 2, 10)]
    results = [EngagementResult(1, 1, "win", 10), EngagementResult(1, 9, "loss", 40),
               EngagementResult(2, 2, "draw", 20), EngagementResult(2, 10, "draw", 20)]
    vp, events = round_victory_points(m.board, state, es, results)
    # carthago: won (+1 +3) and drew (+1 -1) = +4; roma: lost (+1 -3) and drew (+1 -1) = -2
    assert vp == {"carthago": 4, "roma": -2}
    assert all(e.text for e in events)


def test_retreat_and_assault_points(m):
    state = m.state([(1, "carthago", "9"), (9, "roma", "5")])
    vp, _ = round_victory_points(m.board, state, retreats=[(1, 9)])
    assert vp == {"carthago": -1, "roma": 1}
    es = [Engagement(1, 1, 9, None, "Ravenna")]
    vp, _ = round_victory_points(m.board, state, es, [EngagementResult(1, 9, "loss", 30)])
    assert vp == {"roma": -2, "syracusae": 4}


def control(structure, kind, frm, to, how, start, surrendered=False):
    return Event(1, "administration", "control_changed", {
        "structure": structure, "structure_kind": kind, "from": frm, "to": to, "how": how,
        "start_resilience": start, "surrendered": surrendered})


def test_structure_points(m):
    state = m.state([])
    vp, _ = round_victory_points(m.board, state, control_events=[control("Ravenna", "city", "syracusae", "roma", "siege", 4)])
    assert vp == {"roma": 2, "syracusae": -3}  # -2 for the City, -1 more: lost without surrendering from 4
    vp, _ = round_victory_points(m.board, state, control_events=[control("Ravenna", "city", "syracusae", "roma", "surrender", 4, True)])
    assert vp == {"roma": 2, "syracusae": -2}
    vp, _ = round_victory_points(m.board, state, control_events=[control("Capua", "town", "roma", "carthago", "siege", 1)])
    assert vp == {"carthago": 1, "roma": -1}  # started below 2: no extra penalty
    vp, _ = round_victory_points(m.board, state, control_events=[control("Capua", "town", None, "carthago", "zoc", None)])
    assert vp == {}  # not gained *from another faction*


def test_five_conditions(m):
    base = [(1, "carthago", "9"), (9, "roma", "3")]
    assert check_victory(m.board, m.state(base, victory_points={"roma": 49, "carthago": 20}))[0].winner is None
    assert check_victory(m.board, m.state(base, victory_points={"roma": 50, "carthago": 30}))[0].winner == "roma"
    assert check_victory(m.board, m.state(base, victory_points={"roma": 10, "carthago": 40}))[0].winner == "carthago"
    assert check_victory(m.board, m.state(base, control={"Carthago": "roma"}))[0].winner == "roma"
    assert check_victory(m.board, m.state([(1, "carthago", "9", 1600, True), (9, "roma", "3")]))[0].winner == "roma"
    check, events = check_victory(m.board, m.state([(1, "carthago", "9", 1199), (2, "carthago", "11", 1100), (9, "roma", "3", 1199)]))
    assert check.winner is None and set(check.met) == {"roma", "carthago"}  # both below 1200: equal VP, nobody yet
    check, events = check_victory(m.board, m.state([(1, "carthago", "9", 1199), (9, "roma", "3", 1200)]))
    assert check.winner == "roma" and "below 1200 FP" in events[0].text


def test_score_round(m):
    s = score_round(m.board, m.state([], victory_points={"roma": 3}), {"roma": -2, "carthago": 4})
    assert s.victory_points["roma"] == 1 and s.victory_points["carthago"] == 4


def test_lost_without_surrendering_from_resilience_2_by_assault(m):
    # Seed: -1 more for a Town or City lost without surrendering "if the Town or City's
    # Resilience level started at 2 or higher": a town that started at exactly 2, taken by assault.
    state = m.state([])
    vp, events = round_victory_points(m.board, state, control_events=[control("Capua", "town", "roma", "carthago", "assault", 2)])
    assert vp == {"carthago": 1, "roma": -2}
    assert any("without surrendering" in e.text for e in events)
    vp, _ = round_victory_points(m.board, state, control_events=[control("Capua", "town", "roma", "carthago", "surrender", 2, True)])
    assert vp == {"carthago": 1, "roma": -1}
