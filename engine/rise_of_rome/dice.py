"""Every die of the campaign, labelled, drawn from the campaign's one seeded source.

A rules function never calls :mod:`random`; it asks a *roller* for dice with a label
naming the use (``("attack", turn, power)``).  :class:`Roller` draws each labelled
roll from :func:`bellica.engine.core.rng.stream` keyed by the campaign seed and the
label, so a roll never depends on how many rolls came before it, and records it in
:attr:`Roller.log` (a log or an event can store the numbers, and a replay can feed
them back through :class:`ScriptedRoller`).  Labels must be unique within a campaign:
each carries the turn, the power and, where a roll may be repeated, an attempt number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Protocol, Sequence

from bellica.engine.core import rng
from bellica.engine.core.labels import Labelled, label_key

__all__ = ["DiceRoller", "Roll", "Roller", "ScriptedRoller", "TableRoller", "label_key", "pick", "roll_off"]

#: Prefixed to every label, so the campaign's other users of the seed never share a stream.
NAMESPACE = "rise-of-rome"


@dataclass(frozen=True)
class Roll(Labelled):
    """``count`` dice of ``sides`` sides rolled for ``label``: the numbers, as rolled."""

    label: tuple
    sides: int
    dice: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.dice)


class DiceRoller(Protocol):
    def roll(self, count: int, sides: int, *label: object) -> Roll: ...


@dataclass
class Roller:
    """Dice from the campaign seed; every roll kept in :attr:`log`, in order."""

    seed: int
    log: list[Roll] = field(default_factory=list)

    def roll(self, count: int, sides: int, *label: object) -> Roll:
        gen = rng.stream(self.seed, NAMESPACE, *label)
        r = Roll(tuple(label), sides, tuple(gen.randint(1, sides) for _ in range(count)))
        self.log.append(r)
        return r


@dataclass
class TableRoller(Roller):
    """Dice from the campaign seed, except those the umpire rolled at the table and entered under
    their label (``entered``: label key -> the faces, the ``roll`` step): used as entered, and
    kept in :attr:`used` (what the step logs as entered)."""

    entered: Mapping[str, Sequence[int]] = field(default_factory=dict)
    used: list[Roll] = field(default_factory=list)

    def roll(self, count: int, sides: int, *label: object) -> Roll:
        key = label_key(label)
        if key not in self.entered:
            return super().roll(count, sides, *label)
        dice = tuple(int(d) for d in self.entered[key])
        if len(dice) != count or not all(1 <= d <= sides for d in dice):
            from bellica.geo.errors import InputError

            raise InputError(f"the die entered for {key} ({', '.join(map(str, dice))}) is not {count}D{sides}: "
                             f"enter {count} face{'s' if count != 1 else ''} from 1 to {sides} again with "
                             f"`bellica rise-of-rome roll CAMPAIGN {key} ...`")
        r = Roll(tuple(label), sides, dice)
        self.log.append(r)
        self.used.append(r)
        return r


@dataclass
class ScriptedRoller:
    """Dice given in advance by label key (``"attack/3/Samnites": [5, 6]``), for tests and
    replays; a label not scripted comes from ``fallback`` (a :class:`Roller`), or is an error
    naming it."""

    script: Mapping[str, Sequence[int]]
    fallback: DiceRoller | None = None
    log: list[Roll] = field(default_factory=list)

    def roll(self, count: int, sides: int, *label: object) -> Roll:
        key = label_key(label)
        if key in self.script:
            dice = tuple(int(d) for d in self.script[key])
            if len(dice) != count or not all(1 <= d <= sides for d in dice):
                raise ValueError(f"scripted roll {key}: {list(dice)} is not {count}D{sides}")
            r = Roll(tuple(label), sides, dice)
        elif self.fallback is not None:
            r = self.fallback.roll(count, sides, *label)
        else:
            raise KeyError(f"no scripted roll for {key} ({count}D{sides})")
        self.log.append(r)
        return r


def pick(roller: DiceRoller, options: Sequence[str], *label: object) -> tuple[str, Roll]:
    """One of ``options`` (sorted first, so the pick never depends on set order) by one die of
    as many sides as there are options."""
    ordered = sorted(options)
    if len(ordered) == 1:
        return ordered[0], Roll(tuple(label), 1, (1,))
    r = roller.roll(1, len(ordered), *label)
    return ordered[r.dice[0] - 1], r


def roll_off(roller: DiceRoller, tied: Sequence[str], *label: object, die: int = 6) -> tuple[str, list[Roll]]:
    """The winner of a roll-off among ``tied`` (1D``die`` each, highest wins, the tied roll again)."""
    contenders = sorted(tied)
    rolls: list[Roll] = []
    attempt = 0
    while len(contenders) > 1:
        attempt += 1
        results = {}
        for c in contenders:
            r = roller.roll(1, die, *label, "roll-off", attempt, c)
            rolls.append(r)
            results[c] = r.total
        best = max(results.values())
        contenders = [c for c in contenders if results[c] == best]
        if attempt >= 100:  # never in practice: settle on the name order rather than loop
            contenders = contenders[:1]
    return contenders[0], rolls
