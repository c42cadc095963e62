"""A turn of Mare Nostrum, step by step, as pure functions.

1. :func:`begin_turn`: the wheels are drawn (or read), the order of play is set, every
   nation's random event is applied, pirates at sea raid, treasury and actions are counted.
2. Each nation in the order takes its actions (``building``, ``diplomacy``, ``battles``
   functions) and calls :func:`finish_actions`, which completes its works and passes the
   turn to the next nation still in the game.
3. :func:`end_turn`: the declared land battles take the results entered from Field of
   Glory; the verdict is given; the turn's conditions end.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from bellica.geo.errors import InputError

from .actions import allot_actions
from .battles import resolve_battles
from .building import complete_builds
from .events import draw_events, pirate_raids
from .lottery import Lottery, order_of_play
from .model import Event, NationState, Scenario, TurnState, pirates_name
from .rules import Rules
from .victory import Verdict, verdict

__all__ = ["begin_turn", "end_turn", "finish_actions", "new_game"]


def new_game(scenario: Scenario, rules: Rules) -> TurnState:
    """The state before turn 1: every province its nation's (Illyria and Epirus independent),
    every nation at the starting stability, nothing built."""
    nations = {n: NationState(n, rules.stability.start) for n in scenario.nations}
    return TurnState(turn=0, control=scenario.start_control(), nations=nations, phase="done")


def begin_turn(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery) -> tuple[TurnState, list[Event]]:
    """Open the next turn: order of play, random events, pirate raids, actions."""
    if state.phase != "done":
        raise InputError(f"turn {state.turn} is still in its {state.phase!r} phase: finish it before the next")
    if state.winner is not None:
        raise InputError(f"the campaign is over: {state.winner} has won")
    turn = state.turn + 1
    nations = {n: replace(s, actions=0, used=0, effects=frozenset(), naval_bonus=0, pending=(), artworks="")
               for n, s in state.nations.items()}
    state = replace(state, turn=turn, nations=nations, attacks=(), fleets_attacked=frozenset(), peace=frozenset(),
                    builds=(), events={}, draws={}, order=(), current=0, phase="start")
    y0, y1 = rules.game.years(turn)
    events = [Event(turn, "start", "turn", {"turn": turn, "from_year": y0, "to_year": y1},
                    f"turn {turn}: {-y0} to {-y1} BC")]
    state, more = order_of_play(scenario, state, rules, lottery)
    events += more
    # Pirates raid after the events (a Naval Technology drawn this turn counts against them);
    # those an event brings out this turn have fought their one fleet and raid from the next
    # turn, unless option pirates_raid_others is "same_turn".
    standing = frozenset(f.id for f in state.fleets if f.owner == pirates_name(rules))
    state, more = draw_events(scenario, state, rules, lottery)
    events += more
    spare = {(e.data["fleet"], e.data["victim"]) for e in more if e.kind == "pirates"}
    raiders = None if rules.options.pirates_raid_others == "same_turn" else standing
    state, more = pirate_raids(scenario, state, rules, lottery, only=raiders, spare=spare)
    events += more
    state, more = allot_actions(scenario, state, rules)
    events += more
    state = replace(state, phase="actions", current=_next_playing(state, 0))
    return state, events


def _next_playing(state: TurnState, start: int) -> int:
    i = start
    while i < len(state.order) and not state.nations[state.order[i]].playing:
        i += 1
    return i


def finish_actions(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> tuple[TurnState, list[Event]]:
    """``nation`` ends its actions: its works stand, the next nation in the order acts."""
    if state.phase != "actions" or state.acting != nation:
        raise InputError(f"{nation} cannot finish: it is {state.acting or 'nobody'}'s turn to act")
    state, events = complete_builds(state, nation)
    ns = state.nations[nation]
    events.append(Event(state.turn, "actions", "finished", {"nation": nation, "used": ns.used, "actions": ns.actions},
                        f"{nation} finishes ({ns.used} of {ns.actions} actions used)"))
    nxt = _next_playing(state, state.current + 1)
    state = replace(state, current=nxt, phase="actions" if nxt < len(state.order) else "battles")
    return state, events


def end_turn(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery,
             results: Mapping[str, str]) -> tuple[TurnState, Verdict, list[Event]]:
    """Fight the declared battles (``results``: target province -> "attacker"/"defender") and
    give the verdict; the state is ready for :func:`begin_turn`."""
    if state.phase != "battles":
        raise InputError(f"turn {state.turn}: {state.acting or 'a nation'} has not finished its actions yet")
    state, events = resolve_battles(scenario, state, rules, lottery, results)
    v = verdict(scenario, state, rules)
    extra = state.extra_turns + (1 if v.another_turn else 0)
    state = replace(state, phase="done", winner=v.winner, extra_turns=extra)
    events.append(Event(state.turn, "end", "verdict", {
        "winner": v.winner, "reason": v.reason, "another_turn": v.another_turn,
        "standings": [{"nation": s.nation, "provinces": s.provinces, "richness": s.richness} for s in v.standings]},
        (f"{v.winner} wins: {v.reason}" if v.winner else v.reason)))
    return state, v, events
