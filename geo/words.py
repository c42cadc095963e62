"""Small words for messages: the one place that knows English articles."""

from __future__ import annotations

__all__ = ["with_article"]


def with_article(word: object) -> str:
    """``a lake``, ``an ocean hex`` (by the word's first letter: enough for the map's kinds and terrains)."""
    text = str(word)
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text
