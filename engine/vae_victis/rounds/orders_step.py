"""Step 1.3, orders: storing movement/siege/assault/transfer orders, sealed, and reading them back.

Orders are stored when submitted, but nobody -- another faction, nor the umpire -- reads a
faction's orders before :data:`ORDER_SEAL` opens them (the core applies it to ``bellica log``,
:func:`orders_view` to ``bellica round show``): initiative uses once published, everything at
the round's reveal (:mod:`.reveal`: the last live army's orders, or the umpire after the
deadline) or once the orders phase is over.  A faction reads its own orders always.  Every
submission records who made it (``submitted_by``); docs/sealed-orders.md says the rest.
"""

from __future__ import annotations

import json
from datetime import datetime
from dataclasses import replace
from typing import Any, Mapping

from bellica.engine.core.sealed import ALL, OrderSeal
from bellica.engine.core.tables import Snapshot
from bellica.engine.vae_victis.model import ArmyOrders, Board, Event, Phase, Transfer
from bellica.engine.vae_victis.rounds.machine import STAGE_MOVES, Round, event, read_round, require, round_of, stored_logistics
from bellica.geo.errors import InputError

__all__ = ["ORDER_SEAL", "orders_from_data", "row_to_orders", "orders_data", "validate", "who", "order_events",
           "refuse_orders_now", "submit_orders", "orders_view", "order_submitters"]


# --- stored rows <-> ArmyOrders ---------------------------------------------------------------


def orders_from_data(army, moves, initiative, lift_siege, assault, transfers, sea_links=()) -> ArmyOrders:
    """ArmyOrders from stored fields: moves as text, transfers as [{to_army, fp}], sea_links as
    [[zone, structure], ...] (an orders row or a ``put_orders`` event's data)."""
    return ArmyOrders(
        army=int(army),
        moves=tuple(int(t) for t in (moves or "").split()),
        initiative=initiative or "strength",
        lift_siege=bool(lift_siege),
        assault=assault,
        transfers=tuple(Transfer(int(t["to_army"]), int(t["fp"])) for t in transfers or []),
        sea_links=tuple((str(z), str(s)) for z, s in sea_links or []),
    )


def row_to_orders(row: tuple) -> ArmyOrders:
    _rnd, army, moves, initiative, lift_siege, assault, transfers, sea_links = row
    return orders_from_data(army, moves, initiative, lift_siege, assault, json.loads(transfers or "[]"),
                            json.loads(sea_links or "[]"))


def orders_data(rnd: int, o: ArmyOrders, *, moves_given: bool, source: str) -> dict:
    # ``source`` (initiative / orders / default) tells a submission from publication's default;
    # the reducer ignores it, re-adjudication reads it.
    return {
        "source": source,
        "round": rnd,
        "army": o.army,
        "moves": " ".join(str(m) for m in o.moves) if moves_given else None,
        "initiative": o.initiative,
        "lift_siege": bool(o.lift_siege),
        "assault": o.assault,
        "transfers": [{"to_army": t.to_army, "fp": t.fp} for t in o.transfers],
        "sea_links": [[z, s] for z, s in o.sea_links],
    }


def _transferred_before(r: Round) -> dict[frozenset[int], int]:
    """FP ordered between each pair in earlier rounds (the transfer cap is for the whole campaign)."""
    totals: dict[frozenset[int], int] = {}
    for (rnd, army), row in r.snap.tables["orders"].items():
        if rnd >= r.round:
            continue
        for t in json.loads(row[6] or "[]"):
            key = frozenset((army, int(t["to_army"])))
            totals[key] = totals.get(key, 0) + int(t["fp"])
    return totals


def validate(campaign, r: Round, faction: str | None, orders: Mapping[int, ArmyOrders], source: str) -> None:
    """Layer 2 of :mod:`engine.vae_victis.orders` on the submitted orders *together with* the
    faction's stored ones, so the influence cap and the transfer cap count the whole round."""
    from bellica.engine.vae_victis.orders import IllegalOrderError, check_orders

    board: Board = campaign.board
    if faction is not None and faction not in board.factions:
        raise InputError(f"unknown faction {faction!r}: use one of {', '.join(sorted(board.factions))}")
    stored = {army: row_to_orders(row) for army, row in r.orders_rows().items()}
    factions = {a.id: a.faction for a in r.state.armies}
    touched = {factions.get(a) for a in orders}
    merged = {a: o for a, o in stored.items() if factions.get(a) in touched and a not in orders}
    merged.update(orders)
    needs_links = any(o.transfers for o in merged.values())
    linked = stored_logistics(campaign, r.state).linked_armies if needs_links else ()
    problems = check_orders(board, r.state, faction, merged, linked_pairs=linked, transferred_before=_transferred_before(r))
    # Problems of stored orders the submission did not touch are not this submission's fault,
    # except the caps, which the new orders may be what breaks.
    problems = [p for p in problems if p.army is None or p.army in orders or p.field in ("initiative", "transfers")]
    if problems:
        raise IllegalOrderError(problems, source)


# --- submitting -----------------------------------------------------------------------------------


def who(faction: str | None, submitted_by: str | None) -> str:
    """Who a submission is recorded as made by: ``submitted_by`` when given, else the faction it
    was made for, else "umpire" (an engine caller that names neither acts as the umpire)."""
    if submitted_by is not None:
        return submitted_by
    return faction if faction is not None else "umpire"


def order_events(campaign, r: Round, orders: Mapping[int, ArmyOrders], *, faction: str | None, submitted_by: str,
                 source: str, kind_source: str = "orders") -> list[Event]:
    """Validate step 1.3 orders against the stored round and return their ``put_orders`` events
    (shared by a sealed submission and a commit-reveal reveal).  ``submitted_by`` "" is a log
    written before submitters were recorded (re-adjudication only): nothing is recorded then."""
    from bellica.engine.vae_victis.orders import IllegalOrderError, OrderProblem
    from bellica.engine.vae_victis.rounds.reveal import refuse_if_revealed

    from bellica.engine.vae_victis.order_names import spelled_orders

    refuse_if_revealed(r, source)
    stored = r.orders_rows()
    final: dict[int, ArmyOrders] = {}
    orders, problems = spelled_orders(campaign.board, orders)  # every typed name by the one matcher
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
    validate(campaign, r, faction, final, source)
    events = []
    for army, o in final.items():
        data = orders_data(r.round, o, moves_given=True, source=kind_source)
        if submitted_by:
            data["submitted_by"] = submitted_by
        text = f"orders received for army {army}" + (f" from {submitted_by}" if submitted_by else "")
        events.append(event(r.round, "orders", "put_orders", data, text))
    return events


def refuse_orders_now(campaign, r: Round, round_: int | None, source: str, now: datetime | None, *,
                      commit_fix: str) -> None:
    """Refuse, in one line, plain orders the campaign does not take now: not its orders step, for
    another round than ``round_`` names, in commit-reveal mode (``commit_fix``: how the caller's
    front end commits and reveals), or past the round's deadline (``now``: the clock, None: the
    real one).  A submission (:func:`submit_orders`) and the web page's check (order_form.py) both."""
    from bellica.engine.vae_victis.rounds.reveal import COMMIT_REVEAL, orders_mode, refuse_after_deadline

    require(campaign, r, "orders")
    if round_ is not None and round_ != r.round:
        raise InputError(f"{source} is for round {round_} but the campaign is in round {r.round}: fix its `round`")
    if orders_mode(r.snap) == COMMIT_REVEAL:
        raise InputError(f"this campaign takes orders in commit-reveal mode: {commit_fix}")
    refuse_after_deadline(r, now, source)


def submit_orders(
    campaign,
    orders: Mapping[int, ArmyOrders],
    *,
    faction: str | None = None,
    submitted_by: str | None = None,
    round: int | None = None,
    source: str = "the command line",
    now: datetime | None = None,
) -> list[Event]:
    """Step 1.3: store movement/siege/assault/transfer orders, sealed, after validating all of them.

    ``faction`` (None: the umpire) limits the orders to its armies; ``submitted_by`` is who made the
    submission, recorded in each ``put_orders`` event (the CLI passes the faction or "umpire", the
    web app "token:<name>"; left out: the faction, else "umpire").

    Nothing is stored unless every order is legal (:class:`engine.vae_victis.orders.OrderError`
    lists every problem).  Before publication the orders may carry initiative uses; after it the
    published use stands, and an order naming another use (other than the default "strength")
    is refused.  A second submission for an army replaces the first until the reveal; the
    submission that brings in the last live army's orders (after publication) reveals the
    round's orders to everyone in its own transaction (:mod:`.reveal`), and after the reveal
    no order of the round changes.  In commit-reveal mode orders come only through
    :func:`engine.vae_victis.rounds.reveal.reveal_orders`.  Orders close at the round's deadline
    (``now``: the clock, for tests and replay).
    """
    from bellica.engine.vae_victis.rounds.reveal import reveal_if_complete

    if not orders:
        raise InputError(f"{source} holds no orders: give at least one army's moves")
    with campaign.transaction():
        r = read_round(campaign)
        refuse_orders_now(campaign, r, round, source, now, commit_fix=(
            "commit their digest with `bellica round commit`, then reveal them with `bellica round reveal-orders`"))
        events = order_events(campaign, r, orders, faction=faction, submitted_by=who(faction, submitted_by), source=source)
        after = campaign.append(events, before=r.snap)
        revealed = reveal_if_complete(campaign, after)
    return events + revealed


# --- sealing --------------------------------------------------------------------------------------


#: The fields of a round's orders once revealed; a faction's administration choices (field
#: ``choices``, :mod:`.player_choices`) stay sealed through the battles phase, until administration.
ORDER_FIELDS = frozenset({"initiative", "moves"})


def _is_choices(data: Mapping[str, Any]) -> bool:
    return "choices" in data and "army" not in data


def _owner(data: Mapping[str, Any], snap: Snapshot) -> str | None:
    if _is_choices(data):
        return data["faction"]
    row = snap.tables["armies"].get((int(data["army"]),))
    return row[1] if row else None


def _carried(data: Mapping[str, Any]) -> frozenset[str]:
    if _is_choices(data):
        return frozenset({"choices"})
    # An initiative submission (or publication's default) stores no moves yet.
    return frozenset({"initiative"} if data.get("moves") is None else {"initiative", "moves"})


def _opened(rnd: int, snap: Snapshot) -> frozenset[str] | None:
    from bellica.engine.vae_victis.rounds.reveal import is_revealed

    r = round_of(snap)
    if rnd == r.round and r.state.phase is Phase.BATTLES:
        return ORDER_FIELDS  # the orders are public, the factions' administration choices not yet
    if rnd != r.round or r.state.phase is not Phase.ORDERS or is_revealed(r):
        return ALL  # that round's orders phase is over, or its orders were revealed: everything is public
    return frozenset({"initiative"}) if r.stage == STAGE_MOVES else frozenset()


def _public(data: Mapping[str, Any]) -> dict:
    if _is_choices(data):
        return {"faction": data["faction"], "round": data["round"], "submitted_by": data.get("submitted_by")}
    out = {"army": data["army"], "round": data["round"]}
    if data.get("submitted_by"):
        out["submitted_by"] = data["submitted_by"]
    return out


def _sealed_text(data: Mapping[str, Any]) -> str:
    if _is_choices(data):
        return f"administration choices given by {data['faction']}, sealed until administration"
    by = f" from {data['submitted_by']}" if data.get("submitted_by") else ""
    if data.get("moves") is None:
        return f"initiative received for army {data['army']}{by}, sealed until publication"
    return f"orders received for army {data['army']}{by}, sealed until the reveal"


ORDER_SEAL = OrderSeal(
    is_order=lambda kind, _data: kind in ("put_orders", "choices_given"),
    round=lambda data: int(data["round"]),
    owner=_owner,
    carried=_carried,
    opened=_opened,
    public=_public,
    text=_sealed_text,
)


def orders_view(campaign, *, faction: str | None = None) -> list[tuple[int, str, ArmyOrders | None]]:
    """This round's orders as ``faction`` may see them: (army, army's faction, orders or None if sealed/missing).

    ``faction=None`` is the umpire's view, sealed like any other faction's until the reveal (see
    :data:`ORDER_SEAL`); :func:`order_submitters` says who has submitted.
    """
    campaign.require_state()
    r = read_round(campaign)
    rows = r.orders_rows()
    opened = ORDER_SEAL.opened(r.round, r.snap)
    out = []
    for a in r.state.armies:
        row = rows.get(a.id)
        if row is None:
            out.append((a.id, a.faction, None))
            continue
        o = row_to_orders(row)
        fields = ALL if faction is not None and a.faction == faction else opened
        if fields is ALL or "moves" in fields:
            out.append((a.id, a.faction, o))
        elif "initiative" in fields:
            out.append((a.id, a.faction, ArmyOrders(army=a.id, initiative=o.initiative)))  # only the published use
        else:
            out.append((a.id, a.faction, None))
    return out


def order_submitters(campaign, *, round: int | None = None) -> dict[int, str | None]:
    """{army: who submitted its step 1.3 orders} for a round (default: the current one), from the
    log; None for a log written before submitters were recorded.  Public: who, never what."""
    campaign.require_state()
    rnd = read_round(campaign).round if round is None else round
    out: dict[int, str | None] = {}
    for ev in campaign.events(round=rnd):
        if ev.kind == "put_orders" and ev.data.get("moves") is not None:
            out[int(ev.data["army"])] = ev.data.get("submitted_by")
    return out
