"""Simultaneous land movement (the seed's "Movement" and "Zones of Control" sections).

Every army gets ``rules.movement.points_per_round`` MP (the seed's 12) and spends them on its move string, all armies on one MP
clock.  docs/rules/movement.md states every choice made where the seed is silent;
in short:

* **The clock.**  Tick ``t`` (1..12 with the seed's MP) is the spending of every moving army's
  ``t``-th MP.  An army starts its next move at the first tick after its
  previous one; a move costing ``c`` MP started after ``s`` MP *happens* (the
  army enters the hex) at the end of tick ``s + c``.  Until then the army is in
  the hex it is leaving.  A "0" is a move that costs 1 MP and enters nothing.
* **Affordability.**  An army whose next move costs more MP than it has left
  stops for the round (it never skips to a cheaper later move).
* **Contests.**  Armies of different factions moving into the same hex at the
  same time (``rules.movement.contest_window``) are ranked by the seed's seven
  steps; only the first enters, the others stop for the round.
* **One army per hex.**  A hex held by an enemy army cannot be entered; enemy
  armies cannot pass through each other.  A hex held by a friendly army can be
  entered only to pass through it (the army's remaining orders take it out of
  the hex with MP it has); otherwise the army stops in the hex it is in.  An
  army that still ends the round on a friendly army (its way on was blocked
  later) goes back along its path to the last hex where it stands alone.
* **ZoC.**  An army that enters a hex in the ZoC of an enemy army (at the
  positions after that tick) or of an enemy structure (control at the start of
  the round; sieged and unowned structures have none) halts there.  An army
  starting inside an enemy structure's ZoC may leave it; its first move to a
  hex still inside it is its last (the seed's special rule), which the general
  rule already implies.
* **Straits** (seed, "Crossing straits"; :mod:`engine.vae_victis.straits`).  A crossing is
  written as two clock moves, into the strait Coast hex and onto the land hex across it; the
  simulation takes them as **one** move into the far land hex, at that hex's MP cost entered
  from the strait hex (the strait itself costs nothing; a road never runs through water, a
  River or an enemy navy's ZoC still count).  Whether the army may cross
  (:func:`engine.vae_victis.straits.crossing_problem`) is decided when it starts the move,
  with every land army where it stands at that tick (navies and armies moving by sea where
  they stood at the start of the round) and control, sieges and superiority of the start of
  the round; refused, the army stops on its side (Halt ``strait_closed``).  After landing it
  stops for the round (Halt ``strait``).  The path records the landing hex only (the army
  is never *in* the strait hex); the event names the strait.
* **Armies moving by sea** are not land movers: the armies named in ``naval`` (navies at sea
  and armies whose orders embark them, :func:`engine.vae_victis.orders.sea_movers`) and every
  army at sea are left to the naval simulation.  They neither move nor exert an army ZoC
  here (they are at sea or leaving, even behind "0"s); their positions in the result are
  unchanged and they get no movement event, path or MP.  An embarking army still **holds its
  Town/City hex** for the one-army-per-hex rule (an enemy cannot enter it, a friend may only
  pass through): the naval simulation may yet leave it in port (no NMP, blocked), and two
  armies must never end in one hex.

:func:`resolve_movement` is pure: it returns the new state and the events.  Its steps,
one function each (in :mod:`engine.vae_victis.movement_sim`), run every tick:
:func:`_start_next_moves`, :func:`_spend_stand_stills`, :func:`_resolve_contests`,
:func:`_settle_entries`, :func:`_halt_in_zoc`; then, after the last tick,
:func:`_stop_unfinished`, :func:`_step_back_from_shared_hexes` and :func:`_report`.  What a
move costs and who wins a contest (:func:`entry_cost`, :func:`priority_key`) are in
:mod:`engine.vae_victis.movement_entry`.
Every number comes from ``board.rules.movement`` (datasets/rules/vae-victis-ii.toml).
"""

from __future__ import annotations

from typing import Collection, Iterable, Mapping

from bellica.engine.vae_victis.costs import MoveCost
from bellica.engine.vae_victis.model import ArmyOrders, Board, CampaignState, Halt
from bellica.engine.vae_victis.movement_entry import PRIORITY_STEPS, entry_cost, priority_key
from bellica.engine.vae_victis.movement_sim import (
    MovementResult,
    _halt_in_zoc,
    _Mover,
    _report,
    _resolve_contests,
    _settle_entries,
    _Sim,
    _spend_stand_stills,
    _start_next_moves,
    _step_back_from_shared_hexes,
    _stop_unfinished,
)
from bellica.engine.vae_victis.naval_superiority import is_navy
from bellica.engine.vae_victis.order_errors import IllegalOrderError, OrderProblem
from bellica.engine.vae_victis.order_paths import _walk
from bellica.engine.vae_victis.rules import MovementRules
from bellica.engine.vae_victis.zoc import zoc_sources

__all__ = [
    "PRIORITY_STEPS",
    "Halt",
    "MoveCost",
    "MovementResult",
    "entry_cost",
    "priority_key",
    "resolve_movement",
]


def _check_moves(board: Board, state: CampaignState, orders: Mapping[int, ArmyOrders], by_sea: Collection[int]) -> None:
    problems: list[OrderProblem] = []
    armies = {a.id: a for a in state.armies}
    for army_id in sorted(orders):
        a = armies.get(army_id)
        if a is None or a.eliminated or a.cell is None:
            problems.append(OrderProblem(army_id, "army", "no such army on the map"))
            continue
        problems += _walk(board, a.cell, tuple(orders[army_id].moves), army_id, naval=army_id in by_sea)[1]
    cells = [a.cell for a in state.armies if not a.eliminated and a.cell is not None]
    if len(cells) != len(set(cells)):
        problems.append(OrderProblem(None, "army", "two armies start in the same hex; the state is invalid"))
    if problems:
        raise IllegalOrderError(problems, "movement")


def resolve_movement(
    board: Board,
    state: CampaignState,
    orders: Mapping[int, ArmyOrders],
    *,
    logistics_road_edges: Mapping[str, Iterable[tuple[str, str]]] | None = None,
    navy_zoc: Mapping[str, Iterable[str]] | None = None,
    options: MovementRules | None = None,
    naval: Collection[int] = (),
) -> MovementResult:
    """Move every army on land simultaneously (see the module doc); armies without orders stand still.

    ``orders`` should have passed :func:`engine.orders.validate_orders`; the move strings are
    checked again here (an :class:`IllegalOrderError` is raised before anything moves).
    ``logistics_road_edges[faction]``: road steps (a, b) on that faction's logistics lines between
    two of its towns/cities.  ``navy_zoc[faction]``: hexes in the ZoC of that faction's navies.
    ``options``: the movement rules, default ``board.rules.movement``.  ``naval``: armies the naval
    simulation moves (:func:`engine.vae_victis.orders.sea_movers`); they and every army at sea are
    left where they are, with no event (their move strings are checked as naval paths).
    """
    sea_ids = set(naval)
    by_sea = {a.id for a in state.armies if a.id in sea_ids or is_navy(board, a)}
    _check_moves(board, state, orders, by_sea)
    movers: dict[int, _Mover] = {}
    fixed: dict[int, str] = {}
    for a in state.armies:
        if a.eliminated or a.cell is None:
            continue
        if a.id in by_sea:
            fixed[a.id] = a.cell
            if board.hexes[a.cell].kind == "land":  # embarking from its Town/City: it holds the hex
                movers[a.id] = _Mover(a, (), a.cell, by_sea=True)
                movers[a.id].arrivals.append((0, a.cell, 0, None))
            continue
        o = orders.get(a.id)
        movers[a.id] = _Mover(a, tuple(o.moves) if o else (), a.cell)
        movers[a.id].arrivals.append((0, a.cell, 0, None))
    # Structure ZoC does not change during movement: control and sieges change in administration.
    structure_zoc: dict[str, list] = {}
    for src in zoc_sources(board, state):
        if src.kind == "structure":
            for c in src.cells:
                structure_zoc.setdefault(c, []).append(src)
    sim = _Sim(
        board=board,
        state=state,
        rules=options if options is not None else board.rules.movement,
        logistics={f: frozenset(e) for f, e in (logistics_road_edges or {}).items()},
        navy={f: frozenset(c) for f, c in (navy_zoc or {}).items()},
        movers=movers,
        structure_zoc=structure_zoc,
        fixed_positions=fixed,
    )
    sim.timeline.append({aid: m.cell for aid, m in movers.items()})
    for tick in range(1, sim.rules.points_per_round + 1):
        _start_next_moves(sim)
        entries = _spend_stand_stills(sim, tick)
        _resolve_contests(sim, tick, entries)
        _settle_entries(sim, tick, entries)
        _halt_in_zoc(sim, tick, entries)
    _stop_unfinished(sim)
    return _report(sim, _step_back_from_shared_hexes(sim))
