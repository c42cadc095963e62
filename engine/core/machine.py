"""The round/phase machine: which step each phase (and stage) allows, and the refusal of any other.

A ruleset declares its steps (:class:`Step`): the phase each runs in, the stages of
that phase it is allowed in, and the words of its refusals.  The campaign's
position (round, phase, stage, winner) lives in the core ``campaign`` table; a step
asked for in the wrong place is refused with :class:`StepRefused`, whose message
names what the umpire does next (the ruleset's :meth:`Ruleset.next_step`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import RulesRefusal

__all__ = ["StepRefused", "Position", "Step", "position_of", "require_step"]


class StepRefused(RulesRefusal):
    """A step asked for out of order; the message says what is missing and which command comes next."""


@dataclass(frozen=True)
class Position:
    """Where a campaign stands: its round, phase, stage within the phase (if any) and winner (once won)."""

    round: int
    phase: str
    stage: str | None = None
    winner: str | None = None


def position_of(snap: Snapshot) -> Position:
    return Position(int(snap.campaign("round")), snap.campaign("phase"), snap.campaign("stage"), snap.campaign("winner"))


@dataclass(frozen=True)
class Step:
    """One step of a ruleset's round.

    ``name`` is how the log and re-adjudication call it, ``action`` the words of a
    refusal ("cannot {action}: ..."), ``phase`` the phase it runs in; ``stages``
    (empty: any) the stages of that phase it is allowed in, and ``wrong_stage`` the
    refusal's reason otherwise, a template over ``round``, ``stage`` and ``next``.
    """

    name: str
    action: str
    phase: str
    stages: tuple[str, ...] = ()
    wrong_stage: str = "round {round} is at stage {stage}; {next}"


def require_step(step: Step, pos: Position, next_step: Callable[[], str]) -> None:
    """Raise :class:`StepRefused` unless ``step`` may run at ``pos``; ``next_step()`` words what comes next."""
    if pos.winner is not None:
        raise StepRefused(f"cannot {step.action}: the campaign is over, {pos.winner} won in round {pos.round}")
    if pos.phase != step.phase:
        raise StepRefused(f"cannot {step.action}: round {pos.round} is in the {pos.phase} phase; {next_step()}")
    if step.stages and pos.stage not in step.stages:
        reason = step.wrong_stage.format(round=pos.round, stage=pos.stage, next="{next}")
        if "{next}" in reason:
            reason = reason.replace("{next}", next_step())
        raise StepRefused(f"cannot {step.action}: {reason}")
