"""Orders of one round, parsed and validated in layers (python-chess style).

1. **Syntax** (:func:`parse_moves`, :func:`parse_orders_text`, :func:`orders_from_cli`):
   the move string exactly as players write it in the seed ("2 4 2 6 0 6": clock
   positions and 0s, "with no other symbols in between, only blanks"), the other
   fields' types.  Raises :class:`OrderSyntaxError`.
2. **Legality in the position** (:func:`check_orders`, :func:`validate_orders`):
   the army exists, belongs to the faction and is not eliminated; every clock
   position names a side of the hex the army is in at that point of its path and
   leads to a hex the army can enter (below); initiative names a sea zone the faction
   may still influence; lift-siege/assault name a siege of that army; transfers
   go to a linked army of the faction within the 100 FP cap; sea links name the
   faction's own coastal structures, at most its superiority level per zone.  All
   problems of all armies are collected and raised together as one :class:`IllegalOrderError`.
3. **Apply**: nothing here changes state; :mod:`engine.movement` and the
   administration apply orders that passed 1 and 2.

Which hexes a move string may enter (:func:`moves_by_sea` tells the two kinds apart):

* **By sea** (seed, "Naval movement"; the lead's decision 2): an army already at sea (on a
  Coast or Sea hex), or an army whose first move that is not a "0" enters a Coast or Sea hex
  from a Town/City it may embark from (:func:`engine.vae_victis.naval.can_embark`), walks a
  naval path: every move enters a Coast or Sea hex (never Ocean, Lake or land: debarking is
  the administration's step-3 order, not a move; "0" stays).  When it may not embark, the
  reason (besieged, blockaded, resting after a naval defeat, not a coastal structure) is
  the problem.  A naval string may be longer than a land one: at most
  :func:`max_naval_moves` moves, the faction's NMP over all sea zones this round over the
  cheapest naval move (generous: one navy cannot use every zone's pool, but orders are
  written before the pools are shared).
* **On land**: land hexes only (not Peaks or Lakes), except a **strait crossing**
  (:mod:`engine.vae_victis.straits`): two consecutive moves, into a strait Coast hex and out
  of it onto the land hex across from the one the army left.  A Coast hex that is no strait
  from here, or a second move that does not land across, is a problem naming the crossings
  open from that hex.  The two moves count as one against :func:`max_moves` (the strait costs
  no MP).  Moves after a crossing are walked for their geometry but never made (the army stops
  after crossing); whether the crossing is allowed (enemy armies near, an enemy City's ZoC,
  superiority) is decided during movement, not here.  A land army never mixes land and sea moves.

Sea links (seed, "Lines of logistics" 4): ``sea_links`` names (sea zone, structure) targets of
the faction's sea-zone logistics; a target must be the faction's, unsieged, unblockaded and
adjacent to a Coast hex of the zone; per faction and zone at most its superiority level in that
zone, counted over all the faction's orders (a target named twice counts once).

Influence cap (seed, "Naval superiority"; decision 10): per faction and zone, its controlled,
unbesieged, unblockaded Towns/Cities adjacent to a Coast hex of the zone, times the faction's
influence multiplier (``rules.naval.influence_cap = "multiplier"``, the rules text) or not
(``"count"``, the umpire's restatement in the seed's thread).  Blockades are those of the start
of the round (:func:`engine.vae_victis.naval.blockaded_structures` unless the caller gives them).

Orders file (TOML, one file per faction and round)::

    faction = "roma"
    round = 2

    [armies.9]
    moves = "3 3 5 0 5"             # required string; "" = stand in place (no MP spent)
    initiative = "Mare Tyrrhenum"   # optional: "strength" (default) or a sea-zone name
    lift_siege = false              # optional
    assault = "Capua"               # optional: a structure this army besieges
    transfers = [{ to = 10, fp = 60 }]   # optional: FP given to army 10
    sea_links = { "Mare Tyrrhenum" = ["Neapolis"] }   # optional: sea-zone logistics targets

CLI: ``ARMY=MOVES`` items (``9=3 3 5 0 5``) for moves alone, or
:func:`army_orders_from_cli` for every field.

The layers live in their own modules; this one re-exports their public names:
:mod:`engine.vae_victis.order_syntax` (layer 1, the orders file and the command line),
:mod:`engine.vae_victis.order_paths` (walking move strings: land, straits, by sea),
:mod:`engine.vae_victis.order_checks` (layer 2), :mod:`engine.vae_victis.order_errors`
(the problems and errors).
"""

from __future__ import annotations

from bellica.engine.vae_victis.order_checks import check_orders, influence_cap, validate_orders
from bellica.engine.vae_victis.order_errors import IllegalOrderError, OrderError, OrderProblem, OrderSyntaxError
from bellica.engine.vae_victis.order_paths import (
    impassable_reason,
    max_moves,
    max_naval_moves,
    moves_by_sea,
    naval_impassable_reason,
    sea_movers,
    walk_moves,
)
from bellica.engine.vae_victis.order_syntax import (
    MAX_MOVES_TEXT,
    OrdersFile,
    army_orders_from_cli,
    load_orders_file,
    orders_from_cli,
    parse_army_orders,
    parse_moves,
    parse_orders_text,
)

__all__ = [
    "MAX_MOVES_TEXT",
    "IllegalOrderError",
    "OrderError",
    "OrderProblem",
    "OrderSyntaxError",
    "OrdersFile",
    "army_orders_from_cli",
    "check_orders",
    "impassable_reason",
    "influence_cap",
    "load_orders_file",
    "max_moves",
    "max_naval_moves",
    "moves_by_sea",
    "naval_impassable_reason",
    "orders_from_cli",
    "parse_army_orders",
    "parse_moves",
    "parse_orders_text",
    "sea_movers",
    "validate_orders",
    "walk_moves",
]
