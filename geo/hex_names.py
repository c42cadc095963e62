"""A hex written as players name it, read back to its H3 cell: an H3 id of the map, or a structure's
name followed by clock steps from it ("Gela 5 3").

The maps name every hex so (``bellica.web_maps.play_aids``: the nearest structure, then the clock
walk from it), and an umpire's administration choice may give a hex that way
(``bellica.engine.vae_victis.hex_names``).  Both read a name back here, the one reader, each from
the tables it already holds: the map's cells, each hex's neighbour across each clock side, and the
structures' cells.
"""

from __future__ import annotations

import re
from typing import Callable, Container, Mapping

from bellica.geo.errors import InputError

__all__ = ["read_hex_name"]

#: A structure's name, then clock steps (one or two digits each).
_PATH = re.compile(r"^(.*?)((?:\s+\d{1,2})*)\s*$")


def read_hex_name(text: str, *, cells: Container[str], by_clock: Callable[[str], Mapping[int, str]],
                  structures: Mapping[str, str], where: str = "hex") -> str:
    """The H3 cell ``text`` names. ``cells``: the map's cells; ``by_clock(cell)``: its neighbours by
    clock side; ``structures``: lower-case structure name -> cell.  One error line naming ``where``
    and the fix otherwise."""
    raw = str(text).strip()
    if raw.lower() in cells:  # an H3 id of the map
        return raw.lower()
    match = _PATH.match(raw)
    start, path = match.group(1).strip(), match.group(2).split()
    cell = structures.get(" ".join(start.split()).lower())
    if cell is None:
        example = next(iter(sorted(structures)), "roma")
        raise InputError(f"{where} {raw!r} is neither an H3 cell of the map nor a structure's name followed by "
                         f"clock positions: write e.g. '{example.title()} 3 5' (names are in the map's tooltips)")
    for k, step in enumerate(path, 1):
        sides = by_clock(cell)
        if int(step) not in sides:
            have = " ".join(str(c) for c in sorted(sides)) or "none"
            raise InputError(f"{where} {raw!r}: step {k} crosses side {step}, which the hex has no neighbour "
                             f"across (its sides: {have}): use the clock numbers of the map's rose")
        cell = sides[int(step)]
    return cell
