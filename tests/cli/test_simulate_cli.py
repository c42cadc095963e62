"""`bellica simulate` (issue 12, part 6): outputs written, the same results on any worker count, bad input one line."""

from __future__ import annotations

import csv
import json

import pytest

from tests.cli.test_round_cli import bellica


def test_simulate_writes_the_summary_the_runs_and_the_plot(tmp_path, capsys):
    out = tmp_path / "sim"
    code, stdout, err = bellica(capsys, "simulate", "rise-of-rome", "--runs", 6, "--policy", "builder", "--seed", 3,
                               "--workers", 1, "--out", out)
    assert code == 0, err
    assert "Rise of Rome: 6 campaigns, policy builder, seed 3, this process" in stdout
    assert "Departure from the seed" in stdout and "generate_player_battles" in stdout
    assert "Verdicts: assured (250+)" in stdout and "Provinces held per turn" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"] == 6 and summary["policy"] == "builder" and summary["seed"] == 3
    assert list(summary["counts"]["verdict"]) == ["assured", "italy", "provincial", "disappear", "disgrace"]
    assert sum(v["runs"] for v in summary["counts"]["verdict"].values()) == 6
    assert len(summary["series"]["provinces"]) == 13 and summary["series"]["provinces"][0]["median"] == 3
    assert any("generate_player_battles" in d for d in summary["departures"])
    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert [int(r["run"]) for r in rows] == list(range(6)) and "provinces_t12" in rows[0]
    assert (out / "outcomes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # Refused without --force, files untouched; replaced with it.
    before = (out / "runs.csv").read_bytes()
    code, stdout, err = bellica(capsys, "simulate", "rise-of-rome", "--runs", 2, "--out", out)
    assert code == 1 and stdout == "" and len(err.strip().splitlines()) == 1 and "--force" in err
    assert (out / "runs.csv").read_bytes() == before

    # Two local processes, the same runs (same seed, same outcomes).
    code, _, err = bellica(capsys, "simulate", "rise-of-rome", "--runs", 6, "--policy", "builder", "--seed", 3,
                          "--workers", 2, "--out", out, "--force")
    assert code == 0, err
    assert (out / "runs.csv").read_bytes() == before


def test_simulate_json(capsys):
    code, stdout, err = bellica(capsys, "simulate", "rise-of-rome", "--runs", 3, "--policy", "random", "--workers", 1,
                               "--json")
    assert code == 0, err
    doc = json.loads(stdout)
    assert doc["runs"] == 3 and doc["policy"] == "random" and doc["written"] == []
    assert doc["numbers"]["civic"]["n"] == 3 and doc["where"] == "this process"


@pytest.mark.parametrize("args, words", [
    (["rome"], "no simulation for the ruleset 'rome'"),
    (["rise-of-rome", "--policy", "timid"], "no Rome policy called 'timid'"),
    (["rise-of-rome", "--runs", "0"], "--runs 0"),
    # Unbounded, it ran until killed (issue 23, item 10).
    (["rise-of-rome", "--runs", "99999999999999999999"], "--runs 99999999999999999999 is more than 100,000 campaigns"),
    (["mare-nostrum", "--runs", "100001"], "give at most 100000, or run several --seed values"),
    (["rise-of-rome", "--workers", "0"], "--workers 0"),
    (["rise-of-rome", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "give one or the other"),
    (["rise-of-rome", "--runs", "1", "--scheduler", "nonsense"], "scheduler 'nonsense'"),
    (["rise-of-rome", "--runs", "1", "--rules", "/no/such/rules.toml"], "cannot be read"),
])
def test_bad_input_is_one_line(args, words, capsys):
    code, stdout, err = bellica(capsys, "simulate", *args)
    assert code == 1 and stdout == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ") and words in err


def test_out_that_is_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "f"
    f.write_text("x")
    code, _, err = bellica(capsys, "simulate", "rise-of-rome", "--runs", 1, "--out", f)
    assert code == 1 and "is a file, not a folder" in err and f.read_text() == "x"


def test_a_dask_cluster_gives_the_same_runs(tmp_path, capsys):
    from distributed import LocalCluster

    args = ("simulate", "rise-of-rome", "--runs", 5, "--policy", "random", "--seed", 11)
    code, _, err = bellica(capsys, *args, "--workers", 1, "--out", tmp_path / "one")
    assert code == 0, err
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        code, stdout, err = bellica(capsys, *args, "--scheduler", cluster.scheduler_address, "--out", tmp_path / "dask")
    assert code == 0, err
    assert f"Dask scheduler {cluster.scheduler_address}" in stdout
    assert (tmp_path / "dask" / "runs.csv").read_bytes() == (tmp_path / "one" / "runs.csv").read_bytes()
    assert (tmp_path / "dask" / "summary.json").read_bytes() == (tmp_path / "one" / "summary.json").read_bytes()


def test_simulate_mare_nostrum(tmp_path, capsys):
    out = tmp_path / "mn"
    code, stdout, err = bellica(capsys, "simulate", "mare-nostrum", "--runs", 3, "--policy", "aggressor", "--seed", 2,
                               "--workers", 1, "--out", out)
    assert code == 0, err
    assert "Mare Nostrum: 3 games, policy aggressor for every nation, seed 2, this process" in stdout
    assert "Departure from the seed" in stdout and "seeded die" in stdout and "Wins: Carthaginians" in stdout
    assert "  Romans: 0: 6" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ruleset"] == "mare-nostrum" and summary["policy"] == "aggressor"
    assert sum(v["runs"] for v in summary["counts"]["winner"].values()) == 3
    assert len(summary["series"]["provinces_Romans"]) == 16
    rows = list(csv.DictReader((out / "runs.csv").open()))
    assert len(rows) == 3 and "provinces_Seleucids_t15" in rows[0] and "final_Gauls" in rows[0]
    assert (out / "outcomes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = bellica(capsys, "simulate", "mare-nostrum", "--runs", 1, "--policy", "prudent", "--workers", 1)
    assert code == 1 and "no Mare Nostrum policy called 'prudent'" in err


def test_simulate_mare_nostrum_with_one_policy_per_nation(tmp_path, capsys):
    args = ("simulate", "mare-nostrum", "--runs", 4, "--policy", "builder", "--nation-policy", "romans=aggressor",
            "--nation-policy", "Gauls=diplomat", "--seed", 5)
    code, stdout, err = bellica(capsys, *args, "--workers", 1, "--out", tmp_path / "one")
    assert code == 0, err
    assert "Mare Nostrum: 4 games, policies Gauls diplomat, Romans aggressor, the others builder, seed 5" in stdout
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert summary["policies"] == {"Carthaginians": "builder", "Gauls": "diplomat", "Macedonians": "builder",
                                   "Ptolemaics": "builder", "Romans": "aggressor", "Seleucids": "builder"}
    assert summary["policy"] == ("Carthaginians=builder,Gauls=diplomat,Macedonians=builder,Ptolemaics=builder,"
                                 "Romans=aggressor,Seleucids=builder")
    rows = list(csv.DictReader((tmp_path / "one" / "runs.csv").open()))
    assert {r["policy"] for r in rows} == {summary["policy"]}
    # the same runs on two local processes
    code, _, err = bellica(capsys, *args, "--workers", 2, "--out", tmp_path / "two")
    assert code == 0, err
    assert (tmp_path / "two" / "runs.csv").read_bytes() == (tmp_path / "one" / "runs.csv").read_bytes()
    # every nation naming the same policy is that policy for every nation
    code, stdout, err = bellica(capsys, "simulate", "mare-nostrum", "--runs", 1, "--workers", 1, "--policy", "random",
                               *(a for n in ("Romans", "Gauls") for a in ("--nation-policy", f"{n}=random")), "--json")
    assert code == 0, err
    assert json.loads(stdout)["policy"] == "random"


@pytest.mark.parametrize("args, words", [
    (["mare-nostrum", "--nation-policy", "Atlantis=builder"],
     "no nation called 'Atlantis' in Mare Nostrum: choose one of Carthaginians"),
    (["mare-nostrum", "--nation-policy", "Romans=timid"], "no Mare Nostrum policy called 'timid': choose one of builder"),
    (["mare-nostrum", "--nation-policy", "Romans"], "give NATION=POLICY"),
    (["mare-nostrum", "--policy", "timid", "--nation-policy", "Romans=builder"], "no Mare Nostrum policy called 'timid'"),
    (["rise-of-rome", "--nation-policy", "Romans=builder"], "Rise of Rome has one player"),
])
def test_bad_nation_policies_are_one_line(args, words, capsys):
    code, stdout, err = bellica(capsys, "simulate", *args, "--runs", 1, "--workers", 1)
    assert code == 1 and stdout == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ") and words in err
