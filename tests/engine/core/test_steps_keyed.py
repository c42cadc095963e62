"""Keyed parameters and the signer (engine/core/steps.py, issue 20): one value per key, read alike
from the command line's KEY=VALUE items and a page's NAME-KEY fields; a signed step is told who
signed it, the others are run as before."""

from __future__ import annotations

import pytest

from bellica.engine.core.steps import (SIDE, Action, FieldOffer, ItemError, Param, ParamError, Signer, keyed_fields,
                                       parse_input, run_action)
from bellica.geo.errors import InputError

USES = Param("uses", "ARMY=USE items.", keyed="army", required=True, example="9=strength")
DEPTH = Param("depth", "ARMY=N items.", "whole", "--depth", keyed="army")


def test_items_and_fields_give_the_same_value():
    assert USES.parse(["9=strength", "10= Mare Tyrrhenum "]) == {9: "strength", 10: "Mare Tyrrhenum"}
    assert USES.parse({"9": "strength", "10": "Mare Tyrrhenum"}) == {9: "strength", 10: "Mare Tyrrhenum"}
    assert USES.parse("9=strength\n10=Mare Tyrrhenum") == {9: "strength", 10: "Mare Tyrrhenum"}
    assert DEPTH.parse(["3=2"]) == {3: 2} and DEPTH.parse({"3": "2"}) == {3: 2}
    assert DEPTH.parse(None) == {} and DEPTH.empty() == {}


def test_a_blank_field_gives_nothing_for_its_key():
    assert USES.parse({"9": "strength", "10": ""}) == {9: "strength"}
    with pytest.raises(ParamError, match="USES: missing"):
        USES.parse({"9": " "})
    kept = Param("moves", "ARMY=MOVES items.", keyed="army", keeps_blank=True)
    assert kept.parse({"9": "", "10": "3 3"}) == {9: "", 10: "3 3"}


@pytest.mark.parametrize("given, words", [
    (["9"], "USES '9' is not ARMY=VALUE with the army in digits 0-9 (e.g. 9=strength)"),
    (["x=strength"], "is not ARMY=VALUE"),
    (["٩=strength"], "is not ARMY=VALUE"),  # ASCII digits only
    (["9=strength", "9=Mare"], "USES: army 9 is given twice: give each army once"),
])
def test_a_bad_item_is_bad_input_naming_the_parameter(given, words):
    with pytest.raises(ItemError) as err:
        USES.parse(given)
    assert words in str(err.value) and err.value.param is USES
    assert isinstance(err.value, InputError) and not isinstance(err.value, ParamError)  # exit 1, not a usage error


def test_a_value_is_typed_by_the_parameter_kind():
    with pytest.raises(ParamError, match="'x' is not a whole number"):
        DEPTH.parse(["3=x"])


def test_a_keyed_parameter_is_neither_a_list_nor_a_flag():
    with pytest.raises(ValueError, match="keyed"):
        Param("bad", "x", many=True, keyed="army")
    with pytest.raises(ValueError, match="keyed"):
        Param("bad", "x", "flag", "--bad", keyed="army")
    assert USES.repeats and not Param("one", "x").repeats


def test_keyed_fields_gathers_a_pages_fields():
    action = Action("initiative", "x", lambda c, a, **kw: [], SIDE, (USES, Param("note", "x", flag="--note")))
    assert keyed_fields(action, {"uses-9": "strength", "uses-10": ["a", "b"], "note": "n"}) == \
        {"uses": {"9": "strength", "10": "b"}, "note": "n"}
    assert keyed_fields(action, {"uses": ["9=strength"], "uses-10": "x"})["uses"] == ["9=strength"]  # given whole
    assert parse_input(action, keyed_fields(action, {"uses-9": "strength"})) == {"uses": {9: "strength"}, "note": None}


def test_only_a_signed_step_is_told_its_signer():
    seen = {}

    def run(c, actor, *, uses, signer=None):
        seen.update(actor=actor, uses=uses, signer=signer)
        return []

    signer = Signer("player", "roma", (10,), "token:admiral")
    signed = Action("initiative", "x", run, SIDE, (USES,), signed=True)
    run_action(signed, None, "roma", {"uses": {10: "strength"}}, signer)
    assert seen["signer"] is signer
    run_action(Action("initiative", "x", run, SIDE, (USES,)), None, "roma", {"uses": {}}, signer)
    assert seen["signer"] is None


def test_a_signer_commands_its_armies_only():
    assert Signer("umpire").commands("carthago", 1)
    assert Signer("player", "roma").commands("roma", 9) and not Signer("player", "roma").commands("carthago", 1)
    admiral = Signer("player", "roma", (10,))
    assert admiral.commands("roma", 10) and not admiral.commands("roma", 9)
    assert FieldOffer("9", "army 9").options is None
