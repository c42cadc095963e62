"""Every die of the Trossian rules, from the campaign's one seeded source.

A roll is asked for with its number of faces and a label naming its use
(``("courier", 1806, 2, 14, "Budjak")``).  It is taken from ``entered`` (the umpire's
real dice, keyed by :func:`~bellica.engine.core.labels.label_key`) or drawn from
:func:`bellica.engine.core.rng.stream` keyed by the seed and the label, so a roll never
depends on how many came before it.  Every roll is kept in :attr:`Dice.log`; an event that
used one records it, and a replay can feed the log back as ``entered``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bellica.engine.core import dice
from bellica.engine.core.labels import Labelled, label_key
from bellica.geo.errors import InputError

__all__ = ["NAMESPACE", "Dice", "Roll"]

#: Prefixed to every label, so other users of the campaign seed never share a stream.
NAMESPACE = "trossian"


@dataclass(frozen=True)
class Roll(Labelled):
    label: tuple
    sides: int
    value: int
    entered: bool = False


@dataclass
class Dice(dice.Dice):
    """Rolls from ``seed``, or as ``entered`` (label key -> face): :class:`bellica.engine.core.dice.Dice`."""

    NAMESPACE = NAMESPACE

    def record(self, label: tuple, sides: int, value: int, entered: bool) -> Roll:
        return Roll(label, sides, value, entered)

    def pick(self, options: tuple | list, *label: object):
        """One of ``options`` (in their given order) by a roll of a die with as many faces."""
        if not options:
            raise InputError(f"nothing to pick for {label_key(label)}")
        return options[self.roll(len(options), *label) - 1]

    def rolls(self) -> dict[str, int]:
        """The log as entered numbers (label key -> face), for a replay."""
        return {r.key: r.value for r in self.log}
