"""Whole Magna Graecia seasons played by the engine players, one row per game (``bellica simulate magna-graecia``).

A game is played on a scratch copy of a campaign file fresh from ``bellica campaign new
--scenario magna-graecia`` (or any of its four scenarios: Dionysian Sicily, the Pyrrhic War,
the First and the Second Punic War; :class:`~bellica.engine.core.simulate.campaign_copy`),
every side's seat held by a bot of the ruleset's kinds (:meth:`Ruleset.bots`: ``heuristic``
by default when the ruleset has one, else ``random``).  The bots play until the umpire must
act (:func:`~bellica.engine.core.simulate.play_until_waiting`: moves, attacks, defences,
sieges, second days, retreats, the end of each player-turn); the umpire's part is then taken
here through the declared steps a person's form uses:

* a fleet battle: ``fleet-battle`` (its dice are the rules', from the game's seed);
* a land battle whose defence is chosen: its result by the *battle generator* below;
* a defence or a retreat no bot gave (its draws refused): the umpire's, the central defence and
  the rules' default retreat path, as the rules let the umpire take them for a side
  (counted: ``umpire_steps``).

The season ends as the rules end it (its last campaign turn, or a side's capital rule); a
game that waits on a step no bot gives (every draw refused) stops there, and its row says
so (``stuck``).  The row's winner is the rules' standings' leader in victory points (``tie``
when the first two are level).

**Departure from the seed** (:data:`DEPARTURE`): the seed has land battles fought on the
table.  A seeded generator decides them: the attacking camp wins with probability its elements
/ both camps' elements, from ``rng.stream(seed, "magna-graecia-battle", turn, node, day)``;
each element of the losing camp is lost with the chance :data:`LOSER_LOSS`, each of the
winner's with :data:`WINNER_LOSS` (a commander never: the rules' own recovery and capture apply).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from bellica.engine.core import rng
from bellica.engine.core.game_row import game_row
from bellica.engine.core.simulate import CampaignGames, campaign_simulation

__all__ = ["BATTLE_NAMESPACE", "DEPARTURE", "GameRunner", "LOSER_LOSS", "WINNER_LOSS", "SIMULATION", "battle_result", "play_one"]

BATTLE_NAMESPACE = "magna-graecia-battle"
#: An element's chance of being lost on the table: the losing camp's, the winner's.
LOSER_LOSS = 0.4
WINNER_LOSS = 0.15
#: Umpire steps one game may take at most (a season that stops moving forward is a bug).
_MAX_UMPIRE_STEPS = 5_000

DEPARTURE = ("every land battle is decided by a seeded generator, not fought on the table as the seed has it: "
             "the attacking camp wins with probability its elements / both camps' elements; each element of "
             "the loser is lost with a chance of 0.4, each of the winner's 0.15")


def _losses(r, commands, chance: float) -> list[str]:
    out = []
    for c in commands:
        for element, n in sorted(c.elements.items()):
            lost = sum(1 for _ in range(int(n)) if r.random() < chance)
            if lost:
                out.append(f"{c.id}:{element}={lost}")
    return out


def battle_result(seed: int, state, b) -> dict:
    """The generator's result of the land battle ``b`` (module doc), as the ``result`` step's input."""
    from bellica.engine.magna_graecia.battles import camps

    att, dfn = camps(state, b)
    r = rng.stream(seed, BATTLE_NAMESPACE, state.turn, b.node, b.day)
    a = sum(int(n) for c in att for n in c.elements.values())
    d = sum(int(n) for c in dfn for n in c.elements.values())
    attacker_wins = r.random() * (a + d) < a if a + d else r.random() < 0.5
    if attacker_wins:
        winner = b.attacker
    else:
        owners = [state.owner(c) for c in dfn if state.owner(c)]
        winner = owners[0] if owners else (b.defenders[0] if b.defenders else b.attacker)
    won, lost = (att, dfn) if attacker_wins else (dfn, att)
    return {"node": b.node, "winner": winner, "losses": _losses(r, won, WINNER_LOSS) + _losses(r, lost, LOSER_LOSS)}


@dataclass(frozen=True)
class GameRunner:
    """A picklable ``seed -> row``: :func:`play_one` with the campaign file and the seats fixed.
    Every worker must see the file at this path."""

    campaign: str
    seats: tuple[tuple[str, str], ...]
    turns: int | None = None

    def __call__(self, seed: int) -> dict:
        return play_one(self.campaign, seed, dict(self.seats), turns=self.turns)


def play_one(campaign, seed: int, seats: Mapping[str, str], *, turns: int | None = None) -> dict:
    """Play one season from the fresh file ``campaign`` with ``seed`` (module doc), at most
    ``turns`` campaign turns (None: the rules' own end); its row."""
    from bellica.engine.core.players import set_seats
    from bellica.engine.core.simulate import campaign_copy, play_until_waiting, shared_reads
    from bellica.engine.magna_graecia.storage import state_of

    with campaign_copy(campaign, seed) as c:
        sides = list(c.ruleset.factions(c))
        set_seats(c, {s: seats[s] for s in sides}, by="bellica simulate")
        tally = {"battles": 0, "fleet_battles": 0, "umpire_steps": 0, "bot_steps": 0, "stuck": 0}
        vp_by_turn: dict[str, list[int]] = {s: [] for s in sides}

        def past(c) -> bool:  # the turn limit: checked between the bots' steps too
            return turns is not None and state_of(c.snapshot()).turn > turns

        for _ in range(_MAX_UMPIRE_STEPS):
            tally["bot_steps"] += play_until_waiting(c, {s: seats[s] for s in sides}, until=past)
            with shared_reads(c):  # the position the umpire looks at, read once
                _record(c, sides, vp_by_turn)
                if _over(c) or past(c):
                    break
                state = state_of(c.snapshot())
            if not _umpire(c, state, seed, tally):
                tally["stuck"] = 1
                break
        return _row(c, sides, seats, vp_by_turn, tally)


def _over(c) -> bool:
    from bellica.engine.magna_graecia.inputs import OVER

    snap = c.snapshot()
    return snap.campaign("phase") == OVER or bool(snap.campaign("winner"))


def _record(c, sides, vp_by_turn) -> None:
    """Each side's victory points once per campaign turn played (at the first look past it)."""
    from bellica.engine.magna_graecia.storage import state_of
    from bellica.engine.magna_graecia.victory import victory_points

    state = state_of(c.snapshot())
    while len(vp_by_turn[sides[0]]) < state.turn - 1:
        vp = victory_points(state, c.rules)
        for s in sides:
            vp_by_turn[s].append(int(vp[s]["total"]) if s in vp else 0)


def _umpire(c, state, seed: int, tally: dict) -> bool:
    """The umpire's next step at ``state`` (module doc); False when the season waits on a step only a side gives."""
    from bellica.engine.core.simulate import umpire_step

    for b in state.battles:
        if b.kind == "naval":
            umpire_step(c, "fleet-battle", {"node": b.node})
            tally["fleet_battles"] += 1
            return True
        if not b.defence and not b.undecided:  # the defenders' bots gave none: the umpire's, the central one
            umpire_step(c, "defence", {"node": b.node, "defence": "central"})
            tally["umpire_steps"] += 1
            return True
        if b.defence and not b.undecided:
            umpire_step(c, "result", battle_result(seed, state, b))
            tally["battles"] += 1
            return True
    if state.retreats:  # a retreat no bot gave: the umpire's, by the rules' default path
        r = state.retreats[0]
        # An empty path is the step's own "the rules' default" (the command line insists on one:
        # a person names the nodes), so the step is run with its typed input, as the web app does.
        if r.command:
            c.ruleset.action("retreat").run(c, None, command=int(r.command), path=[])
        else:
            c.ruleset.action("retreat-fleet").run(c, None, path=[])
        tally["umpire_steps"] += 1
        return True
    return False


def _row(c, sides, seats: Mapping[str, str], vp_by_turn: Mapping[str, list[int]], tally: dict) -> dict:
    """The season as numbers: the leader in victory points (or ``tie``), by how many, the turns
    played, each side's victory points at the end and after each turn."""
    from bellica.engine.magna_graecia.storage import state_of
    from bellica.engine.magna_graecia.victory import standings

    state = state_of(c.snapshot())
    ranked = standings(state, c.rules)
    turns = min(state.turn - (0 if _over(c) else 1), c.rules.game.turns)
    return game_row(sides, seats, ranked, "vp", {"turns": turns}, tally, score="vp", series="vp_by_turn_",
                    by_round=vp_by_turn)


#: What ``bellica simulate magna-graecia`` plays (engine/core/simulate.py, docs/simulate.md).
SIMULATION = campaign_simulation(
    "Magna Graecia",
    CampaignGames(GameRunner, DEPARTURE, unit="turn", default_length=None, length_words="the season's own end",
                  score="VP", span="turns", series=("vp_by_turn_", "victory points", "turn")),
    rounds_help="Magna Graecia campaign turns (default: the season's own end)")
