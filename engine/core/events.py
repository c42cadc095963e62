"""Events: the records every ruleset's steps return and the campaign's log stores.

An :class:`Event` is what a rules function returns to explain a change
(``kind`` names it, ``data`` holds it as JSON, ``text`` says it in words); a
:class:`StoredEvent` is the same record read back from the ``events`` table,
with its sequence number and time.  Both are ruleset-neutral: the kinds and
their data are the ruleset's business, except the few state kinds the core
reduces itself (:mod:`engine.core.state`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, Mapping

__all__ = ["Event", "StoredEvent", "to_json"]


@dataclass(frozen=True)
class Event:
    """One recorded, explainable change. ``data`` is JSON-serialisable."""

    round: int
    phase: str
    kind: str
    data: Mapping[str, Any]
    text: str = ""  # the change in words, for `bellica log`


@dataclass(frozen=True)
class StoredEvent:
    """An event as the log holds it: ``seq`` numbers the log 1..n without gaps."""

    seq: int
    round: int
    phase: str
    kind: str
    data: Mapping[str, Any]
    text: str
    at: datetime | None = None


def to_json(data: Mapping[str, Any]) -> str:
    """The canonical JSON of an event's data (sorted keys): what the log stores and replay reads."""
    return json.dumps(data, sort_keys=True, default=_json_default)


def _json_default(obj):
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if hasattr(obj, "__dataclass_fields__"):
        return asdict(obj)
    if hasattr(obj, "value"):  # enums
        return obj.value
    raise TypeError(f"{type(obj).__name__} is not JSON-serialisable")
