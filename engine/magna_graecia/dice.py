"""Dice: every roll of the campaign, from the one seeded source or as entered.

A :class:`Dice` rolls one die for a label naming its use (``("alliance", 3, "Gela",
"Syracuse")``), from :func:`bellica.engine.core.rng.stream` keyed by the campaign seed and the
label, so a roll never depends on how many came before it; a roll made at the table can be
entered under the label's key (``alliance/3/Gela/Syracuse``).  Every roll is kept in
:attr:`Dice.log`, and each event that uses one records it, so a replay feeds them back as
entered rolls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from bellica.engine.core import rng
from bellica.engine.core.labels import Labelled, label_key

__all__ = ["Dice", "Roll", "label_key"]

#: Prefixed to every label, so the campaign's other users of the seed never share a stream.
NAMESPACE = "magna-graecia"


@dataclass(frozen=True)
class Roll(Labelled):
    label: tuple
    value: int
    entered: bool = False

    def as_data(self) -> dict:
        return {"label": self.key, "value": self.value, "entered": self.entered}


@dataclass
class Dice:
    """Dice of ``sides`` faces from the campaign ``seed``; ``entered``: label key -> roll."""

    seed: int
    entered: Mapping[str, int] = field(default_factory=dict)
    sides: int = 6
    log: list = field(default_factory=list)

    def roll(self, *label: object) -> Roll:
        value, entered = rng.die_face(self.seed, NAMESPACE, self.entered, self.sides, tuple(label))
        r = Roll(tuple(label), value, entered=entered)
        self.log.append(r)
        return r
