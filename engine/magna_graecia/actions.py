"""Every step of the game as one JSON action: what a ruleset plug-in stores, replays and checks.

``act(state, nmap, rules, dice, {"do": "move", "command": 3, "path": ["Gela"]})`` calls the
step named by ``do`` with the action's fields and returns ``(new_state, events)``.  Actions
are plain JSON (command ids as numbers or strings, losses as ``{"<id>": {"Sp(O)": 2}}``),
so the plug-in can keep them in its log, seal the second-day orders, and replay a season
by feeding the same actions and the recorded rolls back.  :data:`ACTIONS` lists each
action's fields (``?``: optional).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from bellica.geo.errors import InputError

from . import battles, cities, fleets, movement, retreats, sieges, turn
from .dice import Dice
from .model import Event, GameState, NodeMap
from .rules import Rules

__all__ = ["ACTIONS", "act"]


def _ids(v: Any) -> list[int]:
    return [int(x) for x in v]


def _losses(v: Any) -> dict[int, dict[str, int]]:
    return {int(k): {str(e): int(n) for e, n in els.items()} for k, els in (v or {}).items()}


def _choice(v: Any):
    """Drowned elements in the player's order: [[command, element, n], ...] (or a table, as before)."""
    if not v:
        return None
    return _losses(v) if isinstance(v, Mapping) else [(int(k), str(e), int(n)) for k, e, n in v]


#: action -> (fields, the step): the step takes (state, nmap, rules, dice, fields).
ACTIONS: Mapping[str, tuple[tuple[str, ...], Callable[..., tuple[GameState, list[Event]]]]] = {
    "move": (("command", "path"), lambda s, m, r, d, a: movement.move(s, m, r, d, int(a["command"]), list(a["path"]))),
    "exchange": (("from", "to", "elements"),
                 lambda s, m, r, d, a: movement.exchange(s, r, int(a["from"]), int(a["to"]), dict(a["elements"]))),
    "embark": (("commands",), lambda s, m, r, d, a: movement.embark(s, r, _ids(a["commands"]))),
    "disembark": (("commands",), lambda s, m, r, d, a: movement.disembark(s, r, _ids(a["commands"]))),
    "sail": (("path",), lambda s, m, r, d, a: movement.move_fleet(s, m, r, list(a["path"]))),
    "shelter": ((), lambda s, m, r, d, a: movement.shelter(s, m, r)),
    "end_movement": ((), lambda s, m, r, d, a: turn.end_movement(s, m, r, d)),
    "attack_city": (("node", "by?"), lambda s, m, r, d, a: cities.attack_city(s, r, a["node"], by=a.get("by"))),
    "defence": (("node", "defence"), lambda s, m, r, d, a: battles.choose_defence(s, a["node"], a["defence"])),
    "base_edge": (("node", "edge"), lambda s, m, r, d, a: battles.choose_base_edge(s, a["node"], a["edge"])),
    "reorganise": (("node", "from", "to", "elements"),
                   lambda s, m, r, d, a: battles.reorganise_city(s, a["node"], int(a["from"]), int(a["to"]),
                                                                 dict(a["elements"]))),
    "siege": (("node",), lambda s, m, r, d, a: sieges.declare_siege(s, m, r, a["node"])),
    "sally": (("node", "naval?"), lambda s, m, r, d, a: sieges.sally(s, a["node"], naval=bool(a.get("naval", False)))),
    "result": (("node", "winner", "losses?", "open_paths?", "surrendered?", "city_holder?"),
               lambda s, m, r, d, a: battles.enter_result(s, m, r, d, a["node"], a["winner"], _losses(a.get("losses")),
                                                          open_paths=a.get("open_paths"),
                                                          surrendered=_ids(a.get("surrendered") or []),
                                                          city_holder=a.get("city_holder"))),
    "second_day": (("node", "orders"), lambda s, m, r, d, a: battles.second_day(s, m, r, a["node"], dict(a["orders"]))),
    "fleet_battle": (("node", "retreat?", "element_losses?"),
                     lambda s, m, r, d, a: fleets.fleet_battle(s, m, r, d, a["node"], retreat=a.get("retreat"),
                                                               element_losses=_choice(a.get("element_losses")))),
    "retreat": (("command", "path"), lambda s, m, r, d, a: retreats.retreat(s, m, r, int(a["command"]), list(a["path"]))),
    "retreat_fleet": (("side", "path"), lambda s, m, r, d, a: retreats.retreat_fleet(s, m, r, a["side"], list(a["path"]))),
    "end_turn": ((), lambda s, m, r, d, a: turn.end_player_turn(s, m, r)),
    "end_by_agreement": ((), lambda s, m, r, d, a: turn.end_by_agreement(s, r)),
}


def act(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice, action: Mapping[str, Any]) -> tuple[GameState, list[Event]]:
    """Apply one action; a bad one is one line naming the action and the fix."""
    what = action.get("do") if isinstance(action, Mapping) else None
    if what not in ACTIONS:
        raise InputError(f"action {what!r}: give \"do\" as one of {', '.join(ACTIONS)}")
    fields, step = ACTIONS[what]
    missing = [f for f in fields if not f.endswith("?") and f not in action]
    if missing:
        raise InputError(f"action {what}: lacks {', '.join(missing)}: give {', '.join(f.rstrip('?') for f in fields)}")
    known = {f.rstrip("?") for f in fields} | {"do"}
    extra = sorted(set(action) - known)
    if extra:
        raise InputError(f"action {what}: unknown field {extra[0]!r}: give only {', '.join(sorted(known))}")
    try:
        return step(state, nmap, rules, dice, action)
    except (TypeError, ValueError, AttributeError) as err:
        if isinstance(err, InputError):
            raise
        raise InputError(f"action {what}: {err}: give {', '.join(f.rstrip('?') for f in fields)} as JSON values") from None
