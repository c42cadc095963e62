"""Movement: land counters along paths, element exchanges, embarking and disembarking, fleets.

A node entered costs one movement point; a land counter entering a node with enemy land
counters halts there, unless every enemy there is shut inside a besieged city (a neutral
city's node never stops it).  A land counter passing through a node whose siege has disease
rolls for it (fleets never do); one that stops there rolls with its side's force in the
node at the end of the movement (:func:`~.sieges.siege_turn`), so never twice a turn.  Fleets sail along sea paths between
coastal nodes, pass but never stop where enemy land counters stand, and halt on entering
a node with an enemy fleet unless that fleet is sheltered.  Stacking is checked when the
side ends its movement (:func:`check_stacking`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from bellica.geo.errors import InputError

from .dice import Dice
from .forces import apply_losses, effective, movement_points, pick_losses
from .model import Command, Event, Fleet, GameState, NodeMap, give_elements
from .rules import Rules

__all__ = [
    "begin_movement",
    "check_stacking",
    "disembark",
    "embark",
    "exchange",
    "halts_at",
    "move",
    "move_fleet",
    "reachable",
    "reachable_by_sea",
    "shelter",
    "stacking_problems",
]

PHASE = "movement"


def begin_movement(state: GameState, rules: Rules) -> GameState:
    """The phasing side's counters get their movement points; everyone's ``moved`` is cleared."""
    side = state.phasing
    cmds = [replace(c, mp_left=movement_points(c, rules) if c.side == side else 0, moved=False) for c in state.commands]
    fleets = tuple(replace(f, mp_left=rules.movement.fleet_mp if f.side == side else 0, moved=False) for f in state.fleets)
    return replace(state.with_commands(cmds), fleets=fleets)


def _own(state: GameState, cid: int) -> Command:
    if state.phase != "movement":
        raise InputError(f"command {cid} cannot move in the {state.phase} phase: end the battles and retreats first")
    try:
        c = state.command(cid)
    except KeyError:
        c = None
    if c is None or c.side != state.phasing:
        # One answer whether the number is nobody's or another side's: whose a command is, and whether it
        # exists, is that side's secret (player view), so the refusal names only the phasing side's own.
        own = ", ".join(str(x.id) for x in state.commands if x.side == state.phasing) or "none"
        raise InputError(f"command {cid} is not one of {state.phasing}'s in play: move your own ({own})")
    return c


def halts_at(state: GameState, node: str, side: str) -> bool:
    """Whether a land counter of ``side`` entering ``node`` must halt there."""
    enemies = state.enemy_land(node, side)
    if not enemies:
        return False
    siege = state.siege_at(node)
    return not (siege is not None and all(c.in_city for c in enemies))


def _disease_on_passing(state: GameState, rules: Rules, dice: Dice, c: Command, node: str) -> tuple[GameState, list[Event]]:
    siege = state.siege_at(node)
    if siege is None or not siege.disease:
        return state, []
    r = dice.roll("disease-passing", state.turn, c.side, c.id, node)
    data = {"command": c.id, "node": node, "roll": r.as_data()}
    if r.value > rules.sieges.disease_at:
        return state, [Event(state.turn, PHASE, "disease_passed", data, f"command {c.id} passes the sick camp at {node} unharmed ({r.value})")]
    n = rules.share(effective([c], rules), rules.sieges.disease_loss_percent)
    losses = pick_losses([c], n)
    data["losses"] = {str(k): v for k, v in losses.items()}
    state, evs = apply_losses(state, losses, by=None, turn_phase=PHASE, why=f"disease at {node}")
    return state, [Event(state.turn, PHASE, "disease_struck", data, f"disease at {node}: command {c.id} loses {n} elements ({r.value})")] + evs


def move(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice, cid: int, path: Sequence[str]) -> tuple[GameState, list[Event]]:
    """Move land command ``cid`` along ``path`` (the nodes entered, in order)."""
    c = _own(state, cid)
    if c.aboard:
        raise InputError(f"command {cid} is aboard the fleet: disembark it first")
    if c.inherent:
        raise InputError(f"command {cid} is {c.node}'s own sub-general, who never leaves the city")
    if c.leaderless:
        raise InputError(f"command {cid} has no leader and cannot move")
    if not path:
        raise InputError(f"command {cid}: give the nodes to enter")
    cost = len(path) * rules.movement.node_cost
    if cost > c.mp_left:
        raise InputError(f"command {cid}: {len(path)} nodes cost {cost} movement points but it has {c.mp_left} left: move fewer")
    if c.moved and halts_at(state, c.node, c.side):
        raise InputError(f"command {cid} halted at {c.node} on entering it (enemy land counters there): "
                         "it moves no further this turn")
    here = start = c.node
    events: list[Event] = []
    if c.moved:
        # it stopped in this node earlier in the phase and now goes on: it passed through
        state, evs = _disease_on_passing(state, rules, dice, c, start)
        events += evs
        if all(x.id != cid for x in state.commands):
            return state, events
    for i, node in enumerate(path):
        if node not in nmap.places:
            raise InputError(f"command {cid}: {node!r} is not a node of the map")
        if not nmap.joined(here, node, "land"):
            raise InputError(f"command {cid}: no path from {here} to {node}: follow the map's paths")
        if i < len(path) - 1 and halts_at(state, node, c.side):
            raise InputError(f"command {cid} must halt at {node} (enemy land counters there): end its move there")
        state = state.with_command(replace(state.command(cid), node=node, entered_from=here))
        if i < len(path) - 1:
            # passing through; a counter that stops rolls with its side's force there (sieges.siege_turn)
            state, evs = _disease_on_passing(state, rules, dice, state.command(cid), node)
            events += evs
            if all(x.id != cid for x in state.commands):
                return state, events
        here = node
    c = state.command(cid)
    state = state.with_command(replace(c, mp_left=c.mp_left - cost, moved=True, in_city=False))
    events.insert(0, Event(state.turn, PHASE, "moved", {"command": cid, "side": c.side, "path": list(path),
                                                          "from": start},
                           f"{c.side} command {cid} moves {' -> '.join(path)}"))
    return state, events


def reachable(state: GameState, nmap: NodeMap, rules: Rules, cid: int) -> dict[str, list[str]]:
    """Every node command ``cid`` can end its move in now, with a shortest path to it (halts respected)."""
    c = state.command(cid)
    if c.aboard or c.inherent or c.leaderless or (c.moved and halts_at(state, c.node, c.side)):
        return {}
    steps = c.mp_left // max(1, rules.movement.node_cost)
    out: dict[str, list[str]] = {}
    frontier = [(c.node, [])]
    for _ in range(steps):
        nxt = []
        for node, path in frontier:
            if path and halts_at(state, node, c.side):
                continue
            for n in nmap.neighbours(node, "land"):
                if n != c.node and n not in out:
                    out[n] = path + [n]
                    nxt.append((n, path + [n]))
        frontier = nxt
    return out


def reachable_by_sea(state: GameState, nmap: NodeMap, rules: Rules, side: str) -> dict[str, list[str]]:
    """Every coastal node ``side``'s fleet can end its move in now, with a shortest path."""
    f = state.fleet(side)
    if f is None or (f.moved and any(g.side != side and state.enemies(side, g.side) and not g.sheltered
                                     for g in state.fleets_at(f.node))):
        return {}
    out: dict[str, list[str]] = {}
    frontier = [(f.node, [])]
    for _ in range(f.mp_left // max(1, rules.movement.node_cost)):
        nxt = []
        for node, path in frontier:
            if path and any(g.side != side and state.enemies(side, g.side) and not g.sheltered for g in state.fleets_at(node)):
                continue
            for n in nmap.neighbours(node, "sea"):
                if n != f.node and n not in out and nmap.places[n].coastal:
                    out[n] = path + [n]
                    nxt.append((n, path + [n]))
        frontier = nxt
    return {n: p for n, p in out.items() if _fleet_may_stop(state, n, side)}


def exchange(state: GameState, rules: Rules, giver: int, taker: int, elements: Mapping[str, int]) -> tuple[GameState, list[Event]]:
    """Move ``elements`` from command ``giver`` to ``taker`` in the same node; each pays a
    movement point (a capital's own sub-general pays none: he never moves anyway)."""
    a, b = _own(state, giver), _own(state, taker)
    if a.node != b.node or a.aboard or b.aboard:
        raise InputError(f"commands {giver} and {taker} must stand ashore in the same node to exchange elements")
    cost = rules.movement.exchange_cost
    for c in (a, b):
        if not c.inherent and c.mp_left < cost:
            raise InputError(f"command {c.id} has {c.mp_left} movement points; an exchange costs {cost}")
    ea, eb = give_elements(giver, a.elements, b.elements, elements)
    a2 = replace(a, elements=ea, mp_left=a.mp_left - (0 if a.inherent else cost))
    b2 = replace(b, elements=eb, mp_left=b.mp_left - (0 if b.inherent else cost))
    # a command's movement points follow its new make-up, never above what it had left
    a2 = replace(a2, mp_left=min(a2.mp_left, movement_points(a2, rules)))
    b2 = replace(b2, mp_left=min(b2.mp_left, movement_points(b2, rules)))
    state = state.with_commands([a2, b2])
    return state, [Event(state.turn, PHASE, "exchanged", {"from": giver, "to": taker, "elements": dict(elements), "node": a.node},
                         f"command {giver} passes {dict(elements)} to command {taker} at {a.node}")]


def _fleet(state: GameState, side: str) -> Fleet:
    f = state.fleet(side)
    if f is None:
        raise InputError(f"{side} has no fleet")
    return f


def carried_elements(state: GameState, f: Fleet) -> int:
    return sum(state.command(i).element_count() for i in f.carrying)


def embark(state: GameState, rules: Rules, cids: Sequence[int]) -> tuple[GameState, list[Event]]:
    """Embark commands onto their side's fleet in their node: each and the fleet pay a point;
    every element of each command must fit (one element per naval point)."""
    side = state.phasing
    f = _fleet(state, side)
    if state.phase != "movement":
        raise InputError("embarking is movement: end the battles and retreats first")
    if f.sheltered:
        raise InputError(f"{side}'s fleet is sheltered in harbour: put to sea (move it) before embarking")
    cost = rules.movement.embark_cost
    if f.mp_left < cost:
        raise InputError(f"{side}'s fleet has {f.mp_left} movement points; embarking costs it {cost}")
    load = carried_elements(state, f)
    cmds = []
    for cid in cids:
        c = _own(state, cid)
        if c.node != f.node or c.aboard or c.inherent or c.leaderless:
            raise InputError(f"command {cid} cannot embark: it must stand ashore at {f.node}, with a leader, free to leave")
        if c.mp_left < cost:
            raise InputError(f"command {cid} has {c.mp_left} movement points; embarking costs {cost}")
        load += c.element_count()
        cmds.append(replace(c, aboard=True, mp_left=c.mp_left - cost, moved=True, in_city=False))
    room = f.np * rules.fleets.elements_per_np
    if load > room:
        raise InputError(f"{side}'s fleet of {f.np} NP carries {room} elements; {load} would be aboard: embark fewer")
    state = state.with_commands(cmds).with_fleet(replace(f, carrying=f.carrying + tuple(cids), mp_left=f.mp_left - cost))
    return state, [Event(state.turn, PHASE, "embarked", {"side": side, "commands": list(cids), "node": f.node},
                         f"{side} embarks commands {', '.join(map(str, cids))} at {f.node}")]


def disembark(state: GameState, rules: Rules, cids: Sequence[int]) -> tuple[GameState, list[Event]]:
    """Land commands from their side's fleet at the fleet's node (no movement point)."""
    side = state.phasing
    f = _fleet(state, side)
    cmds = []
    for cid in cids:
        c = _own(state, cid)
        if cid not in f.carrying:
            raise InputError(f"command {cid} is not aboard {side}'s fleet")
        cmds.append(replace(c, aboard=False, node=f.node, mp_left=max(0, c.mp_left - rules.movement.disembark_cost)))
    state = state.with_commands(cmds).with_fleet(replace(f, carrying=tuple(i for i in f.carrying if i not in cids)))
    return state, [Event(state.turn, PHASE, "disembarked", {"side": side, "commands": list(cids), "node": f.node},
                         f"{side} lands commands {', '.join(map(str, cids))} at {f.node}")]


def _fleet_may_stop(state: GameState, node: str, side: str) -> bool:
    enemies = state.enemy_land(node, side)
    if not enemies:
        return True
    siege = state.siege_at(node)
    return siege is not None and siege.besieger == side and all(c.in_city for c in enemies)


def move_fleet(state: GameState, nmap: NodeMap, rules: Rules, path: Sequence[str]) -> tuple[GameState, list[Event]]:
    """Sail the phasing side's fleet along ``path`` (coastal nodes joined by sea paths); what
    it carries goes with it."""
    side = state.phasing
    f = _fleet(state, side)
    if state.phase != "movement":
        raise InputError("fleets move in the movement phase: end the battles and retreats first")
    if not path:
        raise InputError(f"{side}'s fleet: give the nodes to enter")
    cost = len(path) * rules.movement.node_cost
    if cost > f.mp_left:
        raise InputError(f"{side}'s fleet: {len(path)} nodes cost {cost} but it has {f.mp_left} left: sail fewer")
    rivals_here = [g for g in state.fleets_at(f.node) if g.side != side and state.enemies(side, g.side) and not g.sheltered]
    if f.moved and rivals_here:
        raise InputError(f"{side}'s fleet halted at {f.node} to meet {rivals_here[0].side}'s fleet: it sails no further "
                         "this turn")
    here = f.node
    for i, node in enumerate(path):
        p = nmap.places.get(node)
        if p is None or not p.coastal:
            raise InputError(f"{side}'s fleet: {node!r} is not a coastal node: fleets enter coastal nodes only")
        if not nmap.joined(here, node, "sea"):
            raise InputError(f"{side}'s fleet: no sea path from {here} to {node}")
        enemy_fleet = [g for g in state.fleets_at(node) if g.side != side and state.enemies(side, g.side) and not g.sheltered]
        if enemy_fleet and i < len(path) - 1:
            raise InputError(f"{side}'s fleet must halt at {node} to meet {enemy_fleet[0].side}'s fleet: end its move there")
        here = node
    if not _fleet_may_stop(state, here, side):
        raise InputError(f"{side}'s fleet may pass {here} but not stop where enemy land counters stand: sail on or stop short")
    cmds = [replace(state.command(i), node=here) for i in f.carrying]
    f2 = replace(f, node=here, mp_left=f.mp_left - cost, moved=True, sheltered=False)
    events = [Event(state.turn, PHASE, "fleet_moved", {"side": side, "path": list(path), "carrying": list(f.carrying)},
                    f"{side}'s fleet sails {' -> '.join(path)}")]
    for s in state.salvage:
        if s.side == side and s.node == here:
            f2 = replace(f2, np=f2.np + s.np)
            events.append(Event(state.turn, PHASE, "salvage_joined", {"side": side, "node": here, "np": s.np},
                                f"{side}'s fleet takes on {s.np} salvaged NP at {here}"))
    state = replace(state.with_commands(cmds).with_fleet(f2),
                    salvage=tuple(s for s in state.salvage if not (s.side == side and s.node == here)))
    return state, events


def shelter(state: GameState, nmap: NodeMap, rules: Rules) -> tuple[GameState, list[Event]]:
    """Shelter the phasing side's fleet in the friendly, garrisoned, fortified coastal city of
    its node; any troops aboard land."""
    side = state.phasing
    f = _fleet(state, side)
    p = nmap.places[f.node]
    city = state.cities.get(f.node)
    friendly = city is not None and ((city.holder and state.friends(side, city.holder))
                                     or (city.ally and state.friends(side, city.ally)))
    garrison = state.friendly_land(f.node, side)
    if not (p.coastal and p.fortified and friendly and garrison):
        raise InputError(f"{side}'s fleet cannot shelter at {f.node}: it needs a friendly, garrisoned, fortified coastal city")
    cmds = [replace(state.command(i), aboard=False) for i in f.carrying]
    state = state.with_commands(cmds).with_fleet(replace(f, sheltered=True, carrying=()))
    return state, [Event(state.turn, PHASE, "fleet_sheltered", {"side": side, "node": f.node, "landed": list(f.carrying)},
                         f"{side}'s fleet shelters in harbour at {f.node}")]


def stacking_problems(state: GameState, rules: Rules, side: str) -> list[str]:
    """Nodes where ``side`` has more land counters than the limit (capital sub-generals and
    commands aboard ship are not counters)."""
    count: dict[str, int] = {}
    for c in state.commands:
        if c.side == side and not c.inherent and not c.aboard:
            count[c.node] = count.get(c.node, 0) + 1
    return sorted(n for n, k in count.items() if k > rules.stacking.land_counters)


def check_stacking(state: GameState, rules: Rules, side: str) -> None:
    bad = stacking_problems(state, rules, side)
    if bad:
        raise InputError(f"{side} has more than {rules.stacking.land_counters} counters at {', '.join(bad)}: "
                         "move some away before ending movement")
