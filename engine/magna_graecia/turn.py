"""The season: setting up a scenario, and the player-turns in each scenario's side order.

A campaign turn is one player-turn for each side still playing, in the scenario's order;
a player-turn is movement (:mod:`.movement`), then :func:`end_movement` (stacking, the
alliance rolls, the battles and fleet fights due, the side's siege business), then the
battles and fleet fights and the retreats they cause, then :func:`end_player_turn`.
The season ends after 18 campaign turns (or by agreement: :func:`end_by_agreement`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from bellica.geo.errors import InputError

from .battles import due_battles
from .cities import alliance_rolls
from .dice import Dice
from .model import CityState, Command, Event, Fleet, GameState, NodeMap, SideState
from .movement import begin_movement, check_stacking
from .rules import Rules
from .scenario import CommandSpec, Scenario
from .sieges import siege_turn
from .victory import capture_capital, standings, victory_points

__all__ = ["end_by_agreement", "end_movement", "end_player_turn", "new_game"]


def _cmd(id_: int, side: str, node: str, spec: CommandSpec, rules: Rules) -> Command:
    for k in [spec.general, *spec.elements]:
        if not rules.is_known(k):
            raise InputError(f"{side} command {id_}: element {k!r} is not a DBM type the rules know: "
                             f"use one of {', '.join(rules.elements.types)}")
    return Command(id_, side, spec.node or node, dict(spec.elements), general=spec.general)


def new_game(scenario: Scenario, node_map: NodeMap, rules: Rules,
             armies: Mapping[str, Sequence[CommandSpec]] | None = None) -> tuple[GameState, list[Event]]:
    """The scenario's opening position on ``node_map`` (as it stands in the scenario's year).
    ``armies``: each side's commands as bought by its player (default: the scenario's sample)."""
    nmap = node_map.for_year(scenario.year)
    missing = sorted(p for p in scenario.places() if p not in nmap.places)
    if missing:
        raise InputError(f"scenario {scenario.name}: {', '.join(missing)} not on the node map for {-scenario.year} BC: "
                         "add them to the node map or fix the scenario")
    overrides = dict(scenario.city_commands)
    capitals = {s.capital: s for s in scenario.sides}
    allied = {c: s.name for s in scenario.sides for c in s.allied_cities}
    cities: dict[str, CityState] = {}
    commands: list[Command] = []
    next_id = 1
    nrules = rules.neutral
    for name, place in sorted(nmap.places.items()):
        n = overrides.get(name, place.commands)
        if name in capitals:
            side = capitals[name]
            cities[name] = CityState(name, ally=side.name, start_ally=side.name, holder=side.name)
            n = side.capital_strength
        elif n > 0 or name in allied:
            ally = allied.get(name)
            cities[name] = CityState(name, ally=ally, start_ally=ally)
        for _ in range(n):
            commands.append(Command(next_id, "", name, dict(nrules.elements), general=nrules.general, city=name,
                                    in_city=False))
            next_id += 1
    sides: dict[str, SideState] = {}
    fleets: list[Fleet] = []
    for s in scenario.sides:
        army = list((armies or {}).get(s.name, s.army))
        if not army:
            raise InputError(f"scenario {scenario.name}: {s.name} has no army: give its commands")
        for spec in army:
            commands.append(_cmd(next_id, s.name, s.start, spec, rules))
            next_id += 1
        if s.capital_strength == 0:
            sub = army[1].general if len(army) > 1 else army[0].general
            commands.append(Command(next_id, s.name, s.capital, {}, general=sub, inherent=True, in_city=True))
            next_id += 1
        if s.fleet_np:
            if not nmap.places[s.fleet_at].coastal:
                raise InputError(f"scenario {scenario.name}: {s.name}'s fleet at {s.fleet_at}, which is not coastal")
            fleets.append(Fleet(s.name, s.fleet_at, s.fleet_np))
        sides[s.name] = SideState(s.name, capital=s.capital, capital_strength=s.capital_strength)
    state = GameState(scenario=scenario.name, year=scenario.year, turn=1, order=scenario.order, sides=sides,
                      commands=tuple(commands), fleets=tuple(fleets), cities=cities, alliances=scenario.alliances,
                      next_id=next_id, capital_rule=scenario.capital_rule)
    state = begin_movement(state, rules)
    ev = Event(1, "setup", "game_started",
               {"scenario": scenario.name, "year": scenario.year, "order": list(scenario.order),
                "capitals": {s.name: [s.capital, s.capital_strength] for s in scenario.sides},
                "fleets": {f.side: [f.node, f.np] for f in fleets},
                "allied": {c: a.ally for c, a in cities.items() if a.ally},
                "commands": len(commands)},
               f"{scenario.title}: {', '.join(scenario.order)} in {-scenario.year} BC")
    return state, [ev]


def end_movement(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """The phasing side ends its movement: stacking is checked, alliance rolls made, battles
    and fleet fights found, and its sieges go on."""
    if state.phase != "movement":
        raise InputError(f"movement has already ended ({state.phase} phase)")
    side = state.phasing
    check_stacking(state, rules, side)
    events = [Event(state.turn, "movement", "movement_ended", {"side": side}, f"{side} ends its movement")]
    state, evs = alliance_rolls(state, rules, dice)
    events += evs
    state, evs = siege_turn(state, nmap, rules, dice)
    events += evs
    state, evs = due_battles(state)
    events += evs
    return replace(state, phase="battles"), events


def _capitals_occupied(state: GameState) -> tuple[GameState, list[Event]]:
    """A capital with none of its side's forces left and the phasing side's counters in it is taken."""
    side = state.phasing
    events: list[Event] = []
    for name, s in list(state.sides.items()):
        if not s.playing or name == side or not state.enemies(side, name):
            continue
        cap = s.capital
        city = state.cities.get(cap)
        if city is None or city.holder != name:
            continue
        if state.friendly_land(cap, name) or state.siege_at(cap):
            continue
        if any(c.side == side and not c.aboard for c in state.at(cap)):
            state, evs = capture_capital(state, name, side, "end")
            events += evs
    return state, events


def end_player_turn(state: GameState, nmap: NodeMap, rules: Rules) -> tuple[GameState, list[Event]]:
    """The phasing side's turn is over once its battles are fought and retreats made; play
    passes to the next side still playing (after the last, the next campaign turn)."""
    if state.phase == "over":
        raise InputError("the season is over")
    if state.phase == "movement":
        raise InputError(f"{state.phasing} has not ended its movement: end it first")
    if state.battles:
        raise InputError("battles are still due at " + ", ".join(f"{b.node} ({b.kind})" for b in state.battles)
                         + ": enter their results first")
    if state.retreats:
        raise InputError("retreats are still owed: " + ", ".join(f"command {r.command}" if r.command else f"{r.fleet_side}'s fleet"
                                                               for r in state.retreats))
    state, events = _capitals_occupied(state)
    events.append(Event(state.turn, "end", "player_turn_ended", {"side": state.phasing}, f"{state.phasing}'s turn ends"))
    playing = state.playing()
    if len(playing) <= 1:
        return _over(state, rules, events, "one side left")
    i = state.current
    turn = state.turn
    while True:
        i += 1
        if i >= len(state.order):
            i = 0
            turn += 1
        if state.sides[state.order[i]].playing:
            break
    if turn > rules.game.turns:
        return _over(replace(state, turn=rules.game.turns), rules, events, f"{rules.game.turns} turns played")
    state = replace(state, current=i, turn=turn, phase="movement",
                    commands=tuple(replace(c, moved=False) for c in state.commands))
    state = begin_movement(state, rules)
    events.append(Event(turn, "movement", "player_turn_begun", {"side": state.phasing, "turn": turn},
                        f"turn {turn}: {state.phasing} moves"))
    return state, events


def _over(state: GameState, rules: Rules, events: list[Event], why: str) -> tuple[GameState, list[Event]]:
    vp = victory_points(state, rules)
    order = standings(state, rules)
    events.append(Event(state.turn, "end", "season_over", {"why": why, "victory_points": vp,
                                                           "standings": [[side, points] for side, points in order]},
                        f"the season is over ({why}): " + ", ".join(f"{s} {p} VP" for s, p in order)))
    return replace(state, phase="over"), events


def end_by_agreement(state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """The sides agree to end the season now."""
    return _over(state, rules, [], "by agreement")
