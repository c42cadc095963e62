"""Where a Magna Graecia campaign stands: the next decision in words (:func:`next_decision`), who
may take a step now (:func:`_umpire_may`, :func:`_side_may`), and the view a side or the umpire
may see (:func:`view`, :func:`view_lines`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Mapping

from bellica.engine.core.machine import position_of
from bellica.engine.core.tables import Snapshot

from .inputs import OVER, _poss, side_named
from .model import Battle, GameState
from .movement import reachable, reachable_by_sea
from .storage import state_of
from .victory import victory_points

__all__ = ["next_decision", "view", "view_lines"]


def next_decision(c, snap: Snapshot) -> str:
    """What comes next, in words naming the `bellica magna-graecia` command."""
    if snap.campaign("phase") == OVER or snap.campaign("winner"):
        return f"the season is over ({snap.campaign('winner') or 'ended'}): `bellica magna-graecia status CAMPAIGN`"
    state = state_of(snap)
    side = state.phasing
    if state.phase == "movement":
        return (f"{side} moves: `bellica magna-graecia move CAMPAIGN --side {side} COMMAND NODE...` (or sail, embark, "
                f"exchange, ...), then `bellica magna-graecia end-movement CAMPAIGN --side {side}`")
    for b in state.battles:
        if b.kind == "naval":
            return f"the fleets at {b.node} fight: `bellica magna-graecia fleet-battle CAMPAIGN {b.node}`"
        if b.undecided:
            waiting = [s for s in _second_day_sides(state, b)
                       if (state.turn, b.node, b.day, s) not in {k for k in snap.tables["mg_orders"]}]
            return (f"the battle at {b.node} is undecided: each side writes stay or retire, sealed "
                    f"(`bellica magna-graecia second-day CAMPAIGN {b.node} --side S stay|retire`); waiting for "
                    + ", ".join(waiting))
        if not b.defence:
            from .battles import entry_edges

            edges = entry_edges(state, b.node, b.attacker)
            first = (f"{b.attacker} may first name its base edge (`bellica magna-graecia base-edge CAMPAIGN {b.node} "
                     f"{'|'.join(edges)} --side {b.attacker}`, now {b.base_edge}); " if len(edges) > 1 and b.day == 1 else "")
            return (f"battle at {b.node}: {first}the defenders choose their defence (`bellica magna-graecia defence CAMPAIGN "
                    f"{b.node} forward|central|rear --side S`)" + (", or they go inside the walls for a siege (`siege`)"
                                                                  if _fortified(c, b.node) else ""))
        return (f"battle at {b.node}: enter the table's result: `bellica magna-graecia result CAMPAIGN {b.node} "
                f"--winner SIDE|none [--loss COMMAND:ELEMENT=N ...]`")
    if state.retreats:
        r = state.retreats[0]
        if r.command:
            return f"command {r.command} must retreat: `bellica magna-graecia retreat CAMPAIGN {r.command} NODE...`"
        return f"{_poss(r.fleet_side)} fleet must retreat: `bellica magna-graecia retreat-fleet CAMPAIGN --side {r.fleet_side} NODE...`"
    return f"{side} ends its turn: `bellica magna-graecia end-turn CAMPAIGN --side {side}`"


def _defending(state: GameState, side: str, b: Battle) -> bool:
    return side in b.defenders or any(state.friends(side, d) for d in b.defenders if d in state.sides)


def _city_commands(state: GameState, b: Battle, side: str | None = None) -> int:
    """How many commands of one city stand at the battle's node (those ``side`` is the ally of)."""
    own = [c for c in state.at(b.node) if c.city and not c.side and (side is None or state.owner(c) == side)]
    return max((sum(1 for c in own if c.city == x.city) for x in own), default=0)


def _umpire_may(state: GameState, step: str, who: str) -> bool:
    """The umpire's steps, and the sides' it may take for them (a defence, a retreat), when one is due."""
    land = [b for b in state.battles if b.kind == "land"]
    if step == "result":
        return any(b.defence and not b.undecided for b in land)
    if step == "fleet_battle":
        return any(b.kind == "naval" for b in state.battles)
    if step == "defence":
        return any(not b.defence and not b.undecided for b in land)
    if step == "reorganise":
        return any(_city_commands(state, b) >= 2 and b.day == 1 and not b.undecided for b in land)
    if step == "retreat":
        return any(r.command for r in state.retreats)
    if step == "retreat_fleet":
        return any(r.fleet_side for r in state.retreats)
    return who == "umpire"


def _side_may(state: GameState, step: str, who: str, side: str, snap: Snapshot) -> bool:
    """A side's steps: whether ``side`` gives ``step`` now (the rules may still refuse its input)."""
    phasing = side == state.phasing
    land = [b for b in state.battles if b.kind == "land"]
    if step == "end_turn":
        return phasing and not state.battles and not state.retreats
    if step == "sally":
        return phasing and any(s.besieger != side and any(c.side == side and c.node == s.node for c in state.commands)
                               for s in state.sieges)
    if step == "defence":
        return any(not b.defence and not b.undecided and _defending(state, side, b) for b in land)
    if step == "base_edge":
        from .battles import entry_edges

        return phasing and any(not b.defence and b.day == 1 and len(entry_edges(state, b.node, side)) > 1 for b in land)
    if step == "reorganise":
        return any(_city_commands(state, b, side) >= 2 and b.day == 1 and not b.undecided for b in land)
    if step == "siege":
        return any(not b.defence and (phasing or _defending(state, side, b)) for b in land)
    if step == "attack_city" and state.phase == "battles":
        return phasing or any(_defending(state, side, b) for b in land)
    if step == "second_day":
        written = {k for k in snap.tables["mg_orders"]}
        return any(b.undecided and side in _second_day_sides(state, b)
                   and (state.turn, b.node, b.day, side) not in written for b in land)
    if step == "retreat":
        return any(r.command and state.owner(state.command(r.command)) == side for r in state.retreats)
    if step == "retreat_fleet":
        return any(r.fleet_side == side for r in state.retreats)
    return who in ("phasing", "phasing or defender") and phasing


def _fortified(c, node: str) -> bool:
    p = c.board.nmap.places.get(node)
    return bool(p and p.fortified)


def _second_day_sides(state: GameState, b: Battle) -> list[str]:
    from .battles import second_day_sides

    return second_day_sides(state, b)


def view(c, *, side: str | None = None) -> dict:
    """Where the campaign stands, as ``side`` may see it (None: the umpire): the turn, each side's
    standing, the counters (a side's own with their elements and fleets' NPs; the others' only
    as counters in a node), cities, sieges, battles and retreats due, what the phasing side can
    reach, the victory points and what comes next."""
    snap = c.snapshot()
    board = c.board
    viewer = side_named(board, side) if side else None
    state = state_of(snap)
    pos = position_of(snap)
    counters = []
    for cmd in state.commands:
        owner = state.owner(cmd)
        mine = viewer is None or (owner and state.friends(viewer, owner) and cmd.side == viewer)
        if cmd.aboard and not mine:
            continue  # aboard an enemy fleet: hidden with the fleet's load
        entry = {"node": cmd.node, "owner": owner or "", "city": cmd.city, "in_city": cmd.in_city}
        if mine:
            entry.update({"id": cmd.id, "side": cmd.side, "elements": dict(cmd.elements), "general": cmd.general,
                          "strength": cmd.element_count(), "mp_left": cmd.mp_left, "aboard": cmd.aboard,
                          "inherent": cmd.inherent})
        counters.append(entry)
    fleets = []
    for f in state.fleets:
        if viewer is None or f.side == viewer:
            fleets.append({"side": f.side, "node": f.node, "np": f.np, "carrying": list(f.carrying),
                           "sheltered": f.sheltered, "mp_left": f.mp_left})
        else:
            fleets.append({"side": f.side, "node": f.node})
    phasing = state.phasing
    reach = {}
    if state.phase == "movement" and (viewer is None or viewer == phasing):
        for cmd in state.commands:
            if cmd.side == phasing and cmd.mp_left:
                r = reachable(state, board.nmap, c.rules, cmd.id)
                if r:
                    reach[str(cmd.id)] = sorted(r)
        sea = reachable_by_sea(state, board.nmap, c.rules, phasing)
        if sea:
            reach["fleet"] = sorted(sea)
    waiting = []
    for b in state.battles:
        if b.undecided:
            written = {k[3] for k in snap.tables["mg_orders"] if k[0] == state.turn and k[1] == b.node and k[2] == b.day}
            waiting.append({"node": b.node, "written": sorted(written),
                            "waiting_for": [s for s in _second_day_sides(state, b) if s not in written]})
    vp = victory_points(state, c.rules)
    return {
        "scenario": board.scenario.name, "title": board.scenario.title, "year": state.year, "turn": state.turn,
        "turns": c.rules.game.turns, "phase": pos.phase, "phasing": None if pos.phase == OVER else phasing,
        "viewer": viewer, "winner": pos.winner,
        "sides": [{"side": s.name, "capital": s.capital, "playing": s.playing, "out": s.out,
                   "victory_points": vp.get(s.name, {}).get("total") if isinstance(vp.get(s.name), Mapping) else vp.get(s.name)}
                  for s in state.sides.values()],
        "alliances": sorted(sorted(p) for p in state.alliances),
        "cities": [{"city": x.name, "ally": x.ally, "holder": x.holder} for x in state.cities.values()],
        "counters": counters, "fleets": fleets,
        "sieges": [asdict(s) for s in state.sieges],
        "battles": [{"node": b.node, "kind": b.kind, "attacker": b.attacker, "defenders": list(b.defenders),
                     "base_edge": b.base_edge, "defence": b.defence, "day": b.day, "undecided": b.undecided,
                     "sally": b.sally}
                    for b in state.battles],
        "second_day": waiting,
        "retreats": [{"command": r.command, "fleet_side": r.fleet_side, "open_paths": list(r.open_paths)}
                     for r in state.retreats],
        "reach": reach,
        "next": next_decision(c, snap),
    }


def view_lines(v: Mapping) -> list[str]:
    """The view in words (``bellica magna-graecia status``)."""
    head = f"{v['title']}: turn {v['turn']} of {v['turns']}, {v['phase']}"
    if v["phasing"]:
        head += f", {v['phasing']} is phasing"
    if v["viewer"]:
        head += f" (view of {v['viewer']})"
    out = [head]
    for s in v["sides"]:
        out.append(f"  {s['side']}: capital {s['capital']}, " + (f"out ({s['out']})" if not s["playing"] else "playing")
                   + (f", {s['victory_points']} VP" if s["victory_points"] is not None else ""))
    by_node: dict[str, list[str]] = {}
    for x in v["counters"]:
        if "id" in x:
            where = " aboard" if x["aboard"] else (" inside" if x["in_city"] else "")
            who = x["side"] or f"{x['city']}'s own ({x['owner'] or 'neutral'})"
            els = ", ".join(f"{n} {k}" for k, n in x["elements"].items())
            by_node.setdefault(x["node"], []).append(f"#{x['id']} {who}{where}: {x['general'] or 'leaderless'}"
                                                     + (f" + {els}" if els else "") + f" [{x['mp_left']} MP]")
        else:
            by_node.setdefault(x["node"], []).append(f"a counter of {x['owner'] or x['city'] + ' (neutral)'}")
    for f in v["fleets"]:
        by_node.setdefault(f["node"], []).append(f"{_poss(f['side'])} fleet" + (f", {f['np']} NP" if "np" in f else ""))
    for node in sorted(by_node):
        out.append(f"  {node}: " + "; ".join(by_node[node]))
    for s in v["sieges"]:
        out.append(f"  siege of {s['node']} by {s['besieger']} since turn {s['started']} ({s['rolls']} fall rolls"
                   + (", disease" if s["disease"] else "") + ")")
    for b in v["battles"]:
        out.append(f"  {b['kind']} battle at {b['node']}: {b['attacker']} against {', '.join(b['defenders'])}"
                   + (f", base edge from {b['base_edge']}" if b["base_edge"] else "")
                   + (f", {b['defence']} defence" if b["defence"] else "") + (f", day {b['day']}" if b["day"] > 1 else "")
                   + (", undecided" if b["undecided"] else ""))
    for w in v["second_day"]:
        out.append(f"  second day at {w['node']}: written by {', '.join(w['written']) or 'nobody'}, waiting for "
                   f"{', '.join(w['waiting_for'])}")
    for r in v["retreats"]:
        out.append("  retreat owed: " + (f"command {r['command']}" if r["command"] else f"{_poss(r['fleet_side'])} fleet"))
    for k, nodes in v["reach"].items():
        out.append(f"  {'the fleet' if k == 'fleet' else 'command ' + k} can reach: {', '.join(nodes)}")
    out.append(f"next: {v['next']}")
    return out
