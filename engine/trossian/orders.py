"""A nation's orders as the players give them: the names they type (:func:`nation_named`,
:func:`place_named`), an order's input resolved to the scenario's spelling (what the log records),
an order carried out by the rules, and the orders stored for a round (``tr_orders``)."""

from __future__ import annotations

import json
from typing import Mapping

from bellica.engine.core.names import matches as _match
from bellica.engine.core.names import named
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.files import whole_number

from dataclasses import replace

from . import couriers as couriers_mod
from . import movement, navies
from .calendar import label
from .dice import Dice
from .model import GameState, Scenario
from .rules import Rules

__all__ = ["ALLY_PHASES", "NATION_STEPS", "ORDER_KINDS", "nation_named", "place_named"]

#: The orders a nation gives in the orders phase (sealed, carried out by ``resolve``).
ORDER_KINDS = ("march", "sail", "courier", "army")
#: Every step a nation takes (the others are the umpire's).
NATION_STEPS = ORDER_KINDS + ("done", "bank", "recruit")
#: The phases a nation may offer, accept or break an alliance in (the ``ally`` step).
ALLY_PHASES = ("orders", "winter")


def nation_named(c, name: str, where: str = "--nation") -> str:
    return named(name, list(c.board.nations), where, "no nation of this campaign")


def place_named(scenario: Scenario, name: str, where: str, *, lanes: bool = False, provinces: bool = True) -> str:
    options = (list(scenario.provinces) if provinces else []) + (list(scenario.lanes) if lanes else [])
    what = "a province" + (" or a sea lane" if lanes else "") if provinces else "a sea lane"
    return named(name, options, where, f"not {what} of this campaign")


#: The titles that make an addressee a person the engine cannot check (``General Rtishchev``): a
#: king writes to his generals and governors by name; anyone else must be an army or a place.
TITLES = ("general", "governor", "admiral", "marshal", "colonel", "prince", "count", "pasha", "hospodar", "khan")


def _addressee(scenario: Scenario, state, nation: str, to: str) -> str:
    """Whom a courier's message is for: one of the nation's armies (``army N``, or the army's name),
    a place of the campaign (a province or town), or a person by title and name (:data:`TITLES`).
    Anything else (``Atlantis``, ``army 999``, ``army -1``) is refused in one line."""
    armies = {a.id: a for a in state.armies if a.nation == nation}
    words = to.split()
    if len(words) == 2 and words[0].lower() == "army" and whole_number(words[1]) in armies:
        return f"army {whole_number(words[1])}"
    if len(words) >= 2 and words[0].lower() in TITLES and words[0].lower() != "army":
        return " ".join(words)
    named = _match(to, list(dict.fromkeys([a.name for a in armies.values() if a.name] + list(scenario.provinces)
                                          + list(scenario.towns))))
    if len(named) == 1 and not (words and words[0].lower() == "army" and to.lower() not in (n.lower() for n in named)):
        return named[0]
    ours = ", ".join(f"army {n}" for n in sorted(armies)) or "none"
    raise InputError(f"--to {to!r} is not one of {nation}'s armies ({ours}, or an army's name), a place of this "
                     f"campaign, nor a person by title (General NAME, Governor NAME, ...): give one of those")


def _words(order) -> str:
    from .couriers import order_words

    return order_words(order)


def _order_for(scenario: Scenario, state: GameState, rules: Rules | None, nation: str, to: str,
               text: str) -> tuple[str, list[str]]:
    """("army N", the order) of ``--order TEXT`` for addressee ``to``: ``march P, P, ...`` (the
    provinces to enter, in order, each bordering the one before; as many phases as it takes) or
    ``hold`` or ``embark``.  Only an army takes an order, and only where orders travel by courier."""
    if rules is not None and not rules.options.couriers_carry_orders:
        raise InputError("--order: in this campaign armies obey orders as given (options.couriers_carry_orders "
                         "is off): give a march order instead")
    army = next((a for a in state.armies if a.nation == nation and (f"army {a.id}" == to or (a.name and a.name == to))), None)
    if army is None:
        ours = ", ".join(f"army {a.id}" for a in state.armies if a.nation == nation) or "none"
        raise InputError(f"--order is for an army: give --to one of {nation}'s armies ({ours}), not {to!r}")
    verb, _, rest = text.partition(" ")
    verb = named(verb.strip(), list(ORDER_VERBS), "--order", "no order an army takes")
    places = [place_named(scenario, p.strip(), "--order") for p in rest.split(",") if p.strip()]
    if verb in ("hold", "embark"):
        if places:
            raise InputError(f"--order {text!r}: {verb} takes no province: give --order {verb}")
        return f"army {army.id}", [verb]
    if not places:
        raise InputError(f"--order {text!r}: give the provinces to enter: --order \"march P, P\"")
    for a, b in zip(places[:-1], places[1:]):
        if not scenario.adjacent(a, b):
            raise InputError(f"--order {text!r}: {b} does not border {a}: give neighbouring provinces in order")
    return f"army {army.id}", ["march", *places]


#: The orders a courier carries to an army (options.couriers_carry_orders): march along a route,
#: hold, or board the nation's navy that calls for it (navies.navy_actions ``embark``).
ORDER_VERBS = ("march", "hold", "embark")


def _town_named(scenario: Scenario, name: str, where: str) -> str:
    return named(name, list(scenario.towns), where, "not a town of this campaign")


def _own(state: GameState, what: str, ident: int, nation: str):
    getter = {"army": state.army, "navy": state.navy, "courier": state.courier}[what]
    try:
        thing = getter(int(ident))
    except KeyError:
        mine = [x.id for x in {"army": state.armies, "navy": state.navies, "courier": state.couriers}[what]
                if x.nation == nation]
        raise InputError(f"--{what} {ident}: no such {what}: {nation}'s are {', '.join(map(str, mine)) or 'none'}") from None
    if thing.nation != nation:
        raise InputError(f"--{what} {ident} is {thing.nation}'s, not {nation}'s")
    return thing


_NAVY_VERBS = ("sail", "put_in", "lie_off", "put_out", "embark", "disembark")


def _resolve_order(scenario: Scenario, state: GameState, kind: str, nation: str, arg: Mapping,
                   rules: Rules | None = None) -> dict:
    """The order's input with every name spelled as the scenario spells it (what the log records)."""
    if kind == "march":
        army = _own(state, "army", arg["army"], nation)
        path = [place_named(scenario, p, "--to") for p in arg.get("path") or ()]
        if not path:
            raise InputError("march: give the provinces to pass, in order: --to P [--to P ...]")
        return {"nation": nation, "army": army.id, "path": path}
    if kind == "sail":
        return _resolve_sail(scenario, state, nation, arg)
    if kind == "courier":
        return _resolve_courier(scenario, state, nation, arg, rules)
    if kind == "army":
        return _resolve_army(state, nation, arg)
    raise BellicaError(f"no order kind {kind!r}")


def _resolve_sail(scenario: Scenario, state: GameState, nation: str, arg: Mapping) -> dict:
    navy = _own(state, "navy", arg["navy"], nation)
    actions = [_navy_action(scenario, a) for a in arg.get("actions") or ()]
    if not actions:
        raise InputError("sail: give the navy's actions in order: --do sail:LANE --do put_in:TOWN ...")
    return {"nation": nation, "navy": navy.id, "actions": actions}


def _navy_action(scenario: Scenario, a) -> list:
    """One navy action, ``verb:object`` or ``[verb, object]``, as ``[verb, object]`` with the object named
    as the scenario spells it (put_out has no object)."""
    verb, *rest = a if isinstance(a, (list, tuple)) else str(a).split(":", 1)
    verb = str(verb).strip().replace("-", "_")
    if verb not in _NAVY_VERBS:
        raise InputError(f"--do {a!r}: give one of {', '.join(v + (':X' if v != 'put_out' else '') for v in _NAVY_VERBS)}")
    if verb == "put_out":
        if rest and str(rest[0]).strip():
            raise InputError(f"--do {a!r}: put_out takes nothing after it: give --do put_out")
        return [verb]
    if not rest or not str(rest[0]).strip():
        raise InputError(f"--do {verb}: give its object ({verb}:NAME)")
    obj = str(rest[0]).strip()
    if verb == "sail":
        obj = place_named(scenario, obj, "--do sail:", lanes=True, provinces=False)
    elif verb == "put_in":
        obj = _town_named(scenario, obj, "--do put_in:")
    elif verb == "lie_off":
        obj = place_named(scenario, obj, "--do lie_off:")
    else:
        if whole_number(obj) is None:  # ASCII digits only: "²".isdigit() is True, int("²") fails
            raise InputError(f"--do {verb}:{obj}: give an army's number")
        obj = whole_number(obj)
    return [verb, obj]


def _resolve_courier(scenario: Scenario, state: GameState, nation: str, arg: Mapping, rules: Rules | None) -> dict:
    courier = _own(state, "courier", arg["courier"], nation)
    action = arg.get("action")
    if action == "send":
        order = arg.get("order") or ""  # an army's order, carried in the message
        if isinstance(order, (list, tuple)):  # as the log records it (re-adjudication gives it again)
            order = _words(order)
        order = str(order).strip()
        if not str(arg.get("to") or "").strip() or not (str(arg.get("message") or "").strip() or order):
            raise InputError("courier send: give --message TEXT (or --order ORDER) and --to WHOM")
        to = _addressee(scenario, state, nation, str(arg["to"]).strip())
        out = {"nation": nation, "courier": courier.id, "action": "send", "to": to}
        if order:
            out["to"], out["order"] = _order_for(scenario, state, rules, nation, to, order)
        out["message"] = str(arg.get("message") or "").strip() or _words(out["order"])
        return out
    if action == "move":
        path = [place_named(scenario, p, "--via", lanes=True) for p in arg.get("path") or ()]
        if not path:
            raise InputError("courier move: give the provinces and lanes to pass: --via P [--via P ...]")
        return {"nation": nation, "courier": courier.id, "action": "move", "path": path}
    if action == "deliver":
        return {"nation": nation, "courier": courier.id, "action": "deliver"}
    raise InputError(f"courier action {action!r}: give send, move or deliver")


def _resolve_army(state: GameState, nation: str, arg: Mapping) -> dict:
    army = _own(state, "army", arg["army"], nation)
    action = arg.get("action")
    if action == "merge":
        others = [_own(state, "army", x, nation).id for x in arg.get("with") or ()]
        if not others:
            raise InputError("army merge: give the armies joining it: --with ARMY [--with ARMY ...]")
        return {"nation": nation, "army": army.id, "action": "merge", "with": others}
    if action == "detach":
        units = [int(u) for u in arg.get("units") or ()]
        if not units:
            raise InputError("army detach: give the units leaving it: --unit ID [--unit ID ...]")
        return {"nation": nation, "army": army.id, "action": "detach", "units": units,
                "name": str(arg.get("name") or "")}
    if action in ("hold", "home"):
        return {"nation": nation, "army": army.id, "action": action}
    raise InputError(f"army action {action!r}: give merge, detach, hold or home")


def _apply_order(scenario: Scenario, state: GameState, rules: Rules, dice: Dice, kind: str, a: Mapping):
    """Carry out one resolved order (InputError where the rules refuse it)."""
    if kind == "march":
        if rules.options.couriers_carry_orders:
            return _king_march(scenario, state, rules, int(a["army"]), list(a["path"]))
        return movement.move_army(scenario, state, rules, int(a["army"]), list(a["path"]))
    if kind == "sail":
        return navies.navy_actions(scenario, state, rules, int(a["navy"]), [tuple(x) for x in a["actions"]])
    if kind == "army":
        if a["action"] == "merge":
            return movement.merge(state, [int(a["army"]), *(int(x) for x in a["with"])])
        if a["action"] == "detach":
            return movement.detach(state, int(a["army"]), [int(u) for u in a["units"]], a.get("name", ""))
        return movement.set_standing(state, int(a["army"]), a["action"])
    if a["action"] == "send":
        return couriers_mod.send_courier(scenario, state, a["nation"], int(a["courier"]), a["message"], a["to"],
                                         a.get("order", ()))
    if a["action"] == "move":
        return couriers_mod.move_courier(scenario, state, rules, int(a["courier"]), list(a["path"]), dice)
    return couriers_mod.deliver(state, int(a["courier"]), label(rules, state))


def _king_march(scenario: Scenario, state: GameState, rules: Rules, army_id: int, path: list[str]):
    """A march given straight by the king (options.couriers_carry_orders): only an army under his
    hand (:func:`movement.local_command`) takes it, as a march of this phase (checked as every
    march is); it is then the order the army obeyed, and arrived, it holds."""
    army = state.army(army_id)
    capital = scenario.nations[army.nation].capital
    if not movement.local_command(scenario, rules, army) and not army.moved:  # (moved: move_army says so)
        where = f"aboard navy {army.aboard}" if army.aboard else f"in {army.province}"
        where = "with its king, but takes his orders by courier (options.local_command = none)" \
            if (army.province, army.aboard) == (capital, 0) else f"{where}, away from its king in {capital}"
        raise InputError(f"army {army_id} ({army.nation}) is {where}: it obeys only "
                         f"orders a courier brings: courier send --courier N --to \"army {army_id}\" "
                         f"--order \"march {', '.join(path)}\", then move and deliver it")
    state, events = movement.move_army(scenario, state, rules, army_id, path)
    done = replace(state.army(army_id), order=("hold",), order_from=f"the king in {capital}, {label(rules, state)}")
    return state.with_armies(done), events


class _SafeRoads(Dice):
    """The dice an order is checked with when given: every courier gets through (the highest
    face), so checking an order neither draws nor reveals a roll the resolution will make."""

    def roll(self, sides: int, *label: object) -> int:
        return sides


def _orders_of(snap: Snapshot, rnd: int, nation: str | None = None) -> list[tuple[str, int, str, dict]]:
    """(nation, seq, kind, input) of round ``rnd``'s stored orders, by nation then seq."""
    return sorted((r[1], int(r[2]), r[3], json.loads(r[4])) for k, r in snap.tables["tr_orders"].items()
                  if k[0] == rnd and (nation is None or k[1] == nation))
