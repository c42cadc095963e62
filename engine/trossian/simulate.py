"""Whole Trossian campaigns played by the engine players, one row per game (``bellica simulate trossian``).

A game is played on a scratch copy of a campaign file fresh from ``bellica campaign new
--scenario trossian`` (:class:`~bellica.engine.core.simulate.campaign_copy`), every nation's
seat held by a bot (the ruleset's kinds, :meth:`Ruleset.bots`: ``random`` is
:class:`~bellica.engine.core.players.RandomSteps` until a heuristic is registered; the default
is ``heuristic`` when the ruleset has one).  The bots play until the umpire must act
(:func:`~bellica.engine.core.simulate.play_until_waiting`); the umpire's part is then taken
here, through the declared steps a person's form uses:

* the phase's ``next`` (begin, carry out the orders, end the phase, leave winter quarters);
* a nation whose bot stopped without its ``done`` (every step it drew was refused) is declared
  done, as a player with nothing more to order (counted: ``forced_done``);
* each table battle by the *battle generator* below.

The campaign has no victory condition: it runs ``years`` years (a decade by default) from its
first Early Spring, or its first ``rounds`` rounds (phases and winter quarters) when given, and
the row says who holds most provinces then (``tie`` when several do).

**Departure from the seed** (:data:`DEPARTURE`): the seed has land battles played on the table
(2 by 2 Napoleonics).  A seeded generator decides them: side a wins with probability
units_a / (units_a + units_b), from ``rng.stream(seed, "trossian-battle", round, battle)``;
each unit of the losing side is destroyed or routed with the chances of :data:`LOSER_FATES`,
each of the winner's with :data:`WINNER_FATES` (the others remain).  The post-battle attrition
dice, navies' fights and everything else are the rules' own, drawn from the game's seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from bellica.engine.core import rng
from bellica.engine.core.game_row import game_row
from bellica.engine.core.simulate import CampaignGames, campaign_simulation

__all__ = ["BATTLE_NAMESPACE", "DEFAULT_YEARS", "DEPARTURE", "GameRunner", "LOSER_FATES", "WINNER_FATES",
           "SIMULATION", "battle_result", "play_one"]

BATTLE_NAMESPACE = "trossian-battle"
#: Years a simulated campaign lasts unless told otherwise: the issue's decade.
DEFAULT_YEARS = 10
#: A unit's chance of each fate on the table (the rest: it remains): the losing side, the winner.
LOSER_FATES = {"destroyed": 1 / 3, "routed": 1 / 3}
WINNER_FATES = {"destroyed": 1 / 6, "routed": 1 / 6}
#: Umpire steps one game may take at most (a campaign that stops moving forward is a bug).
_MAX_UMPIRE_STEPS = 20_000

DEPARTURE = ("every land battle is decided by a seeded generator, not played on the table as the seed has it: "
             "a side wins with probability its units / both sides' units; each unit of the loser is destroyed "
             "or routed with a chance of 1/3 each, each of the winner's 1/6 each")


def _fates(r, units, chances: Mapping[str, float]) -> list[str]:
    out = []
    for u in units:
        x, at = r.random(), 0.0
        for fate, p in chances.items():
            at += p
            if x < at:
                out.append(f"{u.id}={fate}")
                break
    return out


def battle_result(seed: int, rnd: int, battle, state) -> dict:
    """The generator's result of ``battle`` (module doc), as the ``result`` step's input."""
    r = rng.stream(seed, BATTLE_NAMESPACE, rnd, battle.id)
    units = [[u for i in side for a in state.armies if a.id == i for u in a.units] for side in battle.sides]
    a, b = len(units[0]), len(units[1])
    winner = "a" if (r.random() * (a + b) < a if a + b else r.random() < 0.5) else "b"
    won, lost = (units[0], units[1]) if winner == "a" else (units[1], units[0])
    return {"battle": str(battle.id), "winner": winner,
            "fates": _fates(r, won, WINNER_FATES) + _fates(r, lost, LOSER_FATES)}


@dataclass(frozen=True)
class GameRunner:
    """A picklable ``seed -> row``: :func:`play_one` with the campaign file, the seats and the
    years fixed.  Every worker must see the file at this path."""

    campaign: str
    seats: tuple[tuple[str, str], ...]
    rounds: int | None = None

    def __call__(self, seed: int) -> dict:
        return play_one(self.campaign, seed, dict(self.seats), rounds=self.rounds)


def play_one(campaign, seed: int, seats: Mapping[str, str], *, years: int = DEFAULT_YEARS,
             rounds: int | None = None) -> dict:
    """Play one campaign from the fresh file ``campaign`` with ``seed`` (module doc) for ``years``
    years, or only its first ``rounds`` rounds (phases and winter quarters) when given; its row."""
    from bellica.engine.core.players import set_seats
    from bellica.engine.core.simulate import campaign_copy, play_until_waiting

    with campaign_copy(campaign, seed) as c:
        nations = list(c.board.nations)
        set_seats(c, {n: seats[n] for n in nations}, by="bellica simulate")
        first = _year(c.snapshot())
        tally = {"battles": 0, "forced_done": 0, "bot_steps": 0}
        by_year: dict[str, list[int]] = {n: [] for n in nations}
        for _ in range(_MAX_UMPIRE_STEPS):
            def past(snap) -> bool:
                return rounds is not None and _round(snap) > rounds

            tally["bot_steps"] += play_until_waiting(c, {n: seats[n] for n in nations}, until=lambda c: past(c.snapshot()))
            snap = c.snapshot()  # the position the umpire acts on, read once
            year = _year(snap)
            while len(by_year[nations[0]]) < year - first:
                _count(snap, nations, by_year)  # a year is over: what each nation holds as the next begins
            if year >= first + years or past(snap) or not _umpire(c, snap, seed, nations, tally):
                break
        snap = c.snapshot()
        return _row(snap, nations, seats, by_year, tally, _year(snap) - first)


def _round(snap) -> int:
    return int(snap.campaign("round"))


def _year(snap) -> int:
    return int(next(row[1] for k, row in snap.tables["tr_game"].items() if k[0] == "year"))


def _count(snap, nations, by_year) -> None:
    from bellica.engine.trossian.storage import state_of

    control = state_of(snap).control
    for n in nations:
        by_year[n].append(sum(1 for holder in control.values() if holder == n))


def _umpire(c, snap, seed: int, nations, tally: dict) -> bool:
    """The umpire's next step at the position ``snap`` (module doc); False when the campaign waits
    on nothing it can give."""
    from bellica.engine.core.simulate import umpire_step
    from bellica.engine.trossian.status import next_decision
    from bellica.engine.trossian.storage import state_of

    step, _words = next_decision(c, snap)
    if step in ("begin", "resolve", "end", "spring"):
        umpire_step(c, "next", {})
    elif step == "result":
        state = state_of(snap)
        umpire_step(c, "result", battle_result(seed, int(snap.campaign("round")), state.battles[0], state))
        tally["battles"] += 1
    elif step == "orders":
        ready = {k[1] for k in snap.tables["tr_ready"] if k[0] == int(snap.campaign("round"))}
        for n in nations:
            if n not in ready:
                umpire_step(c, "done", {}, as_faction=n)
                tally["forced_done"] += 1
    else:
        return False
    return True


def _row(snap, nations, seats: Mapping[str, str], by_year: Mapping[str, list[int]], tally: dict, played: int) -> dict:
    """The campaign as numbers: who holds most provinces at the end (or ``tie``), by how many,
    the years played, each nation's provinces at the end and after each year."""
    from bellica.engine.trossian.storage import state_of

    control = state_of(snap).control
    held = {n: sum(1 for holder in control.values() if holder == n) for n in nations}
    ranked = [(n, held[n]) for n in sorted(nations, key=lambda n: -held[n])]
    return game_row(nations, seats, ranked, "provinces", {"years": played, "rounds": _round(snap) - 1}, tally,
                    score="provinces", series="provinces_by_year_", by_round=by_year)


#: What ``bellica simulate trossian`` plays (engine/core/simulate.py, docs/simulate.md).
SIMULATION = campaign_simulation(
    "Trossian",
    CampaignGames(GameRunner, DEPARTURE, unit="round", default_length=None, length_words="ten years",
                  score="provinces", span="years", series=("provinces_by_year_", "provinces held", "year")),
    rounds_help="Trossian rounds, a phase or winter quarters each (default: ten years)")
