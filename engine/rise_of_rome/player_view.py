"""What the Rise of Rome player (or any power's name, or the umpire) sees, as a player view.

The seed is solo: the engine plays the other eight powers in the open, so every view is the
whole board (:func:`~.ruleset.turn_view` and who holds each province); nothing is hidden.
"""

from __future__ import annotations

from bellica.engine.core.view import Places, feature_layer, province_layer
from bellica.schema.view import PlayerView


def player_view(c, viewer: str | None) -> PlayerView:
    from .ruleset import state_of, turn_view

    view = turn_view(c)
    snap = c.snapshot()
    state = state_of(c.board, snap)
    places = Places(c.con)
    layers = (
        province_layer(places, {p: state.control.get(p) for p in c.board.provinces}),
        feature_layer("external_armies", "Point", ((places.inside(e["province"]), e) for e in view.externals)),
    )
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=int(snap.campaign("round")), phase=view.phase,
                      status=view.as_json(), layers=layers)
