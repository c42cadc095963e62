"""External powers: Carthage and Epirus/Macedonia (phases 3 and 6).

At the end of each turn an external power not in Italy rolls 2D6 and intervenes on a
total above 12: Carthage adds 1 per full 10 revenue of the richest power this turn;
Epirus/Macedonia adds 3 per province of the Subject Inactive Power created this turn (the
largest; equal: the first created), so it comes only then.  Its 100-point army occupies
one province: Carthage's a random coastal one, Epirus/Macedonia's a random one next to
that Subject but not Rome's; the power whose home that province is pays the army and is
immune to it.  An army present attacks every turn, first (both present: a die decides
which first); its target power is chosen as the powers choose theirs, its province at
random.  It leaves when its only targets are immune (or hold the other army), when it is
defeated, and otherwise loses 10 points at the end of each turn.
"""

from __future__ import annotations

from dataclasses import replace

from bellica.engine.rise_of_rome.attacks import Attack, AttackPlan, choose_target
from bellica.engine.rise_of_rome.dice import DiceRoller, pick, roll_off
from bellica.engine.rise_of_rome.model import (Event, ExternalArmy, Scenario, TurnState, is_active, occupied,
                                              provinces_of)
from bellica.engine.rise_of_rome.rules import Rules

__all__ = ["PHASE", "external_attacks", "intervention_modifier", "end_of_turn"]

PHASE = "externals"


def external_attacks(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller
                     ) -> tuple[TurnState, AttackPlan, list[Event]]:
    """Phase 3 for the external armies: each attacks (or leaves when it has no target it may attack)."""
    t = state.turn
    present = sorted(state.externals)
    if len(present) > 1:
        first, _ = roll_off(roller, present, "external-order", t)
        present = [first] + [p for p in present if p != first]
    externals = dict(state.externals)
    attacks, events = [], []
    for name in present:
        army = externals[name]
        candidates = tuple(p for p in scenario.nations
                           if p != army.paymaster and is_active(scenario, state, p)
                           and any(x in scenario.neighbours(army.province) for x in provinces_of(scenario, state, p)))
        if not candidates:
            del externals[name]
            events.append(Event(t, PHASE, "external_removed", {"power": name, "why": "no target"},
                                f"The {name} army has no target it may attack from {army.province} and leaves Italy"))
            continue
        target, more = choose_target(scenario, replace(state, externals=externals), rules, roller, name, candidates)
        events += more
        attacks.append(Attack(name, target, external=True))
    return replace(state, externals=externals), AttackPlan(tuple(attacks)), events


def intervention_modifier(scenario: Scenario, state: TurnState, rules: Rules, power: str) -> int:
    e = rules.externals
    if power == e.carthage:
        return max(state.revenue.values(), default=0) // e.carthage_revenue_step
    if power == e.epirus and state.subjects_created:
        largest = max(n for _, n in state.subjects_created)
        return e.epirus_per_province * largest
    return 0


def _epirus_subject(state: TurnState) -> str | None:
    if not state.subjects_created:
        return None
    largest = max(n for _, n in state.subjects_created)
    return next(s for s, n in state.subjects_created if n == largest)


def end_of_turn(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller) -> tuple[TurnState, list[Event]]:
    """Phase 6: armies already here lose 10 points (and leave at 0); the absent powers roll to intervene."""
    e = rules.externals
    t = state.turn
    externals = dict(state.externals)
    events: list[Event] = []
    for name, army in sorted(state.externals.items()):
        if army.arrived >= t:
            continue
        points = army.points - e.decay
        if points <= 0:
            del externals[name]
            events.append(Event(t, PHASE, "external_removed", {"power": name, "why": "worn out"},
                                f"The {name} army is worn out and leaves Italy"))
        else:
            externals[name] = replace(army, points=points)
            events.append(Event(t, PHASE, "external_decays", {"power": name, "points": points},
                                f"The {name} army falls to {points} points"))
    state = replace(state, externals=externals)
    for name in scenario.externals:
        if name in state.externals:
            continue
        r = roller.roll(e.dice, e.die, "intervention", t, name)
        mod = intervention_modifier(scenario, state, rules, name)
        total = r.total + mod
        if total <= e.above:
            events.append(Event(t, PHASE, "no_intervention", {"power": name, "dice": list(r.dice), "modifier": mod},
                                f"{name}: {r.total} {mod:+d} = {total}, not above {e.above}: no intervention"))
            continue
        occ = occupied(state)
        paymaster = None
        if name == e.epirus:
            subject = _epirus_subject(state)
            homes = set(scenario.homes(subject)) if subject else set()
            near = set().union(*(scenario.neighbours(h) for h in homes)) if homes else set()
            options = [p for p in scenario.provinces if p in near and p not in homes and p not in occ
                       and state.control.get(p) != scenario.player]
        else:
            options = [p for p in scenario.provinces if scenario.provinces[p].coastal and p not in occ]
        if not options:
            events.append(Event(t, PHASE, "no_intervention", {"power": name, "dice": list(r.dice), "modifier": mod},
                                f"{name}: {total}, but no province can receive its army"))
            continue
        province, _ = pick(roller, options, "landing", t, name)
        if name == e.epirus:
            paymaster = scenario.provinces[province].home_of
        externals = dict(state.externals)
        externals[name] = ExternalArmy(name, province, e.army, t, paymaster)
        state = replace(state, externals=externals)
        events.append(Event(t, PHASE, "intervention",
                            {"power": name, "dice": list(r.dice), "modifier": mod, "province": province,
                             "paymaster": paymaster, "points": e.army},
                            f"{name}: {r.total} {mod:+d} = {total}: a {e.army}-point army lands in {province}"
                            + (f", paid by {paymaster} (immune to it)" if paymaster else "")))
    return state, events
