"""Navies (the seed's "Navies" section): superiority, blockades, embarking, naval movement, debarking.

A navy is an army whose hex is a Coast or Sea hex: the same army (number, faction,
strength) "becomes" a navy on entering its first non-land hex and an army again when
it debarks.  There is no separate navy record.

Everything here is pure: functions of the static :class:`~engine.vae_victis.model.Board`
and a :class:`~engine.vae_victis.model.CampaignState`.  Every number comes from
``board.rules.naval`` and ``board.rules.zoc`` (datasets/rules/vae-victis-ii.toml).

The navies' rules live in three modules; this one re-exports their public names:

* :mod:`engine.vae_victis.naval_superiority`: superiority levels, sea zones, blockades, who may
  embark (:func:`can_embark`), NMP pools and the cost of a naval move;
* :mod:`engine.vae_victis.naval_movement`: move-by-move naval movement
  (:func:`resolve_naval_movement`; its module doc gives the choices made where the seed is silent);
* :mod:`engine.vae_victis.naval_landing`: debarking (:func:`debark`, administration step 3) and,
  at the round's end, loss at sea (:func:`lost_at_sea`: every army on a Sea hex is irrevocably
  eliminated).

Naval battles: :mod:`engine.vae_victis.naval_battles`.  Straits are crossed on land:
:mod:`engine.vae_victis.straits`.
"""

from __future__ import annotations

from bellica.engine.vae_victis.naval_landing import DebarkResult, debark, lost_at_sea
from bellica.engine.vae_victis.naval_movement import NavalMovementResult, resolve_naval_movement
from bellica.engine.vae_victis.naval_superiority import (
    NAVAL_KINDS,
    all_zones,
    blockaded_structures,
    can_embark,
    is_navy,
    naval_step_cost,
    navy_cells,
    nmp_pools,
    superiority_level,
    zones_of,
)

__all__ = [
    "NAVAL_KINDS",
    "DebarkResult",
    "all_zones",
    "NavalMovementResult",
    "blockaded_structures",
    "can_embark",
    "debark",
    "is_navy",
    "lost_at_sea",
    "naval_step_cost",
    "navy_cells",
    "nmp_pools",
    "resolve_naval_movement",
    "superiority_level",
    "zones_of",
]
