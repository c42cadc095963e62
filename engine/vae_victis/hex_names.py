"""Hexes written as players name them: a structure and clock steps from it ("Gela 5 3").

The maps' tooltips name every hex so (bellica.web_maps.play_aids names them: nearest structure,
then the clock walk from it); an administration choice may give a hex that way, and this module
reads it back to its H3 cell from the campaign's ``hexes``, ``hex_neighbors`` (the engine's clock
numbering) and ``structures``, as play_aids.HexNames.resolve does (the engine does not import the
maps; both read it with bellica.geo.hex_names).  Clock positions, structure names and cells go to the rules as given.
"""

from __future__ import annotations

import dataclasses
import re

from bellica.geo.hex_names import read_hex_name

__all__ = ["named_hexes", "resolve_hex_name"]

#: A hex name: something not a digit, then clock steps (one or two digits each).
_NAMED = re.compile(r"\D.*\s\d{1,2}\s*$")


class _Names:
    def __init__(self, con):
        self.cells = {c for (c,) in con.execute("SELECT cell FROM hexes").fetchall()}
        self.sides: dict[str, dict[int, str]] = {}
        for cell, nbr, clock in con.execute(
                "SELECT cell, neighbor, clock FROM hex_neighbors ORDER BY cell, clock, neighbor").fetchall():
            self.sides.setdefault(cell, {})[int(clock)] = nbr  # the last, as dict() of the rows keeps it
        self.structures = {name.lower(): cell for name, cell in con.execute(
            "SELECT name, cell FROM structures WHERE cell IS NOT NULL ORDER BY name").fetchall()}

    def resolve(self, text: str, *, where: str) -> str:
        return read_hex_name(text, cells=self.cells, by_clock=lambda cell: self.sides.get(cell, {}),
                             structures=self.structures, where=where)


def resolve_hex_name(con, text: str, *, where: str = "hex") -> str:
    """The H3 cell ``text`` names: an H3 id of the map, or a structure and clock steps."""
    return _Names(con).resolve(text, where=where)


def named_hexes(c, choices):
    """Administration ``choices`` with every hex written as a hex name turned into its H3 cell
    (advances and debarks); clock positions, structure names and cells are kept as given."""
    names = None

    def cells(items: dict, where: str) -> dict:
        nonlocal names
        out = {}
        for army, value in items.items():
            if isinstance(value, str) and _NAMED.match(value.strip()):
                names = names or _Names(c.con)
                value = names.resolve(value, where=f"{where} {army}")
            out[army] = value
        return out

    return dataclasses.replace(choices, advances=cells(choices.advances, "advance of army"),
                               debarks=cells(choices.debarks, "debark of navy"))
