"""What a player may be offered while giving orders: the legal initiative uses, and a move's preview.

Nothing here changes state, and nothing here decides a rule of its own: the initiative uses are
those :func:`~engine.vae_victis.order_checks.check_orders` accepts, and a move's preview is the
movement step's own code (:func:`~engine.vae_victis.movement.resolve_movement`,
:func:`~engine.vae_victis.naval_movement.resolve_naval_movement`, :func:`entry_cost`) run on the
position with only that army moving, so the page's preview and the adjudication cannot disagree
on anything the ordering faction can know.  The rest of the round (other armies' sealed orders)
can only halt the move earlier: a preview says where the move ends if nothing else moves.
"""

from __future__ import annotations

from bellica.engine.vae_victis.model import Board, CampaignState

__all__ = ["initiative_uses"]


def initiative_uses(board: Board, state: CampaignState, faction: str) -> list[str]:
    """The initiative uses an army of ``faction`` may give now: "strength", then every sea zone
    where the faction may assign an influence point (its influence cap there is at least 1:
    :func:`~engine.vae_victis.order_checks.influence_cap`), sorted by name."""
    from bellica.engine.vae_victis.naval_superiority import blockaded_structures
    from bellica.engine.vae_victis.order_checks import influence_cap

    blockaded = blockaded_structures(board, state)
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    return ["strength"] + [z for z in zones if influence_cap(board, state, faction, z, blockaded) > 0]
