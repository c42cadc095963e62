"""What a Mare Nostrum nation (or the umpire) sees, as a player view.

The seed's campaign is played in the open (every nation's treasury, stability and actions are
announced), so every view is the whole board (:func:`~.ruleset.turn_view` and who holds each
province with its works); nothing is hidden.
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
    works = {w["province"]: {k: w[k] for k in ("fortifications", "suburbs", "temples")} for w in view.works}
    layers = (
        province_layer(places, {p: state.control.get(p) for p in c.board.provinces}, works),
        feature_layer("fleets", "Point", ((places.inside(f["sea"]), f) for f in view.fleets)),
        feature_layer("attacks", "Point", ((places.inside(a["target"]), a) for a in view.attacks)),
    )
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=int(snap.campaign("round")), phase=view.phase,
                      status=view.as_json(), layers=layers)
