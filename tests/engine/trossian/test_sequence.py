"""A short scripted campaign on the tiny world: phases, a battle, a siege, the ice, winter, spring."""

from __future__ import annotations

import json

import pytest

from bellica.engine.core.events import to_json

from bellica.engine.trossian import battles, couriers, movement, navies, treasury, turn
from bellica.engine.trossian.model import WINTER, Courier, Navy, state_from_dict, state_to_dict
from bellica.engine.trossian.rules import rules_with
from bellica.geo.errors import InputError

from .test_economy import DECK, TWENTY
from .tiny import Scripted, army, tiny_scenario, tiny_state

# The year as it is played without city garrisons (Cport falls to the blockade alone);
# test_table_top_rules.py plays the garrisons.
R = rules_with({"pacification": {"garrison_town": [], "garrison_port": []}})


def test_a_year_on_the_tiny_world():
    s = tiny_scenario(DECK)
    st = tiny_state([army(1, "Red", "A", *TWENTY), army(2, "Blue", "C", "hq", "line_infantry")],
                    navies=[Navy(70, "Red", "North", "port:Aport"), Navy(71, "Blue", "South", "port:Dport")],
                    phase=0, banks={"Red": {"A": 5}})
    st = st.with_couriers(Courier(80, "Red", "A"))
    from dataclasses import replace
    st = replace(st, scheduled=0)
    log = []

    # Early Spring 1801: the schedule (Red 9 -> Late Autumn; Blue 10 -> 2 and 4), no cards yet
    st, ev = turn.begin_phase(s, st, R, Scripted(faces=[9, 10, 2, 4]))
    log += ev
    assert st.nations["Red"].schedule == (8,) and st.nations["Blue"].schedule == (1, 3)
    with pytest.raises(InputError, match="frozen"):                   # North is iced in Early Spring
        navies.navy_actions(s, st, R, 70, [("put_out",), ("sail", "South")])
    st, ev = couriers.send_courier(s, st, "Red", 80, "march on C", "army 1")
    st, ev = movement.move_army(s, st, R, 1, ["B", "C"])              # by road: 2 provinces
    st, ev = turn.contact(s, st, R, Scripted())
    assert len(st.battles) == 1
    # the table: Red wins; Blue's HQ routed; attrition: Red's 9 units remain (one d6 each), Blue's two
    red_faces = [3] * 9
    st, ev = battles.resolve_battle(s, st, R, st.battles[0].id, "a", {21: "routed"},
                                    Scripted(faces=red_faces + [5, 6]), retreats={2: "D"})
    assert st.army(2).province == "D" and st.army(1).rest == 1
    st, ev = turn.end_phase(s, st, R)
    assert st.phase == 1 and st.control["C"] == "Blue"                 # the battle spoiled the phase

    # Mid Spring: Blue's card (die 4: the spy, for the umpire); Red rests and besieges; the navy blockades
    st, ev = turn.begin_phase(s, st, R, Scripted(faces=[4]))
    assert any(e.kind == "card_for_umpire" for e in ev)
    with pytest.raises(InputError, match="rest"):
        movement.move_army(s, st, R, 1, ["D"])
    st, ev = navies.navy_actions(s, st, R, 70, [("put_out",), ("sail", "South")])
    st, ev = turn.contact(s, st, R, Scripted())
    st, ev = turn.end_phase(s, st, R)
    assert st.control["C"] == "Blue"                                   # the navy came this phase: no blockade yet
    assert any(e.kind == "siege_unblockaded" for e in ev)
    assert st.army(1).rest == 0

    # Late Spring: a full phase, blockaded the whole of it: Cport falls
    st, ev = turn.begin_phase(s, st, R, Scripted())
    st, ev = turn.contact(s, st, R, Scripted())
    st, ev = turn.end_phase(s, st, R)
    assert st.control["C"] == "Red"

    # Early Summer to Late Autumn: nothing moves; Blue's second card in Early Summer (die 2: gold)
    while st.phase != WINTER:
        st, ev = turn.begin_phase(s, st, R, Scripted(faces=[2]) if st.phase in (3, 8) else Scripted())
        log += ev
        if st.phase == 7:
            st, _ = navies.navy_actions(s, st, R, 70, [("sail", "North")])   # caught in the ice next phase
        st, ev = turn.contact(s, st, R, Scripted())
        st, ev = turn.end_phase(s, st, R)
        log += ev
    assert not [n for n in st.navies if n.id == 70]                     # lost in Late Autumn
    # winter: Red holds A (6), B (2), C (6); Blue D (6) + its card's 6 AP
    assert st.nations["Red"].bank == {"A": 5 + 14 + 6}                 # Red's Late Autumn card: gold as well
    assert st.nations["Blue"].bank == {"D": 6 + 6}
    st, ev = treasury.recruit(s, st, R, "Red", "C", ["hq", "light_cavalry"])
    assert st.nations["Red"].bank == {"A": 18}
    st, ev = turn.end_winter(s, st, R)
    assert (st.year, st.phase) == (1802, 0)

    # every event's data is JSON; the state is JSON-able and reads back the same
    for e in log:
        json.loads(to_json(e.data))
    assert {e.kind for e in log} >= {"phase", "card_schedule", "winter_quarters", "income", "navy_lost"}
    data = json.loads(json.dumps(state_to_dict(st)))
    assert state_from_dict(data) == st


def test_end_phase_refuses_open_battles():
    s = tiny_scenario(DECK)
    st = tiny_state([army(1, "Red", "B", "hq", "line_infantry"), army(2, "Blue", "B", "hq", "line_infantry")])
    with pytest.raises(InputError, match="run contact"):
        turn.end_phase(s, st, R)
    st, _ = turn.contact(s, st, R, Scripted())
    with pytest.raises(InputError, match="enter their results"):
        turn.end_phase(s, st, R)


def test_allies_fight_together_and_armies_split_and_join():
    s = tiny_scenario(DECK)
    st = tiny_state([army(1, "Red", "B", "hq", "line_infantry", "light_cavalry", "hq"), army(2, "Blue", "B", "hq")])
    st, _ = turn.set_alliance(st, "Red", "Blue")
    st2, ev = turn.contact(s, st, R, Scripted())
    assert not st2.battles
    st, ev = movement.detach(st, 1, [13, 14], name="patrol")
    patrol = [a for a in st.armies if a.name == "patrol"][0]
    assert [u.id for u in patrol.units] == [13, 14] and patrol.has_hq and not patrol.standing
    st, ev = movement.merge(st, [1, patrol.id])
    assert [u.id for u in st.army(1).units] == [11, 12, 13, 14] and len(st.armies) == 2
    with pytest.raises(InputError, match="one nation in one place"):
        movement.merge(st, [1, 2])
