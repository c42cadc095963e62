"""Regression: an army that moved away from the structure it besieged cannot assault it.

The bug: a besieger that moved two hexes off (the structure no longer in its ZoC) was still
listed for its assault, and won it.  The seed ("Assaults", "Progress of sieges"): only
sieging armies may assault, and an army that moves so that the structure is no longer in
its ZoC lifts its siege.
"""

from __future__ import annotations

import pytest

from bellica.engine.vae_victis.battles import find_engagements, still_besieging
from bellica.engine.vae_victis.model import ArmyOrders, Siege
from bellica.engine.vae_victis.movement import resolve_movement
from bellica.engine.vae_victis.sieges import SiegeInputs, resolve_sieges
from bellica.engine.vae_victis.zoc import army_zoc
from tests.engine.boards import sketch


@pytest.fixture(scope="module")
def besieged():
    tm = sketch(radius=4, structures=[("Ravenna", "city", "", "carthago"), ("Roma", "city", "3 3 3 3", "roma", True)])
    start = tm.state([(9, "roma", "3")], sieges=[Siege("Ravenna", "roma", (9,), 4, 4, 1)])
    return tm, start


def test_a_besieger_that_moved_two_hexes_off_is_not_listed_for_its_assault(besieged):
    tm, start = besieged
    moved = resolve_movement(tm.board, start, {9: ArmyOrders(9, (3, 3), assault="Ravenna")})
    after = moved.state
    assert tm.board.structures["Ravenna"].cell not in army_zoc(tm.board, after.army(9).cell)
    assert after.siege_of("Ravenna") is not None  # the siege is only lifted in administration
    assert not still_besieging(tm.board, after, 9, "Ravenna", moved.paths[9])
    assert find_engagements(tm.board, after, assaults={9: "Ravenna"}, paths=moved.paths) == ()
    assert find_engagements(tm.board, after, assaults={9: "Ravenna"}) == ()  # without paths too
    # ... and the siege resolution lifts the siege.
    lifted, events = resolve_sieges(tm.board, after, SiegeInputs(start_state=start, paths=moved.paths))
    assert lifted.siege_of("Ravenna") is None and [e.kind for e in events] == ["siege_lifted"]


def test_a_besieger_that_left_the_zoc_and_came_back_cannot_assault(besieged):
    tm, start = besieged
    # out along 3 3 and back: it ends next to Ravenna but let the structure out of its ZoC.
    moved = resolve_movement(tm.board, start, {9: ArmyOrders(9, (3, 9))})
    after = moved.state
    assert after.army(9).cell == start.army(9).cell
    assert find_engagements(tm.board, after, assaults={9: "Ravenna"}, paths=moved.paths) == ()


def test_a_besieger_that_stayed_still_assaults(besieged):
    tm, start = besieged
    moved = resolve_movement(tm.board, start, {9: ArmyOrders(9, (), assault="Ravenna")})
    es = find_engagements(tm.board, moved.state, assaults={9: "Ravenna"}, paths=moved.paths)
    assert [(e.army_a, e.assault) for e in es] == [(9, "Ravenna")]
