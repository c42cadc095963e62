"""One page of the log, newest first, with a link to older entries (``?before=SEQ``).

Every page of the app shows the log as the viewer may read it; it shows :data:`PAGE_SIZE` entries
at a time and says how many, with an "older entries" link carrying the sequence number of the
oldest one shown (``?before=SEQ``: the entries logged before it), and a "newest entries" link back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

__all__ = ["PAGE_SIZE", "LogPage", "page_of", "before_of"]

#: How many log entries a page shows.
PAGE_SIZE = 50


@dataclass(frozen=True)
class LogPage:
    """The entries shown (newest first, each already worded), and where the older ones start."""

    entries: tuple[str, ...]
    total: int
    size: int
    older: int | None  # the ``before`` of the next page, None when these are the oldest
    paged: bool  # an older page: offer the newest entries again


def before_of(value: str | None) -> int | None:
    """The ``before`` query parameter: a whole number, anything else ignored (the newest page)."""
    text = (value or "").strip()
    return int(text) if text.isdigit() and len(text) < 12 else None


def page_of(lines: Sequence[tuple[int, str]], before: int | None, size: int = PAGE_SIZE) -> LogPage:
    """The page of ``lines`` ((seq, text) in log order, oldest first) ending before ``before``."""
    kept = [ln for ln in lines if before is None or ln[0] < before]
    shown = kept[-size:]
    older = shown[0][0] if len(kept) > len(shown) else None
    return LogPage(tuple(text for _seq, text in reversed(shown)), len(lines), size, older, before is not None)
