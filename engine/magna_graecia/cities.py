"""Neutral cities: the alliance roll, attacking a city, a defeated city's forces joining the victor.

A side ending its movement with a land counter in a city's node that is not already its
friend rolls a die: on a 6 the city joins it, even if it was allied to another side.  No
roll is made where the city is allied to an enemy who has a command present.  Attacking a
neutral city makes it an ally of the attacker's opponent (option ``attacked_city_joins``
for three sides).  A city's own commands never leave its node.
"""

from __future__ import annotations

from dataclasses import replace

from bellica.geo.errors import InputError

from .battles import entry_edges
from .dice import Dice
from .model import Battle, Event, GameState
from .rules import Rules

__all__ = ["alliance_rolls", "attack_city", "city_commands", "join"]

PHASE = "movement"


def city_commands(state: GameState, city: str):
    return tuple(c for c in state.commands if c.city == city and not c.side)


def join(state: GameState, city: str, side: str | None, phase: str, why: str) -> tuple[GameState, list[Event]]:
    before, hostile = state.cities[city].ally, state.cities[city].hostile_to
    state = state.with_city(city, ally=side, hostile_to=None if side == hostile else hostile)
    return state, [Event(state.turn, phase, "city_joins", {"city": city, "side": side, "was": before, "why": why},
                         f"{city} joins {side or 'no side'} ({why})")]


def alliance_rolls(state: GameState, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """The phasing side's alliance rolls at the end of its movement."""
    side = state.phasing
    events: list[Event] = []
    for name in sorted(state.cities):
        city = state.cities[name]
        if city.holder is not None:          # a capital, or a city taken by siege
            continue
        if not any(c.side == side and not c.aboard and not c.inherent for c in state.at(name)):
            continue
        if city.ally is not None and state.friends(side, city.ally):
            continue
        if city.ally is not None and any(c.side and state.owner(c) == city.ally for c in state.at(name)):
            events.append(Event(state.turn, PHASE, "alliance_not_rolled", {"city": name, "side": side, "ally": city.ally},
                                f"{side} cannot sway {name}: {city.ally} has a command there"))
            continue
        r = dice.roll("alliance", state.turn, name, side)
        data = {"city": name, "side": side, "roll": r.as_data(), "needed": rules.neutral.alliance_roll, "was": city.ally}
        if r.value >= rules.neutral.alliance_roll:
            state, evs = join(state, name, side, PHASE, f"alliance roll {r.value}")
            events.append(Event(state.turn, PHASE, "alliance_roll", {**data, "joined": True},
                                f"{name} joins {side} on a {r.value}"))
            events += evs
            state, evs = _nobody_left_to_fight(state, name)
            events += evs
        else:
            stays = "neutral" if city.ally is None else f"{city.ally}'s ally"
            events.append(Event(state.turn, PHASE, "alliance_roll", {**data, "joined": False},
                                f"{name} stays {stays} ({r.value})"))
    return state, events


def _nobody_left_to_fight(state: GameState, node: str) -> tuple[GameState, list[Event]]:
    """A city attacked this movement (so allied to the attacker's opponent) that the alliance
    roll then swings to the attacker ("the city joins that player's side, even if it is
    currently allied to the opposing side") is the attacker's friend: the battle due against
    it is called off when no enemy is left in the node to fight, and no siege can follow.  The
    attacker's counters simply stand in a friendly city's node (docs/rules/magna-graecia.md)."""
    from .battles import camps

    b = state.battle_at(node)
    if b is None or b.kind != "land" or camps(state, b)[1]:
        return state, []
    state = replace(state, battles=tuple(x for x in state.battles if x is not b))
    return state, [Event(state.turn, PHASE, "battle_called_off", {"node": node, "attacker": b.attacker},
                         f"no battle at {node}: the city has joined {b.attacker} and no enemy is left there")]


def _opponent(state: GameState, rules: Rules, attacker: str) -> str | None:
    enemies = [s for s in state.playing() if state.enemies(attacker, s)]
    if not enemies:
        return None
    if len(state.playing()) == 2 or rules.options.attacked_city_joins == "next_enemy":
        order = list(state.order)
        i = order.index(attacker)
        for s in order[i + 1:] + order[:i]:
            if s in enemies:
                return s
    return None


def attack_city(state: GameState, rules: Rules, node: str, *, by: str | None = None) -> tuple[GameState, list[Event]]:
    """The phasing side attacks the neutral city of ``node``, where it has a land counter:
    the city allies with its opponent, and a battle with the city's forces is due.

    ``by``: a side defending in the battle due at ``node`` that attacks the city during that
    battle; the city's army at once joins the side it was not attacked by (the battle's
    attacker) as a committed ally, in the same battle."""
    if by is not None and by != state.phasing:
        return _attacked_by_defender(state, node, by)
    side = state.phasing
    city = state.cities.get(node)
    if city is None or not city_commands(state, node):
        raise InputError(f"{node} has no city forces to attack")
    if city.ally is not None:
        raise InputError(f"{node} is {city.ally}'s ally, not neutral: its forces fight as {city.ally}'s")
    if not any(c.side == side and not c.aboard for c in state.at(node)):
        raise InputError(f"{side} has no land counter at {node} to attack with")
    if state.phase not in ("movement", "battles"):
        raise InputError(f"a city is attacked after movement, not in the {state.phase} phase")
    to = _opponent(state, rules, side)
    events: list[Event] = []
    state = state.with_city(node, hostile_to=side)
    if to is not None:
        state, events = join(state, node, to, state.phase, f"attacked by {side}")
    edges = entry_edges(state, node, side)
    base = edges[0] if edges else node   # the attacker may name another (battles.choose_base_edge)
    defenders = (to,) if to is not None else (f"city:{node}",)
    existing = state.battle_at(node)
    if existing is not None:
        state = replace(state, battles=tuple(b for b in state.battles if b is not existing))
        defenders = tuple(dict.fromkeys(existing.defenders + defenders))
    state = replace(state, battles=state.battles + (Battle(node, side, defenders, base_edge=base),))
    events.insert(0, Event(state.turn, state.phase, "city_attacked", {"city": node, "by": side, "joins": to},
                           f"{side} attacks {node}" + (f", which joins {to}" if to else "")))
    return state, events


def _attacked_by_defender(state: GameState, node: str, by: str) -> tuple[GameState, list[Event]]:
    city = state.cities.get(node)
    if city is None or not city_commands(state, node):
        raise InputError(f"{node} has no city forces to attack")
    if city.ally is not None:
        raise InputError(f"{node} is {city.ally}'s ally, not neutral: its forces fight as {city.ally}'s")
    b = state.battle_at(node)
    if state.phase != "battles" or b is None:
        raise InputError(f"{by} may attack {node} only during a battle there in which it defends")
    if not any(d == by or (d in state.sides and state.friends(by, d)) for d in b.defenders):
        raise InputError(f"{by} does not fight in the battle at {node}")
    state = state.with_city(node, hostile_to=by)
    state, events = join(state, node, b.attacker, state.phase, f"attacked by {by} during the battle")
    events.insert(0, Event(state.turn, state.phase, "city_attacked", {"city": node, "by": by, "joins": b.attacker},
                           f"{by} attacks {node} during the battle; it joins {b.attacker}"))
    return state, events
