"""The viewers' player views the app has made, kept per (campaign file, viewer, log head).

A player's page and the map page loaded beside it read the same view: the page makes it, the map
(:func:`bellica.app.server.map_endpoint`) draws it, and the map's clicks
(:mod:`bellica.app.step_preview`) find their targets in it, so each step makes a viewer's view once.
The key holds the viewer, so a view only ever reaches the viewer it was made for; it holds the log
head, so a step (every change of state is a logged step) makes the next view anew.
"""

from __future__ import annotations

from bellica.geo.recent import Recent

#: Views kept: the newest few (a handful of viewers at a time play a campaign).
VIEWS_KEPT = 8
_VIEWS = Recent(VIEWS_KEPT)


def position_key(c, viewer: str | None) -> tuple | None:
    """(campaign file, viewer, log head): what the app keeps a viewer's view of the open campaign ``c``
    under; None for a campaign with no log head yet (nothing is kept for it)."""
    head = c.log_head()
    return None if head is None else (str(c.path), viewer, head)


def view_of(c, viewer: str | None):
    """``viewer``'s player view of the open campaign ``c`` now (None: the umpire's), made once per
    log head (:func:`position_key`)."""
    key = position_key(c, viewer)
    view = _VIEWS.get(key) if key is not None else None
    if view is None:
        view = c.ruleset.player_view(c, viewer)
        if key is not None:
            _VIEWS.put(key, view)
    return view
