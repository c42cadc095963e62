"""What a Trossian nation (or the umpire) may see, as a player view (:mod:`bellica.schema.view`).

The decision is :func:`~.ruleset.status_view`'s (a nation's own treasury, couriers, orders and
armies' units; other nations' armies without their units; the umpire every army's units and no
nation's couriers or orders); this module places that view on the map and adds nothing to it.
"""

from __future__ import annotations

from bellica.engine.core.view import Places, feature_layer, province_layer
from bellica.schema.view import PlayerView

HIDDEN_FROM_A_NATION = ("other nations' armies' units and strength", "other nations' treasuries, couriers and orders")


def player_view(c, viewer: str | None) -> PlayerView:
    from .ruleset import status_view

    status = status_view(c, viewer)
    places = Places(c.con)
    lane_of_navy = {n["navy"]: n["lane"] for n in status["navies"]}

    def army_at(a):  # an army aboard stands in its navy's lane
        return places.inside(lane_of_navy.get(a["aboard"]) if a["aboard"] else a["province"])

    layers = (
        province_layer(places, status["control"]),
        feature_layer("lanes", "MultiPolygon", ((places.region(x["lane"]), x) for x in status["lanes"])),
        feature_layer("armies", "Point", ((army_at(a), a) for a in status["armies"]), public=False,
                      description="a nation's own armies with their units; the others' without"),
        feature_layer("navies", "Point", ((places.inside(n["lane"]), n) for n in status["navies"])),
        feature_layer("sieges", "Point", ((places.inside(s["province"]), s) for s in status["sieges"])),
        feature_layer("battles", "Point", ((places.inside(b["province"]), b) for b in status["battles"])),
        feature_layer("couriers", "Point", ((places.inside(x["where"]), x) for x in status.get("couriers", ())),
                      public=False, description="the viewer's own couriers in transit (none for the umpire)"),
    )
    return PlayerView(ruleset=c.ruleset.name, viewer=status["viewer"], round=int(status["round"]), phase=status["phase"],
                      status=status, layers=layers, hidden=HIDDEN_FROM_A_NATION if status["viewer"] else ())
