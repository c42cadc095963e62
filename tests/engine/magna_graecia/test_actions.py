"""Every step as a JSON action: the scripted opening replayed through act(), and bad actions."""

from __future__ import annotations

import json

import pytest

from bellica.engine.magna_graecia.actions import ACTIONS, act
from bellica.engine.magna_graecia.dice import Dice
from bellica.geo.errors import InputError

from .tiny import MAP, R, game

SCRIPT = [
    {"do": "sail", "path": ["Oppidum"]},
    {"do": "move", "command": 4, "path": ["Vicus", "Oppidum"]},
    {"do": "move", "command": "3", "path": ["Campus"]},
    {"do": "end_movement"},
    {"do": "end_turn"},
    {"do": "move", "command": 6, "path": ["Campus"]},
    {"do": "end_movement"},
    {"do": "defence", "node": "Campus", "defence": "central"},
    {"do": "result", "node": "Campus", "winner": "Blue", "losses": {"3": {"Sp(O)": 2}}},
    {"do": "retreat", "command": 3, "path": ["Portus"]},
    {"do": "end_turn"},
]
ROLLS = {"alliance/1/Oppidum/Red": 6, "recovery/1/Campus/3/Sp(O)/1": 2, "recovery/1/Campus/3/Sp(O)/2": 4}


def play(seed=11):
    s, d, log = game(), Dice(seed, ROLLS), []
    for a in json.loads(json.dumps(SCRIPT)):
        s, ev = act(s, MAP, R, d, a)
        log += ev
    return s, log


def test_script_through_actions():
    s, log = play()
    assert (s.turn, s.phasing) == (2, "Red")
    assert s.cities["Oppidum"].ally == "Red" and s.command(3).node == "Portus" and s.command(3).elements["Sp(O)"] == 6
    assert [e.kind for e in log].count("battle_result") == 1


def test_replay_gives_the_same_state():
    assert play()[0] == play()[0]


@pytest.mark.parametrize("action, message", [
    ({"do": "fly"}, r"action 'fly': give \"do\" as one of move, exchange"),
    ({"do": "move", "command": 4}, r"action move: lacks path: give command, path"),
    ({"do": "move", "command": 4, "path": ["Vicus"], "speed": 2}, r"action move: unknown field 'speed'"),
    ({"do": "move", "command": "four", "path": ["Vicus"]}, r"action move: invalid literal"),
])
def test_bad_actions_are_one_line(action, message):
    with pytest.raises(InputError, match=message):
        act(game(), MAP, R, Dice(1), action)


def test_every_action_names_its_fields():
    assert {"move", "sail", "result", "second_day", "fleet_battle", "siege", "sally", "retreat", "end_turn"} <= set(ACTIONS)
