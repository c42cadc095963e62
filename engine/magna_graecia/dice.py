"""Dice: every roll of the campaign, from the one seeded source or as entered.

A :class:`Dice` rolls one die for a label naming its use (``("alliance", 3, "Gela",
"Syracuse")``), from :func:`bellica.engine.core.rng.stream` keyed by the campaign seed and the
label, so a roll never depends on how many came before it; a roll made at the table can be
entered under the label's key (``alliance/3/Gela/Syracuse``).  Every roll is kept in
:attr:`Dice.log`, and each event that uses one records it, so a replay feeds them back as
entered rolls.  The rolling is :class:`bellica.engine.core.dice.Dice`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

from bellica.engine.core import dice
from bellica.engine.core.labels import label_key

__all__ = ["Dice", "Roll", "label_key"]

#: Prefixed to every label, so the campaign's other users of the seed never share a stream.
NAMESPACE = "magna-graecia"


class Roll(dice.Drawn):
    """One die rolled for ``label``: its face, and whether it was entered."""

    def as_data(self) -> dict:
        return {"label": self.key, "value": self.value, "entered": self.entered}


@dataclass
class Dice(dice.Dice):
    """Dice of ``sides`` faces from the campaign ``seed``; ``entered``: label key -> roll."""

    NAMESPACE = NAMESPACE
    seed: int
    sides: int = 6

    def roll(self, *label: object) -> Roll:  # type: ignore[override]
        """One die of :attr:`sides` faces for ``label``, as its :class:`Roll`."""
        super().roll(self.sides, *label)
        return self.log[-1]

    def record(self, label: tuple, sides: int, value: int, entered: bool) -> Roll:
        return Roll(label, value, entered)
