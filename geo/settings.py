"""Typed defaults in one place (osmnx-style settings)."""

DEFAULT_RESOLUTION = 5
"""H3 resolution of a game hex: centres about 18 km apart, the rules' 15-km hex."""

WGS84 = "EPSG:4326"

MEDITERRANEAN_BBOX = (-7.0, 29.5, 37.0, 47.5)
"""(west, south, east, north): Strait of Gibraltar to the Levant, Sahara edge to the Alps."""
