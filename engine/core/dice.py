"""The dice of a ruleset: every roll from the campaign's one seeded source (:func:`rng.die_face`), or
as the umpire entered it, and kept in a log.

:class:`Dice` rolls one die of ``sides`` faces for a label naming its use, taken from ``entered``
(label key -> face) or drawn from :func:`bellica.engine.core.rng.stream` keyed by the seed, the
ruleset's :attr:`Dice.NAMESPACE` and the label, so a roll never depends on how many came before it.
A ruleset's dice subclass it with their namespace and their record of a roll (:meth:`Dice.record`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Mapping

from bellica.engine.core import rng
from bellica.engine.core.labels import Labelled

__all__ = ["Dice", "Drawn"]


@dataclass(frozen=True)
class Drawn(Labelled):
    """One number for ``label``; ``entered``: given by the umpire rather than drawn."""

    label: tuple
    value: int
    entered: bool = False


@dataclass
class Dice:
    """Rolls from ``seed``, or as ``entered`` (label key -> face); every roll kept in :attr:`log`."""

    #: Prefixed to every label, so the campaign's other users of the seed never share a stream.
    NAMESPACE: ClassVar[str] = ""

    seed: int = rng.DEFAULT_SEED
    entered: Mapping[str, int] = field(default_factory=dict)
    log: list = field(default_factory=list)

    def face(self, sides: int, label: tuple) -> tuple[int, bool]:
        """``(face, entered?)`` of one die of ``sides`` faces for ``label``."""
        return rng.die_face(self.seed, self.NAMESPACE, self.entered, sides, label)

    def roll(self, sides: int, *label: object) -> int:
        """One die of ``sides`` faces for ``label``, recorded in the log."""
        value, entered = self.face(sides, tuple(label))
        self.log.append(self.record(tuple(label), sides, value, entered))
        return value

    def record(self, label: tuple, sides: int, value: int, entered: bool) -> object:
        """What the log keeps of one roll."""
        return Drawn(label, value, entered)
