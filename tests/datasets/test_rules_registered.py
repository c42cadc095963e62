"""A ruleset's rules file outside datasets/rules/ (issue 20, part 6): a ruleset installed as its own
distribution registers its file (register_rules_file) and bellica reads and checks it as it reads
its own rulesets' files, [validation] included (examples/bellica-archidamian does so)."""

from __future__ import annotations

import pytest

from bellica.datasets import rules as data
from bellica.engine.core.rules import RuleSet
from bellica.engine.core.rules_loaders import rules_loaders
from bellica.geo.errors import InputError

RULES = """years = 6
die = 6

[validation.minimum]
die = 2
"""


@pytest.fixture
def registered(tmp_path, monkeypatch):
    path = tmp_path / "rules.toml"
    path.write_text(RULES)
    monkeypatch.setattr(data, "_REGISTERED", {})
    data._ruleset_file.cache_clear()
    data._default_rules.cache_clear()
    data.register_rules_file("outside-war", path)
    yield path
    data._ruleset_file.cache_clear()
    data._default_rules.cache_clear()


def test_a_registered_rules_file_is_read_and_checked_like_a_shipped_one(registered):
    assert "outside-war" in data.rulesets() and "trossian" in data.rulesets()
    assert data.rules_file("outside-war") == registered
    assert data.load_rules("outside-war") == {"years": 6, "die": 6}
    assert data.load_rules("outside-war", {"years": 3}, source="s [rules]") == {"years": 3, "die": 6}
    with pytest.raises(InputError, match=r"s \[rules\] die = 1: give a whole number >= 2"):
        data.load_rules("outside-war", {"die": 1}, source="s [rules]")
    with pytest.raises(InputError, match="no such rule"):
        data.load_rules("outside-war", {"dice": 1}, source="s [rules]")
    default_rules, rules_with, _from_file = rules_loaders("outside-war", lambda v, name="outside-war": RuleSet(name, v))
    assert default_rules().values == {"years": 6, "die": 6} and rules_with({"years": 2}).get("years") == 2


def test_bad_toml_names_the_registered_file(registered):
    from bellica.engine.core.rules_loaders import load_ruleset_values

    registered.write_text("years = \n")
    data._ruleset_file.cache_clear()
    with pytest.raises(InputError, match=str(registered) + ": not valid TOML"):
        load_ruleset_values("outside-war", {"years": 1})
    assert data.rules_file("trossian") == data.RULES_DIR / "trossian.toml"
