"""Labels of random draws: what a seeded stream, a log and an entered number are keyed by.

Every draw a ruleset asks :func:`bellica.engine.core.rng.stream` for is named by a label, a
tuple naming its use (``("siege", 3, "Apulia")``); :func:`label_key` writes it as one string
and :class:`Labelled` gives a drawn record (with a ``label`` field) that string as ``key``.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["Labelled", "label_key"]


def label_key(label: Sequence[object]) -> str:
    """A label as one string (``attack/3/Samnites``): what logs, scripts and entered numbers are keyed by."""
    return "/".join(str(x) for x in label)


class Labelled:
    """A mixin for a record with a ``label`` tuple: :attr:`key` is the label as one string."""

    label: tuple

    @property
    def key(self) -> str:
        return label_key(self.label)
