"""Offline Folium maps of a map or campaign database: terrain, scenario layers, faction views.

``render_terrain_map(db, out_html, *, faction=None)`` is the entry point
(``tabula render map``); pages inline Leaflet and fetch nothing.
"""

from tabula.web_maps.terrain_map import render_terrain_map

__all__ = ["render_terrain_map"]
