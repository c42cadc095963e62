"""Recovery rolls: 5+ on a d6; +2 held the field, +1 command element, -1 leader killed, -1 allied."""

from __future__ import annotations

import pytest

from bellica.engine.magna_graecia.dice import Dice

from bellica.engine.magna_graecia.recovery import recover_elements, recover_np, recovery_modifiers

from .tiny import R, game


def test_modifier_table():
    assert recovery_modifiers(R, held_field=True, command_element=True) == {"held_field": 2, "command_element": 1}
    assert recovery_modifiers(R, held_field=False, leader_killed=True, allied=True) == {"leader_killed": -1, "allied_element": -1}


@pytest.mark.parametrize("die, held, back", [(5, False, True), (4, False, False), (3, True, True), (2, True, False)])
def test_five_or_more(die, held, back):
    s = game()
    d = Dice(1, {"recovery/1/Portus/3/Sp(O)/1": die})
    still, ev = recover_elements(s, R, d, "Portus", {3: {"Sp(O)": 1}}, held_by="Red" if held else None)
    assert (still == {}) is back


def test_command_element_and_leader_killed():
    s = game()
    d = Dice(1, {"recovery/1/Portus/3/general/1": 4, "recovery/1/Portus/3/Sp(O)/1": 5})
    still, ev = recover_elements(s, R, d, "Portus", {3: {"general": 1, "Sp(O)": 1}}, held_by=None)
    rolls = {r["element"]: r for r in ev[0].data["rolls"]}
    assert rolls["general"]["total"] == 5 and rolls["general"]["recovered"]         # 4 +1 command element
    assert rolls["Sp(O)"]["total"] == 4 and not rolls["Sp(O)"]["recovered"]         # 5 -1 leader killed
    assert still == {3: {"Sp(O)": 1}}


def test_allied_elements_minus_one():
    s = game().with_city("Oppidum", ally="Red")
    d = Dice(1, {"recovery/1/Oppidum/2/Sp(I)/1": 5})
    still, ev = recover_elements(s, R, d, "Oppidum", {2: {"Sp(I)": 1}}, held_by=None)
    assert ev[0].data["rolls"][0]["modifiers"] == {"allied_element": -1} and still == {2: {"Sp(I)": 1}}


def test_naval_points():
    s = game()
    d = Dice(1, {"recovery-np/1/Portus/Red/1": 5, "recovery-np/1/Portus/Red/2": 4, "recovery-np/1/Portus/Red/3": 3})
    back, _ = recover_np(s, R, d, "Portus", "Red", 3, held_field=False)
    assert back == 1
    back, _ = recover_np(s, R, Dice(1, d.entered), "Portus", "Red", 3, held_field=True)
    assert back == 3
