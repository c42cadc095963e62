"""`bellica round` made from Vae Victis II's declared steps (engine/vae_victis/steps.py).

The group lists the declared steps (and `verify`, which checks any ruleset's campaign); a bad
parameter is click's one usage-error line, exit 2, and writes nothing; the steps a page may offer
are the position's own, never a view.
"""

from __future__ import annotations

import re

import pytest

from tests.cli.test_round_cli import _write_campaign, bellica
from tests.engine.test_rounds import FIELD


@pytest.fixture
def started(tmp_path, built_once, capsys):
    c = built_once("vv-field-campaign", _write_campaign(FIELD), tmp_path / "field.duckdb")
    assert bellica(capsys, "round", "start", c, "--seed", "5")[0] == 0
    return c


def test_round_help_lists_the_declared_steps(capsys):
    from bellica.engine.core.ruleset import get_ruleset

    code, out, err = bellica(capsys, "round", "--help")
    assert code == 0, err
    listed = set(re.findall(r"^  ([a-z][a-z-]*)  ", out, flags=re.M))
    declared = {a.name for a in get_ruleset("vae-victis-ii").actions()}
    assert declared >= {"start", "status", "initiative", "publish", "orders", "show", "deadline", "mode", "reveal",
                        "commitment", "commit", "reveal-orders", "move", "battles", "retreat", "result", "administer",
                        "victory"}
    assert listed == declared | {"verify"}, listed ^ (declared | {"verify"})
    for action in get_ruleset("vae-victis-ii").actions():
        code, text, err = bellica(capsys, "round", action.name, "--help")
        assert code == 0 and action.example in " ".join(text.split()), (action.name, text)


@pytest.mark.parametrize("args, where", [
    (["retreat", "x"], "ARMY"),  # a word for a number
    (["result", "one", "--winner", "9", "--casualties", "9=25"], "ENGAGEMENT"),
    (["mode", "sideways"], "sealed|commit-reveal"),  # not one of the choices
    (["initiative", "--faction", "Gallia", "9=strength"], "--faction"),  # no faction of the campaign
    (["initiative", "9=strength"], "--faction"),  # say who submits
    (["initiative", "--faction", "roma", "--umpire", "9=strength"], "--umpire"),  # not both
    (["orders", "--faction", "roma"], "ITEMS"),  # no way of giving orders
    (["commit", "--digest", "abc"], "--faction"),  # a faction's step names its faction
    (["result", "1", "--casualties", "9=25"], "--winner"),  # a winner or a draw
])
def test_a_bad_parameter_is_a_usage_error_of_one_line(started, capsys, args, where):
    from tests.cli.test_fuzz import the_error_line

    before = started.read_bytes()
    code, out, err = bellica(capsys, "round", args[0], started, *args[1:])
    assert code == 2 and "Traceback" not in err, err
    line = the_error_line(code, re.sub(r"\n {2,}(?=\S)", " ", err))  # click wraps a long usage line
    assert line.startswith("Error: ") and where in line, line
    assert started.read_bytes() == before


def test_commitment_reads_no_campaign(tmp_path, capsys):
    orders = tmp_path / "roma.toml"
    orders.write_text('faction = "roma"\nround = 1\n\n[armies.9]\nmoves = "3 3"\n')
    code, out, err = bellica(capsys, "round", "commitment", "--file", orders, "--secret", "a long random secret")
    assert code == 0 and re.fullmatch(r"[0-9a-f]{64}\n", out), (out, err)


def test_verify_checks_another_rulesets_campaign_too(capsys):
    from bellica.commands.play import EXTRA_COMMANDS, group_for, ruleset_of_group

    group = group_for(ruleset_of_group("round"))
    assert "verify" in group.commands and EXTRA_COMMANDS["round"]
    from bellica.commands import checks

    assert "vae" not in open(checks.__file__, encoding="utf-8").read().lower()  # no ruleset named in it


def test_a_page_offers_the_umpire_the_steps_the_position_allows(started):
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(started, read_only=True) as c:
        umpire = {a.name for a in c.ruleset.open_actions(c, None)}
        roma = {a.name for a in c.ruleset.open_actions(c, "roma")}
    assert {"publish", "deadline", "mode"} <= umpire and not umpire & {"status", "start", "battles", "commitment", "move"}
    assert roma == {"initiative", "orders"}, roma
