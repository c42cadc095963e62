"""A whole turn, and a whole campaign, from the phase functions (what the CLI and ``simulate`` drive).

:func:`start` gives turn 0's state (every province its home power's, the starting
rulers); :func:`play_turn` runs the six phases in order for one turn with a
:class:`RomePolicy` deciding for the player; :func:`play_campaign` plays to the end
(or to Rome's instant loss) and gives the verdict.  Each phase can also be called on
its own (a CLI stops between them for the player's choices).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

from bellica.engine.rise_of_rome.attacks import AttackPlan, declare_player_attack, roll_attacks
from bellica.engine.rise_of_rome.battles import Battle, BattleResult, fight_battles
from bellica.engine.rise_of_rome.civic import civic_end_of_turn, verdict
from bellica.engine.rise_of_rome.dice import DiceRoller
from bellica.engine.rise_of_rome.externals import end_of_turn, external_attacks
from bellica.engine.rise_of_rome.model import Event, Scenario, TurnState
from bellica.engine.rise_of_rome.revenue import collect_revenue
from bellica.engine.rise_of_rome.rulers import change_rulers, start_rulers
from bellica.engine.rise_of_rome.rules import Rules
from bellica.engine.rise_of_rome.spending import Spending, spend

__all__ = ["Outcome", "RomePolicy", "begin_turn", "play_campaign", "play_turn", "start"]


class RomePolicy(Protocol):
    """The player's decisions.  ``province``/``result`` may return None (the rule / the generator decides)."""

    def attack(self, scenario: Scenario, state: TurnState, plan: AttackPlan) -> str | None: ...

    def spend(self, scenario: Scenario, state: TurnState, plan: AttackPlan, free: int) -> Spending: ...

    def province(self, state: TurnState, options: tuple[str, ...], why: str) -> str | None: ...

    def result(self, battle: Battle) -> BattleResult | None: ...


def start(scenario: Scenario, rules: Rules, roller: DiceRoller) -> tuple[TurnState, list[Event]]:
    """Turn 0: every province its home power's; the starting rulers."""
    state = TurnState(turn=0, control=scenario.start_control())
    return start_rulers(scenario, state, rules, roller)


def begin_turn(state: TurnState) -> TurnState:
    """The next turn: this turn's battle record becomes last turn's; the per-turn records are cleared."""
    return replace(state, turn=state.turn + 1, won_last=state.won, lost_last=state.lost, won=frozenset(),
                   lost=frozenset(), subjects_created=(), revenue={}, civic_only={})


def play_turn(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller,
              policy: RomePolicy) -> tuple[TurnState, list[Event], list[Battle]]:
    """One turn, phases 1-6, then Rome's civic accounting.  ``state`` is the previous turn's end."""
    state = begin_turn(state)
    events: list[Event] = []
    y0, y1 = rules.game.years(state.turn)
    events.append(Event(state.turn, "turn", "turn", {"turn": state.turn, "from": y0, "to": y1},
                        f"Turn {state.turn}: {-y0} to {-y1} BC"))
    state, ev = collect_revenue(scenario, state, rules)
    events += ev
    state, ev = change_rulers(scenario, state, rules, roller)
    events += ev
    state, plan, ev = external_attacks(scenario, state, rules, roller)
    events += ev
    plan, ev = roll_attacks(scenario, state, rules, roller, plan)
    events += ev
    plan, ev = declare_player_attack(scenario, state, rules, plan, policy.attack(scenario, state, plan))
    events += ev
    free = state.revenue.get(scenario.player, 0) - state.civic_only.get(scenario.player, 0)
    state, spending, ev = spend(scenario, state, rules, plan, policy.spend(scenario, state, plan, free))
    events += ev
    state, battles, ev = fight_battles(scenario, state, rules, roller, plan, spending, policy)
    events += ev
    if not state.defeated:
        state, ev = end_of_turn(scenario, state, rules, roller)
        events += ev
    state, ev = civic_end_of_turn(scenario, state, rules)
    events += ev
    return state, events, battles


@dataclass(frozen=True)
class Outcome:
    state: TurnState
    verdict: str
    turns: int
    events: tuple[Event, ...] = field(repr=False, default=())


def play_campaign(scenario: Scenario, rules: Rules, roller: DiceRoller, policy: RomePolicy) -> Outcome:
    """From the start to the end of the last turn, or to Rome's instant loss."""
    state, events = start(scenario, rules, roller)
    while state.turn < rules.game.turns and not state.defeated:
        state, ev, _ = play_turn(scenario, state, rules, roller, policy)
        events += ev
    v = verdict(state.civic_total, rules, defeated=state.defeated)
    events.append(Event(state.turn, "civic", "verdict", {"total": state.civic_total, "verdict": v},
                        f"Final Civic Development {state.civic_total}: {v}"))
    return Outcome(state, v, state.turn, tuple(events))
