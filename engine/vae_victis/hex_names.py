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


class _MapCells:
    """The map's cells, asked of ``hexes`` one cell at a time: a name is resolved in a few small
    queries instead of reading the whole map (0.3 s on the Mediterranean at res 5) per name."""

    def __init__(self, con):
        self._con = con

    def __contains__(self, cell: object) -> bool:
        return self._con.execute("SELECT 1 FROM hexes WHERE cell = ?", [str(cell)]).fetchone() is not None


class _Names:
    def __init__(self, con):
        self._con = con
        self.cells = _MapCells(con)
        self.structures = {name.lower(): cell for name, cell in con.execute(
            "SELECT name, cell FROM structures WHERE cell IS NOT NULL ORDER BY name").fetchall()}

    def by_clock(self, cell: str) -> dict[int, str]:
        """``cell``'s neighbours by clock side; of two rows on one side the last in neighbour order,
        as the whole table read in (cell, clock, neighbour) order kept it."""
        return {int(clock): nbr for clock, nbr in self._con.execute(
            "SELECT clock, neighbor FROM hex_neighbors WHERE cell = ? ORDER BY clock, neighbor", [cell]).fetchall()}

    def resolve(self, text: str, *, where: str) -> str:
        return read_hex_name(text, cells=self.cells, by_clock=self.by_clock,
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
