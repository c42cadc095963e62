"""Mare Nostrum's bots (engine/mare_nostrum/bots.py): nations played by the simulate policies and by
the random player through the nations' own steps; the turns replay; a bot reads the published
position only while its view hides nothing."""

from __future__ import annotations

import dataclasses

import pytest

from bellica.engine.core import rng
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.players import NOTE_KIND, play_until_waiting, seat_for, set_seats
from bellica.engine.core.readjudicate import readjudicate
from tests.engine.bot_games import umpire
from tests.engine.test_names_everywhere import _cli


@pytest.fixture(scope="module")
def made(tmp_path_factory, scenario_map):
    folder = tmp_path_factory.mktemp("mn-bots")
    scenario_map("mare-nostrum", folder / "mn.duckdb")  # the scenario's map, built once a run
    return folder


def _new(capsys, made, path, seed: int):
    code, _out, err = _cli(capsys, "campaign", "new", "--scenario", "mare-nostrum", "--map", made / "mn.duckdb",
                           "--out", path, "-q")
    assert code == 0, err
    c = Campaign.open(path)
    c.start(seed=seed)
    return c


def play(c, seed: int, turns: int) -> int:
    """The bots act; the umpire begins and ends the turns and settles each battle by a seeded coin."""
    ruleset, taken = c.ruleset, 0
    for _ in range(300):
        status = ruleset.player_view(c, None).status
        if status.get("winner") or status["next_step"] is None or status["turn"] > turns:
            break
        if status["next_step"] in ("begin", "end"):
            umpire(c, "next")
        elif status["next_step"] == "result":
            b = next(a for a in status["attacks"] if not a["result"])
            coin = rng.stream(seed, "test-battle", status["turn"], b["target"]).random()
            umpire(c, "result", battle=b["target"], winner="attacker" if coin < 0.5 else "defender")
        else:
            played = play_until_waiting(c, limit=60)
            assert played, f"nobody acts: {status['next_words']}"
            taken += len(played)
    return taken


def test_policy_and_random_nations_play_and_the_turns_replay(made, tmp_path, capsys):
    path = tmp_path / "mn.duckdb"
    with _new(capsys, made, path, 2) as c:
        nations = c.ruleset.factions(c)
        set_seats(c, {n: ("heuristic" if n == "Romans" else "aggressor" if n == "Carthaginians" else "random")
                      for n in nations})
        assert play(c, 2, 1) >= len(nations)
        notes = [e for e in c.events() if e.kind == NOTE_KIND]
        assert {e.data["faction"] for e in notes} == set(nations)
        romans = [r for e in notes if e.data["faction"] == "Romans" for r in e.data["reasons"]]
        assert romans and all("(diplomat:" in r or r.startswith("finishes its actions") for r in romans)
        assert any(r.startswith("finishes its actions") for r in romans)
    assert readjudicate(path) >= len(nations)


def test_a_bot_reads_the_published_position_only_while_its_view_hides_nothing(made, tmp_path, capsys):
    with _new(capsys, made, tmp_path / "mn.duckdb", 3) as c:
        umpire(c, "next")  # the turn begins: the first nation acts
        acting = c.ruleset.player_view(c, None).status["acting"]
        seat = seat_for(c, acting, "heuristic")
        assert seat.view.hidden == () and seat.view.viewer == acting
        kinds = {type(getattr(seat, f.name)).__name__ for f in dataclasses.fields(seat)}
        assert not kinds & {"Campaign", "DuckDBPyConnection"}
        bots = c.ruleset.bots()
        assert bots["heuristic"]().decide(seat)
        assert bots["heuristic"]().decide(dataclasses.replace(seat, view=dataclasses.replace(seat.view, hidden=("x",)))) == []
        idle = next(n for n in c.ruleset.factions(c) if n != acting)
        assert bots["heuristic"]().decide(seat_for(c, idle, "heuristic")) == []  # not its turn to act
