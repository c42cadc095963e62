"""The Administration phase (seed: "Rounds", phase 4), its steps in the seed's order.

1. removal of armies that lost their battle (an assaulting army that lost only its
   assault is not removed);
2. movement of armies that drew (2 hexes away, towards a capital if possible, never
   into another faction's army ZoC; besiegers stay) or won (optional advance into
   the adjacent hex of a removed loser, ties by casualties), and of assaulting
   armies that lost their assault (2 hexes away from the structure);
3. navies' debarkation of armies into land hexes, as their players ordered
   (:func:`engine.vae_victis.naval.debark`: a hex turned hostile leaves the navy at sea);
4. siege resolution (:func:`engine.sieges.resolve_sieges`; armies still at sea take no part);
5. control of unowned structures in one faction's army ZoC only;
6. placement of the removed losers: the nearest (in hexes) controlled, unsieged,
   unblockaded structure on their faction's logistics lines that it reaches without
   crossing a sea zone where its faction has no naval superiority, else 2 hexes away from
   the enemies they lost to (even into enemy army or navy ZoC), else irrevocable elimination;
7. other updates of the map: a navy that ends the round on a Sea hex is lost with its army;
8. army strength: casualties (1 FP per % won, 2 FP per % drawn or lost), then
   reinforcement of armies that neither moved nor fought, then transfers, all
   capped at 1600 FP;
9. miscellaneous: an army at 0 FP or less is eliminated.
:func:`administer` runs the steps, one function each (in
:mod:`engine.vae_victis.administration_steps`: ``_remove_losers``,
``_advance_winners``, ``_retreat_draws``, ``_withdraw_assault_losers``, ``_resolve_sieges``,
``_gain_unowned_structures``, ``_place_losers``, ``_apply_casualties``, ``_reinforce``,
``_transfer_strength``, ``_eliminate_spent_armies``, with ``_debark_navies`` (3) and
``_sink_navies_at_sea`` (7)); the rules they share as pure functions (casualties, retreat
destinations, reinforcement, reachable land) are in :mod:`engine.vae_victis.administration_rules`.
Every number comes from ``board.rules`` (``administration``,
``battles.max_fp``; datasets/rules/vae-victis-ii.toml).  It is pure; umpire and player choices (advances, sieges started,
lifted, taken over, surrendered, transfers) are explicit inputs.  Every change is an
:class:`~engine.model.Event` explained in words.
"""

from __future__ import annotations

from bellica.engine.vae_victis.administration_rules import (
    casualty_loss,
    reachable_land,
    reinforcement,
    retreat_destination,
)
from bellica.engine.vae_victis.administration_steps import (
    AdminInputs,
    AdminResult,
    _Admin,
    _advance_winners,
    _apply_casualties,
    _debark_navies,
    _eliminate_spent_armies,
    _gain_unowned_structures,
    _place_losers,
    _reinforce,
    _remove_losers,
    _resolve_sieges,
    _retreat_draws,
    _sink_navies_at_sea,
    _transfer_strength,
    _withdraw_assault_losers,
)
from bellica.engine.vae_victis.battles import army_battle_outcomes, battle_outcomes
from bellica.engine.vae_victis.logistics import LogisticsOptions
from bellica.engine.vae_victis.model import Board, CampaignState
from bellica.engine.vae_victis.rules import AdministrationRules, SiegeRules
from bellica.engine.vae_victis.sieges import assault_effects

__all__ = [
    "AdminInputs",
    "AdminResult",
    "administer",
    "casualty_loss",
    "reinforcement",
    "reachable_land",
    "retreat_destination",
]


def _logistics_options(board: Board) -> LogisticsOptions:
    lg = board.rules.logistics
    return LogisticsOptions(river_access=lg.river_access, distance_cutoff_mp=lg.distance_cutoff_mp,
                            transfer_reach_mp=lg.transfer_reach_mp)


def administer(
    board: Board,
    state: CampaignState,
    inputs: AdminInputs,
    options: AdministrationRules | None = None,
    siege_options: SiegeRules | None = None,
    logistics_options: LogisticsOptions | None = None,
) -> AdminResult:
    """Run the nine administration steps on the state after battles (see the module doc).

    ``options``/``siege_options``/``logistics_options``: default to ``board.rules``' sections."""
    engagements = tuple(inputs.engagements)
    outcomes = battle_outcomes(board, state, engagements, inputs.results) if engagements else {}
    opponents: dict[int, set[int]] = {}
    for e in engagements:
        if e.army_b is not None:
            opponents.setdefault(e.army_a, set()).add(e.army_b)
            opponents.setdefault(e.army_b, set()).add(e.army_a)
    ad = _Admin(
        board=board,
        state=state,
        inputs=inputs,
        rules=options if options is not None else board.rules.administration,
        siege_rules=siege_options if siege_options is not None else board.rules.sieges,
        logistics_options=logistics_options if logistics_options is not None else _logistics_options(board),
        armies={a.id: a for a in state.armies},
        engagements=engagements,
        army_outcome=army_battle_outcomes(state, engagements, outcomes),
        by_result={(r.engagement, r.army): r for r in inputs.results},
        assault_losers=assault_effects(engagements, inputs.results)[1],
        opponents=opponents,
    )
    _remove_losers(ad)  # 1
    _advance_winners(ad)  # 2
    _retreat_draws(ad)
    _withdraw_assault_losers(ad)
    _debark_navies(ad)  # 3
    _resolve_sieges(ad)  # 4
    _gain_unowned_structures(ad)  # 5
    _place_losers(ad)  # 6
    _sink_navies_at_sea(ad)  # 7
    _apply_casualties(ad)  # 8
    _reinforce(ad)
    _transfer_strength(ad)
    _eliminate_spent_armies(ad)  # 9
    return AdminResult(ad.placed_state(), tuple(ad.events))
