"""Named players for Mare Nostrum's nations, and one whole game as a row of numbers (``bellica simulate``).

Every nation of Mare Nostrum is a player; a simulation has a named *policy* play each of
them (the same policy for all six, or one per nation).  A policy chooses the nation's next
action from the legal ones (:func:`legal_actions`, every one checked by the rules' own
functions), or None to finish its actions.  Policies never use the optional event choices
(Earthquake, Great Blaze, Defensive Artworks), naval attacks nor amphibious attacks.

``builder``
    Never attacks.  With each action it builds, in this order of preference: a fortification
    where none stands, then suburbs, then a temple (over suburbs standing); within a kind, the
    province first in the scenario's order.  Fleets never.
``aggressor``
    With each action: a land attack on the weakest province it may attack (an independent
    province before a nation's, then the holder with the fewest provinces, then the fewest
    fortifications, then the scenario's order); when there is none, it builds like ``builder``.
``diplomat``
    ``aggressor`` with diplomacy where it pays: grain when its stability is one step above
    the action penalty or lower (and below the maximum); one peace a turn, while it has two
    actions to spare after it, on the nation after it in the order of play with most provinces
    among those that can reach one of its provinces by land; then a land attack as
    ``aggressor``; with none open, a fortification where none stands (as ``builder``), then an
    alliance with the invaders threatening an enemy's province (the holder with fewest provinces
    first, one try per province a turn), an attack that costs no army of its own; then builds as
    ``builder``.
``random``
    Each action: one of its legal actions (builds, fleets included, land attacks, peace,
    alliances with invaders and grain) or finishing, all equally likely, drawn from a stream
    of its own (namespace ``mare-nostrum-player``, keyed by the game's seed, the turn, the
    nation and the action's number), never from the game's lottery.

A policy never sees a lottery number before it acts: peace and alliances are tried and may
fail, and their numbers come from the game's lottery like a player's.

**Departure from the seed**: the seed has every land battle fought in Field of Glory and its
result entered.  A simulation has nobody at the table, so :func:`play_one` decides each
declared battle (invasions and allied attacks included) by a seeded die instead: a d6 from
``rng.stream(seed, "mare-nostrum-battle", turn, target)``, the attacker winning on 4-6 (an
even chance).  Sieges, naval battles, events and everything else keep the rules' lottery
(:func:`bellica.engine.mare_nostrum.lottery.lottery_for` with the game's seed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from bellica.engine.core import rng
from bellica.geo.errors import InputError

from . import battles, building, diplomacy
from .lottery import lottery_for
from .model import Scenario, TurnState, provinces_of
from .rules import Rules, default_rules
from .scenario import default_scenario
from .turn import begin_turn, end_turn, finish_actions, new_game

__all__ = ["BATTLE_NAMESPACE", "DEFAULT_POLICY", "DEPARTURE", "PLAYER_NAMESPACE", "POLICIES", "Action",
           "GameRunner", "battle_die", "diplomatic_actions", "legal_actions", "make_policy", "play_one",
           "policy_label", "resolve_policies"]

#: The random player's stream namespace (never the lottery's).
PLAYER_NAMESPACE = "mare-nostrum-player"
#: The battle die's stream namespace.
BATTLE_NAMESPACE = "mare-nostrum-battle"
#: The policy ``bellica simulate mare-nostrum`` uses when none is named.
DEFAULT_POLICY = "builder"
#: What every simulated game does differently from the seed.
DEPARTURE = ("every land battle is decided by a seeded die (d6, the attacker wins on 4-6), not fought in Field of "
             "Glory as the seed has it")
#: The most turns played past the last one while the leaders stay tied (then no winner).
EXTRA_TURNS_CAP = 10

#: An action: ("build", work, province, sea), ("attack", base, target), ("peace", nation),
#: ("ally", province) or ("grain",).
Action = tuple


def _build_options(scenario: Scenario, state: TurnState, rules: Rules, nation: str, *, fleets: bool) -> list[Action]:
    """Every build ``nation`` may order now (checked by :func:`building.build` itself)."""
    out = []
    works = ("fortification", "suburbs", "temple") + (("fleet",) if fleets else ())
    for p in provinces_of(scenario, state, nation):
        for work in works:
            seas = scenario.provinces[p].seas if work == "fleet" else ("",)
            for sea in seas:
                try:
                    building.build(scenario, state, rules, nation, work, p, sea)
                except InputError:
                    continue
                out.append(("build", work, p, sea))
    return out


def _peace_options(scenario: Scenario, state: TurnState, nation: str) -> list[Action]:
    """Peace on each nation still playing after ``nation`` in the order, not already bound to it
    this turn (:func:`diplomacy.impose_peace`'s conditions)."""
    if nation not in state.order:
        return []
    later = state.order[state.order.index(nation) + 1:]
    return [("peace", t) for t in later if t in state.nations and state.nations[t].playing
            and (nation, t) not in state.peace]


def _alliance_options(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> list[Action]:
    """An alliance against each province the scenario's invaders threaten that an enemy nation
    holds and ``nation`` may attack now (:func:`diplomacy.ally_with_invaders`' conditions)."""
    out = []
    for inv in scenario.invaders:
        holder = state.control.get(inv.province)
        if holder is None or holder == nation or ("ally", inv.province) in out:
            continue
        if not battles.target_problems(scenario, state, rules, nation, inv.province):
            out.append(("ally", inv.province))
    return out


def diplomatic_actions(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> list[Action]:
    """Every peace, alliance with invaders and (below the maximum stability) grain distribution
    ``nation`` may try now (none once its actions are spent)."""
    if state.acting != nation or state.nations[nation].actions_left <= 0:
        return []
    grain = [("grain",)] if state.nations[nation].stability < rules.stability.maximum else []
    return _peace_options(scenario, state, nation) + _alliance_options(scenario, state, rules, nation) + grain


def legal_actions(scenario: Scenario, state: TurnState, rules: Rules, nation: str, *, fleets: bool = True,
                  diplomacy: bool = True) -> list[Action]:
    """Every build, land attack and (``diplomacy``) diplomatic action ``nation`` may take now
    (none once its actions are spent)."""
    if state.acting != nation or state.nations[nation].actions_left <= 0:
        return []
    attacks = [("attack", b, t) for b, t in battles.land_targets(scenario, state, rules, nation)]
    talks = diplomatic_actions(scenario, state, rules, nation) if diplomacy else []
    return _build_options(scenario, state, rules, nation, fleets=fleets) + attacks + talks


_WORK_RANK = {"fortification": 0, "suburbs": 1, "temple": 2, "fleet": 3}


def _builder_choice(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> Action | None:
    options = _build_options(scenario, state, rules, nation, fleets=False)
    if not options:
        return None
    order = {p: i for i, p in enumerate(scenario.provinces)}
    return min(options, key=lambda a: (_WORK_RANK[a[1]], order[a[2]]))


def _weakest_attack(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> Action | None:
    targets = battles.land_targets(scenario, state, rules, nation)
    if not targets:
        return None
    order = {p: i for i, p in enumerate(scenario.provinces)}

    def key(bt):
        base, target = bt
        holder = state.control.get(target)
        size = len(provinces_of(scenario, state, holder)) if holder is not None else 0
        return (holder is not None, size, state.works_of(target).fortifications, order[target], order[base])

    base, target = min(targets, key=key)
    return ("attack", base, target)


@dataclass
class Builder:
    name: str = "builder"

    def choose(self, scenario: Scenario, state: TurnState, rules: Rules, nation: str, k: int) -> Action | None:
        return _builder_choice(scenario, state, rules, nation)


@dataclass
class Aggressor:
    name: str = "aggressor"

    def choose(self, scenario: Scenario, state: TurnState, rules: Rules, nation: str, k: int) -> Action | None:
        return _weakest_attack(scenario, state, rules, nation) or _builder_choice(scenario, state, rules, nation)


def _threat(scenario: Scenario, state: TurnState, rules: Rules, other: str, nation: str) -> bool:
    """Can ``other`` reach one of ``nation``'s provinces by land from one of its own?"""
    mine = [p for p, h in state.control.items() if h == nation]
    return any(state.control.get(b) == other and battles.reaches(scenario, rules, b, t)
               for t in mine for b in scenario.provinces if b != t)


@dataclass
class Diplomat:
    """``aggressor`` with diplomacy where it pays (module doc).  It remembers what it has tried
    this turn, so a failed peace or alliance is not tried again until the next turn."""

    name: str = "diplomat"
    tried: set = field(default_factory=set)

    def choose(self, scenario: Scenario, state: TurnState, rules: Rules, nation: str, k: int) -> Action | None:
        talks = diplomatic_actions(scenario, state, rules, nation)
        ns = state.nations[nation]
        if ("grain",) in talks and ns.stability <= rules.stability.penalty_at + 1:
            return ("grain",)
        size = {n: len(provinces_of(scenario, state, n)) for n in state.nations}
        # one peace a turn, and only with two actions to spare for attacks or builds after it
        if ns.actions_left >= 3 and (state.turn, nation, "peace") not in self.tried:
            threats = [a for a in talks if a[0] == "peace" and _threat(scenario, state, rules, a[1], nation)]
            if threats:
                pick = max(threats, key=lambda a: (size[a[1]], -state.order.index(a[1])))
                self.tried.add((state.turn, nation, "peace"))
                return pick
        attack = _weakest_attack(scenario, state, rules, nation)
        if attack is not None:
            return attack
        build = _builder_choice(scenario, state, rules, nation)
        if build is not None and build[1] == "fortification":  # its walls before far-off allies
            return build
        order = {p: i for i, p in enumerate(scenario.provinces)}
        allies = [a for a in talks if a[0] == "ally" and (state.turn, nation, a) not in self.tried]
        if allies:
            pick = min(allies, key=lambda a: (size[state.control[a[1]]], order[a[1]]))
            self.tried.add((state.turn, nation, pick))
            return pick
        return _builder_choice(scenario, state, rules, nation)


@dataclass
class RandomPlayer:
    seed: int
    name: str = "random"

    def choose(self, scenario: Scenario, state: TurnState, rules: Rules, nation: str, k: int) -> Action | None:
        options: list[Action | None] = legal_actions(scenario, state, rules, nation)
        if not options:
            return None
        options.append(None)  # finishing is always a choice
        return rng.stream(self.seed, PLAYER_NAMESPACE, state.turn, nation, k).choice(options)


#: Policy name -> a maker taking the game's seed.
POLICIES: dict[str, Callable[[int], object]] = {
    "builder": lambda seed: Builder(),
    "aggressor": lambda seed: Aggressor(),
    "diplomat": lambda seed: Diplomat(),
    "random": lambda seed: RandomPlayer(seed),
}


def make_policy(name: str, seed: int):
    """The policy called ``name`` for a game with ``seed``; an unknown name: one line naming the choices."""
    try:
        return POLICIES[name](seed)
    except KeyError:
        raise InputError(f"no Mare Nostrum policy called {name!r}: choose one of {', '.join(POLICIES)}") from None


def battle_die(seed: int, turn: int, target: str) -> int:
    """The d6 deciding the battle for ``target`` in ``turn`` (the departure, module doc)."""
    return rng.stream(seed, BATTLE_NAMESPACE, turn, target).randint(1, 6)


def resolve_policies(policy: str | Mapping[str, str], nations, default: str = DEFAULT_POLICY) -> dict[str, str]:
    """nation -> policy name for every one of ``nations``: ``policy`` names one for all, or maps
    nations (any case) to names, the others playing ``default``.  An unknown nation or policy:
    one line naming the choices."""
    nations = list(nations)
    if isinstance(policy, str):
        make_policy(policy, 0)
        return {n: policy for n in nations}
    by_lower = {n.casefold(): n for n in nations}
    make_policy(default, 0)
    out = {n: default for n in nations}
    for given, name in dict(policy).items():
        nation = by_lower.get(str(given).strip().casefold())
        if nation is None:
            raise InputError(f"no nation called {given!r} in Mare Nostrum: choose one of {', '.join(nations)}")
        make_policy(name, 0)
        out[nation] = name
    return out


def policy_label(names: Mapping[str, str]) -> str:
    """One policy's name when every nation plays it, else ``Nation=policy,...`` in the scenario's order."""
    distinct = set(names.values())
    if len(distinct) == 1:
        return next(iter(distinct))
    return ",".join(f"{n}={p}" for n, p in names.items())


def _apply(scenario: Scenario, state: TurnState, rules: Rules, nation: str, action: Action,
           lottery=None) -> TurnState:
    if action[0] == "build":
        _, work, province, sea = action
        state, _ = building.build(scenario, state, rules, nation, work, province, sea)
    elif action[0] == "attack":
        _, base, target = action
        state, _ = battles.land_attack(scenario, state, rules, nation, base, target)
    elif action[0] == "peace":
        state, _ = diplomacy.impose_peace(scenario, state, rules, lottery, nation, action[1])
    elif action[0] == "ally":
        state, _ = diplomacy.ally_with_invaders(scenario, state, rules, lottery, nation, action[1])
    elif action[0] == "grain":
        state, _ = diplomacy.distribute_grain(scenario, state, rules, nation)
    else:
        raise ValueError(f"unknown action {action!r}")
    return state


def play_one(seed: int, *, policy: str | Mapping[str, str] = DEFAULT_POLICY, rules: Rules | None = None,
             scenario: Scenario | None = None) -> dict:
    """A whole game from ``seed``: every nation played by ``policy`` (a name, or nation -> name, the
    nations not named playing :data:`DEFAULT_POLICY`; :func:`resolve_policies`),
    battles by :func:`battle_die`.  Plays the rules' turns (and the extra turns a tie calls for,
    at most :data:`EXTRA_TURNS_CAP`) or until a nation wins.

    Returns ``winner`` (a nation, or "none"), ``reason``, ``turns`` (played), ``policy``,
    ``final_<nation>`` (provinces held at the end) and ``provinces_<nation>`` (provinces held at
    the start and after each of the rules' turns; a game won early repeats its last count)."""
    rules = rules or default_rules()
    scenario = scenario or default_scenario()
    nations = list(scenario.nations)
    names = resolve_policies(policy, nations)
    players = {n: make_policy(names[n], seed) for n in nations}
    lottery = lottery_for(rules, seed)
    state = new_game(scenario, rules)

    def counts(st: TurnState) -> dict[str, int]:
        return {n: len(provinces_of(scenario, st, n)) for n in nations}

    series = {n: [c] for n, c in counts(state).items()}
    winner, reason = None, ""
    limit = rules.game.turns + EXTRA_TURNS_CAP
    while state.turn < limit:
        state, _ = begin_turn(scenario, state, rules, lottery)
        while state.phase == "actions":
            nation = state.acting
            k = 0
            while state.nations[nation].actions_left > 0:
                action = players[nation].choose(scenario, state, rules, nation, k)
                if action is None:
                    break
                state = _apply(scenario, state, rules, nation, action, lottery)
                k += 1
            state, _ = finish_actions(scenario, state, rules, nation)
        results = {a.target: "attacker" if battle_die(seed, state.turn, a.target) >= 4 else "defender"
                   for a in state.attacks}
        state, verdict, _ = end_turn(scenario, state, rules, lottery, results)
        if state.turn <= rules.game.turns:
            for n, c in counts(state).items():
                series[n].append(c)
        winner, reason = verdict.winner, verdict.reason
        if winner is not None or (state.turn >= rules.game.turns and not verdict.another_turn):
            break
    for n in nations:
        series[n] += [series[n][-1]] * (rules.game.turns + 1 - len(series[n]))
    final = counts(state)
    label = policy if isinstance(policy, str) else ",".join(f"{n}={names[n]}" for n in nations)
    return {"policy": label, "winner": winner or "none", "reason": reason, "turns": state.turn,
            **{f"final_{n}": final[n] for n in nations}, **{f"provinces_{n}": series[n] for n in nations}}


@dataclass(frozen=True)
class GameRunner:
    """A picklable ``seed -> row``: :func:`play_one` with a policy and rules fixed (what
    :func:`bellica.engine.core.simulate.simulate` maps over the seeds)."""

    policy: str | tuple[tuple[str, str], ...]
    """One policy's name for every nation, or (nation, policy) pairs."""
    rules: Rules | None = None
    scenario: Scenario | None = field(default=None)

    def __call__(self, seed: int) -> dict:
        policy = self.policy if isinstance(self.policy, str) else dict(self.policy)
        return play_one(seed, policy=policy, rules=self.rules, scenario=self.scenario)
