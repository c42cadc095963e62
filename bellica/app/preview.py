"""A Vae Victis move plotted on the map, previewed by the engine as it is drawn (issue 21, item 1).

``POST /api/preview`` (a player; form fields ``army`` and ``moves``, the clock numbers so far)
answers from the movement step's own code (:mod:`bellica.engine.vae_victis.order_aids`): per step
the hex entered by its map name, the MP it costs and the MP left, road/river/strait, the ZoC stop,
the end hex and what the rules say happens there, and the hexes the army can still enter next (each
with its clock and the MP it would cost, for the map to highlight).  It answers only for an army
the signed-in player commands.

What the preview may tell (the player view's rule, ``engine/vae_victis/player_view.py``): every
army's counter is on the board and every ZoC is public in Vae Victis, so the preview counts the
ZoC of every army and structure where they stand now; it never reads another faction's orders
(sealed), strengths or lines of logistics.  Other armies stand still in the preview: their moves
may stop this one earlier, never let it go further.

Hexes are named as the map names them (:func:`hex_name`: the nearest structure and the clock walk
from it, ``bellica.web_maps.play_aids.name_hexes``), with the H3 id only as a tooltip.
"""

from __future__ import annotations

__all__ = ["hex_name", "hex_names"]


def hex_names(board) -> dict[str, str]:
    """cell -> its name on the map, computed once per board (kept in ``board.derived``)."""
    names = board.derived.get("app.hex_names")
    if names is None:
        from bellica.web_maps.play_aids import name_hexes

        sides = {cell: sorted(by_clock.items()) for cell, by_clock in board.sides.items()}
        structures = sorted((s.name, s.cell) for s in board.structures.values() if s.cell is not None)
        names = name_hexes(list(board.hexes), sides, structures)
        board.derived["app.hex_names"] = names
    return names


def hex_name(c, cell: str | None) -> str:
    """The map's name of ``cell`` ("Messana 7"); "off the map" for None."""
    if cell is None:
        return "off the map"
    return hex_names(c.board).get(cell, cell)
