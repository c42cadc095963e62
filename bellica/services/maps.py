"""A campaign's web map as one viewer may see it (``bellica render map``, the app's ``/map``, the
packets of ``bellica export``): the ruleset's player view drawn over the map's terrain.

What the viewer may see is decided once, by the ruleset (:meth:`Ruleset.player_view`, the same
view ``bellica export`` writes and ``status --json`` prints); :mod:`bellica.web_maps` draws the
view it is handed and reads none of the ruleset's tables.  A map file (no campaign) and a
campaign whose ruleset keeps map layers of its own (:attr:`Ruleset.own_map_layers`: Vae Victis
II's hex play aids, ``web_maps/scenario_layers.py``) are rendered by
:func:`~bellica.web_maps.terrain_map.render_terrain_map` as before.
"""

from __future__ import annotations

from pathlib import Path

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.ruleset import Ruleset
from bellica.geo.errors import BellicaError, InputError
from bellica.schema.view import PlayerView

__all__ = ["campaign_view", "render_map"]


def draws_from_view(ruleset: Ruleset) -> bool:
    """Whether ``ruleset``'s campaigns are drawn from its player view (not its own map layers)."""
    return not ruleset.own_map_layers and type(ruleset).player_view is not Ruleset.player_view


def campaign_view(c: Campaign, faction: str | None) -> PlayerView:
    """The player view of the open campaign ``c`` for ``faction`` (any case, or the beginning of
    one faction's name: :meth:`Campaign.faction`; None: the umpire).  An unknown faction is
    :class:`~bellica.etl.situation.UnknownFactionError`, one line naming the valid ones."""
    try:
        viewer = c.faction(faction)
    except InputError as e:
        # Here, not at import: etl.situation brings in geopandas, which drawing a map never needs.
        from bellica.etl.situation import UnknownFactionError

        raise UnknownFactionError(str(e), c.ruleset.factions(c)) from None
    c.viewer = viewer  # a damaged log is reported to a faction without what the edited rows hold
    return c.ruleset.player_view(c, viewer)


def render_map(database: str | Path, out: str | Path, *, faction: str | None = None, precision: int = 5,
               view: PlayerView | None = None) -> Path:
    """Render a map or campaign file to the page ``out``: a campaign whose ruleset draws from its
    player view as ``faction`` may see it, a Vae Victis campaign with its own map layers, anything
    else by ``render_terrain_map`` (which says in one line what is wrong with a file that is
    neither).  A campaign is drawn from the connection its view was read on: the file is opened once.
    ``view``: that player view, made already by the caller for ``faction`` at the position the file
    holds (the app's, kept per viewer and log head), drawn as it is."""
    from bellica.web_maps.terrain_map import render_terrain_map

    try:
        c = Campaign.open(database, read_only=True)
    except BellicaError:
        c = None  # a map, or no readable file: the renderer names the problem in its own words
    if c is not None:
        with c:
            if draws_from_view(c.ruleset):
                view = view if view is not None else campaign_view(c, faction)
                return render_terrain_map(database, out, view=view, precision=precision, con=c.con)
            return render_terrain_map(database, out, faction=faction, precision=precision, con=c.con)
    return render_terrain_map(database, out, faction=faction, precision=precision)
