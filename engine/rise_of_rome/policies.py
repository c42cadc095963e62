"""Named players for Rome, and one whole campaign as a row of numbers (what ``bellica simulate`` runs).

A policy is a :class:`~bellica.engine.rise_of_rome.turn.RomePolicy`: it names Rome's
target (or none), splits Rome's free revenue, and may pick the province of a battle
(None: the seed's rule picks, the province worth most to Rome next turn).  It never
enters a battle result, so Rome's battles are generated like everyone else's: a
departure from the seed, which has them played on the table, that needs the rules option
``generate_player_battles`` on (:func:`simulation_rules` turns it on).

``builder``
    Always build: no attack, every point of free revenue to Civic Improvement.
``conqueror`` (also ``weakest-neighbour``)
    Always attack the weakest neighbour: the Active power next to Rome with the least
    revenue this turn (then the fewest provinces, then scenario order); half the free
    revenue to Attack, a quarter to Defense when Rome is attacked too, the rest to Civic
    Improvement.  When no power borders Rome it builds.
``prudent`` (the default of ``bellica simulate``)
    Defends first, attacks when it can afford it: when Rome is attacked it does not attack and
    puts on Defense just enough to lift each defending army to its next 20-point step (the
    Battle Result Generator's unit); when it is not attacked and has at least 20 free revenue it
    attacks the weakest neighbour with 20 on Attack (100 points).  Offered a lost Roman home as
    the province it takes, it takes it.  The rest goes to Civic Improvement.
``random``
    A random legal player: each turn it attacks one of the powers it may attack, or none,
    with equal chances; splits its revenue at two uniformly random cut points; picks a
    battle's province among the legal ones at random.  Its choices come from a stream of
    its own (:func:`bellica.engine.core.rng.stream` keyed by the campaign seed, the
    namespace ``rise-of-rome-player`` and the turn), never from the dice of the campaign,
    so the powers roll the same dice whatever the player does until the player's choices
    change the position.

:func:`play_one` plays a campaign from a seed and gives the numbers a balance study
reads: the verdict, Rome's Civic Development, Rome's provinces and Civic Development at
the end of each turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from bellica.engine.core import rng
from bellica.engine.rise_of_rome.attacks import AttackPlan, candidate_targets
from bellica.engine.rise_of_rome.battles import Battle, BattleResult
from bellica.engine.rise_of_rome.civic import VERDICTS, verdict
from bellica.engine.rise_of_rome.dice import Roller
from bellica.engine.rise_of_rome.model import Scenario, TurnState, provinces_of
from bellica.engine.rise_of_rome.rules import Rules, default_rules
from bellica.engine.rise_of_rome.spending import Spending
from bellica.engine.rise_of_rome.turn import RomePolicy, play_turn, start
from bellica.geo.errors import InputError

__all__ = [
    "POLICIES",
    "PLAYER_NAMESPACE",
    "Builder",
    "CampaignRunner",
    "Conqueror",
    "DEFAULT_POLICY",
    "Prudent",
    "RandomPlayer",
    "VERDICT_ORDER",
    "make_policy",
    "play_one",
    "simulation_rules",
    "weakest_neighbour",
]

#: The random player's stream namespace (never shared with the campaign's dice, "rise-of-rome").
PLAYER_NAMESPACE = "rise-of-rome-player"


class _Generated:
    """Leaves every battle result to the generator and every province to the seed's rule."""

    def province(self, state: TurnState, options: tuple[str, ...], why: str) -> str | None:
        return None

    def result(self, battle: Battle) -> BattleResult | None:
        return None


@dataclass
class Builder(_Generated):
    """Always build: no attack; all free revenue to Civic Improvement."""

    name: str = "builder"

    def attack(self, scenario: Scenario, state: TurnState, plan: AttackPlan) -> str | None:
        return None

    def spend(self, scenario: Scenario, state: TurnState, plan: AttackPlan, free: int) -> Spending:
        return Spending(0, 0, free)


def weakest_neighbour(scenario: Scenario, state: TurnState) -> str | None:
    """The Active power Rome may attack with the least revenue this turn (then fewest provinces,
    then scenario order), or None."""
    targets = candidate_targets(scenario, state, scenario.player)
    if not targets:
        return None
    order = {p: i for i, p in enumerate(scenario.nations)}
    return min(targets, key=lambda p: (state.revenue.get(p, 0), len(provinces_of(scenario, state, p)), order[p]))


@dataclass
class Conqueror(_Generated):
    """Always attack the weakest neighbour with ``attack_share`` of the free revenue; ``defence_share``
    to Defense when Rome is attacked; the rest to Civic Improvement."""

    name: str = "conqueror"
    attack_share: float = 0.5
    defence_share: float = 0.25

    def attack(self, scenario: Scenario, state: TurnState, plan: AttackPlan) -> str | None:
        return weakest_neighbour(scenario, state)

    def spend(self, scenario: Scenario, state: TurnState, plan: AttackPlan, free: int) -> Spending:
        attacking = any(a.player for a in plan.attacks)
        attack = int(free * self.attack_share) if attacking else 0
        defence = int(free * self.defence_share) if plan.attacks_on(scenario.player) else 0
        defence = min(defence, free - attack)
        return Spending(attack, defence, free - attack - defence)


@dataclass
class Prudent(_Generated):
    """Defend to the next step of the battle generator's points when attacked; attack the weakest
    neighbour with one such step only when not attacked and able to pay it; retake a lost home
    whenever offered; the rest to Civic.  Every number is the campaign's ``rules``' (default: the
    ruleset file's): the step is ``battles.generator.points_per_bonus`` (20 in the seed)."""

    name: str = "prudent"
    rules: Rules | None = field(default=None, repr=False)
    _homes: tuple[str, ...] = field(default=(), repr=False)

    @property
    def attack_points(self) -> int:
        return (self.rules or default_rules()).battles.generator.points_per_bonus

    def attack(self, scenario: Scenario, state: TurnState, plan: AttackPlan) -> str | None:
        self._homes = scenario.homes(scenario.player)
        free = state.revenue.get(scenario.player, 0) - state.civic_only.get(scenario.player, 0)
        if plan.attacks_on(scenario.player) or free < self.attack_points:
            return None
        return weakest_neighbour(scenario, state)

    def spend(self, scenario: Scenario, state: TurnState, plan: AttackPlan, free: int) -> Spending:
        attack = min(free, self.attack_points) if any(a.player for a in plan.attacks) else 0
        defence = min(free - attack, self.defence_needed(plan, scenario.player, attacking=bool(attack), rules=self.rules))
        return Spending(attack, defence, free - attack - defence)

    @staticmethod
    def defence_needed(plan: AttackPlan, player: str, *, attacking: bool, rules: Rules | None = None) -> int:
        """Defense lifting each of Rome's n defences from its base (80, +10 when Rome does not attack,
        -10 per attack beyond the first) to the next multiple of the generator's 20 points above it."""
        n = plan.attacks_on(player) if plan is not None else 0
        if not n:
            return 0
        r = rules or default_rules()
        b, step = r.battles, r.battles.generator.points_per_bonus
        base = b.base_army + (0 if attacking else b.not_attacking_bonus) - b.per_extra_attack * (n - 1)
        return n * ((base // step + 1) * step - base)

    def province(self, state: TurnState, options: tuple[str, ...], why: str) -> str | None:
        lost_homes = [p for p in options if p in self._homes]
        return lost_homes[0] if lost_homes else None


@dataclass
class RandomPlayer:
    """A random legal player, from its own stream keyed by ``seed`` (module doc)."""

    seed: int
    name: str = "random"
    _calls: int = field(default=0, repr=False)

    def _stream(self, state: TurnState, what: str):
        self._calls += 1
        return rng.stream(self.seed, PLAYER_NAMESPACE, state.turn, what, self._calls)

    def attack(self, scenario: Scenario, state: TurnState, plan: AttackPlan) -> str | None:
        options: list[str | None] = [None, *candidate_targets(scenario, state, scenario.player)]
        return self._stream(state, "attack").choice(options)

    def spend(self, scenario: Scenario, state: TurnState, plan: AttackPlan, free: int) -> Spending:
        if free <= 0:
            return Spending(0, 0, 0)
        g = self._stream(state, "spend")
        a, b = sorted((g.randint(0, free), g.randint(0, free)))
        return Spending(a, b - a, free - b)

    def province(self, state: TurnState, options: tuple[str, ...], why: str) -> str | None:
        return self._stream(state, "province").choice(sorted(options))

    def result(self, battle: Battle) -> BattleResult | None:
        return None


#: Policy name -> a maker taking the campaign seed and the campaign's rules (None: the ruleset file's).
POLICIES: dict[str, Callable[[int, Rules | None], RomePolicy]] = {
    "builder": lambda seed, rules: Builder(),
    "conqueror": lambda seed, rules: Conqueror(),
    "weakest-neighbour": lambda seed, rules: Conqueror(name="weakest-neighbour"),
    "prudent": lambda seed, rules: Prudent(rules=rules),
    "random": lambda seed, rules: RandomPlayer(seed),
}

#: The policy ``bellica simulate`` uses unless told otherwise.
DEFAULT_POLICY = "prudent"


def make_policy(name: str, seed: int, rules: Rules | None = None) -> RomePolicy:
    """The policy called ``name`` for the campaign of ``seed`` played under ``rules`` (None: the
    ruleset file's); an unknown name is one line naming the choices."""
    try:
        return POLICIES[name](seed, rules)
    except KeyError:
        raise InputError(f"no Rome policy called {name!r}: choose one of {', '.join(POLICIES)}") from None


def simulation_rules(rules: Rules | None = None) -> Rules:
    """``rules`` (default: the ruleset file's) with ``generate_player_battles`` on: simulated
    campaigns generate Rome's battles too, a departure from the seed."""
    rules = rules or default_rules()
    return replace(rules, options=replace(rules.options, generate_player_battles=True))


def play_one(seed: int, *, policy: str = DEFAULT_POLICY, rules: Rules | None = None,
             scenario: Scenario | None = None) -> dict:
    """One campaign of the seed under ``policy``, to its verdict, as plain data.

    ``provinces`` and ``civic_by_turn`` have one entry per turn from 0 (the start) to the last
    turn of the rules; after an instant loss Rome holds nothing, so its later turns count 0
    provinces and keep the final Civic Development.  Same seed, same policy, same rules: same dict.
    """
    from bellica.engine.rise_of_rome.scenario import load_scenario

    rules = rules if rules is not None else simulation_rules()
    scenario = scenario if scenario is not None else load_scenario()
    player = make_policy(policy, seed, rules)
    roller = Roller(seed)
    state, _ = start(scenario, rules, roller)
    provinces = [len(provinces_of(scenario, state, scenario.player))]
    civic = [state.civic_total]
    while state.turn < rules.game.turns and not state.defeated:
        state, _, _ = play_turn(scenario, state, rules, roller, player)
        provinces.append(len(provinces_of(scenario, state, scenario.player)))
        civic.append(state.civic_total)
    turns = state.turn
    provinces += [0] * (rules.game.turns + 1 - len(provinces))
    civic += [state.civic_total] * (rules.game.turns + 1 - len(civic))
    return {
        "policy": policy,
        "verdict": verdict(state.civic_total, rules, defeated=state.defeated),
        "civic": state.civic_total,
        "civic_spent": state.civic_spent,
        "civic_penalty": state.civic_penalty,
        "turns": turns,
        "defeated": state.defeated,
        "final_provinces": provinces[turns],
        "provinces": provinces,
        "civic_by_turn": civic,
    }


@dataclass(frozen=True)
class CampaignRunner:
    """``play_one`` bound to a policy, rules and scenario: a picklable ``seed -> dict`` for
    :func:`bellica.engine.core.simulate.simulate` (a process pool or a Dask cluster ships it)."""

    policy: str = DEFAULT_POLICY
    rules: Rules | None = None
    scenario: Scenario | None = None

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            make_policy(self.policy, 0)  # the one-line error
        if self.rules is not None and not self.rules.options.generate_player_battles:
            raise InputError("simulated campaigns generate Rome's battles: set the rules option "
                             "generate_player_battles = true (or pass rules=simulation_rules(rules))")

    def __call__(self, seed: int) -> dict:
        return play_one(seed, policy=self.policy, rules=self.rules, scenario=self.scenario)


#: The verdicts in order, best first (the summary lists every one, zero counts included).
VERDICT_ORDER = tuple(VERDICTS)
