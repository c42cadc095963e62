"""Issue 22, deviation 5: the seed's price list reads "4AP: HQ (Required for every detachment)".

Before: `army detach` split off units with no HQ, and winter recruits formed an army with no
HQ.  Now every detachment (the part leaving and the army it leaves) keeps an HQ, and recruits
form an army only when an HQ is bought with them; otherwise they join an army with an HQ in
the city (docs/rules/trossian.md, "Detachments and HQs").
"""

from __future__ import annotations

import pytest

from bellica.engine.trossian import cards, movement, treasury
from bellica.engine.trossian.model import WINTER
from bellica.engine.trossian.rules import default_rules
from bellica.geo.errors import InputError

from .tiny import Scripted, army, tiny_scenario, tiny_state

R = default_rules()
S = tiny_scenario()


def test_a_detachment_without_an_hq_is_refused():
    # The Kuban Corps' position: one HQ; its two militia cavalry sent off as "Cossacks".
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry", "militia_cavalry", "militia_cavalry")])
    with pytest.raises(InputError, match="a detachment needs an HQ") as e:
        movement.detach(st, 1, [13, 14], name="Cossacks")
    assert "\n" not in str(e.value) and "merge in a second HQ first" in str(e.value)
    with pytest.raises(InputError, match="leaves the rest without one"):    # the only HQ rides off
        movement.detach(st, 1, [11, 13, 14])


def test_an_army_with_two_hqs_splits_in_two():
    st = tiny_state([army(1, "Red", "A", "hq", "line_infantry", "hq", "militia_cavalry")])
    with pytest.raises(InputError, match=r"add one of its HQs \(11, 13\) to --unit"):
        movement.detach(st, 1, [14])
    st2, _ = movement.detach(st, 1, [13, 14], name="Cossacks")
    assert all(a.has_hq for a in st2.armies) and len(st2.armies) == 2


def test_winter_recruits_without_an_hq_join_an_army_that_has_one_or_are_refused():
    st = tiny_state(phase=WINTER, banks={"Red": {"A": 20}})
    with pytest.raises(InputError, match=r"need an HQ .*add --unit hq"):       # nobody to lead them
        treasury.recruit(S, st, R, "Red", "A", ["line_infantry"])
    st2, _ = treasury.recruit(S, st, R, "Red", "A", ["hq", "line_infantry"])   # an HQ bought: a new army
    (new,) = st2.armies
    assert new.has_hq and not new.standing and st2.nations["Red"].bank == {"A": 14}
    st3, ev = treasury.recruit(S, st2, R, "Red", "A", ["light_cavalry"])        # joins it
    assert len(st3.armies) == 1 and [u.kind for u in st3.armies[0].units] == ["hq", "line_infantry", "light_cavalry"]
    assert "joining army" in ev[-1].text


def test_a_card_levy_with_no_hq_in_the_capital_waits_for_one():
    deck = [{"key": "levy", "title": "Levy", "text": "t", "effect": "levy", "units": ["militia_infantry"]}]
    s = tiny_scenario(deck)
    st, _ = cards.apply_card(s, tiny_state(), R, "Red", s.cards[0], Scripted())
    assert st.armies[0].standing == "hold" and not st.armies[0].has_hq
    with pytest.raises(InputError, match="join an HQ to it first"):
        movement.move_army(s, st, R, st.armies[0].id, ["B"])
    led = tiny_state([army(1, "Red", "A", "hq")])
    st, _ = cards.apply_card(s, led, R, "Red", s.cards[0], Scripted())
    assert len(st.armies) == 1 and [u.kind for u in st.armies[0].units] == ["hq", "militia_infantry"]
