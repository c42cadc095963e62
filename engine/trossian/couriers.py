"""Couriers: the kings' orders carried from the capital, by horse and by boat.

A courier moves up to four places a phase (provinces by horse, sea lanes by boat; +1 when
the whole move follows roads), changing mount for boat and back at any coastal town of a
province (a town on a lane).  Each enemy province it enters, and each enemy-held lane (one
with an enemy navy out of port and none of its own side), risks it: a d6, failing on a 1.  A failing
courier rolls on the table: 1 captured with its message, 2-5 killed with it, 6 captured
with a false message (the captor's intelligence records which).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from bellica.geo.errors import InputError

from .dice import Dice
from .model import WINTER, Courier, Event, GameState, Scenario
from .navies import lane_open
from .rules import Rules

__all__ = ["courier_moves", "deliver", "interception", "lane_holder", "move_courier", "order_words", "send_courier"]


def order_words(order) -> str:
    """An army's order in words: "march Bessarabia, Moldavia", "hold"; "" for none."""
    if not order:
        return ""
    return order[0] + (" " + ", ".join(order[1:]) if len(order) > 1 else "")


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def send_courier(scenario: Scenario, state: GameState, nation: str, courier_id: int, message: str,
                 to: str, order: Sequence[str] = ()) -> tuple[GameState, list[Event]]:
    """Give courier ``courier_id`` (waiting in its nation's capital) ``message`` for ``to``;
    ``order``: the order it gives army ``to`` (``("march", P, ...)`` or ``("hold",)``), which the
    army obeys once the courier delivers it (options.couriers_carry_orders)."""
    c = state.courier(courier_id)
    capital = scenario.nations[nation].capital
    if c.nation != nation:
        raise InputError(f"courier {courier_id} is {c.nation}'s, not {nation}'s")
    if c.where != capital:
        raise InputError(f"courier {courier_id} is in {c.where}: the king's orders leave from {capital}")
    order = tuple(order)
    if order and _army_of(to) is None:
        raise InputError(f"courier {courier_id}: an order is for an army: give --to \"army N\" (not {to!r})")
    data = {"courier": courier_id, "nation": nation, "to": to} | ({"order": list(order)} if order else {})
    return (state.with_couriers(replace(c, message=message, to=to, order=order)),
            [_event(state, "courier_sent", data, f"{nation} sends courier {courier_id} from {capital} to {to}"
                    + (f" with the order: {order_words(order)}" if order else ""))])


def _army_of(to: str) -> int | None:
    """The army id an addressee ``army N`` names (None: not an army)."""
    words = to.split()
    return int(words[1]) if len(words) == 2 and words[0] == "army" and words[1].isdigit() else None


def lane_holder(state: GameState, lane: str, nation: str) -> str | None:
    """The enemy holding ``lane`` against ``nation``: a hostile navy out of port there and none of
    ``nation`` or its allies (None: open).  A navy in port lies in the port's own space, not
    the lane, so it neither holds the lane nor keeps it open."""
    navies = [n for n in state.navies_in(lane) if not n.port]
    if any(not state.hostile(n.nation, nation) for n in navies):
        return None
    return next((n.nation for n in navies if state.hostile(n.nation, nation)), None)


def courier_moves(scenario: Scenario, state: GameState, rules: Rules, courier: Courier,
                  path: Sequence[str]) -> int:
    """Check ``path`` for ``courier`` and return the places it may move this phase."""
    who = f"courier {courier.id} ({courier.nation})"
    if not path:
        raise InputError(f"{who}: give the provinces and lanes to pass, in order")
    here = courier.where
    for place in path:
        if place in scenario.provinces:
            ok = scenario.adjacent(here, place) if here in scenario.provinces else \
                any(scenario.towns[t].lane == here for t in scenario.provinces[place].towns)
        elif place in scenario.lanes:
            ok = place in scenario.lane_neighbours(here) if here in scenario.lanes else \
                any(scenario.towns[t].lane == place for t in scenario.provinces[here].towns)
            if ok and not rules.options.couriers_through_ice and not lane_open(scenario, rules, place, state.phase):
                raise InputError(f"{who}: {place} is frozen in this phase")
        else:
            raise InputError(f"{who}: {place!r} is neither a province nor a sea lane of the scenario")
        if not ok:
            how = "a coastal town on it" if place in scenario.lanes or here in scenario.lanes else "a border"
            raise InputError(f"{who}: cannot go from {here} to {place} (it needs {how})")
        here = place
    land = [courier.where, *path]
    base = rules.movement.courier
    on_roads = all(a in scenario.provinces and b in scenario.provinces and scenario.road(a, b)
                   for a, b in zip(land[:-1], land[1:]))
    return base + (rules.movement.road_bonus if on_roads else 0)


def interception(rules: Rules, dice: Dice, *label) -> tuple[int, int, str]:
    """(passage roll, outcome roll or 0, "passed"/"captured"/"killed"/"false_message")."""
    roll = dice.roll(rules.couriers.die, *label, "pass")
    if roll > rules.couriers.fail_on:
        return roll, 0, "passed"
    outcome = dice.roll(rules.couriers.die, *label, "fate")
    return roll, outcome, rules.couriers.outcome(outcome)


def move_courier(scenario: Scenario, state: GameState, rules: Rules, courier_id: int, path: Sequence[str],
                 dice: Dice) -> tuple[GameState, list[Event]]:
    """Move a courier along ``path`` (provinces and lanes), rolling for each enemy place entered."""
    courier = state.courier(courier_id)
    who = f"courier {courier_id} ({courier.nation})"
    if state.phase == WINTER:
        raise InputError(f"{who}: couriers ride in the campaign phases, not in winter quarters")
    if courier.moved:
        raise InputError(f"{who} has already moved this phase")
    limit = courier_moves(scenario, state, rules, courier, path)
    if len(path) > limit:
        raise InputError(f"{who}: {len(path)} places is beyond its {limit} this phase: give a shorter path")
    events: list[Event] = []
    for place in path:
        if place in scenario.provinces:
            enemy = state.control.get(place)
            enemy = enemy if state.hostile(enemy, courier.nation) else None
        else:
            enemy = lane_holder(state, place, courier.nation)
        if enemy:
            if place in scenario.lanes and rules.options.courier_lane_capture == "certain":
                roll, outcome, fate = 0, 0, "captured"
            else:
                roll, outcome, fate = interception(rules, dice, "courier", state.year, state.phase, courier_id, place)
            events.append(_event(state, "courier_check", {"courier": courier_id, "place": place, "enemy": enemy,
                                                          "roll": roll, "outcome": outcome, "fate": fate},
                                 f"{who} entering {place} ({enemy}): d{rules.couriers.die} {roll} - {fate}"))
            if fate != "passed":
                state = state.with_couriers(drop=(courier_id,))
                if fate in ("captured", "false_message"):
                    # the order is lost with the courier, and read by its captor
                    note = ("false: " if fate == "false_message" else "") + f"{courier.nation} to {courier.to}: {courier.message}" \
                        + (f" (order: {order_words(courier.order)})" if courier.order else "")
                    state = state.with_nation(enemy, intelligence=state.nations[enemy].intelligence + (note,))
                return state, events
        mode = "ship" if place in scenario.lanes else "horse"
        courier = replace(courier, where=place, mode=mode)
    courier = replace(courier, moved=True)
    state = state.with_couriers(courier)
    events.append(_event(state, "courier_moved", {"courier": courier_id, "path": list(path), "at": courier.where},
                         f"{who} rides {' -> '.join(path)}"))
    return state, events


def deliver(state: GameState, courier_id: int, when: str = "") -> tuple[GameState, list[Event]]:
    """The courier hands over its message where it stands; it stays there, free for a reply.  A
    message with an order must find its army there (ashore in the courier's province, or aboard a
    navy in the courier's lane): the army obeys it from now on (``when``: the phase, for its record)."""
    c = state.courier(courier_id)
    if not c.message:
        raise InputError(f"courier {courier_id} carries no message")
    data = {"courier": courier_id, "nation": c.nation, "at": c.where, "to": c.to, "message": c.message}
    text = f"courier {courier_id} ({c.nation}) delivers to {c.to} at {c.where}: {c.message}"
    if c.order:
        army_id = _army_of(c.to)
        army = next((a for a in state.armies if a.id == army_id and a.nation == c.nation), None)
        if army is None:
            raise InputError(f"courier {courier_id}: {c.to} is no more: its order cannot be delivered")
        where = state.navy(army.aboard).lane if army.aboard else army.province
        if where != c.where:
            raise InputError(f"courier {courier_id} is in {c.where}, {c.to} in {where}: move the courier there first")
        state = state.with_armies(replace(army, order=c.order, order_from=f"courier {courier_id}" + (f", {when}" if when else "")))
        data["order"] = list(c.order)
        text += f" (order: {order_words(c.order)})"
    return (state.with_couriers(replace(c, message="", to="", order=())),
            [_event(state, "courier_delivered", data, text)])
