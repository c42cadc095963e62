"""Phase 1: every Active power collects its revenue.

A power's revenue is the revenue of the provinces it controls (the scenario's
per-province numbers), plus what each of its Subject Inactive Powers yields (5, 10 or
20 by its number of provinces; a one-province Subject's yield may only go to Civic
Improvement), plus 10 for two provinces with the same resource or 20 for all of them
(a monopoly), less 5 for each of its home provinces it does not control, never below 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bellica.engine.rise_of_rome.model import (Event, Scenario, TurnState, is_active, provinces_of, subjects_of)
from bellica.engine.rise_of_rome.rules import Rules

__all__ = ["PHASE", "Revenue", "collect_revenue", "power_revenue"]

PHASE = "revenue"


@dataclass(frozen=True)
class Revenue:
    """One power's revenue, part by part.  ``total`` includes ``civic_only``."""

    power: str
    provinces: int
    subjects: int
    resources: int
    penalty: int
    total: int
    civic_only: int

    @property
    def free(self) -> int:
        """What may be spent on Attack, Defense or Civic Improvement."""
        return self.total - self.civic_only

    def text(self) -> str:
        parts = [f"provinces {self.provinces}"]
        if self.subjects:
            parts.append(f"subjects {self.subjects}")
        if self.resources:
            parts.append(f"resources {self.resources}")
        if self.penalty:
            parts.append(f"home provinces lost -{self.penalty}")
        s = f"{self.power} collect {self.total} ({', '.join(parts)})"
        if self.civic_only:
            s += f"; {self.civic_only} of it only for Civic Improvement"
        return s


def power_revenue(scenario: Scenario, state: TurnState, rules: Rules, power: str) -> Revenue:
    """What ``power`` would collect from ``state`` (0 for an Inactive power)."""
    if not is_active(scenario, state, power):
        return Revenue(power, 0, 0, 0, 0, 0, 0)
    r = rules.revenue
    held = provinces_of(scenario, state, power)
    subjects = subjects_of(scenario, state, power)
    subject_homes = {h for s in subjects for h in scenario.homes(s)}
    counted = [p for p in held if not (rules.options.subject_yield == "replaces" and p in subject_homes)]
    from_provinces = sum(scenario.provinces[p].revenue for p in counted)
    free_subjects = civic_subjects = 0
    for s in subjects:
        n = len(scenario.homes(s))
        if n <= r.civic_only_max_provinces:
            civic_subjects += r.yield_of(n)
        else:
            free_subjects += r.yield_of(n)
    totals = scenario.resource_counts()
    mine: dict[str, int] = {}
    for p in held:
        res = scenario.provinces[p].resource
        if res:
            mine[res] = mine.get(res, 0) + 1
    from_resources = 0
    for res, n in mine.items():
        if n >= totals[res] and n >= 2:
            from_resources += r.resource_monopoly
        elif n >= 2:
            from_resources += r.resource_pair
    missing = sum(1 for h in scenario.homes(power) if h not in held)
    penalty = missing * r.missing_home_penalty
    gross_free = from_provinces + free_subjects + from_resources
    free = max(r.floor, gross_free - penalty)
    left_penalty = max(0, penalty - gross_free)
    civic_only = max(0, civic_subjects - left_penalty)
    return Revenue(power, from_provinces, free_subjects + civic_subjects, from_resources, penalty,
                   free + civic_only, civic_only)


def collect_revenue(scenario: Scenario, state: TurnState, rules: Rules) -> tuple[TurnState, list[Event]]:
    """Phase 1: every Active power's revenue, kept in ``state.revenue`` for the turn."""
    revenue, civic, events = {}, {}, []
    for power in scenario.nations:
        if not is_active(scenario, state, power):
            continue
        rev = power_revenue(scenario, state, rules, power)
        revenue[power], civic[power] = rev.total, rev.civic_only
        events.append(Event(state.turn, PHASE, "revenue",
                            {"power": power, "provinces": rev.provinces, "subjects": rev.subjects,
                             "resources": rev.resources, "penalty": rev.penalty, "total": rev.total,
                             "civic_only": rev.civic_only}, rev.text()))
    return replace(state, revenue=revenue, civic_only=civic), events
