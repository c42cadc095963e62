"""The round machine the umpire walks through (seed: "Rounds"), one transaction per step.

A round is played as the seed orders it::

    orders      1.1 initiative uses (sealed)          submit_initiative
                1.2 publish uses + naval superiority  publish_initiative
                1.3 movement/siege/assault/transfer   submit_orders (sealed)
    movement    simultaneous movement, engagements    run_movement
    battles     Field of Glory II results             record_result
    admin       the nine administration steps         run_administration
    victory     victory points, the five conditions   run_victory  -> next round

The campaign's ``phase`` (and, in the orders phase, ``stage``: ``initiative`` or
``moves``) says which steps are allowed; any other step is refused with a message
naming what is missing (``cannot run movement: orders phase incomplete, missing
orders from Carthago armies 3, 5``).  Movement, administration and victory are
instantaneous, so the stored phase moves orders -> battles -> victory -> orders.

Every step is: open a transaction, read the stored state, call the pure rules
function of :mod:`engine.movement`, :mod:`engine.battles`,
:mod:`engine.administration` or :mod:`engine.victory`, record its explanations
and the resulting changes as events (:func:`engine.state.save_state`), commit.

Orders are sealed (boardgame.io's lesson about secrets leaking through the move
log): they are stored when submitted, but :func:`orders_view` and ``tabula log
--faction`` show a faction only its own until every army has submitted.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import duckdb

from tabula.engine.core import state as st
from tabula.engine.vae_victis.explain import describe
from tabula.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState, Event, Phase, Siege, Transfer
from tabula.geo.errors import InputError, TabulaError

__all__ = [
    "clear_caches",
    "StepRefused",
    "RoundStatus",
    "NAVAL_SUPERIORITY_BASE",
    "round_status",
    "submit_initiative",
    "publish_initiative",
    "submit_orders",
    "orders_view",
    "naval_superiority",
    "run_movement",
    "battle_sheet",
    "record_result",
    "declare_retreat",
    "AdminChoices",
    "parse_choices_text",
    "load_choices",
    "run_administration",
    "run_victory",
    "readjudicate",
]

#: Seed, "Naval superiority": every faction's level in a zone starts from 2.
NAVAL_SUPERIORITY_BASE = 2

STAGE_INITIATIVE = "initiative"
STAGE_MOVES = "moves"


class StepRefused(InputError):
    """A step asked for out of order; the message says what is missing and which command comes next."""


# --- reading the stored round ---------------------------------------------------------


@dataclass(frozen=True)
class _Round:
    snap: st.Snapshot
    state: CampaignState
    stage: str | None

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def phase(self) -> str:
        return self.state.phase.value

    def live_armies(self):
        return [a for a in self.state.armies if not a.eliminated and a.cell is not None]

    def orders_rows(self, rnd: int | None = None) -> dict[int, tuple]:
        rnd = self.round if rnd is None else rnd
        return {k[1]: row for k, row in self.snap.tables["orders"].items() if k[0] == rnd}

    def note(self, key: str, rnd: int | None = None):
        row = self.snap.tables["round_notes"].get((self.round if rnd is None else rnd, key))
        return None if row is None else json.loads(row[2])


def _read(con) -> _Round:
    snap = st.read_snapshot(con)
    state = st.snapshot_state(snap)
    return _Round(snap, state, snap.campaign("stage"))


#: Tables (and their columns) :func:`engine.board.board_from_duckdb` reads (``road_edges`` is a
#: view of ``road_cells``, hashed through it).
_BOARD_TABLES = {
    "hexes": "cell, res, kind, terrain, river, lat, lng",
    "hex_neighbors": "cell, neighbor, clock",
    "road_cells": "road, seq, cell",
    "river_cells": "cell",
    "structures": "name, kind, cell, controller, capital",
    "factions": "name, player, capitals, influence_multiplier, colour",
    "hex_sea_zones": "cell, zone",
}
_BOARDS: dict[tuple, Board] = {}  # content digest -> Board
_BY_CON: dict[int, tuple[weakref.ref, tuple, Board]] = {}  # id(con) -> (con, row counts, Board)


def _board_fingerprint(con, tables: set[str]) -> tuple:
    """A digest of every row the Board is read from: equal digests, equal Boards."""
    present = tuple(t for t in _BOARD_TABLES if t in tables) + (("road_edges",) if "road_edges" in tables else ())
    parts = [
        f"(SELECT [count(*)::HUGEINT, coalesce(sum(hash({cols}))::HUGEINT, 0)] FROM {t})"
        for t, cols in _BOARD_TABLES.items()
        if t in tables
    ]
    if not parts:
        return present, ()
    row = con.execute("SELECT " + ", ".join(parts)).fetchone()
    return present, tuple(tuple(x) for x in row)


def _board_counts(con, tables: set[str]) -> tuple:
    present = tuple(t for t in _BOARD_TABLES if t in tables)
    if not present:
        return ()
    return present, con.execute("SELECT " + ", ".join(f"(SELECT count(*) FROM {t})" for t in present)).fetchone()


def _board(con) -> Board:
    """The campaign's Board, read once per process while its tables are unchanged.

    The Board is what never changes during a campaign (engine/board.py), so a connection
    that has read it keeps it (checked by its tables' row counts); another connection to
    the same content (a copy of the file, a re-opened campaign) finds it by a digest of
    every row it is read from (a few ms, against ~50 ms at res 5 and ~400 ms at res 6 to
    read it).  The logistics of the Board are bound to this campaign database
    (:func:`engine.logistics.bind_board`), so they reuse its static link tables.
    """
    from tabula.engine.vae_victis.board import board_from_duckdb, existing_tables
    from tabula.engine.vae_victis.logistics import bind_board

    try:
        tables = existing_tables(con)
        counts = _board_counts(con, tables)
        hit = _BY_CON.get(id(con))
        if hit is not None and hit[0]() is con and hit[1] == counts:
            return hit[2]
        key = _board_fingerprint(con, tables)
    except duckdb.Error:
        return board_from_duckdb(con)
    board = _BOARDS.get(key)
    if board is None:
        board = board_from_duckdb(con)
        _BOARDS.clear()  # one campaign at a time is the common case; keep memory bounded
        _BOARDS[key] = board
    try:
        ref = weakref.ref(con, lambda _r, k=id(con): _BY_CON.pop(k, None))
    except TypeError:
        pass
    else:
        _BY_CON[id(con)] = (ref, counts, board)
    bind_board(board, con)
    return board


def clear_caches() -> None:
    """Forget the cached Board and the logistics caches (benchmarks measure a cold process)."""
    from tabula.engine.vae_victis.logistics import clear_caches as clear_logistics

    _BOARDS.clear()
    _BY_CON.clear()
    clear_logistics()


def _stored_logistics(con, board: Board, state: CampaignState):
    """Logistics of the stored position, computed on the campaign database itself (its static
    link tables are built once and kept there); remembered for the pure rules functions."""
    from tabula.engine.vae_victis.logistics import compute_logistics, remember

    result = compute_logistics(con, board=board)
    remember(board, state, result)
    return result


def _names(board: Board) -> dict[str, str]:
    return {s.cell: s.name for s in board.structures.values()}


def _event(rnd: int, phase: str, kind: str, data: Mapping[str, Any], text: str = "", names=None) -> Event:
    ev = Event(round=rnd, phase=phase, kind=kind, data=dict(data), text=text)
    return ev if text else replace(ev, text=describe(ev, names))


def _armies_text(ids_by_faction: Mapping[str, Sequence[int]]) -> str:
    parts = []
    for faction in sorted(ids_by_faction):
        ids = sorted(ids_by_faction[faction])
        parts.append(f"{faction} arm{'y' if len(ids) == 1 else 'ies'} {', '.join(map(str, ids))}")
    return "; ".join(parts)


def _refuse_unless_phase(r: _Round, wanted: Phase, action: str) -> None:
    if r.state.winner is not None:
        raise StepRefused(f"cannot {action}: the campaign is over, {r.state.winner} won in round {r.round}")
    if r.state.phase is not wanted:
        raise StepRefused(f"cannot {action}: round {r.round} is in the {r.phase} phase; {_next_hint(r)}")


# --- status --------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundStatus:
    round: int
    phase: str
    stage: str | None
    winner: str | None
    missing_initiative: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    missing_orders: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    engagements: tuple[tuple, ...] = ()  # (engagement, battle, army_a, army_b, assault, has_result)
    next_step: str = ""

    def lines(self) -> list[str]:
        head = f"round {self.round}, phase {self.phase}" + (f" ({self.stage})" if self.phase == "orders" and self.stage else "")
        out = [head + (f"; campaign won by {self.winner}" if self.winner else "")]
        if self.phase == "orders":
            if self.stage == STAGE_INITIATIVE and self.missing_initiative:
                out.append("initiative not yet given by " + _armies_text(self.missing_initiative) + " (default: strength)")
            if self.missing_orders:
                out.append("orders missing from " + _armies_text(self.missing_orders))
        for e, b, a, bb, assault, done in self.engagements:
            what = f"army {a} assaults {assault}" if bb is None else f"army {a} v army {bb}"
            out.append(f"engagement {e} (battle {b}): {what}: {'result recorded' if done else 'awaiting result'}")
        out.append("next: " + self.next_step)
        return out


def _missing(r: _Round, column: int) -> dict[str, tuple[int, ...]]:
    rows = r.orders_rows()
    out: dict[str, list[int]] = {}
    for a in r.live_armies():
        row = rows.get(a.id)
        if row is None or row[column] is None:
            out.setdefault(a.faction, []).append(a.id)
    return {f: tuple(ids) for f, ids in out.items()}


def _engagement_rows(r: _Round) -> list[tuple]:
    return sorted((row for k, row in r.snap.tables["engagements"].items() if k[0] == r.round), key=lambda row: row[2])


def _results_for(r: _Round, engagement: int) -> dict[int, tuple]:
    return {k[2]: row for k, row in r.snap.tables["engagement_results"].items() if k[0] == r.round and k[1] == engagement}


def _next_hint(r: _Round) -> str:
    if r.state.winner is not None:
        return "none: the campaign is over"
    if r.state.phase is Phase.ORDERS:
        if r.stage == STAGE_INITIATIVE:
            return "give initiative uses (`tabula round initiative`), then publish them (`tabula round publish`)"
        missing = _missing(r, 2)
        if missing:
            return f"submit orders (`tabula round orders`) for {_armies_text(missing)}"
        return "run movement (`tabula round move`)"
    if r.state.phase is Phase.BATTLES:
        pending = [row[2] for row in _engagement_rows(r) if not _results_for(r, row[2])]
        if pending:
            return f"record results (`tabula round result`) of engagement{'s' if len(pending) > 1 else ''} {', '.join(map(str, pending))}"
        return "run administration (`tabula round administer`)"
    if r.state.phase is Phase.VICTORY:
        return "check victory and start the next round (`tabula round victory`)"
    return f"phase {r.phase} has no step"


def round_status(con: duckdb.DuckDBPyConnection) -> RoundStatus:
    """Where the campaign stands and what the umpire does next (read-only)."""
    st._require_state(con)
    r = _read(con)
    engagements = tuple(
        (row[2], row[1], row[3], row[4], row[5], bool(_results_for(r, row[2]))) for row in _engagement_rows(r)
    )
    return RoundStatus(
        round=r.round,
        phase=r.phase,
        stage=r.stage,
        winner=r.state.winner,
        missing_initiative=_missing(r, 3) if r.state.phase is Phase.ORDERS else {},
        missing_orders=_missing(r, 2) if r.state.phase is Phase.ORDERS else {},
        engagements=engagements,
        next_step=_next_hint(r),
    )


# --- orders: stored rows <-> ArmyOrders --------------------------------------------------


def _orders(army, moves, initiative, lift_siege, assault, transfers) -> ArmyOrders:
    """ArmyOrders from stored fields: moves as text, transfers as [{to_army, fp}] (an orders row
    or a ``put_orders`` event's data)."""
    return ArmyOrders(
        army=int(army),
        moves=tuple(int(t) for t in (moves or "").split()),
        initiative=initiative or "strength",
        lift_siege=bool(lift_siege),
        assault=assault,
        transfers=tuple(Transfer(int(t["to_army"]), int(t["fp"])) for t in transfers or []),
    )


def _row_to_orders(row: tuple) -> ArmyOrders:
    _rnd, army, moves, initiative, lift_siege, assault, transfers = row
    return _orders(army, moves, initiative, lift_siege, assault, json.loads(transfers or "[]"))


def _orders_data(rnd: int, o: ArmyOrders, *, moves_given: bool, source: str) -> dict:
    # ``source`` (initiative / orders / default) tells a submission from publication's default;
    # the reducer ignores it, :func:`readjudicate` reads it.
    return {
        "source": source,
        "round": rnd,
        "army": o.army,
        "moves": " ".join(str(m) for m in o.moves) if moves_given else None,
        "initiative": o.initiative,
        "lift_siege": bool(o.lift_siege),
        "assault": o.assault,
        "transfers": [{"to_army": t.to_army, "fp": t.fp} for t in o.transfers],
    }


def _transferred_before(r: _Round) -> dict[frozenset[int], int]:
    """FP ordered between each pair in earlier rounds (the 100 FP cap is for the whole campaign)."""
    totals: dict[frozenset[int], int] = {}
    for (rnd, army), row in r.snap.tables["orders"].items():
        if rnd >= r.round:
            continue
        for t in json.loads(row[6] or "[]"):
            key = frozenset((army, int(t["to_army"])))
            totals[key] = totals.get(key, 0) + int(t["fp"])
    return totals


def _validate(con, board: Board, r: _Round, faction: str | None, orders: Mapping[int, ArmyOrders], source: str) -> None:
    """Layer 2 of :mod:`engine.orders` on the submitted orders *together with* the faction's stored
    ones, so the influence cap and the 100 FP transfer cap count the whole round."""
    from tabula.engine.vae_victis.orders import IllegalOrderError, check_orders

    if faction is not None and faction not in board.factions:
        raise InputError(f"unknown faction {faction!r}: use one of {', '.join(sorted(board.factions))}")
    stored = {army: _row_to_orders(row) for army, row in r.orders_rows().items()}
    factions = {a.id: a.faction for a in r.state.armies}
    touched = {factions.get(a) for a in orders}
    merged = {a: o for a, o in stored.items() if factions.get(a) in touched and a not in orders}
    merged.update(orders)
    needs_links = any(o.transfers for o in merged.values())
    linked = _stored_logistics(con, board, r.state).linked_armies if needs_links else ()
    problems = check_orders(board, r.state, faction, merged, linked_pairs=linked, transferred_before=_transferred_before(r))
    # Problems of stored orders the submission did not touch are not this submission's fault,
    # except the caps, which the new orders may be what breaks.
    problems = [p for p in problems if p.army is None or p.army in orders or p.field in ("initiative", "transfers")]
    if problems:
        raise IllegalOrderError(problems, source)


def submit_initiative(
    con: duckdb.DuckDBPyConnection, uses: Mapping[int, str], *, faction: str | None = None, source: str = "the command line"
) -> list[Event]:
    """Step 1.1: store initiative uses (``"strength"`` or a sea-zone name) for some armies, sealed.

    Allowed until :func:`publish_initiative`; a second submission for an army replaces the first.
    """
    if not uses:
        raise InputError("no initiative uses given: pass ARMY=USE items, e.g. 9=strength or \"10=Mare Tyrrhenum\"")
    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.ORDERS, "take initiative uses")
        if r.stage != STAGE_INITIATIVE:
            raise StepRefused(
                f"cannot take initiative uses: round {r.round}'s initiative was published; {_next_hint(r)}"
            )
        board = _board(con)
        stored = r.orders_rows()
        orders = {}
        for army, use in sorted(uses.items()):
            base = _row_to_orders(stored[army]) if army in stored else ArmyOrders(army=army)
            orders[army] = replace(base, initiative=use.strip())
        _validate(con, board, r, faction, orders, source)
        events = []
        for army, o in orders.items():
            moves_given = army in stored and stored[army][2] is not None
            data = _orders_data(r.round, o, moves_given=moves_given, source="initiative")
            events.append(_event(r.round, "orders", "put_orders", data, f"initiative received for army {army}"))
        st.append_events(con, events)
    return events


def naval_superiority(board: Board, initiative: Mapping[int, str], army_faction: Mapping[int, str]) -> dict[str, dict[str, int]]:
    """{zone: {faction: level}}: 2 + own Influence points - the highest other faction's, floored at 0.

    Seed, "Naval superiority".  Every faction of the board gets a level in every sea zone.
    """
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    points: dict[tuple[str, str], int] = {}
    for army, use in initiative.items():
        if use and use != "strength":
            key = (use, army_faction[army])
            points[key] = points.get(key, 0) + 1
    out = {}
    for zone in zones:
        levels = {}
        for f in sorted(board.factions):
            others = max((points.get((zone, g), 0) for g in board.factions if g != f), default=0)
            levels[f] = max(0, NAVAL_SUPERIORITY_BASE + points.get((zone, f), 0) - others)
        out[zone] = levels
    return out


def publish_initiative(con: duckdb.DuckDBPyConnection) -> list[Event]:
    """Step 1.2: open every army's initiative use (no use given = "strength", the seed's default)
    and publish each faction's naval superiority per sea zone; movement orders come next."""
    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.ORDERS, "publish initiative")
        if r.stage != STAGE_INITIATIVE:
            raise StepRefused(f"cannot publish initiative: round {r.round}'s initiative is already published; {_next_hint(r)}")
        board = _board(con)
        stored = r.orders_rows()
        events: list[Event] = []
        uses: dict[int, str] = {}
        for a in r.live_armies():
            row = stored.get(a.id)
            if row is None or row[3] is None:
                o = ArmyOrders(army=a.id)
                events.append(
                    _event(r.round, "orders", "put_orders", _orders_data(r.round, o, moves_given=False, source="default"),
                           f"army {a.id} ({a.faction}) gave no initiative use: +40 FP in its engagements (the default)")
                )
                uses[a.id] = "strength"
            else:
                uses[a.id] = row[3]
        for a in r.live_armies():
            use = uses[a.id]
            text = f"army {a.id} ({a.faction}) initiative: " + ("+40 FP in its engagements" if use == "strength" else f"influence in {use}")
            events.append(_event(r.round, "orders", "initiative_published", {"army": a.id, "faction": a.faction, "use": use}, text))
        levels = naval_superiority(board, uses, {a.id: a.faction for a in r.state.armies})
        for zone, by_faction in levels.items():
            text = f"naval superiority in {zone}: " + ", ".join(f"{f} {v}" for f, v in by_faction.items())
            events.append(_event(r.round, "orders", "naval_superiority", {"zone": zone, "levels": by_faction}, text))
        events.append(_event(r.round, "orders", "put_note", {"round": r.round, "key": "naval_superiority", "value": levels}))
        events.append(_event(r.round, "orders", "set_campaign", {"key": "stage", "value": STAGE_MOVES, "was": STAGE_INITIATIVE}))
        st.append_events(con, events)
    return events


def submit_orders(
    con: duckdb.DuckDBPyConnection,
    orders: Mapping[int, ArmyOrders],
    *,
    faction: str | None = None,
    round: int | None = None,
    source: str = "the command line",
) -> list[Event]:
    """Step 1.3: store movement/siege/assault/transfer orders, sealed, after validating all of them.

    Nothing is stored unless every order is legal (:class:`engine.orders.OrderError` lists every
    problem).  Before publication the orders may carry initiative uses; after it the published
    use stands, and an order naming another use (other than the default "strength") is refused.
    A second submission for an army replaces the first until movement runs.
    """
    from tabula.engine.vae_victis.orders import IllegalOrderError, OrderProblem

    if not orders:
        raise InputError(f"{source} holds no orders: give at least one army's moves")
    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.ORDERS, "take orders")
        if round is not None and round != r.round:
            raise InputError(f"{source} is for round {round} but the campaign is in round {r.round}: fix its `round`")
        board = _board(con)
        stored = r.orders_rows()
        final: dict[int, ArmyOrders] = {}
        problems = []
        for army, o in sorted(orders.items()):
            given = stored[army][3] if army in stored else None
            if given is not None and o.initiative == "strength":
                # "strength" is also what an order that leaves the use out says: keep the use given before.
                o = replace(o, initiative=given)
            elif r.stage == STAGE_MOVES and given is not None and o.initiative != given:
                problems.append(OrderProblem(army, "initiative", f"the initiative use was published as {given!r}; "
                                             "it cannot change after naval superiority is published (leave it out)"))
            final[army] = o
        if problems:
            raise IllegalOrderError(problems, source)
        _validate(con, board, r, faction, final, source)
        events = [
            _event(r.round, "orders", "put_orders", _orders_data(r.round, o, moves_given=True, source="orders"), f"orders received for army {army}")
            for army, o in final.items()
        ]
        st.append_events(con, events)
    return events


def orders_view(con: duckdb.DuckDBPyConnection, *, faction: str | None = None) -> list[tuple[int, str, ArmyOrders | None]]:
    """This round's orders as ``faction`` may see them: (army, army's faction, orders or None if sealed/missing).

    ``faction=None`` is the umpire's view.  Others' orders open once every army has submitted
    (initiative uses once published).
    """
    st._require_state(con)
    r = _read(con)
    rows = r.orders_rows()
    all_in = r.state.phase is not Phase.ORDERS or not _missing(r, 2)
    out = []
    for a in r.state.armies:
        row = rows.get(a.id)
        if row is None:
            out.append((a.id, a.faction, None))
            continue
        o = _row_to_orders(row)
        if faction is None or a.faction == faction or all_in:
            out.append((a.id, a.faction, o))
        elif r.stage == STAGE_MOVES:
            out.append((a.id, a.faction, ArmyOrders(army=a.id, initiative=o.initiative)))  # only the published use
        else:
            out.append((a.id, a.faction, None))
    return out


# --- movement ----------------------------------------------------------------------------------


def _start_note(state: CampaignState) -> dict:
    """The round's starting position, for the rules that look back at it (sieges held "the full
    round", reinforcement of armies that did not move, transfers between armies linked at the start)."""
    return {
        "armies": {str(a.id): {"cell": a.cell, "strength": a.strength, "eliminated": a.eliminated} for a in state.armies},
        "control": dict(sorted(state.control.items())),
        "sieges": [
            {"structure": s.structure, "faction": s.faction, "armies": list(s.armies), "resilience": s.resilience,
             "start_resilience": s.start_resilience, "started_round": s.started_round}
            for s in state.sieges
        ],
        "victory_points": dict(sorted(state.victory_points.items())),
    }


def _start_state(r: _Round) -> CampaignState:
    """The state at the start of this round, rebuilt from the ``start`` note written by movement."""
    note = r.note("start")
    if note is None:
        return r.state
    factions = {a.id: a.faction for a in r.state.armies}
    armies = tuple(
        Army(int(k), factions[int(k)], v["cell"], int(v["strength"]), bool(v["eliminated"]))
        for k, v in sorted(note["armies"].items(), key=lambda kv: int(kv[0]))
    )
    sieges = tuple(
        Siege(x["structure"], x["faction"], tuple(x["armies"]), x["resilience"], x["start_resilience"], x["started_round"])
        for x in note["sieges"]
    )
    return replace(
        r.state, phase=Phase.ORDERS, armies=armies, control=dict(note["control"]), sieges=sieges,
        victory_points=dict(note.get("victory_points", r.state.victory_points)),
    )


def run_movement(con: duckdb.DuckDBPyConnection) -> list[Event]:
    """Phase 2: move every army simultaneously, then list the engagements of phase 3."""
    from tabula.engine.vae_victis.movement import resolve_movement

    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.ORDERS, "run movement")
        if r.stage == STAGE_INITIATIVE:
            raise StepRefused(
                f"cannot run movement: round {r.round}'s initiative uses are not published yet; run `tabula round publish`"
            )
        missing = _missing(r, 2)
        if missing:
            raise StepRefused(f"cannot run movement: orders phase incomplete, missing orders from {_armies_text(missing)}")
        board = _board(con)
        names = _names(board)
        orders = {army: _row_to_orders(row) for army, row in r.orders_rows().items()}
        logistics = _stored_logistics(con, board, r.state)  # at the start of the round: the -1 MP roads, the allies' 6 MP
        result = resolve_movement(board, r.state, orders, logistics_road_edges=logistics.road_edges)
        notes = [
            ("start", _start_note(r.state)),
            ("movement", {
                "mp_spent": {str(k): v for k, v in result.mp_spent.items()},
                "paths": {str(k): list(v) for k, v in result.paths.items()},
                "halted": {str(k): {"kind": h.kind, "move": h.move, "cell": h.cell} for k, h in result.halted.items()},
            }),
        ]
        note_events = [_event(r.round, "movement", "put_note", {"round": r.round, "key": k, "value": v}) for k, v in notes]
        moved = replace(result.state, phase=Phase.BATTLES)
        engagement_events = _list_engagements(
            board, moved, orders, mp_spent=result.mp_spent, start_state=r.state, start_logistics=logistics, retreats=()
        )
        st.save_state(con, moved, events=result.events, phase="movement", names=names)
        st.append_events(con, note_events + engagement_events)
    return list(result.events) + note_events + engagement_events


# --- battles -------------------------------------------------------------------------------------


def record_result(con: duckdb.DuckDBPyConnection, engagement: int, outcomes: Mapping[int, tuple[str, int]]) -> list[Event]:
    """Phase 3: record one Field of Glory II engagement's result: ``{army: (outcome, casualties %)}``.

    Every army of the engagement needs a row (an assault has only the assaulting army: the
    defender is the structure's garrison and suffers no strength loss).  Outcomes must agree:
    one win and one loss, or two draws.  Recording again replaces the result (a correction),
    until administration runs.
    """
    from tabula.engine.vae_victis.battles import OUTCOMES

    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.BATTLES, "record a result")
        rows = {row[2]: row for row in _engagement_rows(r)}
        if engagement not in rows:
            known = ", ".join(map(str, sorted(rows))) or "none"
            raise InputError(f"round {r.round} has no engagement {engagement}: its engagements are {known} (see `tabula round battles`)")
        _rnd, _battle, _e, army_a, army_b, assault = rows[engagement]
        armies = [a for a in (army_a, army_b) if a is not None]
        given = sorted(outcomes)
        if given != sorted(armies):
            raise InputError(
                f"engagement {engagement} is fought by army {' and army '.join(map(str, armies))}: "
                f"give a result for exactly {'that army' if len(armies) == 1 else 'those armies'} (got {', '.join(map(str, given)) or 'none'})"
            )
        for army, (outcome, casualties) in sorted(outcomes.items()):
            if outcome not in OUTCOMES:
                raise InputError(f"army {army}: outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
            if isinstance(casualties, bool) or not isinstance(casualties, int) or not 0 <= casualties <= 100:
                raise InputError(f"army {army}: casualties {casualties!r} must be a whole percentage 0-100 (as FoG II shows it)")
        if len(armies) == 2:
            pair = sorted(outcomes[a][0] for a in armies)
            if pair not in (["draw", "draw"], ["loss", "win"]):
                raise InputError(
                    f"engagement {engagement}: outcomes {outcomes[army_a][0]} for army {army_a} and {outcomes[army_b][0]} "
                    f"for army {army_b} disagree: one wins and the other loses, or both draw"
                )
        factions = {a.id: a.faction for a in r.state.armies}
        events = []
        for army, (outcome, casualties) in sorted(outcomes.items()):
            verb = {"win": "wins", "draw": "draws", "loss": "loses"}[outcome]
            against = f"the assault on {assault}" if army_b is None else f"engagement {engagement}"
            events.append(_event(
                r.round, "battles", "put_result",
                {"round": r.round, "engagement": engagement, "army": army, "outcome": outcome, "casualties": casualties},
                f"army {army} ({factions.get(army)}) {verb} {against}, {casualties}% casualties",
            ))
        st.append_events(con, events)
    return events


def _list_engagements(
    board: Board,
    state: CampaignState,
    orders: Mapping[int, ArmyOrders],
    *,
    mp_spent: Mapping[int, int],
    start_state: CampaignState,
    start_logistics,
    retreats: Iterable[int],
) -> list[Event]:
    """Engagements after movement (:func:`engine.battles.find_engagements`) as ``put_engagement``
    events, plus each one's Field of Glory II set-up, worded and kept in the ``setups`` note."""
    from tabula.engine.vae_victis.battles import engagement_setup, find_engagements

    assaults = {a: o.assault for a, o in orders.items() if o.assault and not o.lift_siege}
    engagements = find_engagements(board, state, assaults=assaults, retreats=tuple(sorted(retreats)))
    initiative = {a: o.initiative for a, o in orders.items()}
    in_transit = {a: sum(t.fp for t in o.transfers) for a, o in orders.items() if o.transfers}
    events: list[Event] = []
    setups: dict[str, str] = {}
    rnd = state.round
    for e in engagements:
        events.append(_event(rnd, "movement", "put_engagement", {
            "round": rnd, "battle": e.battle, "engagement": e.number, "army_a": e.army_a, "army_b": e.army_b, "assault": e.assault,
        }))
        setup = engagement_setup(
            board, state, e, engagements, mp_spent=mp_spent, initiative=initiative,
            start_logistics=start_logistics, start_state=start_state, in_transit=in_transit,
        )
        setups[str(e.number)] = setup.text()
        events.append(_event(rnd, "movement", "engagement_setup", {"engagement": e.number, "sets_up": setup.sets_up,
                                                                    "fp": [side.fp for side in setup.sides], "map": setup.map},
                             setup.text()))
    if not engagements:
        events.append(_event(rnd, "movement", "no_engagements", {}, "no armies of different factions are in each other's ZoC: no battles this round"))
    events.append(_event(rnd, "movement", "put_note", {"round": rnd, "key": "setups", "value": setups}))
    return events


def battle_sheet(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Phase 3 at a glance: every engagement of the round, its set-up and its result so far (read-only)."""
    st._require_state(con)
    r = _read(con)
    rows = _engagement_rows(r)
    if not rows:
        if r.state.phase is Phase.BATTLES:
            return [f"round {r.round}: no engagements; next: {_next_hint(r)}"]
        return [f"round {r.round} is in the {r.phase} phase: no engagements listed yet; next: {_next_hint(r)}"]
    setups = r.note("setups") or {}
    out = []
    battle = None
    for _rnd, b, e, army_a, army_b, assault in rows:
        if b != battle:
            battle = b
            out.append(f"battle {b}")
        out.append("  " + setups.get(str(e), f"engagement {e}: army {army_a} v {'army ' + str(army_b) if army_b is not None else assault}"))
        results = _results_for(r, e)
        if results:
            out.append("    result: " + "; ".join(f"army {a} {row[3]}, {row[4]}% casualties" for a, row in sorted(results.items())))
        else:
            out.append("    result: awaiting (`tabula round result`)")
    out.append(f"next: {_next_hint(r)}")
    return out


def declare_retreat(con: duckdb.DuckDBPyConnection, army: int) -> list[Event]:
    """Phase 3: ``army`` retreats rather than fight its engagements (seed, "Engagements and battles").

    Declared before any engagement of the round is fought: the engagements are listed
    again without the army (their numbers may change).  The victory points and where the
    army goes are administration's (``retreats`` note).
    """
    from tabula.engine.vae_victis.logistics import logistics_for

    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.BATTLES, "take a retreat")
        rows = _engagement_rows(r)
        mine = [row for row in rows if army in (row[3], row[4])]
        if not mine:
            fighting = sorted({a for row in rows for a in (row[3], row[4]) if a is not None})
            raise InputError(
                f"army {army} fights no engagement this round: armies in engagements are {', '.join(map(str, fighting)) or 'none'}"
            )
        recorded = sorted({k[1] for k in r.snap.tables["engagement_results"] if k[0] == r.round})
        if recorded:
            raise StepRefused(
                f"cannot take a retreat: results are already recorded for engagement{'s' if len(recorded) > 1 else ''} "
                f"{', '.join(map(str, recorded))}; retreats are declared before any engagement is fought"
            )
        # (retreating army, enemy) per engagement given up: the VP table counts each one.
        against_pairs = [[army, row[4] if row[3] == army else row[3]] for row in mine if row[4] is not None]
        before = r.note("retreats") or {"armies": [], "pairs": []}
        pairs = sorted({tuple(p) for p in before["pairs"]} | {tuple(p) for p in against_pairs})
        retreats = sorted(set(before["armies"]) | {army})
        board = _board(con)
        start_state = _start_state(r)
        movement = r.note("movement") or {"mp_spent": {}}
        orders = {a: _row_to_orders(row) for a, row in r.orders_rows().items()}
        faction = r.state.army(army).faction
        against = sorted({enemy for _, enemy in against_pairs})
        events = [_event(r.round, "battles", "retreat", {"army": army, "faction": faction, "against": against},
                         f"army {army} ({faction}) retreats rather than fight"
                         + (f" army {', army '.join(map(str, against))}" if against else ""))]
        events += [_event(r.round, "battles", "drop_engagement", {"round": r.round, "engagement": row[2]}) for row in rows]
        events.append(_event(r.round, "battles", "put_note", {"round": r.round, "key": "retreats", "value": {"armies": retreats, "pairs": [list(p) for p in pairs]}}))
        events += _list_engagements(
            board, r.state, orders, mp_spent={int(k): v for k, v in movement["mp_spent"].items()},
            start_state=start_state, start_logistics=logistics_for(board, start_state), retreats=retreats,
        )
        st.append_events(con, [replace(e, phase="battles") for e in events])
    return events


# --- administration and victory -------------------------------------------------------------


def _engagements_and_results(r: _Round):
    from tabula.engine.vae_victis.battles import Engagement, EngagementResult

    engagements = tuple(
        Engagement(number=row[2], battle=row[1], army_a=row[3], army_b=row[4], assault=row[5]) for row in _engagement_rows(r)
    )
    results = tuple(
        EngagementResult(engagement=k[1], army=k[2], outcome=row[3], casualties=row[4])
        for k, row in sorted(r.snap.tables["engagement_results"].items())
        if k[0] == r.round
    )
    return engagements, results


def run_victory(con: duckdb.DuckDBPyConnection) -> list[Event]:
    """End of the round: the round's victory points (seed's table), then the five victory conditions.

    With a winner the campaign ends (``winner`` in the campaign table); otherwise the next
    round starts in the orders phase, initiative stage.
    """
    from tabula.engine.vae_victis.victory import check_victory, round_victory_points, score_round

    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.VICTORY, "check victory")
        board = _board(con)
        engagements, results = _engagements_and_results(r)
        retreats = [tuple(p) for p in (r.note("retreats") or {"pairs": []})["pairs"]]
        control_events = [
            Event(e.round, e.phase, e.kind, e.data, e.text)
            for e in st.load_events(con, round=r.round)
            if e.kind == "control_changed"
        ]
        round_vp, vp_events = round_victory_points(
            board, _start_state(r), engagements, results, retreats=retreats, control_events=control_events
        )
        scored = score_round(board, r.state, round_vp)
        check, victory_events = check_victory(board, scored)
        events = list(vp_events) + list(victory_events)
        if check.winner is not None:
            final = replace(scored, winner=check.winner)
        else:
            final = replace(scored, round=r.round + 1, phase=Phase.ORDERS)
            events.append(_event(r.round, "victory", "round_ended", {"round": r.round, "vp": dict(sorted(scored.victory_points.items()))},
                                 f"round {r.round} ends: " + ", ".join(f"{f} {v} VP" for f, v in sorted(scored.victory_points.items()))
                                 + "; no faction has won"))
        st.save_state(con, final, events=events, phase="victory", names=_names(board))
        if check.winner is None:
            stage = _event(r.round + 1, "orders", "set_campaign", {"key": "stage", "value": STAGE_INITIATIVE, "was": r.stage})
            st.append_events(con, [stage])
            events.append(stage)
    return events


@dataclass(frozen=True)
class AdminChoices:
    """The umpire's and players' choices the administration phase needs (docs/rules/rounds.md).

    ``advances``: winner -> the vacated hex it advances into (an H3 cell, a structure
    name, or a clock position from the army's hex); ``siege_starts``: army -> structure
    it starts (or joins) besieging; ``take_overs``: structures whose running siege the
    army's faction continues; ``surrenders``: structures their controller surrenders.
    """

    advances: Mapping[int, str | int] = field(default_factory=dict)
    siege_starts: Mapping[int, str] = field(default_factory=dict)
    take_overs: frozenset[str] = frozenset()
    surrenders: frozenset[str] = frozenset()

    def to_json(self) -> dict:
        return {
            "advances": {str(k): v for k, v in sorted(self.advances.items())},
            "siege_starts": {str(k): v for k, v in sorted(self.siege_starts.items())},
            "take_overs": sorted(self.take_overs),
            "surrenders": sorted(self.surrenders),
        }


_CHOICE_KEYS = {"advance": "army = hex (H3 cell, structure or clock position)", "siege": "start / take_over / surrender"}


def parse_choices_text(text: str, source: str = "<choices>") -> AdminChoices:
    """Administration choices from TOML::

        [advance]
        14 = 5                 # army 14 advances through its clock-5 side (or a cell / structure name)

        [siege]
        start = { 4 = "Gela" } # army 4 starts (or joins) the siege of Gela
        take_over = []         # structures whose siege this faction continues
        surrender = []         # structures their controller surrenders
    """
    import tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{source} is not valid TOML: {e}") from None
    unknown = sorted(set(doc) - set(_CHOICE_KEYS))
    if unknown:
        raise InputError(f"{source}: unknown section {unknown[0]!r}; sections are [advance] and [siege]")

    def army_key(key: str, where: str) -> int:
        if not str(key).isdigit():
            raise InputError(f"{source}: [{where}] key {key!r} must be an army number")
        return int(key)

    advances: dict[int, str | int] = {}
    for key, value in (doc.get("advance") or {}).items():
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise InputError(f"{source}: [advance] {key} = {value!r}: give a clock position, an H3 cell or a structure name")
        advances[army_key(key, "advance")] = value
    siege = doc.get("siege") or {}
    bad = sorted(set(siege) - {"start", "take_over", "surrender"})
    if bad:
        raise InputError(f"{source}: [siege] has unknown key {bad[0]!r}; keys are start, take_over, surrender")
    starts = {}
    for key, value in (siege.get("start") or {}).items():
        if not isinstance(value, str):
            raise InputError(f"{source}: [siege] start {key} = {value!r}: give the structure's name")
        starts[army_key(key, "siege.start")] = value
    lists = {}
    for name in ("take_over", "surrender"):
        value = siege.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{source}: [siege] {name} must be a list of structure names, got {value!r}")
        lists[name] = frozenset(value)
    return AdminChoices(advances, starts, lists["take_over"], lists["surrender"])


def load_choices(path) -> AdminChoices:
    """Read a TOML administration choices file (see :func:`parse_choices_text`)."""
    from pathlib import Path

    from tabula.geo.errors import MissingInputError

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise MissingInputError(f"cannot read choices file {p}: {e.strerror or e}") from None
    return parse_choices_text(text, str(p))


def _resolve_advance(board: Board, state: CampaignState, army: int, target: str | int) -> str:
    """A clock position, structure name or H3 cell -> the cell the winner advances into."""
    try:
        a = state.army(army)
    except KeyError:
        raise InputError(f"advance: there is no army {army}") from None
    if a.cell is None:
        raise InputError(f"advance: army {army} is not on the map")
    if isinstance(target, int) or (isinstance(target, str) and target.strip().isdigit()):
        clock = int(target)
        sides = board.sides.get(a.cell, {})
        if clock not in sides:
            raise InputError(
                f"advance: army {army} in hex {a.cell} has no side at clock {clock}; valid: {' '.join(map(str, sorted(sides)))}"
            )
        return sides[clock]
    if target in board.structures:
        return board.structures[target].cell
    if target in board.hexes:
        return target
    raise InputError(f"advance: {target!r} (army {army}) is neither a clock position, a structure nor a hex of the map")


def run_administration(con: duckdb.DuckDBPyConnection, choices: AdminChoices | None = None) -> list[Event]:
    """Phase 4: the nine administration steps (:func:`engine.administration.administer`).

    Refused until every engagement of the round has a result.  The choices are recorded
    (note ``administration_choices``) with the changes they led to.
    """
    from tabula.engine.vae_victis.administration import AdminInputs, administer

    choices = choices or AdminChoices()
    with st.transaction(con):
        r = _read(con)
        _refuse_unless_phase(r, Phase.BATTLES, "run administration")
        pending = [row[2] for row in _engagement_rows(r) if sorted(_results_for(r, row[2])) != sorted(a for a in (row[3], row[4]) if a is not None)]
        if pending:
            raise StepRefused(
                f"cannot run administration: engagement{'s' if len(pending) > 1 else ''} {', '.join(map(str, pending))} "
                f"ha{'ve' if len(pending) > 1 else 's'} no result; record {'them' if len(pending) > 1 else 'it'} with `tabula round result`"
            )
        board = _board(con)
        names = _names(board)
        engagements, results = _engagements_and_results(r)
        orders = {a: _row_to_orders(row) for a, row in r.orders_rows().items()}
        movement = r.note("movement") or {"paths": {}}
        retreats = r.note("retreats") or {"pairs": []}
        inputs = AdminInputs(
            start_state=_start_state(r),
            engagements=engagements,
            results=results,
            retreats=tuple(tuple(p) for p in retreats["pairs"]),
            paths={int(k): tuple(v) for k, v in movement["paths"].items()},
            advances={a: _resolve_advance(board, r.state, a, t) for a, t in sorted(choices.advances.items())},
            siege_starts=dict(choices.siege_starts),
            lifts=frozenset(a for a, o in orders.items() if o.lift_siege),
            take_overs=frozenset(choices.take_overs),
            surrenders=frozenset(choices.surrenders),
            transfers={a: tuple(o.transfers) for a, o in orders.items() if o.transfers},
        )
        result = administer(board, r.state, inputs)
        done = replace(result.state, phase=Phase.VICTORY)
        note = _event(r.round, "administration", "put_note", {"round": r.round, "key": "administration_choices", "value": choices.to_json()})
        st.append_events(con, [note])
        st.save_state(con, done, events=result.events, phase="administration", names=names)
    return [note] + list(result.events)



# --- re-adjudication ------------------------------------------------------------------------------


def _recorded_steps(events: Sequence[st.StoredEvent]) -> list[tuple[str, Any]]:
    """The umpire's steps and their inputs, read back from a log (in order)."""
    steps: list[tuple[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    i = 0
    def source(e) -> str | None:
        # Logs written before put_orders carried ``source`` say it in words.
        if "source" in e.data:
            return e.data["source"]
        if e.text.startswith("initiative received"):
            return "initiative"
        if e.text.startswith("orders received"):
            return "orders"
        return "default"

    while i < len(events):
        e, d = events[i], events[i].data
        if e.phase == "setup":
            pass
        elif e.kind == "put_orders" and source(e) == "initiative":
            steps.append(("initiative", {int(d["army"]): d["initiative"]}))
        elif e.kind == "put_orders" and source(e) == "orders":
            o = _orders(d["army"], d["moves"], d["initiative"], d["lift_siege"], d["assault"], d["transfers"])
            steps.append(("orders", {o.army: o}))
        elif e.kind == "set_campaign" and d["key"] == "stage" and d["value"] == STAGE_MOVES:
            steps.append(("publish", None))
        elif e.phase == "movement" and ("move", e.round) not in seen:
            seen.add(("move", e.round))
            steps.append(("move", None))
        elif e.kind == "put_result":
            outcomes = {}
            key = (d["round"], d["engagement"])
            # One recording holds each army of the engagement once; a repeated army starts a correction.
            while (i < len(events) and events[i].kind == "put_result"
                   and (events[i].data["round"], events[i].data["engagement"]) == key
                   and int(events[i].data["army"]) not in outcomes):
                outcomes[int(events[i].data["army"])] = (events[i].data["outcome"], int(events[i].data["casualties"]))
                i += 1
            steps.append(("result", (int(d["engagement"]), outcomes)))
            continue
        elif e.kind == "retreat":
            steps.append(("retreat", int(d["army"])))
        elif e.kind == "put_note" and d["key"] == "administration_choices":
            v = d["value"]
            steps.append(("administer", AdminChoices(
                advances={int(k): a for k, a in v["advances"].items()},
                siege_starts={int(k): x for k, x in v["siege_starts"].items()},
                take_overs=frozenset(v["take_overs"]),
                surrenders=frozenset(v["surrenders"]),
            )))
        elif e.phase == "victory" and ("victory", e.round) not in seen:
            seen.add(("victory", e.round))
            steps.append(("victory", None))
        i += 1
    return steps


def readjudicate(campaign_path) -> int:
    """Re-run every recorded step from the scenario with the inputs the log holds, on a copy of
    the campaign, and compare the new log with the recorded one event by event.

    Stronger than :func:`engine.state.verify_replay`: it shows the log holds every input and
    the rules reproduce every recorded change (determinism).  Returns the number of steps
    re-run; raises :class:`engine.state.ReplayMismatch` at the first differing event.
    """
    import shutil
    import tempfile
    from pathlib import Path

    from tabula.geo.spatialdb import connect

    src = Path(campaign_path)
    con = connect(src, read_only=True)
    try:
        st._require_state(con)
        original = st.load_events(con)
        seed = int(st.read_snapshot(con).campaign("seed"))
    finally:
        con.close()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / src.name
        shutil.copy(src, copy)
        wal = src.with_name(src.name + ".wal")
        if wal.exists():  # a WAL not yet checkpointed holds committed steps
            shutil.copy(wal, copy.with_name(copy.name + ".wal"))
        con = connect(copy)
        try:
            for table in list(st.STATE_TABLES) + ["events"]:
                con.execute(f"DROP TABLE IF EXISTS {table}")
            st.init_campaign(con, seed=seed)
            steps = _recorded_steps(original)
            run = {
                "initiative": lambda x: submit_initiative(con, x, source="the log"),
                "orders": lambda x: submit_orders(con, x, source="the log"),
                "publish": lambda x: publish_initiative(con),
                "move": lambda x: run_movement(con),
                "result": lambda x: record_result(con, *x),
                "retreat": lambda x: declare_retreat(con, x),
                "administer": lambda x: run_administration(con, x),
                "victory": lambda x: run_victory(con),
            }
            for n, (name, arg) in enumerate(steps, 1):
                try:
                    run[name](arg)
                except TabulaError as e:
                    raise st.ReplayMismatch(f"re-adjudication failed at recorded step {n} ({name}): {e}") from e
            again = st.load_events(con)
        finally:
            con.close()

    def key(e):
        # ``source`` is bookkeeping for this function, absent from older logs.
        data = {k: v for k, v in e.data.items() if k != "source"} if e.kind == "put_orders" else e.data
        return (e.round, e.phase, e.kind, data, e.text)

    for a, b in zip(original, again):
        if key(a) != key(b):
            raise st.ReplayMismatch(
                f"re-adjudication differs at event {a.seq}: recorded {a.kind} {a.text!r}, re-adjudicated {b.kind} {b.text!r}"
            )
    if len(original) != len(again):
        raise st.ReplayMismatch(f"re-adjudication gives {len(again)} events, the log holds {len(original)}")
    return len(steps)
