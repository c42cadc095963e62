"""One army's move previewed by the movement step's own code, for a page's map (the ``orders``
step's declared ``preview``), and hexes named as the map names them.

The preview (:func:`preview_orders`, served by a page at ``POST /preview/orders``) answers from
:func:`.order_aids.preview_move`: per step the hex entered by its map name, the MP it costs and
the MP left, road/river/strait, the ZoC stop, the end hex and what the rules say happens there, and
the hexes the army can still enter next (each with its clock and the MP it would cost).  Besides
those facts it gives what the page's generic map script draws (bellica/app/static/keyed_map.js):
``lines`` and ``notes`` to print, the ``path`` of hexes, and each next hex's ``tip``, ``cls`` and the
text a click on it ``append``s to the typed moves.

What the preview may tell (the player view's rule, :mod:`.player_view`): every army's counter is on
the board and every ZoC is public in Vae Victis, so the preview counts the ZoC of every army and
structure where they stand now; it never reads another faction's orders (sealed), strengths or
lines of logistics, and it answers only for an army the signer commands.  Other armies stand still
in the preview: their moves may stop this one earlier, never let it go further.

Hexes are named as the map's tooltips name them (:func:`hex_name`: the nearest structure and the
clock walk from it, the maps' own ``name_hexes`` of geo/hex_names.py), with the H3 id only as a tooltip.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from bellica.engine.core.steps import NotYours

__all__ = ["hex_name", "hex_names", "hex_json", "named", "preview_answer", "preview_inputs", "preview_orders"]


def hex_names(board) -> dict[str, str]:
    """cell -> its name on the map, computed once per board (kept in ``board.derived``).  The names
    are the maps' own (geo/hex_names.py): a page's words must name a hex as its map's tooltip does."""
    names = board.derived.get("app.hex_names")
    if names is None:
        from bellica.geo.hex_names import name_hexes

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


_H3_ID = re.compile(r"\b8[0-9a-f]{14}\b")


def named(c, text: str | None) -> str | None:
    """``text`` with every H3 id replaced by the hex's name on the map (issue 21, item 4)."""
    if not text:
        return text
    names = hex_names(c.board)
    return _H3_ID.sub(lambda m: names.get(m.group(0), m.group(0)), text)


def _outline(board, cell: str) -> list[list[float]]:
    """The hex's corners as [lat, lng] pairs (Leaflet's order), kept with the board."""
    import h3

    cache = board.derived.setdefault("app.outlines", {})
    out = cache.get(cell)
    if out is None:
        out = cache[cell] = [[round(lat, 5), round(lng, 5)] for lat, lng in h3.cell_to_boundary(cell)]
    return out


def hex_json(c, cell: str | None, **extra) -> dict[str, Any] | None:
    """A hex for a page's map script: its cell (for tooltips), map name and outline."""
    if cell is None:
        return None
    return {"cell": cell, "name": hex_name(c, cell), "outline": _outline(c.board, cell), **extra}


def _round(c, read_round):
    """The stored round, read once per open campaign and last event: a plotted move asks again at
    each click, between which nothing usually changes.  A page holds the file open (no other
    process writes it meanwhile, and every write through it logs an event with a higher ``seq``),
    so the open Campaign and its log's last ``seq`` say whether the round kept is still the
    stored one: one light query, where the log head's hash took two (issue 21, item 3)."""
    import weakref

    seq = c.con.execute("SELECT max(seq) FROM events").fetchone()[0]
    kept = c.board.derived.get("app.preview_round")
    if kept is not None and kept[0]() is c and kept[1] == seq:
        return kept[2]
    r = read_round(c)
    c.board.derived["app.preview_round"] = (weakref.ref(c), seq, r)
    return r


def _your_army(r, actor, signer, text):
    """The live army ``text`` names, if the signer commands it; else a one-line refusal."""
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    army = whole_number(str(text).strip())
    if army is None:
        raise InputError(f"army {str(text)[:20]!r} is not an army number")
    a = next((a for a in r.live_armies() if a.id == army), None)
    faction = signer.faction if signer is not None and signer.role == "player" else actor
    mine = a is not None and faction is not None and a.faction == faction and (signer is None or signer.commands(a.faction, a.id))
    if not mine:
        raise NotYours(f"army {army} is not one of your live armies: the preview answers only for your own")
    return a


def preview_inputs(c, actor, key, text, signer=None) -> tuple:
    """What the preview reads of the campaign (under the page's lock): (board, state, army, moves
    or the syntax problem, the faction's logistics road steps)."""
    from bellica.engine.vae_victis.order_form import own_logistics
    from bellica.engine.vae_victis.orders import OrderError, army_orders_from_cli
    from bellica.engine.vae_victis.rounds.machine import read_round

    r = _round(c, read_round)
    a = _your_army(r, actor, signer, key)
    try:
        moves = tuple(army_orders_from_cli(a.id, text or "").moves)
    except OrderError as err:
        moves = err.problems[0]
    return c.board, r.state, a, moves, own_logistics(c, r.state, a.faction)


def preview_orders(c, actor, key, text, signer=None):
    """The ``orders`` step's declared preview: army ``key``'s moves ``text`` so far, as a function
    of no arguments giving the answer: what it reads of the campaign is read now, and the movement
    step's walk, the costly part, runs when the page has let the campaign go."""
    from functools import partial

    if text is None:  # only where the army stands: the page draws it to be clicked
        from bellica.engine.vae_victis.rounds.machine import read_round

        a = _your_army(_round(c, read_round), actor, signer, key)
        start = hex_json(c, a.cell)
        return {"key": str(a.id), "army": a.id, "start": start,
                "start_tip": f"army {a.id} at {start['name'] if start else 'off the map'}: click to plot its move"}
    return partial(preview_answer, *preview_inputs(c, actor, key, text, signer))


def preview_answer(board, state, a, moves, logistics) -> dict[str, Any]:
    """The preview's JSON from :func:`preview_inputs` (pure: runs without the page's lock)."""
    from bellica.engine.vae_victis.order_aids import preview_move

    c = SimpleNamespace(board=board)  # what the naming helpers read
    if not isinstance(moves, tuple):  # a syntax problem
        start = hex_json(c, a.cell)
        return _drawn({"army": a.id, "ok": False, "refused": named(c, str(moves)), "steps": [], "next": [],
                       "reachable": [], "start": start, "end": start, "warnings": [], "moves": None, "unit": "MP"})
    p = preview_move(board, state, a.id, moves, logistics_road_edges=logistics)
    kept = tuple(moves[:(p.refused.index or 1) - 1]) if p.refused else tuple(moves)
    return _drawn({
        "army": a.id, "ok": p.refused is None, "moves": " ".join(map(str, kept)), "by_sea": p.by_sea,
        "unit": "NMP" if p.by_sea else "MP", "budget": p.budget, "spent": p.spent, "left": p.left,
        "start": hex_json(c, p.start), "end": hex_json(c, p.end),
        "refused": named(c, str(p.refused)) if p.refused else None, "halt": named(c, p.halt),
        "warnings": [named(c, w) for w in p.warnings],
        "steps": [{"index": s.index, "clock": s.clock, "cost": s.cost, "why": s.why, "spent": s.spent,
                   "left": max(0, p.budget - s.spent), "made": s.made, "hex": hex_json(c, s.cell),
                   "strait": hex_json(c, s.strait)} for s in p.steps],
        "next": [hex_json(c, n.cell, clock=n.clock, cost=n.cost, refused=named(c, n.refused), then=n.then,
                          strait=hex_json(c, n.strait)) for n in p.next],
        "reachable": [hex_json(c, cell, left=left) for cell, left in sorted(p.reachable.items())],
    })


def _drawn(j: dict[str, Any]) -> dict[str, Any]:
    """``j`` with what the generic map script draws: the words to print, the path, and per next hex
    its tooltip, its classes and the moves a click on it adds (a strait: its two clock moves)."""
    unit, army = j["unit"], j["army"]
    lines = [{"text": f"clock {s['clock']}: {s['hex']['name'] if s['hex'] else 'stands still'}"
                      + (f" (across the strait at {s['strait']['name']})" if s["strait"] else "")
                      + f", {s['cost']} {unit} ({s['why']}), {s['left']} left" + ("" if s["made"] else " (not made)"),
              "title": s["hex"]["cell"] if s["hex"] else ""} for s in j["steps"]]
    notes = []
    if j["end"] and j.get("budget") is not None:
        notes.append({"text": f"ends at {j['end']['name']}: {j['spent']} of {j['budget']} {unit} spent, {j['left']} left",
                      "error": False})
    if j.get("halt"):
        notes.append({"text": f"halt: {j['halt']}", "error": True})
    notes += [{"text": f"warning: {w}", "error": True} for w in j["warnings"]]
    if j["refused"]:
        notes.append({"text": f"refused: {j['refused']}", "error": True})
    for n in j["next"]:
        cross = n["then"] is not None
        n["append"] = f"{n['clock']} {n['then']}" if cross else str(n["clock"])
        n["cls"] = f"plot-cross plot-cross-{n['clock']}-{n['then']}" if cross else f"plot-clock-{n['clock']}"
        n["tip"] = ((f"clocks {n['clock']} {n['then']}: across the strait at {n['strait']['name']} to " if cross
                     else f"clock {n['clock']}: ") + n["name"] + (f", {n['cost']} {unit}" if not n["refused"] else f": {n['refused']}"))
    j.update(key=str(army), text=j["moves"], lines=lines, notes=notes,
             path=[j["start"], *(s["hex"] for s in j["steps"] if s["hex"] and s["made"])],
             start_tip=f"army {army} at {j['start']['name']}: click to plot its move",
             end_tip=f"army {army} ends at {j['end']['name']}" + (": click to take back the last move" if j["steps"] else ""))
    return j
