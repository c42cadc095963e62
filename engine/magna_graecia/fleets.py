"""Fleet fights: two fleets in one node fight, or one retreats instead.

Each side rolls a die and adds its fleet's naval points; the higher total wins and the
loser retreats, losing as many NPs as the difference.  Spare NPs (those carrying nobody)
go first; past them every NP lost drowns one carried element (the owner's choice, else
:func:`~bellica.engine.magna_graecia.forces.pick_losses`), never recovered.  Lost NPs are
rolled for at once (:func:`~bellica.engine.magna_graecia.recovery.recover_np`).  A fleet
left with no NP is destroyed with all aboard.  A tie: option ``fleet_tie``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from bellica.geo.errors import InputError

from .dice import Dice
from .forces import GENERAL, apply_losses, pick_losses
from .model import Event, GameState, NodeMap, Retreat
from .recovery import recover_np
from .rules import Rules

__all__ = ["destroy_fleet", "drowned", "fleet_battle", "lose_np"]

PHASE = "battle"
#: Rerolls of a tied fight before it is left standing (option ``fleet_tie = "reroll"``).
MAX_REROLLS = 20


def destroy_fleet(state: GameState, side: str, by: str | None, why: str, phase: str,
                  events: list[Event]) -> tuple[GameState, list[Event]]:
    """``side``'s fleet and all aboard are lost; ``by`` is credited with the NPs and commanders."""
    f = state.fleet(side)
    if f is None:
        return state, events
    if f.carrying:
        lost = {cid: {**dict(state.command(cid).elements), **({GENERAL: 1} if state.command(cid).general else {})}
                for cid in f.carrying}
        state, evs = apply_losses(state, lost, by=by, turn_phase=phase, why=why)
        events += evs
    if by and by in state.sides and state.enemies(by, side):
        state = state.with_side(by, np_destroyed=state.sides[by].np_destroyed + f.np)
    state = state.without_fleet(side)
    events.append(Event(state.turn, phase, "fleet_destroyed", {"side": side, "node": f.node, "np": f.np, "by": by, "why": why},
                        f"{side}'s fleet of {f.np} NP is destroyed at {f.node} ({why})"))
    return state, events


def lose_np(state: GameState, rules: Rules, dice: Dice, side: str, n: int, by: str | None, *,
            element_losses=None, phase: str = PHASE) -> tuple[GameState, list[Event]]:
    """``side``'s fleet loses ``n`` NPs: spare ones first, then one carried element per NP."""
    f = state.fleet(side)
    events: list[Event] = []
    carried = sum(state.command(i).element_count() for i in f.carrying)
    per = rules.fleets.elements_per_np
    spare = max(0, f.np - -(-carried // per))
    lost_np = min(n, f.np)
    drown = min(carried, max(0, lost_np - spare) * per)
    if drown:
        chosen = drowned(state, side, drown, element_losses)
        state, evs = apply_losses(state, chosen, by=by, turn_phase=phase, why="lost at sea")
        events += evs
    f = state.fleet(side)
    back, evs = recover_np(state, rules, dice, f.node, side, lost_np, held_field=False, phase=phase)
    events += evs
    gone = lost_np - back
    events.insert(0, Event(state.turn, phase, "np_lost", {"side": side, "np": lost_np, "spare": min(lost_np, spare),
                                                          "elements_drowned": drown, "recovered": back},
                           f"{side}'s fleet loses {lost_np} NP ({min(lost_np, spare)} spare, {drown} elements drowned), "
                           f"{back} recovered"))
    if by and by in state.sides and state.enemies(by, side):
        state = state.with_side(by, np_destroyed=state.sides[by].np_destroyed + gone)
    if f.np - gone <= 0:
        state = state.with_fleet(replace(f, np=0))
        return destroy_fleet(state, side, by, "no naval points left", phase, events)
    return state.with_fleet(replace(f, np=f.np - gone)), events


def drowned(state: GameState, side: str, n: int, choice) -> dict[int, dict[str, int]]:
    """The ``n`` elements ``side`` loses aboard its fleet: "the controlling player chooses which
    elements to lose".  ``choice`` lists them in the player's order ((command, element, count) triples,
    written before the dice are known, so it may name more than are lost: the first ``n`` go);
    what it leaves short is the engine's pick (:func:`pick_losses`), as when no choice is given."""
    f = state.fleet(side)
    out: dict[int, dict[str, int]] = {}
    left = n
    for cid, e, count in _triples(choice):
        if cid not in f.carrying:
            raise InputError(f"{side}'s fleet does not carry command {cid}: choose elements of commands "
                             f"{list(f.carrying)} to lose")
        cmd = state.command(cid)
        have = (1 if cmd.general else 0) if e == GENERAL else cmd.elements.get(e, 0)
        if count + out.get(cid, {}).get(e, 0) > have:
            raise InputError(f"command {cid} has {have} {e} aboard: choose at most that many to lose")
        take = min(count, left)
        if take:
            out.setdefault(cid, {})[e] = out.get(cid, {}).get(e, 0) + take
            left -= take
    if left:
        rest = [_less(state.command(i), out.get(i, {})) for i in f.carrying]
        for cid, els in pick_losses(rest, left).items():
            for e, count in els.items():
                out.setdefault(int(cid), {})[e] = out.get(int(cid), {}).get(e, 0) + count
    return out


def _triples(choice) -> list[tuple[int, str, int]]:
    """A choice as (command, element, count) in the player's order: a list of triples (what the
    log keeps: JSON keeps a list's order, not a table's) or a {command: {element: count}} table."""
    if not choice:
        return []
    if isinstance(choice, Mapping):
        return [(int(k), str(e), int(n)) for k, els in choice.items() for e, n in els.items()]
    return [(int(k), str(e), int(n)) for k, e, n in choice]


def _less(cmd, gone: Mapping[str, int]):
    """``cmd`` without the elements already chosen to go (so the engine's pick does not repeat them)."""
    els = {e: k - gone.get(e, 0) for e, k in cmd.elements.items() if k - gone.get(e, 0) > 0}
    return replace(cmd, elements=els, general="" if gone.get(GENERAL) else cmd.general)


def fleet_battle(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice, node: str, *, retreat: str | None = None,
                 element_losses=None) -> tuple[GameState, list[Event]]:
    """Resolve the fleet fight at ``node``: ``retreat`` names a side that declines and retreats."""
    b = state.battle_at(node, "naval")
    if b is None:
        raise InputError(f"no fleet fight is due at {node}")
    a_side, d_side = b.attacker, b.defenders[0]
    others = tuple(x for x in state.battles if x is not b)
    state = replace(state, battles=others)
    if retreat is not None:
        if retreat not in (a_side, d_side):
            raise InputError(f"{retreat!r} has no fleet in the fight at {node}: give {a_side} or {d_side}")
        by = d_side if retreat == a_side else a_side
        state = state.with_retreats(state.retreats + (Retreat(fleet_side=retreat, by=by),))
        return state, [Event(state.turn, PHASE, "fleet_declines", {"node": node, "side": retreat},
                             f"{retreat}'s fleet declines battle at {node} and retreats")]
    fa, fd = state.fleet(a_side), state.fleet(d_side)
    attempt = 1
    rows = []
    while True:
        ra = dice.roll("fleet", state.turn, node, a_side, attempt)
        rd = dice.roll("fleet", state.turn, node, d_side, attempt)
        ta, td = ra.value + fa.np, rd.value + fd.np
        rows.append({a_side: {"roll": ra.as_data(), "np": fa.np, "total": ta}, d_side: {"roll": rd.as_data(), "np": fd.np, "total": td}})
        if ta != td or rules.options.fleet_tie != "reroll" or attempt >= MAX_REROLLS:
            break
        attempt += 1
    data = {"node": node, "rolls": rows, "tie_rule": rules.options.fleet_tie}
    if ta == td:
        if rules.options.fleet_tie == "defender_holds":
            state = state.with_retreats(state.retreats + (Retreat(fleet_side=a_side, by=d_side),))
            return state, [Event(state.turn, PHASE, "fleet_battle", {**data, "winner": d_side, "loss": 0},
                                 f"fleets tie at {node} ({ta}); {d_side} holds and {a_side} withdraws")]
        return state, [Event(state.turn, PHASE, "fleet_battle", {**data, "winner": None, "loss": 0},
                             f"fleets tie at {node} ({ta}); both stay")]
    winner, loser = (a_side, d_side) if ta > td else (d_side, a_side)
    diff = abs(ta - td)
    events = [Event(state.turn, PHASE, "fleet_battle", {**data, "winner": winner, "loser": loser, "loss": diff},
                    f"fleet battle at {node}: {winner} {max(ta, td)} beats {loser} {min(ta, td)}; {loser} loses {diff} NP")]
    state, evs = lose_np(state, rules, dice, loser, diff, winner, element_losses=element_losses)
    events += evs
    if state.fleet(loser) is not None:
        state = state.with_retreats(state.retreats + (Retreat(fleet_side=loser, by=winner),))
    return state, events
