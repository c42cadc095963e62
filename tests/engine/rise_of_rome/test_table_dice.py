"""Rise of Rome: dice rolled at the table (issue 22): `roll LABEL FACES` enters the dice of any roll
the turn makes (a power's attack roll here); `turn next` uses them instead of the seed's and logs
them as entered; wrong dice are refused when rolled, and entering the label again corrects them;
the campaign re-adjudicates."""

from __future__ import annotations

import pytest

from tests.engine.test_names_everywhere import _cli


@pytest.fixture(scope="module")
def italy(tmp_path_factory):
    from bellica.etl.build import build_map
    from bellica.etl.scenario import load_province_scenario

    folder = tmp_path_factory.mktemp("ror-dice")
    scenario = load_province_scenario("rise-of-rome")
    build_map(folder / "italy.duckdb", bbox=scenario.bbox, res=scenario.resolution)
    return folder / "italy.duckdb"


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
