"""Orders by clicking the map, for every ruleset that declares its steps: what may be clicked, and
the engine's own verdict on each click, before anything is sent.

Nothing here knows a ruleset.  What a step's parameter may be given on the map follows from two
things the ruleset already says for its page: the values it offers the viewer now
(:meth:`~bellica.engine.core.ruleset.Ruleset.choices`: the viewer's own commands or armies, the
places of the map, the powers Rome may attack) and the viewer's player view (its map layers, the
one place the ruleset decides what the viewer may see).  A feature of the view *stands for* an
offered value when one of its properties is that value (a text anywhere, a number only under the
parameter's own name or ``id``: an army's number is not its strength); of the layers, the one whose
features stand for the most values is the parameter's (a place's dot, a province's area, an army's
counter; Rome's attack target, a power, is any province of that power).  A feature's place is its
geometry, so a path's start is where the chosen force stands and the places next to the last one
are those joined to it by a line of the view (a node map's paths) or bordering it (provinces).

The verdict is the step's own: its input parsed as a submitted form's
(:func:`~bellica.engine.core.steps.parse_input`) and run as the signed-in viewer with
:func:`~bellica.engine.core.stepped.dry_run` (the ruleset's position check and pure rule; nothing
logged, nothing written).  Only the step's acceptance or its one-line refusal is answered, never
the events it would log (they may hold dice not yet due to anyone); a refusal is the line the
viewer would read on submitting the same form, so the preview tells a player nothing a refused
submission would not, and only steps the viewer may take now are previewed.  A number the
ruleset does not offer the viewer (another side's command, whose number that side keeps hidden)
is refused before the step runs at all.  What a click reads of the position (the player view,
the offered values, their targets, the open steps) is read once per viewer and log head
(:class:`Look`): the next click of a path finds it ready, the page's own view included.

=============================  ===============  ============================================
``GET /api/step-map?step=S``   anyone signed in  step ``S``'s parameters that may be clicked on
                                                 the map: each with its targets (value, label,
                                                 a point or outline in lat/lon)
``GET /api/step-preview``      anyone signed in  ``step``, the form's fields by name (a list
                                                 field repeated), and optionally ``click`` (a
                                                 parameter) and ``value``: the verdict, the
                                                 fields with the click applied unless refused,
                                                 and which next clicks the step accepts (for
                                                 the field ``focus``, if named)
=============================  ===============  ============================================
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bellica.app.server import HttpError, _guarded, _identify
from bellica.app.tokens import Identity
from bellica.app.views import position_key, view_of
from bellica.geo.recent import Recent

__all__ = ["Look", "Target", "look_of", "map_params", "preview", "routes", "targets_of", "verdict"]

#: At most this many dry runs for the places a next click may take (a node map's neighbours are
#: a handful; a parameter whose place has no known neighbours tries every target up to this).
MAX_TRIES = 40
#: Outlines sent to the page are simplified to this many degrees (about 1 km): a click target, not a map.
SIMPLIFY_DEG = 0.01
#: Geometries closer than this (degrees) border each other (provinces cut from one grid touch exactly).
TOUCH_DEG = 1e-6
BOTH = ("player", "umpire")


@dataclass(frozen=True)
class Target:
    """A feature of the viewer's map standing for ``value`` of a parameter."""

    value: str
    label: str
    geometry: Any
    layer: str


class Look:
    """What previews read of the viewer's position, each once: the player view, the values the
    ruleset offers and their targets on the map.  Kept across requests while the campaign's log
    head stays (the next click of a path reads the same position), per viewer."""

    def __init__(self, c, viewer: str | None, view=None):
        self.c, self.viewer = c, viewer
        self.view = view if view is not None else view_of(c, viewer)
        self._offered: dict[tuple[str, str], Any] = {}
        self._targets: dict[tuple[str, str], list[Target]] = {}
        self._open: frozenset[str] | None = None

    def open_names(self) -> frozenset[str]:
        """The names of the steps the viewer may take now (the ruleset's :meth:`open_actions`)."""
        if self._open is None:
            self._open = frozenset(a.name for a in self.c.ruleset.open_actions(self.c, self.viewer))
        return self._open

    def offered(self, action, param):
        key = (action.name, param.name)
        if key not in self._offered:
            self._offered[key] = self.c.ruleset.choices(self.c, self.viewer, action, param)
        return self._offered[key]

    def targets(self, action, param) -> list[Target]:
        key = (action.name, param.name)
        if key not in self._targets:
            offered = self.offered(action, param)
            self._targets[key] = targets_of(self.view, param.name, offered) if offered and param.kind != "flag" else []
        return self._targets[key]


#: Looks kept, by (campaign file, viewer, log head): the newest few.
LOOKS_KEPT = 8
_LOOKS = Recent(LOOKS_KEPT)


def look_of(c, viewer: str | None, view=None) -> Look:
    """The viewer's :class:`Look` at the campaign's position now (made anew once the log moved on);
    ``view``: the viewer's player view there, if already made (the page's own)."""
    key = position_key(c, viewer)
    look = _LOOKS.get(key) if key is not None else None
    if look is None:
        look = Look(c, viewer, view)
        if key is not None:
            _LOOKS.put(key, look)
    look.c = c  # this request's connection: the position is the same
    return look


# --- what may be clicked: the offered values found on the viewer's map -----------------------------


def _value_of(props: Mapping[str, Any], param_name: str, wanted: set[str]) -> str | None:
    """The first of ``props``' values that is ``wanted`` (a number only under the parameter's name or ``id``)."""
    for key, v in props.items():
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, str) or (isinstance(v, int) and key in (param_name, "id")):
            if str(v) in wanted:
                return str(v)
    return None


def targets_of(view, param_name: str, offered: Sequence[Any]) -> list[Target]:
    """The features of ``view`` standing for ``offered`` values, all from the one layer standing for
    the most of them; none when no layer stands for any."""
    wanted = {str(v) for v in offered}
    best: tuple[tuple, list[Target]] | None = None
    for layer in view.layers:
        if not any(k in layer.geometry_type for k in ("Point", "Polygon")):
            continue
        hits = []
        for f in layer.features:
            value = _value_of(f.properties, param_name, wanted) if f.geometry is not None else None
            if value is not None and not f.geometry.is_empty:
                hits.append(Target(value, f.label or value, f.geometry, layer.name))  # a counter's text is its strength
        values = {t.value for t in hits}
        # the most values; then areas (a province to click, rather than a marker in it); then a
        # layer of those very things (one feature a value: a node's dot, not the counters on it)
        key = (len(values), "Polygon" in layer.geometry_type, len(values) == len(hits), len(hits))
        if hits and (best is None or key > best[0]):
            best = (key, hits)
    return best[1] if best else []


def _latlon(coords) -> list[list[float]]:
    return [[round(y, 5), round(x, 5)] for x, y, *_ in coords]


def shape_of(geometry) -> dict:
    """A geometry as the page draws it: ``at`` (a point inside, lat/lon) and, for an area, its outlines."""
    at = geometry.representative_point() if geometry.geom_type != "Point" else geometry
    out: dict[str, Any] = {"at": [round(at.y, 5), round(at.x, 5)]}
    if "Polygon" in geometry.geom_type:
        simple = geometry.simplify(SIMPLIFY_DEG, preserve_topology=True)
        polys = getattr(simple, "geoms", [simple])
        out["rings"] = [_latlon(p.exterior.coords) for p in polys if not p.is_empty]
    return out


def map_params(look: Look, action) -> list[dict]:
    """The parameters of ``action`` the viewer may fill by clicking the map, in the declaration's
    order, each with its targets (an offered value with no feature on the map stays typed only)."""
    out = []
    for p in action.params:
        found = look.targets(action, p)
        if found:
            out.append({"name": p.name, "many": p.many, "required": p.required, "layer": found[0].layer,
                        "targets": [{"value": t.value, "label": t.label, **shape_of(t.geometry)} for t in found]})
    return out


# --- the engine's verdict -------------------------------------------------------------------------


def _open_action(look: Look, name: str):
    """The declared step ``name`` if the viewer may take it now (a 409 naming the step otherwise)."""
    action = look.c.ruleset.action(name)
    if action.name not in look.open_names():
        raise HttpError(409, f"{name} is not a step you may take now: the page lists those you may")
    return action


def _unoffered(look: Look | None, action, typed: Mapping[str, Any]) -> None:
    """Refuse a number the ruleset does not offer the viewer (a command's, an army's): the preview
    never runs the step on another side's counter, whose number may be hidden from the viewer."""
    from bellica.engine.core.steps import ParamError

    for p in action.params if look is not None else ():
        offered = look.offered(action, p) if p.kind == "whole" else None
        if offered is None or typed.get(p.name) in (None, []):
            continue
        mine = {str(o) for o in offered}
        for v in typed[p.name] if p.many else [typed[p.name]]:
            if str(v) not in mine:
                raise ParamError(p, f"{v} is not one the page offers you now ({', '.join(map(str, offered)) or 'none'}): "
                                    "choose one of those")


def verdict(c, ident: Identity, action, given: Mapping[str, Any], look: Look | None = None) -> dict:
    """The step's own verdict on ``given`` (its fields as typed), as ``ident``: ``{"ok": True}``, or
    ``{"ok": False, "refused": line, "param": the field it names or ""}``; nothing is written.
    With ``look``, a number not offered to the viewer is refused first (:func:`_unoffered`)."""
    from bellica.app.step_forms import _actor
    from bellica.engine.core.stepped import dry_run
    from bellica.engine.core.steps import ParamError, parse_input
    from bellica.geo.errors import BellicaError

    ruleset = c.ruleset
    try:
        actor = _actor(c, ident, action, given)
        typed = parse_input(action, given, ruleset.factions(c), ruleset.faction_flag.lstrip("-"))
        _unoffered(look, action, typed)
        dry_run(action.run, c, actor, **typed)
    except HttpError as err:
        return {"ok": False, "refused": err.message, "param": ""}
    except ParamError as err:
        return {"ok": False, "refused": str(err), "param": err.param.name}
    except BellicaError as err:
        return {"ok": False, "refused": str(err).replace("CAMPAIGN", c.path.name), "param": ""}
    return {"ok": True}


def _blank(value: Any) -> bool:
    return not [v for v in (value if isinstance(value, list) else [value]) if str(v or "").strip()]


def _with(given: Mapping[str, Any], param, value: str) -> dict:
    """``given`` with ``value`` clicked for ``param``: added to a list's values, or set."""
    out = dict(given)
    if param.many:
        now = out.get(param.name)
        items = [v for v in (now if isinstance(now, list) else str(now or "").splitlines()) if str(v).strip()]
        out[param.name] = [*items, value]
    else:
        out[param.name] = value
    return out


def _only_unfilled(v: dict, given: Mapping[str, Any], clicked: str) -> bool:
    """Whether refusal ``v`` only says a field other than ``clicked`` is still to be filled in."""
    return not v["ok"] and v["param"] not in ("", clicked) and _blank(given.get(v["param"]))


def _values(given: Mapping[str, Any], param) -> list[str]:
    now = given.get(param.name)
    if param.many:
        items = now if isinstance(now, list) else str(now or "").splitlines()
        return [str(x).strip() for x in items if str(x).strip()]
    return [str(now).strip()] if not _blank(now) else []


# --- where a path goes next: the view's geometry ----------------------------------------------------


def _nearest(targets: Sequence[Target], geometry) -> str | None:
    """The target value whose place holds ``geometry`` (or lies nearest it)."""
    if not targets:
        return None
    return min(targets, key=lambda t: t.geometry.distance(geometry)).value


def _anchor(look: Look, action, param, given: Mapping[str, Any], targets: Sequence[Target]):
    """Where the next place of ``param`` goes on from: ``(place, geometry)``.  A list's last place;
    else the force chosen in an earlier field: a counter stands on a place (the nearest target),
    an area is itself where it goes from (a province attacked from).  ``(None, None)``: nowhere known."""
    by_value = {t.value: t for t in targets}
    values = _values(given, param)
    if param.many and values and values[-1] in by_value:
        return values[-1], by_value[values[-1]].geometry
    for p in action.params:
        if p.name == param.name:
            break
        chosen = _values(given, p)
        force = [t for t in look.targets(action, p) if t.value == chosen[-1]] if chosen else []
        if not force:
            continue
        g = force[0].geometry
        if g.geom_type == "Point":
            start = _nearest(targets, g) if param.many else None
            return start, (by_value[start].geometry if start else g)
        return None, g
    return None, None


def _neighbours(view, targets: Sequence[Target], start: str | None, anchor) -> list[str]:
    """The targets next to ``start`` (joined to it by a line of the view naming both) or bordering
    the ``anchor`` area; in the targets' order."""
    wanted = {t.value for t in targets}
    out: set[str] = set()
    if start is not None:
        for layer in view.layers:
            if "LineString" not in layer.geometry_type:
                continue
            for f in layer.features:
                named = {str(v) for v in f.properties.values() if isinstance(v, str)} & wanted
                if start in named:
                    out |= named - {start}
    if anchor is not None and "Polygon" in anchor.geom_type:
        near = anchor.buffer(TOUCH_DEG)
        out |= {t.value for t in targets
                if t.value != start and not t.geometry.equals(anchor) and near.intersects(t.geometry)}
    return [v for v in dict.fromkeys(t.value for t in targets) if v in out]


def _next_param(action, names: Sequence[str], given: Mapping[str, Any], after: str | None):
    """The map parameter (of ``names``) the next click fills: a list clicked goes on; else the first
    left blank (or a list)."""
    by_name = {p.name: p for p in action.params}
    if after in by_name and by_name[after].many:
        return by_name[after]
    for name in names:
        if _blank(given.get(name)) or by_name[name].many:
            return by_name[name]
    return None


def _starts(look: Look, action, given: Mapping[str, Any]) -> dict[str, str]:
    """Where each list of places on the map starts (the force's place), for the page to draw the path from."""
    out = {}
    for p in action.params:
        targets = look.targets(action, p) if p.many else []
        start = _anchor(look, action, p, {**given, p.name: []}, targets)[0] if targets else None
        if start is not None:
            out[p.name] = start
    return out


def _reach(look: Look, ident: Identity, action, param, given: Mapping[str, Any]) -> dict:
    """Which values of ``param`` the step accepts as the next click: the places next to where it goes
    on from (every target when that is not known), each tried by the step itself."""
    targets = look.targets(action, param)
    start, anchor = _anchor(look, action, param, given, targets)
    near = _neighbours(look.view, targets, start, anchor) if anchor is not None else []
    candidates = (near or list(dict.fromkeys(t.value for t in targets)))[:MAX_TRIES]
    reach, refused = [], {}
    for value in candidates:
        tried = _with(given, param, value)
        v = verdict(look.c, ident, action, tried, look)
        if v["ok"] or _only_unfilled(v, tried, param.name):
            reach.append(value)
        else:
            refused[value] = v["refused"]
    return {"param": param.name, "start": start, "reach": reach, "refused": refused}


def preview(c, ident: Identity, name: str, given: Mapping[str, Any], click: str | None = None,
            value: str | None = None, focus: str | None = None) -> dict:
    """The engine's word on step ``name`` as typed (``given``) and, with ``click``/``value``, on that
    click: refused there with the step's own line (the fields kept as they were), or added; then
    which places the next click may take (``next``: for field ``focus`` if named, a field a
    click goes on filling, or the first left blank)."""
    from bellica.app.step_forms import viewer_of

    look = look_of(c, viewer_of(ident))
    action = _open_action(look, name)
    by_name = {p.name: p for p in action.params}
    out: dict[str, Any] = {"step": action.name}
    whole = None
    if click:
        if click not in by_name or _blank(value):
            raise HttpError(400, f"click {click!r}: name one of {', '.join(by_name) or 'no field'} of {name} "
                                 "with its value (click=FIELD&value=VALUE)")
        tried = _with(given, by_name[click], str(value).strip())
        v = verdict(c, ident, action, tried, look)
        if v["ok"] or _only_unfilled(v, tried, click):
            given, whole = tried, v
            out["click"] = {"param": click, "value": str(value).strip()}
        else:
            out["click"] = {"param": click, "value": str(value).strip(), "refused": v["refused"]}
    out["fields"] = {p.name: _values(given, p) if p.many else "\n".join(_values(given, p)) for p in action.params
                     if p.kind != "flag"}
    out["verdict"] = whole or verdict(c, ident, action, given, look)
    out["starts"] = _starts(look, action, given)
    params = [m for m in action.params if look.targets(action, m)]
    clicked = click if "refused" not in out.get("click", {}) else None
    nxt = by_name.get(focus) if focus in {m.name for m in params} else \
        _next_param(action, [m.name for m in params], given, clicked)
    if nxt is None and params:  # every field filled: the one clicked (else the last) may be clicked again
        nxt = by_name.get(clicked) or params[-1]
    if nxt is not None:
        out["next"] = _reach(look, ident, action, nxt, given)
    return out


# --- the routes -------------------------------------------------------------------------------------


def _given(request: Request) -> tuple[str, dict[str, Any], str | None, str | None, str | None]:
    """``step``, the form's fields (a field repeated: a list), ``click``, ``value`` and ``focus`` of the query."""
    fields: dict[str, Any] = {}
    for key, v in request.query_params.multi_items():
        if key in ("step", "click", "value", "focus", "csrf"):
            continue
        now = fields.get(key)
        fields[key] = [*now, v] if isinstance(now, list) else ([now, v] if key in fields else v)
    q = request.query_params
    if not q.get("step"):
        raise HttpError(400, "name the step to preview: ?step=NAME (one of the page's forms)")
    return q["step"], fields, q.get("click"), q.get("value"), q.get("focus")


def _json(value) -> JSONResponse:
    return JSONResponse(json.loads(json.dumps(value, default=str)))


def routes(access) -> list[Route]:
    """``/api/step-map`` and ``/api/step-preview`` of a campaign served through ``access``."""
    from bellica.app.step_forms import viewer_of

    def read(request: Request, fn) -> Response:
        def go():
            step, fields, click, value, focus = _given(request)
            with access.open() as c:
                c.require_state()
                return _json(fn(c, _identify(c, request, BOTH), step, fields, click, value, focus))
        return _guarded(request, go)

    def step_map(c, ident, step, _fields, _click, _value, _focus):
        look = look_of(c, viewer_of(ident))
        action = _open_action(look, step)
        return {"step": action.name, "params": map_params(look, action)}

    async def map_endpoint(request: Request) -> Response:
        return await run_in_threadpool(read, request, step_map)

    async def preview_endpoint(request: Request) -> Response:
        return await run_in_threadpool(read, request, preview)

    from bellica.app.key_preview import static_script

    return [Route("/static/steps_map.js", static_script("steps_map.js"), methods=["GET"]),
            Route("/static/map_frame.js", static_script("map_frame.js"), methods=["GET"]),
            Route("/api/step-map", map_endpoint, methods=["GET"]),
            Route("/api/step-preview", preview_endpoint, methods=["GET"])]
