"""Typed defaults in one place (osmnx-style settings)."""

DEFAULT_RESOLUTION = 5
"""H3 resolution of a game hex: centres about 18 km apart, the rules' 15-km hex."""

WGS84 = "EPSG:4326"

MEDITERRANEAN_BBOX = (-7.0, 29.5, 37.0, 47.5)
"""(west, south, east, north): Strait of Gibraltar to the Levant, Sahara edge to the Alps."""

DATA_EXTENT = (-11.0, 22.5, 50.0, 52.0)
"""(west, south, east, north) covered by the embedded DEM, shorelines and rivers (datasets/SOURCES.md):
the Mare Nostrum world of 290 BC (regions.toml ``mare-nostrum``, -10, 23.5, 49, 51) widened by one
degree, so hexes on that region's edge see their whole footprint: Lusitania's Atlantic coast, Gaul to
the Channel and the Rhine mouth, Egypt past the First Cataract, the Tigris, Babylon and the head of the
Persian Gulf.  It contains MEDITERRANEAN_BBOX, and whole 1/12-degree DEM cells on every side.  A map
build that uses the embedded data refuses a bbox past it (etl.build.check_embedded_extent)."""
