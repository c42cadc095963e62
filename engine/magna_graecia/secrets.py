"""What a Magna Graecia side may not read of the campaign's tables: the player view's decision
(:func:`~.status.view`, :mod:`.player_view`) for the SQL console.

A side reads its own commands and fleet in full; of another side's commands only where they
stand (their ids, elements, generals and movement are NULL), none carried aboard that side's
fleet; of another side's fleet where it is, not its naval points or load.  Second-day orders are
sealed from everyone, the umpire included, until every side of the battle has written one (the
seed: "sealed ... revealed simultaneously"); a side reads its own.
"""

from __future__ import annotations

from bellica.engine.core.secrets import Secret

SECRETS = (
    Secret("mg_commands", "other sides' commands: their elements, generals and movement", "never (on the table: only their counters)",
           mine="side = $viewer", columns=("id", "elements", "general", "inherent", "mp_left", "moved", "entered_from"),
           hidden_rows="aboard"),
    Secret("mg_fleets", "other sides' naval points and loads", "never (only where a fleet is)",
           mine="side = $viewer", columns=("np", "carrying", "sheltered", "mp_left", "moved")),
    Secret("mg_orders", "second-day orders written and sealed", "when every side of that battle has written its order",
           mine="side = $viewer", umpire=False),
)


def secrets(c) -> tuple[Secret, ...]:
    return SECRETS
