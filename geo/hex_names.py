"""A hex written as players name it, read back to its H3 cell: an H3 id of the map, or a structure's
name followed by clock steps from it ("Gela 5 3").

Every hex is named here (:func:`name_hexes`: the nearest structure, then the clock walk from it),
for the maps' tooltips (``bellica.web_maps.play_aids``) and the words of a Vae Victis page and move
preview (``bellica.engine.vae_victis.move_preview``) alike, and an umpire's administration choice
may give a hex that way (``bellica.engine.vae_victis.hex_names``).  Both read a name back here, the
one reader, each from the tables it already holds: the map's cells, each hex's neighbour across
each clock side, and the structures' cells.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Callable, Container, Mapping

from bellica.geo.errors import InputError

__all__ = ["name_hexes", "read_hex_name"]

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


def name_hexes(cells, sides: Mapping[str, list[tuple[int, str]]], structures: list[tuple[str, str]]) -> dict[str, str]:
    """cell -> its name (module doc): a structure's hex its name, then breadth first from the
    structures, each neighbour across clock side ``k`` named ``"<name> k"``; a cell no walk reaches,
    its H3 id.  ``sides``: cell -> [(clock, neighbour)] in clock order; ``structures``: (name, cell)."""
    on_map = set(cells)
    names: dict[str, str] = {}
    queue = deque()
    for name, cell in sorted(structures):
        if cell in on_map and cell not in names:
            names[cell] = name
            queue.append(cell)
    while queue:
        cell = queue.popleft()
        for clock, nbr in sides.get(cell, ()):
            if nbr in on_map and nbr not in names:
                names[nbr] = f"{names[cell]} {clock}"
                queue.append(nbr)
    for cell in on_map:
        names.setdefault(cell, cell)
    return names
