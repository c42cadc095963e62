"""The AP treasury, banking and its capture, recruiting, pacification and sieges, chance cards."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.trossian import cards, sieges, treasury
from bellica.engine.trossian.model import WINTER, Navy, Siege
from bellica.engine.trossian.rules import default_rules, rules_with
from bellica.geo.errors import InputError

from .tiny import Scripted, army, tiny_scenario, tiny_state

R = default_rules()
S = tiny_scenario()


# --- AP ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("basis, a, b, c", [
    ("kind", 6, 2, 6),          # A port province 6, B land 2, C (a town and a port) a port province 6
    ("adds", 8, 2, 8),          # 2 + 6 for a port
    ("per_town", 8, 2, 12),     # 2 + 4 per town + 6 per port
])
def test_ap_table(basis, a, b, c):
    r = rules_with({"options": {"ap_basis": basis}})
    assert [treasury.province_ap(S, r, p) for p in "ABC"] == [a, b, c]


def test_income_goes_to_the_capital_and_a_besieged_city_keeps_its_own():
    st = replace(tiny_state(phase=WINTER), control={**tiny_state().control, "C": "Red"})
    st2, ev = treasury.collect_income(S, st, R)
    assert st2.nations["Red"].bank == {"A": 6 + 2 + 6}
    st = replace(st, sieges=(Siege("C", "Blue"),))
    st3, _ = treasury.collect_income(S, st, R)
    assert st3.nations["Red"].bank == {"A": 8, "C": 6}


def test_recruit_costs_and_placement():
    st = tiny_state(phase=WINTER, banks={"Red": {"A": 20}})
    kinds = ["hq", "line_infantry", "heavy_infantry", "light_cavalry", "foot_artillery", "courier"]
    st2, ev = treasury.recruit(S, st, R, "Red", "A", kinds)
    assert st2.nations["Red"].bank == {"A": 20 - (4 + 2 + 3 + 3 + 3 + 1)}
    new = [a for a in st2.armies if a.nation == "Red"][0]
    assert new.province == "A" and [u.kind for u in new.units] == kinds[:-1]
    assert [c.where for c in st2.couriers] == ["A"]
    with pytest.raises(InputError, match="cost 10 AP"):
        treasury.recruit(S, st2, R, "Red", "A", ["navy"])
    with pytest.raises(InputError, match="not a city it holds"):
        treasury.recruit(S, st, R, "Red", "B", ["line_infantry"])                # B is no city
    with pytest.raises(InputError, match="winter quarters"):
        treasury.recruit(S, replace(st, phase=3), R, "Red", "A", ["line_infantry"])


def test_navy_costs_ten_and_needs_a_berth():
    st = tiny_state(phase=WINTER, banks={"Red": {"A": 10}})
    st2, _ = treasury.recruit(S, st, R, "Red", "A", ["navy"])
    assert st2.nations["Red"].bank == {} and st2.navies[0].berth == "port:Aport"


def test_recruit_at_capital_option_and_besieged_banks():
    st = replace(tiny_state(phase=WINTER, banks={"Red": {"A": 4, "C": 6}}), control={**tiny_state().control, "C": "Red"})
    r = rules_with({"options": {"recruit_at": "capital"}})
    with pytest.raises(InputError, match="capital"):
        treasury.recruit(S, st, r, "Red", "C", ["line_infantry"])
    besieged = replace(st, sieges=(Siege("C", "Blue"),))
    with pytest.raises(InputError, match="only 4 AP"):     # C's AP buy only in C
        treasury.recruit(S, besieged, R, "Red", "A", ["hq", "line_infantry"])
    st3, _ = treasury.recruit(S, besieged, R, "Red", "C", ["hq", "line_infantry"])
    assert st3.nations["Red"].bank == {"A": 4}


def test_transfer_between_free_cities_in_winter():
    st = replace(tiny_state(phase=WINTER, banks={"Red": {"A": 9}}), control={**tiny_state().control, "C": "Red"})
    st2, _ = treasury.transfer(S, st, "Red", "A", "C", 5)
    assert st2.nations["Red"].bank == {"A": 4, "C": 5}
    with pytest.raises(InputError, match="under siege"):
        treasury.transfer(S, replace(st, sieges=(Siege("C", "Blue"),)), "Red", "A", "C", 5)


# --- pacification and sieges -----------------------------------------------------------------


def _siege_state(*armies, navies=(), banks=None):
    return tiny_state(list(armies), navies=list(navies), banks=banks or {"Blue": {"C": 7}})


TWENTY = ("hq", "heavy_infantry", "heavy_infantry", "heavy_infantry", "heavy_infantry", "line_infantry",
          "line_infantry", "line_infantry", "line_infantry")        # 4*3 + 4*2 = 20 AP (the HQ is not counted)


def test_twenty_ap_for_a_full_phase_takes_a_land_province():
    st = tiny_state([army(1, "Blue", "B", *TWENTY)])
    st2, ev = sieges.pacification(S, st, R)
    assert st2.control["B"] == "Blue" and any(e.kind == "province_taken" for e in ev)
    short = tiny_state([army(1, "Blue", "B", *TWENTY[:-1])])               # 18 AP
    st3, ev = sieges.pacification(S, short, R)
    assert st3.control["B"] == "Red"


def test_arriving_this_phase_or_an_enemy_entering_spoils_it():
    st = tiny_state([army(1, "Blue", "B", *TWENTY, moved=True)])
    assert sieges.pacification(S, st, R)[0].control["B"] == "Red"          # not a full phase
    st = replace(tiny_state([army(1, "Blue", "B", *TWENTY)]), entries=frozenset({("B", "Red")}))
    st2, ev = sieges.pacification(S, st, R)
    assert st2.control["B"] == "Red" and any(e.kind == "pacification_spoiled" for e in ev)
    st = replace(tiny_state([army(1, "Blue", "B", *TWENTY)]), contested=frozenset({"B"}))
    assert sieges.pacification(S, st, R)[0].control["B"] == "Red"


def test_three_month_option_needs_three_phases():
    r = rules_with({"pacification": {"phases": 3}})
    st = tiny_state([army(1, "Red", "C", *TWENTY)], banks={"Blue": {"C": 7}})
    st = st.with_navies(Navy(70, "Red", "South"))                         # blockade of Cport
    for n in (1, 2):
        st, ev = sieges.pacification(S, st, r)
        assert st.control["C"] == "Blue" and st.siege("C").done == n
    st, ev = sieges.pacification(S, st, r)
    assert st.control["C"] == "Red"


def test_port_needs_a_blockade_and_falls_with_bank_and_navies():
    st = tiny_state([army(1, "Red", "C", *TWENTY)], navies=[Navy(71, "Blue", "South", "port:Cport")],
                    banks={"Blue": {"C": 7, "D": 3}})
    st2, ev = sieges.pacification(S, st, R)
    assert st2.control["C"] == "Blue" and any(e.kind == "siege_unblockaded" for e in ev)
    st3, ev = sieges.pacification(S, st2.with_navies(Navy(70, "Red", "South")), R)
    assert st3.control["C"] == "Red"
    assert st3.nations["Red"].bank == {"C": 7} and st3.nations["Blue"].bank == {"D": 3}
    assert st3.navy(71).nation == "Red"                                     # captured in port
    r = rules_with({"options": {"unblockaded_port": "ignore"}})
    assert sieges.pacification(S, st, r)[0].control["C"] == "Red"


def test_port_siege_through_winter_costs_a_phase():
    st = tiny_state(phase=WINTER)
    st = replace(st, sieges=(Siege("C", "Red", 0, 1), Siege("B", "Blue", 0, 1)))
    st2, ev = sieges.winter_sieges(S, st, R)
    assert st2.siege("C").needed == 2 and st2.siege("B").needed == 1
    st3, _ = sieges.winter_sieges(S, st2, R)                              # once a winter
    assert st3.siege("C").needed == 2


# --- chance cards ------------------------------------------------------------------------------


@pytest.mark.parametrize("faces, phases", [
    ([1], (0,)), ([9], (8,)), ([4], (3,)),
    ([10, 3, 7], (2, 6)),                 # a 10: two cards
    ([10, 10, 5, 10, 10, 2], (1, 4)),     # further 10s ignored (rolled again)
    ([10, 6, 6], (5, 5)),                 # both in one phase
])
def test_card_schedule(faces, phases):
    dice = Scripted(faces=list(faces))
    assert cards.card_schedule(R, dice, 1801, "Red") == phases
    assert not dice.faces


DECK = [
    {"key": "plague", "title": "Plague", "text": "t", "effect": "half_port_ap"},
    {"key": "gold", "title": "Gold", "text": "t", "effect": "windfall", "ap": 6},
    {"key": "levy", "title": "Levy", "text": "t", "effect": "levy", "units": ["militia_infantry"], "quality": "militia"},
    {"key": "spy", "title": "Spy", "text": "t"},
]


def test_cards_drawn_in_their_phase_and_applied():
    s = tiny_scenario(DECK)
    st = tiny_state(phase=3)
    st = st.with_nation("Red", schedule=(3, 3)).with_nation("Blue", schedule=(5,))
    st2, ev = cards.draw_cards(s, st, R, Scripted(faces=[2, 3]))          # gold, then levy
    assert st2.nations["Red"].bank == {"A": 6}
    assert [u.kind for u in st2.armies[0].units] == ["militia_infantry"] and st2.armies[0].province == "A"
    assert st2.armies[0].standing == "hold"      # no army with an HQ in the capital: the levy waits for one
    st3, ev = cards.draw_cards(s, replace(st, phase=5), R, Scripted(faces=[4]))
    assert ev[-1].kind == "card_for_umpire"


def test_plague_halves_a_port_or_does_nothing():
    s = tiny_scenario(DECK)
    st = tiny_state(phase=WINTER)
    st2, ev = cards.apply_card(s, st, R, "Red", DECK[0], Scripted(faces=[1]))
    assert st2.nations["Red"].effects == (("half_ap", "A"),)
    st3, _ = treasury.collect_income(s, st2, R)
    assert st3.nations["Red"].bank == {"A": 3 + 2}
    nothing = replace(st, control={**st.control, "A": "Blue"})
    st4, ev = cards.apply_card(s, nothing, R, "Red", DECK[0], Scripted())
    assert ev[-1].kind == "card_no_effect"


def test_bad_deck_is_one_line():
    with pytest.raises(InputError, match="effect 'gold'"):
        cards.check_cards([{"key": "x", "title": "X", "text": "t", "effect": "gold"}], R, "cards.toml")
    with pytest.raises(InputError, match="give ap"):
        cards.check_cards([{"key": "x", "title": "X", "text": "t", "effect": "windfall"}], R, "cards.toml")
