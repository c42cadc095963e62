"""Phase 2, movement: every army moves simultaneously, then the engagements of phase 3 are listed."""

from __future__ import annotations

from dataclasses import replace

from tabula.engine.vae_victis.model import CampaignState, Event, Phase
from tabula.engine.vae_victis.rounds.battles_step import list_engagements
from tabula.engine.vae_victis.rounds.machine import StepRefused, armies_text, event, names, read_round, require, stored_logistics
from tabula.engine.vae_victis.rounds.orders_step import row_to_orders
from tabula.engine.vae_victis.state import save_state

__all__ = ["start_note", "run_movement"]


def start_note(state: CampaignState) -> dict:
    """The round's starting position, for the rules that look back at it (sieges held "the full
    round", reinforcement of armies that did not move, transfers between armies linked at the start)."""
    return {
        "armies": {str(a.id): {"cell": a.cell, "strength": a.strength, "eliminated": a.eliminated} for a in state.armies},
        "control": dict(sorted(state.control.items())),
        "sieges": [
            {"structure": s.structure, "faction": s.faction, "armies": list(s.armies), "resilience": s.resilience,
             "start_resilience": s.start_resilience, "started_round": s.started_round}
            for s in state.sieges
        ],
        "victory_points": dict(sorted(state.victory_points.items())),
    }


def run_movement(campaign) -> list[Event]:
    """Phase 2: move every army simultaneously, then list the engagements of phase 3."""
    from tabula.engine.vae_victis.movement import resolve_movement

    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "move")
        missing = r.missing(2)
        if missing:
            raise StepRefused(f"cannot run movement: orders phase incomplete, missing orders from {armies_text(missing)}")
        board = campaign.board
        orders = {army: row_to_orders(row) for army, row in r.orders_rows().items()}
        logistics = stored_logistics(campaign, r.state)  # at the start of the round: the logistics roads, the allies' reach
        result = resolve_movement(board, r.state, orders, logistics_road_edges=logistics.road_edges)
        notes = [
            ("start", start_note(r.state)),
            ("movement", {
                "mp_spent": {str(k): v for k, v in result.mp_spent.items()},
                "paths": {str(k): list(v) for k, v in result.paths.items()},
                "halted": {str(k): {"kind": h.kind, "move": h.move, "cell": h.cell} for k, h in result.halted.items()},
            }),
        ]
        note_events = [event(r.round, "movement", "put_note", {"round": r.round, "key": k, "value": v}) for k, v in notes]
        moved = replace(result.state, phase=Phase.BATTLES)
        engagement_events = list_engagements(
            board, moved, orders, mp_spent=result.mp_spent, paths=result.paths, start_state=r.state,
            start_logistics=logistics, retreats=(),
        )
        after = save_state(campaign, moved, events=result.events, phase="movement", names=names(campaign))
        campaign.append(note_events + engagement_events, before=after)
    return list(result.events) + note_events + engagement_events
