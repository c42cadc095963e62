"""Where the round stands and what the umpire does next (``bellica round status``), read-only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from bellica.engine.vae_victis.model import Phase
from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, armies_text, next_step, read_round

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
    orders_mode: str = "sealed"
    deadline: str | None = None  # ISO-8601 UTC, the current round's
    deadline_passed: bool = False
    revealed: bool = False
    submitted: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # step 1.3 orders in (sealed), by faction
    committed: tuple[str, ...] = ()  # commit-reveal: factions that committed

    def lines(self) -> list[str]:
        head = f"round {self.round}, phase {self.phase}" + (f" ({self.stage})" if self.phase == "orders" and self.stage else "")
        out = [head + (f"; campaign won by {self.winner}" if self.winner else "")]
        if self.phase == "orders":
            if self.stage == STAGE_INITIATIVE and self.missing_initiative:
                out.append("initiative not yet given by " + armies_text(self.missing_initiative) + " (default: strength)")
            if self.orders_mode != "sealed":
                out.append(f"orders mode: {self.orders_mode}" + (f"; committed: {', '.join(self.committed)}" if self.committed else ""))
            if self.deadline:
                out.append(f"deadline: {self.deadline}" + (" (passed)" if self.deadline_passed else ""))
            if self.submitted and not self.revealed:
                out.append("orders in (sealed until the reveal) from " + armies_text(self.submitted))
            if self.revealed:
                out.append("orders revealed")
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
    from datetime import datetime, timezone

    from bellica.engine.vae_victis.rounds import reveal as rv

    ordering = r.state.phase is Phase.ORDERS
    deadline = rv.deadline_of(r.snap) if ordering else None
    submitted: dict[str, list[int]] = {}
    if ordering:
        rows = r.orders_rows()
        for a in r.live_armies():
            if a.id in rows and rows[a.id][2] is not None:
                submitted.setdefault(a.faction, []).append(a.id)
    return RoundStatus(
        orders_mode=rv.orders_mode(r.snap),
        deadline=rv.format_deadline(deadline) if deadline else None,
        deadline_passed=bool(deadline and datetime.now(timezone.utc) >= deadline),
        revealed=ordering and rv.is_revealed(r),
        submitted={f: tuple(ids) for f, ids in submitted.items()},
        committed=tuple(sorted(r.note(rv.COMMITMENTS_NOTE) or {})) if ordering else (),
        round=r.round,
        phase=r.phase,
        stage=r.stage,
        winner=r.state.winner,
        missing_initiative=r.missing(3) if ordering else {},
        missing_orders=r.missing(2) if ordering else {},
        engagements=engagements,
        next_step=next_step(r),
    )
