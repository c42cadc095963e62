"""A keyed parameter's fields on a page (bellica/app/step_forms.py, issue 20): one select per key the
ruleset offers, named NAME-KEY; a list parameter's offered items as boxes; a refused form refilled."""

from __future__ import annotations

from bellica.app.step_forms import offered_fields, signer_of
from bellica.app.tokens import Identity
from bellica.engine.core.steps import FieldOffer, Param

USES = Param("uses", "ARMY=USE items.", keyed="army")
SURRENDERS = Param("surrenders", "STRUCTURE items.", flag="--surrender", many=True)
OFFERS = (FieldOffer("9", "army 9", (("strength", "strength"), ("Mare", "influence in Mare")), "strength"),
          FieldOffer("10", "army 10", (("3", "clock 3: Ostia"),), none="stays at sea"))


def test_one_select_per_key_its_value_now():
    nine, ten = offered_fields("initiative", USES, OFFERS, None)
    assert (nine.id, nine.name, nine.widget, nine.value) == ("initiative-uses-9", "uses-9", "select", "strength")
    assert nine.choices == (("strength", "strength"), ("Mare", "influence in Mare"))  # no blank: a value is needed
    assert ten.choices[0] == ("", "stays at sea") and ten.value == ""


def test_a_refused_form_keeps_what_was_typed_but_offers_no_more():
    nine, ten = offered_fields("initiative", USES, OFFERS, {"uses-9": "Mare", "uses-10": "4"}, invalid="uses")
    assert nine.value == "Mare" and ten.value == "4" and nine.invalid and ten.invalid
    assert "4" not in [v for v, _w in ten.choices]


def test_a_list_offered_item_by_item_is_a_box_each():
    offers = (FieldOffer("Gela", "surrender Gela"), FieldOffer("Enna", "surrender Enna", value="on"))
    gela, enna = offered_fields("choose", SURRENDERS, offers, None)
    assert (gela.widget, gela.name, gela.sends, gela.value, enna.value) == ("checkbox", "surrenders", "Gela", "", "on")
    gela, enna = offered_fields("choose", SURRENDERS, offers, {"surrenders": "Gela"})
    assert gela.value == "on" and enna.value == ""


def test_the_signer_is_the_token():
    s = signer_of(Identity("admiral", "player", "roma", (10,)))
    assert (s.role, s.faction, s.armies, s.by) == ("player", "roma", (10,), "token:admiral")
    assert s.commands("roma", 10) and not s.commands("roma", 9)
