"""The core's shared pieces the stepped rulesets declare instead of writing each: a sectioned
rules object built from its fields' types, a ruleset's functions found in its package by module,
row words as data, and a position check as a yes/no (engine/core/rules.py, engine/core/stepped.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import pytest

from bellica.engine.core.rules import SectionedRules, Span, TurnYears
from bellica.engine.core.stepped import SteppedRuleset, allowed
from bellica.engine.mare_nostrum.ruleset import MARE_NOSTRUM
from bellica.engine.mare_nostrum.rules import Rules as MareNostrumRules
from bellica.geo.errors import InputError


@dataclass(frozen=True)
class _Game(TurnYears):
    turns: int
    first_year: int
    years_per_turn: int


@dataclass(frozen=True)
class _Band(Span):
    low: int
    high: int
    gives: int


@dataclass(frozen=True)
class _Rules(SectionedRules):
    RULESET = "tiny"

    game: _Game
    bands: tuple[_Band, ...]

    @classmethod
    def built_otherwise(cls, merged: Mapping, where: str) -> Mapping:
        return {"bands": lambda rows: tuple(_Band(**r) for r in rows)}


@dataclass(frozen=True)
class _Unbuilt(SectionedRules):
    RULESET = "tiny"

    costs: Mapping[str, int]


VALUES = {"game": {"turns": 3, "first_year": -300, "years_per_turn": 5},
          "bands": [{"low": 1, "high": 3, "gives": 0}, {"low": 4, "high": 6, "gives": 1}]}


def test_a_dataclass_field_is_built_from_its_table_and_the_others_as_told():
    rules = _Rules.from_mapping(VALUES)
    assert rules.game == _Game(3, -300, 5)
    assert [b.gives for b in rules.bands if b.holds(4)] == [1]
    assert not rules.bands[0].holds(4) and rules.bands[0].holds(3)
    assert rules.game.years(1) == (-300, -295) and rules.game.years(3) == (-290, -285)


def test_a_bad_key_of_a_table_is_one_line_naming_the_rules():
    with pytest.raises(InputError, match="tiny rules"):
        _Rules.from_mapping({**VALUES, "game": {"turns": 3}})


def test_a_field_that_is_no_dataclass_needs_its_builder():
    with pytest.raises(TypeError, match="_Unbuilt.costs .* built_otherwise"):
        _Unbuilt.sections({"costs": {}}, "tiny rules")


def test_a_shipped_rules_object_builds_every_field():
    assert list(MareNostrumRules.sections({}, "x"))[:4] == ["game", "treasury", "lottery", "events"]


def test_a_ruleset_finds_its_rules_and_storage_in_its_package():
    assert MARE_NOSTRUM.rules_class is MareNostrumRules
    assert MARE_NOSTRUM.default_rules() == MareNostrumRules.from_mapping(MARE_NOSTRUM.default_rules().values)


def test_a_function_the_package_lacks_is_named_with_where_to_put_it():
    class Homeless(SteppedRuleset):
        name = "homeless"

    with pytest.raises(NotImplementedError, match="has no read_scenario; define it there or set it on Homeless"):
        Homeless().read_scenario(None, "x")


def test_row_words_are_templates_or_functions_and_none_elsewhere():
    class Worded(SteppedRuleset):
        row_words = {"t_fleets": "fleet {fleet} in {sea}", "t_control": lambda r: f"{r['p']} held by {r['n'] or 'nobody'}"}
        drop_words = {"t_fleets": "fleet {fleet} is gone"}

    w = Worded()
    assert w.describe_row("t_fleets", {"fleet": 2, "sea": "Ionian"}) == "fleet 2 in Ionian"
    assert w.describe_row("t_control", {"p": "Sicilia", "n": None}) == "Sicilia held by nobody"
    assert w.describe_drop("t_fleets", {"fleet": 2}) == "fleet 2 is gone"
    assert w.describe_row("t_other", {}) is None and w.describe_drop("t_control", {}) is None


def test_allowed_is_whether_the_check_lets_the_step_run():
    def check(n: int) -> None:
        if n > 1:
            raise InputError(f"{n}: too many")

    assert allowed(check, 1) and not allowed(check, 2)
    with pytest.raises(ZeroDivisionError):  # only a refusal means no; a fault is raised
        allowed(lambda: 1 / 0)
