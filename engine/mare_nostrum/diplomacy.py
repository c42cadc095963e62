"""Diplomatic and political actions: peace treaties, alliances with invaders, grain.

A peace treaty may be imposed only on a nation after the player in the order of play; on a
number of 46-90 that nation may not attack the player this turn (by land, by sea or with
allied invaders).  An alliance with the invaders of an enemy's province (the seed's
invasion list) succeeds on 31-90 and declares a land battle in which the player plays the
invaders' army; the province, if won, is the player's.  Grain distribution adds two
stability levels (never above the maximum).  Each costs one action, success or not.
"""

from __future__ import annotations

from dataclasses import replace

from bellica.geo.errors import InputError

from .actions import spend_action
from .battles import target_problems
from .lottery import Lottery
from .model import Attack, Event, Scenario, TurnState
from .rules import Rules
from .stability import change_stability

__all__ = ["ally_with_invaders", "distribute_grain", "impose_peace", "peace_succeeds", "alliance_succeeds"]


def peace_succeeds(number: int, rules: Rules) -> bool:
    return rules.diplomacy.peace_min <= number <= rules.diplomacy.peace_max


def alliance_succeeds(number: int, rules: Rules) -> bool:
    return rules.diplomacy.alliance_min <= number <= rules.diplomacy.alliance_max


def impose_peace(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery, nation: str,
                 target: str) -> tuple[TurnState, list[Event]]:
    """``nation`` tries to impose peace on ``target`` (a nation after it in the order)."""
    if target not in state.nations or not state.nations[target].playing or target == nation:
        raise InputError(f"{nation} peace with {target!r}: name another nation in the game")
    if nation in state.order and target in state.order and state.order.index(target) < state.order.index(nation):
        raise InputError(f"{nation} peace with {target}: {target} plays before {nation} this turn; "
                         "peace may be imposed only on a nation after it")
    state = spend_action(state, nation, f"peace with {target}")
    d = lottery.number("peace", state.turn, nation, target)
    ok = peace_succeeds(d.value, rules)
    if ok:
        state = replace(state, peace=state.peace | {(nation, target)})
    return state, [Event(state.turn, "actions", "peace", {"nation": nation, "target": target, "number": d.value,
                                                          "succeeded": ok},
                         f"{nation} {'imposes' if ok else 'fails to impose'} peace on {target} ({d.value})")]


def ally_with_invaders(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery, nation: str,
                       province: str) -> tuple[TurnState, list[Event]]:
    """``nation`` tries to ally with the invaders of ``province`` (an enemy's) to attack it."""
    inv = scenario.invader_at(province)
    if inv is None:
        names = ", ".join(i.province for i in scenario.invaders)
        raise InputError(f"{nation} alliance against {province}: no invaders threaten it; use one of {names}")
    holder = state.control.get(province)
    if holder is None or holder == nation:
        raise InputError(f"{nation} alliance against {province}: it is not held by an enemy nation")
    problems = target_problems(scenario, state, rules, nation, province)
    if problems:
        raise InputError(f"{nation} alliance against {province}: {problems[0]}")
    state = spend_action(state, nation, f"alliance against {province}")
    d = lottery.number("alliance", state.turn, nation, province)
    ok = alliance_succeeds(d.value, rules)
    events = [Event(state.turn, "actions", "alliance", {"nation": nation, "province": province, "army": inv.army,
                                                        "number": d.value, "succeeded": ok},
                    f"{nation} {'allies with' if ok else 'fails to win over'} the {inv.army} against {province} ({d.value})")]
    if ok:
        a = Attack(seq=len(state.attacks) + 1, kind="alliance", attacker=nation, target=province, defender=holder,
                   army=inv.army, managed_by=nation)
        state = replace(state, attacks=state.attacks + (a,))
    return state, events


def distribute_grain(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> tuple[TurnState, list[Event]]:
    """``nation`` distributes grain: +2 stability (one action)."""
    state = spend_action(state, nation, "grain distribution")
    return change_stability(scenario, state, rules, nation, rules.diplomacy.grain_stability, "Grain Distribution",
                            phase="actions")
