"""Where the round stands and what the umpire does next (``tabula round status``), read-only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from tabula.engine.vae_victis.model import Phase
from tabula.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, armies_text, next_step, read_round

__all__ = ["RoundStatus", "round_status"]


@dataclass(frozen=True)
class RoundStatus:
    round: int
    phase: str
    stage: str | None
    winner: str | None
    missing_initiative: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    missing_orders: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    engagements: tuple[tuple, ...] = ()  # (engagement, battle, army_a, army_b, assault, has_result)
    next_step: str = ""

    def lines(self) -> list[str]:
        head = f"round {self.round}, phase {self.phase}" + (f" ({self.stage})" if self.phase == "orders" and self.stage else "")
        out = [head + (f"; campaign won by {self.winner}" if self.winner else "")]
        if self.phase == "orders":
            if self.stage == STAGE_INITIATIVE and self.missing_initiative:
                out.append("initiative not yet given by " + armies_text(self.missing_initiative) + " (default: strength)")
            if self.missing_orders:
                out.append("orders missing from " + armies_text(self.missing_orders))
        for e, b, a, bb, assault, done in self.engagements:
            what = f"army {a} assaults {assault}" if bb is None else f"army {a} v army {bb}"
            out.append(f"engagement {e} (battle {b}): {what}: {'result recorded' if done else 'awaiting result'}")
        out.append("next: " + self.next_step)
        return out


def round_status(campaign) -> RoundStatus:
    """Where the campaign stands and what the umpire does next (read-only)."""
    campaign.require_state()
    r = read_round(campaign)
    engagements = tuple(
        (row[2], row[1], row[3], row[4], row[5], bool(r.results_for(row[2]))) for row in r.engagement_rows()
    )
    ordering = r.state.phase is Phase.ORDERS
    return RoundStatus(
        round=r.round,
        phase=r.phase,
        stage=r.stage,
        winner=r.state.winner,
        missing_initiative=r.missing(3) if ordering else {},
        missing_orders=r.missing(2) if ordering else {},
        engagements=engagements,
        next_step=next_step(r),
    )
