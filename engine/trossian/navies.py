"""Navies: four actions a phase, ports, transport, sea-lane battles and the northern ice.

A navy lies in a sea lane, out at sea or at a berth (a port, or off a province's coast:
the seed's separate coastal space, entered only from the lane).  Its actions, four a
phase: sail to a neighbouring lane; put into a friendly port (its province held by the
navy's nation or an ally) on the lane (two navies a
port at most) or lie off a province's coast; put out to sea; embark or disembark one army
(at a friendly port up to 20 AP an action, off a coast up to 10; couriers and HQs weigh
nothing; a navy carries 20 AP in all).  Hostile navies in one sea space fight
(:func:`sea_battles`): a d6 each, the highest wins; the losers retreat a lane and roll a d6
for each unit (lost on a 1).  The four freezing lanes are closed in Early Spring and Late
Autumn, and a navy out in one when Late Autumn begins is lost with all hands
(:func:`ice_losses`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from bellica.geo.errors import InputError

from .dice import Dice
from .model import WINTER, Army, Event, GameState, Navy, Scenario
from .movement import local_command
from .rules import Rules

__all__ = [
    "army_load", "cargo", "ice_losses", "winter_in_port", "sink", "lane_open", "navy_actions", "port_berths", "sea_battle", "sea_battles",
]


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def lane_open(scenario: Scenario, rules: Rules, lane: str, phase: int) -> bool:
    """May navies enter ``lane`` in ``phase``?  A freezing lane is shut in the ice phases and winter."""
    if not scenario.lanes[lane].freezes:
        return True
    return phase != WINTER and rules.calendar.phases[phase] not in rules.ice.closed


def army_load(rules: Rules, army: Army) -> int:
    """AP an army weighs aboard: its units' costs, HQs not counted."""
    return sum(rules.costs[u.kind] for u in army.units if u.kind != "hq")


def cargo(state: GameState, navy_id: int) -> tuple[Army, ...]:
    return tuple(a for a in state.armies if a.aboard == navy_id)


def _friendly(state: GameState, province: str, nation: str) -> bool:
    """A friendly port: its province held by ``nation`` or an ally (not by nobody)."""
    holder = state.control.get(province)
    return holder is not None and not state.hostile(holder, nation)


def port_berths(state: GameState, town: str) -> int:
    return sum(1 for n in state.navies if n.berth == f"port:{town}")


def navy_actions(scenario: Scenario, state: GameState, rules: Rules, navy_id: int,
                 actions: Sequence[Sequence]) -> tuple[GameState, list[Event]]:
    """Carry out ``actions`` for navy ``navy_id``, in order: ``("sail", lane)``, ``("put_in",
    town)``, ``("lie_off", province)``, ``("put_out",)``, ``("embark", army_id)``,
    ``("disembark", army_id)``."""
    events: list[Event] = []
    for action in actions:
        navy = state.navy(navy_id)
        who = f"navy {navy_id} ({navy.nation})"
        if state.phase == WINTER:
            raise InputError(f"{who}: navies act in the campaign phases, not in winter quarters")
        if navy.actions >= rules.navies.actions:
            raise InputError(f"{who} has used its {rules.navies.actions} actions this phase")
        verb, *args = action
        if verb == "sail":
            (lane,) = args
            if not navy.at_sea:
                raise InputError(f"{who} is at {navy.berth}: put out to sea first")
            if lane not in scenario.lane_neighbours(navy.lane):
                raise InputError(f"{who}: {lane!r} does not touch {navy.lane} "
                                 f"(it touches {', '.join(scenario.lane_neighbours(navy.lane))})")
            if not lane_open(scenario, rules, lane, state.phase):
                raise InputError(f"{who}: {lane} is frozen in {rules.calendar.phases[state.phase]}")
            navy = replace(navy, lane=lane)
            state = replace(state, sailed=state.sailed | {navy_id})
            text = f"{who} sails into {lane}"
        elif verb == "put_in":
            (town,) = args
            t = scenario.towns.get(town)
            if t is None or not t.port or t.lane != navy.lane:
                ports = [x.name for x in scenario.towns.values() if x.port and x.lane == navy.lane]
                raise InputError(f"{who}: {town!r} is not a port on {navy.lane}: use one of {', '.join(ports) or 'none'}")
            if not navy.at_sea:
                raise InputError(f"{who} is at {navy.berth}: put out to sea first")
            if not _friendly(state, t.province, navy.nation):
                raise InputError(f"{who}: {town} is " + ("an enemy port" if state.control.get(t.province)
                                                          else "nobody's: not a friendly port"))
            if port_berths(state, town) >= rules.navies.port_capacity:
                raise InputError(f"{who}: {town} already holds {rules.navies.port_capacity} navies")
            navy = replace(navy, berth=f"port:{town}")
            state = replace(state, sailed=state.sailed | {navy_id})
            text = f"{who} puts into {town}"
        elif verb == "lie_off":
            (province,) = args
            if province not in scenario.provinces or navy.lane not in scenario.lanes_of(province):
                raise InputError(f"{who}: {province!r} has no shore on {navy.lane}")
            if not navy.at_sea:
                raise InputError(f"{who} is at {navy.berth}: put out to sea first")
            navy = replace(navy, berth=f"coast:{province}")
            text = f"{who} lies off {province}"
        elif verb == "put_out":
            if navy.at_sea:
                raise InputError(f"{who} is already at sea")
            if navy.port and not lane_open(scenario, rules, navy.lane, state.phase):
                raise InputError(f"{who}: {navy.lane} is frozen in {rules.calendar.phases[state.phase]}: "
                                 "it stays in port")
            if navy.port:
                state = replace(state, sailed=state.sailed | {navy_id})
            navy = replace(navy, berth="")
            text = f"{who} puts out into {navy.lane}"
        elif verb in ("embark", "disembark"):
            (army_id,) = args
            state, text = _load(scenario, state, rules, navy, int(army_id), verb)
            navy = state.navy(navy_id)
        else:
            raise InputError(f"{who}: action {verb!r}: use sail, put_in, lie_off, put_out, embark or disembark")
        navy = replace(navy, actions=navy.actions + 1)
        state = state.with_navies(navy)
        events.append(_event(state, "navy_action", {"navy": navy_id, "action": [verb, *args], "lane": navy.lane,
                                                    "berth": navy.berth}, text))
    return state, events


def _load(scenario: Scenario, state: GameState, rules: Rules, navy: Navy, army_id: int, verb: str):
    who = f"navy {navy.id} ({navy.nation})"
    army = state.army(army_id)
    if army.garrison:
        raise InputError(f"{who}: army {army_id} is the garrison of {army.province}: a garrison never leaves its city")
    if navy.port:
        province, limit = scenario.towns[navy.port].province, rules.navies.port_load_ap
        if not _friendly(state, province, navy.nation):
            raise InputError(f"{who}: {navy.port} is not a friendly port")
    elif navy.berth.startswith("coast:"):
        province, limit = navy.berth[6:], rules.navies.beach_load_ap
    else:
        raise InputError(f"{who} is out at sea: put into a port or lie off a coast to {verb}")
    weight = army_load(rules, army)
    if weight > limit:
        raise InputError(f"{who}: army {army_id} weighs {weight} AP, above the {limit} AP of one action here: "
                         "detach part of it")
    if verb == "embark":
        if army.aboard or army.province != province or army.nation != navy.nation:
            raise InputError(f"{who}: army {army_id} is not a {navy.nation} army ashore in {province}")
        if army.rest:
            raise InputError(f"{who}: army {army_id} must stay where it is this phase (rest after a victory or a draw)")
        if army.standing:
            raise InputError(f"{who}: army {army_id} has no HQ and "
                             f"{'holds' if army.standing == 'hold' else 'marches home'}: join an HQ to it first")
        if army.order != ("embark",) and not local_command(scenario, rules, army):
            # couriers carry orders: a general boards only on his king's word (else a navy's order would move him)
            raise InputError(f"{who}: army {army_id} obeys only orders a courier brings: send it one first "
                             f"(courier send --to \"army {army_id}\" --order embark)")
        loaded = sum(army_load(rules, a) for a in cargo(state, navy.id))
        if loaded + weight > rules.navies.transport_ap:
            raise InputError(f"{who} carries {loaded} AP: army {army_id} ({weight} AP) would pass "
                             f"{rules.navies.transport_ap} AP")
        boarded = replace(army, aboard=navy.id, moved=True, order=("hold",) if army.order else ())  # the order done
        return state.with_armies(boarded), f"{who} embarks army {army_id} at {province}"
    if army.aboard != navy.id:
        raise InputError(f"{who}: army {army_id} is not aboard")
    if not army.has_hq and state.enemies_in(province, army.nation):
        raise InputError(f"{who}: army {army_id} has no HQ: it will not land to contact the enemy in {province}")
    state = state.with_armies(replace(army, aboard=0, province=province, moved=True))
    state = replace(state, entries=state.entries | {(province, army.nation)})
    return state, f"{who} lands army {army_id} in {province}"


def sink(state: GameState, navy: Navy, why: str) -> tuple[GameState, list[Event]]:
    lost = cargo(state, navy.id)
    state = state.with_navies(drop=(navy.id,)).with_armies(drop=tuple(a.id for a in lost))
    return state, [_event(state, "navy_lost", {"navy": navy.id, "nation": navy.nation, "lane": navy.lane,
                                               "armies": [a.id for a in lost], "why": why},
                          f"navy {navy.id} ({navy.nation}) is lost in {navy.lane} ({why})"
                          + (f" with armies {', '.join(str(a.id) for a in lost)}" if lost else ""))]


def ice_losses(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """At the start of the ice's ``lost_in`` phase: navies out in a freezing lane (not in port) are lost."""
    if state.phase == WINTER or rules.calendar.phases[state.phase] != rules.ice.lost_in:
        return state, []
    events: list[Event] = []
    for navy in state.navies:
        if scenario.lanes[navy.lane].freezes and not navy.port:
            state, evs = sink(state, navy, "caught by the ice")
            events += evs
    return state, events


def _spaces(state: GameState) -> dict[tuple[str, str], list[Navy]]:
    spaces: dict[tuple[str, str], list[Navy]] = {}
    for n in state.navies:
        if not n.port:
            spaces.setdefault((n.lane, n.berth), []).append(n)
    return spaces


def sea_battles(scenario: Scenario, state: GameState, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """Fight every sea space holding hostile navies (options.naval_battles "dice"), or report
    them for the umpire to enter with :func:`sea_battle` ("umpire")."""
    events: list[Event] = []
    for (lane, berth), navies in _spaces(state).items():
        first = navies[0].nation
        side_a = [n for n in navies if not state.hostile(n.nation, first)]
        side_b = [n for n in navies if n not in side_a]
        if not side_b:
            continue
        if rules.options.naval_battles == "umpire":
            events.append(_event(state, "sea_battle_due", {"lane": lane, "berth": berth,
                                                          "a": [n.id for n in side_a], "b": [n.id for n in side_b]},
                                 f"navies meet in {lane}: the umpire decides (sea_battle)"))
            continue
        state, evs = sea_battle(scenario, state, rules, dice, [n.id for n in side_a], [n.id for n in side_b])
        events += evs
    return state, events


def sea_battle(scenario: Scenario, state: GameState, rules: Rules, dice: Dice, side_a: Sequence[int],
               side_b: Sequence[int], winner: str | None = None) -> tuple[GameState, list[Event]]:
    """One sea fight: a d6 per navy, the side with the highest wins (``winner`` "a"/"b" when the
    umpire decides instead).  Ties roll again (options.naval_tie "reroll") or end it ("stand_off")."""
    a = [state.navy(i) for i in side_a]
    b = [state.navy(i) for i in side_b]
    lane = a[0].lane
    events: list[Event] = []
    attempt = 0
    while winner is None:
        attempt += 1
        ra = {str(n.id): dice.roll(rules.navies.battle_die, "sea", state.year, state.phase, lane, attempt, n.id) for n in a}
        rb = {str(n.id): dice.roll(rules.navies.battle_die, "sea", state.year, state.phase, lane, attempt, n.id) for n in b}
        best_a, best_b = max(ra.values()), max(rb.values())
        events.append(_event(state, "sea_battle_rolls", {"lane": lane, "a": ra, "b": rb, "attempt": attempt},
                             f"sea fight in {lane}: {best_a} against {best_b}"))
        if best_a != best_b:
            winner = "a" if best_a > best_b else "b"
        elif rules.options.naval_tie == "stand_off" or attempt >= 20:
            return state, events + [_event(state, "sea_battle_drawn", {"lane": lane}, f"sea fight in {lane}: no result")]
    losers = b if winner == "a" else a
    winners = a if winner == "a" else b
    hostile_here = {n.nation for n in winners}
    for navy in losers:
        options = [x for x in scenario.lane_neighbours(navy.lane) if lane_open(scenario, rules, x, state.phase)
                   and not any(m.nation in hostile_here for m in state.navies_in(x) if not m.port)]
        moved = replace(navy, lane=options[0], berth="") if options else navy
        state = state.with_navies(moved)
        if options:
            state = replace(state, sailed=state.sailed | {navy.id})
        events.append(_event(state, "sea_battle_lost", {"navy": navy.id, "nation": navy.nation, "from": navy.lane,
                                                        "to": moved.lane},
                             f"navy {navy.id} ({navy.nation}) loses the fight"
                             + (f" and retreats to {moved.lane}" if options else " and has nowhere to retreat")))
        for army in cargo(state, navy.id):
            kept = []
            for unit in army.units:
                roll = dice.roll(6, "sea-loss", state.year, state.phase, navy.id, unit.id)
                lost = roll <= rules.navies.loss_on
                events.append(_event(state, "sea_loss_roll", {"navy": navy.id, "army": army.id, "unit": unit.id,
                                                              "roll": roll, "lost": lost},
                                     f"{army.nation} {unit.kind} {unit.id} aboard navy {navy.id}: d6 {roll}"
                                     + (" - lost" if lost else "")))
                if not lost:
                    kept.append(unit)
            if not kept:
                state = state.with_armies(drop=(army.id,))
                continue
            new = replace(army, units=tuple(kept))
            if army.has_hq and not new.has_hq:
                new = replace(new, standing="hold")
                events.append(_event(state, "hq_lost", {"army": army.id},
                                     f"army {army.id} ({army.nation}) has lost its last HQ: it holds until ordered home"))
            state = state.with_armies(new)
        if rules.options.navy_rolls_itself:
            roll = dice.roll(6, "sea-loss", state.year, state.phase, navy.id, "navy")
            if roll <= rules.navies.loss_on:
                state, evs = sink(state, state.navy(navy.id), f"sunk after the fight (d6 {roll})")
                events += evs
    return state, events


def _nearest_berth(scenario: Scenario, state: GameState, rules: Rules, navy: Navy) -> str | None:
    """The friendly port with a free berth fewest lanes from ``navy`` (through lanes open in this
    phase; ties: the scenario's order of towns); None: none."""
    seen, ring = {navy.lane}, [navy.lane]
    while ring:
        for lane in ring:
            for town in scenario.towns.values():
                if town.port and town.lane == lane and _friendly(state, town.province, navy.nation) \
                        and port_berths(state, town.name) < rules.navies.port_capacity:
                    return town.name
        ring = [x for lane in ring for x in scenario.lane_neighbours(lane)
                if x not in seen and lane_open(scenario, rules, x, state.phase)]
        seen.update(ring)
    return None


def winter_in_port(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """As Late Autumn ends, every navy out of port goes back to port for the winter (the seed's
    "the navy returns to port for the winter"; options.navies_winter_in_port): the nearest friendly
    port with a free berth, with what it carries.  One that finds none is lost with all aboard, or
    winters at sea (options.winter_without_berth)."""
    if not rules.options.navies_winter_in_port:
        return state, []
    events: list[Event] = []
    for navy in sorted((n for n in state.navies if not n.port), key=lambda n: n.id):
        town = _nearest_berth(scenario, state, rules, navy)
        if town is not None:
            lane = scenario.towns[town].lane
            state = state.with_navies(replace(navy, lane=lane, berth=f"port:{town}"))
            events.append(_event(state, "navy_winters", {"navy": navy.id, "nation": navy.nation, "from": navy.lane,
                                                         "port": town},
                                 f"navy {navy.id} ({navy.nation}) returns to port for the winter: {town}"))
        elif rules.options.winter_without_berth == "lost":
            state, evs = sink(state, navy, "no friendly port for the winter")
            events += evs
        else:
            events.append(_event(state, "navy_winters", {"navy": navy.id, "nation": navy.nation, "from": navy.lane,
                                                         "port": ""},
                                 f"navy {navy.id} ({navy.nation}) finds no friendly port: it winters at sea in {navy.lane}"))
    return state, events
