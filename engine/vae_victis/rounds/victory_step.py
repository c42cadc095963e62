"""End of the round: the round's victory points, the five victory conditions, the next round."""

from __future__ import annotations

from dataclasses import replace

from bellica.engine.vae_victis.model import Event, Phase
from bellica.engine.vae_victis.rounds.battles_step import engagements_and_results
from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, event, names, read_round, require
from bellica.engine.vae_victis.state import save_state

__all__ = ["run_victory"]


def run_victory(campaign) -> list[Event]:
    """End of the round: the round's victory points (seed's table), then the five victory conditions.

    With a winner the campaign ends (``winner`` in the campaign table); otherwise the next
    round starts in the orders phase, initiative stage.
    """
    from bellica.engine.vae_victis.victory import check_victory, round_victory_points, score_round

    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "victory")
        board = campaign.board
        engagements, results = engagements_and_results(r)
        retreats = [tuple(p) for p in (r.note("retreats") or {"pairs": []})["pairs"]]
        control_events = [
            Event(e.round, e.phase, e.kind, e.data, e.text)
            for e in campaign.events(round=r.round)
            if e.kind == "control_changed"
        ]
        round_vp, vp_events = round_victory_points(
            board, r.start_state(), engagements, results, retreats=retreats, control_events=control_events
        )
        scored = score_round(board, r.state, round_vp)
        check, victory_events = check_victory(board, scored)
        events = list(vp_events) + list(victory_events)
        if check.winner is not None:
            final = replace(scored, winner=check.winner)
        else:
            final = replace(scored, round=r.round + 1, phase=Phase.ORDERS)
            vp = dict(sorted(scored.victory_points.items()))
            events.append(event(r.round, "victory", "round_ended", {"round": r.round, "vp": vp},
                                f"round {r.round} ends: " + ", ".join(f"{f} {v} VP" for f, v in vp.items())
                                + "; no faction has won"))
        after = save_state(campaign, final, events=events, phase="victory", names=names(campaign))
        if check.winner is None:
            stage = event(r.round + 1, "orders", "set_campaign", {"key": "stage", "value": STAGE_INITIATIVE, "was": r.stage})
            campaign.append([stage], before=after)
            events.append(stage)
    return events
