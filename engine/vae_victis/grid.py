"""Hex distance for the rules, with h3 alone.

:func:`bellica.geo.hexgrid.grid_distance` is the same H3 call, but importing
:mod:`bellica.geo.hexgrid` also loads h3ronpy, pyarrow, pyproj and shapely (~0.15 s), which
``round move`` and ``round administer`` paid for one distance function (issue 11).  This
module imports only h3 and raises the same :class:`~bellica.geo.errors.InputError`; a test
checks the two agree.
"""

from __future__ import annotations

import h3

from bellica.geo.errors import InputError

__all__ = ["grid_distance"]


def grid_distance(a: str, b: str) -> int:
    """Distance in hexes (H3 grid distance); raises InputError when H3 cannot measure it."""
    try:
        return h3.grid_distance(a, b)
    except h3.H3BaseException as e:
        raise InputError(f"cannot measure the hex distance from {a} to {b}: {e}") from e
