"""Movement by arm and road, contact, battles and the post-battle attrition, on the tiny world."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.trossian import battles, movement, turn
from bellica.engine.trossian.model import Unit
from bellica.engine.trossian.rules import default_rules, rules_with
from bellica.geo.errors import InputError

from .tiny import Scripted, army, tiny_scenario, tiny_state

R = default_rules()
S = tiny_scenario()


# --- movement -------------------------------------------------------------------------------


def test_speed_is_the_slowest_arm():
    assert movement.army_speed(R, [Unit(1, "line_infantry")]) == 1
    assert movement.army_speed(R, [Unit(1, "foot_artillery")]) == 1
    assert movement.army_speed(R, [Unit(1, "hq"), Unit(2, "light_cavalry")]) == 2
    assert movement.army_speed(R, [Unit(1, "light_cavalry"), Unit(2, "line_infantry")]) == 1


def test_road_bonus_only_for_a_whole_move_along_roads():
    assert movement.path_speed(S, R, 1, "A", ["B", "C"]) == 2          # A-B-C all road
    assert movement.path_speed(S, R, 1, "B", ["E"]) == 1               # B-E no road
    assert movement.path_speed(S, R, 2, "A", ["B", "E"]) == 2          # part road: no bonus


def test_infantry_one_province_two_along_a_road():
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry")])
    st2, ev = movement.move_army(S, st, R, 1, ["B", "C"])              # road A-B-C: 1 + 1
    assert st2.army(1).province == "C" and ev[0].data["speed"] == 2
    st = tiny_state([army(1, "Red", "B", "hq", "line_infantry")])
    with pytest.raises(InputError, match="beyond its 1"):
        movement.move_army(S, st, R, 1, ["E", "B"])


def test_mounted_two_couriers_four():
    st = tiny_state([army(1, "Red", "E", "hq", "light_cavalry")])
    st2, _ = movement.move_army(S, st, R, 1, ["B", "A"])               # E-B no road: 2 provinces
    assert st2.army(1).province == "A"
    assert R.movement.courier == 4


def test_contact_stops_the_move_and_no_hq_no_contact():
    st = tiny_state([army(1, "Red", "A", "hq", "light_cavalry"), army(2, "Blue", "B", "hq", "line_infantry")])
    with pytest.raises(InputError, match="stop the move"):
        movement.move_army(S, st, R, 1, ["B", "C"])
    st2, _ = movement.move_army(S, st, R, 1, ["B"])
    assert st2.army(1).province == "B"
    headless = tiny_state([army(1, "Red", "A", "light_cavalry"), army(2, "Blue", "B", "hq", "line_infantry")])
    with pytest.raises(InputError, match="no HQ"):
        movement.move_army(S, headless, R, 1, ["B"])
    # but it can be attacked
    st3, _ = movement.move_army(S, headless, R, 2, ["A"])
    _, ev = battles.find_battles(S, st3)
    assert ev and ev[0].data["province"] == "A"


def test_resting_army_does_not_move():
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry", rest=1)])
    with pytest.raises(InputError, match="rest"):
        movement.move_army(S, st, R, 1, ["B"])


def test_headless_army_marches_home():
    st = tiny_state([army(1, "Red", "C", "line_infantry", standing="home")])
    st = replace(st, control={**st.control, "C": "Red"})
    st2, ev = movement.march_home(S, st, R)
    # C -> B by road; B is a Red home but no city; A (Aport) is: infantry 1 + road 1 = 2
    assert st2.army(1).province == "A" and ev[0].kind == "army_marched_home"


# --- attrition ------------------------------------------------------------------------------

def _elim(rules, result, fate, unit):
    return [f for f in range(1, 7) if battles.eliminated(rules, result, fate, unit, f)]


LINE = Unit(1, "line_infantry")
GUARD = Unit(2, "heavy_infantry", "guard")
HQ = Unit(3, "hq")
MILITIA = Unit(4, "militia_infantry", "militia")


@pytest.mark.parametrize("result, fate, faces", [
    ("winner", "destroyed", [1, 2]), ("winner", "remaining", [1]), ("winner", "routed", [1]),
    ("loser", "destroyed", [1, 2, 3]), ("loser", "remaining", [1]), ("loser", "routed", [1, 2]),
    ("draw", "destroyed", [1, 2]), ("draw", "remaining", []), ("draw", "routed", [1]),
])
def test_attrition_thresholds_for_line_units(result, fate, faces):
    assert _elim(R, result, fate, LINE) == faces


@pytest.mark.parametrize("result, guard, militia", [
    ("winner", [1], [1, 2, 3]), ("loser", [1, 2], [1, 2, 3, 4]), ("draw", [1], [1, 2, 3]),
])
def test_guard_hq_and_militia_on_destroyed_units(result, guard, militia):
    assert _elim(R, result, "destroyed", GUARD) == guard
    assert _elim(R, result, "destroyed", HQ) == guard
    assert _elim(R, result, "destroyed", MILITIA) == militia
    # modifiers only on the destroyed roll (options.modifiers_on)
    assert _elim(R, result, "routed", GUARD) == _elim(R, result, "routed", LINE)


def test_as_written_modifiers():
    r = rules_with({"options": {"attrition_modifiers": "as_written"}})
    assert _elim(r, "winner", "destroyed", GUARD) == [1, 2, 3]     # -1 to the roll, low is bad
    assert _elim(r, "winner", "destroyed", MILITIA) == [1]
    assert _elim(r, "draw", "destroyed", GUARD) == [1]             # +1 in the draw
    r = rules_with({"options": {"attrition_modifiers": "draw_as_others"}})
    assert _elim(r, "draw", "destroyed", GUARD) == [1, 2, 3]


# --- battles --------------------------------------------------------------------------------


def _battle():
    st = tiny_state([army(1, "Red", "B", "hq", "line_infantry", "light_cavalry"),
                     army(2, "Blue", "B", "hq", "line_infantry", "foot_artillery")])
    st, ev = battles.find_battles(S, st)
    assert len(st.battles) == 1 and ev[0].kind == "battle"
    return st, st.battles[0].id


def test_winner_rests_loser_retreats_with_attrition():
    st, bid = _battle()
    fates = {12: "destroyed", 22: "routed", 23: "destroyed"}
    # winner (a): 11 hq remaining 1 roll, 12 destroyed roll, 13 remaining; loser: 21, 22 routed, 23 destroyed
    dice = Scripted(faces=[2, 2, 1, 1, 2, 4])
    st2, ev = battles.resolve_battle(S, st, R, bid, "a", fates, dice, retreats={2: "C"})
    red, blue = st2.army(1), st2.army(2)
    assert [u.id for u in red.units] == [11] and red.rest == 1 and red.province == "B"
    # loser: hq (remaining, d6 1: gone), routed 22 d6 2 -> gone (1-2), destroyed 23 d6 4 -> survives (1-3)
    assert [u.id for u in blue.units] == [23] and blue.province == "C" and blue.standing == "hold"
    assert not st2.battles
    assert [e.data["roll"] for e in ev if e.kind == "attrition"] == [2, 2, 1, 1, 2, 4]


def test_loser_without_a_safe_retreat_is_destroyed():
    st = tiny_state([army(1, "Red", "C", "hq", "line_infantry"), army(2, "Blue", "C", "hq", "line_infantry")])
    st = replace(st, control={**st.control, "D": "Red"})
    st, _ = battles.find_battles(S, st)
    # Blue in C: neighbours B (Red) and D (now Red): nowhere to go
    st2, ev = battles.resolve_battle(S, st, R, st.battles[0].id, "a", {}, Scripted(faces=[6, 6, 6, 6]))
    assert not [a for a in st2.armies if a.nation == "Blue"]
    assert any(e.kind == "army_destroyed" and "retreat" in e.data["why"] for e in ev)


def test_draw_both_retreat_and_freeze():
    st, bid = _battle()
    # draw: no roll for remaining units
    st2, ev = battles.resolve_battle(S, st, R, bid, "draw", {}, Scripted(faces=[]), retreats={1: "A", 2: "C"})
    assert st2.army(1).province == "A" and st2.army(2).province == "C"
    assert st2.army(1).rest == 1 and st2.army(2).rest == 1
    st3, _ = turn.end_phase(S, st2, R)                   # the phase of the battle ends
    with pytest.raises(InputError, match="rest"):        # frozen the following phase
        movement.move_army(S, st3, R, 1, ["B"])
    st4, _ = turn.end_phase(S, st3, R)
    st5, _ = movement.move_army(S, st4, R, 1, ["B"])     # free again
    assert st5.army(1).province == "B"


def test_bad_results_are_one_line():
    st, bid = _battle()
    with pytest.raises(InputError, match="give \"a\", \"b\" or \"draw\""):
        battles.resolve_battle(S, st, R, bid, "red", {}, Scripted())
    with pytest.raises(InputError, match="did not fight"):
        battles.resolve_battle(S, st, R, bid, "a", {99: "routed"}, Scripted())


def test_retreat_into_options():
    st = tiny_state([army(1, "Blue", "B", "hq", "line_infantry")])
    assert movement.retreat_options(S, st, R, st.army(1)) == ("C", "E")          # A is Red's
    r = rules_with({"options": {"retreat_into": "any_free"}})
    assert movement.retreat_options(S, st, r, st.army(1)) == ("A", "C", "E")
    with pytest.raises(InputError, match="cannot retreat into A"):
        movement.retreat(S, st, R, 1, "A")


def test_co_victors_not_allied_meet_at_the_next_contact_not_a_refused_phase_end():
    # Blue and Green (not allied) beat Red in B side by side; the phase ends (it refused with
    # "enemies share B", a bot game's third round), and the next contact opens Blue against Green.
    st = tiny_state([army(1, "Red", "B", "hq", "line_infantry"), army(2, "Blue", "B", "hq", "line_infantry"),
                     army(3, "Green", "B", "hq", "line_infantry")])
    st, ev = battles.find_battles(S, st)
    assert [e.data["nations"] for e in ev] == [[["Red"], ["Blue", "Green"]]]
    st, _ = battles.resolve_battle(S, st, R, st.battles[0].id, "b", {}, Scripted(faces=[6] * 6), retreats={1: "A"})
    st, _ = turn.end_phase(S, st, R)
    st, ev = battles.find_battles(S, st)
    assert [e.data["nations"] for e in ev] == [[["Blue"], ["Green"]]]
