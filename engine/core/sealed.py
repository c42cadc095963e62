"""Sealed orders: nobody reads a faction's orders before the ruleset has opened them.

Orders are stored when submitted (so a crash loses nothing and the log holds every
input), but the log and the orders views must not leak them: boardgame.io's lesson
about secrets leaking through the move log.  The rule is the same for every ruleset:

* a faction reads its own orders;
* anyone else -- another faction, and the umpire too (viewer ``None``) -- reads only the
  fields of an order the ruleset has *opened* at the campaign's current position (for
  Vae Victis II: initiative uses once published, everything at the round's reveal or
  once the orders phase is over; docs/sealed-orders.md).  The umpire sees that an order
  came in and who sent it, never what it says, so no one can leak it early.  Verification
  and re-adjudication read the raw log, not this view.

A ruleset describes its orders with an :class:`OrderSeal`; the core applies it to
the log (:func:`log_view`) and the ruleset to its own views (:meth:`OrderSeal.visible`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from bellica.engine.core.events import StoredEvent
from bellica.engine.core.tables import Snapshot

__all__ = ["OrderSeal", "LogLine", "log_view"]

#: ``opened`` returns this when every field of the order is public.
ALL = None


@dataclass(frozen=True)
class OrderSeal:
    """How a ruleset's orders are sealed.

    ``is_order(kind, data)``: whether an event stores an order; ``round(data)``: the
    round the order is for; ``owner(data, snap)``: the faction the order belongs to;
    ``carried(data)``: the order fields the event carries; ``opened(round, snap)``: the
    fields every faction may read of an order of that round now (``None``: all);
    ``public(data)``: what a sealed event still shows (its ids); ``text(data)``: the
    words shown in its place.
    """

    is_order: Callable[[str, Mapping[str, Any]], bool]
    round: Callable[[Mapping[str, Any]], int]
    owner: Callable[[Mapping[str, Any], Snapshot], str | None]
    carried: Callable[[Mapping[str, Any]], frozenset[str]]
    opened: Callable[[int, Snapshot], frozenset[str] | None]
    public: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    text: Callable[[Mapping[str, Any]], str]

    def visible(self, viewer: str | None, owner: str | None, round: int, snap: Snapshot) -> frozenset[str] | None:
        """The fields of an order (of ``owner``, for ``round``) that ``viewer`` may read; ``None``: all."""
        if viewer is not None and owner == viewer:
            return ALL
        return self.opened(round, snap)

    def hides(self, viewer: str | None, kind: str, data: Mapping[str, Any], snap: Snapshot) -> bool:
        """Whether an event must be hidden from ``viewer``: it carries a field not yet open to it."""
        if not self.is_order(kind, data):
            return False
        fields = self.visible(viewer, self.owner(data, snap), self.round(data), snap)
        return fields is not ALL and not self.carried(data) <= fields


@dataclass(frozen=True)
class LogLine:
    """One event as a viewer may read it: ``data`` and ``text`` are the sealed stand-ins when ``sealed``."""

    event: StoredEvent
    sealed: bool
    data: Mapping[str, Any]
    text: str


def log_view(campaign, *, viewer: str | None = None, round: int | None = None) -> list[LogLine]:
    """The event log (one round's, or all) as ``viewer`` may read it (``None``: the umpire, who
    is sealed out of unrevealed orders like any faction)."""
    seal: OrderSeal | None = campaign.ruleset.order_seal
    snap = campaign.snapshot() if seal is not None else None
    out = []
    for ev in campaign.events(round=round):
        if snap is not None and seal.hides(viewer, ev.kind, ev.data, snap):
            out.append(LogLine(ev, True, dict(seal.public(ev.data), sealed=True), seal.text(ev.data)))
        elif viewer is not None and _holds_seed(ev):
            out.append(LogLine(ev, False, _unseeded(ev.data), _SEED_TEXT.sub(r"\1(the umpire's)", ev.text or ev.kind)))
        else:
            out.append(LogLine(ev, False, ev.data, ev.text or ev.kind))
    return out


#: The seed in an event's words ("campaign seed = 7", "seed 7"): a faction reads it sealed, since
#: every die and lottery number not yet drawn follows from it (the SQL console's SEED, the same).
_SEED_TEXT = re.compile(r"(\bseed\W{0,3})\d+")


def _holds_seed(ev: StoredEvent) -> bool:
    return (ev.kind == "set_campaign" and ev.data.get("key") == "seed") or "seed" in ev.data


def _unseeded(data: Mapping) -> dict:
    """The event's data without the seed (no order is sealed: the line is not a sealed one)."""
    if data.get("key") == "seed":
        return {**data, "value": None}
    return {k: v for k, v in data.items() if k != "seed"}
