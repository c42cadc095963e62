"""The Magna Graecia steps, each run by the core's runner (:meth:`SteppedRuleset.take_step`) in one
transaction (:func:`play`): the step's input resolved and checked against the turn, then the
rules (:func:`.actions.act`), a second-day order sealed until the battle's last; the dice the
step used and the position it leaves."""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.events import Event
from bellica.engine.core.machine import StepRefused, position_of
from bellica.engine.core.stepped import StepInput, StepOutcome
from bellica.engine.core.stepped import set_campaign as _set
from bellica.engine.core.stepped import step_event as _marker
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError

from . import actions as actions_mod
from .dice import Dice
from .inputs import OVER, STEPS, WORDS, _check_turn, _resolve
from .model import GameState
from .rules import Rules
from .status import _second_day_sides, next_decision
from .victory import standings

__all__ = ["play"]

#: our step -> the engine action it runs (actions.ACTIONS)
_ENGINE = {"agree_end": "end_by_agreement", "siege": "siege", "end_turn": "end_turn"}


def _dice(snap: Snapshot) -> Dice:
    entered = {label: int(v) for label, v in snap.tables["mg_rolls"].values()}
    return Dice(int(snap.campaign("seed")), entered)


def _dice_event(rnd: int, phase: str, dice: Dice) -> list[Event]:
    if not dice.log:
        return []
    items = [r.as_data() for r in dice.log]
    words = "; ".join(f"{r.key} {r.value} ({'entered' if r.entered else 'drawn'})" for r in dice.log)
    return [Event(rnd, phase, "dice", {"rolls": items}, f"dice: {words}")]


def _position(rnd: int, phase: str, state: GameState, snap: Snapshot, rules: Rules) -> list[Event]:
    out = []
    where = OVER if state.phase == OVER else state.phase
    stage = None if where == OVER else state.phasing
    if str(state.turn) != snap.campaign("round"):
        out.append(_set(rnd, phase, "round", state.turn))
    if where != snap.campaign("phase"):
        out.append(_set(rnd, phase, "phase", where))
    if stage != snap.campaign("stage"):
        out.append(_set(rnd, phase, "stage", stage))
    if where == OVER and not snap.campaign("winner"):
        order = standings(state, rules)
        winner = order[0][0] if len(order) == 1 or order[0][1] > order[1][1] else "draw"
        out.append(_set(rnd, phase, "winner", winner))
    return out


def play(c, step: str, arg: Mapping | None = None) -> list[Event]:
    """Run one step (see the module doc) with its input in one transaction; the events it logged."""
    if step not in STEPS:
        raise InputError(f"no Magna Graecia step {step!r}: give one of {', '.join(STEPS)}")
    arg = dict(arg or {})
    if not c.has_state():
        raise StepRefused(f"cannot {WORDS[step]}: the campaign has not started: `bellica magna-graecia start {c.path}`")
    return c.ruleset.take_step(c, step, lambda i: _rule(c, step, arg, i))


def _check_position(c, snap: Snapshot, step: str) -> None:
    """Refuse ``step`` unless the season is on and in one of the step's phases."""
    if snap.campaign("phase") is None:
        raise StepRefused(f"cannot {WORDS[step]}: the campaign has not started: `bellica magna-graecia start CAMPAIGN`")
    pos = position_of(snap)
    phases, _who = STEPS[step]
    if pos.winner is not None or pos.phase == OVER:
        raise StepRefused(f"cannot {WORDS[step]}: the season is over")
    if pos.phase not in phases:
        raise StepRefused(f"cannot {WORDS[step]}: turn {pos.round} is in the {pos.phase} phase; "
                          + next_decision(c, snap).replace("CAMPAIGN", str(c.path)))


def _rule(c, step: str, arg: dict, i: StepInput) -> StepOutcome:
    """The step's input resolved against the board and checked against the turn, then the rules."""
    snap, board, state, rnd, phase, dice = i.snap, i.board, i.state, i.round, i.phase, i.dice
    a = _resolve(board, state, step, arg)
    _check_turn(state, step, a)
    extra: list[Event] = []
    new, told = state, []
    if step == "roll":
        if a["label"] in {k[0] for k in snap.tables["mg_rolls"]}:
            raise StepRefused(f"roll {a['label']} has been entered already")
        extra = [Event(rnd, phase, "put_row", {"table": "mg_rolls", "row": {"label": a["label"], "value": a["value"]}},
                       f"die {a['label']} = {a['value']} (rolled at the table)")]
        text = f"the umpire enters the die {a['label']}: {a['value']}"
    elif step == "second_day":
        a["turn"] = state.turn  # the seal's round
        new, told, extra, text = _second_day(c, snap, state, a, dice)
    else:
        try:
            new, told = actions_mod.act(state, board.nmap, i.rules, dice, _action(step, a, state))
        except StepRefused:
            raise
        except InputError as err:  # the rules refuse it: illegal now, not malformed
            raise StepRefused(f"cannot {WORDS[step]}: {err}") from None
        text = _words(step, a, state)
    return StepOutcome(_marker(rnd, phase, step, a, f"Turn {rnd}: {text}"), None if new is state else new, told, extra)


def _action(step: str, a: Mapping, state: GameState) -> dict:
    do = _ENGINE.get(step, step)
    drop = {"side"}
    if step == "attack_city" and a.get("side") and a.get("side") != state.phasing:
        a = {**a, "by": a["side"]}          # a defender attacking the city during the battle
    if step == "retreat_fleet":
        drop = set()
        a = {**a, "side": a.get("side") or next((r.fleet_side for r in state.retreats if r.fleet_side), "")}
    return {"do": do, **{k: v for k, v in a.items() if k not in drop}}


def _words(step: str, a: Mapping, state: GameState) -> str:
    side = a.get("side") or ""
    if step == "move":
        return f"{side} moves command {a['command']} to {' -> '.join(a['path'])}"
    if step == "sail":
        return f"{side} sails its fleet to {' -> '.join(a['path'])}"
    if step == "result":
        return f"the battle at {a['node']} is entered: " + (f"{a['winner']} wins" if a["winner"] else "undecided")
    if step in ("retreat",):
        return f"command {a['command']} retreats to {' -> '.join(a['path'])}"
    bits = ", ".join(f"{k} {v}" for k, v in sorted(a.items()) if k != "side")
    return f"{side + ' ' if side else ''}{WORDS[step]}" + (f" ({bits})" if bits else "")


def _second_day(c, snap: Snapshot, state: GameState, a: Mapping, dice: Dice):
    """One side's sealed order; when every side of the battle has written one, they are revealed together."""
    node, side, choice = a["node"], a["side"], a["choice"]
    b = state.battle_at(node)
    if b is None or not b.undecided:
        raise StepRefused(f"cannot write a second-day order at {node}: no undecided battle there")
    need = _second_day_sides(state, b)
    if side not in need:
        raise StepRefused(f"cannot write a second-day order at {node}: {side} did not fight there ({', '.join(need)} did)")
    key = (state.turn, node, b.day, side)
    if key in snap.tables["mg_orders"]:
        raise StepRefused(f"cannot write a second-day order at {node}: {side} has written one already")
    rnd, phase = state.turn, state.phase
    row = {"turn": state.turn, "node": node, "day": b.day, "side": side, "choice": choice}
    extra = [Event(rnd, phase, "put_row", {"table": "mg_orders", "row": row}, f"{side} writes its second-day order at {node}")]
    orders = {k[3]: r[4] for k, r in snap.tables["mg_orders"].items() if k[:3] == key[:3]}
    orders[side] = choice
    text = f"{side} writes its sealed second-day order for {node}"
    if set(need) - set(orders):
        return state, [], extra, text
    try:
        new, told = actions_mod.act(state, c.board.nmap, c.rules, dice,
                                    {"do": "second_day", "node": node, "orders": orders})
    except InputError as err:
        raise StepRefused(f"cannot reveal the second-day orders at {node}: {err}") from None
    extra = []  # the last order is never stored: its step and the revealing event carry it; the others' rows go
    for s in need:
        if s != side:
            extra.append(Event(rnd, phase, "drop_row", {"table": "mg_orders", "key": {"turn": state.turn, "node": node,
                                                                                   "day": b.day, "side": s}},
                               f"{s}'s order at {node} is opened"))
    return new, list(told), extra, text
