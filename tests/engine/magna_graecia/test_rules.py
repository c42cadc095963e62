"""Magna Graecia's rule numbers, as the seed gives them (shared/seeds/magna_graecia.txt)."""

from __future__ import annotations

import pytest

from bellica.datasets.rules import load_rules
from bellica.engine.magna_graecia.rules import default_rules, rules_with
from bellica.geo.errors import InputError

R = default_rules()


def test_movement_points_and_costs():
    m = R.movement
    assert (m.fast_mp, m.slow_mp, m.fleet_mp) == (2, 1, 3)
    assert (m.node_cost, m.exchange_cost, m.embark_cost, m.disembark_cost) == (1, 1, 1, 0)
    assert "El" not in m.fast_types and "Exp" not in m.fast_types and {"Cv", "LH", "Ps"} <= set(m.fast_types)


def test_stacking_four_counters_plus_a_fleet():
    assert (R.stacking.land_counters, R.stacking.fleets, R.fleets.per_side) == (4, 1, 1)


def test_neutral_city_command_is_the_seeds():
    # 1 Irr Cv(I) general, 6 Reg Sp(I), 2 Reg Sp(O), 4 Reg Ps(O), 1 Reg Cv(I), 1 Reg LH(O)
    assert R.neutral.general == "Cv(I)"
    assert dict(R.neutral.elements) == {"Sp(I)": 6, "Sp(O)": 2, "Ps(O)": 4, "Cv(I)": 1, "LH(O)": 1}
    assert R.neutral.alliance_roll == 6


def test_siege_numbers():
    s = R.sieges
    assert (s.fall_at, s.disease_natural, s.disease_at, s.disease_loss_percent, s.fall_loss_percent) == (8, 1, 1, 10, 20)
    assert (s.ratio_2_to_1, s.ratio_3_to_1, s.per_consecutive_turn) == (1, 2, 1)
    assert dict(s.city_modifiers) == {"Syracuse": -4}


def test_recovery_and_victory_tables():
    r, v = R.recovery, R.victory
    assert (r.at, r.held_field, r.command_element, r.leader_killed, r.allied_element) == (5, 2, 1, -1, -1)
    assert (v.city_allied, v.commander_destroyed, v.np_per_point, v.capital_captured) == (1, 1, 5, 10)
    assert R.game.turns == 18 and R.game.die == 6


def test_options_default_and_override():
    o = R.options
    assert (o.siege_modifiers_apply, o.ratio_modifiers, o.fleet_tie, o.percent_rounding) == ("fall", "highest", "reroll", "up")
    alt = rules_with({"options": {"ratio_modifiers": "cumulative", "fleet_tie": "both_stay"}})
    assert alt.options.ratio_modifiers == "cumulative" and alt.options.fleet_tie == "both_stay"


@pytest.mark.parametrize("over, message", [
    ({"options": {"fleet_tie": "coin"}}, r'options.fleet_tie = "coin": give one of "reroll", "defender_holds", "both_stay"'),
    ({"stacking": {"land_counters": 0}}, r"stacking.land_counters = 0: give a whole number >= 1"),
    ({"movement": {"fast_types": ["Zz"]}}, r"movement.fast_types: 'Zz' is not in elements.types"),
    ({"neutral": {"alliance_roll": 7}}, r"neutral.alliance_roll = 7: give 1 to 6"),
])
def test_bad_values_are_one_line(over, message):
    with pytest.raises(InputError, match=message):
        rules_with(over)


def test_percent_rounding():
    assert R.share(12, 10) == 2 and R.share(10, 10) == 1 and R.share(3, 20) == 1
    assert rules_with({"options": {"percent_rounding": "down"}}).share(12, 10) == 1
    assert rules_with({"options": {"percent_rounding": "nearest"}}).share(15, 10) == 2


def test_file_loads_through_the_shared_loader():
    assert load_rules("magna-graecia")["sieges"]["fall_at"] == 8


def test_dice_are_labelled_reproducible_and_enterable():
    from bellica.engine.magna_graecia.dice import Dice
    a, b = Dice(5).roll("siege", 3, "Motya", "Syracuse"), Dice(5).roll("siege", 3, "Motya", "Syracuse")
    assert a.value == b.value and 1 <= a.value <= 6 and a.key == "siege/3/Motya/Syracuse"
    d = Dice(5, {"siege/3/Motya/Syracuse": 6})
    assert d.roll("siege", 3, "Motya", "Syracuse").entered and d.log[0].value == 6
    with pytest.raises(InputError, match="entered roll siege/3/Motya/Syracuse = 7: give a whole number from 1 to 6"):
        Dice(5, {"siege/3/Motya/Syracuse": 7}).roll("siege", 3, "Motya", "Syracuse")
