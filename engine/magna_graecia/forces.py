"""Commands and their elements: movement points, effective elements, losses, lost commanders.

Losses are given as ``{command id: {element key: count}}``; the key ``"general"`` is the
command's commander.  Where the players name no losses the engine picks them
(:func:`pick_losses`): from the largest command first, the most numerous element first,
the commander last.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

from bellica.geo.errors import InputError

from .model import Command, Event, GameState
from .rules import Rules

__all__ = ["GENERAL", "apply_losses", "effective", "movement_points", "pick_losses", "total_losses"]

#: The losses key naming a command's commander.
GENERAL = "general"


def movement_points(c: Command, rules: Rules) -> int:
    """2 for a command of only mounted or psiloi elements (elephants and expendables are not
    among them), 1 otherwise; 0 for a leaderless command and a capital's own sub-general."""
    if c.leaderless or c.inherent or not c.side:
        return 0
    m = rules.movement
    return m.fast_mp if c.types() <= set(m.fast_types) else m.slow_mp


def effective(commands: Iterable[Command], rules: Rules) -> float:
    """Effective elements of ``commands`` (the general's element included)."""
    total = 0.0
    for c in commands:
        total += sum(rules.elements.weight(k) * n for k, n in c.elements.items())
        if c.general:
            total += rules.elements.weight(c.general)
    return total


def total_losses(losses: Mapping[int, Mapping[str, int]]) -> int:
    return sum(sum(v.values()) for v in losses.values())


def pick_losses(commands: Iterable[Command], n: int) -> dict[int, dict[str, int]]:
    """``n`` elements to lose from ``commands``: from the command with most elements, its most
    numerous element first (ties by name), commanders only when nothing else is left."""
    pool = {c.id: dict(c.elements) for c in commands}
    generals = {c.id: bool(c.general) for c in commands}
    out: dict[int, dict[str, int]] = {}
    for _ in range(n):
        live = [(sum(v.values()), -cid) for cid, v in pool.items() if sum(v.values()) > 0]
        if live:
            cid = -max(live)[1]
            key = sorted(pool[cid].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            pool[cid][key] -= 1
            if not pool[cid][key]:
                del pool[cid][key]
        else:
            left = sorted(cid for cid, g in generals.items() if g)
            if not left:
                break
            cid, key = left[0], GENERAL
            generals[cid] = False
        out.setdefault(cid, {})
        out[cid][key] = out[cid].get(key, 0) + 1
    return out


def apply_losses(state: GameState, losses: Mapping[int, Mapping[str, int]], *, by: str | None, turn_phase: str,
                 why: str) -> tuple[GameState, list[Event]]:
    """Remove ``losses`` from their commands.  A command left with nothing is destroyed; a
    commander lost is credited to ``by`` (its victory point, when ``by`` is an enemy side)
    and his elements pass to another command of his side in the node, or stay leaderless."""
    events: list[Event] = []
    killed: list[int] = []
    for cid, lost in sorted(losses.items()):
        try:
            c = state.command(int(cid))
        except KeyError:
            raise InputError(f"losses name command {cid}, which is not in play: name a command of the battle") from None
        els = dict(c.elements)
        general = c.general
        for key, n in lost.items():
            if n < 0:
                raise InputError(f"losses of command {cid}: {key} = {n}: give a count >= 0")
            if key == GENERAL:
                if n > 1 or not general:
                    raise InputError(f"losses of command {cid}: it has {'one commander' if general else 'no commander'}: "
                                     "lose at most that")
                if n:
                    general = ""
                continue
            if els.get(key, 0) < n:
                raise InputError(f"losses of command {cid}: {n} {key} but it has {els.get(key, 0)}: give at most that")
            els[key] -= n
            if not els[key]:
                del els[key]
        state = state.with_command(replace(c, elements=els, general=general))
        if c.general and not general:
            killed.append(c.id)
    for cid in killed:
        state, evs = _commander_lost(state, cid, by, turn_phase)
        events += evs
    empty = [c.id for c in state.commands if not c.elements and not c.general]
    if empty:
        state = state.without_commands(empty)
        events.append(Event(state.turn, turn_phase, "commands_destroyed", {"commands": empty, "why": why},
                            f"commands {', '.join(map(str, empty))} destroyed ({why})"))
    return state, events


def _commander_lost(state: GameState, cid: int, by: str | None, turn_phase: str) -> tuple[GameState, list[Event]]:
    c = state.command(cid)
    owner = state.owner(c)
    data: dict = {"command": cid, "side": owner, "node": c.node, "by": by}
    if by and c.side and state.enemies(by, c.side) and by in state.sides:
        state = state.with_side(by, commanders_destroyed=state.sides[by].commanders_destroyed + 1)
        data["victory_point_to"] = by
    mates = [m for m in state.at(c.node) if m.id != cid and m.side == c.side and m.city == c.city and m.general
             and not m.inherent]
    if mates and c.elements:
        to = mates[0]
        merged = dict(to.elements)
        for k, n in c.elements.items():
            merged[k] = merged.get(k, 0) + n
        state = state.with_command(replace(to, elements=merged)).without_commands([cid])
        data["elements_to"] = to.id
        text = f"command {cid}'s commander lost; its elements join command {to.id}"
    else:
        data["leaderless"] = bool(c.elements)
        text = f"command {cid}'s commander lost" + ("; its elements stay leaderless and cannot move" if c.elements else "")
    return state, [Event(state.turn, turn_phase, "commander_lost", data, text)]
