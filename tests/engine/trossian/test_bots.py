"""The Trossian campaign's bots (engine/trossian/bots.py): heuristic nations march on the enemy
capitals and keep their couriers riding, through the nations' own sealed orders, and the game
replays; a bot's reasons are sealed like its orders; a bot decides from its seat alone (another
nation's sealed orders and treasury are not in it)."""

from __future__ import annotations

import dataclasses

import pytest

from bellica.engine.core import rng
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.players import NOTE_KIND, play_seat, play_until_waiting, seat_for, set_seats
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.sealed import log_view
from tests.engine.bot_games import umpire
from tests.engine.trossian.campaign_file import fresh_campaign

NATIONS = ("Crimean Khanate", "Danubian Principalities", "Ottoman Porte", "Russia")


@pytest.fixture
def campaign(tmp_path_factory, tmp_path):
    return fresh_campaign(tmp_path_factory.getbasetemp(), tmp_path / "tr.duckdb")


def play(c, seed: int, rounds: int) -> int:
    """Bots in every seat, the umpire's `next` and each battle's result by a seeded coin; the bot steps."""
    ruleset, taken = c.ruleset, 0
    for _ in range(200):
        status = ruleset.player_view(c, None).status
        if status["round"] > rounds:
            break
        played = play_until_waiting(c, limit=80)
        taken += len(played)
        if played:
            continue
        if status["next_step"] == "result":
            b = status["battles"][0]
            winner = "a" if rng.stream(seed, "test-battle", status["round"], b["battle"]).random() < 0.5 else "b"
            umpire(c, "result", battle=b["battle"], winner=winner, fates=[], retreats=[], dice=[])
        else:
            umpire(c, "next")
    return taken


def test_heuristic_nations_march_and_send_couriers_and_the_game_replays(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=1)
        set_seats(c, {n: "heuristic" for n in NATIONS})
        assert play(c, 1, 2) > 8
        notes = [e for e in c.events() if e.kind == NOTE_KIND]
        reasons = [r for e in notes for r in e.data["reasons"]]
        assert any("marches on" in r and "nearest enemy capital" in r for r in reasons)
        assert any("leaves the capital for army" in r for r in reasons)
        assert any("rides on towards" in r for r in reasons)
        marched = [e for e in c.events() if e.kind == "army_moved"]
        assert marched  # the orders were carried out
        # a note of this round is sealed from another nation, open to its own
        note = next(e for e in reversed(notes))
        other = next(n for n in NATIONS if n != note.data["faction"])
        if int(c.snapshot().campaign("round")) == note.data["round"]:
            assert {x.event.seq: x.sealed for x in log_view(c, viewer=other)}[note.seq]
        assert not {x.event.seq: x.sealed for x in log_view(c, viewer=note.data["faction"])}[note.seq]
    assert readjudicate(campaign) > 8


def test_a_bot_decides_from_its_seat_alone(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=2)
        umpire(c, "next")  # the phase's orders
        set_seats(c, {"Ottoman Porte": "heuristic"})
        seat = seat_for(c, "Russia", "heuristic")
        kinds = {type(getattr(seat, f.name)).__name__ for f in dataclasses.fields(seat)}
        assert not kinds & {"Campaign", "DuckDBPyConnection", "GameState"}
        assert {type(v).__name__ for v in vars(seat.aid).values()} == {"Scenario", "Rules"}
        others = [a for a in seat.view.status["armies"] if a["nation"] != "Russia"]
        assert others and all(a["units"] is None for a in others)
        before = c.ruleset.bots()["heuristic"]().decide(seat)
        assert before and before[0].action == "march"
        # the Porte gives its sealed orders and its treasury changes: Russia's seat cannot tell
        assert play_seat(c, "Ottoman Porte").answers
        c.con.execute("UPDATE tr_treasury SET treasury = treasury + 50 WHERE nation = 'Ottoman Porte'")
        after_seat = seat_for(c, "Russia", "heuristic")
    same = {k: v for k, v in seat.view.status.items() if k != "ready"}
    assert {k: v for k, v in after_seat.view.status.items() if k != "ready"} == same
    assert c.ruleset.bots()["heuristic"]().decide(after_seat) == before
