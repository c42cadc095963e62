"""Orders, layer 2b: legality in the position (:mod:`engine.vae_victis.orders` lists the checks).

:func:`check_orders` collects every problem of every army (the army, its moves, initiative,
lift-siege and assault, transfers, sea links, the influence cap) and :func:`validate_orders`
raises them together as one :class:`IllegalOrderError`.  Nothing here changes state.
"""

from __future__ import annotations

from typing import Collection, Mapping

from bellica.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState
from bellica.engine.vae_victis.naval_superiority import NAVAL_KINDS, blockaded_structures, can_embark, superiority_level
from bellica.engine.vae_victis.order_errors import IllegalOrderError, OrderProblem
from bellica.engine.vae_victis.order_paths import _first_move, _walk, max_moves, max_naval_moves, moves_by_sea
from bellica.engine.vae_victis.order_syntax import _close_matches, _quote
from bellica.engine.vae_victis.straits import lands_across
from bellica.engine.vae_victis.zoc import controller_of

__all__ = [
    "check_orders",
    "influence_cap",
    "validate_orders",
]


def influence_cap(
    board: Board,
    state: CampaignState,
    faction: str,
    zone: str,
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> int:
    """Influence points ``faction`` may assign to sea ``zone``: its controlled, unbesieged,
    unblockaded Towns/Cities adjacent to a Coast hex of that zone, times its influence multiplier
    when ``rules.naval.influence_cap`` is "multiplier" (seed, "Naval superiority"), alone when it
    is "count".  ``blockaded``: names of blockaded structures (None: those of ``state``)."""
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    mult = _influence_multiplier(board, faction)
    count = sum(1 for s in board.structures.values() if _coastal_in_zone(board, state, s, faction, zone, blockaded) is None)
    return mult * count


def _influence_multiplier(board: Board, faction: str) -> int:
    if board.rules.naval.influence_cap == "count":
        return 1
    return board.factions[faction].influence_multiplier if faction in board.factions else 1


def _coastal_in_zone(board: Board, state: CampaignState, s, faction: str, zone: str, blockaded) -> str | None:
    """Why structure ``s`` is not one of ``faction``'s unbesieged, unblockaded structures adjacent
    to a Coast hex of ``zone`` (None: it is)."""
    owner = controller_of(state, s)
    if owner != faction:
        return f"{s.name} is controlled by {owner or 'nobody'}, not {faction}"
    if state.siege_of(s.name):
        return f"{s.name} is besieged"
    if s.name in blockaded:
        return f"{s.name} is blockaded"
    if not any(board.hexes[n].kind == "coast" and zone in board.sea_zones.get(n, ()) for n in
               board.sides.get(s.cell, {}).values()):
        return f"{s.name} is not adjacent to a Coast hex of {zone}"
    return None


def _pair(a: int, b: int) -> frozenset[int]:
    return frozenset((a, b))


def check_orders(
    board: Board,
    state: CampaignState,
    faction: str | None,
    orders: Mapping[int, ArmyOrders],
    *,
    linked_pairs: Collection[Collection[int]] = (),
    transferred_before: Mapping[frozenset[int], int] | None = None,
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> list[OrderProblem]:
    """Every legality problem of ``orders`` (see the module doc); ``faction`` None checks armies of any faction.

    ``linked_pairs``: pairs of armies connected by their faction's logistics lines at the
    start of the round.  ``transferred_before``: FP already transferred between pairs in
    earlier rounds (the 100 FP cap holds for the whole campaign).  ``blockaded``: names of
    blockaded structures at the start of the round; None (the default) reads them from
    ``state`` (:func:`engine.vae_victis.naval.blockaded_structures`).
    """
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    problems: list[OrderProblem] = []
    armies = {a.id: a for a in state.armies}
    linked = {_pair(*p) for p in linked_pairs}
    pair_totals: dict[frozenset[int], int] = dict(transferred_before or {})
    given: dict[int, int] = {}
    influence: dict[tuple[str, str], list[int]] = {}
    links: dict[tuple[str, str], list[tuple[str, int]]] = {}  # (faction, zone) -> [(structure, army)], first naming
    zones = {z for zs in board.sea_zones.values() for z in zs}

    for army_id in sorted(orders):
        o = orders[army_id]
        refused = _army_problem(army_id, o, armies, faction)
        if refused is not None:
            problems.append(refused)
            continue
        a = armies[army_id]
        problems += _move_problems(board, state, a, o.moves, blockaded)
        problems += _initiative_problems(a, o, zones, influence)
        for zone, target in o.sea_links:
            problems += _sea_link_problems(board, state, a, zone, target, zones, blockaded, links)
        problems += _siege_problems(board, state, army_id, o)
        problems += _transfer_problems(board, a, o, armies, linked, pair_totals, given)
    problems += _influence_cap_problems(board, state, influence, blockaded)
    problems += _sea_link_cap_problems(board, state, links)
    return problems


def _army_problem(army_id: int, o: ArmyOrders, armies: Mapping[int, Army], faction: str | None) -> OrderProblem | None:
    """Why the orders filed under ``army_id`` cannot be checked further (None: they can): filed under the
    wrong army, no such army, another faction's, or eliminated."""
    if o.army != army_id:
        return OrderProblem(army_id, "army", f"orders filed under army {army_id} are for army {o.army}")
    a = armies.get(army_id)
    if a is None:
        known = ", ".join(str(i) for i in sorted(armies)) or "none"
        return OrderProblem(army_id, "army", f"no such army (armies: {known})")
    if faction is not None and a.faction != faction:
        return OrderProblem(army_id, "army", f"army {army_id} is not in {faction} (it belongs to {a.faction})")
    if a.eliminated or a.cell is None:
        return OrderProblem(army_id, "army", "the army is eliminated and takes no orders")
    return None


def _initiative_problems(a: Army, o: ArmyOrders, zones: Collection[str],
                         influence: dict[tuple[str, str], list[int]]) -> list[OrderProblem]:
    """An initiative is "strength" or a sea zone; an influence point is noted in ``influence`` for the
    cap, checked once every army is read."""
    if o.initiative == "strength":
        return []
    if o.initiative not in zones:
        hint = _close_matches(o.initiative, sorted(zones), n=1)
        return [OrderProblem(a.id, "initiative", f"{o.initiative!r} is neither \"strength\" nor a "
                             "sea zone" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                             + f"; sea zones: {', '.join(sorted(zones)) or 'none'}")]
    influence.setdefault((a.faction, o.initiative), []).append(a.id)
    return []


def _siege_problems(board: Board, state: CampaignState, army_id: int, o: ArmyOrders) -> list[OrderProblem]:
    """Lifting a siege needs one; an assault needs the army to besiege that structure; not both at once."""
    problems: list[OrderProblem] = []
    siege = None
    if o.lift_siege or o.assault:
        siege = next((s for s in state.sieges if army_id in s.armies), None)
    if o.lift_siege and o.assault:
        problems.append(OrderProblem(army_id, "assault", f"cannot both lift the siege and assault {o.assault}"))
    elif o.lift_siege and siege is None:
        problems.append(OrderProblem(army_id, "lift_siege", "the army besieges nothing, there is no siege to lift"))
    if o.assault and not o.lift_siege:
        if o.assault not in board.structures:
            hint = _close_matches(o.assault, sorted(board.structures), n=1)
            problems.append(OrderProblem(army_id, "assault", f"no structure named {o.assault!r}"
                                         + (f" (did you mean {hint[0]!r}?)" if hint else "")))
        else:
            target = state.siege_of(o.assault)
            if target is None or army_id not in target.armies:
                besieging = f"; it besieges {siege.structure}" if siege else "; it besieges nothing"
                problems.append(OrderProblem(army_id, "assault", f"{o.assault} is not besieged by army {army_id}"
                                             + besieging + " (only besieging armies assault)"))
    return problems


def _transfer_problems(board: Board, a: Army, o: ArmyOrders, armies: Mapping[int, Army],
                       linked: Collection[frozenset[int]], pair_totals: dict[frozenset[int], int],
                       given: dict[int, int]) -> list[OrderProblem]:
    """Each FP transfer: to a live army of the same faction linked at the round's start, within the
    campaign's cap per pair (``pair_totals`` runs on) and the army's own strength (``given``)."""
    army_id = a.id
    problems: list[OrderProblem] = []
    for t in o.transfers:
        b = armies.get(t.to_army)
        if t.to_army == army_id:
            problems.append(OrderProblem(army_id, "transfers", "an army cannot transfer FP to itself"))
            continue
        if b is None or b.faction != a.faction or b.eliminated:
            why = "no such army" if b is None else (
                f"it belongs to {b.faction}" if b.faction != a.faction else "it is eliminated")
            problems.append(OrderProblem(army_id, "transfers", f"cannot transfer to army {t.to_army}: {why}"))
            continue
        if _pair(army_id, t.to_army) not in linked:
            problems.append(OrderProblem(army_id, "transfers", f"armies {army_id} and {t.to_army} are not "
                                         "connected by logistics lines at the start of the round"))
            continue
        key = _pair(army_id, t.to_army)
        before = pair_totals.get(key, 0)
        pair_totals[key] = before + t.fp
        transfer_cap = board.rules.administration.max_transfer_fp  # seed, "Transfer of strength between armies"
        if pair_totals[key] > transfer_cap:
            problems.append(OrderProblem(army_id, "transfers", f"{t.fp} FP to army {t.to_army} brings the FP "
                                         f"transferred between armies {min(key)} and {max(key)} to "
                                         f"{pair_totals[key]}, over the cap of {transfer_cap} ({before} "
                                         "already)"))
        given[army_id] = given.get(army_id, 0) + t.fp
        if given[army_id] > a.strength:
            problems.append(OrderProblem(army_id, "transfers", f"gives {given[army_id]} FP but has only "
                                         f"{a.strength} FP"))
    return problems


def _influence_cap_problems(board: Board, state: CampaignState, influence: Mapping[tuple[str, str], list[int]],
                            blockaded) -> list[OrderProblem]:
    """A faction assigning more influence points to a zone than :func:`influence_cap` allows: the first
    army past the cap is named."""
    problems: list[OrderProblem] = []
    for (f, zone), ids in sorted(influence.items()):
        cap = influence_cap(board, state, f, zone, blockaded)
        if len(ids) > cap:
            times = "" if board.rules.naval.influence_cap == "count" else f"{_influence_multiplier(board, f)} x "
            problems.append(OrderProblem(ids[cap], "initiative",
                                         f"{f} assigns {len(ids)} influence point(s) to {zone} (armies "
                                         f"{', '.join(map(str, ids))}) but may assign at most {cap}: "
                                         f"{times}its controlled unbesieged, unblockaded towns/cities adjacent to a "
                                         "Coast hex of that zone"))
    return problems


def _sea_link_cap_problems(board: Board, state: CampaignState,
                           links: Mapping[tuple[str, str], list[tuple[str, int]]]) -> list[OrderProblem]:
    """A faction naming more sea-link targets in a zone than its naval superiority there: the first
    target past it is named."""
    problems: list[OrderProblem] = []
    for (f, zone), named in sorted(links.items()):
        level = superiority_level(board, state, zone, f)
        if len(named) > level:
            target, army_id = named[level]
            problems.append(OrderProblem(army_id, "sea_links",
                                         f"{f} names {len(named)} sea-link target(s) in {zone} "
                                         f"({', '.join(t for t, _ in named)}) but its naval superiority there is "
                                         f"{level}, so at most {level} may be linked: drop {target} or a target "
                                         "before it"))
    return problems


def _move_problems(
    board: Board, state: CampaignState, a: Army, moves: tuple[int, ...], blockaded
) -> list[OrderProblem]:
    """The move string's problems: by sea or on land (see the module doc), and its length."""
    if moves_by_sea(board, state, a, moves, blockaded):
        cap, why = max_naval_moves(board, state, a.faction)
        if len(moves) > cap:
            return [OrderProblem(a.id, "moves", f"{len(moves)} moves, but {why}, so at most {cap} moves can be "
                                                "used: drop the moves the navy cannot make")]
        return _walk(board, a.cell, moves, a.id, naval=True)[1]
    cap = max_moves(board)
    m = board.rules.movement
    over = OrderProblem(a.id, "moves", f"{len(moves)} moves, but an army has {m.points_per_round} MP "
                                       f"a round and the cheapest move costs {min(m.min_move_mp, m.stand_still_mp)} MP, "
                                       f"so at most {cap} moves can be used: drop the moves it cannot make")
    # Never stored: a string longer than any round can use is a mistake, and it would sit in the log for
    # ever.  A strait crossing's two moves count as one, so a string may be one move longer per crossing.
    if len(moves) > 2 * cap:
        return [over]
    path, problems = _walk(board, a.cell, moves, a.id)
    crossings = sum(1 for c in path[1:] if board.hexes[c].kind != "land")
    if len(moves) - crossings > cap:
        return [over]
    first = _first_move(moves)
    if problems and first is not None and problems[0].index == first[0] + 1:
        target = board.sides.get(a.cell, {}).get(first[1])
        if target is not None and board.hexes[target].kind in NAVAL_KINDS:
            # The first move leaves by sea but the army may not embark: say why, not only "water".
            # A strait's own message (how to cross it) comes first, the embarking reason after it
            # when the army stands in a Town/City.
            reason = can_embark(board, state, a, blockaded)
            p = problems[0]
            if lands_across(board, target, a.cell):
                if board.structure_at(a.cell) is not None:
                    problems[0] = OrderProblem(a.id, "moves", f"{p.message}; nor can it embark here: {reason}", p.index)
            else:
                text = _quote(" ".join(str(m) for m in moves))
                problems[0] = OrderProblem(a.id, "moves", f"clock {first[1]} in {text} from hex {a.cell} enters hex "
                                                          f"{target} ({board.hexes[target].kind}): it cannot embark "
                                                          f"here: {reason}", p.index)
    return problems


def _sea_link_problems(
    board: Board,
    state: CampaignState,
    a: Army,
    zone: str,
    target: str,
    zones: Collection[str],
    blockaded,
    named: dict[tuple[str, str], list[tuple[str, int]]],
) -> list[OrderProblem]:
    """One (zone, structure) sea-link target of army ``a``'s orders; legal targets are added to ``named``."""
    if zone not in zones:
        hint = _close_matches(zone, sorted(zones), n=1)
        return [OrderProblem(a.id, "sea_links", f"{zone!r} is not a sea zone"
                             + (f" (did you mean {hint[0]!r}?)" if hint else "")
                             + f"; sea zones: {', '.join(sorted(zones)) or 'none'}")]
    s = board.structures.get(target)
    if s is None:
        hint = _close_matches(target, sorted(board.structures), n=1)
        return [OrderProblem(a.id, "sea_links", f"{zone}: no structure named {target!r}"
                             + (f" (did you mean {hint[0]!r}?)" if hint else ""))]
    why = _coastal_in_zone(board, state, s, a.faction, zone, blockaded)
    if why:
        return [OrderProblem(a.id, "sea_links", f"{zone}: {why}; a sea link reaches only the faction's own "
                                                 "unbesieged, unblockaded Towns/Cities adjacent to a Coast hex "
                                                 "of the zone")]
    seen = named.setdefault((a.faction, zone), [])
    if all(t != target for t, _ in seen):
        seen.append((target, a.id))
    return []


def validate_orders(
    board: Board,
    state: CampaignState,
    faction: str | None,
    orders: Mapping[int, ArmyOrders],
    *,
    linked_pairs: Collection[Collection[int]] = (),
    transferred_before: Mapping[frozenset[int], int] | None = None,
    blockaded: Collection[str] | Mapping[str, object] | None = None,
    source: str = "",
) -> dict[int, ArmyOrders]:
    """The orders, sorted by army, if all are legal; else one :class:`IllegalOrderError` listing every problem."""
    problems = check_orders(board, state, faction, orders, linked_pairs=linked_pairs,
                            transferred_before=transferred_before, blockaded=blockaded)
    if problems:
        raise IllegalOrderError(problems, source)
    return {k: orders[k] for k in sorted(orders)}
