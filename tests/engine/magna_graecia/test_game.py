"""A scripted game of four campaign turns on the tiny map, the season's end, the state as JSON."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bellica.engine.magna_graecia import battles, movement, retreats, sieges, turn
from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.state_json import from_dict, to_dict
from bellica.engine.magna_graecia.victory import victory_points
from bellica.geo.errors import InputError

from .tiny import MAP, R, game

ROLLS = {
    "alliance/1/Oppidum/Red": 6,                     # turn 1: Oppidum joins Red on a six
    "recovery/1/Campus/3/Sp(O)/1": 2,                # turn 1: Red's two lost Sp stay lost
    "recovery/1/Campus/3/Sp(O)/2": 4,
    "siege/3/Portus/Blue": 1,                        # turn 3: no fall, disease breaks out
    "disease/4/Portus/Red": 1,                       # turn 4: Red, inside, loses a tenth
    "disease/4/Portus/Blue": 2,                      # Blue is spared
    "siege/4/Portus/Blue": 6,                        # 6 +1 second turn = 7: still no fall
}


def roundtrip(state):
    back = from_dict(json.loads(json.dumps(to_dict(state))))
    assert back == state
    return back


def test_scripted_game():
    s = game()
    d = Dice(11, ROLLS)
    log = []

    def step(result):
        nonlocal s
        s, ev = result
        log.extend(ev)
        return ev

    # turn 1, Red: the fleet and the horse to Oppidum, the foot to Campus
    assert (s.turn, s.phasing, s.phase) == (1, "Red", "movement")
    step(movement.move_fleet(s, MAP, R, ["Oppidum"]))
    step(movement.move(s, MAP, R, d, 4, ["Vicus", "Oppidum"]))
    step(movement.move(s, MAP, R, d, 3, ["Campus"]))
    step(turn.end_movement(s, MAP, R, d))
    assert s.cities["Oppidum"].ally == "Red" and not s.battles
    step(turn.end_player_turn(s, MAP, R))
    # turn 1, Blue: the foot attacks Campus from Arx; Red defends centrally and loses
    assert (s.turn, s.phasing) == (1, "Blue")
    # Red's command 3 and a number nobody has get the same refusal: neither says whose it is
    with pytest.raises(InputError, match="command 3 is not one of Blue's in play") as mine:
        movement.move(s, MAP, R, d, 3, ["Portus"])
    with pytest.raises(InputError, match="command 99 is not one of Blue's in play") as nobody:
        movement.move(s, MAP, R, d, 99, ["Portus"])
    assert "Red" not in str(mine.value) and str(mine.value).split(":")[1] == str(nobody.value).split(":")[1]
    step(movement.move(s, MAP, R, d, 6, ["Campus"]))
    step(turn.end_movement(s, MAP, R, d))
    assert s.battle_at("Campus").base_edge == "Arx"
    step(battles.choose_defence(s, "Campus", "central"))
    step(battles.enter_result(s, MAP, R, d, "Campus", "Blue", {3: {"Sp(O)": 2}}))
    assert s.command(3).elements["Sp(O)"] == 6 and [r.command for r in s.retreats] == [3]
    step(retreats.retreat(s, MAP, R, 3, ["Portus"]))
    s = roundtrip(s)
    step(turn.end_player_turn(s, MAP, R))
    # turn 2: Red waits; Blue marches on Portus, and Red goes inside the walls
    assert (s.turn, s.phasing) == (2, "Red")
    step(turn.end_movement(s, MAP, R, d))
    step(turn.end_player_turn(s, MAP, R))
    step(movement.move(s, MAP, R, d, 6, ["Portus"]))
    step(turn.end_movement(s, MAP, R, d))
    assert s.battle_at("Portus").defenders == ("Red",)
    step(sieges.declare_siege(s, MAP, R, "Portus"))
    assert s.siege_at("Portus").besieger == "Blue" and not s.battles
    step(turn.end_player_turn(s, MAP, R))
    # turn 3: Red inside waits; Blue's first fall roll brings disease
    step(turn.end_movement(s, MAP, R, d))
    step(turn.end_player_turn(s, MAP, R))
    step(turn.end_movement(s, MAP, R, d))
    assert s.siege_at("Portus").disease == 3
    step(turn.end_player_turn(s, MAP, R))
    # turn 4: disease strikes Red inside; Blue rolls 6 + 1 and the city holds
    assert (s.turn, s.phasing) == (4, "Red")
    step(turn.end_movement(s, MAP, R, d))
    assert s.command(3).element_count() == 8
    step(turn.end_player_turn(s, MAP, R))
    step(turn.end_movement(s, MAP, R, d))
    roll = next(e for e in reversed(log) if e.kind == "siege_roll")
    assert roll.data["modifiers"] == {"consecutive_turns": 1} and roll.data["total"] == 7 and not roll.data["falls"]
    step(turn.end_player_turn(s, MAP, R))
    s = roundtrip(s)
    step(turn.end_by_agreement(s, R))
    assert s.phase == "over"
    assert victory_points(s, R)["Red"]["total"] == 1 and victory_points(s, R)["Blue"]["total"] == 0
    assert all(isinstance(json.dumps(dict(e.data)), str) for e in log)
    # every roll was the entered one
    assert {r.key for r in d.log} == set(ROLLS)


def test_the_season_is_eighteen_turns():
    s = game()
    d = Dice(3)
    sides_moved = []
    while s.phase != "over":
        sides_moved.append((s.turn, s.phasing))
        s, _ = turn.end_movement(s, MAP, R, d)
        for b in list(s.battles):      # none expected: nobody moves
            raise AssertionError(b)
        s, ev = turn.end_player_turn(s, MAP, R)
    assert sides_moved[0] == (1, "Red") and sides_moved[-1] == (18, "Blue") and len(sides_moved) == 36
    assert ev[-1].kind == "season_over" and "18 turns" in ev[-1].data["why"]


def test_three_sides_move_in_order_and_friends_do_not_fight():
    s = game(three=True)
    s = replace(s, alliances=(("Blue", "Green"),))
    order = []
    for _ in range(3):
        order.append(s.phasing)
        s, _ = turn.end_movement(s, MAP, R, Dice(1))
        s, _ = turn.end_player_turn(s, MAP, R)
    assert order == ["Red", "Blue", "Green"] and s.turn == 2
    assert s.friends("Blue", "Green") and s.enemies("Red", "Green")
