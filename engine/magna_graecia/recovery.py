"""Recovery rolls: right after a battle each lost element or naval point may come back.

One die per element or NP: recovered on 5 or more, +2 for the side that held the field,
+1 for a command's own commander element, -1 for the elements of a command whose leader
was killed, -1 for an allied element (a city's command fighting for a side).  Elements lost
at sea are never rolled for.
"""

from __future__ import annotations

from typing import Mapping

from .dice import Dice
from .forces import GENERAL
from .model import Event, GameState
from .rules import Rules

__all__ = ["recover_elements", "recover_np", "recovery_modifiers"]


def recovery_modifiers(rules: Rules, *, held_field: bool, command_element: bool = False, leader_killed: bool = False,
                       allied: bool = False) -> dict[str, int]:
    r = rules.recovery
    mods = {}
    if held_field:
        mods["held_field"] = r.held_field
    if command_element:
        mods["command_element"] = r.command_element
    if leader_killed:
        mods["leader_killed"] = r.leader_killed
    if allied:
        mods["allied_element"] = r.allied_element
    return mods


def recover_elements(state: GameState, rules: Rules, dice: Dice, node: str, lost: Mapping[int, Mapping[str, int]], *,
                     held_by: str | None, phase: str = "battle") -> tuple[dict[int, dict[str, int]], list[Event]]:
    """Roll for every element of ``lost``; returns (what stays lost, events).  ``held_by``:
    the side that held the field (None: nobody, as after an undecided day)."""
    still: dict[int, dict[str, int]] = {}
    rolls = []
    for cid, els in sorted(lost.items()):
        c = state.command(int(cid))
        owner = state.owner(c)
        leader_killed = els.get(GENERAL, 0) > 0
        for key, n in sorted(els.items()):
            for i in range(n):
                mods = recovery_modifiers(rules, held_field=bool(held_by) and owner == held_by,
                                          command_element=key == GENERAL, leader_killed=leader_killed and key != GENERAL,
                                          allied=bool(c.city))
                r = dice.roll("recovery", state.turn, node, cid, key, i + 1)
                total = r.value + sum(mods.values())
                back = total >= rules.recovery.at
                rolls.append({"command": cid, "element": key, "roll": r.as_data(), "modifiers": mods, "total": total,
                              "recovered": back})
                if not back:
                    still.setdefault(int(cid), {})
                    still[int(cid)][key] = still[int(cid)].get(key, 0) + 1
    back_n = sum(1 for x in rolls if x["recovered"])
    ev = Event(state.turn, phase, "recovery", {"node": node, "rolls": rolls, "recovered": back_n},
               f"recovery at {node}: {back_n} of {len(rolls)} lost elements come back")
    return still, [ev] if rolls else []


def recover_np(state: GameState, rules: Rules, dice: Dice, node: str, side: str, lost: int, *, held_field: bool,
               label: str = "recovery-np", phase: str = "battle") -> tuple[int, list[Event]]:
    """Roll for ``lost`` naval points; returns (how many come back, events)."""
    mods = recovery_modifiers(rules, held_field=held_field)
    rolls = []
    back = 0
    for i in range(lost):
        r = dice.roll(label, state.turn, node, side, i + 1)
        total = r.value + sum(mods.values())
        ok = total >= rules.recovery.at
        back += ok
        rolls.append({"roll": r.as_data(), "modifiers": mods, "total": total, "recovered": ok})
    if not rolls:
        return 0, []
    return back, [Event(state.turn, phase, label, {"node": node, "side": side, "rolls": rolls, "recovered": back},
                        f"{side} rolls for {lost} lost NP at {node}: {back} come back")]
