"""Offline Folium maps of a map or campaign database: terrain, scenario layers, faction views.

``render_terrain_map(db, out_html, *, faction=None)`` is the entry point
(``bellica render map``); pages inline Leaflet and fetch nothing.  A campaign's page is a
play aid (web_maps.play_aids / play_layers): hex names, a clock rose and the MP across each
side on a clicked hex, ZoC, logistics, sieges, straits, superiority, the last movement and
battles, and a round/phase/VP panel.  ``resolve_hex(con, text)`` reads a hex name
("Roma 3 3 5") or an H3 id back to its cell, for the CLI.
"""

from bellica.web_maps.play_aids import load_hex_names, resolve_hex

__all__ = ["load_hex_names", "render_terrain_map", "resolve_hex"]


def __getattr__(name: str):
    # render_terrain_map on first use (PEP 562): terrain_map imports folium, pandas and shapely
    # (about 0.7 s), which `bellica round administer` must not pay to read hex names (issue 11).
    if name == "render_terrain_map":
        from bellica.web_maps.terrain_map import render_terrain_map

        return render_terrain_map
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
