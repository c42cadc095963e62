"""`bellica simulate` of the rulesets played on a campaign file (Vae Victis II, Magna Graecia,
Trossian): engine players in every seat, battles by a stated seeded generator, the same rows in
this process and on a Dask LocalCluster; the reads two seats share at one position are answered
once and forgotten at the first write."""

from __future__ import annotations

import csv
import json

import pytest

from bellica.engine.core.simulate import run_seeds, shared_reads, simulate
from bellica.engine.vae_victis.simulate import GameRunner, battle_result
from tests.cli.test_round_cli import bellica
from tests.engine.boards import sketch
from tests.engine.test_rounds import WATER
from tests.engine.test_state import make_campaign

#: Two factions on a radius-4 sketch, two armies each, a town of nobody between them.
TOWNS = [("Roma", "city", "", "roma", True), ("Ostia", "town", "9 9", "roma"), ("Capua", "city", "3 3 3", "carthago", True),
         ("Cales", "town", "3 3 3 5", "carthago"), ("Cumae", "town", "1 1", None)]
PLACED = ((1, "carthago", "Capua"), (2, "carthago", "Cales"), (9, "roma", "Roma"), (10, "roma", "Ostia"))


@pytest.fixture
def fresh_vv(tmp_path):
    path = tmp_path / "vv.duckdb"
    c, _m = make_campaign(path, placements=PLACED, m=sketch(radius=4, structures=TOWNS, water=WATER))
    c.close()
    return path


def _rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_vae_victis_games_are_the_same_here_and_on_a_dask_cluster(fresh_vv, tmp_path, capsys):
    from distributed import LocalCluster

    args = ["simulate", "vae-victis", "--campaign", fresh_vv, "--runs", 2, "--rounds", 2, "--seat", "roma=random",
            "-q", "--force"]
    code, out, err = bellica(capsys, *args, "--workers", 1, "--out", tmp_path / "here")
    assert code == 0, err
    assert "Departure from the seed: every engagement is decided by a seeded generator" in out
    assert "carthago heuristic, roma random" in out
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        code, out2, err = bellica(capsys, *args, "--scheduler", cluster.scheduler_address, "--out", tmp_path / "dask")
    assert code == 0, err
    here, there = _rows(tmp_path / "here" / "runs.csv"), _rows(tmp_path / "dask" / "runs.csv")
    assert here == there and len(here) == 2
    assert {r["seats"] for r in here} == {"carthago=heuristic,roma=random"}
    assert all(r["winner"] in ("carthago", "roma", "tie") and int(r["round"]) <= 2 for r in here)
    summary = json.loads((tmp_path / "here" / "summary.json").read_text())
    assert summary["departures"][0].startswith("every engagement is decided by a seeded generator")
    assert sum(v["runs"] for v in summary["counts"]["winner"].values()) == 2
    assert (tmp_path / "here" / "outcomes.png").stat().st_size > 0


def test_a_game_is_its_seed_and_the_campaign_file_is_never_written(fresh_vv):
    before = fresh_vv.read_bytes()
    runner = GameRunner(str(fresh_vv), (("carthago", "random"), ("roma", "random")), 1)
    seeds = run_seeds(5, 2)
    assert simulate(runner, seeds, workers=1) == simulate(runner, seeds, scheduler="sync")
    assert fresh_vv.read_bytes() == before


def test_the_battle_generator_is_seeded_and_favours_the_stronger_army():
    fp = {1: 3000, 2: 1000}
    assert battle_result(7, 1, 1, fp, 1, 2) == battle_result(7, 1, 1, fp, 1, 2)
    wins = sum(battle_result(s, 1, 1, fp, 1, 2)[1][0] == "win" for s in range(400))
    assert 240 < wins < 360  # 3000 / 4000 = 75% of 400 = 300
    for s in range(50):
        result = battle_result(s, 2, 3, fp, 1, 2)
        (w, (_, won)), = [(a, r) for a, r in result.items() if r[0] == "win"]
        (_, (_, lost)), = [(a, r) for a, r in result.items() if r[0] == "loss"]
        assert 12 <= won <= 35 and 36 <= lost <= 70


def test_seats_and_inputs_are_refused_in_one_line(fresh_vv, tmp_path, capsys):
    def refused(*args):
        code, out, err = bellica(capsys, "simulate", *args, "--runs", 1, "--workers", 1, "-q")
        assert code != 0 and len(err.strip().splitlines()) == 1, err
        return err

    assert "--campaign FILE" in refused("vae-victis-ii")
    assert "no bot 'clever'" in refused("vae-victis", "--campaign", fresh_vv, "--seat", "roma=clever")
    assert "FACTION=KIND" in refused("vae-victis", "--campaign", fresh_vv, "--seat", "roma")
    assert "is a vae-victis-ii campaign" in refused("trossian", "--campaign", fresh_vv)
    assert "--campaign, --seat and --rounds" in refused("rise-of-rome", "--campaign", fresh_vv)


def test_shared_reads_answer_a_query_once_until_something_is_written(fresh_vv):
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(fresh_vv) as c:
        c.con.execute("CREATE TABLE t (x INTEGER)")
        c.con.execute("INSERT INTO t VALUES (1)")
        with shared_reads(c):
            first = c.con.execute("SELECT x FROM t").fetchall()
            c.con._con.execute("INSERT INTO t VALUES (2)")  # behind its back: the kept answer stands
            assert c.con.execute("SELECT x FROM t").fetchall() == first == [(1,)]
            c.con.execute("INSERT INTO t VALUES (3)")  # a write through it forgets every answer
            assert sorted(c.con.execute("SELECT x FROM t").fetchall()) == [(1,), (2,), (3,)]
            cur = c.con.execute("SELECT x FROM t ORDER BY x")
            assert cur.fetchone() == (1,) and cur.fetchall() == [(2,), (3,)] and cur.fetchone() is None
        assert type(c.con).__name__ == "DuckDBPyConnection"


def _same_here_and_on_dask(capsys, tmp_path, *args) -> list[dict]:
    """Run ``bellica simulate ARGS`` in this process and on a one-worker Dask LocalCluster: the
    rows of runs.csv, identical."""
    from distributed import LocalCluster

    code, out, err = bellica(capsys, "simulate", *args, "-q", "--force", "--workers", 1, "--out", tmp_path / "here")
    assert code == 0, err
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        code, _out, err = bellica(capsys, "simulate", *args, "-q", "--force", "--scheduler", cluster.scheduler_address,
                                  "--out", tmp_path / "dask")
    assert code == 0, err
    here = _rows(tmp_path / "here" / "runs.csv")
    assert here == _rows(tmp_path / "dask" / "runs.csv")
    assert "Departure from the seed:" in out and "seeded generator" in out
    return here


@pytest.fixture(scope="module")
def fresh_mg(tmp_path_factory):
    from tests.conftest import scenario_campaign_file

    return scenario_campaign_file("magna-graecia/dionysian", tmp_path_factory.mktemp("sim-mg") / "dionysian.duckdb")


def test_magna_graecia_games_are_the_same_here_and_on_a_dask_cluster(fresh_mg, tmp_path, capsys):
    rows = _same_here_and_on_dask(capsys, tmp_path, "magna-graecia", "--campaign", fresh_mg, "--runs", 2,
                                  "--rounds", 1, "--seat", "Syracuse=random")
    assert len(rows) == 2 and {r["seats"] for r in rows} == {"Carthage=heuristic,Syracuse=random"}
    assert all(r["turns"] == "1" and r["stuck"] == "0" for r in rows)



def test_shared_reads_read_the_state_tables_once_for_the_block(fresh_vv):
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(fresh_vv) as c:
        c.start(seed=3)
        with shared_reads(c):
            assert c.snapshot() is c.snapshot()
        assert c.snapshot() is not c.snapshot() and "snapshot" not in vars(c)
