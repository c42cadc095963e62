"""Lottery numbers: the order of play, the random events and every test of the campaign.

The seed ties each nation to a wheel of the Italian Lotto (Bari, Cagliari, Firenze, Genova,
Milano, Napoli) and reads the numbers each wheel draws: five different numbers from 1 to 90.
A :class:`Lottery` gives the numbers of a wheel for a turn either as *entered* (the real
draw, copied from the published results) or, where none was entered, drawn from the
campaign's one seeded source (:func:`bellica.engine.core.rng.stream`), keyed by the seed and
a label naming the use (``("wheel", 3, "BA")``), so a draw never depends on how many came
before it.  Single numbers for the other tests (a siege, a peace treaty, an alliance, a
naval battle, a pick among equals) are asked for with a label too (``("siege", 3,
"Apulia")``) and can be entered the same way.  Every number is kept in :attr:`Lottery.log`,
so an event can record it and a replay can feed it back as entered numbers.

:func:`order_of_play` is the first step of a turn: the nations in order of their wheel's
first number, highest first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from bellica.engine.core import rng
from bellica.engine.core.dice import Drawn
from bellica.engine.core.labels import label_key
from bellica.geo.errors import InputError

from .model import Event, Scenario, TurnState
from .rules import Rules

__all__ = ["Draw", "Lottery", "WheelDraw", "label_key", "lottery_for", "order_of_play", "pick"]

#: Prefixed to every label, so the campaign's other users of the seed never share a stream.
NAMESPACE = "mare-nostrum"


class Draw(Drawn):
    """One number for ``label``; ``entered``: given by the umpire rather than drawn."""


@dataclass(frozen=True)
class WheelDraw:
    """The numbers of one wheel for one turn, in the order drawn (the first is "on the left")."""

    turn: int
    wheel: str
    numbers: tuple[int, ...]
    entered: bool = False

    def at(self, position: int) -> int:
        """The ``position``-th number (1 = the first on the left)."""
        if not 1 <= position <= len(self.numbers):
            raise InputError(f"turn {self.turn} wheel {self.wheel}: number {position} is needed but only "
                             f"{len(self.numbers)} were entered: enter the wheel's five numbers")
        return self.numbers[position - 1]


@dataclass
class Lottery:
    """Lottery numbers from the campaign seed, or as entered.

    ``wheels``: turn -> wheel code -> the real draw's numbers (e.g. ``{1: {"BA": [17, 80, 3, 41, 66]}}``);
    ``entered``: label key -> number, for the single tests.  Anything not entered is drawn."""

    seed: int
    wheels: Mapping[int, Mapping[str, Sequence[int]]] = field(default_factory=dict)
    entered: Mapping[str, int] = field(default_factory=dict)
    lowest: int = 1
    highest: int = 90
    per_wheel: int = 5
    log: list = field(default_factory=list)

    def _check(self, value: object, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not self.lowest <= value <= self.highest:
            raise InputError(f"{where} = {value!r}: give a whole number from {self.lowest} to {self.highest}")
        return value

    def wheel(self, turn: int, wheel: str) -> WheelDraw:
        """The numbers of ``wheel`` in ``turn``: entered, or ``per_wheel`` different numbers drawn."""
        given = self.wheels.get(turn, {}).get(wheel)
        if given is not None:
            where = f"turn {turn} wheel {wheel}"
            nums = tuple(self._check(n, where) for n in given)
            if not 1 <= len(nums) <= self.per_wheel or len(set(nums)) != len(nums):
                raise InputError(f"{where} = {list(given)}: give up to {self.per_wheel} different numbers, "
                                 "in the order drawn")
            w = WheelDraw(turn, wheel, nums, entered=True)
        else:
            gen = rng.stream(self.seed, NAMESPACE, "wheel", turn, wheel)
            w = WheelDraw(turn, wheel, tuple(gen.sample(range(self.lowest, self.highest + 1), self.per_wheel)))
        self.log.append(w)
        return w

    def number(self, *label: object) -> Draw:
        """One number for ``label`` (entered under its :func:`label_key`, or drawn)."""
        key = label_key(label)
        if key in self.entered:
            d = Draw(tuple(label), self._check(self.entered[key], f"entered number {key}"), entered=True)
        else:
            gen = rng.stream(self.seed, NAMESPACE, *label)
            d = Draw(tuple(label), gen.randint(self.lowest, self.highest))
        self.log.append(d)
        return d


def lottery_for(rules: Rules, seed: int, *, wheels: Mapping | None = None, entered: Mapping | None = None) -> Lottery:
    """A :class:`Lottery` with the rules' range and wheel size."""
    lot = rules.lottery
    return Lottery(seed, wheels or {}, entered or {}, lot.lowest, lot.highest, lot.numbers_per_wheel)


def pick(lottery: Lottery, options: Sequence[str], *label: object) -> tuple[str, Draw | None]:
    """One of ``options`` (sorted first, so the pick never depends on set order) by one number:
    the range is cut into equal slices in order (two options: 1-45 the first, 46-90 the second)."""
    ordered = sorted(options)
    if not ordered:
        raise ValueError("pick from no options")
    if len(ordered) == 1:
        return ordered[0], None
    d = lottery.number(*label)
    span = lottery.highest - lottery.lowest + 1
    return ordered[(d.value - lottery.lowest) * len(ordered) // span], d


def order_of_play(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery) -> tuple[TurnState, list[Event]]:
    """Draw (or read) every playing nation's wheel for ``state.turn`` and order the nations by
    the first number, highest first.  Equal first numbers: the ``order_tie`` option."""
    turn = state.turn
    wheel_index = {n: i for i, n in enumerate(scenario.nations)}
    draws: dict[str, tuple[int, ...]] = {}
    entered: dict[str, bool] = {}
    for name in scenario.nations:
        if not state.nations[name].playing:
            continue
        w = lottery.wheel(turn, scenario.nations[name].wheel)
        draws[name] = w.numbers
        entered[name] = w.entered
    first = rules.lottery.order_number

    def key(name: str):
        nums = draws[name]
        head = (-nums[first - 1],) if len(nums) >= first else (0,)
        if rules.options.order_tie == "next_number":
            rest = tuple(-n for i, n in enumerate(nums) if i != first - 1)
            return head + rest + (wheel_index[name],)
        return head + (wheel_index[name],)

    for name in draws:  # a missing order number is an error naming the wheel
        if len(draws[name]) < first:
            raise InputError(f"turn {turn} wheel {scenario.nations[name].wheel}: give at least {first} numbers")
    order = tuple(sorted(draws, key=key))
    ties = sorted({draws[n][first - 1] for n in draws if sum(draws[m][first - 1] == draws[n][first - 1] for m in draws) > 1})
    text = ", ".join(f"{n} ({scenario.nations[n].wheel} {draws[n][first - 1]})" for n in order)
    ev = Event(turn, "lottery", "order_of_play",
               {"order": list(order), "draws": {n: list(v) for n, v in draws.items()},
                "entered": entered, "tied_numbers": ties, "tie_rule": rules.options.order_tie},
               f"order of play: {text}" + (f" (equal first numbers {ties} broken by {rules.options.order_tie})" if ties else ""))
    return replace(state, order=order, draws=draws, current=0), [ev]
