"""Mare Nostrum's rule numbers, checked against the seed's own (shared/seeds/mare_nostrum.txt)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.mare_nostrum import actions, battles, diplomacy, stability, victory
from bellica.engine.mare_nostrum.model import Fleet, Works
from bellica.engine.mare_nostrum.rules import default_rules, rules_with
from bellica.engine.mare_nostrum.scenario import default_scenario
from bellica.engine.mare_nostrum.turn import new_game
from bellica.geo.errors import InputError

R = default_rules()
S = default_scenario()


# --- treasury and actions: "every 3 treasury points allow 1 action ... always at least 1" -----


@pytest.mark.parametrize("points, n", [(0, 1), (1, 1), (2, 1), (3, 1), (5, 1), (6, 2), (8, 2), (9, 3), (25, 8)])
def test_one_action_per_three_points_at_least_one(points, n):
    assert actions.actions_from_treasury(points, R) == n


def test_treasury_counts_provinces_suburbs_and_temples():
    st = new_game(S, R)
    assert actions.treasury(S, st, R, "Romans") == 6                      # six provinces, 1 point each
    st = st.with_works("Latium", suburbs=1, temples=1)
    assert actions.treasury(S, st, R, "Romans") == 8
    assert actions.actions_from_treasury(8, R) == 2


def test_action_modifiers_and_stability_penalty():
    # stability 4: no penalty; 3 or less: one action lost
    assert actions.action_count(6, 0, 4, R) == 2
    assert actions.action_count(6, 0, 3, R) == 1
    assert actions.action_count(9, -1, 3, R) == 1           # Political Strife and low stability
    assert actions.action_count(9, +1, 5, R) == 4           # Administrative Reforms
    # the floor of one action survives the penalties ("final"), or not ("treasury")
    assert actions.action_count(3, -1, 2, R) == 1
    alt = rules_with({"options": {"action_floor": "treasury"}})
    assert actions.action_count(3, -1, 2, alt) == 0


# --- the 1-90 event table ---------------------------------------------------------------------

TABLE = [  # (low, high, key, stability, actions, naval, effect) as the seed lists them
    (1, 5, "political_strife", -1, -1, 0, ""),
    (6, 10, "slave_revolt", 0, -1, 0, ""),
    (11, 15, "famine", -1, 0, 0, ""),
    (16, 20, "local_insurrection", 0, 0, 0, "lose_fortification"),
    (21, 25, "religious_unrest", 0, 0, 0, "lose_temple"),
    (26, 30, "internal_conspiracy", 0, 0, 0, "own_single_commander"),
    (31, 35, "great_storm", 0, 0, 0, "fleet_sinks"),
    (36, 40, "invasion", 0, 0, 0, "invasion"),
    (41, 45, "pirates", 0, 0, 0, "pirates"),
    (46, 50, "siege_train", 0, 0, 0, "siege_train"),
    (51, 55, "defensive_artworks", 0, 0, 0, "defensive_artworks"),
    (56, 60, "naval_technology", 0, 0, 25, ""),
    (61, 65, "military_training", 0, 0, 0, "enemy_single_commander"),
    (66, 70, "earthquake", 0, 0, 0, "destroy_enemy_fortification"),
    (71, 75, "great_blaze", 0, 0, 0, "destroy_enemy_temple"),
    (76, 80, "good_harvest", 1, 0, 0, ""),
    (81, 85, "administrative_reforms", 0, 1, 0, ""),
    (86, 90, "political_leadership", 1, 1, 0, ""),
]


@pytest.mark.parametrize("low, high, key, stab, acts, naval, effect", TABLE)
def test_event_bands(low, high, key, stab, acts, naval, effect):
    for n in (low, (low + high) // 2, high):
        band = R.event(n)
        assert (band.key, band.stability, band.actions, band.naval, band.effect) == (key, stab, acts, naval, effect)
    assert R.event(low - 1).key != key if low > 1 else True


def test_event_table_must_tile_one_to_ninety():
    with pytest.raises(InputError, match="expected 6"):
        rules_with({"events": {"slave_revolt": {"min": 7}}})
    with pytest.raises(InputError, match="effect"):
        rules_with({"events": {"famine": {"effect": "plague"}}})
    with pytest.raises(InputError):
        R.event(91)


def test_rules_survive_the_campaign_rules_table():
    from bellica.datasets.rules import rules_from_rows, rules_rows
    from bellica.engine.mare_nostrum.rules import Rules

    again = Rules.from_mapping(rules_from_rows(rules_rows(R.values)))
    assert again.events == R.events and again.options == R.options


def test_options_are_validated():
    with pytest.raises(InputError, match="diagonals"):
        rules_with({"options": {"diagonals": "sometimes"}})


# --- fortification 61-90, peace 46-90, alliance 31-90 -------------------------------------------


def test_siege_peace_and_alliance_bands():
    assert (R.sieges.resist_min, R.sieges.resist_max) == (61, 90)
    assert [diplomacy.peace_succeeds(n, R) for n in (1, 45, 46, 90)] == [False, False, True, True]
    assert [diplomacy.alliance_succeeds(n, R) for n in (1, 30, 31, 90)] == [False, False, True, True]


# --- naval battles: the 25-point draw band, 2 against 1, 2 against 2 -------------------------


def test_naval_draw_within_25_points():
    assert battles.naval_outcome([1], [2], 60, 35, R).winner is None          # difference 25: a draw
    r = battles.naval_outcome([1], [2], 61, 35, R)                            # 26: the loser sinks
    assert (r.winner, r.lost) == ("a", (2,))
    r = battles.naval_outcome([1], [2], 10, 80, R)
    assert (r.winner, r.lost) == ("b", (1,))


def test_two_fleets_against_one_add_25():
    r = battles.naval_outcome([1, 2], [3], 40, 50, R)                         # 40+25 = 65 vs 50: draw
    assert (r.a_score, r.b_score, r.winner) == (65, 50, None)
    r = battles.naval_outcome([1, 2], [3], 40, 14, R)                         # 65 vs 14
    assert (r.winner, r.lost) == ("a", (3,))
    r = battles.naval_outcome([1, 2], [3], 10, 70, R)                         # 35 vs 70: the pair loses one
    assert (r.winner, r.lost) == ("b", (1,))
    alt = rules_with({"options": {"pair_beaten_by_one": "all"}})
    assert battles.naval_outcome([1, 2], [3], 10, 70, alt).lost == (1, 2)


def test_two_against_two_loser_loses_all():
    r = battles.naval_outcome([1, 2], [3, 4], 80, 20, R)
    assert (r.winner, r.lost) == ("a", (3, 4))
    assert battles.naval_outcome([1, 2], [3, 4], 45, 20, R).lost == ()        # 25: a draw


def test_naval_technology_adds_25():
    r = battles.naval_outcome([1], [2], 40, 30, R, a_bonus=R.event(58).naval)
    assert (r.a_score, r.winner) == (65, "a")


# --- stability ------------------------------------------------------------------------------


def test_stability_starts_at_5_and_caps_at_7():
    st = new_game(S, R)
    assert {n.stability for n in st.nations.values()} == {5}
    st, _ = stability.change_stability(S, st, R, "Romans", +4, "test")
    assert st.nations["Romans"].stability == 7


def test_stability_penalty_at_3_or_less():
    assert [stability.action_penalty(s, R) for s in (7, 4, 3, 1)] == [0, 0, 1, 1]


def test_collapse_at_zero_makes_provinces_independent():
    st = new_game(S, R)
    st = replace(st, fleets=(Fleet(1, "Seleucids", "Mare Syriacum"),), next_fleet=2)
    st, _ = stability.change_stability(S, st, R, "Seleucids", -4, "test")
    assert st.nations["Seleucids"].playing and st.nations["Seleucids"].stability == 1
    st, ev = stability.change_stability(S, st, R, "Seleucids", -1, "Famine")
    assert not st.nations["Seleucids"].playing
    assert all(st.control[p] is None for p in ("Syria", "Cilicia", "Phrygia"))
    assert st.fleets == ()
    assert ev[-1].kind == "nation_out"


def test_floor_option_never_collapses():
    alt = rules_with({"options": {"stability_floor": "floor"}})
    st = new_game(S, alt)
    st, _ = stability.change_stability(S, st, alt, "Gauls", -9, "test")
    assert st.nations["Gauls"].playing and st.nations["Gauls"].stability == 1


def test_grain_distribution_adds_two():
    assert R.diplomacy.grain_stability == 2


# --- victory --------------------------------------------------------------------------------


def test_richness_counts_temples_double():
    st = new_game(S, R)
    st = st.with_works("Latium", suburbs=1, temples=1, fortifications=1)
    st = replace(st, fleets=(Fleet(1, "Romans", "Mare Tyrrhenum"),))
    # 2 (temple) + 1 (suburbs) + 1 (fortification) + 1 (fleet) + 5 (stability)
    assert victory.richness(S, st, R, "Romans") == 10


def test_richness_breaks_a_tie_after_turn_15():
    st = replace(new_game(S, R), turn=15)
    v = victory.verdict(S, st, R)
    assert v.winner is None and v.another_turn                      # six nations of 6 provinces, richness 5
    st2 = st.with_works("Apulia", suburbs=1)
    v = victory.verdict(S, st2, R)
    assert v.winner == "Romans" and "richness" in v.reason
    control = dict(st.control)
    control["Illyria"] = "Macedonians"
    v = victory.verdict(S, replace(st, control=control), R)
    assert v.winner == "Macedonians"                               # 7 provinces beat any richness
    assert victory.verdict(S, replace(st, turn=14), R).winner is None and not victory.verdict(S, replace(st, turn=14), R).another_turn


def test_25_provinces_win_at_once():
    st = replace(new_game(S, R), turn=3)
    names = list(S.provinces)
    control = {p: ("Romans" if i < 25 else st.control[p]) for i, p in enumerate(names)}
    v = victory.verdict(S, replace(st, control=control), R)
    assert v.winner == "Romans" and "25" in v.reason


# --- the scenario ---------------------------------------------------------------------------


def test_scenario_has_38_provinces_six_nations_of_four_homes_and_two_borders():
    assert len(S.provinces) == 38
    for nation in S.nations:
        provs = [p for p in S.provinces.values() if p.nation == nation]
        assert sorted(p.role for p in provs) == ["border", "border", "capital", "home", "home", "home"]
    assert {p.name for p in S.provinces.values() if p.nation is None} == {"Illyria", "Epirus"}
    # the seed's twelve invasion provinces are the border provinces, each with its managing player
    assert {i.province for i in S.invaders} == {p.name for p in S.provinces.values() if p.border}
    assert {(i.province, i.managed_by) for i in S.invaders if i.nation == "Romans"} == {("Bruttium", "Gauls"), ("Apulia", "Gauls")}
    assert [S.nations[n].wheel for n in S.nations] == ["BA", "CA", "FI", "GE", "MI", "NA"]
    assert S.independent_army(5) == "Pyrrhic" and S.independent_army(6) == "Illyrian"


def test_diagonal_passages_both_ways_or_as_written():
    assert battles.reaches(S, R, "Mauretania", "Baetica")
    assert battles.reaches(S, R, "Baetica", "Mauretania")                 # both_ways (the default)
    alt = rules_with({"options": {"diagonals": "as_written"}})
    assert battles.reaches(S, alt, "Mauretania", "Baetica")
    assert not battles.reaches(S, alt, "Baetica", "Mauretania")
    assert battles.reaches(S, alt, "Aegyptus", "Judaea") and not battles.reaches(S, alt, "Judaea", "Aegyptus")
    assert battles.reaches(S, alt, "Phoenicia", "Judaea") and battles.reaches(S, alt, "Judaea", "Phoenicia")
    assert not battles.reaches(S, R, "Africa", "Sardinia")


def test_works_default():
    assert Works() == Works(0, 0, 0)


# --- options chosen after the audit, and campaigns frozen before them ---------------------------


def test_audit_options_defaults_follow_the_seed():
    o = R.options
    # "If there is an enemy fleet in that sea quadrant a naval battle will take place": no fleet is
    # needed on an empty sea; the holder's fleets and the pirates (everyone's enemy) oppose a landing
    assert o.amphibious_needs_fleet is False and o.landing_opposed_by == "defender_and_pirates"
    # "Every building and military action must take place in a determined province"
    assert o.naval_needs_base is True
    assert (o.artworks_until, o.pirates_raid_others) == ("battles", "next_turn")
    for key, bad in (("landing_opposed_by", "nobody"), ("artworks_until", "never"), ("pirates_raid_others", "now")):
        with pytest.raises(InputError, match=key):
            rules_with({"options": {key: bad}})


def test_a_campaign_frozen_before_the_new_options_keeps_its_old_rules():
    from bellica.engine.mare_nostrum.rules import Rules

    values = {k: (dict(v) if isinstance(v, dict) else v) for k, v in R.values.items()}
    values["options"] = {k: v for k, v in values["options"].items()
                         if k not in ("landing_opposed_by", "artworks_until", "naval_needs_base", "pirates_raid_others")}
    values["options"]["amphibious_needs_fleet"] = True
    old = Rules.from_mapping(values).options
    assert (old.landing_opposed_by, old.artworks_until, old.naval_needs_base, old.pirates_raid_others,
            old.amphibious_needs_fleet) == ("defender", "battles", False, "next_turn", True)
