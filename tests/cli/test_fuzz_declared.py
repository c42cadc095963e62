"""Every declared step of every ruleset, fuzzed through the command line (issue 23 item 8).

Steps are data (engine/core/steps.py), so the fuzz needs no list of commands: for each ruleset's
declared step it types hostile values into each parameter by its kind (names and free text with
unicode, NUL, control characters, path tricks and 5,000 characters; numbers negative, huge, in
other scripts' digits; choices and factions that are not), and runs the step on a small started
campaign of that ruleset.  Whatever the input: no traceback, an exit status of README's table (0
done, 1 bad input, 2 usage, 3 refused by the rules), one error line, and a refused step leaves the
campaign file's bytes as they were.  Bounded in make test (tests/bounds.py), larger in make long.
"""

from __future__ import annotations

import re
import shutil

import pytest
from hypothesis import given, strategies as st

from bellica.engine.core.ruleset import get_ruleset
from bellica.engine.core.steps import SIDE
from tests.cli.test_exit_codes import START, ruleset_campaigns
from tests.cli.test_fuzz import bellica, fuzz_settings, sha, the_error_line

#: Text no parameter should choke on.
HOSTILE = ["", " ", "\x00", "a\x00b", "\x1b[31m", "é" * 5000, "../../etc/passwd", "🏛️", "Atlantis", "army -1",
           "-1", "9" * 5000, "1e9", "²", "٣", "=", "x=y=z", ":", "'; DROP TABLE events; --", "\n", "\t"]
TEXT = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40))
NUMBER = st.one_of(st.integers(-3, 10**6).map(str), st.sampled_from(["x", "²", "9" * 5000, "-1", "", " 3 ", "0x10"]))


def _declared() -> list:
    out = []
    for ruleset in START:
        for action in get_ruleset(ruleset).actions():
            out.append(pytest.param(ruleset, action.name, id=f"{ruleset} {action.name}"))
    return out


def _value(draw, param, factions: list[str]):
    """One value as a player might type it, or worse."""
    if param.kind == "whole":
        return draw(NUMBER)
    if param.kind == "choice":
        return draw(st.one_of(st.sampled_from(param.choices), TEXT))
    if param.kind == "faction":
        return draw(st.one_of(st.sampled_from(factions), TEXT))
    return draw(TEXT)


def _argv(draw, ruleset, action, campaign, factions: list[str]) -> list[str]:
    """The step's command line: its group, its name, the campaign, then each parameter typed."""
    group = ruleset.command_group or START[ruleset.name][0]
    argv = [*group.split(), action.name, str(campaign)]
    for p in action.params:
        if p.kind == "flag":
            argv += [p.flag] if draw(st.booleans()) else []
            continue
        count = draw(st.integers(0 if not p.required else 1, 3 if p.many else 1))
        values = [_value(draw, p, factions) for _ in range(count)]
        argv += values if p.positional else [x for v in values for x in (p.flag, v)]
    if action.who == SIDE:
        argv += [ruleset.faction_flag, draw(st.one_of(st.sampled_from(factions), TEXT))]
    return argv


@pytest.fixture(scope="module")
def started(tmp_path_factory, built_once) -> dict:
    return ruleset_campaigns(built_once, tmp_path_factory.mktemp("fuzz-declared"))["started"]


@pytest.mark.parametrize("ruleset_name, step", _declared())
@fuzz_settings(6)
@given(data=st.data())
def test_a_declared_step_takes_any_input_in_one_line(ruleset_name, step, started, tmp_path, capsys, data):
    ruleset = get_ruleset(ruleset_name)
    action = ruleset.action(step)
    campaign = tmp_path / "fuzzed.duckdb"
    shutil.copyfile(started[ruleset_name], campaign)
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(campaign, read_only=True) as c:
        factions = ruleset.factions(c)
    argv = _argv(data.draw, ruleset, action, campaign, factions)
    before = sha(campaign)
    code, out, err = bellica(capsys, *argv)
    assert "Traceback" not in out + err, f"{argv}:\n{out}{err}"
    assert code in (0, 1, 2, 3), (argv, code, err)
    if code:
        if code == 2:  # click wraps a long usage line, indenting its continuation
            err = re.sub(r"\n {2,}(?=\S)", " ", err)
        the_error_line(code, err)
        assert sha(campaign) == before, f"a refused step changed the campaign: {argv}\n{err}"
