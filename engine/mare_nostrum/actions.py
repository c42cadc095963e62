"""Treasury and actions: one action for every three treasury points, never fewer than one.

A nation's treasury is one point a province it holds, plus one a suburb and one a temple
standing in them; points are never saved.  The turn's actions then change by the nation's
random event (-1 Political Strife and Slave Revolt, +1 Administrative Reforms and Political
Leadership) and by the stability penalty (-1 at stability 3 or less).  Whether "at least one
action" survives those changes the seed does not say: option ``action_floor`` ("final": it
does; "treasury": it applies to the treasury count only).
"""

from __future__ import annotations

from dataclasses import replace

from bellica.geo.errors import InputError

from .model import Event, Scenario, TurnState, possessive, provinces_of
from .rules import Rules
from .stability import action_penalty

__all__ = ["action_count", "actions_from_treasury", "allot_actions", "spend_action", "treasury"]


def treasury(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> int:
    """Treasury points of ``nation`` now: its provinces' revenue, suburbs and temples."""
    t = rules.treasury
    points = 0
    for p in provinces_of(scenario, state, nation):
        w = state.works_of(p)
        points += scenario.provinces[p].revenue * t.per_province + w.suburbs * t.per_suburbs + w.temples * t.per_temple
    return points


def actions_from_treasury(points: int, rules: Rules) -> int:
    """One action for every ``points_per_action`` points, at least ``min_actions``."""
    return max(rules.treasury.min_actions, points // rules.treasury.points_per_action)


def action_count(points: int, event_actions: int, stability: int, rules: Rules) -> int:
    """The actions of a nation with ``points`` treasury, its event's action change and ``stability``."""
    n = actions_from_treasury(points, rules) + event_actions - action_penalty(stability, rules)
    floor = rules.treasury.min_actions if rules.options.action_floor == "final" else 0
    return max(floor, n)


def allot_actions(scenario: Scenario, state: TurnState, rules: Rules) -> tuple[TurnState, list[Event]]:
    """Every playing nation's treasury and actions for this turn (after its random event)."""
    events = []
    nations = dict(state.nations)
    for name in state.order:
        ns = nations[name]
        if not ns.playing:
            continue
        points = treasury(scenario, state, rules, name)
        ev_key = state.events.get(name)
        ev_actions = rules.event_by_key(ev_key).actions if ev_key else 0
        n = action_count(points, ev_actions, ns.stability, rules)
        nations[name] = replace(ns, treasury=points, actions=n, used=0)
        events.append(Event(state.turn, "actions", "actions", {
            "nation": name, "treasury": points, "from_treasury": actions_from_treasury(points, rules),
            "event": ev_actions, "stability_penalty": -action_penalty(ns.stability, rules), "actions": n},
            f"{name}: treasury {points}, {n} action{'s' if n != 1 else ''}"))
    return replace(state, nations=nations), events


def spend_action(state: TurnState, nation: str, what: str) -> TurnState:
    """``nation`` uses one action on ``what``: refused unless it is its turn and it has one left."""
    if state.phase != "actions":
        raise InputError(f"{nation} {what}: actions are taken only in the actions phase (now {state.phase!r})")
    if nation not in state.nations or not state.nations[nation].playing:
        raise InputError(f"{what}: {nation!r} is not a nation in the game")
    if state.acting != nation:
        raise InputError(f"{nation} {what}: the turn to act is {possessive(state.acting or 'nobody')}, not {possessive(nation)}; wait for it")
    ns = state.nations[nation]
    if ns.actions_left <= 0:
        raise InputError(f"{nation} {what}: no action left this turn ({ns.actions} used); finish the turn")
    return state.with_nation(nation, used=ns.used + 1)
