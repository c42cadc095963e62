"""The Trossian seal of the log (:data:`TROSSIAN_SEAL`): who may read a secret event (a nation's
orders, treasury, couriers and armies' units; a captor the courier it caught), and when an order
opens to all (once every nation's orders of its round are in; a courier's message never)."""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.machine import position_of
from bellica.engine.core.sealed import OrderSeal
from bellica.engine.core.tables import Snapshot

__all__ = ["TROSSIAN_SEAL", "TrossianSeal"]

#: Tables whose rows are a nation's own in the log (others see only that a row changed).
_SECRET_TABLES = {"tr_treasury": "nation", "tr_couriers": "nation", "tr_orders": "nation", "tr_armies": "nation"}
#: Rule events a nation keeps to itself (and, for a courier's interception, the captor).
_SECRET_KINDS = {"courier_sent", "courier_check", "courier_moved", "courier_delivered", "income", "ap_moved",
                 "recruited", "bank_captured", "card_schedule", "order_failed", "army_order_void"}


#: ``tr_game``'s rows of a nation's armies' orders in force (storage.ORDERS_KEY + nation): its own, for ever.
_ORDERS_KEY = "orders/"


def _orders_row_nation(data: Mapping) -> str | None:
    """The nation whose orders in force a ``tr_game`` row holds (None: another row of the table)."""
    if data.get("table") != "tr_game":
        return None
    key = str((data.get("row") or data.get("key") or {}).get("key", ""))
    return key[len(_ORDERS_KEY):] if key.startswith(_ORDERS_KEY) else None


def _order_round(data: Mapping) -> int:
    if "table" in data:
        return int((data.get("row") or data.get("key") or {}).get("round", 0) or 0)
    return int(data.get("round", 0) or 0)


def _readers(kind: str, data: Mapping) -> tuple[frozenset[str], bool]:
    """(the nations that may read a secret event, whether it opens to all once its round's
    orders are all in)."""
    if kind == "step":
        arg = data.get("input") or {}
        nation = arg.get("nation")
        # A courier's orders (its message, its road) and a winter's banking and recruiting stay its nation's.
        forever = data.get("step") in ("courier", "bank", "recruit", "roll")  # a secret die entered at the table too
        return frozenset({nation} if nation else ()), not forever
    if kind in ("put_row", "drop_row") and _orders_row_nation(data) is not None:
        return frozenset({_orders_row_nation(data)}), False
    if kind in ("put_row", "drop_row"):
        row = data.get("row") or data.get("key") or {}
        nation = row.get(_SECRET_TABLES[data["table"]])
        opens = data["table"] == "tr_orders" and row.get("kind") != "courier"
        return frozenset({nation} if nation else ()), opens
    who = {data.get("nation")}
    if kind == "courier_check" and data.get("fate") in ("captured", "false_message", "killed"):
        who.add(data.get("enemy"))
    if kind == "bank_captured":
        who.add(data.get("from"))
    return frozenset(w for w in who if w), False


def _is_secret(kind: str, data: Mapping) -> bool:
    if kind == "step":
        return bool((data.get("input") or {}).get("nation")) and data.get("step") not in ("done", "ally")
    if kind in ("put_row", "drop_row"):
        if kind == "drop_row" and data.get("table") == "tr_armies":
            return False  # an army gone is seen by all
        return data.get("table") in _SECRET_TABLES or _orders_row_nation(data) is not None
    if kind in ("dice", "put_note"):  # a note: a nation's secret die entered at the table (table_dice)
        return bool(data.get("nation"))
    return kind in _SECRET_KINDS


def _orders_open(rnd: int, snap: Snapshot) -> bool:
    """Are round ``rnd``'s orders all in (every nation done, or the round past its orders)?"""
    pos = position_of(snap)
    if rnd < pos.round or (rnd == pos.round and pos.phase not in ("orders", "winter")):
        return True
    ready = {k[1] for k in snap.tables["tr_ready"] if k[0] == rnd}
    nations = {k[0] for k in snap.tables["tr_treasury"]}
    return bool(nations) and nations <= ready and pos.phase == "orders"


class TrossianSeal(OrderSeal):
    """The core's :class:`OrderSeal` with Trossian readers: a secret is its nation's (and a
    captor's); an order opens to all once its round's orders are all in, a message never."""

    def hides(self, viewer, kind, data, snap) -> bool:
        if not _is_secret(kind, data):
            return False
        readers, opens = _readers(kind, data)
        if viewer is not None and viewer in readers:
            return False
        if kind == "step" or (kind == "put_row" and data.get("table") == "tr_orders"):
            return not (opens and _orders_open(_order_round(data), snap))
        if kind == "put_row" and data.get("table") == "tr_armies":
            return True  # other nations see where an army is (public stand-in), not its units
        return True


def _public(data: Mapping) -> dict:
    if _orders_row_nation(data) is not None:
        return {"table": data["table"], "row": {"nation": _orders_row_nation(data)}}
    if "table" in data:
        row = data.get("row") or data.get("key") or {}
        keep = {"tr_armies": ("army", "nation", "province", "aboard"), "tr_orders": ("round", "nation", "seq"),
                "tr_treasury": ("nation",), "tr_couriers": ("nation",)}.get(data["table"], ())
        return {"table": data["table"], "row": {k: row[k] for k in keep if k in row}}
    arg = data.get("input") or {}
    return {k: v for k, v in (("step", data.get("step")), ("nation", arg.get("nation") or data.get("nation")),
                              ("round", data.get("round"))) if v is not None}


def _sealed_text(data: Mapping) -> str:
    pub = _public(data)
    row = pub.get("row", {})
    if pub.get("table") == "tr_armies" and "army" in row:
        return f"army {row['army']} ({row.get('nation')}) in {row.get('province')}"
    nation = row.get("nation") or pub.get("nation")
    if pub.get("step"):
        return f"{nation}: a {pub['step']} order (sealed)"
    what = {"tr_couriers": "a courier", "tr_treasury": "its treasury", "tr_orders": "an order",
            "tr_armies": "an army", "tr_game": "its armies' orders"}.get(pub.get("table"), "a secret")
    return f"{nation}: {what} (sealed)" if nation else f"{what} (sealed)"


TROSSIAN_SEAL = TrossianSeal(
    is_order=_is_secret,
    round=_order_round,
    owner=lambda data, snap: _public(data).get("nation") or (_public(data).get("row") or {}).get("nation"),
    carried=lambda data: frozenset(data),
    opened=lambda rnd, snap: frozenset(),
    public=_public,
    text=_sealed_text,
)
