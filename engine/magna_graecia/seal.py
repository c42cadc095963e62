"""The Magna Graecia seal of the log (:data:`SEAL`): the second-day orders stay sealed until every
side of the battle has written one; a side never reads the rules' outcomes (they name the
sides' forces) nor the elements of another side's exchanges and embarkations, of a city's
reorganisation, or chosen to drown in a fleet fight."""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.sealed import OrderSeal
from bellica.engine.core.tables import Snapshot

__all__ = ["SEAL", "MagnaGraeciaSeal"]


def _is_order(kind: str, data: Mapping) -> bool:
    if kind == "step":
        return data.get("step") == "second_day"
    return kind == "put_row" and data.get("table") == "mg_orders"


def _order_fields(data: Mapping) -> Mapping:
    return data.get("input") or data.get("row") or {}


def _opened(rnd: int, snap: Snapshot):
    """An order is open once no order of its turn is still waiting (mg_orders holds only those)."""
    waiting = any(int(k[0]) == int(rnd) for k in snap.tables["mg_orders"])
    return frozenset({"step", "table"}) if waiting else None


#: A side's steps whose input names its elements (another side reads only that the step was taken).
_COMPOSITION_STEPS = ("exchange", "embark", "disembark")


class MagnaGraeciaSeal(OrderSeal):
    """The core's :class:`OrderSeal` with what a side may not read: besides the second-day orders
    still sealed, every outcome of the rules (rows, dice, battles, recoveries), whose words and
    data name the sides' elements and naval points, and the element lists of another side's
    exchanges and embarkations.  A side reads the steps taken (where counters went, in the open
    on the table's map); the umpire (``viewer`` None) reads everything but unopened orders.
    One rule for every reader: ``bellica log --faction``, the web app's log, an export."""

    def hides(self, viewer, kind, data, snap) -> bool:
        if super().hides(viewer, kind, data, snap):
            return True
        if viewer is None:
            return False
        if kind != "step":
            return True
        step, given = data.get("step"), data.get("input") or {}
        if step == "reorganise":   # a city's elements: the umpire may give it for a neutral city
            return given.get("side") != viewer
        if step == "fleet_battle" and given.get("element_losses"):   # names the elements a fleet carries
            return True
        return step in _COMPOSITION_STEPS and given.get("side") not in (None, viewer)


def _public(data: Mapping) -> dict:
    """What a hidden event still shows: the step, whose, when and where (never a choice or elements)."""
    fields = _order_fields(data)
    return {**({"step": data["step"]} if "step" in data else {}),
            **{k: fields[k] for k in ("side", "turn", "node") if k in fields}}


def _sealed_text(data: Mapping) -> str:
    fields = _order_fields(data)
    if _is_order("step" if "step" in data else "put_row", data):
        return f"{fields.get('side')} writes its sealed second-day order for {fields.get('node')}"
    if data.get("step") in _COMPOSITION_STEPS + ("reorganise",):
        return f"{fields.get('side') or 'the umpire'} {data['step']}s (its elements are its own)"
    if data.get("step") == "fleet_battle":
        return f"the fleets at {fields.get('node')} fight (the elements chosen to drown are the loser's own)"
    return "an outcome of the rules (hidden: it names the sides' forces)"


SEAL = MagnaGraeciaSeal(
    is_order=_is_order,
    round=lambda d: int(_order_fields(d).get("turn", 0)),
    owner=lambda d, snap: _order_fields(d).get("side"),
    carried=lambda d: frozenset(d),
    opened=_opened,
    public=_public,
    text=_sealed_text,
)
