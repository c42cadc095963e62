"""What a Magna Graecia side (or the umpire) may see, as a player view (:mod:`bellica.schema.view`).

The decision of what a side may read is :func:`~.ruleset.view`'s (its own commands with their
elements and its fleet's naval points and load; of the others only that counters stand in a
node, and where their fleets are); this module gives that view its places on the node map and
adds nothing the view does not hold.
"""

from __future__ import annotations

from bellica.engine.core.machine import position_of
from bellica.engine.core.view import Places, feature_layer
from bellica.schema.view import PlayerView

#: What a side's view leaves out, in words (the umpire's leaves out nothing).
HIDDEN_FROM_A_SIDE = ("other sides' commands: their ids, elements, generals and strength (only that counters stand in a node)",
                      "other sides' fleets: their naval points and what they carry",
                      "commands aboard another side's fleet",
                      "sealed second-day orders")


def player_view(c, viewer: str | None) -> PlayerView:
    from .ruleset import view  # the ruleset's own redaction

    status = view(c, side=viewer)
    places = Places(c.con)
    owner = {x["city"]: x["holder"] or x["ally"] for x in status["cities"]}
    layers = (
        feature_layer("places", "Point", ((g, {"place": name, "owner": owner.get(name)})
                                          for name, g in places.nodes.items())),
        feature_layer("paths", "LineString", ((line, {"a": a, "b": b, "kind": kind}) for a, b, kind, line in places.paths())),
        feature_layer("counters", "Point", ((places.inside(x["node"]), x) for x in status["counters"]), public=False,
                      description="a side's own commands in full; the others' only where they stand"),
        feature_layer("fleets", "Point", ((places.inside(f["node"]), f) for f in status["fleets"]), public=False,
                      description="a side's own fleet with its naval points and load; the others' only where they are"),
        feature_layer("sieges", "Point", ((places.inside(s["node"]), s) for s in status["sieges"])),
        feature_layer("battles", "Point", ((places.inside(b["node"]), b) for b in status["battles"])),
    )
    pos = position_of(c.snapshot())
    return PlayerView(ruleset=c.ruleset.name, viewer=status["viewer"], round=pos.round, phase=pos.phase,
                      status=status, layers=layers, hidden=HIDDEN_FROM_A_SIDE if status["viewer"] else ())
