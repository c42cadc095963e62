"""Mare Nostrum played from the command line: `bellica campaign new --scenario mare-nostrum`,
one turn with all six nations through `bellica turn ...`, and `bellica round verify
--readjudicate` reproducing it.

The map is the real one (the scenario's bbox at res 4, built once for the module: a few
seconds); the 38 provinces are built from the scenario's capitals on it.
"""

from __future__ import annotations

import json

import pytest

from tests.cli.test_rise_of_rome_cli import bellica

#: Turn 1's draw: order Romans, Carthaginians, Macedonians, Ptolemaics, Seleucids, Gauls.
WHEELS = {"MI": (88, 57, 14, 3, 61), "BA": (75, 47, 22, 9, 30), "FI": (61, 78, 5, 40, 2),
          "GE": (44, 53, 70, 18, 6), "NA": (30, 38, 20, 77, 51), "CA": (12, 83, 64, 25, 89)}
ORDER = ["Romans", "Carthaginians", "Macedonians", "Ptolemaics", "Seleucids", "Gauls"]


@pytest.fixture(scope="module")
def mediterranean(tmp_path_factory, scenario_map):
    """The scenario's map at res 4 (built once a run: tests/conftest.py scenario_map)."""
    return scenario_map("mare-nostrum", tmp_path_factory.mktemp("mn") / "mn4.duckdb", res=4)


@pytest.fixture
def campaign(mediterranean, tmp_path, built_once):
    """`campaign new` on the map, run once a run (its words checked then) and copied per test."""
    from tests.cli.test_magna_graecia_cli import _cli

    def build(out):
        text = _cli("campaign", "new", "--scenario", "mare-nostrum", "--map", mediterranean, "--out", out, "-q")
        assert "scenario mare-nostrum (ruleset mare-nostrum)" in text and "38 provinces" in text
    return built_once("mn-cli-new", build, tmp_path / "mare.duckdb")


def _status(capsys, path) -> dict:
    code, out, err = bellica(capsys, "turn", "status", path, "--json")
    assert code == 0, err
    return json.loads(out)


def _ok(capsys, *args) -> str:
    code, out, err = bellica(capsys, *args)
    assert code == 0, (args, err)
    return out


def test_a_turn_with_six_nations_through_the_cli_and_it_readjudicates(campaign, capsys):
    out = _ok(capsys, "turn", "start", campaign, "--seed", "290")
    assert "campaign started, turn 1, seed 290" in out and "next: begin turn 1" in out
    for wheel, numbers in WHEELS.items():
        _ok(capsys, "turn", "lottery", campaign, "--wheel", wheel, *numbers)
    _ok(capsys, "turn", "lottery", campaign, "--number", "siege/1/Africa", "70")
    out = _ok(capsys, "turn", "begin", campaign)
    assert "order of play: Romans (MI 88), Carthaginians (BA 75)" in out and "Seleucids: Attalid invade Phrygia" in out
    view = _status(capsys, campaign)
    assert [o["nation"] for o in view["order"]] == ORDER and view["acting"] == "Romans"
    assert view["options"]["peace"] == ORDER[1:] and "Sicilia" in view["options"]["land"]
    # Each nation in the order of play: its actions, then done.
    turns = {
        "Romans": [("peace", "--with", "carthaginians"), ("attack", "--from", "Bruttium", "--into", "sicilia")],
        "Carthaginians": [("build", "fortification", "Africa"), ("attack", "--from", "Baetica", "--into", "Celtiberia")],
        "Macedonians": [("build", "suburbs", "Macedonia"), ("attack", "--from", "Macedonia", "--into", "Epirus")],
        "Ptolemaics": [("artworks", "Aegyptus"), ("build", "fleet", "Cyprus"), ("grain",)],
        "Seleucids": [("ally", "--against", "Judaea"), ("build", "fortification", "Syria")],
        "Gauls": [("attack", "--from", "Gallia Cisalpina", "--into", "Etruria"), ("build", "suburbs", "Celtica"), ("grain",)],
    }
    for nation in ORDER:
        for cmd, *rest in turns[nation]:
            _ok(capsys, "turn", cmd, campaign, "--nation", nation, *rest)
        out = _ok(capsys, "turn", "done", campaign, "--nation", nation)
    assert "next: enter the Field of Glory result of the battle for Phrygia" in out
    view = _status(capsys, campaign)
    battles = [a["target"] for a in view["attacks"]]
    assert battles == ["Phrygia", "Sicilia", "Celtiberia", "Epirus", "Judaea", "Etruria"]  # the alliance drew 40 (31-90)
    assert {"fleet": 1, "owner": "Ptolemaics", "sea": "Mare Syriacum"} in view["fleets"]
    # Ending before every result is in is refused (exit 3), naming the result awaited.
    code, _, err = bellica(capsys, "turn", "end", campaign)
    assert code == 3 and "the battle for Phrygia awaits its result" in err
    winners = {"Phrygia": "invaders", "Sicilia": "defender", "Celtiberia": "Carthaginians", "Epirus": "attacker"}
    for target in battles:
        _ok(capsys, "turn", "result", campaign, target, "--winner", winners.get(target, "defender"))
    out = _ok(capsys, "turn", "end", campaign)
    assert "Celtiberia: Gauls -> Carthaginians" in out and "Epirus: independent -> Macedonians" in out
    assert "Phrygia: Seleucids -> independent" in out and "next: begin turn 2" in out
    view = _status(capsys, campaign)
    assert view["phase"] == "begin" and view["turn"] == 2
    held = {n["nation"]: n["provinces"] for n in view["nations"]}
    assert held == {"Carthaginians": 7, "Gauls": 5, "Macedonians": 7, "Ptolemaics": 6, "Romans": 6, "Seleucids": 5}
    # The SQL sees the state.
    code, out, err = bellica(capsys, "sql", campaign, "SELECT nation FROM mn_control WHERE province = 'Celtiberia'")
    assert code == 0 and "Carthaginians" in out, err
    # The log replays to the tables, and re-running every recorded step gives the same log.
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 0, err
    assert "replay to the stored state exactly" in out and "re-adjudicated from the scenario give the same" in out
    # `turn next` begins turn 2 (drawn from the seed, logged).
    out = _ok(capsys, "turn", "next", campaign)
    assert "lottery numbers: wheel/2/" in out and "(drawn)" in out


def test_out_of_turn_and_bad_inputs_are_refused_in_one_line(campaign, capsys):
    _ok(capsys, "turn", "start", campaign, "--seed", "7")
    # Before the turn begins, no nation acts (exit 3, naming what comes next).
    code, _, err = bellica(capsys, "turn", "build", campaign, "--nation", "Romans", "fortification", "Latium")
    assert code == 3 and err.startswith("error: cannot build: round 1 is in the begin phase; begin turn 1")
    for wheel, numbers in WHEELS.items():
        _ok(capsys, "turn", "lottery", campaign, "--wheel", wheel, *numbers)
    _ok(capsys, "turn", "begin", campaign)
    # A nation acting out of its turn (exit 3).
    code, _, err = bellica(capsys, "turn", "build", campaign, "--nation", "Gauls", "suburbs", "Celtica")
    assert code == 3 and len(err.strip().splitlines()) == 1
    assert err.startswith("error: cannot build: it is Romans' turn to act, not Gauls'; Romans acts (2 actions left)")
    code, _, err = bellica(capsys, "turn", "done", campaign, "--nation", "Carthaginians")
    assert code == 3 and "it is Romans' turn to act" in err
    # Bad inputs (exit 1, one line each).
    cases = [
        (("turn", "build", campaign, "--nation", "Roma", "palace", "Latium"), "error: work 'palace': build one of"),
        (("turn", "build", campaign, "--nation", "Roma", "temple", "Latium"), "a temple needs suburbs standing in Latium"),
        (("turn", "build", campaign, "--nation", "Roma", "fortification", "Sicilia"), "Sicilia is not Romans'"),
        (("turn", "attack", campaign, "--nation", "Romans", "--from", "Latium", "--into", "Mesopotamia"), "Mesopotamia cannot be reached"),
        (("turn", "attack", campaign, "--nation", "Romans", "--from", "Latium", "--into", "Narnia"), "--into 'Narnia' is not a province"),
        (("turn", "peace", campaign, "--nation", "Romans", "--with", "Romans"), "name another nation"),
        (("turn", "naval", campaign, "--nation", "Romans", "--sea", "Tyrrhenum", "--enemy", "Carthaginians"), "it has no fleet there"),
        (("turn", "lottery", campaign, "--wheel", "BA", "1", "2", "99", "4", "5"), "give a whole number from 1 to 90"),
        # Silent accepts before (issue 23): a short wheel, a turn past the last, a label no draw has.
        (("turn", "lottery", campaign, "--wheel", "BA", "1", "2", "3", "4"), "4 numbers; a wheel's draw is 5 numbers"),
        (("turn", "lottery", campaign, "--wheel", "BA", "1", "2", "3", "4", "5", "--turn", "99"),
         "--turn 99: the campaign has 15 turns"),
        (("turn", "lottery", campaign, "--number", "siege/2/Atlantis", "70"), "'Atlantis' is not a province"),
        (("turn", "lottery", campaign, "--number", "peace/2/Romans/Nobody", "5"), "'Nobody' is no nation"),
        (("turn", "lottery", campaign, "--number", "siege/2/Apulia/x", "5"), "a siege number's label is siege/TURN/PROVINCE"),
        (("turn", "lottery", campaign, "--number", "siege/99/Apulia", "5"), "the campaign has 15 turns"),
        (("turn", "lottery", campaign, "--wheel", "Torino", "1", "2", "3"), "error: --wheel 'Torino': give one of the wheels"),
        (("turn", "lottery", campaign, "--wheel", "BA", "1", "2", "3", "--turn", "1"), "turn 1 has begun"),
        (("turn", "lottery", campaign, "--number", "luck/1/x", "5"), "give a label KIND/TURN/"),
        (("turn", "result", campaign, "Latium", "--winner", "attacker"), "cannot enter a battle's result"),
        (("turn", "spend", campaign, "--attack", "1"), "this command is for Rise of Rome"),
    ]
    for args, words in cases:
        code, _, err = bellica(capsys, *args)
        assert code in (1, 3) and len(err.strip().splitlines()) == 1 and words in err, (args, code, err)
    # Usage errors (exit 2): a nation the campaign does not have, a Rise of Rome option on a Mare Nostrum
    # campaign, a missing flag.
    code, _, err = bellica(capsys, "turn", "build", campaign, "--nation", "Atlantis", "fortification", "Latium")
    assert code == 2 and "Error: Invalid value for --nation: 'Atlantis' is not a nation of this campaign" in err
    assert bellica(capsys, "turn", "attack", campaign, "--none")[0] == 2
    assert bellica(capsys, "turn", "lottery", campaign, "1", "2")[0] == 2
    # Nothing refused was written: the log still verifies, and Romans still act first.
    _ok(capsys, "round", "verify", campaign)
    assert _status(capsys, campaign)["options"]["actions_left"] == 2
