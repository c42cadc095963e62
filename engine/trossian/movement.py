"""Movement by arm, the road bonus, retreats, and armies that have lost their HQ.

An army moves at the pace of its slowest arm (infantry and artillery 1 province a phase,
mounted 2); a move made wholly along roads gains the road bonus (+1).  Entering a province
that holds an enemy army ends the move there (a battle follows); an army without an HQ
never moves to contact.  An army that must rest (a victor's phase of rest, a draw's freeze)
does not move.  An army that has lost its last HQ holds or marches to the nearest home
city of its nation (:func:`set_standing`, :func:`march_home`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from bellica.engine.core.walks import fewest_steps
from bellica.geo.errors import InputError

from .model import WINTER, Army, Event, GameState, Scenario, Unit
from .rules import Rules

__all__ = [
    "army_speed", "detach", "follow_order", "follow_orders", "local_command", "merge", "move_army", "path_speed",
    "retreat_options", "retreat", "set_standing", "march_home", "nearest_home_city",
]


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def army_speed(rules: Rules, units: Sequence[Unit]) -> int:
    """Provinces a phase for these units moving together: the slowest arm's rate."""
    if not units:
        return 0
    return min(rules.movement.rate(rules.units.arm(u.kind)) for u in units)


def path_speed(scenario: Scenario, rules: Rules, base: int, start: str, path: Sequence[str]) -> int:
    """``base`` plus the road bonus when every step of ``path`` from ``start`` is a road."""
    steps = list(zip([start, *path[:-1]], path))
    on_roads = bool(steps) and all(scenario.road(a, b) for a, b in steps)
    return base + (rules.movement.road_bonus if on_roads else 0)


def _check_path(scenario: Scenario, start: str, path: Sequence[str], who: str) -> None:
    if not path:
        raise InputError(f"{who}: give the provinces to move through, in order")
    here = start
    for p in path:
        if p not in scenario.provinces:
            raise InputError(f"{who}: no province {p!r}: use one of {', '.join(scenario.provinces)}")
        if not scenario.adjacent(here, p):
            raise InputError(f"{who}: {p} does not border {here}: give neighbouring provinces in order "
                             f"({here} borders {', '.join(scenario.neighbours(here))})")
        here = p


def move_army(scenario: Scenario, state: GameState, rules: Rules, army_id: int,
              path: Sequence[str]) -> tuple[GameState, list[Event]]:
    """Move army ``army_id`` along ``path`` (the provinces entered, in order)."""
    army = state.army(army_id)
    who = f"army {army_id} ({army.nation})"
    if state.phase == WINTER:
        raise InputError(f"{who}: armies are in winter quarters: move in Early Spring")
    if army.garrison:
        raise InputError(f"{who} is the garrison of {army.province}: a garrison never leaves its city")
    if army.aboard:
        raise InputError(f"{who} is aboard navy {army.aboard}: land it first")
    if army.moved:
        raise InputError(f"{who} has already moved or fought this phase")
    if army.rest:
        raise InputError(f"{who} must stay where it is this phase (rest after a victory or a draw)")
    if army.standing:
        raise InputError(f"{who} has no HQ and {'holds' if army.standing == 'hold' else 'marches home'}: "
                         "join an HQ to it first")
    _check_path(scenario, army.province, path, who)
    speed = path_speed(scenario, rules, army_speed(rules, army.units), army.province, path)
    if len(path) > speed:
        raise InputError(f"{who}: {len(path)} provinces is beyond its {speed} this phase: give a shorter path")
    for i, p in enumerate(path):
        enemies = state.enemies_in(p, army.nation)
        if enemies and not army.has_hq:
            raise InputError(f"{who} has no HQ: it will not move to contact the enemy in {p}")
        if enemies and i != len(path) - 1:
            raise InputError(f"{who}: enemies in {p} stop the move there: end the path at {p}")
    moved = replace(army, province=path[-1], moved=True)
    entries = state.entries | {(p, army.nation) for p in path}
    new = replace(state.with_armies(moved), entries=entries)
    return new, [_event(state, "army_moved", {"army": army_id, "nation": army.nation, "from": army.province,
                                              "path": list(path), "speed": speed},
                        f"{who} marched {army.province} -> {' -> '.join(path)}")]


def retreat_options(scenario: Scenario, state: GameState, rules: Rules, army: Army,
                    exclude: Sequence[str] = ()) -> tuple[str, ...]:
    """Provinces ``army`` may retreat into: a neighbour with no enemy army, held by its own
    nation, an ally or no one (options.retreat_into ``any_free``: any held province too)."""
    found = []
    for p in scenario.neighbours(army.province):
        if p in exclude or state.enemies_in(p, army.nation):
            continue
        holder = state.control.get(p)
        if rules.options.retreat_into == "own_or_neutral" and state.hostile(holder, army.nation):
            continue
        found.append(p)
    return tuple(found)


def retreat(scenario: Scenario, state: GameState, rules: Rules, army_id: int,
            to: str | None = None, *, why: str = "defeated") -> tuple[GameState, list[Event]]:
    """The free retreat of one province: into ``to`` (checked) or, when none is given, the
    first of :func:`retreat_options`; an army with no safe line of retreat is destroyed."""
    army = state.army(army_id)
    if army.garrison:  # a garrison has no line of retreat: beaten, it is gone and its city open
        return (replace(state.with_armies(drop=(army_id,)), ungarrisoned=state.ungarrisoned | {army.province}),
                [_event(state, "garrison_overcome", {"army": army_id, "nation": army.nation, "province": army.province,
                                                     "why": why},
                        f"the garrison of {army.province} ({army.nation}) is overcome: the city is open to a siege")])
    options = retreat_options(scenario, state, rules, army)
    if to and to not in options:
        raise InputError(f"army {army_id}: cannot retreat into {to}: give one of {', '.join(options) or 'none'}")
    target = to or (options[0] if options else None)
    if target is None:
        return (state.with_armies(drop=(army_id,)),
                [_event(state, "army_destroyed", {"army": army_id, "nation": army.nation, "province": army.province,
                                                  "why": f"{why}: no safe line of retreat"},
                        f"army {army_id} ({army.nation}) has no safe line of retreat from {army.province}: destroyed")])
    moved = replace(army, province=target, moved=True)
    return (state.with_armies(moved),
            [_event(state, "army_retreated", {"army": army_id, "nation": army.nation, "from": army.province,
                                              "to": target, "why": why},
                    f"army {army_id} ({army.nation}) retreats {army.province} -> {target}")])


def set_standing(state: GameState, army_id: int, standing: str) -> tuple[GameState, list[Event]]:
    """The order of an army without an HQ: "hold" (wait for orders) or "home" (march to the
    nearest home city)."""
    army = state.army(army_id)
    if army.garrison:
        raise InputError(f"army {army_id} is the garrison of {army.province}: a garrison never leaves its city")
    if army.has_hq:
        raise InputError(f"army {army_id} has an HQ: only an army without one holds or marches home")
    if standing not in ("hold", "home"):
        raise InputError(f"army {army_id}: standing {standing!r}: give \"hold\" or \"home\"")
    return (state.with_armies(replace(army, standing=standing)),
            [_event(state, "army_standing", {"army": army_id, "standing": standing},
                    f"army {army_id} ({army.nation}) without an HQ will {'hold' if standing == 'hold' else 'march home'}")])


def nearest_home_city(scenario: Scenario, state: GameState, army: Army) -> list[str] | None:
    """The shortest path (provinces after the army's own) to a city of the army's homeland
    that its nation holds, avoiding provinces with enemy armies; [] when it is in one; None:
    none reachable."""
    def goal(p: str) -> bool:
        v = scenario.provinces[p]
        return v.home == army.nation and v.city and state.control.get(p) == army.nation

    return fewest_steps(army.province, goal,
                        lambda here: [p for p in scenario.neighbours(here) if not state.enemies_in(p, army.nation)])


def march_home(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """Every headless army ordered home moves toward its nearest home city at its pace."""
    events: list[Event] = []
    for army in state.armies:
        if army.standing != "home" or army.aboard or army.rest or army.moved:
            continue
        path = nearest_home_city(scenario, state, army)
        if not path:
            continue
        base = army_speed(rules, army.units)
        full = path[:base + rules.movement.road_bonus]
        on_roads = all(scenario.road(a, b) for a, b in zip([army.province, *full[:-1]], full))
        step = full if on_roads else path[:base]
        state = state.with_armies(replace(army, province=step[-1], moved=True))
        state = replace(state, entries=state.entries | {(p, army.nation) for p in step})
        events.append(_event(state, "army_marched_home", {"army": army.id, "path": step},
                             f"army {army.id} ({army.nation}) without an HQ marches home: {' -> '.join(step)}"))
    return state, events


def merge(state: GameState, army_ids: Sequence[int]) -> tuple[GameState, list[Event]]:
    """Join armies of one nation in one province into the first."""
    armies = [state.army(i) for i in army_ids]
    if any(a.garrison for a in armies):
        raise InputError(f"armies {list(army_ids)}: a city's garrison stands on its own: merge field armies only")
    if len(armies) < 2 or len({(a.nation, a.province, a.aboard) for a in armies}) != 1:
        raise InputError(f"armies {list(army_ids)}: give two or more armies of one nation in one place")
    first = armies[0]
    units = tuple(u for a in armies for u in a.units)
    joined = replace(first, units=units, rest=max(a.rest for a in armies), moved=any(a.moved for a in armies))
    if joined.has_hq:
        joined = replace(joined, standing="")
    return (state.with_armies(joined, drop=tuple(a.id for a in armies[1:])),
            [_event(state, "armies_merged", {"into": first.id, "armies": list(army_ids)},
                    f"armies {', '.join(map(str, army_ids))} join as army {first.id}")])


def detach(state: GameState, army_id: int, unit_ids: Sequence[int], name: str = "") -> tuple[GameState, list[Event]]:
    """Form a new detachment of ``unit_ids`` from army ``army_id``.  The seed prices the HQ
    "Required for every detachment": the part leaving and the army it leaves must each keep an
    HQ, so an army splits only as many ways as it has HQs (docs/rules/trossian.md)."""
    army = state.army(army_id)
    chosen = set(unit_ids)
    if not chosen or not chosen <= {u.id for u in army.units} or chosen == {u.id for u in army.units}:
        raise InputError(f"army {army_id}: give some, not all, of its units ({[u.id for u in army.units]})")
    keep = tuple(u for u in army.units if u.id not in chosen)
    part = tuple(u for u in army.units if u.id in chosen)
    hqs = [u.id for u in army.units if u.kind == "hq"]
    if not any(u.kind == "hq" for u in part):
        raise InputError(f"army {army_id}: a detachment needs an HQ (required for every detachment): "
                         + (f"add one of its HQs ({', '.join(map(str, hqs))}) to --unit" if len(hqs) > 1 else
                            f"it has {len(hqs)}, so merge in {'a second' if hqs else 'an'} HQ first "
                            "(HQs are recruited in winter, 4 AP)"))
    if not any(u.kind == "hq" for u in keep):
        raise InputError(f"army {army_id}: detaching its only HQ leaves the rest without one (an HQ is required "
                         "for every detachment): leave an HQ with the army")
    (new_id,), state = state.ids(1)
    det = replace(army, id=new_id, units=part, name=name, standing="", order=(), order_from="")  # no order yet: it holds
    rest = replace(army, units=keep)
    return (state.with_armies(rest, det),
            [_event(state, "army_detached", {"from": army_id, "army": new_id, "units": sorted(chosen)},
                    f"army {new_id} detached from army {army_id}")])


# --- orders that reached the army (options.couriers_carry_orders) ------------------------------


def local_command(scenario: Scenario, rules: Rules, army: Army) -> bool:
    """Does ``army`` take its king's orders at once, with no courier?  Always when orders need no
    courier; else only ashore in the king's capital province (options.local_command "capital")."""
    if not rules.options.couriers_carry_orders:
        return True
    capital = scenario.nations[army.nation].capital
    return rules.options.local_command == "capital" and not army.aboard and army.province == capital


def follow_order(scenario: Scenario, state: GameState, rules: Rules, army_id: int) -> tuple[GameState, list[Event]]:
    """Army ``army_id`` marches on along the route of the order it obeys, at its pace (the road
    bonus when this phase's whole move is along roads), stopping where it meets an enemy (the
    march ends there: a battle follows; an army without an HQ stops short of it).  Arrived, it
    holds.  An army aboard, resting, already moved or without an HQ waits; a route that no longer
    starts beside it (it was driven off) is void, and it holds."""
    army = state.army(army_id)
    if army.order[:1] != ("march",) or army.aboard or army.moved or army.rest or army.standing:
        return state, []
    route = list(army.order[1:])
    if army.province in route:  # already on its route (say, put back on it): go on from there
        route = route[route.index(army.province) + 1:]
    if not route or not scenario.adjacent(army.province, route[0]):
        held = replace(army, order=("hold",))
        return (state.with_armies(held),
                [_event(state, "army_order_void", {"army": army_id, "nation": army.nation, "route": list(army.order[1:])},
                        f"army {army_id} ({army.nation}) is off its route ({', '.join(army.order[1:])}): it holds")])
    base = army_speed(rules, army.units)
    steps = route[:base + rules.movement.road_bonus]
    if not all(scenario.road(a, b) for a, b in zip([army.province, *steps[:-1]], steps)):
        steps = route[:base]
    contact = False
    for i, p in enumerate(steps):
        if state.enemies_in(p, army.nation):
            steps, contact = (steps[:i + 1], True) if army.has_hq else (steps[:i], False)
            break
    if not steps:
        return state, []
    state, events = move_army(scenario, state, rules, army_id, steps)
    left = [] if contact else route[len(steps):]
    moved = state.army(army_id)
    return state.with_armies(replace(moved, order=("march", *left) if left else ("hold",))), events


def follow_orders(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """Every army still on the march by an earlier order goes on (army by army, in id order)."""
    events: list[Event] = []
    if not rules.options.couriers_carry_orders:
        return state, events
    for army_id in sorted(a.id for a in state.armies if a.order[:1] == ("march",)):
        if any(a.id == army_id for a in state.armies):
            state, evs = follow_order(scenario, state, rules, army_id)
            events += evs
    return state, events
