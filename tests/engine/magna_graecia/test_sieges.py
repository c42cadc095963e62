"""Sieges: the element ratio, the fall roll at 8+ and its modifiers, disease, the fall, salvage, lifting."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.magna_graecia import battles, cities, fleets, movement, retreats, sieges, turn
from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.model import Command, Fleet, NodeMap, Place, Retreat, Siege
from bellica.engine.magna_graecia.rules import rules_with
from bellica.engine.magna_graecia.victory import victory_points
from bellica.geo.errors import InputError

from .tiny import MAP, R, game

SMAP = NodeMap({**MAP.places, "Syracuse": Place("Syracuse", coastal=True, fortified=True, commands=1)}, MAP.links)


def besieged(besiegers: int, inside: int, *, node="Oppidum", rolls=0, np=0, turn=2, disease=0, started=1):
    """Red besieges ``node`` with one command of ``besiegers`` effective elements against
    ``inside`` elements of Blue's; Red's fleet there with ``np`` NP (none if 0)."""
    s = game()
    keep = [c for c in s.commands if c.node != node and c.side != "Red" and c.id != 6]
    red = Command(50, "Red", node, {"Sp(O)": besiegers - 1}, general="Cv(O)")
    blue = Command(60, "Blue", node, {"Sp(O)": inside - 1}, general="Cv(O)", in_city=True)
    s = replace(s, commands=tuple(keep) + (red, blue), turn=turn, phase="movement",
                fleets=tuple(f for f in s.fleets if f.side != "Red") + ((Fleet("Red", node, np),) if np else ()),
                sieges=(Siege(node, "Red", "Blue", started=started, rolls=rolls, disease=disease),))
    if node in s.cities:
        s = s.with_city(node, ally="Blue")
    return s


def roll(s, value, nmap=MAP, rules=R, node="Oppidum", more=None):
    d = Dice(1, {f"siege/{s.turn}/{node}/Red": value, **(more or {})})
    return sieges.siege_turn(s, nmap, rules, d)


@pytest.mark.parametrize("red, blue, mod", [(10, 10, 0), (19, 10, 0), (20, 10, 1), (29, 10, 1), (30, 10, 2)])
def test_ratio_modifiers(red, blue, mod):
    s = besieged(red, blue)
    assert sieges.siege_modifiers(s, MAP, R, s.sieges[0]).get("ratio", 0) == mod


def test_ratio_modifiers_cumulative_option():
    s = besieged(30, 10)
    assert sieges.siege_modifiers(s, MAP, rules_with({"options": {"ratio_modifiers": "cumulative"}}), s.sieges[0])["ratio"] == 3


def test_syracuse_minus_four_and_consecutive_turns():
    s = besieged(10, 10, node="Syracuse", rolls=3)
    assert sieges.siege_modifiers(s, SMAP, R, s.sieges[0]) == {"city": -4, "consecutive_turns": 3}


@pytest.mark.parametrize("red, rolls, die, falls", [
    (10, 0, 6, False),     # unmodified: 8 cannot be rolled
    (20, 0, 6, False),     # 2:1: 7
    (20, 1, 6, True),      # 2:1 and a second turn: 8
    (30, 0, 6, True),      # 3:1: 8
    (30, 0, 5, False),
    (10, 2, 6, True),      # third turn in a row: +2
])
def test_fall_needs_eight(red, rolls, die, falls):
    s = besieged(red, 10, rolls=rolls)
    s2, ev = roll(s, die)
    e = next(e for e in ev if e.kind == "siege_roll")
    assert e.data["needed"] == 8 and e.data["falls"] is falls
    assert (s2.siege_at("Oppidum") is None) is falls


def test_fall_destroys_the_defenders_and_costs_a_fifth_of_their_force():
    s = besieged(30, 10)
    s2, ev = roll(s, 6)
    assert all(c.id != 60 for c in s2.commands)
    assert s2.command(50).element_count() == 28                     # 20% of 10
    assert s2.cities["Oppidum"].ally == "Red" and s2.cities["Oppidum"].holder == "Red"
    assert s2.sides["Red"].commanders_destroyed == 1
    s = besieged(36, 12)
    s3, _ = roll(s, 6)
    assert s3.command(50).element_count() == 33                     # 2.4 rounded up (option percent_rounding)


def test_no_roll_while_besiegers_move_or_before_a_full_turn():
    s = besieged(30, 10, started=2)
    s2, ev = roll(s, 6)
    assert not any(e.kind == "siege_roll" for e in ev)
    s = besieged(30, 10, rolls=2)
    s = s.with_command(replace(s.command(50), moved=True))
    s3, ev = roll(s, 6)
    assert not any(e.kind == "siege_roll" for e in ev) and s3.siege_at("Oppidum").rolls == 0


def test_naval_points_count_for_a_coastal_siege():
    s = besieged(10, 10, np=20)
    assert sieges.besieging_strength(s, MAP, R, s.sieges[0]) == 30
    assert sieges.siege_modifiers(s, MAP, R, s.sieges[0])["ratio"] == 2


def test_disease_on_a_natural_one_then_a_tenth_lost_on_a_one():
    s = besieged(30, 10)
    s2, ev = roll(s, 1)
    assert next(e for e in ev if e.kind == "siege_roll").data["disease"] is True
    assert s2.siege_at("Oppidum").disease == 2
    # Blue, inside, rolls in its own later turn; so does Red in the next turn
    s3 = replace(s2, current=1)
    s3, ev = sieges.siege_turn(s3, MAP, R, Dice(1, {"disease/2/Oppidum/Blue": 1}))
    assert s3.command(60).element_count() == 9
    s4 = replace(s3, current=0, turn=3)
    s4, ev = sieges.siege_turn(s4, MAP, R, Dice(1, {"disease/3/Oppidum/Red": 1, "siege/3/Oppidum/Red": 2}))
    assert s4.command(50).element_count() == 27                     # 10% of 30
    s5, ev = sieges.siege_turn(replace(s3, current=0, turn=3), MAP, R, Dice(1, {"disease/3/Oppidum/Red": 2, "siege/3/Oppidum/Red": 2}))
    assert s5.command(50).element_count() == 30


def test_modifiers_on_the_disease_roll_as_an_option():
    both = rules_with({"options": {"siege_modifiers_apply": "both"}})
    s = besieged(30, 10, turn=3, disease=2, rolls=1)
    d = {"disease/3/Oppidum/Red": 1, "siege/3/Oppidum/Red": 2}
    s2, ev = sieges.siege_turn(s, MAP, both, Dice(1, d))
    e = next(e for e in ev if e.kind == "disease_roll")
    assert e.data["total"] == 4 and not e.data["struck"]            # 1 +2 ratio +1 second turn
    s3, ev = sieges.siege_turn(s, MAP, R, Dice(1, d))
    assert next(e for e in ev if e.kind == "disease_roll").data["struck"]


def test_declaring_a_siege_needs_as_many_elements_as_inside():
    s = game()
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    s = s.with_city("Oppidum", ally="Blue")
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    with pytest.raises(InputError, match="6 effective elements at Oppidum, fewer than the 15 inside"):
        sieges.declare_siege(s, MAP, R, "Oppidum")
    s = s.with_fleet(replace(s.fleet("Red"), node="Oppidum", np=9))      # with 9 NP: 15 against 15
    s2, ev = sieges.declare_siege(s, MAP, R, "Oppidum")
    assert s2.siege_at("Oppidum").besieger == "Red" and not s2.battles
    assert all(c.in_city for c in s2.at("Oppidum") if c.city)


def test_siege_lifted_when_the_besieger_retreats():
    s = besieged(30, 10)
    s = replace(s, phase="battles", retreats=(Retreat(command=50),))
    s2, ev = retreats.retreat(s, MAP, R, 50, ["Vicus"])
    assert s2.siege_at("Oppidum") is None and any(e.kind == "siege_lifted" for e in ev)


def test_sheltered_fleet_lost_when_the_city_falls_and_salvaged():
    s = besieged(30, 10)
    s = s.with_fleet(Fleet("Blue", "Oppidum", 4, sheltered=True))
    # sheltered NPs do not defend the city
    assert sieges.siege_modifiers(s, MAP, R, s.sieges[0])["ratio"] == 2
    more = {f"salvage/2/Oppidum/Red/{i}": v for i, v in enumerate([3, 2, 1, 6], 1)}   # +2 held field: 5, 4, 3, 8
    s2, ev = roll(s, 6, more=more)
    assert s2.fleet("Blue") is None and s2.sides["Red"].np_destroyed == 4
    assert s2.fleet("Red") == Fleet("Red", "Oppidum", 2)               # no Red fleet: the salvage forms one


def test_capital_taken_eliminates_the_side_and_scores_ten():
    s = besieged(30, 10, node="Arx")
    s2, ev = roll(s, 6, node="Arx")
    assert not s2.sides["Blue"].playing and all(c.side != "Blue" for c in s2.commands) and s2.fleet("Blue") is None
    assert victory_points(s2, R)["Red"]["capitals"] == 10
    assert any(e.kind == "side_eliminated" for e in ev)


def test_the_besieged_sally_in_their_own_turn():
    s = besieged(10, 10)
    s = replace(s, current=1, phase="battles")                       # Blue's turn, after its movement
    s, ev = sieges.sally(s, "Oppidum")
    b = s.battle_at("Oppidum")
    assert b.attacker == "Blue" and b.sally and b.defenders == ("Red",)
    beaten, _ = battles.enter_result(s, MAP, R, Dice(1), "Oppidum", "Red", {})
    assert beaten.command(60).in_city and not beaten.retreats and beaten.siege_at("Oppidum")
    won, _ = battles.enter_result(s, MAP, R, Dice(1), "Oppidum", "Blue", {})
    assert [r.command for r in won.retreats] == [50]
    won, ev = retreats.retreat(won, MAP, R, 50, ["Vicus"])
    assert won.siege_at("Oppidum") is None


def test_a_city_of_two_commands_must_meet_its_attacker():
    from bellica.engine.magna_graecia import cities
    s = game()
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    extra = Command(70, "", "Oppidum", dict(R.neutral.elements), general=R.neutral.general, city="Oppidum")
    s = replace(s, commands=s.commands + (extra,))
    s = s.with_fleet(replace(s.fleet("Red"), node="Oppidum", np=40))
    s, _ = cities.attack_city(s, R, "Oppidum")
    with pytest.raises(InputError, match="2 commands cannot all shut themselves in"):
        sieges.declare_siege(s, MAP, R, "Oppidum")


def test_a_naval_sally_puts_the_sheltered_fleet_out_against_the_besieging_fleet():
    s = besieged(10, 10, np=3)                                    # Red's fleet of 3 NP off Oppidum
    s = s.with_fleet(Fleet("Blue", "Oppidum", 5, sheltered=True))
    s = replace(s, current=1, phase="battles")                    # Blue's turn, after its movement
    with pytest.raises(InputError, match="no fleet sheltered"):
        sieges.sally(s.without_fleet("Blue"), "Oppidum", naval=True)
    s, ev = sieges.sally(s, "Oppidum", naval=True)
    b = s.battle_at("Oppidum", "naval")
    assert b.attacker == "Blue" and b.defenders == ("Red",) and not s.fleet("Blue").sheltered
    assert s.command(60).in_city                                  # the garrison stays inside
    # the besieging fleet beaten retreats: the siege is lifted (the seed: army and/or fleet forced to retreat)
    d = Dice(1, {"fleet/2/Oppidum/Blue/1": 6, "fleet/2/Oppidum/Red/1": 1,     # 6+5=11 against 1+3=4: Red loses 7
                 **{f"recovery-np/2/Oppidum/Red/{i}": 1 for i in (1, 2, 3)}})   # its 3 NP, none recovered
    s, ev = fleets.fleet_battle(s, MAP, R, d, "Oppidum")
    assert s.fleet("Red") is None and s.sides["Blue"].np_destroyed == 3
    s, _ = sieges.sally(replace(besieged(10, 10, np=3).with_fleet(Fleet("Blue", "Oppidum", 5, sheltered=True)),
                                current=1, phase="battles"), "Oppidum", naval=True)
    d = Dice(1, {"fleet/2/Oppidum/Blue/1": 6, "fleet/2/Oppidum/Red/1": 6,     # 12 against 9: Red loses 3
                 **{f"recovery-np/2/Oppidum/Red/{i}": 6 for i in (1, 2, 3)}})   # all recovered
    s, _ = fleets.fleet_battle(s, MAP, R, d, "Oppidum")
    s, ev = retreats.retreat_fleet(s, MAP, R, "Red", ["Portus"])
    assert s.siege_at("Oppidum") is None and any(e.kind == "siege_lifted" for e in ev)


def test_a_counter_joining_a_sick_siege_rolls_once_with_the_force_not_also_as_a_passer_by():
    s = besieged(30, 10, disease=1)                               # disease came in turn 1; Red's turn 2
    horse = Command(70, "Red", "Portus", {"Cv(O)": 3, "LH(O)": 2}, general="Cv(O)", mp_left=2)
    s = replace(s, commands=s.commands + (horse,))
    d = Dice(1, {"disease-passing/2/Red/70/Oppidum": 1, "disease/2/Oppidum/Red": 1})
    s, ev = movement.move(s, MAP, R, d, 70, ["Vicus", "Oppidum"])
    assert not [e for e in ev if e.kind.startswith("disease")] and s.command(70).element_count() == 6
    s, ev = sieges.siege_turn(s, MAP, R, d)
    struck = [e for e in ev if e.kind == "disease_roll"]
    assert len(struck) == 1 and struck[0].data["lost"] == 4         # 10% of 30 + 6, rounded up
    assert s.command(50).element_count() + s.command(70).element_count() == 32
    # stopping and then going on in the same phase is passing through: it rolls on leaving
    s2 = besieged(30, 10, disease=1)
    s2 = replace(s2, commands=s2.commands + (replace(horse, node="Vicus", mp_left=1, moved=True),))
    s2 = replace(s2, sieges=s2.sieges + (Siege("Vicus", "Blue", "Red", started=1, disease=1),))
    s2, ev = movement.move(s2, MAP, R, Dice(1, {"disease-passing/2/Red/70/Vicus": 1}), 70, ["Campus"])
    assert any(e.kind == "disease_struck" for e in ev) and s2.command(70).element_count() == 5


def test_every_army_in_a_sick_siege_node_rolls_in_its_own_turn():
    s = besieged(30, 10, disease=1)
    relief = Command(71, "Blue", "Oppidum", {"Sp(O)": 9}, general="Cv(O)")    # Blue's relief force outside the walls
    s = replace(s, commands=s.commands + (relief,), current=1)
    s, ev = sieges.siege_turn(s, MAP, R, Dice(1, {"disease/2/Oppidum/Blue": 1}))
    e = next(e for e in ev if e.kind == "disease_roll")
    assert e.data["lost"] == 2                                    # 10% of 10 inside + 10 outside


def test_a_city_of_two_commands_allied_to_the_defender_must_also_meet_the_attacker():
    s = game()
    extra = Command(70, "", "Oppidum", dict(R.neutral.elements), general=R.neutral.general, city="Oppidum")
    s = replace(s, commands=s.commands + (extra,)).with_city("Oppidum", ally="Blue", start_ally="Blue")
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    s = s.with_fleet(replace(s.fleet("Red"), node="Oppidum", np=40))
    s, _ = turn.end_movement(s, MAP, R, Dice(1, {"alliance/1/Oppidum/Red": 1}))
    assert s.battle_at("Oppidum").defenders == ("Blue",)
    with pytest.raises(InputError, match="2 commands cannot all shut themselves in"):
        sieges.declare_siege(s, MAP, R, "Oppidum")


def test_no_siege_once_the_defenders_chose_a_field_defence():
    s = game()
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    s = s.with_fleet(replace(s.fleet("Red"), node="Oppidum", np=40))
    s, _ = cities.attack_city(s, R, "Oppidum")
    chosen, _ = battles.choose_defence(s, "Oppidum", "forward")
    with pytest.raises(InputError, match="chose a forward defence in the field: .* no siege"):
        sieges.declare_siege(chosen, MAP, R, "Oppidum")
    s, _ = sieges.declare_siege(s, MAP, R, "Oppidum")               # before choosing, they may go inside
    assert s.siege_at("Oppidum") is not None


def test_the_defending_side_declares_going_inside_the_phasing_side_may_enter_it():
    from bellica.engine.core.machine import StepRefused
    from bellica.engine.magna_graecia.inputs import _check_turn
    s = game()
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    s, _ = cities.attack_city(s, R, "Oppidum")                      # Oppidum's forces now fight for Blue
    _check_turn(s, "siege", {"side": "Blue", "node": "Oppidum"})      # the defender
    _check_turn(s, "siege", {"side": "Red", "node": "Oppidum"})       # the phasing side (entering the table's word)
    with pytest.raises(StepRefused, match="Green is not defending"):
        _check_turn(s, "siege", {"side": "Green", "node": "Oppidum"})
    with pytest.raises(InputError, match="give --side"):
        _check_turn(s, "siege", {"node": "Oppidum"})


def test_relieving_a_besieged_ally_leaves_its_garrison_inside_the_walls():
    """Issue 22, deviation 4.  Red moves to relieve Oppidum, its ally, besieged by Blue.  The seed:
    "allies can cooperate only in a defensive mode", and the besieged "defending force may sally in
    his own player-turn".  Before, the city's in-city command was put in Red's attacking camp and,
    when the relief lost, told to retreat out of its own besieged city (and the city went over to
    the besieger as a beaten neutral).  Now it stays inside: not an attacker, not retreating."""
    s = game().with_city("Oppidum", ally="Red")
    garrison = next(c for c in s.commands if c.city == "Oppidum" and not c.side)
    blue = Command(50, "Blue", "Oppidum", {"Sp(O)": 14}, general="Cv(O)")
    s = replace(s, commands=tuple(replace(c, in_city=True) if c.id == garrison.id else c for c in s.commands) + (blue,),
                sieges=(Siege("Oppidum", "Blue", "Red", started=1),))
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    b = s.battle_at("Oppidum")
    assert b.attacker == "Red" and b.defenders == ("Blue",)
    att, dfn = battles.camps(s, b)
    assert [c.id for c in att] == [4] and [c.id for c in dfn] == [50]       # the garrison is not an attacker
    with pytest.raises(InputError, match=f"command {garrison.id}, which did not fight"):
        battles.enter_result(s, MAP, R, Dice(1), "Oppidum", "Blue", {garrison.id: {"Sp(I)": 1}})
    s, _ = battles.enter_result(s, MAP, R, Dice(1), "Oppidum", "Blue", {})
    assert [r.command for r in s.retreats] == [4]                          # the relief retreats, alone
    assert s.command(garrison.id).in_city and s.command(garrison.id).node == "Oppidum"
    assert s.cities["Oppidum"].ally == "Red" and s.siege_at("Oppidum") is not None
