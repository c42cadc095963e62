"""The catalogue of adjudication cases (datasets/cases/, docs/cases.md): one test per case, run by
the same runner as `bellica cases run` on a fresh copy of its campaign, each scenario's campaign made
once per test process (seconds), and started once per scenario, seed and rules (cases share it)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from bellica.engine.core.cases import CASES_DIR, load_catalogue, run_case

CASES = load_catalogue()

#: The catalogue's floor per ruleset (issue 24: 40 for Vae Victis II, 15 for each other).
AT_LEAST = {"vae-victis-ii": 40, "rise-of-rome": 15, "mare-nostrum": 15, "magna-graecia": 15, "trossian": 15}


@pytest.fixture(scope="session")
def scenario_folder(tmp_path_factory):
    """Where the scenarios' campaigns are made: under xdist, one folder for every worker of this
    run (the run's own base folder), so a scenario's map is built once per run, not per worker."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "case-scenarios"
        folder.mkdir(exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("case-scenarios")


def _campaign(case, folder, dest):
    """The case's started campaign at ``dest``; one worker makes a scenario's files at a time.  The
    scenario's campaign, which the runner makes as `bellica campaign new` does, is the run's
    (tests/conftest.py, scenario_campaign_file: the same file, its map built once for every test)."""
    import fcntl

    from bellica.commands.cases import case_campaign
    from tests.conftest import scenario_campaign_file

    with open(folder / f".lock-{case.scenario.replace('/', '+')}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = folder / f"{case.scenario.replace('/', '+')}.duckdb"  # where the runner looks for it
        if not made.is_file():
            scenario_campaign_file(case.scenario, made)
        return case_campaign(case, folder, dest)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.ruleset} {c.id}" for c in CASES])
def test_case(case, scenario_folder, tmp_path):
    result = run_case(case, _campaign(case, scenario_folder, tmp_path / "case.duckdb"), prepared=True)
    assert result.passed, result.line()


def test_every_case_names_the_seed_rule_it_tests():
    for case in CASES:
        assert case.tests.strip() and ":" in case.tests, f"{case.path}: tests = 'seed file: rule'"
        assert case.path.name == f"{case.id}.toml", f"{case.path}: name the file after its number"


def test_the_catalogue_counts():
    """Every ruleset's catalogue holds at least the issue's number of cases."""
    have = Counter(c.ruleset for c in CASES)
    assert CASES_DIR.is_dir() and set(have) == set(AT_LEAST)
    assert {r: have[r] for r in AT_LEAST if have[r] < AT_LEAST[r]} == {}


def test_a_failing_case_says_what_failed(scenario_folder, tmp_path):
    """The runner reports a wrong expectation and an unexpected refusal in words, never raises."""
    from dataclasses import replace

    case = next(c for c in CASES if c.ruleset == "rise-of-rome" and c.id == "A.1")
    wrong = replace(case, events=({"kind": "revenue", "text": "^Campanians collect 99"},), sql=())
    result = run_case(wrong, _campaign(wrong, scenario_folder, tmp_path / "a.duckdb"), prepared=True)
    assert not result.passed and "Campanians collect 99" in result.failures[0] and result.line().startswith("FAIL")
    refused = replace(case, steps=("spend --attack 99",), events=(), sql=())
    result = run_case(refused, _campaign(refused, scenario_folder, tmp_path / "b.duckdb"), prepared=True)
    assert result.failures and "step 1 `spend --attack 99` refused" in result.failures[0]


def test_the_command_runs_a_case_and_exits_by_the_result(tmp_path, capsys):
    from bellica.cli import main

    main(["cases", "run", "rise-of-rome", "--case", "A.1", "--work", str(tmp_path)])  # all pass: returns (exit 0)
    assert "pass rise-of-rome A.1" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["cases", "run", "rise-of-rome", "--case", "Z.9", "--work", str(tmp_path)])
    assert done.value.code == 1 and "no case Z.9" in capsys.readouterr().err


def test_a_work_folder_of_other_files_needs_force(tmp_path, capsys):
    from bellica.cli import main

    (tmp_path / "case.duckdb").write_text("mine")
    with pytest.raises(SystemExit) as done:
        main(["cases", "run", "rise-of-rome", "--case", "A.1", "--work", str(tmp_path)])
    assert done.value.code == 1 and "--force" in capsys.readouterr().err
    assert (tmp_path / "case.duckdb").read_text() == "mine"
    main(["cases", "run", "rise-of-rome", "--case", "A.1", "--work", str(tmp_path), "--force"])
    assert "pass rise-of-rome A.1" in capsys.readouterr().out


@pytest.mark.parametrize("ruleset, case_id", [("vae-victis-ii", "G.4"), ("trossian", "D.1"), ("magna-graecia", "B.1")])
def test_a_case_leaves_a_campaign_that_verifies(ruleset, case_id, scenario_folder, tmp_path):
    """Its position is logged as put_row events: the campaign replays from its scenario to every table."""
    from bellica.engine.core.campaign import Campaign

    case = next(c for c in CASES if c.ruleset == ruleset and c.id == case_id)
    path = _campaign(case, scenario_folder, tmp_path / "case.duckdb")
    assert run_case(case, path, prepared=True).passed
    with Campaign.open(path) as c:
        c.verify()


def test_position_lines_are_checked_against_the_state_tables(scenario_folder, tmp_path):
    """A position naming no state table, or no row to drop, is an error of the case, in one line."""
    from dataclasses import replace

    from bellica.geo.errors import BellicaError

    case = next(c for c in CASES if c.ruleset == "rise-of-rome" and c.id == "A.1")
    for n, (line, words) in enumerate([("ror_nowhere province=Latium", "no state table 'ror_nowhere'"),
                                        ("drop ror_control province=Atlantis", "ror_control has no row"),
                                        ("ror_control province=Latium colour=red", "has no column 'colour'")]):
        bad = replace(case, position=(line,))
        with pytest.raises(BellicaError, match=words):
            run_case(bad, _campaign(bad, scenario_folder, tmp_path / f"{n}.duckdb"), prepared=True)
    moved = replace(case, position=("ror_control province=Latium power=Samnites",), events=(),
                    sql=({"query": "SELECT power FROM ror_control WHERE province = 'Latium'", "rows": [["Samnites"]]},))
    assert run_case(moved, _campaign(moved, scenario_folder, tmp_path / "m.duckdb"), prepared=True).passed
