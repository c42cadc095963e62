"""Neutral cities: the alliance roll on a 6, attacking a city, a beaten city's forces joining the victor."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.magna_graecia import battles, cities, movement, turn
from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.rules import rules_with
from bellica.geo.errors import InputError

from .tiny import MAP, R, game


def at_oppidum(s):
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    return s


@pytest.mark.parametrize("roll, joins", [(6, True), (5, False), (1, False)])
def test_alliance_roll_joins_on_a_six(roll, joins):
    s = at_oppidum(game())
    s, ev = turn.end_movement(s, MAP, R, Dice(1, {"alliance/1/Oppidum/Red": roll}))
    assert (s.cities["Oppidum"].ally == "Red") is joins
    e = next(e for e in ev if e.kind == "alliance_roll")
    assert e.data["roll"]["value"] == roll and e.data["needed"] == 6 and e.data["joined"] is joins


def test_a_six_takes_a_city_allied_to_the_other_side():
    s = at_oppidum(game())
    s = s.with_city("Oppidum", ally="Blue", start_ally="Blue")
    s, _ = turn.end_movement(s, MAP, R, Dice(1, {"alliance/1/Oppidum/Red": 6}))
    assert s.cities["Oppidum"].ally == "Red"


def test_no_roll_where_the_opposition_has_a_command_present():
    s = at_oppidum(game())
    blue = next(c for c in s.commands if c.side == "Blue" and not c.city)
    s = s.with_command(replace(blue, node="Oppidum")).with_city("Oppidum", ally="Blue")
    d = Dice(1, {"alliance/1/Oppidum/Red": 6})
    s, ev = turn.end_movement(s, MAP, R, d)
    assert s.cities["Oppidum"].ally == "Blue" and not any(r.label[0] == "alliance" for r in d.log)
    assert any(e.kind == "alliance_not_rolled" for e in ev)


def test_fleets_alone_do_not_roll():
    s = game()
    s, _ = movement.move_fleet(s, MAP, R, ["Oppidum"])
    d = Dice(1)
    turn.end_movement(s, MAP, R, d)
    assert not any(r.label[0] == "alliance" for r in d.log)


def test_attacking_a_neutral_city_makes_it_the_opponents_ally_and_its_beaten_forces_join_the_victor():
    s = at_oppidum(game())
    s, ev = cities.attack_city(s, R, "Oppidum")
    assert s.cities["Oppidum"].ally == "Blue"
    b = s.battle_at("Oppidum")
    assert b.attacker == "Red" and b.defenders == ("Blue",) and b.base_edge == "Vicus"
    att, dfn = battles.camps(s, b)
    assert [c.id for c in att] == [4] and [c.city for c in dfn] == ["Oppidum"]
    s, ev = battles.enter_result(s, MAP, R, Dice(1), "Oppidum", "Red", {2: {"Sp(I)": 2}})
    assert s.cities["Oppidum"].ally == "Red"
    assert not s.retreats                  # a city's forces never leave their node


def test_three_sided_attack_joins_the_next_enemy_or_no_one():
    s = at_oppidum(game(three=True))
    s2, _ = cities.attack_city(s, R, "Oppidum")
    assert s2.cities["Oppidum"].ally == "Blue"
    alone = rules_with({"options": {"attacked_city_joins": "defender_only"}})
    s3, _ = cities.attack_city(s, alone, "Oppidum")
    assert s3.cities["Oppidum"].ally is None and s3.battle_at("Oppidum").defenders == ("city:Oppidum",)
    assert [c.city for c in battles.camps(s3, s3.battle_at("Oppidum"))[1]] == ["Oppidum"]


def test_attack_needs_a_neutral_city_and_a_counter_there():
    s = game()
    with pytest.raises(InputError, match="Red has no land counter at Oppidum"):
        cities.attack_city(s, R, "Oppidum")
    with pytest.raises(InputError, match="Vicus has no city forces"):
        cities.attack_city(s, R, "Vicus")


def test_a_city_attacked_during_a_battle_joins_the_side_that_did_not_attack_it():
    s = game()
    s = s.with_command(replace(s.command(6), node="Oppidum"))           # Blue's foot at neutral Oppidum
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])    # Red attacks it there
    s, _ = turn.end_movement(s, MAP, R, Dice(1, {"alliance/1/Oppidum/Red": 2}))
    b = s.battle_at("Oppidum")
    att, dfn = battles.camps(s, b)
    assert not any(c.city for c in att + dfn)                          # a neutral city stays out of the players' battle
    s2, ev = cities.attack_city(s, R, "Oppidum", by="Blue")              # Blue, defending, attacks the city
    assert s2.cities["Oppidum"].ally == "Red" and s2.cities["Oppidum"].hostile_to == "Blue"
    att, dfn = battles.camps(s2, s2.battle_at("Oppidum"))
    assert any(c.city == "Oppidum" for c in att)                       # a committed ally of Red, in the same battle
    with pytest.raises(InputError, match="does not fight in the battle at Oppidum"):
        cities.attack_city(replace(s, order=("Red", "Blue", "Green"),
                                   sides={**s.sides, "Green": replace(s.sides["Blue"], name="Green")}),
                           R, "Oppidum", by="Green")


def test_the_plugin_passes_a_defenders_attack_on_the_city_to_the_rules():
    from bellica.engine.magna_graecia.play import _action
    s = game()
    assert _action("attack_city", {"side": "Blue", "node": "Oppidum"}, s) == {"do": "attack_city", "node": "Oppidum",
                                                                              "by": "Blue"}
    assert _action("attack_city", {"side": "Red", "node": "Oppidum"}, s) == {"do": "attack_city", "node": "Oppidum"}


def test_an_attacked_city_swung_to_the_attacker_by_the_alliance_roll_means_no_battle_and_no_siege():
    """Issue 22, deviation 3.  The seed: attacking a neutral city makes it "an ally of the
    opposing player"; at the end of the movement the alliance d6 is rolled where a counter
    stands in the city's node, and on a 6 "the city joins that player's side, even if it is
    currently allied to the opposing side" (no roll only where the opposition has a command
    present: here it has none).  Red attacks Oppidum, then rolls its 6: the city is Red's
    friend, so no battle is left against nobody, and no siege can be laid (before: "43 against
    0 inside", the city's own command among the besiegers, and a fall without loss)."""
    from bellica.engine.magna_graecia import sieges

    s = at_oppidum(game())
    s, _ = cities.attack_city(s, R, "Oppidum")
    assert s.cities["Oppidum"].ally == "Blue" and s.battle_at("Oppidum") is not None
    swung, _ = cities.join(s, "Oppidum", "Red", "movement", "test")   # the battle left standing, as before
    with pytest.raises(InputError, match="no enemy stands at Oppidum to go inside the walls"):
        sieges.declare_siege(swung, MAP, R, "Oppidum")
    s, ev = turn.end_movement(s, MAP, R, Dice(1, {"alliance/1/Oppidum/Red": 6}))
    assert s.cities["Oppidum"].ally == "Red" and s.cities["Oppidum"].hostile_to is None
    assert s.battle_at("Oppidum") is None and not s.battles
    called_off = next(e for e in ev if e.kind == "battle_called_off")
    assert called_off.text == "no battle at Oppidum: the city has joined Red and no enemy is left there"
    with pytest.raises(InputError, match="no battle is due at Oppidum"):
        sieges.declare_siege(s, MAP, R, "Oppidum")
    assert s.command(4).node == "Oppidum"                 # Red's counter stands in a friendly city's node
    s, _ = turn.end_player_turn(s, MAP, R)                # nothing owed: the turn passes on
    assert s.phasing == "Blue"
