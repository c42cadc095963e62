"""Rise of Rome: dice rolled at the table (issue 22): `roll LABEL FACES` enters the dice of any roll
the turn makes (a power's attack roll here); `turn next` uses them instead of the seed's and logs
them as entered; wrong dice are refused when rolled, and entering the label again corrects them;
the campaign re-adjudicates."""

from __future__ import annotations

import pytest

from tests.engine.test_names_everywhere import _cli


@pytest.fixture(scope="module")
def italy(tmp_path_factory, scenario_map):
    """The scenario's map (built once a run: tests/conftest.py scenario_map)."""
    return scenario_map("rise-of-rome", tmp_path_factory.mktemp("ror-dice") / "italy.duckdb")


def test_an_attack_roll_entered_at_the_table(italy, tmp_path, capsys):
    c = tmp_path / "rome.duckdb"
    assert _cli(capsys, "campaign", "new", "--scenario", "rise-of-rome", "--map", italy, "--out", c, "-q")[0] == 0
    assert _cli(capsys, "turn", "start", c, "--seed", 1)[0] == 0
    code, out, err = _cli(capsys, "rise-of-rome", "roll", c, "attack/1/etrus", "6")  # a power by its beginning
    assert code == 0, err
    assert "attack/1/Etruscans = 6 (rolled at the table)" in out
    code, out, err = _cli(capsys, "turn", "next", c)
    assert code == 1 and "the die entered for attack/1/Etruscans (6) is not 2D6" in err
    code, out, err = _cli(capsys, "rise-of-rome", "roll", c, "attack/1/Etruscans", "6,5")
    assert code == 0 and "replacing 6" in out
    code, out, err = _cli(capsys, "turn", "next", c)
    assert code == 0, err
    assert "Etruscans roll [6, 5] = 11: they attack" in out
    assert "dice rolled at the table: attack/1/Etruscans [6, 5]" in out
    code, out, err = _cli(capsys, "rise-of-rome", "roll", c, "attack/0/Etruscans", "3,3")
    assert code == 1 and "is not this turn (1)" in err
    code, out, err = _cli(capsys, "rise-of-rome", "roll", c, "dogs/1/Etruscans", "3,3")
    assert code == 1 and "KIND one of attack" in err
    code, out, err = _cli(capsys, "round", "verify", c, "--readjudicate")
    assert code == 0, err


def _new(capsys, italy, path):
    assert _cli(capsys, "campaign", "new", "--scenario", "rise-of-rome", "--map", italy, "--out", path, "-q")[0] == 0
    assert _cli(capsys, "turn", "start", path, "--seed", 1)[0] == 0
    return path


def test_the_turn_says_how_the_battles_before_rome_s_ended_and_where_its_money_went(italy, tmp_path, capsys):
    # issue 22: `turn next` asked about battle 3 without saying how battles 1 and 2 ended, and
    # Rome's Defense went to Attack without a word.
    c = _new(capsys, italy, tmp_path / "rome.duckdb")
    assert _cli(capsys, "turn", "next", c)[0] == 0
    assert _cli(capsys, "turn", "attack", c, "--target", "samn")[0] == 0
    code, out, err = _cli(capsys, "turn", "spend", c, "--defence", 5)
    assert code == 0, err
    assert ("Romans spend 5 on Attack, 0 on Defense, 15 on Civic Improvement (nobody attacks Romans this turn: the 5 "
            "given to Defense go to Attack, as the seed says)") in out
    code, out, err = _cli(capsys, "turn", "next", c)
    assert code == 0, err
    assert ("so far this turn: Battle 1 (Tarentine Greeks on Samnites in Hirpini): Minor Victory for the attacker "
            "(generated: 9 to 8); Battle 2 (Boian Celts on Etruscans in Etruria): Minor Victory for the defender") in out
    assert "Battle 3: Romans" in out and "enter its result" in out
    assert _cli(capsys, "round", "verify", c, "--readjudicate")[0] == 0


def test_a_tie_in_the_attack_rolls_says_how_it_was_broken(italy, tmp_path, capsys):
    c = _new(capsys, italy, tmp_path / "rome.duckdb")
    assert _cli(capsys, "rise-of-rome", "roll", c, "attack/1/tarent", "5,5")[0] == 0  # 10
    assert _cli(capsys, "rise-of-rome", "roll", c, "attack/1/boian", "4,4")[0] == 0  # 8 + Aggressor 2 = 10
    code, out, err = _cli(capsys, "turn", "next", c)
    assert code == 0, err
    assert ("equal attack rolls go in the order of a roll-off (1D6 each, highest first, the tied roll again): at 10: "
            "Boian Celts 5, Tarentine Greeks 1; the attackers choose their targets in the order Boian Celts, "
            "Tarentine Greeks") in out
