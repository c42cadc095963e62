"""The Trossian rule numbers, checked against the seed's own (shared/seeds/trossian_napoleonic.txt)."""

from __future__ import annotations

import pytest

from bellica.engine.trossian.calendar import next_phase, phase_name, season
from bellica.engine.trossian.model import WINTER, Unit
from bellica.engine.trossian.rules import Rules, default_rules, rules_with
from bellica.geo.errors import InputError

R = default_rules()


def test_nine_phases_three_seasons_of_three_then_winter():
    assert R.calendar.phases == ("Early Spring", "Mid Spring", "Late Spring", "Early Summer", "Mid Summer",
                                 "Late Summer", "Early Autumn", "Mid Autumn", "Late Autumn")
    assert [season(R, p) for p in (0, 2, 3, 5, 6, 8)] == ["Spring", "Spring", "Summer", "Summer", "Autumn", "Autumn"]
    assert R.calendar.first_year == 1801
    assert next_phase(R, 1801, 0) == (1801, 1)
    assert next_phase(R, 1801, 8) == (1801, WINTER)          # Late Autumn -> winter quarters
    assert next_phase(R, 1801, WINTER) == (1802, 0)          # -> Early Spring
    assert phase_name(R, WINTER) == "Winter quarters"


def test_movement_rates_by_arm():
    m = R.movement
    assert (m.infantry, m.artillery, m.mounted, m.courier, m.road_bonus) == (1, 1, 2, 4, 1)
    assert (m.retreat, m.victor_rest, m.draw_freeze) == (1, 1, 1)
    assert R.units.arm("line_infantry") == "infantry" and R.units.arm("foot_artillery") == "artillery"
    assert R.units.arm("light_cavalry") == "mounted" and R.units.arm("heavy_cavalry") == "mounted"


@pytest.mark.parametrize("result, destroyed, remaining, routed", [
    ("winner", 2, 1, 1),     # destroyed on 1-2, remaining on 1, routed on 1
    ("loser", 3, 1, 2),      # destroyed on 1-3, remaining on 1, routed on 1-2
    ("draw", 2, 0, 1),       # destroyed on 1-2, (no roll for remaining), routed: all on a 1
])
def test_attrition_thresholds(result, destroyed, remaining, routed):
    row = R.attrition[result]
    assert (row.destroyed, row.remaining, row.routed) == (destroyed, remaining, routed)


def test_attrition_modifiers_as_printed():
    assert (R.attrition["winner"].guard_hq, R.attrition["winner"].militia) == (-1, 1)
    assert (R.attrition["loser"].guard_hq, R.attrition["loser"].militia) == (-1, 1)
    assert (R.attrition["draw"].guard_hq, R.attrition["draw"].militia) == (1, -1)   # the reverse


@pytest.mark.parametrize("mode, result, guard, militia", [
    ("guard_tougher", "winner", 1, -1), ("guard_tougher", "loser", 1, -1), ("guard_tougher", "draw", 1, -1),
    ("as_written", "winner", -1, 1), ("as_written", "loser", -1, 1), ("as_written", "draw", 1, -1),
    ("draw_as_others", "winner", -1, 1), ("draw_as_others", "draw", -1, 1),
])
def test_attrition_modifier_options(mode, result, guard, militia):
    r = rules_with({"options": {"attrition_modifiers": mode}})
    assert r.attrition_modifier(result, "guard", "line_infantry") == guard
    assert r.attrition_modifier(result, "line", "hq") == guard                 # HQ as Guard
    assert r.attrition_modifier(result, "militia", "militia_infantry") == militia
    assert r.attrition_modifier(result, "line", "line_infantry") == 0


def test_courier_odds_and_table():
    c = R.couriers
    assert (c.die, c.fail_on) == (6, 1)                                         # 1 in 6
    assert sum(1 for f in range(1, 7) if f <= c.fail_on) / c.die == pytest.approx(1 / 6)
    assert [c.outcome(f) for f in range(1, 7)] == ["captured", "killed", "killed", "killed", "killed",
                                                   "false_message"]


def test_navies_numbers():
    n = R.navies
    assert (n.actions, n.port_capacity, n.transport_ap, n.port_load_ap, n.beach_load_ap) == (4, 2, 20, 20, 10)
    assert (n.battle_die, n.loss_on) == (6, 1)
    assert R.ice.closed == ("Early Spring", "Late Autumn") and R.ice.lost_in == "Late Autumn"


def test_ap_table_and_costs():
    t = R.treasury
    assert (t["land"], t["town"], t["port"]) == (2, 4, 6)
    assert R.pacification.ap == 20 and R.pacification.phases == 1 and R.pacification.winter_port_extra == 1
    c = R.costs
    assert (c["hq"], c["light_infantry"], c["line_infantry"], c["heavy_infantry"]) == (4, 2, 2, 3)
    assert (c["light_cavalry"], c["heavy_cavalry"], c["foot_artillery"]) == (3, 3, 3)
    assert (c["courier"], c["navy"]) == (1, 10)
    assert "horse_artillery" not in c                 # the edit log: all artillery is foot artillery


def test_the_ap_table_gives_every_kind_of_province():
    values = {**R.values, "treasury": {"land": 2, "town": 4}}
    with pytest.raises(InputError, match="treasury: keys land, town: give the AP of each kind of province, land, town, port"):
        Rules.from_mapping(values)


def test_card_die():
    assert (R.cards.die, R.cards.double_on) == (10, 10)


@pytest.mark.parametrize("overrides, message", [
    ({"options": {"ap_basis": "sum"}}, "options.ap_basis"),
    ({"ice": {"lost_in": "Winter"}}, "is not a phase"),
    ({"couriers": {"captured_max": 6, "killed_max": 5}}, "captured_max <= killed_max"),
    ({"cards": {"die": 12}}, "cards"),
])
def test_bad_rules_are_one_line(overrides, message):
    with pytest.raises(InputError, match=message) as err:
        rules_with(overrides)
    assert "\n" not in str(err.value)


def test_units_are_value_objects():
    assert Unit(1, "hq") == Unit(1, "hq", "line")
