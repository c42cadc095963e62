"""Rise of Rome's and Mare Nostrum's own command groups, made from their declared steps
(engine/rise_of_rome/steps.py, engine/mare_nostrum/steps.py), and `bellica turn`, which reads a
campaign's ruleset and runs that ruleset's command (bellica/commands/shared_group.py).

The maps are the scenarios' bboxes (Rise of Rome at its res 5, Mare Nostrum at res 4: a few seconds
each), built once a run (the exit-code walk's files: tests/cli/test_exit_codes.py).
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.cli.test_fuzz import the_error_line
from tests.cli.test_rise_of_rome_cli import bellica


@pytest.fixture(scope="module")
def made(tmp_path_factory, built_once):
    """The two scenarios' new campaigns (`campaign new` on the scenario's map, Mare Nostrum's at res
    4): the exit-code walk's files, built once a run (tests/cli/test_exit_codes.py ``_made``)."""
    from tests.cli.test_exit_codes import _made

    folder = tmp_path_factory.mktemp("province-groups")
    return {"rome": built_once("made-rise-of-rome", lambda p: _made("rise-of-rome", p), folder / "rise-of-rome.duckdb"),
            "mare": built_once("made-mare-nostrum", lambda p: _made("mare-nostrum", p), folder / "mare-nostrum.duckdb")}


@pytest.fixture
def rome(made, tmp_path):
    return shutil.copyfile(made["rome"], tmp_path / "rome.duckdb")


@pytest.fixture
def mare(made, tmp_path):
    return shutil.copyfile(made["mare"], tmp_path / "mare.duckdb")


def _ok(capsys, *args) -> str:
    code, out, err = bellica(capsys, *args)
    assert code == 0, (args, err)
    return out


def _usage_error(capsys, *args) -> str:
    """The run exits 2 with click's one `Error:` line (after its usage lines), no traceback."""
    code, out, err = bellica(capsys, *args)
    assert code == 2 and "Traceback" not in err, (args, code, err)
    return the_error_line(code, err)


def _one_error(capsys, code: int, *args) -> str:
    got, out, err = bellica(capsys, *args)
    assert got == code and "Traceback" not in err, (args, got, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_rise_of_rome_plays_in_its_own_group(rome, capsys):
    out = _ok(capsys, "rise-of-rome", "start", rome, "--seed", "17")
    assert "campaign started, turn 1, seed 17" in out and "next: run the turn with `bellica turn next" in out
    _ok(capsys, "rise-of-rome", "next", rome)
    own = json.loads(_ok(capsys, "rise-of-rome", "status", rome, "--json"))
    assert own["next_step"] == "attack" and own["rome_free"] > 0
    assert json.loads(_ok(capsys, "turn", "status", rome, "--json")) == own
    assert _ok(capsys, "rise-of-rome", "status", rome) == _ok(capsys, "turn", "status", rome)
    assert "Rome may attack: " in _ok(capsys, "rise-of-rome", "status", rome)
    # A step taken through either group is the same step.
    out = _ok(capsys, "turn", "attack", rome, "--target", own["targets"][0].lower())
    assert "next: give Rome's spending" in out
    assert json.loads(_ok(capsys, "rise-of-rome", "status", rome, "--json"))["next_step"] == "spend"


def test_mare_nostrum_plays_in_its_own_group(mare, capsys):
    out = _ok(capsys, "mare-nostrum", "start", mare, "--seed", "7")
    assert "campaign started, turn 1, seed 7" in out and "next: begin turn 1" in out
    out = _ok(capsys, "mare-nostrum", "next", mare)  # begins the turn (drawn from the seed)
    own = json.loads(_ok(capsys, "mare-nostrum", "status", mare, "--json"))
    assert own["phase"] == "actions" and own["acting"]
    assert json.loads(_ok(capsys, "turn", "status", mare, "--json")) == own
    acting = own["acting"]
    # The campaign may come after the options: `bellica turn` still finds it.
    _ok(capsys, "turn", "grain", "--nation", acting, mare)
    _ok(capsys, "mare-nostrum", "done", mare, "--nation", acting)
    assert json.loads(_ok(capsys, "turn", "status", mare, "--json"))["acting"] != acting


def test_a_bad_parameter_is_a_usage_error_in_one_line(rome, mare, capsys):
    _ok(capsys, "turn", "start", rome)
    _ok(capsys, "turn", "start", mare)
    for group in ("turn", "rise-of-rome"):
        line = _usage_error(capsys, group, "attack", rome, "--target", "Samnites", "--none")
        assert line == "Error: Invalid value for --target: give --target POWER or --none (one of them)"
        line = _usage_error(capsys, group, "province", rome)
        assert "give --choose PROVINCE or --by-rule" in line
        assert "Atlantis" in _usage_error(capsys, group, "attack", rome, "--target", "Atlantis")
        assert "'x'" in _usage_error(capsys, group, "result", rome, "x", "--winner", "attacker", "--margin", "minor")
    for group in ("turn", "mare-nostrum"):
        assert "give --wheel WHEEL" in _usage_error(capsys, group, "lottery", mare, "1", "2")
        assert "--none" in _usage_error(capsys, group, "attack", mare, "--none")  # Rise of Rome's option
        assert "not a nation of this campaign" in _usage_error(capsys, group, "grain", mare, "--nation", "Atlantis")
    assert "CAMPAIGN" in _usage_error(capsys, "turn", "status")
    assert "No such command" in _usage_error(capsys, "turn", "nope", mare)


def test_turn_refuses_what_the_campaign_s_ruleset_does_not_play(rome, mare, tmp_path, capsys):
    from tests.engine.test_state import make_campaign

    line = _one_error(capsys, 1, "turn", "spend", mare, "--attack", "1")
    assert line == (f"error: {mare} is a Mare Nostrum campaign: this command is for Rise of Rome; "
                    "`bellica turn status` says what comes next")
    line = _one_error(capsys, 1, "turn", "begin", rome)
    assert "this command is for Mare Nostrum" in line
    line = _one_error(capsys, 1, "mare-nostrum", "status", rome)
    assert line == f"error: {rome} is a rise-of-rome campaign, not a Mare Nostrum one: play it with `bellica turn`"
    vv = tmp_path / "vv.duckdb"
    con, _m = make_campaign(vv)
    con.close()
    for command in (("status",), ("attack", "--none"), ("build", "--nation", "Romans", "temple", "Latium")):
        line = _one_error(capsys, 1, "turn", command[0], vv, *command[1:])
        assert line == f"error: {vv} is a vae-victis-ii campaign, not a province one: play it with `bellica round`"
    line = _one_error(capsys, 1, "turn", "status", tmp_path / "absent.duckdb")
    assert "absent.duckdb: no such campaign file" in line
    assert _one_error(capsys, 3, "turn", "status", rome).endswith(f"run `bellica turn start {rome}` first")


def test_turn_help_lists_both_rulesets_commands(capsys):
    out = _ok(capsys, "turn", "--help")
    for command in ("spend", "province", "lottery", "build", "peace", "naval", "end", "status", "start"):
        assert f"\n  {command} " in out, command
    assert "bellica rise-of-rome ..." in out and "bellica mare-nostrum ..." in out
    out = _ok(capsys, "turn", "attack", "--help")
    assert "--target" in out and "--into" in out and "bellica turn attack rome.duckdb --target Samnites" in out
    out = _ok(capsys, "rise-of-rome", "spend", "--help")
    assert "--defence, --defense" in out and "--defence-split, --defense-split" in out
    assert "--nation" in _ok(capsys, "mare-nostrum", "status", "--help")
