"""Phase 2, movement: every army moves simultaneously, then the engagements of phase 3 are listed."""

from __future__ import annotations

from dataclasses import replace

from bellica.engine.vae_victis.model import CampaignState, Event, Phase
from bellica.engine.vae_victis.rounds.battles_step import list_engagements
from bellica.engine.vae_victis.rounds.machine import StepRefused, armies_text, event, names, read_round, require, stored_logistics
from bellica.engine.vae_victis.rounds.orders_step import row_to_orders
from bellica.engine.vae_victis.state import save_state

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
    """Phase 2 and the naval part of phase 3: every army and navy moves simultaneously, the naval
    battles are fought (their numbers come from the orders, no game is played), then the land
    engagements of phase 3 are listed.

    Before anything moves, the round's sea-zone logistics links are fixed: each faction's choice
    from its orders, the default rule for a zone where it named none
    (:func:`engine.vae_victis.logistics.sea.round_sea_links`)."""
    from bellica.engine.core.rng import stream
    from bellica.engine.vae_victis.logistics.sea import round_sea_links
    from bellica.engine.vae_victis.movement import resolve_movement
    from bellica.engine.vae_victis.naval import blockaded_structures, navy_cells, resolve_naval_movement
    from bellica.engine.vae_victis.naval_battles import battle_groups, move_strings, random_numbers, resolve_naval_battles
    from bellica.engine.vae_victis.orders import sea_movers
    from bellica.engine.vae_victis.zoc import navy_zoc_cells

    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "move")
        missing = r.missing(2)
        if missing:
            from bellica.engine.vae_victis.rounds.reveal import deadline_of

            late = "; after the deadline `bellica round reveal` makes them stand still" if deadline_of(r.snap) else ""
            raise StepRefused(f"cannot run movement: orders phase incomplete, missing orders from {armies_text(missing)}{late}")
        from bellica.engine.vae_victis.rounds.reveal import is_locked

        if not is_locked(r):
            raise StepRefused(f"cannot run movement: round {r.round}'s orders are not revealed yet; "
                              "every faction reveals them (`bellica round reveal-orders`) or the umpire runs `bellica round reveal` after the deadline")
        board = campaign.board
        orders = {army: row_to_orders(row) for army, row in r.orders_rows().items()}
        start = replace(r.state, sea_links=round_sea_links(board, r.state, orders))
        if start.sea_links != r.state.sea_links:
            save_state(campaign, start, phase="movement", names=names(campaign))
        logistics = stored_logistics(campaign, start)  # at the start of the round: the logistics roads, the allies' reach
        blockaded = blockaded_structures(board, start)
        movers = sea_movers(board, start, orders, blockaded)
        land = resolve_movement(board, start, orders, logistics_road_edges=logistics.road_edges,
                                navy_zoc=navy_zoc_cells(board, navy_cells(board, start)), naval=movers)
        sea = resolve_naval_movement(board, land.state, orders, movers=movers, blockaded=blockaded)
        numbers = random_numbers(move_strings(start, orders), board.rules.naval)
        fought = resolve_naval_battles(board, sea.state, battle_groups(board, sea.state), numbers,
                                       rng=stream(start.seed, "naval-numbers", start.round))
        mp_spent = {**land.mp_spent, **{a: 0 for a in movers}}
        paths = {**land.paths, **sea.paths}
        notes = [
            ("start", start_note(start)),
            ("movement", {
                "mp_spent": {str(k): v for k, v in sorted(mp_spent.items())},
                "paths": {str(k): list(v) for k, v in sorted(paths.items())},
                "halted": {str(k): {"kind": h.kind, "move": h.move, "cell": h.cell}
                           for k, h in sorted({**land.halted, **sea.halted}.items())},
            }),
            ("naval", {"nmp_spent": sea.nmp_spent, "nmp_left": sea.nmp_left, "numbers": list(numbers),
                       "navies": sorted(movers)}),
        ]
        note_events = [event(r.round, "movement", "put_note", {"round": r.round, "key": k, "value": v}) for k, v in notes]
        moved = replace(fought.state, phase=Phase.BATTLES)
        engagement_events = list_engagements(
            board, moved, orders, mp_spent=mp_spent, paths=paths, start_state=start,
            start_logistics=logistics, retreats=(),
        )
        rules_events = list(land.events) + list(sea.events) + list(fought.events)
        after = save_state(campaign, moved, events=rules_events, phase="movement", names=names(campaign))
        campaign.append(note_events + engagement_events, before=after)
    return rules_events + note_events + engagement_events
