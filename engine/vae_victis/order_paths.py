"""Orders, layer 2a: walking a move string over the board (:mod:`engine.vae_victis.orders`).

Which hexes a move string may enter: by sea (a navy, or an army embarking from a Town/City it
may embark from) every move enters a Coast or Sea hex; on land, land hexes only, except a
strait crossing (two moves, into the strait and out of it onto the land across).  The caps on a
string's length (:func:`max_moves`, :func:`max_naval_moves`) and who sails this round
(:func:`sea_movers`).  Used by the legality checks (:mod:`engine.vae_victis.order_checks`) and
by movement, which walks the strings again before anything moves.
"""

from __future__ import annotations

from typing import Collection, Iterable, Mapping

from bellica.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState
from bellica.engine.vae_victis.naval_superiority import NAVAL_KINDS, blockaded_structures, can_embark, is_navy, superiority_level
from bellica.engine.vae_victis.order_errors import IllegalOrderError, OrderProblem
from bellica.engine.vae_victis.order_syntax import _quote
from bellica.engine.vae_victis.straits import lands_across, strait_crossings_from

__all__ = [
    "impassable_reason",
    "max_moves",
    "max_naval_moves",
    "moves_by_sea",
    "naval_impassable_reason",
    "sea_movers",
    "walk_moves",
]


def impassable_reason(board: Board, cell: str) -> str | None:
    """Why a land army cannot enter ``cell`` by an ordinary land move (None when it can).

    Seed: "Peaks and Lakes are impassable"; water hexes are for navies (a strait Coast hex is
    entered only as half of a strait crossing, which :func:`walk_moves` recognises).
    """
    h = board.hexes[cell]
    if h.kind != "land":
        return f"{h.kind} hex (water: armies on land cannot enter it)"
    if h.terrain not in board.rules.movement.terrain_mp:  # no MP cost: Peaks
        return f"{h.terrain} hex (impassable)"
    return None


def naval_impassable_reason(board: Board, cell: str) -> str | None:
    """Why a navy cannot enter ``cell`` (None when it can): only Coast and Sea hexes, and only
    kinds the rules give an NMP cost (seed: "across Coast and Sea hexes (not Ocean hexes)")."""
    kind = board.hexes[cell].kind
    if kind in NAVAL_KINDS and kind in board.rules.naval.move_nmp:
        return None
    if kind == "land":
        return ("land hex: a navy moves only over Coast and Sea hexes; it debarks by the administration's "
                "debark order, not by a move")
    return f"{kind} hex: a navy moves only over Coast and Sea hexes"


def walk_moves(
    board: Board, start: str, moves: Iterable[int], army: int | None = None, *, naval: bool = False
) -> list[str]:
    """The hexes a move string visits from ``start``, one per move (0s repeat the hex; a strait
    crossing visits the strait hex, then the land across); raises IllegalOrderError at the first
    move that names no side here or enters a hex the army cannot.  ``naval``: walk it as a
    navy's path (Coast and Sea hexes only)."""
    path, problems = _walk(board, start, tuple(moves), army, naval=naval)
    if problems:
        raise IllegalOrderError(problems)
    return path


def _crossings_text(board: Board, here: str) -> str:
    open_ = strait_crossings_from(board, here)
    if not open_:
        return f"no strait can be crossed from hex {here}"
    return "strait crossings from hex " + here + ": " + "; ".join(
        f"clock {c1} then {c2} (strait {s} to hex {to})" for c1, s, c2, to in open_)


def _walk(
    board: Board, start: str, moves: tuple[int, ...], army: int | None, *, naval: bool = False
) -> tuple[list[str], list[OrderProblem]]:
    here = start
    path = [start]
    text = _quote(" ".join(str(m) for m in moves))
    index = 0
    while index < len(moves):
        clock = moves[index]
        index += 1
        if clock == 0:
            path.append(here)
            continue
        sides = board.sides.get(here, {})
        if clock not in sides:
            valid = " ".join(str(c) for c in sorted(sides)) or "none"
            # Tell "off the map" apart from "no such side" with the full H3 geometry of the hex.
            from bellica.geo.hexgrid import cell_sides  # here: bellica.geo.hexgrid loads h3ronpy, numpy, pyarrow and shapely, off a CLI step's path (issue 11)

            on_globe = {s.clock for s in cell_sides(here)}
            why = "that side leads off the map" if clock in on_globe else "this hex has no side at that clock position"
            return path, [
                OrderProblem(army, "moves", f"clock {clock} in {text}: unknown direction for hex {here} "
                                            f"({why}); valid clock positions here: {valid}", index)
            ]
        target = sides[clock]
        entered = f"clock {clock} in {text} from hex {here} enters hex {target}"
        if naval:
            reason = naval_impassable_reason(board, target)
            if reason:
                return path, [OrderProblem(army, "moves", f"{entered}: {reason}", index)]
            here = target
            path.append(here)
            continue
        if board.hexes[target].kind == "coast" and board.hexes[here].kind == "land":
            across = lands_across(board, target, here)
            nxt = moves[index] if index < len(moves) else None
            land_to = board.sides.get(target, {}).get(nxt) if nxt else None
            if land_to is not None and land_to in across:
                reason = impassable_reason(board, land_to)
                if reason:
                    return path, [OrderProblem(army, "moves", f"clock {nxt} in {text} crosses the strait at "
                                                              f"{target} into hex {land_to}: {reason}", index + 1)]
                path += [target, land_to]
                here = land_to
                index += 1
                continue
            if across:
                after = "no further move" if nxt is None else f"move {index + 1} (clock {nxt})"
                why = (f"a strait (a coast hex between two land hexes), but {after} does not land on the hex across it; an army crosses a strait with "
                       f"two moves, into the strait and onto the land hex across; {_crossings_text(board, here)}")
            else:
                why = (f"coast hex (water: armies on land cannot enter it, except to cross a strait; "
                       f"{_crossings_text(board, here)})")
            return path, [OrderProblem(army, "moves", f"{entered}: {why}", index)]
        reason = impassable_reason(board, target)
        if reason:
            return path, [OrderProblem(army, "moves", f"{entered}: {reason}", index)]
        here = target
        path.append(here)
    return path, []


def max_moves(board: Board) -> int:
    """The most moves an army can make in a round on land: the round's MP over the cheapest step
    (a move costs at least ``min_move_mp``, a "0" costs ``stand_still_mp``); the two moves of a
    strait crossing count as one."""
    m = board.rules.movement
    return m.points_per_round // max(1, min(m.min_move_mp, m.stand_still_mp))


def max_naval_moves(board: Board, state: CampaignState, faction: str) -> tuple[int, str]:
    """(cap, why) on a navy's move string: ``faction``'s NMP this round summed over every sea zone
    (level x NMP per point) over the cheapest naval move, never below :func:`max_moves`.  Generous
    on purpose: the pools are shared among the faction's navies only during movement."""
    n = board.rules.naval
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    total = sum(superiority_level(board, state, z, faction) * n.movement_points_per_superiority for z in zones)
    cheapest = max(1, min(n.move_nmp.values(), default=1))
    cap = max(max_moves(board), total // cheapest)
    why = (f"{faction}'s navies have {total} NMP this round over all sea zones and the cheapest naval move costs "
           f"{cheapest} NMP")
    return cap, why


def _first_move(moves: Iterable[int]) -> tuple[int, int] | None:
    """(0-based position, clock) of the first move that is not a "0"."""
    return next(((i, c) for i, c in enumerate(moves) if c != 0), None)


def _crosses_strait_first(board: Board, cell: str, moves: tuple[int, ...]) -> bool:
    first = _first_move(moves)
    if first is None:
        return False
    i, clock = first
    strait = board.sides.get(cell, {}).get(clock)
    if strait is None or i + 1 >= len(moves) or moves[i + 1] == 0:
        return False
    return board.sides.get(strait, {}).get(moves[i + 1]) in lands_across(board, strait, cell)


def moves_by_sea(
    board: Board,
    state: CampaignState,
    army: Army,
    moves: Iterable[int],
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> bool:
    """True when ``army`` with these moves is moved by the naval simulation, not on land: it is at
    sea already, or its first move that is not a "0" enters a Coast or Sea hex (and is not the first
    half of a strait crossing) from a Town/City it may embark from (:func:`~engine.vae_victis.naval.can_embark`,
    with ``blockaded`` structures, default those of ``state``)."""
    if army.eliminated or army.cell is None:
        return False
    if is_navy(board, army):
        return True
    moves = tuple(moves)
    first = _first_move(moves)
    if first is None:
        return False
    target = board.sides.get(army.cell, {}).get(first[1])
    if target is None or board.hexes[target].kind not in NAVAL_KINDS or _crosses_strait_first(board, army.cell, moves):
        return False
    return can_embark(board, state, army, blockaded) is None


def sea_movers(
    board: Board,
    state: CampaignState,
    orders: Mapping[int, ArmyOrders],
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> frozenset[int]:
    """The armies the naval simulation moves this round (:func:`moves_by_sea`): every live army at
    sea, ordered or not, and every army whose orders embark it.  Pass it as ``naval`` to
    :func:`engine.vae_victis.movement.resolve_movement`."""
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    return frozenset(
        a.id for a in state.armies
        if moves_by_sea(board, state, a, orders[a.id].moves if a.id in orders else (), blockaded)
    )
