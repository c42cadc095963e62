"""Naval movement (:func:`resolve_naval_movement`), with the choices made where the seed is silent.

* **Who sails.**  The armies in ``movers``: navies at sea and armies embarking this round
  (:func:`engine.vae_victis.orders.sea_movers` gives the round's set: every navy at sea, ordered or
  not, and every army on land whose orders embark it from a Town/City it may embark from,
  :func:`can_embark`).  An embarking army's moves are all naval: the first enters a Coast or Sea
  hex next to its structure, the rest Coast/Sea only.  A move into a land, Ocean or Lake hex, or
  into a water hex of no sea zone (no pool pays for it), is an illegal order
  (:class:`~engine.vae_victis.orders.IllegalOrderError`, raised before anything moves), as is an
  army on land that may not embark (:func:`can_embark` says why).
* **Time is move by move** (the seed's "move by move"): step k moves every sailing navy's k-th
  move at once.  A "0" costs no NMP: the navy waits that step where it is (the event says so).
* **NMP.**  A faction's pool in a zone is its superiority level there x
  ``movement_points_per_superiority`` (:func:`nmp_pools`), for the whole round.  A move into a
  hex costs ``move_nmp[kind]`` (Coast 1, Sea 4) and is paid from the pool of a zone the hex
  belongs to.  A border hex (two zones) may be paid by either: option ``border_pool`` "richest"
  takes the zone with the most NMP left (ties: zone name), "came_from" the zone of the hex the
  navy sails from when that zone holds the new hex and can pay, else the richest.  Option
  ``nmp_sharing`` "first_come" spends a pool move by move, the lower army number first within a
  step; "equal" gives each navy floor(pool / the faction's sailing navies whose ordered path
  enters that zone) of each zone.  A move nobody can pay stops the navy for the round where it
  is (a navy in a zone where its faction has 0 NMP stays, with no other consequence: the
  umpire's answer in the thread).  NMP are spent only by moves that happen.
* **Halts.**  A navy that enters a hex in the ZoC of a structure controlled by another faction
  and not besieged (its Coast reach, ``rules.zoc``; control at the start of movement), or in the
  ZoC of another faction's navy (its hex and every hex around, positions after the step), halts
  there for the round.  Entering an enemy navy's ZoC makes it ``engaged``: it fights a naval
  battle (:func:`engine.vae_victis.naval_battles.battle_groups` finds who fights with whom).
* **One navy per hex.**  A navy never enters a hex an enemy navy holds after the step (it stops
  before it); two enemy navies swapping hexes both stop (they cannot pass each other); navies of
  different factions entering one hex at the same step both stop before it (no priority: the
  seed's seven steps are for armies on land, and a symmetric rule needs no tie-break).  Friendly
  navies may sail through each other; one that would end the round on a friendly navy goes back
  along its path to the last hex where it is alone (the later arrival yields, as land movement
  does), and the NMP of the moves it gave up return to the pool (the same holds for a hex an
  enemy navy entered after it had passed: it goes back further).
* ``state`` may be the state after land movement (armies on land never block a water hex; the
  structures' control and sieges do not change during movement).
* Navies neither take nor prevent control, and armies' ZoC does not stop them (the seed names
  only structures and navies).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Collection, Mapping

from bellica.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState, Event, Halt
from bellica.engine.vae_victis.movement_sim import step_back
from bellica.engine.vae_victis.naval_superiority import (
    NAVAL_KINDS,
    _naval_walk,
    _pay_zone,
    blockaded_structures,
    can_embark,
    is_navy,
    naval_step_cost,
    nmp_pools,
    zones_of,
)
from bellica.engine.vae_victis.order_errors import IllegalOrderError, OrderProblem
from bellica.engine.vae_victis.zoc import controller_of, navy_zoc, structure_exerts_zoc, structure_zoc

__all__ = [
    "NavalMovementResult",
    "resolve_naval_movement",
]


@dataclass(frozen=True)
class NavalMovementResult:
    state: CampaignState
    """The state with every sailing army in its new hex."""
    events: tuple[Event, ...]
    """One ``navy_moved`` / ``navy_stayed`` event per sailing army, in army order."""
    nmp_spent: Mapping[str, Mapping[str, int]]
    """{faction: {zone: NMP spent}}, only zones where something was spent."""
    nmp_left: Mapping[str, Mapping[str, int]]
    """{faction: {zone: NMP left}} for every faction of the board (and of the sailing armies) and zone."""
    paths: Mapping[int, tuple[str, ...]]
    """{army: hexes entered, starting hex first} (0s add nothing)."""
    halted: Mapping[int, Halt]
    engaged: frozenset[int]
    """Navies that halted on entering an enemy navy's ZoC (they fight a naval battle)."""
    stepped_back: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    """Navies that went back along their path at the end, with the hexes they gave up."""

    @property
    def battles_triggered(self) -> frozenset[int]:
        """The design's name for :attr:`engaged`."""
        return self.engaged


@dataclass
class _Navy:
    army: Army
    moves: tuple[int, ...]
    cell: str
    embarking: bool
    next_index: int = 0
    done: bool = False
    halt: Halt | None = None
    engaged: bool = False
    waits: list[int] = field(default_factory=list)  # steps spent on a "0"
    arrivals: list = field(default_factory=list)  # (step, cell, zone paid, NMP, move number)
    allowance: dict[str, int] | None = None  # "equal" sharing: this navy's share left per zone

    def stop(self, halt: Halt | None) -> None:
        self.done = True
        if halt is not None and self.halt is None:
            self.halt = halt


def _check_naval_orders(
    board: Board, state: CampaignState, orders: Mapping[int, ArmyOrders], movers: Collection[int], blockaded
) -> None:
    problems: list[OrderProblem] = []
    armies = {a.id: a for a in state.armies}
    for aid in sorted(movers):
        a = armies.get(aid)
        if a is None or a.eliminated or a.cell is None:
            problems.append(OrderProblem(aid, "army", "no such army on the map"))
            continue
        moves = tuple(orders[aid].moves) if aid in orders else ()
        if not is_navy(board, a):
            why = can_embark(board, state, a, blockaded)
            if why is not None:
                problems.append(OrderProblem(aid, "moves", f"army {aid} cannot move by sea: {why}"))
                continue
            if not any(m != 0 for m in moves):
                problems.append(OrderProblem(aid, "moves", f"army {aid} is on land and its orders enter no water: "
                                                           "only navies and embarking armies move by sea"))
                continue
        problems += _naval_walk(board, a.cell, moves, aid)[1]
    cells = [a.cell for a in state.armies if is_navy(board, a)]
    if len(cells) != len(set(cells)):
        problems.append(OrderProblem(None, "army", "two navies start in the same hex; the state is invalid"))
    if problems:
        raise IllegalOrderError(problems, "naval movement")


def _equal_allowances(board: Board, navies: Mapping[int, _Navy], pools: Mapping[str, Mapping[str, int]]) -> None:
    """Option ``nmp_sharing="equal"``: each navy's share of each zone its ordered path enters."""
    users: dict[tuple[str, str], list[int]] = {}
    for aid, n in navies.items():
        path = _naval_walk(board, n.cell, n.moves, aid)[0]
        for z in sorted({z for c in path[1:] for z in zones_of(board, c)}):
            users.setdefault((n.army.faction, z), []).append(aid)
    for n in navies.values():
        n.allowance = {}
    for (f, z), ids in users.items():
        for aid in ids:
            navies[aid].allowance[z] = pools[f].get(z, 0) // len(ids)


def _refusals(navies: Mapping[int, _Navy], statics: Mapping[int, Army], entries: Mapping[int, str]) -> dict[int, Halt]:
    """Entries that cannot happen this step: a hex held by an enemy navy after the step, enemy
    navies swapping hexes, enemy navies entering one hex at once.  Friendly navies pass."""
    failed: dict[int, Halt] = {}
    faction = {aid: n.army.faction for aid, n in navies.items()} | {aid: a.faction for aid, a in statics.items()}
    while True:
        at: dict[str, list[int]] = {}
        for aid, n in navies.items():
            if aid not in entries or aid in failed:
                at.setdefault(n.cell, []).append(aid)
        for aid, a in statics.items():
            at.setdefault(a.cell, []).append(aid)
        live = {aid: t for aid, t in entries.items() if aid not in failed}
        new: dict[int, Halt] = {}
        for aid in sorted(live):
            n, target, me = navies[aid], live[aid], faction[aid]
            index = n.next_index + 1
            swap = [o for o, t in live.items() if t == n.cell and navies[o].cell == target and faction[o] != me]
            rivals = [o for o, t in live.items() if o != aid and t == target and faction[o] != me]
            holders = [o for o in at.get(target, []) if faction[o] != me]
            if swap:
                o = min(swap)
                new[aid] = Halt("occupied", f"stopped: navy {o} ({faction[o]}) sailed the other way between {n.cell} "
                                            f"and {target}; navies of different factions cannot pass each other",
                                index, target, (f"navy {o}",))
            elif rivals:
                o = min(rivals)
                new[aid] = Halt("contest", f"stopped: navy {o} ({faction[o]}) sailed into hex {target} at the same "
                                           "move; both stop before it", index, target, (f"navy {o}",))
            elif holders:
                o = min(holders)
                new[aid] = Halt("occupied", f"stopped: hex {target} is held by navy {o} ({faction[o]})",
                                index, target, (f"navy {o}",))
        if not new:
            return failed
        failed.update(new)


def _cost_of(board: Board, target: str) -> int:
    cost = naval_step_cost(board, target)
    assert cost is not None  # the orders were checked
    return cost


def _pay(board: Board, navies: Mapping[int, _Navy], entries: Mapping[int, str],
         left: Mapping[str, Mapping[str, int]]) -> tuple[dict[int, tuple[str, int]], dict[int, Halt]]:
    """Pay the entries in army order from the pools ``left`` (or each navy's share): returns
    {army: (zone, NMP)} for the paid ones and {army: Halt} for those nobody can pay."""
    spent: dict[tuple[str, str], int] = {}
    paid: dict[int, tuple[str, int]] = {}
    unpaid: dict[int, Halt] = {}
    for aid in sorted(entries):
        n, target = navies[aid], entries[aid]
        f = n.army.faction
        cost = _cost_of(board, target)
        if n.allowance is not None:
            have = dict(n.allowance)
        else:
            have = {z: left[f].get(z, 0) - spent.get((f, z), 0) for z in zones_of(board, target)}
        zone = _pay_zone(board, target, n.cell, have, cost)
        if zone is None:
            zs = sorted(zones_of(board, target))
            what = "its share of" if n.allowance is not None else f"{f} has"
            shown = ", ".join(f"{z} {have.get(z, 0)}" for z in zs)
            unpaid[aid] = Halt("nmp", f"stopped: move {n.next_index + 1} into {board.hexes[target].kind} hex {target} "
                                      f"costs {cost} NMP but {what} NMP left: {shown}",
                               n.next_index + 1, n.cell, tuple(zs))
            continue
        spent[(f, zone)] = spent.get((f, zone), 0) + cost
        paid[aid] = (zone, cost)
    return paid, unpaid


def _settle_step(board: Board, navies: dict[int, _Navy], statics: Mapping[int, Army], entries: dict[int, str],
                 left: dict[str, dict[str, int]], step: int) -> None:
    """Refuse the entries that cannot happen, pay the others (a navy nobody can pay stops, and the
    refusals are decided again without it), and move the paid navies."""
    while True:
        refused = _refusals(navies, statics, entries)
        paid, unpaid = _pay(board, navies, {a: t for a, t in entries.items() if a not in refused}, left)
        if not unpaid:
            break
        for aid, halt in unpaid.items():
            navies[aid].stop(halt)
            entries.pop(aid)
    for aid, halt in sorted(refused.items()):
        navies[aid].stop(halt)
        entries.pop(aid)
    for aid, (zone, cost) in sorted(paid.items()):
        n = navies[aid]
        left[n.army.faction][zone] -= cost
        if n.allowance is not None:
            n.allowance[zone] -= cost
        n.cell = entries[aid]
        n.next_index += 1
        n.arrivals.append((step, n.cell, zone, cost, n.next_index))


def _halt_in_zoc(board: Board, navies: Mapping[int, _Navy], statics: Mapping[int, Army], entries: Mapping[int, str],
                 structure_cells: Mapping[str, list[tuple[str, str]]]) -> None:
    """Navies that entered the ZoC of another faction's navy (positions after the step) or of its
    controlled, unbesieged structure halt; the first ones are engaged."""
    at_sea = [(aid, n.army.faction, n.cell) for aid, n in navies.items() if board.hexes[n.cell].kind in NAVAL_KINDS]
    at_sea += [(aid, a.faction, a.cell) for aid, a in statics.items()]
    for aid in sorted(entries):
        n = navies[aid]
        f = n.army.faction
        by_navy = [f"navy {o} ({of})" for o, of, c in sorted(at_sea) if of != f and n.cell in navy_zoc(board, c)]
        by_structure = [f"{name} ({owner})" for owner, name in structure_cells.get(n.cell, []) if owner != f]
        by = by_navy + by_structure
        if by:
            n.stop(Halt("zoc", f"halted by ZoC of {', '.join(by)}", n.next_index, n.cell, tuple(by)))
            n.engaged = bool(by_navy)


def _step_back_from_shared_hexes(navies: Mapping[int, _Navy], statics: Mapping[int, Army],
                                 left: dict[str, dict[str, int]]) -> dict[int, list[str]]:
    """No two navies end the round in one hex: the later arrival goes back along its path
    (:func:`~engine.vae_victis.movement_sim.step_back`; its NMP return to the pool); returns the
    hexes each navy gave up."""

    def give_back(yielder: int, other: int, arrival: tuple) -> None:
        n = navies[yielder]
        _, cell, zone, cost, _ = arrival
        left[n.army.faction][zone] += cost
        other_faction = navies[other].army.faction if other in navies else statics[other].faction
        n.cell = n.arrivals[-1][1]
        n.engaged = False
        n.halt = Halt("friendly" if other_faction == n.army.faction else "occupied",
                      f"would have ended the round in hex {cell} with navy {other} ({other_faction}); "
                      f"goes back to {n.cell}", None, cell, (f"navy {other}",))

    return step_back(navies, {aid: a.cell for aid, a in statics.items()}, give_back)


def _report(board: Board, state: CampaignState, navies: Mapping[int, _Navy], pools, left,
            stepped: Mapping[int, list[str]]) -> NavalMovementResult:
    def label(cell: str) -> str:
        s = board.structure_at(cell)
        return f"{cell} ({s.name})" if s else cell

    events = []
    paths, halted, by_zone_of = {}, {}, {}
    for aid, n in sorted(navies.items()):
        path = tuple(a[1] for a in n.arrivals)
        by_zone: dict[str, int] = {}
        for _, _, zone, cost, _ in n.arrivals[1:]:
            by_zone[zone] = by_zone.get(zone, 0) + cost
        by_zone = dict(sorted(by_zone.items()))
        total = sum(by_zone.values())
        paths[aid], by_zone_of[aid] = path, by_zone
        if n.halt is not None:
            halted[aid] = n.halt
        moved = len(path) > 1
        f = n.army.faction
        if n.embarking:
            subject = f"army {aid} ({f}) " + (f"embarked at {label(path[0])} and sailed " if moved else "")
        else:
            subject = f"navy {aid} ({f}) " + ("sailed " if moved else "")
        text = subject + (" → ".join(map(label, path)) if moved else f"stayed in {label(path[0])}")
        text += f", {total} NMP"
        if total:
            text += " (" + ", ".join(f"{z} {v}" for z, v in by_zone.items()) + ")"
        if n.waits:
            text += f", waited at move {', '.join(map(str, n.waits))} (a \"0\" costs no NMP)"
        if n.halt is not None:
            text += f", {n.halt.text}"
        if board.hexes[n.cell].kind == "sea":
            text += "; it ends on a Sea hex: its army is lost at the round's end unless it debarks"
        events.append(Event(state.round, "movement", "navy_moved" if moved else "navy_stayed", {
            "army": aid, "faction": f, "path": list(path), "nmp_spent": total, "nmp_by_zone": by_zone,
            "embarked": n.embarking and moved, "waits": list(n.waits), "engaged": n.engaged,
            "halt": None if n.halt is None else {"kind": n.halt.kind, "move": n.halt.move, "cell": n.halt.cell,
                                                 "by": list(n.halt.by), "text": n.halt.text},
            "stepped_back": list(stepped.get(aid, [])),
        }, text))
    spent = {}
    for f in sorted(pools):
        zs = {z: pools[f][z] - left[f][z] for z in sorted(pools[f]) if pools[f][z] != left[f][z]}
        if zs:
            spent[f] = zs
    new_armies = tuple(replace(a, cell=navies[a.id].cell) if a.id in navies else a for a in state.armies)
    return NavalMovementResult(
        state=replace(state, armies=new_armies),
        events=tuple(events),
        nmp_spent=spent,
        nmp_left={f: dict(sorted(zs.items())) for f, zs in sorted(left.items())},
        paths=paths,
        halted=halted,
        engaged=frozenset(aid for aid, n in navies.items() if n.engaged),
        stepped_back={aid: tuple(c) for aid, c in sorted(stepped.items())},
    )


def resolve_naval_movement(
    board: Board,
    state: CampaignState,
    orders: Mapping[int, ArmyOrders],
    *,
    movers: Collection[int],
    blockaded: Mapping[str, object] | None = None,
) -> NavalMovementResult:
    """Sail the armies in ``movers`` move by move (see the module doc); navies at sea that are not
    in ``movers`` stay where they are and still block hexes and exert their ZoC.

    ``orders``: the round's orders (those of armies not in ``movers`` are ignored; a mover without
    orders stays).  ``blockaded``: :func:`blockaded_structures` at the start of movement (computed
    when not given), for the embarking armies' :func:`can_embark`.  Raises
    :class:`~engine.vae_victis.orders.IllegalOrderError` before anything moves when a move string
    leaves Coast and Sea hexes or an army on land may not embark."""
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    _check_naval_orders(board, state, orders, movers, blockaded)
    navies: dict[int, _Navy] = {}
    for aid in sorted(movers):
        a = state.army(aid)
        n = _Navy(a, tuple(orders[aid].moves) if aid in orders else (), a.cell, embarking=not is_navy(board, a))
        n.arrivals.append((0, a.cell, None, 0, None))
        navies[aid] = n
    statics = {a.id: a for a in state.armies if a.id not in navies and is_navy(board, a)}
    factions = sorted(set(board.factions) | {a.faction for a in state.armies})
    pools = {f: nmp_pools(board, state, f) for f in factions}
    left = {f: dict(p) for f, p in pools.items()}
    if board.rules.naval.nmp_sharing == "equal":
        _equal_allowances(board, navies, pools)
    # Structure ZoC does not change during movement: control and sieges change in administration.
    structure_cells: dict[str, list[tuple[str, str]]] = {}
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if structure_exerts_zoc(state, s):
            for c in structure_zoc(board, s):
                structure_cells.setdefault(c, []).append((controller_of(state, s), s.name))

    for step in range(1, max((len(n.moves) for n in navies.values()), default=0) + 1):
        entries: dict[int, str] = {}
        for aid, n in sorted(navies.items()):
            if n.done:
                continue
            if n.next_index >= len(n.moves):
                n.stop(None)
                continue
            clock = n.moves[n.next_index]
            if clock == 0:
                n.waits.append(n.next_index + 1)
                n.next_index += 1
                continue
            entries[aid] = board.sides[n.cell][clock]
        _settle_step(board, navies, statics, entries, left, step)
        _halt_in_zoc(board, navies, statics, entries, structure_cells)
    stepped = _step_back_from_shared_hexes(navies, statics, left)
    return _report(board, state, navies, pools, left, stepped)
