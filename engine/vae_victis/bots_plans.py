"""The heuristic bot's plan, army by army, each with its reason in words (:mod:`.bots` says the order
of its priorities): keep the sieges, secure the lines, besiege the weakest structure in reach,
cross by sea where the faction has naval superiority, else stand."""

from __future__ import annotations

from bellica.engine.vae_victis.bots import Plan
from bellica.engine.vae_victis.bots_board import Position, hexes_within, land_reach, moves_of, sea_reach
from bellica.engine.vae_victis.model import Army, Board

__all__ = ["plan_armies"]

#: How far a navy's crossing is planned (moves); the naval rules and the NMP pools cut it short.
SEA_MOVES = 24


def plan_armies(board: Board, pos: Position) -> dict[int, Plan]:
    """{army: Plan} for every live army of the faction (module doc)."""
    mine = [a for a in pos.state.armies if a.faction == pos.faction and not a.eliminated and a.cell]
    plans: dict[int, Plan] = {}
    for a in mine:
        siege = next((s for s in pos.state.sieges if a.id in s.armies), None)
        if siege is not None:
            plans[a.id] = Plan((), f"army {a.id} keeps the siege of {siege.structure} (Resilience {siege.resilience})")
    _secure(board, pos, [a for a in mine if a.id not in plans], plans)
    claimed = {p.target for p in plans.values() if p.target}
    for a in mine:
        if a.id not in plans:
            plans[a.id] = _advance(board, pos, a, claimed)
            if plans[a.id].target:
                claimed.add(plans[a.id].target)
    return plans


def _threats(board: Board, pos: Position) -> list[tuple[str, list[int]]]:
    """(own structure, enemy armies near it) for each own town or city with an enemy army within two
    hexes (three for a capital): the lines of supply first, then the capitals."""
    enemies = [a for a in pos.state.armies if a.faction != pos.faction and a.cell]
    out = []
    for s in board.structures.values():
        if pos.state.control.get(s.name) != pos.faction:
            continue
        near = hexes_within(board, s.cell, 3 if s.capital else 2)
        close = sorted(a.id for a in enemies if a.cell in near)
        if close:
            out.append(((s.name not in pos.supplied, not s.capital, s.name), s.name, close))
    return [(name, close) for _key, name, close in sorted(out)]


def _secure(board: Board, pos: Position, free: list[Army], plans: dict[int, Plan]) -> None:
    """A free army inside a threatened structure holds it; else the nearest free army that reaches it
    this round goes into it."""
    mp = board.rules.movement.points_per_round
    reach = {a.id: land_reach(board, pos, a.cell, mp) for a in free}
    for name, enemies in _threats(board, pos):
        cell = board.structures[name].cell
        options = sorted((reach[a.id][cell][0], a.id) for a in free if a.id not in plans and cell in reach[a.id])
        if not options:
            continue
        cost, army = options[0]
        line = "on our line of supply" if name in pos.supplied else "a capital" if board.structures[name].capital else "ours"
        near = f"enemy arm{'y' if len(enemies) == 1 else 'ies'} {', '.join(map(str, enemies))} near it"
        if cost == 0:
            plans[army] = Plan((), f"army {army} holds {name} ({line}): {near}", target=name)
        else:
            plans[army] = Plan(reach[army][cell][1], f"army {army} secures {name} ({line}): {near} and no army inside "
                                                     f"({cost} MP)", target=name)


def _weakness(board: Board, pos: Position, name: str) -> tuple[int, str]:
    s = board.structures[name]
    holder = pos.state.control.get(name)
    # An enemy town first (taking it scores VP), then one held by nobody (it scores nothing but
    # extends the lines), then an enemy city; a capital after its kind.
    rank = (1 if holder is None else 0 if s.kind == "town" else 2) + (2 if s.capital else 0)
    what = f"{s.kind} of {holder}" if holder else f"{s.kind} held by nobody"
    return rank, what + (", a capital" if s.capital else "")


def _targets(board: Board, pos: Position, claimed: set) -> list[str]:
    """Structures the faction may go for: not its own, not claimed, not besieged by another faction."""
    out = []
    for s in board.structures.values():
        if pos.state.control.get(s.name) == pos.faction or s.name in claimed:
            continue
        siege = pos.state.siege_of(s.name)
        if siege is not None:
            continue
        out.append(s.name)
    return sorted(out)


def _advance(board: Board, pos: Position, a: Army, claimed: set) -> Plan:
    """March on the weakest structure in reach by land; else cross by sea; else stand (a navy sails on)."""
    from bellica.engine.vae_victis.naval_superiority import is_navy

    if is_navy(board, a):
        return _cross(board, pos, a, claimed)
    mp = board.rules.movement.points_per_round
    reach = land_reach(board, pos, a.cell, 3 * mp)
    best = None
    for name in _targets(board, pos, claimed):
        cell = board.structures[name].cell
        goals = [reach[n] for n in board.sides.get(cell, {}).values() if n in reach]
        if not goals:
            continue
        cost, moves = min(goals)
        rank, what = _weakness(board, pos, name)
        key = (rank, cost, name)
        if best is None or key < best[0]:
            best = (key, name, what, cost, moves)
    if best is not None:
        (_rank, cost, _n), name, what, _c, moves = best
        verb = "gain it by its zone of control" if pos.state.control.get(name) is None else "besiege it"
        if not moves:
            return Plan((), f"army {a.id} stands next to {name} ({what}) to {verb}", target=name)
        now = moves_of(board, a.cell, moves, mp)
        when = "this round" if cost <= mp else "in two rounds" if cost <= 2 * mp else "in three rounds"
        return Plan(now, f"army {a.id} marches on {name} ({what}), the weakest structure in reach ({cost} MP, {when}), "
                         f"to {verb}", target=name)
    return _cross(board, pos, a, claimed)


def _cross(board: Board, pos: Position, a: Army, claimed: set) -> Plan:
    """Embark (or sail on) towards the weakest coastal structure a crossing reaches."""
    from bellica.engine.vae_victis.naval_superiority import can_embark, is_navy, superiority_level

    at_sea = is_navy(board, a)
    if not at_sea and can_embark(board, pos.state, a) is not None:
        return Plan((), f"army {a.id} stands: no structure in reach by land, and it may not embark here")
    sea = sea_reach(board, pos, a.cell, SEA_MOVES)
    if at_sea:
        sea[a.cell] = ()  # already off a structure: it waits there to land
    best = None
    for name in _targets(board, pos, claimed):
        cell = board.structures[name].cell
        off = sorted((len(sea[n]), n) for n in board.sides.get(cell, {}).values() if n in sea)
        if not off:
            continue
        rank, what = _weakness(board, pos, name)
        key = (rank, off[0][0], name)
        if best is None or key < best[0]:
            best = (key, name, what, off[0][1])
    if best is None:
        return Plan((), f"army {a.id} stands: no structure in reach by land or by sea")
    _key, name, what, hex_off = best
    moves = sea[hex_off]
    if not moves:
        return Plan((), f"navy {a.id} waits off {name} ({what}) to land and besiege it", target=name)
    first = board.sides[a.cell][moves[0]]
    zone = sorted(board.sea_zones.get(first, ()))[0] if board.sea_zones.get(first) else None
    level = superiority_level(board, pos.state, zone, pos.faction) if zone else 0
    port = board.structure_at(a.cell)
    where = "sails on" if at_sea else f"embarks at {port.name}" if port else "embarks"
    return Plan(moves, f"army {a.id} {where} and crosses by sea ({zone}, our naval superiority {level}) towards {name} "
                       f"({what}), out of reach by land", zone=zone, target=name)
