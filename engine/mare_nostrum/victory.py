"""Victory: 25 provinces at once; after the last turn the most provinces, then richness.

Richness (the tie-break) counts 2 for each temple and 1 for each suburb, fleet,
fortification and stability level of the nation.  If the leaders still tie after the last
turn, another turn is played, and so on until one leads.  A nation left alone in the game
has won as well (the seed does not say so; nobody is left to play).
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Scenario, TurnState, provinces_of
from .rules import Rules

__all__ = ["Standing", "Verdict", "richness", "standings", "verdict"]


@dataclass(frozen=True)
class Standing:
    nation: str
    provinces: int
    richness: int


@dataclass(frozen=True)
class Verdict:
    """``winner`` None: the game goes on (``reason`` says why)."""

    winner: str | None
    reason: str
    standings: tuple[Standing, ...]
    another_turn: bool = False


def richness(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> int:
    """2 a temple; 1 a suburb, a fleet, a fortification and a stability level."""
    v = rules.victory
    points = 0
    for p in provinces_of(scenario, state, nation):
        w = state.works_of(p)
        points += w.temples * v.temple_points + w.suburbs * v.suburbs_points + w.fortifications * v.fortification_points
    points += sum(1 for f in state.fleets if f.owner == nation) * v.fleet_points
    points += state.nations[nation].stability * v.stability_points
    return points


def standings(scenario: Scenario, state: TurnState, rules: Rules) -> tuple[Standing, ...]:
    """The nations still playing, best first (provinces, then richness, then name)."""
    rows = [Standing(n, len(provinces_of(scenario, state, n)), richness(scenario, state, rules, n))
            for n in state.playing()]
    return tuple(sorted(rows, key=lambda s: (-s.provinces, -s.richness, s.nation)))


def verdict(scenario: Scenario, state: TurnState, rules: Rules) -> Verdict:
    """Who has won once ``state.turn`` is over (None while the campaign goes on)."""
    table = standings(scenario, state, rules)
    if not table:
        return Verdict(None, "no nation is left in the game", table)
    if len(table) == 1:
        return Verdict(table[0].nation, "the last nation in the game", table)
    need = rules.victory.provinces
    over = [s for s in table if s.provinces >= need]
    if len(over) == 1:
        return Verdict(over[0].nation, f"holds {over[0].provinces} provinces (>= {need})", table)
    if len(over) > 1:  # cannot happen with 38 provinces and 25 needed, but a designer may lower it
        table = tuple(over)
    elif state.turn < rules.game.turns:
        return Verdict(None, f"turn {state.turn} of {rules.game.turns}", table)
    first, second = table[0], table[1]
    if first.provinces > second.provinces:
        return Verdict(first.nation, f"most provinces ({first.provinces}) after turn {state.turn}", table)
    if first.richness > second.richness:
        return Verdict(first.nation, f"{first.provinces} provinces like {second.nation}, greater richness "
                                     f"({first.richness} to {second.richness})", table)
    return Verdict(None, f"{first.nation} and {second.nation} tie on {first.provinces} provinces and richness "
                         f"{first.richness}: another turn is played", table, another_turn=True)
