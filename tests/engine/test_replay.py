"""A scripted round, then: the log replays to the stored tables exactly, and the same inputs give the same log."""

from __future__ import annotations

import pytest

from bellica.engine.core import state as st
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.model import ArmyOrders
from bellica.engine.vae_victis.state import load_state, replay
from tests.engine.test_rounds import FIELD, started


def scripted_round(c):
    """Round 1 on the FIELD map: initiative, publication, orders, a collision, a battle and its result,
    administration and the victory check."""
    rounds.submit_initiative(c, {9: "strength"}, faction="roma")
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10, moves=(0,))}, faction="roma")
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=(9, 9))}, faction="carthago")
    rounds.run_movement(c)
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    rounds.run_administration(c)
    rounds.run_victory(c)


def campaign():
    c, m = started(placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), structures=FIELD)
    return c, m


def test_replay_reproduces_every_table_after_a_round():
    c, _ = campaign()
    scripted_round(c)
    replayed = c.verify()
    stored = c.snapshot()
    for table in c.ruleset.schema.tables:
        assert replayed.rows(table) == stored.rows(table), table
    assert replay(c) == load_state(c)
    # Every kind of state row was exercised.
    for table in ("armies", "control", "victory_points", "orders", "engagements", "engagement_results", "round_notes", "campaign"):
        assert stored.rows(table), table


def test_same_inputs_same_log_and_tables():
    logs, snaps = [], []
    for _ in range(2):
        c, _m = campaign()
        scripted_round(c)
        logs.append([(e.seq, e.round, e.phase, e.kind, e.data, e.text) for e in c.events()])
        snaps.append(c.snapshot())
    assert logs[0] == logs[1]
    assert snaps[0] == snaps[1]


def test_replay_detects_a_table_changed_behind_the_log():
    c, _ = campaign()
    scripted_round(c)
    c.con.execute("DELETE FROM engagement_results WHERE army = 9")
    with pytest.raises(st.ReplayMismatch, match=r"engagement_results \(1, 1, 9\)"):
        c.verify()


# --- the demo round on the real First Punic War map -------------------------------------


@pytest.fixture(scope="module")
def fresh_punic_campaign(tmp_path_factory, first_punic_war):
    """`bellica campaign new --scenario first-punic-war` (its res-5 map built), once a run (tests/conftest.py)."""
    return first_punic_war(tmp_path_factory.mktemp("punic") / "fresh.duckdb")


def test_demo_round_on_the_real_map_replays_and_repeats(fresh_punic_campaign, tmp_path):
    import shutil

    from bellica.demo import run_demo_round

    logs = []
    for i in range(2):
        path = tmp_path / f"demo{i}.duckdb"
        shutil.copy(fresh_punic_campaign, path)
        lines = run_demo_round(path)
        with Campaign.open(path, read_only=True) as c:
            c.verify()
            s = load_state(c)
            logs.append([(e.seq, e.kind, e.data, e.text) for e in c.events()])
            rows = c.con.execute("SELECT army, outcome FROM engagement_results ORDER BY army").fetchall()
        # The movement collision at Mylae, the battle there, the siege of Gela.
        assert any("moved into" in l and "at the same time" in l for l in lines)
        assert rows == [(7, "loss"), (14, "win")]
        siege = s.siege_of("Gela")
        assert siege is not None and siege.armies == (4,) and siege.resilience == 2
        assert s.round == 2 and s.victory_points["Roma"] == 4 and s.victory_points["Carthago"] == -2
        # At sea: army 13 crosses the Strait of Messina; army 12 embarks at Tarentum, sails from Mare Ionium
        # into Mare Tyrrhenum, beats Carthaginian navy 5 off Mylae and debarks into Mylae; navy 5 rests in port.
        assert any("army 13 (Roma)" in l and "crossed the strait" in l for l in lines)
        assert any("army 12 (Roma) embarked at" in l and "Mare Ionium" in l and "Mare Tyrrhenum" in l for l in lines)
        assert any(l.startswith("naval battle 1:") and "Carthago defeat" in l for l in lines)
        assert any("navy 12 (Roma) debarked" in l and "Mylae" in l for l in lines)
        with Campaign.open(path, read_only=True) as c2:
            mylae = c2.board.structures["Mylae"].cell
            assert c2.board.hexes[s.army(5).cell].kind == "land" and s.navy_rest == {5: 3}
        assert s.army(12).cell == mylae and s.control["Mylae"] == "Roma"
    assert logs[0] == logs[1]  # same scenario, same seed, same script: the same log
    # The log holds every input: re-adjudicating it from the scenario gives the same log.
    # 4 initiative uses, publication, 16 orders, movement, 1 result, administration, victory.
    assert readjudicate(tmp_path / "demo0.duckdb") == 25


def test_readjudication_from_the_log_gives_the_same_log(tmp_path):
    from tests.engine.test_state import make_campaign
    from tests.engine.boards import sketch

    path = tmp_path / "c.duckdb"
    c, _ = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")),
                         m=sketch(radius=4, structures=FIELD))
    c.start(seed=11)
    rounds.submit_initiative(c, {9: "strength"}, faction="roma")
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10, moves=(0,))}, faction="roma")
    rounds.submit_orders(c, {10: ArmyOrders(10, moves=(1,))}, faction="roma")  # a resubmission
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=(9, 9))}, faction="carthago")
    rounds.run_movement(c)
    rounds.record_result(c, 1, {1: ("draw", 30), 9: ("draw", 35)})
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)}, correction=True)  # a correction (`--replace`)
    rounds.run_administration(c)
    rounds.run_victory(c)
    c.close()
    assert readjudicate(path) == 11
    # A log that does not follow from its inputs is caught: change a recorded outcome's words.
    with Campaign.open(path) as c:
        c.con.execute("UPDATE events SET text = 'army 9 (roma) moved nowhere' WHERE kind = 'army_moved' AND text LIKE 'army 9 %'")
    with pytest.raises(st.ReplayMismatch, match="re-adjudication differs at event"):
        readjudicate(path)

