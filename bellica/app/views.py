"""The viewers' player views the app has made, kept per (campaign file, viewer, log head).

A player's page and the map page loaded beside it read the same view: the page makes it, the map
(:func:`bellica.app.server.map_endpoint`) draws it, and the map's clicks
(:mod:`bellica.app.step_preview`) find their targets in it, so each step makes a viewer's view once.
The key holds the viewer, so a view only ever reaches the viewer it was made for; it holds the log
head, so a step (every change of state is a logged step) makes the next view anew.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

#: Views kept: the newest few (a handful of viewers at a time play a campaign).
VIEWS_KEPT = 8
_VIEWS: "OrderedDict[tuple, object]" = OrderedDict()
_LOCK = threading.Lock()


def view_of(c, viewer: str | None):
    """``viewer``'s player view of the open campaign ``c`` now (None: the umpire's), made once per
    log head; a campaign with no log yet is asked each time."""
    head = c.log_head()
    key = (str(c.path), viewer, head)
    with _LOCK:
        view = _VIEWS.get(key) if head is not None else None
    if view is None:
        view = c.ruleset.player_view(c, viewer)
        if head is not None:
            with _LOCK:
                _VIEWS[key] = view
                while len(_VIEWS) > VIEWS_KEPT:
                    _VIEWS.popitem(last=False)
    return view
