"""Rules found missing or misread on a second reading of the seed, each with the seed's numbers."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from bellica.engine.trossian import battles, cards, couriers, navies, sieges, treasury, turn
from bellica.engine.trossian.model import WINTER, Courier, Navy, Siege, Unit, state_from_dict, state_to_dict
from bellica.engine.trossian.rules import default_rules, rules_with
from bellica.engine.trossian.scenario import DEFAULT_SCENARIO, default_scenario, load_scenario
from bellica.geo.errors import InputError

from .tiny import Scripted, army, tiny_scenario, tiny_state

R = default_rules()
TWENTY = ("hq", "heavy_infantry", "heavy_infantry", "heavy_infantry", "heavy_infantry", "line_infantry",
          "line_infantry", "line_infantry", "line_infantry")        # 20 AP, the HQ not counted


# --- the census: no nation fields more stands of a kind than it owns -----------------------------


def _census(limits):
    s = tiny_scenario([{"key": "levy", "title": "Levy", "text": "t", "effect": "levy",
                        "units": ["line_infantry", "line_infantry"]}])
    return replace(s, forces={"census": {"Red": limits}})


def test_recruits_stop_at_the_census():
    s = _census({"line_infantry": 3, "navy": 1})
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry")], phase=WINTER, banks={"Red": {"A": 40}})
    assert treasury.census_left(s, st, "Red", "line_infantry") == 2
    assert treasury.census_left(s, st, "Red", "heavy_cavalry") is None          # not listed: not limited
    st2, _ = treasury.recruit(s, st, R, "Red", "A", ["line_infantry", "line_infantry"])    # 2 AP each
    assert st2.nations["Red"].bank == {"A": 36}
    with pytest.raises(InputError, match="census allows 0 more line_infantry"):
        treasury.recruit(s, st2, R, "Red", "A", ["line_infantry"])
    with pytest.raises(InputError, match="census allows 2 more"):
        treasury.recruit(s, st, R, "Red", "A", ["line_infantry"] * 3)
    st3, _ = treasury.recruit(s, st, R, "Red", "A", ["navy"])                   # 10 AP
    with pytest.raises(InputError, match="navy"):
        treasury.recruit(s, st3, R, "Red", "A", ["navy"])


def test_a_card_levy_beyond_the_census_has_no_effect():
    s = _census({"line_infantry": 2})
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry")])
    st2, ev = cards.apply_card(s, st, R, "Red", s.cards[0], Scripted())
    assert ev[-1].kind == "card_no_effect" and st2.armies == st.armies


def test_the_shipped_census_holds_the_starting_forces(tmp_path):
    s = default_scenario()
    assert set(s.forces["census"]) == set(s.nations)
    folder = tmp_path / "trossian"
    shutil.copytree(DEFAULT_SCENARIO, folder)
    text = (folder / "forces.toml").read_text()
    old = "[census.Russia]\nhq = 4\nlight_infantry = 2\nline_infantry = 7"
    assert old in text
    (folder / "forces.toml").write_text(text.replace(old, "[census.Russia]\nhq = 4\nlight_infantry = 2\nline_infantry = 3"))
    with pytest.raises(InputError, match="starting forces hold 4 line_infantry, above its 3"):
        load_scenario(folder)


# --- chance cards: "roll twice, ignoring any additional results of 10" ---------------------------


@pytest.mark.parametrize("faces, phases", [
    ([10, 10, 5], (4,)),          # the second 10 places no card
    ([10, 3, 10], (2,)),
    ([10, 10, 10], ()),
    ([7], (6,)),
])
def test_card_tens_may_place_no_card(faces, phases):
    r = rules_with({"options": {"card_tens": "no_card"}})
    dice = Scripted(faces=list(faces))
    assert cards.card_schedule(r, dice, 1801, "Red") == phases and not dice.faces


def test_card_tens_rolled_again_by_default():
    assert R.options.card_tens == "reroll"
    assert cards.card_schedule(R, Scripted(faces=[10, 10, 5, 2]), 1801, "Red") == (1, 4)


# --- attrition modifiers read against the number needed -----------------------------------------


def test_modifiers_on_the_threshold_reverse_in_the_draw():
    r = rules_with({"options": {"attrition_modifiers": "on_threshold"}})
    guard, militia = Unit(1, "heavy_infantry", "guard"), Unit(2, "militia_infantry", "militia")
    # winner, destroyed on 1-2; Guard/HQ "-1": eliminated on a 1 only; militia "+1": on 1-3
    assert battles.eliminated(r, "winner", "destroyed", guard, 1)
    assert not battles.eliminated(r, "winner", "destroyed", guard, 2)
    assert battles.eliminated(r, "winner", "destroyed", militia, 3)
    # loser, destroyed on 1-3: the Guard on 1-2
    assert not battles.eliminated(r, "loser", "destroyed", guard, 3)
    # draw, destroyed on 1-2, the signs reversed: the Guard "+1" goes on 1-3, militia "-1" on a 1
    assert battles.eliminated(r, "draw", "destroyed", guard, 3)
    assert not battles.eliminated(r, "draw", "destroyed", militia, 2)
    assert r.attrition_modifier("draw", "line", "hq") == -1


# --- pacification and port sieges --------------------------------------------------------------


def test_movement_negates_a_month_not_the_whole_pacification():
    """"Movement and battles negate this for one month": with three phases needed, a spoiled
    phase is lost but the phases already done stand (options.pacification_interrupt "pause")."""
    s = tiny_scenario()
    r = rules_with({"pacification": {"phases": 3}})
    assert r.options.pacification_interrupt == "pause"
    st = tiny_state([army(1, "Blue", "B", *TWENTY)])
    st, _ = sieges.pacification(s, st, r)
    assert st.siege("B").done == 1
    st, ev = sieges.pacification(s, replace(st, entries=frozenset({("B", "Red")})), r)
    assert any(e.kind == "pacification_spoiled" for e in ev) and st.siege("B").done == 1
    st, _ = sieges.pacification(s, replace(st, entries=frozenset()), r)
    assert st.siege("B").done == 2
    restart = rules_with({"pacification": {"phases": 3}, "options": {"pacification_interrupt": "restart"}})
    st2, _ = sieges.pacification(s, replace(st, entries=frozenset({("B", "Red")})), restart)
    assert st2.siege("B") is None


def test_a_port_blockade_must_last_the_whole_siege():
    """"Ports do not count as besieged unless an enemy navy occupies the adjacent sea lane for
    the duration of the siege": a phase without the navy undoes the phases done."""
    s = tiny_scenario()
    r = rules_with({"pacification": {"phases": 3}})
    assert r.options.unblockaded_port == "restart"
    st = tiny_state([army(1, "Red", "C", *TWENTY)], navies=[Navy(70, "Red", "South")])
    st, _ = sieges.pacification(s, st, r)
    st, _ = sieges.pacification(s, st, r)
    assert st.siege("C").done == 2
    away = st.with_navies(replace(st.navy(70), lane="North"))
    st2, ev = sieges.pacification(s, away, r)
    assert any(e.kind == "siege_unblockaded" for e in ev) and st2.siege("C").done == 0
    keep = rules_with({"pacification": {"phases": 3}, "options": {"unblockaded_port": "no_progress"}})
    assert sieges.pacification(s, away, keep)[0].siege("C").done == 2


def test_troops_embarked_during_a_siege_land_and_are_not_captured_aboard():
    s = tiny_scenario()
    st = tiny_state([army(1, "Red", "C", *TWENTY), army(2, "Blue", "C", "line_infantry", aboard=71)],
                    navies=[Navy(70, "Red", "South"), Navy(71, "Blue", "South", "port:Cport")])
    st = replace(st, sieges=(Siege("C", "Red", 1, 2),))                     # embarked after the siege began
    st, _ = sieges.pacification(s, st, R)
    assert st.control["C"] == "Red" and st.navy(71).nation == "Red"         # the port falls, its navy taken
    assert st.army(2).aboard == 0 and st.army(2).province == "C"             # its troops landed, not taken aboard


# --- armies and ships: the rest, the HQ ------------------------------------------------------------


def test_a_resting_victor_cannot_sail_away():
    """"An army victorious in the field must spend one full phase stationary": not aboard a ship either."""
    s = tiny_scenario()
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry", rest=1)], navies=[Navy(70, "Red", "North", "port:Aport")])
    with pytest.raises(InputError, match="must stay where it is"):
        navies.navy_actions(s, st, R, 70, [("embark", 1)])
    held = tiny_state([army(1, "Red", "A", "line_infantry", standing="hold")], navies=[Navy(70, "Red", "North", "port:Aport")])
    with pytest.raises(InputError, match="no HQ and holds"):
        navies.navy_actions(s, held, R, 70, [("embark", 1)])
    st2, _ = navies.navy_actions(s, replace(st, armies=(replace(st.army(1), rest=0),)), R, 70, [("embark", 1)])
    assert st2.army(1).aboard == 70


def test_an_army_without_an_hq_does_not_land_to_contact():
    """"An army without an HQ will not move to contact an enemy force": nor land on one."""
    s = tiny_scenario()
    st = tiny_state([army(1, "Red", "B", "line_infantry", aboard=70), army(2, "Blue", "B", "hq", "line_infantry")],
                    navies=[Navy(70, "Red", "North", "coast:B")])
    with pytest.raises(InputError, match="no HQ"):
        navies.navy_actions(s, st, R, 70, [("disembark", 1)])
    clear = replace(st, armies=(st.army(1),))
    st2, _ = navies.navy_actions(s, clear, R, 70, [("disembark", 1)])
    assert st2.army(1).province == "B" and not st2.army(1).aboard


def test_an_army_that_loses_its_last_hq_at_sea_holds():
    """"An army that loses its last HQ will either hunker down ... or march home": after a lost sea
    fight too (a d6 per unit aboard, lost on a 1)."""
    s = tiny_scenario()
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry", aboard=70)],
                    navies=[Navy(70, "Red", "South"), Navy(71, "Blue", "South")])
    # Red rolls 2, Blue 5: Red loses; the HQ rolls a 1 (lost), the infantry a 4, the navy a 6
    st2, ev = navies.sea_battle(s, st, R, Scripted(faces=[2, 5, 1, 4, 6]), [70], [71])
    a = st2.army(1)
    assert [u.kind for u in a.units] == ["line_infantry"] and a.standing == "hold"
    assert any(e.kind == "hq_lost" for e in ev)


def test_a_navy_in_port_does_not_hold_the_lane_against_couriers():
    """Couriers "freely pass through unoccupied sea lanes"; a port is its own space, so an enemy
    navy lying in port leaves the lane unoccupied."""
    s = tiny_scenario()
    st = tiny_state(navies=[Navy(71, "Blue", "South", "port:Cport")])
    st = st.with_couriers(Courier(50, "Red", "A", message="m", to="army 1"))
    st2, ev = couriers.move_courier(s, st, R, 50, ["North", "South"], Scripted())
    assert st2.courier(50).where == "South" and not [e for e in ev if e.kind == "courier_check"]
    at_sea = st.with_navies(replace(st.navy(71), berth=""))
    st3, ev = couriers.move_courier(s, at_sea, R, 50, ["North", "South"], Scripted(faces=[4]))
    assert [e.data["fate"] for e in ev if e.kind == "courier_check"] == ["passed"]


def test_a_neutral_port_is_not_friendly():
    """Loading "at a friendly port", and shelter "protected by the guns of the city": a port
    nobody holds is neither; an ally's is."""
    s = replace(tiny_scenario(), holders={**tiny_scenario().holders, "D": None})
    st = tiny_state(navies=[Navy(70, "Red", "South")])
    st = replace(st, control={**st.control, "D": None})
    with pytest.raises(InputError, match="not a friendly port"):
        navies.navy_actions(s, st, R, 70, [("put_in", "Dport")])
    allied = replace(st, control={**st.control, "D": "Blue"}, alliances=frozenset({frozenset(("Red", "Blue"))}))
    st2, _ = navies.navy_actions(s, allied, R, 70, [("put_in", "Dport")])
    assert st2.navy(70).port == "Dport"


def test_a_drawn_army_with_no_safe_line_of_retreat_is_destroyed():
    """A draw: "both armies must retreat one province"; one that cannot is destroyed, as a loser is."""
    s = tiny_scenario()
    st = tiny_state([army(1, "Red", "C", "hq", "line_infantry"), army(2, "Blue", "C", "hq", "line_infantry")])
    st = replace(st, control={**st.control, "D": "Red"})                   # Blue in C: B and D are Red's
    st, _ = battles.find_battles(s, st)
    st2, ev = battles.resolve_battle(s, st, R, st.battles[0].id, "draw", {}, Scripted(), retreats={1: "B"})
    assert st2.army(1).province == "B" and st2.army(1).rest == 1
    assert not [a for a in st2.armies if a.nation == "Blue"]
    assert any(e.kind == "army_destroyed" and e.data["why"].startswith("draw") for e in ev)


def test_a_navy_that_sailed_in_this_phase_blockades_nothing_yet():
    """The blockade needs the navy in the adjacent lane the whole time: one that sails in (or
    puts out of port) during the phase has not been there all phase."""
    s = tiny_scenario()
    st = tiny_state([army(1, "Red", "C", *TWENTY)], navies=[Navy(70, "Red", "North")])
    st, _ = navies.navy_actions(s, st, R, 70, [("sail", "South")])
    assert 70 in st.sailed and not sieges.blockaded(s, st, "C", "Red")
    st2, ev = sieges.pacification(s, st, R)
    assert st2.control["C"] == "Blue" and any(e.kind == "siege_unblockaded" for e in ev)
    st3, _ = turn.end_phase(s, st, R)                          # the next phase it has stayed
    assert not st3.sailed and sieges.blockaded(s, st3, "C", "Red")
    lying = tiny_state(navies=[Navy(71, "Red", "South", "coast:C")])
    st4, _ = navies.navy_actions(s, lying, R, 71, [("put_out",)])   # from off the coast: still in the lane
    assert not st4.sailed
    in_port = tiny_state(navies=[Navy(72, "Red", "North", "port:Aport")])
    st5, _ = navies.navy_actions(s, in_port, R, 72, [("put_out",)])
    assert st5.sailed == {72}
    assert state_from_dict(state_to_dict(st5)) == st5
