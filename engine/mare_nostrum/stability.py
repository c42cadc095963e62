"""Stability, and how a nation leaves the game.

The seed keeps stability between 1 and 7, starts every nation at 5, takes one action a turn
from a nation at 3 or less, and ends a nation whose stability "decreases beyond level 1" or
"decreases to 0" (the same thing read one way: a level below 1).  The ``stability_floor``
option chooses between that reading ("collapse", the default) and the literal "minimum of 1"
("floor": stability never falls below the minimum and nobody collapses).

A nation leaves the game in two ways, and the seed says different things of its provinces:
when its government collapses they become independent (option ``collapse_provinces``); when
its capital falls they pass to the conqueror (option ``capital_fall_provinces``).  Either way
its fleets are lost (the seed is silent; a fleet has no province to pass with).
"""

from __future__ import annotations

from dataclasses import replace

from .model import Event, Scenario, TurnState, provinces_of
from .rules import Rules

__all__ = ["action_penalty", "change_stability", "knock_out", "remove_nation"]


def action_penalty(stability: int, rules: Rules) -> int:
    """Actions lost this turn for a nation at ``stability`` (1 at 3 or less)."""
    return rules.stability.penalty_actions if stability <= rules.stability.penalty_at else 0


def change_stability(scenario: Scenario, state: TurnState, rules: Rules, nation: str, delta: int,
                     why: str, phase: str = "events") -> tuple[TurnState, list[Event]]:
    """Add ``delta`` to ``nation``'s stability (never above the maximum); a nation that falls to
    the collapse level leaves the game (or stops at the minimum: option ``stability_floor``)."""
    ns = state.nations[nation]
    if not ns.playing or delta == 0:
        return state, []
    s = rules.stability
    new = min(s.maximum, ns.stability + delta)
    if rules.options.stability_floor == "floor":
        new = max(s.minimum, new)
    else:
        new = max(s.collapse_at, new)
    state = state.with_nation(nation, stability=new)
    events = [Event(state.turn, phase, "stability", {"nation": nation, "from": ns.stability, "to": new,
                                                     "delta": delta, "why": why},
                    f"{nation}: stability {ns.stability} -> {new} ({why})")]
    if new <= s.collapse_at and rules.options.stability_floor == "collapse":
        vanquisher = state.last_taker.get(nation) if rules.options.collapse_provinces == "vanquisher" else None
        if vanquisher is not None and not state.nations[vanquisher].playing:
            vanquisher = None
        state, more = remove_nation(scenario, state, nation, vanquisher, "collapse", phase)
        events += more
    return state, events


def knock_out(scenario: Scenario, state: TurnState, rules: Rules, nation: str, conqueror: str | None,
              phase: str = "battles") -> tuple[TurnState, list[Event]]:
    """``nation`` lost its capital to ``conqueror`` (None: to invaders): it leaves the game."""
    heir = conqueror if rules.options.capital_fall_provinces == "vanquisher" else None
    return remove_nation(scenario, state, nation, heir, f"capital taken by {conqueror or 'invaders'}", phase)


def remove_nation(scenario: Scenario, state: TurnState, nation: str, heir: str | None, why: str,
                  phase: str) -> tuple[TurnState, list[Event]]:
    """Take ``nation`` out of the game: its provinces go to ``heir`` (None: independent), its fleets are lost."""
    held = provinces_of(scenario, state, nation)
    control = dict(state.control)
    for p in held:
        control[p] = heir
    lost_fleets = [f.id for f in state.fleets if f.owner == nation]
    state = replace(state, control=control, fleets=tuple(f for f in state.fleets if f.owner != nation))
    state = state.with_nation(nation, out=why, out_turn=state.turn, actions=state.nations[nation].used)
    return state, [Event(state.turn, phase, "nation_out",
                         {"nation": nation, "why": why, "provinces": list(held), "to": heir, "fleets_lost": lost_fleets},
                         f"{nation} is out of the game ({why}); its {len(held)} provinces "
                         f"{'pass to ' + heir if heir else 'become independent'}")]
