"""Phase 4: every Active power spends its revenue on Attack, Defense and Civic Improvement.

The engine's powers split their revenue in proportion to their ruler's Aggressor,
Protector and Builder ratings (Attack and Defense rounded down, the rest to Civic
Improvement).  A power that is not attacking moves its Attack money to Defense; one
that is not attacked (its Subjects included) moves its Defense money to Attack.  The
player (Rome) gives its own split; only Rome's Civic Improvement counts, and a
one-province Subject's yield always goes there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bellica.engine.rise_of_rome.attacks import AttackPlan
from bellica.engine.rise_of_rome.model import Event, Ruler, Scenario, TurnState, is_active
from bellica.engine.rise_of_rome.rules import Rules
from bellica.geo.errors import InputError

__all__ = ["PHASE", "Spending", "divert", "spend", "split_by_ruler"]

PHASE = "spending"


@dataclass(frozen=True)
class Spending:
    attack: int = 0
    defence: int = 0
    civic: int = 0

    @property
    def total(self) -> int:
        return self.attack + self.defence + self.civic


def split_by_ruler(revenue: int, ruler: Ruler) -> Spending:
    """``revenue`` in proportion to the ruler's ratings: Attack and Defense rounded down, the rest Civic."""
    weights = ruler.ratings
    total = sum(weights)
    if total <= 0 or revenue <= 0:
        return Spending(0, 0, max(revenue, 0))
    attack = revenue * weights[0] // total
    defence = revenue * weights[1] // total
    return Spending(attack, defence, revenue - attack - defence)


def divert(s: Spending, attacking: bool, attacked: bool) -> Spending:
    """The seed's diversions: no attack -> Attack money to Defense; not attacked -> Defense to Attack
    (neither: everything stays in Defense, where it is never used)."""
    if not attacking:
        return Spending(0, s.attack + s.defence, s.civic)
    if not attacked:
        return Spending(s.attack + s.defence, 0, s.civic)
    return s


def _diverted(power: str, given: Spending, s: Spending, attacking: bool) -> str:
    """Why the player's money is not where it was given (issue 22: the player reads why), or ""."""
    if given.attack and not attacking:
        return f" ({power} do not attack this turn: the {given.attack} given to Attack go to Defense, as the seed says)"
    if given.defence and s.defence == 0 and attacking:
        return (f" (nobody attacks {power} this turn: the {given.defence} given to Defense go to Attack, as the seed "
                "says)")
    return ""


def spend(scenario: Scenario, state: TurnState, rules: Rules, plan: AttackPlan,
          player: Spending | None = None) -> tuple[TurnState, dict[str, Spending], list[Event]]:
    """Phase 4: every Active power's spending; Rome's Civic Improvement is added to its total."""
    attackers = plan.attackers()
    events: list[Event] = []
    out: dict[str, Spending] = {}
    civic_spent = state.civic_spent
    for power in scenario.nations:
        if not is_active(scenario, state, power):
            continue
        total = state.revenue.get(power, 0)
        civic_only = state.civic_only.get(power, 0)
        free = total - civic_only
        attacked = plan.attacks_on(power) > 0
        if power == scenario.player:
            given = player if player is not None else Spending(0, 0, free)
            if min(given.attack, given.defence, given.civic) < 0 or given.total != free:
                raise InputError(f"{power}' spending {given.attack} Attack + {given.defence} Defense + {given.civic} Civic "
                                 f"= {given.total}: it must use exactly the {free} revenue that may be spent freely")
            s = divert(given, power in attackers, attacked)
            why = _diverted(power, given, s, power in attackers)
            s = replace(s, civic=s.civic + civic_only)
            civic_spent += s.civic
        else:
            why = ""
            s = divert(split_by_ruler(free, state.rulers[power]), power in attackers, attacked)
            s = replace(s, civic=s.civic + civic_only)
        out[power] = s
        events.append(Event(state.turn, PHASE, "spending",
                            {"power": power, "attack": s.attack, "defence": s.defence, "civic": s.civic},
                            f"{power} spend {s.attack} on Attack, {s.defence} on Defense, {s.civic} on Civic Improvement"
                            + why))
    return replace(state, civic_spent=civic_spent), out, events
