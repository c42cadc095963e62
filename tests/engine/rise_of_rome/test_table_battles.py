"""The seed's tabletop rules (issue 22): "Other battles may be played at the choice of the player",
the battle's terrain "indicated on the map", and the allied corps "from any Subject Inactive Power
they control, which is not itself under attack this turn" (at most a quarter of the points)."""

from __future__ import annotations

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.machine import StepRefused
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.rise_of_rome.attacks import Attack, AttackPlan
from bellica.engine.rise_of_rome.battles import allied_corps, fight_battles
from bellica.engine.rise_of_rome.dice import Roller
from bellica.engine.rise_of_rome.model import TurnState
from bellica.engine.rise_of_rome.play import enter_result, give_attack, give_spending, play_until_decision, take_to_table
from bellica.engine.rise_of_rome.rules import default_rules
from bellica.engine.rise_of_rome.scenario import load_scenario
from bellica.engine.rise_of_rome.spending import Spending
from bellica.geo.errors import InputError
from tests.engine.test_names_everywhere import _cli

SCENARIO = load_scenario()
RULES = default_rules()
HOME = "Lucania et Bruttium"


def _tarentum_with_a_subject() -> TurnState:
    """Tarentum holds the Bruttians' only home: the Bruttians and Lucanians are its Subject."""
    return TurnState(turn=2, control={**SCENARIO.start_control(), HOME: "Tarentine Greeks"})


def test_an_allied_corps_from_a_subject_not_under_attack_at_most_a_quarter():
    # Tarentum attacks the Samnites: the Bruttians, not attacked this turn, may give it an allied
    # corps of at most a quarter of its points (Command & Colors: "not more than one-quarter").
    state = _tarentum_with_a_subject()
    plan = AttackPlan((Attack("Tarentine Greeks", "Samnites", 12),))
    _new, battles, events = fight_battles(SCENARIO, state, RULES, Roller(5), plan, {"Tarentine Greeks": Spending(20, 0, 0)})
    b = battles[0]
    assert b.attacker_allies == ("Bruttians and Lucanians",) and b.defender_allies == ()
    assert b.attack_points == 100
    assert "Tarentine Greeks may field an allied corps of Bruttians and Lucanians (at most 25 pts)" in events[0].text


def test_no_allied_corps_from_a_subject_under_attack_this_turn():
    # The Samnites attack the Bruttians' home (its army defends): Tarentum may take no corps from
    # them this turn, in this battle nor in its own attack later in the turn.
    state = _tarentum_with_a_subject()
    plan = AttackPlan((Attack("Samnites", "Tarentine Greeks", 12), Attack("Tarentine Greeks", "Samnites", 11)))
    assert allied_corps(SCENARIO, state, RULES, plan, 2, "Tarentine Greeks", {1: "Bruttians and Lucanians"}) == ()
    assert allied_corps(SCENARIO, state, RULES, AttackPlan(), 1, "Tarentine Greeks", {}) == ("Bruttians and Lucanians",)


def test_the_battle_names_its_provinces_terrain_from_the_map(campaign):
    with Campaign.open(campaign, read_only=True) as c:
        terrain = c.board.terrain
        got = c.con.execute("SELECT h.terrain, count(*) n FROM province_cells p JOIN hexes h USING (cell) "
                            "WHERE p.province = 'Etruria' AND h.kind = 'land' GROUP BY 1 ORDER BY n DESC, 1").fetchall()
    assert terrain["Etruria"] == tuple(t for t, _n in got) and len(terrain) == 19


@pytest.fixture(scope="module")
def italy(tmp_path_factory, scenario_map):
    """The scenario's map (built once a run: tests/conftest.py scenario_map)."""
    return scenario_map("rise-of-rome", tmp_path_factory.mktemp("ror-table") / "italy.duckdb")


@pytest.fixture
def campaign(italy, tmp_path, capsys):
    out = tmp_path / "rome.duckdb"
    assert _cli(capsys, "campaign", "new", "--scenario", "rise-of-rome", "--map", italy, "--out", out, "-q")[0] == 0
    return out


def test_the_player_takes_another_battle_to_the_table(campaign):
    # Seed 1, turn 1: Tarentum attacks the Samnites (battle 1), the Boian Celts the Etruscans
    # (battle 2); Rome does not attack.  The player takes battle 2 to the table: the turn stops
    # there for its result, as for Rome's own battles, and the campaign re-adjudicates.
    with Campaign.open(campaign) as c:
        c.start(seed=1)
        play_until_decision(c)
        with pytest.raises(StepRefused, match="attacks phase"):
            c.ruleset.run_step(c, "table", {"battle": 2})
        give_attack(c, None)
        with pytest.raises(InputError, match="this turn's battles are 1 to 2"):
            take_to_table(c, 3)
        from bellica.engine.rise_of_rome.play import table_candidates

        assert table_candidates(c, c.snapshot()) == [1, 2]
        take_to_table(c, 2)
        take_to_table(c, 2)   # again: no change
        give_spending(c, Spending(0, 0, 20))
        told = play_until_decision(c)
        awaited = [e for e in told if e.kind == "battle_awaited"]
        assert awaited and awaited[0].data["index"] == 2 and "-- played on the table" in awaited[0].text
        with pytest.raises(StepRefused, match="it was fought \\(generated\\) before battle 2"):
            take_to_table(c, 1)
        assert table_candidates(c, c.snapshot()) == [2]
        enter_result(c, 2, "attacker", True)
        told = play_until_decision(c)
        assert any(e.kind == "battle_result" and e.text.startswith("Battle 2: Major Victory for the attacker (entered)")
                   for e in c.events())
        c.verify()
    assert readjudicate(campaign) > 0


def test_the_table_step_from_the_command_line(campaign, capsys):
    assert _cli(capsys, "turn", "start", campaign, "--seed", 1)[0] == 0
    assert _cli(capsys, "turn", "next", campaign)[0] == 0
    assert _cli(capsys, "turn", "attack", campaign, "--none")[0] == 0
    code, out, err = _cli(capsys, "rise-of-rome", "table", campaign, "2")
    assert code == 0, err
    assert "battle 2 (Boian Celts against Etruscans) is played on the table" in out
    code, out, err = _cli(capsys, "rise-of-rome", "table", campaign, "2", "--power", "Samnites")
    assert code != 0 and "taking a battle to the table is Rome's decision" in err
