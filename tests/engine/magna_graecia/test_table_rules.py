"""The seed's table-top rules the engine now plays (issue 22): the attacker's base edge among
several entry paths, a city reorganising its commands before a battle, the player choosing the
elements drowned in a fleet fight, an allied command's surrender, an allied city's second-day order."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.magna_graecia import battles, fleets, movement, turn
from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.turn import new_game
from bellica.geo.errors import InputError

from .tiny import HORSE, MAP, R, game, scenario


def two_ways_into_campus():
    """Red's two horse commands (3, 4) enter Campus, where Blue's foot (6) stands: 3 from Vicus, 4 from Portus."""
    s = game(red_army=(HORSE, HORSE))
    s = s.with_command(replace(s.command(6), node="Campus"))
    s, _ = movement.move(s, MAP, R, Dice(1), 3, ["Vicus", "Campus"])
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Campus"])
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    return s


def test_the_attacker_chooses_its_base_edge_among_its_paths_of_entry():
    # Seed: "The attacker's base edge is determined by his path of entry into the node."  Two
    # commands came by two paths: the default is the lowest-numbered command's (3, from Vicus);
    # the attacker may name the other, until the defender has chosen where to defend.
    s = two_ways_into_campus()
    assert battles.entry_edges(s, "Campus", "Red") == ("Vicus", "Portus")
    assert s.battle_at("Campus").base_edge == "Vicus"
    s2, ev = battles.choose_base_edge(s, "Campus", "Portus")
    assert s2.battle_at("Campus").base_edge == "Portus" and ev[0].text == "Red takes its base edge at Campus from Portus"
    with pytest.raises(InputError, match="Red did not enter Campus from Arx: give one of Vicus, Portus"):
        battles.choose_base_edge(s, "Campus", "Arx")
    s3, _ = battles.choose_defence(s2, "Campus", "forward")
    with pytest.raises(InputError, match="the base edge at Campus is fixed"):
        battles.choose_base_edge(s3, "Campus", "Vicus")
    # The loser may not retreat by the winner's base edge: Portus now, not Vicus.
    s4, _ = battles.enter_result(s3, MAP, R, Dice(1), "Campus", "Red", {})
    assert "Portus" not in s4.retreats[0].open_paths and "Vicus" in s4.retreats[0].open_paths


def test_a_city_of_two_commands_reorganises_them_before_the_battle():
    # Seed: "If a city has two or three commands, the controlling player may reorganize the
    # commands before a battle."  Oppidum has two commands of 1 general and 14 elements each.
    nmap = replace(MAP, places={**MAP.places, "Oppidum": replace(MAP.places["Oppidum"], commands=2)})
    s, _ = new_game(scenario(), nmap, R)
    s = s.with_city("Oppidum", ally="Blue")
    a, b = [c.id for c in s.commands if c.city == "Oppidum"]
    horse = next(c.id for c in s.commands if c.side == "Red" and "LH(O)" in c.elements)
    s, _ = movement.move(s, nmap, R, Dice(1), horse, ["Vicus", "Oppidum"])
    s, _ = turn.end_movement(s, nmap, R, Dice(1))
    s, ev = battles.reorganise_city(s, "Oppidum", a, b, {"Sp(I)": 4, "Ps(O)": 4})
    assert s.command(a).element_count() == 15 - 8 and s.command(b).element_count() == 15 + 8
    assert ev[0].kind == "city_reorganised"
    with pytest.raises(InputError, match=f"command {horse} is not one of Oppidum's own commands"):
        battles.reorganise_city(s, "Oppidum", horse, b, {"LH(O)": 1})
    with pytest.raises(InputError, match=f"command {a} has 2 Sp\\(I\\): give 1 to that many"):
        battles.reorganise_city(s, "Oppidum", a, b, {"Sp(I)": 3})
    # "Commands that are locked on the field, however, may NOT be reorganized."
    s, _ = battles.enter_result(s, nmap, R, Dice(1), "Oppidum", None, {})
    with pytest.raises(InputError, match="locked on the field for a second day"):
        battles.reorganise_city(s, "Oppidum", b, a, {"Sp(I)": 1})


def test_the_controlling_player_chooses_which_elements_drown_in_the_players_order():
    # Seed: "if there are no spare NPs, a land element is lost for each NP lost.  The controlling
    # player chooses which elements to lose."  Red's horse (3 Cv(O), 2 LH(O) and its general: 6
    # elements) fills 6 NP; Blue wins 6+4=10 against 1+6=7, so Red loses 3 NP and 3 elements.
    s = game()
    s, _ = movement.embark(s, R, [4])
    s, _ = movement.move_fleet(s, MAP, R, ["Oppidum"])
    s = s.with_fleet(replace(s.fleet("Blue"), node="Oppidum"))
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    rolls = {"fleet/1/Oppidum/Red/1": 1, "fleet/1/Oppidum/Blue/1": 6}
    rolls.update({f"recovery-np/1/Oppidum/Red/{i}": 1 for i in range(1, 4)})
    # No choice: the engine's pick, the most numerous element first.
    picked, _ = fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum")
    assert picked.command(4).elements == {"Cv(O)": 1, "LH(O)": 1}
    # The player's order: both LH(O) first, then the engine's pick for the third.
    chosen, ev = fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum", element_losses=[(4, "LH(O)", 2)])
    assert chosen.command(4).elements == {"Cv(O)": 2}
    assert next(e for e in ev if e.kind == "np_lost").data["elements_drowned"] == 3


def allied_oppidum_attacked():
    """Oppidum's one command (2) is Blue's ally; Red's horse (4) comes in from Vicus, no Blue counter there."""
    s = game().with_city("Oppidum", ally="Blue")
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    return s


def test_an_allied_command_that_surrenders_joins_the_citys_holder_next_turn():
    # Seed: "If the enemy occupies the city, the entire command will surrender immediately. Next
    # campaign turn it becomes an ally of the side that holds the city at the end of the battle."
    s = allied_oppidum_attacked()
    s, ev = battles.enter_result(s, MAP, R, Dice(1), "Oppidum", "Red", {}, surrendered=[2])
    gave = next(e for e in ev if e.kind == "command_surrenders")
    assert gave.data == {"node": "Oppidum", "command": 2, "city": "Oppidum", "was": "Blue", "ally": "Red", "from_turn": 2}
    assert s.owner(s.command(2)) == ""                  # this turn it fights for nobody, and does not retreat
    assert not s.retreats and s.cities["Oppidum"].ally == "Blue"
    assert replace(s, turn=2).owner(s.command(2)) == "Red"
    with pytest.raises(InputError, match="command 4 is not an allied city command fighting at Oppidum"):
        battles.enter_result(allied_oppidum_attacked(), MAP, R, Dice(1), "Oppidum", "Red", {}, surrendered=[4])
    with pytest.raises(InputError, match="give the side holding the city at the battle's end"):
        battles.enter_result(allied_oppidum_attacked(), MAP, R, Dice(1), "Oppidum", None, {}, surrendered=[2])


def test_the_allied_citys_player_writes_its_own_second_day_order():
    # Seed: after an undecided day "both commanders secretly write their intentions (stay or
    # retire)".  Blue has no counter at Oppidum, but its allied city fought: Blue writes its order.
    s = allied_oppidum_attacked()
    s, _ = battles.enter_result(s, MAP, R, Dice(1), "Oppidum", None, {})
    assert battles.second_day_sides(s, s.battle_at("Oppidum")) == ["Blue", "Red"]
    with pytest.raises(InputError, match="give stay or retire for each of Blue, Red"):
        battles.second_day(s, MAP, R, "Oppidum", {"Red": "stay"})
    # Retiring, a city's forces (which never leave their node) go inside the walls.
    s2, ev = battles.second_day(s, MAP, R, "Oppidum", {"Red": "stay", "Blue": "retire"})
    assert s2.command(2).in_city and not s2.retreats
    assert ev[-1].kind == "garrison_withdraws"
