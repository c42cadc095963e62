"""Whole Vae Victis II games played by the engine players, one row per game (``bellica simulate vae-victis``).

A game is played on a copy of a campaign file fresh from ``bellica campaign new`` (the First
Punic War at res 5, or any Vae Victis II scenario), one copy per game in a scratch folder
(``/dev/shm`` when it has room: every step commits and syncs), through one open
:class:`~bellica.engine.core.campaign.Campaign` for the whole game: the rounds' own steps
(:mod:`bellica.engine.vae_victis.rounds`), each seat played by its bot through
:func:`~bellica.engine.core.players.play_seat` exactly as ``bellica round bots`` plays it (the
faction's player view, the person's parser and step, sealed and logged), until a faction meets
a victory condition or ``rounds`` rounds are over.  Nothing is rendered.

Per round:

1. **initiative**: each bot seat gives its armies' initiative uses; the umpire publishes them;
2. **orders**: each bot seat gives its orders (sealed until both are in); movement runs;
3. **battles**: every engagement is decided by the *battle generator* below;
4. **administration**: the choices are the bots' wishes: :func:`~.bots.siege_wishes` and
   :func:`~.bots.debark_wishes` of each faction, read from that faction's player view (one view per
   faction: both wishes read the same one).  If the rules refuse them (a structure that fell
   earlier in the same administration), the administration runs without choices and the row
   counts it (``admin_refused``);
5. **victory**: the round's VP and the five victory conditions.

**Departure from the seed** (:data:`DEPARTURE`): the seed has every engagement fought in Field
of Glory II and its result entered.  Nobody is at the table, so a seeded generator decides it:
army A beats army B with probability FP_A / (FP_A + FP_B) (the Force Points each brings, the
umpire's knowledge), drawn from ``rng.stream(seed, "vae-victis-battle", round, engagement)``;
the winner loses a whole percentage drawn uniformly from :data:`WINNER_LOSSES`, the loser from
:data:`LOSER_LOSSES` (the figures of the demo's stand-in).  An assault on a structure (an army
against its garrison, no FP known) succeeds on an even chance, the assaulting army's losses drawn
as a winner's or a loser's.  No draws, no retreats before battle.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from bellica.engine.core import rng
from bellica.engine.core.simulate import CampaignGames, campaign_simulation
from bellica.geo.errors import InputError

__all__ = ["BATTLE_NAMESPACE", "DEFAULT_ROUNDS", "DEPARTURE", "GameRunner", "KINDS", "LOSER_LOSSES", "WINNER_LOSSES",
           "SIMULATION", "battle_result", "play_one"]

#: The battle generator's stream namespace (never the campaign's own labels).
BATTLE_NAMESPACE = "vae-victis-battle"
#: Casualty percentages (low, high), drawn uniformly: the winner's and the loser's.
WINNER_LOSSES = (12, 35)
LOSER_LOSSES = (36, 70)
#: Rounds played when no faction wins earlier (the First Punic War measured over five).
DEFAULT_ROUNDS = 5
#: The bot kinds a seat may be given (engine/vae_victis/bots.py).
KINDS = ("heuristic", "random")

DEPARTURE = ("every engagement is decided by a seeded generator, not fought in Field of Glory II as the seed has it: "
             "an army wins with probability its FP / both sides' FP, the winner losing 12-35% and the loser 36-70% "
             "(uniform), an assault on a structure succeeding on an even chance")


def battle_result(seed: int, rnd: int, engagement: int, fp: Mapping[int, int],
                  army_a: int, army_b: int | None) -> dict[int, tuple[str, int]]:
    """The generator's result of one engagement (module doc), as :func:`rounds.record_result` takes it."""
    r = rng.stream(seed, BATTLE_NAMESPACE, rnd, engagement)
    if army_b is None:
        won = r.random() < 0.5
        return {army_a: ("win" if won else "loss", r.randint(*(WINNER_LOSSES if won else LOSER_LOSSES)))}
    a, b = max(0, fp.get(army_a, 0)), max(0, fp.get(army_b, 0))
    a_wins = r.random() * (a + b) < a if a + b else r.random() < 0.5
    winner, loser = (army_a, army_b) if a_wins else (army_b, army_a)
    return {winner: ("win", r.randint(*WINNER_LOSSES)), loser: ("loss", r.randint(*LOSER_LOSSES))}


@dataclass(frozen=True)
class GameRunner:
    """A picklable ``seed -> row``: :func:`play_one` on the campaign file ``campaign`` with the
    seats (faction, bot kind) and the round limit fixed (what ``simulate`` maps over the seeds).
    Every worker must see the file at this path."""

    campaign: str
    seats: tuple[tuple[str, str], ...]
    rounds: int = DEFAULT_ROUNDS

    def __call__(self, seed: int) -> dict:
        return play_one(self.campaign, seed, dict(self.seats), rounds=self.rounds)


def play_one(campaign: str | Path, seed: int, seats: Mapping[str, str], *, rounds: int = DEFAULT_ROUNDS) -> dict:
    """Play one game from the fresh campaign file ``campaign`` with ``seed``, each faction of
    ``seats`` played by its bot kind, and return its row (:func:`_row`).  The file itself is never
    written: the game runs on a copy, removed afterwards."""
    from bellica.engine.core.simulate import campaign_copy

    with campaign_copy(campaign, seed) as c:
        return _play(c, seed, seats, rounds)


def _play(c, seed: int, seats: Mapping[str, str], rounds: int) -> dict:
    from bellica.engine.core.players import set_seats
    from bellica.engine.vae_victis.state import load_state

    # The factions with armies play; one holding only structures (the First Punic War's Syracusae) gives no orders.
    factions = sorted({a.faction for a in load_state(c).armies})
    missing = [f for f in factions if f not in seats]
    if missing:
        raise InputError(f"no bot for {', '.join(missing)}: give every faction with armies a seat "
                         f"({', '.join(factions)}), e.g. --seat {missing[0]}=heuristic")
    set_seats(c, {f: seats[f] for f in factions}, by="bellica simulate")
    vp_by_round: dict[str, list[int]] = {f: [] for f in factions}
    held_by_round: dict[str, list[int]] = {f: [] for f in factions}
    tally = {"engagements": 0, "admin_refused": 0}
    for _ in range(rounds):
        _round(c, seed, seats, factions, tally)
        vp, state = _vp(c), load_state(c)
        for f in factions:
            vp_by_round[f].append(vp.get(f, 0))
            held_by_round[f].append(_held(state, f))
        if state.winner is not None:
            break
    return _row(c, factions, seats, vp_by_round, held_by_round, tally)


def _round(c, seed: int, seats: Mapping[str, str], factions: list[str], tally: dict) -> None:
    """One round (module doc): initiative, orders, movement, battles, administration, victory."""
    from bellica.engine.core.simulate import play_seats
    from bellica.engine.vae_victis import rounds

    played = {f: seats[f] for f in factions}
    play_seats(c, played)  # initiative uses
    rounds.publish_initiative(c)
    play_seats(c, played)  # orders, sealed until both are in
    rounds.run_movement(c)
    tally["engagements"] += _battles(c, seed)
    choices = _wishes(c, factions)
    try:
        rounds.run_administration(c, choices)
    except InputError:
        tally["admin_refused"] += 1
        rounds.run_administration(c, rounds.AdminChoices())
    rounds.run_victory(c)


def _battles(c, seed: int) -> int:
    """Every engagement of the round decided by :func:`battle_result`; returns how many."""
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.state import load_state

    state = load_state(c)
    fp = {a.id: a.strength for a in state.armies}
    n = 0
    for number, _battle, army_a, army_b, _assault, done in rounds.round_status(c).engagements:
        if not done:
            rounds.record_result(c, number, battle_result(seed, state.round, number, fp, army_a, army_b))
            n += 1
    return n


def _wishes(c, factions: list[str]):
    """The administration's choices: each faction's siege and debarkation wishes, read from one
    player view of that faction."""
    from bellica.engine.core.simulate import shared_reads
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.bots import bot_aid, debark_wishes, siege_wishes

    with shared_reads(c):
        aid = bot_aid(c)
        views = {f: c.ruleset.player_view(c, f) for f in factions}
    sieges: dict[int, str] = {}
    debarks: dict[int, int] = {}
    for f, view in views.items():
        sieges.update(siege_wishes(c.board, view, aid))
        debarks.update(debark_wishes(c.board, view, aid))
    return rounds.AdminChoices(siege_starts=sieges, debarks=debarks)


def _vp(c) -> dict[str, int]:
    return {f: int(v) for f, v in c.con.execute("SELECT faction, vp FROM victory_points").fetchall()}


def _held(state, faction: str) -> int:
    """Towns and cities ``faction`` controls now."""
    return sum(1 for owner in state.control.values() if owner == faction)


def _row(c, factions: list[str], seats: Mapping[str, str], vp_by_round: Mapping[str, list[int]],
         held_by_round: Mapping[str, list[int]], tally: dict) -> dict:
    """The game as numbers: who won (by a victory condition, else the lead in VP after the last
    round, or ``tie``), how (``condition`` / ``vp`` / ``tie``), in which round, by how many VP,
    each faction's VP and towns and cities held, at the end and after each round."""
    from bellica.engine.vae_victis.state import load_state

    state = load_state(c)
    vp = {f: vp_by_round[f][-1] if vp_by_round[f] else 0 for f in factions}
    ranked = sorted(factions, key=lambda f: -vp[f])
    lead = vp[ranked[0]] - vp[ranked[1]] if len(ranked) > 1 else vp[ranked[0]]
    if state.winner is not None:
        winner, how, margin = state.winner, "condition", vp[state.winner] - max(vp[f] for f in factions if f != state.winner)
    elif lead > 0:
        winner, how, margin = ranked[0], "vp", lead
    else:
        winner, how, margin = "tie", "tie", 0
    row = {"seats": ",".join(f"{f}={seats[f]}" for f in factions), "winner": winner, "how": how,
           "round": len(vp_by_round[factions[0]]), "margin": margin, **tally}
    row.update({f"vp_{f}": vp[f] for f in factions})
    row.update({f"held_{f}": _held(state, f) for f in factions})
    row.update({f"vp_by_round_{f}": list(vp_by_round[f]) for f in factions})
    row.update({f"held_by_round_{f}": list(held_by_round[f]) for f in factions})
    return row


def seated(c) -> list[str]:
    """The factions a game seats: those with armies placed (a faction holding only structures, the
    First Punic War's Syracusae, gives no orders)."""
    return [f for (f,) in c.con.execute("SELECT DISTINCT faction FROM placements ORDER BY faction").fetchall()]


#: What ``bellica simulate vae-victis-ii`` plays (engine/core/simulate.py, docs/simulate.md).
SIMULATION = campaign_simulation(
    "Vae Victis II",
    CampaignGames(GameRunner, DEPARTURE, unit="round", default_length=DEFAULT_ROUNDS, length_words="", score="VP",
                  span="round", series=("held_by_round_", "towns and cities held", "round"), seated=seated),
    aliases=("vae-victis",), rounds_help=f"Vae Victis II rounds (default {DEFAULT_ROUNDS})")
