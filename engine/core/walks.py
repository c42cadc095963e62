"""Breadth-first walks over a map of named places, for every ruleset.

A ruleset's map is its own (Trossian and Rise of Rome provinces, Magna Graecia nodes, Mare
Nostrum provinces and seas); what it walks is always the same: from a place, by a function
giving each place's neighbours in a fixed order, so that the same map gives the same way every
time (a bot's choice and an army's retreat must replay).
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Sequence

__all__ = ["fewest_steps", "steps_from"]


def fewest_steps(start: str, goal: str | Callable[[str], bool],
                 neighbours: Callable[[str], Sequence[str]]) -> list[str] | None:
    """The places entered on a way from ``start`` to ``goal`` (a place, or a test of one: the first
    place found that passes it) by the fewest steps; ``[]`` when ``start`` is the goal, None when
    no way leads there: breadth first, each place's ``neighbours`` tried in the order given."""
    reached = goal if callable(goal) else goal.__eq__
    back: dict[str, str | None] = {start: None}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        if reached(here):
            out = []
            while back[here] is not None:
                out.append(here)
                here = back[here]
            return out[::-1]
        for there in neighbours(here):
            if there not in back:
                back[there] = here
                todo.append(there)
    return None


def steps_from(start: str, neighbours: Callable[[str], Sequence[str]]) -> dict[str, int]:
    """Every place a way leads to from ``start``, with the fewest steps to it (``start``: 0)."""
    steps, todo = {start: 0}, deque([start])
    while todo:
        here = todo.popleft()
        for there in neighbours(here):
            if there not in steps:
                steps[there] = steps[here] + 1
                todo.append(there)
    return steps
