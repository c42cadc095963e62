"""What a player may be offered while giving orders: the legal initiative uses, and a move's preview.

Nothing here changes state, and nothing here decides a rule of its own: the initiative uses are
those :func:`~engine.vae_victis.order_checks.check_orders` accepts, and a move's preview is the
movement step's own code (:func:`~engine.vae_victis.movement.resolve_movement`,
:func:`~engine.vae_victis.naval_movement.resolve_naval_movement`, :func:`entry_cost`) run on the
position with only that army moving, so the page's preview and the adjudication cannot disagree
on anything the ordering faction can know.  The rest of the round (other armies' sealed orders)
can only halt the move earlier: a preview says where the move ends if nothing else moves.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping

from bellica.engine.vae_victis.model import Board, CampaignState, Halt
from bellica.engine.vae_victis.order_errors import OrderProblem

__all__ = ["initiative_uses", "mp_overrun", "MovePreview", "NextHex", "PreviewStep", "preview_move", "ChoiceOptions",
           "choice_options", "sea_link_targets"]


def initiative_uses(board: Board, state: CampaignState, faction: str) -> list[str]:
    """The initiative uses an army of ``faction`` may give now: "strength", then every sea zone
    where the faction may assign an influence point (its influence cap there is at least 1:
    :func:`~engine.vae_victis.order_checks.influence_cap`), sorted by name."""
    from bellica.engine.vae_victis.naval_superiority import blockaded_structures
    from bellica.engine.vae_victis.order_checks import influence_cap

    blockaded = blockaded_structures(board, state)
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    return ["strength"] + [z for z in zones if influence_cap(board, state, faction, z, blockaded) > 0]


def sea_link_targets(board: Board, state: CampaignState, faction: str) -> list[str]:
    """The sea links ("ZONE:STRUCTURE") ``faction`` may order now: each of its unbesieged,
    unblockaded towns and cities next to a Coast hex of a zone where its naval superiority is at
    least 1, as the check accepts them (how many per zone the superiority allows is the check's)."""
    from bellica.engine.vae_victis.naval_superiority import blockaded_structures, superiority_level
    from bellica.engine.vae_victis.order_checks import _coastal_in_zone

    blockaded = blockaded_structures(board, state)
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    return [f"{z}:{s.name}" for z in zones if superiority_level(board, state, z, faction) > 0
            for s in sorted(board.structures.values(), key=lambda s: s.name)
            if _coastal_in_zone(board, state, s, faction, z, blockaded) is None]


# --- a move's preview -------------------------------------------------------------------------


@dataclass(frozen=True)
class PreviewStep:
    """One order of a move string as the preview sees it: ``cell`` the hex entered (None for a "0"),
    ``cost`` its MP (NMP at sea) and ``why`` in words, ``spent`` the total after it, ``strait`` the
    strait hex a crossing passes, ``made`` False when the move is not made (after a halt)."""

    index: int
    clock: int
    cell: str | None
    cost: int
    why: str
    spent: int
    strait: str | None = None
    made: bool = True


@dataclass(frozen=True)
class NextHex:
    """A hex next to the move's end: its clock side, the MP/NMP to enter it, or why it cannot be;
    or, with ``then``, the land across the strait hex ``strait`` on the ``clock`` side: the two
    clock moves of a strait crossing, one step of the move (engine/vae_victis/straits.py)."""

    clock: int
    cell: str
    cost: int | None
    refused: str | None
    then: int | None = None
    strait: str | None = None


@dataclass(frozen=True)
class MovePreview:
    """What the movement step would make of one army's move string if no other army moved."""

    army: int
    start: str
    by_sea: bool
    budget: int  # MP a round (land), NMP the faction has in the zones (at sea)
    steps: tuple[PreviewStep, ...] = ()
    end: str = ""
    spent: int = 0
    halt: str | None = None
    halt_cell: str | None = None
    warnings: tuple[str, ...] = ()
    refused: OrderProblem | None = None
    next: tuple[NextHex, ...] = ()
    reachable: Mapping[str, int] = field(default_factory=dict)  # hex -> MP (NMP) left on arriving there

    @property
    def left(self) -> int:
        return max(0, self.budget - self.spent)


def preview_move(board: Board, state: CampaignState, army_id: int, moves: tuple[int, ...], *,
                 logistics_road_edges: Mapping[str, Iterable[tuple[str, str]]] | None = None,
                 reach: bool = True) -> MovePreview:
    """The preview of ``army_id``'s ``moves`` from where it stands (see the module doc): the order
    checks' verdict on the string (a refused string is previewed up to the move refused, which
    :attr:`MovePreview.refused` names), each move's cost, the movement simulation's end and halt
    with only this army moving, what happens there, the hexes next to the end and (``reach``)
    every hex the army can still reach.  ``logistics_road_edges``: the faction's logistics road
    steps, as movement reads them ({faction: steps}); a move past the army's MP is refused."""
    from bellica.engine.vae_victis.naval_superiority import blockaded_structures
    from bellica.engine.vae_victis.order_checks import _move_problems
    from bellica.engine.vae_victis.order_paths import moves_by_sea

    a = state.army(army_id)
    kept = board.derived.get("order_aids.blockaded")  # one position is previewed click after click
    if kept is None or kept[0] is not state:
        kept = board.derived["order_aids.blockaded"] = (state, blockaded_structures(board, state))
    blockaded = kept[1]
    by_sea = moves_by_sea(board, state, a, moves, blockaded)
    problems = _move_problems(board, state, a, moves, blockaded)
    if problems:
        cut = (problems[0].index or 1) - 1
        base = preview_move(board, state, army_id, moves[:cut], logistics_road_edges=logistics_road_edges, reach=reach) \
            if cut < len(moves) else None
        return replace(base or MovePreview(army_id, a.cell, by_sea, 0, end=a.cell), refused=problems[0])
    if by_sea:
        return _naval_preview(board, state, a, moves, blockaded, reach)
    return _land_preview(board, state, a, moves, logistics_road_edges or {}, reach)


def _land_costs(board, state, a, moves, logistics, navy) -> list[PreviewStep]:
    """Each order's cost as the simulation plans it (:meth:`movement_sim._Sim.plan`), in order."""
    from bellica.engine.vae_victis.movement_entry import entry_cost

    m = board.rules.movement
    steps, here, spent, i = [], a.cell, 0, 0
    while i < len(moves):
        clock = moves[i]
        if clock == 0:
            spent += m.stand_still_mp
            steps.append(PreviewStep(i + 1, 0, None, m.stand_still_mp, f"stand still {m.stand_still_mp}", spent))
            i += 1
            continue
        target, strait = board.sides[here][clock], None
        if board.hexes[target].kind != "land":  # a strait crossing: the legality check passed it
            strait, target = target, board.sides[target][moves[i + 1]]
        cost = entry_cost(board, strait or here, target, a.faction, logistics_road_edges=logistics, navy_zoc=navy)
        spent += cost.mp
        steps.append(PreviewStep(i + 1, clock, target, cost.mp, cost.why, spent, strait))
        here, i = target, i + (2 if strait else 1)
    return steps


def _land_preview(board, state, a, moves, logistics, reach) -> MovePreview:
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.movement import resolve_movement
    from bellica.engine.vae_victis.naval_superiority import navy_cells
    from bellica.engine.vae_victis.order_paths import sea_movers
    from bellica.engine.vae_victis.zoc import navy_zoc_cells

    budget = board.rules.movement.points_per_round
    navy = navy_zoc_cells(board, navy_cells(board, state))
    logistics = {a.faction: frozenset(logistics.get(a.faction, ()))}
    steps = _land_costs(board, state, a, moves, logistics, navy)
    refused = _past_mp(a.id, steps, budget)
    if refused is not None:
        base = _land_preview(board, state, a, moves[:refused.index - 1], logistics, reach)
        return replace(base, refused=refused)
    orders = {a.id: ArmyOrders(army=a.id, moves=tuple(moves))}
    sim = resolve_movement(board, state, orders, logistics_road_edges=logistics, navy_zoc=navy,
                           naval=sea_movers(board, state, orders))
    end = sim.state.army(a.id).cell
    halt = sim.halted.get(a.id)
    shown = [replace(s, made=_made(s.index, halt)) for s in steps]
    spent = sim.mp_spent.get(a.id, 0)
    p = MovePreview(a.id, a.cell, False, budget, tuple(shown), end, spent,
                    halt.text if halt is not None else None, halt.cell if halt is not None else None)
    stopped = halt is not None and halt.kind in ("zoc", "strait", "strait_closed", "occupied", "friendly")
    nxt = () if stopped else _land_next(board, end, a.faction, budget - spent, logistics, navy)
    if not any(moves) and not stopped:
        nxt = _embarking(board, state, a, nxt)
    reachable = _land_reach(board, state, a, end, budget - spent, logistics, navy) if reach and not stopped else {}
    return replace(p, next=nxt, reachable=reachable, warnings=_land_outcome(board, sim.state, a.id, halt))


def _past_mp(army_id: int, steps: list[PreviewStep], budget: int) -> OrderProblem | None:
    """The first move the army's MP cannot pay even if nothing stops it (the seed's armies spend
    their MP and move no further; the order form refuses such a string rather than keep moves
    that are never made)."""
    over = next((s for s in steps if s.spent > budget), None)
    if over is None:
        return None
    before = over.spent - over.cost
    return OrderProblem(army_id, "moves", f"clock {over.clock} costs {over.cost} MP ({over.why}) "
                        f"but only {budget - before} of the army's {budget} MP are left: drop it and the moves after it",
                        over.index)


def mp_overrun(board: Board, state: CampaignState, army_id: int, moves: tuple[int, ...], *,
               logistics_road_edges: Mapping[str, Iterable[tuple[str, str]]] | None = None) -> OrderProblem | None:
    """The move of a legal land move string that the army's MP cannot pay (None: every move can be
    paid, the string is not legal, or the army moves by sea), priced as movement prices it."""
    from bellica.engine.vae_victis.naval_superiority import blockaded_structures, navy_cells
    from bellica.engine.vae_victis.order_checks import _move_problems
    from bellica.engine.vae_victis.order_paths import moves_by_sea
    from bellica.engine.vae_victis.zoc import navy_zoc_cells

    a = state.army(army_id)
    blockaded = blockaded_structures(board, state)
    if not moves or moves_by_sea(board, state, a, moves, blockaded) or _move_problems(board, state, a, moves, blockaded):
        return None
    logistics = {a.faction: frozenset((logistics_road_edges or {}).get(a.faction, ()))}
    steps = _land_costs(board, state, a, moves, logistics, navy_zoc_cells(board, navy_cells(board, state)))
    return _past_mp(army_id, steps, board.rules.movement.points_per_round)


def _made(index: int, halt: Halt | None) -> bool:
    """Is order ``index`` made, given the halt (its ``move``: the move not made, or for a ZoC or
    strait halt the move that entered the hex)?"""
    if halt is None or halt.move is None:
        return True
    return index <= halt.move if halt.kind in ("zoc", "strait", "arrival") else index < halt.move


def _embarking(board, state, a, nxt: tuple[NextHex, ...]) -> tuple[NextHex, ...]:
    """An army that has not moved yet may embark from its Town/City (its first move enters a Coast
    or Sea hex: :func:`~engine.vae_victis.order_paths.moves_by_sea`): those hexes are open, at their NMP."""
    from bellica.engine.vae_victis.naval_superiority import NAVAL_KINDS, can_embark, naval_step_cost

    if any(board.hexes[n.cell].kind in NAVAL_KINDS for n in nxt) and can_embark(board, state, a) is None:
        return tuple(NextHex(n.clock, n.cell, naval_step_cost(board, n.cell), None)
                     if board.hexes[n.cell].kind in NAVAL_KINDS and _sailable(board, n.cell) else n for n in nxt)
    return nxt


def _land_next(board, end, faction, left, logistics, navy) -> tuple[NextHex, ...]:
    """The hexes next to ``end``: each one's MP, or why the army cannot enter it by one move."""
    from bellica.engine.vae_victis.movement_entry import entry_cost
    from bellica.engine.vae_victis.order_paths import impassable_reason

    from bellica.engine.vae_victis.straits import strait_crossings_from

    def refusal(cost: int) -> str | None:
        return None if cost <= left else f"costs {cost} MP, only {left} MP left"

    crossings = strait_crossings_from(board, end)
    straits = {strait for _c, strait, _c2, _to in crossings}
    out = []
    for clock, cell in sorted(board.sides.get(end, {}).items()):
        why = impassable_reason(board, cell)
        if why is not None:
            if board.hexes[cell].kind == "coast":
                why = ("a strait: click the land across it to cross" if cell in straits
                       else "water: an army on land enters a Coast hex only to cross a strait")
            out.append(NextHex(clock, cell, None, why))
            continue
        cost = entry_cost(board, end, cell, faction, logistics_road_edges=logistics, navy_zoc=navy).mp
        out.append(NextHex(clock, cell, cost, refusal(cost)))
    for clock, strait, clock2, to in crossings:  # movement takes the pair as one move at the far hex's cost
        cost = entry_cost(board, strait, to, faction, logistics_road_edges=logistics, navy_zoc=navy).mp
        out.append(NextHex(clock, to, cost, refusal(cost), then=clock2, strait=strait))
    return tuple(out)


def _reach(start: str, budget: int, step: Callable[[str], Iterable[tuple[str, int]]], stops: Iterable[str] = ()) -> dict[str, int]:
    """{hex: most MP left on arriving} of every hex reachable from ``start`` with ``budget``;
    ``step(cell)`` gives (neighbour, cost) pairs; a hex of ``stops`` is entered but never left."""
    stops = frozenset(stops)
    best = {start: budget}
    heap = [(-budget, start)]
    while heap:
        neg, cell = heapq.heappop(heap)
        if -neg < best.get(cell, -1) or (cell in stops and cell != start):
            continue
        for nbr, cost in step(cell):
            left = -neg - cost
            if left >= 0 and left > best.get(nbr, -1):
                best[nbr] = left
                heapq.heappush(heap, (-left, nbr))
    best.pop(start, None)
    return best


def _land_reach(board, state, a, end, left, logistics, navy) -> dict[str, int]:
    """Every land hex the army can still reach after its move (no strait crossings), stopping in
    the enemy's ZoC as it stands now and never entering an enemy army's hex."""
    from bellica.engine.vae_victis.movement_entry import entry_cost
    from bellica.engine.vae_victis.order_paths import impassable_reason
    from bellica.engine.vae_victis.zoc import enemy_zoc

    blocked = {x.cell for x in state.armies if not x.eliminated and x.cell and x.faction != a.faction}
    kept = board.derived.get("order_aids.enemy_zoc")  # one position is previewed click after click
    if kept is None or kept[0] is not state or kept[1] != a.faction:
        kept = board.derived["order_aids.enemy_zoc"] = (state, a.faction, frozenset(enemy_zoc(board, state, a.faction)))
    stops = kept[2]

    def step(cell):
        for nbr in board.sides.get(cell, {}).values():
            if nbr not in blocked and impassable_reason(board, nbr) is None:
                yield nbr, entry_cost(board, cell, nbr, a.faction, logistics_road_edges=logistics, navy_zoc=navy).mp
    return _reach(end, left, step, stops)


def _land_outcome(board, after: CampaignState, army_id: int, halt: Halt | None) -> tuple[str, ...]:
    """What the rules make of the army's end hex (with only this army moved): engagements, sieges."""
    from bellica.engine.vae_victis.battles import find_engagements
    from bellica.engine.vae_victis.sieges import siege_refusal
    from bellica.engine.vae_victis.zoc import army_zoc

    out = []
    if halt is not None:
        out.append(f"not every move is made: {halt.text}")
    for e in find_engagements(board, after):
        other = e.opponent(army_id) if army_id in e.armies else None
        if other is not None:
            out.append(f"an engagement with army {other} ({after.army(other).faction}) follows movement if both "
                       "still stand in each other's ZoC")
    cell = after.army(army_id).cell
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if s.cell in army_zoc(board, cell) and siege_refusal(board, after, army_id, s.name) is None:
            out.append(f"{s.name} is in its ZoC: the army may besiege it")
    return tuple(out)


def _naval_preview(board, state, a, moves, blockaded, reach) -> MovePreview:
    """A navy's (or an embarking army's) move: the naval simulation with only this army sailing."""
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.naval_movement import resolve_naval_movement
    from bellica.engine.vae_victis.naval_superiority import naval_step_cost, nmp_pools

    pools = nmp_pools(board, state, a.faction)
    budget = sum(pools.values())
    sim = resolve_naval_movement(board, state, {a.id: ArmyOrders(army=a.id, moves=tuple(moves))}, movers={a.id},
                                 blockaded=blockaded)
    halt = sim.halted.get(a.id)
    end = sim.state.army(a.id).cell
    steps, here, spent = [], a.cell, 0
    for i, clock in enumerate(moves, 1):
        if clock == 0:
            steps.append(PreviewStep(i, 0, None, 0, "waits (no NMP)", spent))
            continue
        here = board.sides[here][clock]
        cost = naval_step_cost(board, here) or 0
        spent += cost
        steps.append(PreviewStep(i, clock, here, cost, f"{board.hexes[here].kind} {cost} NMP", spent))
    entered = len(sim.paths.get(a.id, ())) - 1
    shown, k = [], 0
    for s in steps:
        k += s.cell is not None
        shown.append(replace(s, made=s.cell is None or k <= entered))
    used = sum(sum(z.values()) for f, z in sim.nmp_spent.items() if f == a.faction)
    warnings = [f"not every move is made: {halt.text}"] if halt is not None else []
    if board.hexes[end].kind == "sea":
        warnings.append("it ends on a Sea hex: its army is lost at the round's end unless it debarks")
    p = MovePreview(a.id, a.cell, True, budget, tuple(shown), end, used, halt.text if halt else None,
                    halt.cell if halt else None, tuple(warnings))
    nxt = _naval_next(board, end, budget - used)
    reachable = {}
    if reach and halt is None:
        reachable = _reach(end, budget - used, lambda c: ((n, naval_step_cost(board, n)) for n in board.sides.get(c, {}).values()
                                                          if _sailable(board, n)))
    return replace(p, next=nxt, reachable=reachable)


def _sailable(board, cell) -> bool:
    from bellica.engine.vae_victis.order_paths import naval_impassable_reason
    from bellica.engine.vae_victis.naval_superiority import zones_of

    return naval_impassable_reason(board, cell) is None and bool(zones_of(board, cell))


def _naval_next(board, end, left) -> tuple[NextHex, ...]:
    from bellica.engine.vae_victis.naval_superiority import naval_step_cost
    from bellica.engine.vae_victis.order_paths import naval_impassable_reason

    out = []
    for clock, cell in sorted(board.sides.get(end, {}).items()):
        why = naval_impassable_reason(board, cell)
        cost = naval_step_cost(board, cell)
        if why is None and cost is not None and cost > left:
            why = f"costs {cost} NMP, only {left} NMP left in the faction's pools"
        out.append(NextHex(clock, cell, cost if why is None else None, why))
    return tuple(out)


# --- a faction's administration choices (issue 21, item 2) -------------------------------------------


@dataclass(frozen=True)
class ChoiceOptions:
    """What a faction may choose now for administration, for a page to offer as lists (only a
    help: :func:`engine.vae_victis.rounds.player_choices.submit_choices` still decides).

    ``debarks``: navy -> the clock sides of its hex it may debark through (land a navy may enter);
    ``advances``: a winner -> the clock sides of its land neighbours; ``sieges``: a land army ->
    the structures of another faction in its ZoC; ``surrenders``: the faction's besieged
    structures; ``take_overs``: the structures another faction besieges within its armies' ZoC."""

    debarks: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    advances: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    sieges: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    surrenders: tuple[str, ...] = ()
    take_overs: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.debarks or self.advances or self.sieges or self.surrenders or self.take_overs)


def choice_options(board: Board, state: CampaignState, faction: str, beaten: Mapping[int, Iterable[str]] | None = None,
                   armies: Iterable[int] | None = None, lost: Iterable[int] = ()) -> ChoiceOptions:
    """The :class:`ChoiceOptions` of ``faction``'s live armies (those of ``armies`` only, when
    given: an army player's); ``beaten``: each winner's beaten losers' hexes (where it may
    advance), ``lost``: the armies administration removes (they start no siege)."""
    from bellica.engine.vae_victis.naval import debark
    from bellica.engine.vae_victis.naval_superiority import is_navy
    from bellica.engine.vae_victis.zoc import army_zoc
    from bellica.geo.errors import InputError

    mine = [a for a in state.armies if a.faction == faction and not a.eliminated and a.cell is not None
            and (armies is None or a.id in set(armies))]
    held = {n: state.control.get(n, s.start_controller) for n, s in board.structures.items()}
    debarks, advances, sieges, near = {}, {}, {}, set()
    for a in mine:
        sides = board.sides.get(a.cell, {})
        if is_navy(board, a):
            ok = []
            for clock, cell in sorted(sides.items()):
                try:  # the mistakes the map alone rules out (terrain, another faction's town), as the check does
                    debark(board, state, a.id, clock, {})
                except InputError:
                    continue
                ok.append(clock)
            if ok:
                debarks[a.id] = tuple(ok)
            continue
        zoc = army_zoc(board, a.cell)
        near |= zoc
        into = set((beaten or {}).get(a.id, ()))
        if into:
            advances[a.id] = tuple(k for k, n in sorted(sides.items()) if n in into)
        targets = tuple(sorted(n for n, s in board.structures.items() if s.cell in zoc and held[n] not in (faction, None)))
        if targets and a.id not in set(lost):
            sieges[a.id] = targets
    besieged = {s.structure: s.faction for s in state.sieges}
    surrenders = tuple(sorted(n for n in besieged if held.get(n) == faction))
    take_overs = tuple(sorted(n for n in besieged if held.get(n) != faction and board.structures[n].cell in near))
    return ChoiceOptions(debarks, advances, sieges, surrenders, take_overs)
