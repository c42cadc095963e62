"""The Trossian calendar: nine phases a year in three seasons of three, then winter quarters.

``GameState.phase`` is the index of the phase being played (0 = Early Spring) or
:data:`~bellica.engine.trossian.model.WINTER` between Late Autumn and the next Early Spring.
"""

from __future__ import annotations

from .model import WINTER, GameState
from .rules import Rules

__all__ = ["is_last_phase", "label", "next_phase", "phase_name", "season"]


def phase_name(rules: Rules, phase: int) -> str:
    """"Mid Summer", or "Winter quarters"."""
    return "Winter quarters" if phase == WINTER else rules.calendar.phases[phase]


def season(rules: Rules, phase: int) -> str:
    return "Winter" if phase == WINTER else rules.calendar.season(phase)


def label(rules: Rules, state: GameState) -> str:
    """The date as a player reads it: "Early Spring 1806"."""
    return f"{phase_name(rules, state.phase)} {state.year}"


def is_last_phase(rules: Rules, phase: int) -> bool:
    """Late Autumn: after it the armies go into winter quarters."""
    return phase == rules.calendar.per_year - 1


def next_phase(rules: Rules, year: int, phase: int) -> tuple[int, int]:
    """(year, phase) after ``phase``: the next phase, winter quarters after the last one,
    Early Spring of the next year after winter."""
    if phase == WINTER:
        return year + 1, 0
    if is_last_phase(rules, phase):
        return year, WINTER
    return year, phase + 1
