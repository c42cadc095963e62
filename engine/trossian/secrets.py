"""What a Trossian nation (or the umpire) may not read of the campaign's tables: the decision of
the player view (:func:`~.status.status_view`) and of the log's seal (:class:`~.seal.TrossianSeal`)
for the SQL console.

A nation reads its own treasury, couriers and orders; of another nation's armies where they stand,
not their units; another nation's orders once every nation has given its orders for that round,
except a courier's (a message never opens to another nation).  The umpire reads every army's units
and no nation's treasury, couriers or unopened orders, as its view and log show.  ``next_id`` in
``tr_game`` counts every counter ever made, so it tells how many armies the others raised: only
the umpire read it, until the armies' orders in force (issue 22) shared its table: now nobody.
"""

from __future__ import annotations

from bellica.engine.core.secrets import Secret

#: A round whose orders are all in: the orders of it open (tr_ready lists who is done).
_OPENED = ("round IN (SELECT round FROM tr_ready GROUP BY round "
           "HAVING count(DISTINCT nation) >= (SELECT count(*) FROM tr_nations))")

SECRETS = (
    Secret("tr_treasury", "each nation's treasury, chance cards and captured messages", "never (its own nation's)",
           mine="nation = $viewer", umpire=False),
    Secret("tr_couriers", "each nation's couriers and their messages", "never (its own nation's)",
           mine="nation = $viewer", umpire=False),
    Secret("tr_orders", "the kings' orders of the round", "once every nation has given its orders (a courier's message never)",
           mine="nation = $viewer", public=f"kind <> 'courier' AND {_OPENED}", umpire=False),
    Secret("tr_armies", "other nations' armies' units", "never (only where an army stands)",
           mine="nation = $viewer", columns=("units", "strength", "has_hq", "speed")),
    # ``orders/NATION``: the orders its armies obey, which couriers carried (storage.ORDERS_KEY): its
    # own, never the umpire's nor another nation's (as its couriers' messages); so the umpire, who
    # may read no nation's row of the table, no longer reads next_id either.
    Secret("tr_game", "how many counters have been made (next_id) and each nation's armies' orders",
           "never (next_id nobody's; a nation's orders its own)",
           mine="key = 'orders/' || $viewer", public="key <> 'next_id' AND key NOT LIKE 'orders/%'", umpire=False),
)


def secrets(c) -> tuple[Secret, ...]:
    return SECRETS
