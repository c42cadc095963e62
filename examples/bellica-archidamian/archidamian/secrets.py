"""What a viewer may not read of the Archidamian War's tables (the SQL console's copy of them).

The same decision as the player view (player_view.py) and the log's seal (ruleset.SEAL): a side's
march and dispatch of this year (``ar_orders``) are its own; the umpire reads none either, so
nobody can leak them (naming the table is refused, saying when it opens).  Resolving the year moves
them to ``ar_marches``, which everyone reads.  Armies, strengths and who holds what are on the board.
"""

from __future__ import annotations

from bellica.engine.core.secrets import Secret

SECRETS = (
    Secret("ar_orders", "each side's sealed march and dispatch", "when the umpire resolves the year",
           mine="side = $viewer", umpire=False),
)


def secrets(c) -> tuple[Secret, ...]:
    return SECRETS
