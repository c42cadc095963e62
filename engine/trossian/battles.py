"""Battles: found where enemies meet, fought on the table, then the post-battle sequence.

:func:`find_battles` opens a :class:`~bellica.engine.trossian.model.Battle` in every
province where armies of hostile nations stand (allies side together).  The battle is
fought on the tabletop (2 by 2 Napoleonics); :func:`resolve_battle` takes the result
("a", "b" or "draw"), the fate of each unit on the table ("destroyed", "remaining",
"routed"), and the losers' chosen retreats, and applies the seed's post-battle sequence:
a d6 per unit against the result's threshold (:func:`attrition_roll`), the loser's free
retreat (destroyed without a safe line of retreat), the victor's rest, and for a draw both
sides' retreat and freeze.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from bellica.geo.errors import InputError

from .dice import Dice
from .model import Army, Battle, Event, GameState, Scenario, Unit
from .movement import retreat
from .rules import FATES, Rules

__all__ = ["attrition_roll", "eliminated", "find_battles", "resolve_battle"]


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def find_battles(scenario: Scenario, state: GameState) -> tuple[GameState, list[Event]]:
    """Open a battle in each province (scenario order) where hostile armies stand and none is open."""
    events: list[Event] = []
    open_in = {b.province for b in state.battles}
    for province in scenario.provinces:
        if province in open_in:
            continue
        here = state.armies_in(province)
        nations = list(dict.fromkeys(a.nation for a in here))
        if len(nations) < 2:
            continue
        first = nations[0]
        side_a = [n for n in nations if not state.hostile(n, first)]
        side_b = [n for n in nations if n not in side_a and all(state.hostile(n, x) for x in side_a)]
        if not side_b:
            continue
        (bid,), state = state.ids(1)
        battle = Battle(bid, province, (tuple(a.id for a in here if a.nation in side_a),
                                        tuple(a.id for a in here if a.nation in side_b)),
                        (tuple(side_a), tuple(side_b)))
        fought = [replace(a, moved=True, fought=True) for a in here if a.nation in side_a + side_b]
        state = replace(state.with_armies(*fought), battles=state.battles + (battle,),
                        contested=state.contested | {province})
        events.append(_event(state, "battle", {"battle": bid, "province": province, "sides": [list(s) for s in battle.sides],
                                               "nations": [list(n) for n in battle.nations]},
                             f"battle {bid} in {province}: {' & '.join(side_a)} against {' & '.join(side_b)}"))
    return state, events


def eliminated(rules: Rules, result: str, fate: str, unit: Unit, roll: int) -> bool:
    """Does ``roll`` (a d6) eliminate ``unit`` after ``result`` ("winner", "loser", "draw")
    with ``fate`` on the table?  Eliminated when the roll plus its modifier is at or below
    the threshold; a threshold of 0 means no roll."""
    threshold = rules.attrition[result].threshold(fate)
    if threshold <= 0:
        return False
    mod = 0
    if fate == "destroyed" or rules.options.modifiers_on == "all":
        mod = rules.attrition_modifier(result, unit.quality, unit.kind)
    return roll + mod <= threshold


def attrition_roll(rules: Rules, dice: Dice, result: str, fate: str, unit: Unit, *label) -> tuple[int, bool]:
    """(the d6, eliminated?) for one unit; no die is rolled where the threshold is 0."""
    if rules.attrition[result].threshold(fate) <= 0:
        return 0, False
    roll = dice.roll(6, *label)
    return roll, eliminated(rules, result, fate, unit, roll)


def resolve_battle(scenario: Scenario, state: GameState, rules: Rules, battle_id: int, result: str,
                   fates: Mapping[int, str], dice: Dice,
                   retreats: Mapping[int, str] | None = None) -> tuple[GameState, list[Event]]:
    """Enter battle ``battle_id``'s table result and run the post-battle sequence.

    ``result``: "a" or "b" (the side that won) or "draw"; ``fates``: unit id -> "destroyed",
    "remaining" or "routed" (units not given remained on the table); ``retreats``: army id
    -> the province it retreats into (not given: the first open one)."""
    battle = next((b for b in state.battles if b.id == battle_id), None)
    if battle is None:
        raise InputError(f"battle {battle_id}: no such open battle ({', '.join(str(b.id) for b in state.battles) or 'none'})")
    if result not in ("a", "b", "draw"):
        raise InputError(f"battle {battle_id}: result {result!r}: give \"a\", \"b\" or \"draw\"")
    armies = {i: state.army(i) for side in battle.sides for i in side if any(a.id == i for a in state.armies)}
    unit_ids = {u.id for a in armies.values() for u in a.units}
    for uid, fate in fates.items():
        if uid not in unit_ids:
            raise InputError(f"battle {battle_id}: unit {uid} did not fight here: give units of {sorted(unit_ids)}")
        if fate not in FATES:
            raise InputError(f"battle {battle_id}: unit {uid} fate {fate!r}: give one of {', '.join(FATES)}")
    events = [_event(state, "battle_result", {"battle": battle_id, "province": battle.province, "result": result,
                                              "fates": {str(k): v for k, v in sorted(fates.items())}},
                     f"battle {battle_id} in {battle.province}: " + ("a draw" if result == "draw" else
                                                                     f"{' & '.join(battle.nations[0 if result == 'a' else 1])} win"))]
    standing: list[Army] = []
    for side_no, side in enumerate(battle.sides):
        row = "draw" if result == "draw" else ("winner" if "ab"[side_no] == result else "loser")
        for army_id in side:
            army = armies.get(army_id)
            if army is None:
                continue
            kept, lost = [], []
            for unit in army.units:
                fate = fates.get(unit.id, "remaining")
                roll, gone = attrition_roll(rules, dice, row, fate, unit, "attrition", state.year, state.phase,
                                            battle_id, unit.id)
                (lost if gone else kept).append(unit)
                if roll:
                    events.append(_event(state, "attrition", {"battle": battle_id, "army": army_id, "unit": unit.id,
                                                              "kind": unit.kind, "quality": unit.quality, "result": row,
                                                              "fate": fate, "roll": roll, "eliminated": gone},
                                         f"{army.nation} {unit.kind} {unit.id} ({fate}, {row}): d6 {roll}"
                                         + (" - eliminated" if gone else " - survives")))
            if not kept:
                state = state.with_armies(drop=(army_id,))
                events.append(_event(state, "army_destroyed", {"army": army_id, "nation": army.nation,
                                                               "province": army.province, "why": "attrition"},
                                     f"army {army_id} ({army.nation}) is gone after the battle"))
                continue
            new = replace(army, units=tuple(kept))
            if army.has_hq and not new.has_hq:
                new = replace(new, standing="hold")
                events.append(_event(state, "hq_lost", {"army": army_id},
                                     f"army {army_id} ({army.nation}) has lost its last HQ: it holds until ordered home"))
            state = state.with_armies(new)
            standing.append(new)
    retreats = dict(retreats or {})
    for army in standing:
        side_no = 0 if army.id in battle.sides[0] else 1
        row = "draw" if result == "draw" else ("winner" if "ab"[side_no] == result else "loser")
        if row == "winner":
            state = state.with_armies(replace(state.army(army.id), rest=rules.movement.victor_rest))
            continue
        if army.garrison and row == "draw":  # a garrison holds its walls: only a defeat opens the city
            continue
        state, evs = retreat(scenario, state, rules, army.id, retreats.get(army.id),
                             why="draw" if row == "draw" else "defeated")
        events += evs
        if row == "draw" and any(a.id == army.id for a in state.armies):
            state = state.with_armies(replace(state.army(army.id), rest=rules.movement.draw_freeze))
    state = replace(state, battles=tuple(b for b in state.battles if b.id != battle_id))
    return state, events
