"""Sieges: laying one, the fall roll with its modifiers, disease, the fall, salvage.

A siege begins when the defenders at a fortified node declare every element inside the
walls and the besieger has at least as many effective elements (naval points of its
unsheltered fleet in a coastal node counting as elements; sheltered NPs never help the
defence).  In each of its own turns after a full turn of siege in which no besieging
counter moved, the besieger rolls one die: 8 or more, modified, and the city falls; an
unmodified 1 brings disease.  Once disease has come, every side with land forces in the
node rolls for them in each of its later turns, losing a tenth of their effective elements
on a 1; passers-by roll as they go (:mod:`.movement`).
"""

from __future__ import annotations

from dataclasses import replace

from bellica.geo.errors import InputError

from .battles import camps
from .dice import Dice
from .fleets import destroy_fleet
from .forces import GENERAL, apply_losses, effective, pick_losses
from .model import Battle, Command, Event, Fleet, GameState, NodeMap, Salvage, Siege
from .recovery import recover_np
from .rules import Rules
from .victory import capture_capital

__all__ = ["besieging_strength", "declare_siege", "defenders_inside", "ratio_modifier", "sally", "siege_modifiers",
           "siege_turn"]

PHASE = "siege"


def _besiegers(state: GameState, siege: Siege) -> tuple[Command, ...]:
    return tuple(c for c in state.at(siege.node) if state.owner(c) and state.friends(state.owner(c), siege.besieger)
                 and not c.in_city)


def defenders_inside(state: GameState, siege: Siege) -> tuple[Command, ...]:
    return tuple(c for c in state.at(siege.node) if c.in_city and not (state.owner(c) and state.friends(state.owner(c), siege.besieger)))


def besieging_strength(state: GameState, nmap: NodeMap, rules: Rules, siege: Siege) -> float:
    """The besieger's effective elements, its unsheltered fleet's NPs counting in a coastal node."""
    total = effective(_besiegers(state, siege), rules)
    f = state.fleet(siege.besieger)
    if f is not None and f.node == siege.node and not f.sheltered and nmap.places[siege.node].coastal:
        total += f.np
    return total


def ratio_modifier(besieger: float, defender: float, rules: Rules) -> int:
    """+1 at 2:1, +2 at 3:1 (``ratio_modifiers = "cumulative"``: +3 at 3:1)."""
    s = rules.sieges
    if defender <= 0:
        defender = 0.5
    if besieger >= 3 * defender:
        return s.ratio_3_to_1 + (s.ratio_2_to_1 if rules.options.ratio_modifiers == "cumulative" else 0)
    if besieger >= 2 * defender:
        return s.ratio_2_to_1
    return 0


def siege_modifiers(state: GameState, nmap: NodeMap, rules: Rules, siege: Siege) -> dict[str, int]:
    """The named modifiers of this turn's fall roll."""
    mods: dict[str, int] = {}
    r = ratio_modifier(besieging_strength(state, nmap, rules, siege), effective(defenders_inside(state, siege), rules), rules)
    if r:
        mods["ratio"] = r
    city = rules.sieges.city_modifiers.get(siege.node, 0)
    if city:
        mods["city"] = city
    if siege.rolls:
        mods["consecutive_turns"] = siege.rolls * rules.sieges.per_consecutive_turn
    return mods


def declare_siege(state: GameState, nmap: NodeMap, rules: Rules, node: str) -> tuple[GameState, list[Event]]:
    """The defenders at ``node`` go inside the walls instead of fighting: the battle due there
    becomes a siege, if the attacker has at least as many effective elements."""
    b = state.battle_at(node)
    if b is None:
        raise InputError(f"no battle is due at {node}: a siege begins when the defenders of a due battle go inside")
    if not nmap.places[node].fortified:
        raise InputError(f"{node} is not a fortified city: the battle must be fought")
    if b.defence:
        raise InputError(f"the defenders at {node} chose a {b.defence} defence in the field: with elements outside "
                         "the walls there is no siege; the battle must be fought")
    att, dfn = camps(state, b)
    for city in sorted({c.city for c in dfn if c.city and not c.side}):
        cs = state.cities[city]
        n = sum(1 for c in dfn if c.city == city and not c.side)
        if cs.holder is None and n > 1:          # neutral, attacked, or allied to a defender alike
            raise InputError(f"{city}'s {n} commands cannot all shut themselves in: a city of two or three commands "
                             "holds the walls with one and meets the attacker in the field; the battle must be fought")
    if not dfn:
        raise InputError(f"no enemy stands at {node} to go inside the walls: there is nothing to besiege")
    inside = tuple(replace(c, in_city=True) for c in dfn)
    state2 = state.with_commands(inside)
    siege = Siege(node, b.attacker, b.defenders[0], started=state.turn)
    need = effective(inside, rules)
    have = besieging_strength(state2, nmap, rules, siege)
    if have < need:
        raise InputError(f"{b.attacker} has {have:g} effective elements at {node}, fewer than the {need:g} inside: "
                         "too few to besiege; the battle must be fought")
    state = replace(state2, battles=tuple(x for x in state.battles if x is not b), sieges=state.sieges + (siege,))
    return state, [Event(state.turn, PHASE, "siege_begun", {"node": node, "besieger": b.attacker, "defender": siege.defender,
                                                           "besiegers": have, "inside": need},
                         f"{b.attacker} lays siege to {node} ({have:g} against {need:g} inside)")]


def sally(state: GameState, node: str, *, naval: bool = False) -> tuple[GameState, list[Event]]:
    """The phasing side's forces besieged at ``node`` sally against the besiegers (after its
    movement): a land battle with the phasing side attacking from the city.  Beaten, they go
    back inside and the siege goes on; the besieger beaten retreats and the siege is lifted.
    ``naval``: its fleet sheltered in the harbour puts out instead and fights the besieging
    fleet there (a fleet fight, :func:`~.fleets.fleet_battle`)."""
    side = state.phasing
    siege = state.siege_at(node)
    if siege is None or siege.besieger == side or state.phase != "battles":
        raise InputError(f"{side} can sally only from a city it holds under siege, after its movement")
    if naval:
        f = state.fleet(side)
        if f is None or f.node != node or not f.sheltered:
            raise InputError(f"{side} has no fleet sheltered in {node}'s harbour to sally with")
        rivals = [g for g in state.fleets_at(node) if state.enemies(side, g.side) and not g.sheltered]
        if not rivals:
            raise InputError(f"no besieging fleet lies off {node}: a naval sally needs one to fight")
        if state.battle_at(node, "naval") is not None:
            raise InputError(f"a fleet fight is already due at {node}")
        state = state.with_fleet(replace(f, sheltered=False))
        b = Battle(node, side, tuple(sorted(g.side for g in rivals)), kind="naval", sally=True)
        state = replace(state, battles=state.battles + (b,))
        return state, [Event(state.turn, PHASE, "sally", {"node": node, "side": side, "naval": True,
                                                          "defenders": list(b.defenders)},
                             f"{side}'s fleet puts out of {node} against {', '.join(b.defenders)}'s fleet")]
    out = [c for c in defenders_inside(state, siege) if c.side == side and not c.inherent]
    if not out:
        raise InputError(f"{side} has no command inside {node} free to sally")
    state = state.with_commands([replace(c, in_city=False) for c in out])
    b = Battle(node, side, (siege.besieger,), base_edge=node, sally=True)
    state = replace(state, battles=state.battles + (b,))
    return state, [Event(state.turn, PHASE, "sally", {"node": node, "side": side, "commands": [c.id for c in out]},
                         f"{side} sallies from {node} against {siege.besieger}")]


def _disease_roll(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice, siege: Siege, side: str,
                  force: tuple[Command, ...]) -> tuple[GameState, list[Event]]:
    if not force:
        return state, []
    mods = {}
    if side == siege.besieger and rules.options.siege_modifiers_apply == "both":
        mods = siege_modifiers(state, nmap, rules, siege)
    r = dice.roll("disease", state.turn, siege.node, side)
    total = r.value + sum(mods.values())
    data = {"node": siege.node, "side": side, "roll": r.as_data(), "modifiers": mods, "total": total}
    if total > rules.sieges.disease_at:
        return state, [Event(state.turn, PHASE, "disease_roll", {**data, "struck": False},
                             f"disease at {siege.node} spares {side} ({total})")]
    n = rules.share(effective(force, rules), rules.sieges.disease_loss_percent)
    losses = pick_losses(force, n)
    state, evs = apply_losses(state, losses, by=None, turn_phase=PHASE, why=f"disease at {siege.node}")
    return state, [Event(state.turn, PHASE, "disease_roll", {**data, "struck": True, "lost": n},
                         f"disease at {siege.node}: {side} loses {n} elements ({total})")] + evs


def _force(state: GameState, siege: Siege, side: str) -> tuple[Command, ...]:
    """``side``'s own land forces in the siege's node (a city's commands allied to it included)."""
    return tuple(c for c in state.at(siege.node) if state.owner(c) == side)


def _arrived_before(state: GameState, siege: Siege) -> bool:
    return bool(siege.disease) and (state.turn, state.current) > (siege.disease, siege.disease_index)


def siege_turn(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """The phasing side's siege business at the end of its movement: sieges it can no longer
    sustain are lifted, disease rolls for its forces, fall rolls for its full-turn sieges."""
    side = state.phasing
    events: list[Event] = []
    for siege in list(state.sieges):
        siege = state.siege_at(siege.node)
        if siege is None:
            continue
        inside = defenders_inside(state, siege)
        if siege.besieger == side:
            have, need = besieging_strength(state, nmap, rules, siege), effective(inside, rules)
            if not inside:
                state = replace(state, sieges=tuple(s for s in state.sieges if s is not siege))
                events.append(Event(state.turn, PHASE, "siege_ended", {"node": siege.node, "why": "no defenders left"},
                                    f"the siege of {siege.node} ends: nobody is left inside"))
                state, evs = _fall(state, nmap, rules, dice, siege, 0.0)
                events += evs
                continue
            if have < need:
                state = replace(state, sieges=tuple(s for s in state.sieges if s is not siege))
                events.append(Event(state.turn, PHASE, "siege_lifted", {"node": siege.node, "besieger": side, "why": "too few"},
                                    f"the siege of {siege.node} is lifted: {have:g} besiegers against {need:g} inside"))
                continue
            if _arrived_before(state, siege):
                state, evs = _disease_roll(state, nmap, rules, dice, siege, side, _force(state, siege, side))
                events += evs
            f = state.fleet(side)
            moved = any(c.moved for c in _besiegers(state, siege)) or (f is not None and f.node == siege.node and f.moved)
            if moved:
                if siege.rolls:
                    state = _replace_siege(state, siege, replace(siege, rolls=0))
                    events.append(Event(state.turn, PHASE, "siege_interrupted", {"node": siege.node},
                                        f"besiegers moved at {siege.node}: the siege starts its count again"))
                continue
            if siege.started >= state.turn:
                continue
            state, evs = _fall_roll(state, nmap, rules, dice, siege)
            events += evs
        elif _arrived_before(state, siege) and _force(state, siege, side):
            # every army in the node rolls in its own turn: the besieged, a relief force, a third side
            state, evs = _disease_roll(state, nmap, rules, dice, siege, side, _force(state, siege, side))
            events += evs
    return state, events


def _replace_siege(state: GameState, old: Siege, new: Siege) -> GameState:
    return replace(state, sieges=tuple(new if s is old else s for s in state.sieges))


def _fall_roll(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice, siege: Siege) -> tuple[GameState, list[Event]]:
    mods = siege_modifiers(state, nmap, rules, siege)
    r = dice.roll("siege", state.turn, siege.node, siege.besieger)
    total = r.value + sum(mods.values())
    falls = total >= rules.sieges.fall_at
    disease = r.value == rules.sieges.disease_natural
    data = {"node": siege.node, "besieger": siege.besieger, "roll": r.as_data(), "modifiers": mods, "total": total,
            "needed": rules.sieges.fall_at, "falls": falls, "disease": disease and not siege.disease}
    events = [Event(state.turn, PHASE, "siege_roll", data,
                    f"siege of {siege.node}: {r.value}{''.join(f' {v:+d} {k}' for k, v in mods.items())} = {total}"
                    + (": the city falls" if falls else "") + ("; disease breaks out" if data["disease"] else ""))]
    new = replace(siege, rolls=siege.rolls + 1)
    if data["disease"]:
        new = replace(new, disease=state.turn, disease_index=state.current)
    state = _replace_siege(state, siege, new)
    if falls:
        inside = effective(defenders_inside(state, new), rules)
        state, evs = _fall(state, nmap, rules, dice, new, inside)
        events += evs
    return state, events


def _fall(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice, siege: Siege, inside_strength: float) -> tuple[GameState, list[Event]]:
    node, side = siege.node, siege.besieger
    events: list[Event] = []
    inside = defenders_inside(state, siege)
    if inside:
        lost = {c.id: {**dict(c.elements), **({GENERAL: 1} if c.general else {})} for c in inside}
        state, evs = apply_losses(state, lost, by=side, turn_phase=PHASE, why=f"{node} falls")
        events += evs
    cost = rules.share(inside_strength, rules.sieges.fall_loss_percent)
    if cost:
        state, evs = apply_losses(state, pick_losses(_besiegers(state, siege), cost), by=None, turn_phase=PHASE,
                                  why=f"storming {node}")
        events += evs
    events.append(Event(state.turn, PHASE, "city_falls", {"node": node, "by": side, "besieger_loss": cost},
                        f"{node} falls to {side}, who loses {cost} elements"))
    state = replace(state, sieges=tuple(s for s in state.sieges if s.node != node))
    # sheltered fleets in the harbour are lost, and may be salvaged by the taker
    for f in [g for g in state.fleets_at(node) if g.sheltered and state.enemies(side, g.side)]:
        np_ = f.np
        state, events = destroy_fleet(state, f.side, side, f"{node} falls", PHASE, events)
        back, evs = recover_np(state, rules, dice, node, side, np_, held_field=rules.options.salvage_held_field,
                               label="salvage", phase=PHASE)
        events += evs
        if back:
            own = state.fleet(side)
            if own is None:
                state = state.with_fleet(Fleet(side, node, back))
            elif own.node == node:
                state = state.with_fleet(replace(own, np=own.np + back))
            else:
                state = replace(state, salvage=state.salvage + (Salvage(side, node, back),))
    city = state.cities.get(node)
    if city is not None:
        if city.holder and city.holder != side and state.sides.get(city.holder) and state.sides[city.holder].capital == node:
            state, evs = capture_capital(state, city.holder, side, PHASE)
            events += evs
        else:
            state = state.with_city(node, ally=side, holder=side, hostile_to=None)
    return state, events
