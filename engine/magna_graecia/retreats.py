"""Post-combat movement: the retreats owed after battles.

A retreating land counter moves at least one node and at most its movement points (at
least one), along the paths still open to it, into nodes that are empty, neutral or held
by friends.  It may enter a node with enemy land counters only when forced, every open way
leading into one, and is then destroyed (a node holding only an enemy fleet is no bar);
ending in breach of the stacking limit it is destroyed; with no open path at all it is
destroyed.  A fleet retreats the same way over the sea paths: onto an enemy fleet only when
forced (destroyed); it ends among enemy land counters only when no free coastal node is
within reach, and is destroyed there.  A besieger
forced to retreat lifts its siege.  The non-phasing sides retreat before the phasing side.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from bellica.geo.errors import InputError

from .fleets import destroy_fleet
from .forces import GENERAL, apply_losses, movement_points
from .model import Event, GameState, NodeMap, Retreat
from .movement import stacking_problems
from .rules import Rules

__all__ = ["retreat", "retreat_fleet"]

PHASE = "retreat"


def _owed(state: GameState, *, command: int = 0, fleet_side: str = "") -> Retreat:
    for r in state.retreats:
        if (command and r.command == command) or (fleet_side and r.fleet_side == fleet_side):
            return r
    what = f"command {command}" if command else f"{fleet_side}'s fleet"
    owed = ", ".join(f"command {r.command}" if r.command else f"{r.fleet_side}'s fleet" for r in state.retreats) or "none"
    raise InputError(f"{what} owes no retreat: retreats owed: {owed}")


def _non_phasing_first(state: GameState, owed: Retreat) -> None:
    """The non-phasing sides' counters move first (the seed's order for retiring after an undecided day)."""
    if state.retreat_side(owed) != state.phasing:
        return
    first = [r for r in state.retreats if r is not owed and state.retreat_side(r) not in ("", state.phasing)]
    if first:
        what = f"command {first[0].command}" if first[0].command else f"{first[0].fleet_side}'s fleet"
        raise InputError(f"the non-phasing side retreats first: move {what} before {state.phasing}'s counters")


def _lift(state: GameState, side: str, node: str, events: list[Event]) -> GameState:
    siege = state.siege_at(node)
    if siege is not None and siege.besieger == side:
        state = replace(state, sieges=tuple(s for s in state.sieges if s is not siege))
        events.append(Event(state.turn, PHASE, "siege_lifted", {"node": node, "besieger": side, "why": "retreat"},
                            f"the siege of {node} is lifted: {side} retreats"))
    return state


def _destroy(state: GameState, cid: int, why: str, events: list[Event], by: str = "") -> GameState:
    c = state.command(cid)
    if not by:
        enemies = [s for s in state.playing() if state.enemies(c.side, s)]
        by = enemies[0] if len(enemies) == 1 else ""
    lost = {cid: {**dict(c.elements), **({GENERAL: 1} if c.general else {})}}
    state, evs = apply_losses(state, lost, by=by or None, turn_phase=PHASE, why=why)
    events += evs
    events.append(Event(state.turn, PHASE, "retreat_destroyed", {"command": cid, "why": why}, f"command {cid} is destroyed: {why}"))
    return state


def retreat(state: GameState, nmap: NodeMap, rules: Rules, cid: int, path: Sequence[str]) -> tuple[GameState, list[Event]]:
    """Retreat command ``cid`` along ``path``; an empty path: no way is open and it is destroyed."""
    owed = _owed(state, command=cid)
    _non_phasing_first(state, owed)
    c = state.command(cid)
    events: list[Event] = []
    state = replace(state, retreats=tuple(r for r in state.retreats if r is not owed))
    state = _lift(state, c.side, c.node, events) if owed.lift_siege else state
    if not path:
        return _destroy(state, cid, f"no open way out of {c.node}", events, owed.by), events
    most = max(1, movement_points(replace(c, inherent=False), rules) if c.general else 1)
    if len(path) > most:
        raise InputError(f"command {cid} retreats at most {most} nodes: give a shorter path")
    if owed.open_paths and path[0] not in owed.open_paths:
        raise InputError(f"command {cid}: the way to {path[0]} is closed; retreat towards {', '.join(owed.open_paths)}")
    # a counter may only enter empty, neutral or friendly nodes: it is destroyed entering an
    # enemy's only when it is forced to, that is when every open way out leads into one
    free = [n for n in (owed.open_paths or nmap.neighbours(c.node, "land"))
            if nmap.joined(c.node, n, "land") and not state.enemy_land(n, c.side)]
    here = c.node
    for node in path:
        if not nmap.joined(here, node, "land"):
            raise InputError(f"command {cid}: no path from {here} to {node}: follow the map's paths")
        if state.enemy_land(node, c.side):
            if free:
                raise InputError(f"command {cid} may not retreat into enemy-held {node} while a way is open "
                                 f"towards {', '.join(free)}: retreat into an empty, neutral or friendly node")
            state = state.with_command(replace(state.command(cid), node=node))
            return _destroy(state, cid, f"forced into enemy-held {node}", events, owed.by), events
        here = node
    state = state.with_command(replace(state.command(cid), node=here, entered_from=c.node, in_city=False))
    events.insert(0, Event(state.turn, PHASE, "retreated", {"command": cid, "side": c.side, "path": list(path)},
                           f"command {cid} retreats {' -> '.join(path)}"))
    if here in stacking_problems(state, rules, c.side):
        state = _destroy(state, cid, f"too many counters at {here}", events, owed.by)
    return state, events


def _safe_harbours(state: GameState, nmap: NodeMap, rules: Rules, side: str, start: str, enemy_fleet) -> list[str]:
    """Coastal nodes a retreating fleet can reach (never through an enemy fleet) and end in
    without enemy land counters."""
    seen, frontier, out = {start}, [start], []
    for _ in range(rules.movement.fleet_mp):
        nxt = []
        for node in frontier:
            for n in nmap.neighbours(node, "sea"):
                if n in seen or not nmap.places[n].coastal or enemy_fleet(n):
                    continue
                seen.add(n)
                nxt.append(n)
                if not state.enemy_land(n, side):
                    out.append(n)
        frontier = nxt
    return sorted(out)


def retreat_fleet(state: GameState, nmap: NodeMap, rules: Rules, side: str, path: Sequence[str]) -> tuple[GameState, list[Event]]:
    """Retreat ``side``'s fleet (with what it carries) along sea paths; empty path: destroyed."""
    owed = _owed(state, fleet_side=side)
    _non_phasing_first(state, owed)
    f = state.fleet(side)
    events: list[Event] = []
    state = replace(state, retreats=tuple(r for r in state.retreats if r is not owed))
    state = _lift(state, side, f.node, events)
    # the side it retreats from is credited with the NPs (and commanders aboard) lost on the way
    enemies = [s for s in state.playing() if state.enemies(side, s)]
    by = owed.by or (enemies[0] if len(enemies) == 1 else "")
    if not path:
        return destroy_fleet(state, side, by or None, f"no way out of {f.node}", PHASE, events)
    if len(path) > rules.movement.fleet_mp:
        raise InputError(f"{side}'s fleet retreats at most {rules.movement.fleet_mp} nodes: give a shorter path")
    def enemy_fleet(node: str) -> bool:
        return any(g.side != side and state.enemies(side, g.side) for g in state.fleets_at(node))

    free = [n for n in nmap.neighbours(f.node, "sea") if nmap.places[n].coastal and not enemy_fleet(n)]
    here = f.node
    for i, node in enumerate(path):
        p = nmap.places.get(node)
        if p is None or not p.coastal or not nmap.joined(here, node, "sea"):
            raise InputError(f"{side}'s fleet: no sea path from {here} to {node}")
        if enemy_fleet(node):
            if free:
                raise InputError(f"{side}'s fleet may not retreat onto the enemy fleet at {node} while the sea is open "
                                 f"towards {', '.join(free)}: retreat there")
            there = next(g.side for g in state.fleets_at(node) if g.side != side and state.enemies(side, g.side))
            return destroy_fleet(state, side, there, f"forced onto the enemy fleet at {node}", PHASE, events)
        here = node
    if state.enemy_land(here, side):
        ends = _safe_harbours(state, nmap, rules, side, f.node, enemy_fleet)
        if ends:
            raise InputError(f"{side}'s fleet may not end its retreat where enemy land counters stand ({here}) while "
                             f"it can reach {', '.join(ends)}: retreat there")
        return destroy_fleet(state, side, by or None, f"no landing at enemy-held {here}", PHASE, events)
    cmds = [replace(state.command(i), node=here) for i in f.carrying]
    state = state.with_commands(cmds).with_fleet(replace(f, node=here, sheltered=False))
    events.insert(0, Event(state.turn, PHASE, "fleet_retreated", {"side": side, "path": list(path)},
                           f"{side}'s fleet retreats {' -> '.join(path)}"))
    return state, events
