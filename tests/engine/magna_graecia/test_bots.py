"""Magna Graecia's bots (engine/magna_graecia/bots.py): a game played by the heuristic bots through
the sides' own steps replays under re-adjudication, the reasons are sealed from the other side until
the turn is over, and a bot decides from its seat alone (the other side's forces are not in it)."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from bellica.engine.core import rng
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.players import NOTE_KIND, play_bots, play_until_waiting, seat_for, set_seats
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.sealed import log_view
from bellica.engine.magna_graecia.battles import camps
from bellica.engine.magna_graecia.ruleset import state_of
from tests.engine.bot_games import umpire


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    from tests.conftest import scenario_campaign_file

    return scenario_campaign_file("magna-graecia/dionysian", tmp_path_factory.mktemp("mg-bots") / "dionysian.duckdb")


@pytest.fixture
def campaign(fresh, tmp_path):
    return shutil.copy(fresh, tmp_path / "c.duckdb")


def _umpire(c, seed: int) -> bool:
    """The umpire's part when the bots wait: a table battle's result by a seeded coin weighted by the
    elements, a fleet fight, a defence or retreat the umpire gives; False when nothing is due."""
    ruleset, state = c.ruleset, state_of(c.snapshot())
    b = state.battles[0] if state.battles else None
    if b is not None and b.kind == "naval":
        umpire(c, "fleet-battle", node=b.node, retreat=None)
    elif b is not None and not b.defence:
        umpire(c, "defence", node=b.node, defence="central")
    elif b is not None:
        att, dfn = camps(state, b)
        sides = [state.owner(x) for x in dfn if state.owner(x)]
        a_n, d_n = sum(x.element_count() for x in att), sum(x.element_count() for x in dfn)
        coin = rng.stream(seed, "test-battle", state.turn, b.node, b.day).random()
        winner = b.attacker if (coin < a_n / max(1, a_n + d_n) or not sides) else sides[0]
        umpire(c, "result", node=b.node, winner=winner, losses=[], open_paths=[])
    elif state.retreats:
        r = state.retreats[0]
        if r.command:
            umpire(c, "retreat", command=r.command, path=[])
        else:
            umpire(c, "retreat-fleet", path=[])
    else:
        return False
    return True


def play(c, seed: int, turns: int, *, exact: bool = False) -> int:
    """Bots in every seat play ``turns`` turns (``exact``: not a step more; else the last `bots` step
    may run on), the umpire stepping in when they wait; the bot steps taken."""
    taken = 0
    for _ in range(600):
        state = state_of(c.snapshot())
        if state.phase == "over" or state.turn > turns:
            break
        played = play_bots(c) if exact else play_until_waiting(c, limit=60)  # exact: stop at the turn
        taken += len(played)
        if not played and not _umpire(c, seed):
            raise AssertionError(f"nobody acts: {c.ruleset.next_step(c, c.snapshot())}")
    return taken


def test_a_heuristic_game_is_legal_and_replays(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=3)
        set_seats(c, {"Syracuse": "heuristic", "Carthage": "heuristic"})
        assert play(c, 3, 3) > 6
        notes = [e for e in c.events() if e.kind == NOTE_KIND]
        reasons = [r for e in notes for r in e.data["reasons"]]
        assert any("marches on" in r and "neutral city" in r for r in reasons)
        assert any(r.startswith("ends its movement") for r in reasons)
        assert {e.data["faction"] for e in notes} == {"Syracuse", "Carthage"}
        # the bots' steps are the sides' own steps, logged as any side's
        steps = [e for e in c.events() if e.kind == "step" and e.data["step"] == "move"]
        assert steps and all(e.data["input"]["side"] in ("Syracuse", "Carthage") for e in steps)
        last = notes[-1]
        sealed = {line.event.seq: line.sealed for line in log_view(c, viewer="Syracuse" if last.data["faction"] == "Carthage"
                                                                    else "Carthage")}
        if int(c.snapshot().campaign("round")) == last.data["round"]:
            assert sealed[last.seq]  # the other side reads it once the turn is over
        assert not {line.event.seq: line.sealed for line in log_view(c, viewer=last.data["faction"])}[last.seq]
    assert readjudicate(campaign) > 6


def test_the_random_bot_plays_only_legal_steps(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=4)
        set_seats(c, {"Syracuse": "random", "Carthage": "random"})
        assert play(c, 4, 2) > 2
        assert all(e.data["input"]["side"] in ("Syracuse", "Carthage") for e in c.events()
                   if e.kind == "step" and "side" in (e.data["input"] or {}) and e.data["input"]["side"])
    readjudicate(campaign)


def test_a_bot_decides_from_its_seat_alone(campaign):
    """The seat holds the side's view and the public board, never the campaign; the other side's
    forces are not in it, so changing them changes neither the seat's view nor the bot's answer."""
    other = campaign.with_name("other.duckdb")
    with Campaign.open(campaign) as c:
        c.start(seed=5)
        shutil.copy(campaign, other)
        seat = seat_for(c, "Syracuse", "heuristic")
        before = sum(x["strength"] for x in seat_for(c, "Carthage", "random").view.status["counters"] if "id" in x)
    kinds = {type(getattr(seat, f.name)).__name__ for f in dataclasses.fields(seat)}
    assert not kinds & {"Campaign", "DuckDBPyConnection", "GameState"}
    assert {type(v).__name__ for v in vars(seat.aid).values()} == {"NodeMap", "int"}
    assert all("elements" not in x for x in seat.view.status["counters"] if x["owner"] == "Carthage")
    with Campaign.open(other) as c:  # Carthage's commands far stronger: Syracuse cannot know
        c.con.execute("UPDATE mg_commands SET elements = replace(elements, ': ', ': 9') WHERE side = 'Carthage'")
        seat2 = seat_for(c, "Syracuse", "heuristic")
        after = sum(x["strength"] for x in seat_for(c, "Carthage", "random").view.status["counters"] if "id" in x)
    assert after > before  # Carthage's own view shows the change
    bots = c.ruleset.bots()
    assert seat2.view.status == seat.view.status
    assert bots["heuristic"]().decide(seat2) == bots["heuristic"]().decide(seat)
    assert bots["heuristic"]().decide(dataclasses.replace(seat, actions=())) == []  # nothing open: nothing given


def test_the_heuristic_outscores_a_random_side_in_seeded_games(campaign, capsys):
    """Two seeded games of four turns, the heuristic Syracuse against a random Carthage: the victory
    points it gains by taking neutral cities (docs/bots.md has a larger sample). Seeded, so the same
    figures every run; they are printed."""
    from bellica.engine.magna_graecia.victory import victory_points

    totals = {"Syracuse": 0, "Carthage": 0}
    for seed in (1, 2):
        path = shutil.copy(campaign, campaign.with_name(f"g{seed}.duckdb"))
        with Campaign.open(path) as c:
            c.start(seed=seed)
            set_seats(c, {"Syracuse": "heuristic", "Carthage": "random"})
            play(c, seed, 4, exact=True)
            vp = victory_points(state_of(c.snapshot()), c.rules)
            for side in totals:
                totals[side] += vp[side]["total"]
    with capsys.disabled():
        print(f"\nMagna Graecia, 2 games of 4 turns: heuristic Syracuse {totals['Syracuse']} VP, random Carthage "
              f"{totals['Carthage']} VP")
    assert totals["Syracuse"] > totals["Carthage"]
