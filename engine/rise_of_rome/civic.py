"""Rome's Civic Development: the end-of-turn penalty, the instant loss, the final verdict.

Rome's total is the revenue it spent on Civic Improvement over the campaign, less 5
for each turn each of its home provinces ended under another's control (option
``occupied_home_is_lost``: an external army's occupation counts too).  Rome loses at
once when it holds none of its home provinces.  After turn 12: 250 or more, Rome's
destiny as a world power is assured ("assured"); from 180 to below 250, it dominates
Italy for good ("italy"); above 150 to below 180, a provincial power ("provincial");
150 or less, it soon disappears ("disappear").  The seed puts 180 in two bands: option
``band_180`` (default: the higher, like 250).
"""

from __future__ import annotations

from dataclasses import replace

from bellica.engine.rise_of_rome.model import Event, Scenario, TurnState, occupied
from bellica.engine.rise_of_rome.rules import Rules

__all__ = ["PHASE", "VERDICTS", "civic_end_of_turn", "lost_homes", "verdict"]

PHASE = "civic"

#: verdict -> words.
VERDICTS = {
    "assured": "Rome's destiny as a major power of the known world is assured",
    "italy": "Rome will dominate Italy for good, but never the Mediterranean",
    "provincial": "Rome will never be more than a provincial power",
    "disappear": "Rome is destined soon to disappear from the world scene",
    "disgrace": "Rome lost all its home provinces: the game is lost in great disgrace",
}


def lost_homes(scenario: Scenario, state: TurnState, rules: Rules) -> tuple[str, ...]:
    """Rome's home provinces it does not hold now."""
    occ = occupied(state) if rules.options.occupied_home_is_lost else {}
    player = scenario.player
    return tuple(h for h in scenario.homes(player) if state.control.get(h) != player or h in occ)


def civic_end_of_turn(scenario: Scenario, state: TurnState, rules: Rules) -> tuple[TurnState, list[Event]]:
    """-5 per Roman home province lost at the end of the turn; Rome holding none loses the game."""
    lost = lost_homes(scenario, state, rules)
    penalty = len(lost) * rules.civic.enemy_control_penalty
    events = []
    if penalty:
        events.append(Event(state.turn, PHASE, "civic_penalty", {"provinces": list(lost), "penalty": penalty},
                            f"Rome loses {penalty} Civic Development: {', '.join(lost)} under enemy control"))
    state = replace(state, civic_penalty=state.civic_penalty + penalty)
    if not state.defeated and len(lost) == len(scenario.homes(scenario.player)):
        state = replace(state, defeated=True)
        events.append(Event(state.turn, PHASE, "player_defeated", {"power": scenario.player}, VERDICTS["disgrace"]))
    events.append(Event(state.turn, PHASE, "civic_total",
                        {"spent": state.civic_spent, "penalty": state.civic_penalty, "total": state.civic_total},
                        f"Rome's Civic Development: {state.civic_spent} spent - {state.civic_penalty} = {state.civic_total}"))
    return state, events


def verdict(total: int, rules: Rules, *, defeated: bool = False) -> str:
    """The seed's verdict for a final Civic Development ``total`` (see the module doc)."""
    c = rules.civic
    if defeated:
        return "disgrace"
    if total >= c.assured:
        return "assured"
    if total > c.italy or (total == c.italy and rules.options.band_180 == "italy"):
        return "italy"
    if total > c.provincial:
        return "provincial"
    return "disappear"
