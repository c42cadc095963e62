"""Rise of Rome's bots (engine/rise_of_rome/bots.py): Rome's seat played by the simulate policies
through Rome's own steps; the turns replay; the policies read the state the player view shows,
which gives them the same answers as the campaign's own state."""

from __future__ import annotations

import dataclasses

import pytest

from bellica.engine.core import rng
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.players import NOTE_KIND, play_until_waiting, seat_for, set_seats
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.rise_of_rome.bots import public_state
from bellica.engine.rise_of_rome.policies import Prudent
from bellica.engine.rise_of_rome.storage import state_of
from tests.engine.bot_games import umpire
from tests.engine.test_names_everywhere import _cli


@pytest.fixture(scope="module")
def base(tmp_path_factory, scenario_map):
    folder = tmp_path_factory.mktemp("ror-bots")
    scenario_map("rise-of-rome", folder / "italy.duckdb")  # the scenario's map, built once a run
    return folder


def _new(capsys, base, path, seed: int, kind: str):
    code, _out, err = _cli(capsys, "campaign", "new", "--scenario", "rise-of-rome", "--map", base / "italy.duckdb",
                           "--out", path, "-q", "--bot", f"Romans={kind}")
    assert code == 0, err
    assert _cli(capsys, "turn", "start", path, "--seed", seed)[0] == 0
    return path


def play(c, seed: int, turns: int) -> int:
    """Rome's bot plays; a battle on the table is settled by a seeded coin (the umpire's stand-in)."""
    taken = 0
    for _ in range(100):
        status = c.ruleset.player_view(c, None).status
        if status.get("verdict") or status["turn"] > turns:
            break
        played = play_until_waiting(c, limit=40)
        taken += len(played)
        if played:
            continue
        pending = c.ruleset.player_view(c, None).status.get("pending_battle")
        assert pending, "nobody acts"
        coin = rng.stream(seed, "test-battle", status["turn"], pending["index"]).random()
        umpire(c, "result", battle=pending["index"], winner="attacker" if coin < 0.5 else "defender", margin="minor")
    return taken


def test_the_heuristic_plays_rome_s_decisions_and_the_turns_replay(base, tmp_path, capsys):
    path = _new(capsys, base, tmp_path / "rome.duckdb", 3, "heuristic")
    with Campaign.open(path) as c:
        assert play(c, 3, 2) >= 6
        steps = {e.data["step"] for e in c.events() if e.kind == "step"}
        assert {"attack", "spend"} <= steps
        reasons = [r for e in c.events() if e.kind == NOTE_KIND for r in e.data["reasons"]]
        assert any(r.startswith("spends ") and "(prudent:" in r for r in reasons)
        assert any("attack" in r for r in reasons)
    code, out, err = _cli(capsys, "round", "verify", path, "--readjudicate")
    assert code == 0, err
    assert readjudicate(path) >= 6


def test_the_random_bot_plays_rome(base, tmp_path, capsys):
    path = _new(capsys, base, tmp_path / "rome.duckdb", 4, "random")
    with Campaign.open(path) as c:
        assert play(c, 4, 1) >= 3
        assert all(e.data["bot"] == "random" for e in c.events() if e.kind == NOTE_KIND)
    readjudicate(path)


def test_the_policy_reads_the_view_as_it_would_the_state(base, tmp_path, capsys):
    path = _new(capsys, base, tmp_path / "rome.duckdb", 5, "heuristic")
    with Campaign.open(path) as c:
        umpire(c, "next")  # to Rome's attack decision
        seat = seat_for(c, "Romans", "heuristic")
        assert seat.view.status["next_step"] == "attack"
        kinds = {type(getattr(seat, f.name)).__name__ for f in dataclasses.fields(seat)}
        assert not kinds & {"Campaign", "DuckDBPyConnection", "TurnState"}
        scenario = seat.aid.scenario
        real = state_of(scenario, c.snapshot())
        seen, plan = public_state(seat.view, scenario)
        assert dict(seen.control) == dict(real.control)
        assert seen.revenue == {p: v for p, v in real.revenue.items() if p in seen.revenue}
        policy = Prudent(rules=c.rules)
        assert policy.attack(scenario, seen, plan) == policy.attack(scenario, real, plan)
        answers = c.ruleset.bots()["heuristic"]().decide(seat)
        assert [a.action for a in answers] == ["attack"]
        # another power's seat: not the bot's to play (the engine plays them)
        assert c.ruleset.bots()["heuristic"]().decide(dataclasses.replace(seat, faction="Samnites")) == []
