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

import re
from types import SimpleNamespace
from typing import Any

__all__ = ["hex_name", "hex_names", "named", "preview_json", "preview_endpoint"]


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


def hex_json(c, cell: str) -> dict[str, Any]:
    """A hex for the page's map script: its cell (for tooltips), map name and outline."""
    return _hex(c, cell)


def _hex(c, cell: str | None, **extra) -> dict[str, Any] | None:
    if cell is None:
        return None
    return {"cell": cell, "name": hex_name(c, cell), "outline": _outline(c.board, cell), **extra}


def your_army(r, ident, text: str):
    """The live army ``text`` names, if the signed-in player commands it; else a 403/400 one-liner."""
    from bellica.app.server import HttpError

    try:
        army = int(str(text).strip())
    except ValueError:
        raise HttpError(400, f"army {text!r} is not an army number") from None
    a = next((a for a in r.live_armies() if a.id == army), None)
    if a is None or not ident.commands(a):
        raise HttpError(403, f"army {army} is not one of your live armies: the preview answers only for your own")
    return a


def preview_json(c, ident, form: dict[str, str]) -> dict[str, Any]:
    """``POST /api/preview``: the engine's preview of army ``form["army"]``'s ``form["moves"]``."""
    return preview_answer(*preview_inputs(c, ident, form))


def _round(c, read_round):
    """The stored round, read once per open campaign and last event: a plotted move asks again at
    each click, between which nothing usually changes.  The app holds the file open (no other
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


def preview_inputs(c, ident, form: dict[str, str]) -> tuple:
    """What the preview reads of the campaign (under the app's lock): (board, state, army, moves or
    the syntax problem, the faction's logistics road steps)."""
    from bellica.engine.vae_victis.order_form import own_logistics
    from bellica.engine.vae_victis.orders import OrderError, army_orders_from_cli
    from bellica.engine.vae_victis.rounds.machine import read_round

    r = _round(c, read_round)
    a = your_army(r, ident, form.get("army", ""))
    try:
        moves = tuple(army_orders_from_cli(a.id, form.get("moves", "")).moves)
    except OrderError as err:
        moves = err.problems[0]
    return c.board, r.state, a, moves, own_logistics(c, r.state, a.faction)


def preview_answer(board, state, a, moves, logistics) -> dict[str, Any]:
    """The preview's JSON from :func:`preview_inputs` (pure: runs without the app's lock)."""
    from bellica.engine.vae_victis.order_aids import preview_move

    c = SimpleNamespace(board=board)  # what the naming helpers read
    if not isinstance(moves, tuple):  # a syntax problem
        return {"army": a.id, "ok": False, "refused": named(c, str(moves)), "steps": [], "next": [],
                "reachable": [], "start": _hex(c, a.cell), "end": _hex(c, a.cell), "warnings": []}
    p = preview_move(board, state, a.id, moves, logistics_road_edges=logistics)
    kept = tuple(moves[:(p.refused.index or 1) - 1]) if p.refused else tuple(moves)
    return {
        "army": a.id, "ok": p.refused is None, "moves": " ".join(map(str, kept)), "by_sea": p.by_sea,
        "unit": "NMP" if p.by_sea else "MP", "budget": p.budget, "spent": p.spent, "left": p.left,
        "start": _hex(c, p.start), "end": _hex(c, p.end),
        "refused": named(c, str(p.refused)) if p.refused else None, "halt": named(c, p.halt),
        "warnings": [named(c, w) for w in p.warnings],
        "steps": [{"index": s.index, "clock": s.clock, "cost": s.cost, "why": s.why, "spent": s.spent,
                   "left": max(0, p.budget - s.spent), "made": s.made, "hex": _hex(c, s.cell),
                   "strait": _hex(c, s.strait)} for s in p.steps],
        "next": [_hex(c, n.cell, clock=n.clock, cost=n.cost, refused=named(c, n.refused), then=n.then,
                      strait=_hex(c, n.strait)) for n in p.next],
        "reachable": [_hex(c, cell, left=left) for cell, left in sorted(p.reachable.items())],
    }


def preview_endpoint(access):
    """``POST /api/preview`` (a player): :func:`preview_json`, JSON only."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse

    from bellica.app.server import _form, _guarded, _identify

    async def endpoint(request):
        form = await _form(request)

        def go():
            with access.open() as c:
                inputs = preview_inputs(c, _identify(c, request, ("player",)), form)
            return JSONResponse(preview_answer(*inputs))  # the engine's work runs without the campaign's lock
        return await run_in_threadpool(_guarded, request, go)
    return endpoint


def static_script(name: str):
    """``GET /static/NAME``: one of the app's own scripts (``bellica/app/static/``), no CDN."""
    from pathlib import Path

    from starlette.responses import Response

    body = (Path(__file__).with_name("static") / name).read_bytes()

    async def endpoint(_request):
        return Response(body, media_type="text/javascript; charset=utf-8", headers={"Cache-Control": "no-cache"})
    return endpoint
