"""Couriers (interception odds and outcomes, horse and boat), navies (actions, ports,
transport, sea fights) and the freezing lanes by season, on the tiny world."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.trossian import couriers, navies
from bellica.engine.trossian.dice import Dice
from bellica.engine.trossian.model import Courier, Navy
from bellica.engine.trossian.rules import default_rules, rules_with
from bellica.geo.errors import InputError

from .tiny import Scripted, army, tiny_scenario, tiny_state

R = default_rules()
S = tiny_scenario()


def _courier_state(**kw):
    st = tiny_state(**kw)
    return st.with_couriers(Courier(50, "Red", "A", message="attack at dawn", to="army 1"))


# --- couriers -------------------------------------------------------------------------------


def test_friendly_ground_needs_no_roll():
    st, ev = couriers.move_courier(S, _courier_state(), R, 50, ["B", "E"], Scripted())
    assert st.courier(50).where == "E" and not [e for e in ev if e.kind == "courier_check"]


@pytest.mark.parametrize("face, passed", [(1, False), (2, True), (3, True), (4, True), (5, True), (6, True)])
def test_one_in_six_per_enemy_province(face, passed):
    faces = [face] + ([] if passed else [3])
    st, ev = couriers.move_courier(S, _courier_state(), R, 50, ["B", "C"], Scripted(faces=faces))
    assert any(c.id == 50 for c in st.couriers) == passed


@pytest.mark.parametrize("face, fate, intel", [
    (1, "captured", "Red to army 1: attack at dawn"),
    (2, "killed", None), (3, "killed", None), (4, "killed", None), (5, "killed", None),
    (6, "false_message", "false: Red to army 1: attack at dawn"),
])
def test_failure_table(face, fate, intel):
    st, ev = couriers.move_courier(S, _courier_state(), R, 50, ["B", "C"], Scripted(faces=[1, face]))
    check = [e for e in ev if e.kind == "courier_check"][0]
    assert check.data["fate"] == fate and check.data["enemy"] == "Blue"
    assert st.nations["Blue"].intelligence == ((intel,) if intel else ())


def test_each_enemy_province_rolls():
    st = _courier_state()
    st = replace(st, control={**st.control, "B": "Blue"})
    st, ev = couriers.move_courier(S, st, R, 50, ["B", "C", "D"], Scripted(faces=[4, 5, 6]))
    assert st.courier(50).where == "D" and len([e for e in ev if e.kind == "courier_check"]) == 3


def test_courier_speed_four_plus_road():
    st = _courier_state()
    with pytest.raises(InputError, match="beyond its 4"):
        couriers.move_courier(S, st, R, 50, ["B", "E", "B", "E", "B"], Scripted())
    st2, _ = couriers.move_courier(S, st, R, 50, ["B", "A", "B", "C", "B"], Scripted(faces=[6]))   # all roads: 5
    assert st2.courier(50).where == "B"


def test_boat_at_a_coastal_town_and_enemy_held_lanes():
    st = _courier_state()
    # A's port Aport is on North: take boat, sail to South, land at C (Cport on South)
    st2, ev = couriers.move_courier(S, st, R, 50, ["North", "South"], Scripted())
    assert st2.courier(50).where == "South" and st2.courier(50).mode == "ship"
    # an enemy navy in South and none of Red's: the lane is held -> a roll, like a province
    st = st.with_navies(Navy(60, "Blue", "South"))
    st3, ev = couriers.move_courier(S, st, R, 50, ["North", "South"], Scripted(faces=[1, 2]))
    assert not st3.couriers and [e.data["fate"] for e in ev if e.kind == "courier_check"] == ["killed"]
    # a Red navy there too: not held
    st = st.with_navies(Navy(61, "Red", "South"))
    st4, ev = couriers.move_courier(S, st, R, 50, ["North", "South"], Scripted())
    assert st4.courier(50).where == "South"


def test_no_boat_inland_and_ice():
    st = _courier_state()
    st = st.with_couriers(replace(st.courier(50), where="E"))
    with pytest.raises(InputError, match="coastal town"):
        couriers.move_courier(S, st, R, 50, ["North"], Scripted())
    frozen = replace(_courier_state(), phase=0)                  # Early Spring: North is frozen
    with pytest.raises(InputError, match="frozen"):
        couriers.move_courier(S, frozen, R, 50, ["North"], Scripted())


def test_seeded_dice_are_labelled_and_replayable():
    d1 = Dice(seed=7)
    a = [d1.roll(6, "courier", 1801, 1, 50, "C", "pass") for _ in range(3)]
    assert len(set(a)) == 1                                    # same label, same face
    d2 = Dice(seed=7, entered=d1.rolls())
    assert d2.roll(6, "courier", 1801, 1, 50, "C", "pass") == a[0] and d2.log[0].entered
    with pytest.raises(InputError, match="from 1 to 6"):
        Dice(entered={"x": 7}).roll(6, "x")


# --- navies ---------------------------------------------------------------------------------


@pytest.mark.parametrize("phase, north_open", [(0, False), (1, True), (4, True), (7, True), (8, False)])
def test_freezing_lanes_by_season(phase, north_open):
    assert navies.lane_open(S, R, "North", phase) == north_open
    assert navies.lane_open(S, R, "South", phase)


def test_navy_in_a_freezing_lane_is_lost_in_late_autumn():
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry", aboard=70)], phase=8,
                    navies=[Navy(70, "Red", "North"), Navy(71, "Red", "North", "port:Aport"), Navy(72, "Blue", "South")])
    st2, ev = navies.ice_losses(S, st, R)
    assert [n.id for n in st2.navies] == [71, 72] and not st2.armies          # with all hands
    st3, ev = navies.ice_losses(S, replace(st, phase=7), R)
    assert len(st3.navies) == 3


def test_four_actions_port_capacity_and_frozen_entry():
    st = tiny_state(navies=[Navy(70, "Red", "South")], phase=1)
    st2, ev = navies.navy_actions(S, st, R, 70, [("sail", "North"), ("put_in", "Aport"), ("put_out",),
                                                 ("sail", "South")])
    assert st2.navy(70).lane == "South" and st2.navy(70).actions == 4
    with pytest.raises(InputError, match="4 actions"):
        navies.navy_actions(S, st2, R, 70, [("sail", "North")])
    with pytest.raises(InputError, match="frozen"):
        navies.navy_actions(S, replace(st, phase=0), R, 70, [("sail", "North")])
    full = tiny_state(navies=[Navy(70, "Red", "North"), Navy(71, "Red", "North", "port:Aport"),
                              Navy(72, "Red", "North", "port:Aport")])
    with pytest.raises(InputError, match="already holds 2"):
        navies.navy_actions(S, full, R, 70, [("put_in", "Aport")])
    with pytest.raises(InputError, match="enemy port"):
        navies.navy_actions(S, tiny_state(navies=[Navy(70, "Red", "South")]), R, 70, [("put_in", "Cport")])


def test_transport_20_ap_at_port_10_off_a_coast_hq_free():
    big = army(1, "Red", "A", "hq", "heavy_infantry", "heavy_infantry", "heavy_infantry", "line_infantry",
               "line_infantry", "line_infantry", "line_infantry")          # 3*3 + 4*2 = 17 AP, HQ free
    assert navies.army_load(R, big) == 17
    st = tiny_state([big, army(2, "Red", "A", "line_infantry", "line_infantry")],
                    navies=[Navy(70, "Red", "North", "port:Aport")])
    st2, _ = navies.navy_actions(S, st, R, 70, [("embark", 1)])
    with pytest.raises(InputError, match="pass 20 AP"):
        navies.navy_actions(S, st2, R, 70, [("embark", 2)])
    # off B's coast (no port): landings of 10 AP an action at most
    st3, _ = navies.navy_actions(S, st2, R, 70, [("put_out",), ("lie_off", "B")])
    with pytest.raises(InputError, match="above the 10 AP"):
        navies.navy_actions(S, st3, R, 70, [("disembark", 1)])
    small = tiny_state([army(3, "Red", "A", "hq", "line_infantry", "line_infantry")],
                       navies=[Navy(70, "Red", "North", "coast:B")])
    small = small.with_armies(replace(small.army(3), aboard=70))
    st4, _ = navies.navy_actions(S, small, R, 70, [("disembark", 3)])
    assert st4.army(3).province == "B" and not st4.army(3).aboard


def test_sea_battle_loser_retreats_and_rolls_per_unit():
    st = tiny_state([army(1, "Blue", "D", "hq", "line_infantry", "line_infantry", aboard=71)],
                    navies=[Navy(70, "Red", "South"), Navy(71, "Blue", "South")], phase=2)
    # d6 each: Red 5, Blue 3 -> Blue loses; its units aboard roll: hq 1 (lost), inf 2, inf 1 (lost); navy 4
    st2, ev = navies.sea_battles(S, st, R, Scripted(faces=[5, 3, 1, 2, 1, 4]))
    assert st2.navy(71).lane == "North"
    assert [u.id for u in st2.army(1).units] == [12]
    assert st2.navy(70).lane == "South"


def test_sea_battle_tie_rerolls_or_stands_off():
    st = tiny_state(navies=[Navy(70, "Red", "South"), Navy(71, "Blue", "South")], phase=2)
    st2, ev = navies.sea_battles(S, st, R, Scripted(faces=[3, 3, 2, 6, 1]))     # tie, then Blue wins; Red's navy sinks on 1
    assert [n.id for n in st2.navies] == [71]
    r = rules_with({"options": {"naval_tie": "stand_off"}})
    st3, ev = navies.sea_battles(S, st, r, Scripted(faces=[3, 3]))
    assert len(st3.navies) == 2 and ev[-1].kind == "sea_battle_drawn"
    r = rules_with({"options": {"naval_battles": "umpire"}})
    st4, ev = navies.sea_battles(S, st, r, Scripted())
    assert ev[0].kind == "sea_battle_due"


def test_entered_dice_by_label_and_delivery():
    st = _courier_state()
    # the umpire's own dice, keyed by label: passage then fate
    dice = Dice(seed=1, entered={"courier/1801/1/50/C/pass": 2})
    st2, ev = couriers.move_courier(S, st, R, 50, ["B", "C"], dice)
    assert st2.courier(50).where == "C" and dice.log[0].entered and dice.log[0].key == "courier/1801/1/50/C/pass"
    st3, ev = couriers.deliver(st2, 50)
    assert ev[0].data["message"] == "attack at dawn" and st3.courier(50).message == ""
    with pytest.raises(InputError, match="no message"):
        couriers.deliver(st3, 50)
    with pytest.raises(InputError, match="already moved"):
        couriers.move_courier(S, st3, R, 50, ["B"], dice)
