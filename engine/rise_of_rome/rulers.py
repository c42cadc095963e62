"""Phase 2: rulers die or ruling castes are replaced; a new ruler's three ratings.

A power's new ruler rolls 3D10 (Aggressor, Protector, Builder), applies the power's
modifiers, lifts any characteristic below 0 to 0 taking the same amount from the
highest (:func:`rebalance`), then turns the three into ratings in percent rounded to the
nearest 10 (:func:`ratings`): by default each characteristic's share of the three
(rules option ``rating_scale = "share"``), or the characteristic x 10 ("tenfold").
"""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal

from bellica.engine.rise_of_rome.dice import DiceRoller
from bellica.engine.rise_of_rome.model import Event, Ruler, Scenario, TurnState, is_active
from bellica.engine.rise_of_rome.rules import ASPECTS, Rules

__all__ = ["PHASE", "change_rulers", "new_ruler", "modify", "ratings", "rebalance", "start_rulers"]

PHASE = "rulers"


def modify(rolled: tuple[int, int, int], modifiers: tuple[int, int, int]) -> tuple[int, int, int]:
    return tuple(a + b for a, b in zip(rolled, modifiers))  # type: ignore[return-value]


def rebalance(values: tuple[int, ...]) -> tuple[int, ...]:
    """Each characteristic below 0 is raised to 0 and the highest lowered by as much (the
    highest at the time of each lift; equal highest: the first in Aggressor, Protector,
    Builder order).  The sum never changes."""
    out = list(values)
    for i in range(len(out)):
        if out[i] < 0:
            deficit = -out[i]
            out[i] = 0
            top = max(range(len(out)), key=lambda j: (out[j], -j))
            out[top] -= deficit
    return tuple(out)


def _round_to(value: Decimal, step: int) -> int:
    return int((value / step).quantize(Decimal(1), rounding=ROUND_HALF_UP)) * step


def ratings(characteristics: tuple[int, int, int], rules: Rules) -> tuple[int, int, int]:
    """The three ratings in percent, rounded half up to the nearest ``percent_step``."""
    step = rules.rulers.percent_step
    if rules.options.rating_scale == "tenfold":
        return tuple(_round_to(Decimal(c * 10), step) for c in characteristics)  # type: ignore[return-value]
    total = sum(characteristics)
    if total <= 0:
        return (0, 0, 0)
    return tuple(_round_to(Decimal(100 * c) / Decimal(total), step) for c in characteristics)  # type: ignore[return-value]


def new_ruler(power: str, rolled: tuple[int, int, int], rules: Rules, turn: int) -> Ruler:
    chars = rebalance(modify(rolled, rules.rulers.modifiers_of(power)))
    a, p, b = ratings(chars, rules)  # type: ignore[arg-type]
    return Ruler(a, p, b, since=turn, rolled=tuple(rolled), characteristics=tuple(chars))


def _ruler_event(state: TurnState, power: str, ruler: Ruler, kind: str, why: str) -> Event:
    return Event(state.turn, PHASE, kind,
                 {"power": power, "rolled": list(ruler.rolled), "characteristics": list(ruler.characteristics),
                  "aggressor": ruler.aggressor, "protector": ruler.protector, "builder": ruler.builder},
                 f"{power}: {why}; 3D10 {list(ruler.rolled)} -> {list(ruler.characteristics)} -> "
                 f"Aggressor {ruler.aggressor}, Protector {ruler.protector}, Builder {ruler.builder}")


def start_rulers(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller) -> tuple[TurnState, list[Event]]:
    """The rulers at the start (turn 0): rolled, or the scenario's given 3D10 (option ``start_rulers``)."""
    rulers = dict(state.rulers)
    events = []
    die = rules.rulers.characteristic_die
    for power in scenario.nations:
        if power == scenario.player:
            continue
        if rules.options.start_rulers == "given" and power in scenario.given_rulers:
            rolled = tuple(scenario.given_rulers[power])
            why = "the scenario's ruler"
        else:
            rolled = roller.roll(len(ASPECTS), die, "ruler", state.turn, power).dice
            why = "first ruler"
        rulers[power] = new_ruler(power, rolled, rules, state.turn)  # type: ignore[arg-type]
        events.append(_ruler_event(state, power, rulers[power], "ruler", why))
    return replace(state, rulers=rulers), events


def change_rulers(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller) -> tuple[TurnState, list[Event]]:
    """Phase 2: 1D6 + 1 per turn since the last change for each Active power but Rome; 6+: a new ruler."""
    r = rules.rulers
    rulers = dict(state.rulers)
    events = []
    for power in scenario.nations:
        if power == scenario.player or not is_active(scenario, state, power):
            continue
        since = rulers[power].since if power in rulers else 0
        bonus = (state.turn - since) * r.change_per_turn
        roll = roller.roll(r.change_dice, r.change_die, "ruler-change", state.turn, power)
        total = roll.total + bonus
        if total < r.change_threshold:
            events.append(Event(state.turn, PHASE, "ruler_stays", {"power": power, "dice": list(roll.dice), "total": total},
                                f"{power}: {roll.total} +{bonus} = {total}, below {r.change_threshold}: the ruler stays"))
            continue
        rolled = roller.roll(len(ASPECTS), r.characteristic_die, "ruler", state.turn, power).dice
        rulers[power] = new_ruler(power, rolled, rules, state.turn)  # type: ignore[arg-type]
        events.append(_ruler_event(state, power, rulers[power], "ruler",
                                   f"{roll.total} +{bonus} = {total}: a new ruler"))
    return replace(state, rulers=rulers), events
