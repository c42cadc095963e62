"""The phase cycle: a new game, each phase's beginning and end, winter quarters.

A year: for each of the nine phases, :func:`begin_phase` (the year's chance-card schedule
in Early Spring, the ice, the cards due, headless armies marching home) -> the players'
orders (movement.move_army, navies.navy_actions, couriers.move_courier, ...) ->
:func:`contact` (sea fights, land battles opened) -> battles.resolve_battle for each ->
:func:`end_phase` (pacification and sieges, rests, the next phase).  After Late Autumn
:func:`end_phase` goes into winter quarters (income, sieges through the winter); the
players bank and recruit (treasury.transfer, treasury.recruit); :func:`end_winter` opens
the next year.
"""

from __future__ import annotations

from dataclasses import replace

from bellica.geo.errors import InputError

from .battles import find_battles
from .calendar import is_last_phase, label, next_phase
from .cards import draw_cards, schedule_year
from .dice import Dice
from .model import WINTER, Army, Courier, Event, GameState, NationState, Navy, Scenario, Unit
from .movement import march_home
from .navies import ice_losses, sea_battles, winter_in_port
from .rules import Rules
from .scenario import parse_unit
from .sieges import pacification, raise_garrisons, winter_garrisons, winter_sieges
from .treasury import collect_income

__all__ = ["begin_phase", "contact", "diplomacy", "end_phase", "end_winter", "new_game", "set_alliance"]


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def new_game(scenario: Scenario, rules: Rules) -> GameState:
    """Early Spring of the scenario's year with the census of ``forces.toml`` in place."""
    nations = {n: NationState(n) for n in scenario.nations}
    state = GameState(year=scenario.year, phase=0, control=dict(scenario.holders), nations=nations)
    forces = scenario.forces
    armies, navies, couriers = [], [], []
    next_id = 1
    for entry in forces.get("army", []):
        army_id = next_id
        next_id += 1
        units = []
        for text in entry["units"]:
            kind, quality = parse_unit(text, rules, "forces.toml")
            units.append(Unit(next_id, kind, quality))
            next_id += 1
        armies.append(Army(army_id, entry["nation"], entry["province"], tuple(units), name=str(entry.get("name", ""))))
    for entry in forces.get("navy", []):
        town = scenario.towns[entry["port"]]
        navies.append(Navy(next_id, entry["nation"], town.lane, f"port:{town.name}"))
        next_id += 1
    for entry in forces.get("couriers", []):
        for _ in range(entry["count"]):
            couriers.append(Courier(next_id, entry["nation"], scenario.nations[entry["nation"]].capital))
            next_id += 1
    for entry in forces.get("bank", []):
        ns = nations[entry["nation"]]
        bank = dict(ns.bank)
        bank[entry["province"]] = bank.get(entry["province"], 0) + int(entry["ap"])
        nations[entry["nation"]] = replace(ns, bank=bank)
    return replace(state, nations=nations, armies=tuple(armies), navies=tuple(navies), couriers=tuple(couriers),
                   next_id=next_id)


def begin_phase(scenario: Scenario, state: GameState, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """Open the phase: the year's card schedule (first phase of a year), navies lost to the
    ice, the chance cards due, headless armies marching home."""
    if state.phase == WINTER:
        raise InputError("winter quarters: end the winter (end_winter) before the next phase")
    events = [_event(state, "phase", {"year": state.year, "phase": state.phase, "name": label(rules, state)},
                     label(rules, state))]
    if state.scheduled != state.year:
        state, evs = schedule_year(state, rules, dice)
        state = replace(state, scheduled=state.year)
        events += evs
    for step in (ice_losses,):
        state, evs = step(scenario, state, rules)
        events += evs
    state, evs = draw_cards(scenario, state, rules, dice)
    events += evs
    state, evs = march_home(scenario, state, rules)
    return state, events + evs


def contact(scenario: Scenario, state: GameState, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """After the orders: sea fights in every contested sea space, the garrisons of cities an enemy
    stands in, then a battle opened in every province where enemies stand (to be fought on the
    table and entered)."""
    state, events = sea_battles(scenario, state, rules, dice)
    state, evs = raise_garrisons(scenario, state, rules)
    events += evs
    state, evs = find_battles(scenario, state)
    return state, events + evs


def end_phase(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """Close the phase: pacification and sieges, rests counted down, orders cleared, the next
    phase (winter quarters with income after the last)."""
    if state.phase == WINTER:
        raise InputError("winter quarters: use end_winter")
    if state.battles:
        raise InputError("battles are open in " + ", ".join(b.province for b in state.battles)
                         + ": enter their results (resolve_battle) first")
    # Nations not allied to each other who beat a common enemy side by side stand together until the
    # next phase's contact opens their own battle: a province fought over this phase is not refused.
    _, still = find_battles(scenario, state)
    still = [e for e in still if e.data["province"] not in state.contested]
    if still:
        raise InputError("enemies share " + ", ".join(e.data["province"] for e in still)
                         + ": run contact and resolve the battles first")
    state, events = pacification(scenario, state, rules)
    if state.phase == 0 and rules.options.navies_winter_in_port:
        state = replace(state, sieges=tuple(replace(s, wintered=False) for s in state.sieges))
    last = is_last_phase(rules, state.phase)
    if last:  # the navies go back to port before the winter (in Late Autumn's waters)
        state, evs = winter_in_port(scenario, state, rules)
        events += evs
    armies = tuple(replace(a, rest=a.rest if a.fought else max(0, a.rest - 1), moved=False, fought=False)
                   for a in state.armies)
    navies = tuple(replace(n, actions=0) for n in state.navies)
    couriers = tuple(replace(c, moved=False) for c in state.couriers)
    year, phase = next_phase(rules, state.year, state.phase)
    state = replace(state, armies=armies, navies=navies, couriers=couriers, contested=frozenset(),
                    entries=frozenset(), sailed=frozenset(), year=year, phase=phase)
    if last:
        events.append(_event(state, "winter_quarters", {"year": state.year}, f"winter quarters {state.year}"))
        state, evs = collect_income(scenario, state, rules)
        events += evs
        state, evs = winter_sieges(scenario, state, rules)
        events += evs
        state, evs = winter_garrisons(scenario, state)
        events += evs
    return state, events


def end_winter(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """Leave winter quarters: Early Spring of the next year."""
    if state.phase != WINTER:
        raise InputError(f"{label(rules, state)} is not winter quarters")
    year, phase = next_phase(rules, state.year, state.phase)
    # with the navies wintering in port, a wintered port siege keeps its mark through Early Spring
    # (sieges.pacification: the blockade's return undoes nothing), cleared as that phase ends
    sieges = state.sieges if rules.options.navies_winter_in_port else tuple(replace(s, wintered=False) for s in state.sieges)
    state = replace(state, year=year, phase=phase, sieges=sieges)
    return state, [_event(state, "spring", {"year": year}, f"Early Spring {year}: the armies leave winter quarters")]


def set_alliance(state: GameState, a: str, b: str, allied: bool = True) -> tuple[GameState, list[Event]]:
    """Make (or break) an alliance: allies' armies fight on one side and never battle each other."""
    if a not in state.nations or b not in state.nations or a == b:
        raise InputError(f"alliance {a!r}-{b!r}: give two different nations of {', '.join(state.nations)}")
    pair = frozenset((a, b))
    alliances = state.alliances | {pair} if allied else state.alliances - {pair}
    state = replace(state, alliances=alliances)
    return state, [_event(state, "alliance", {"nations": sorted(pair), "allied": allied},
                          f"{a} and {b} " + ("ally" if allied else "break their alliance"))]


def diplomacy(state: GameState, nation: str, partner: str, *, brk: bool = False) -> tuple[GameState, list[Event]]:
    """``nation``'s word to ``partner`` (docs/rules/trossian.md, "Alliances").

    An alliance needs both: the first nation's word is an offer (public, and open until taken
    back or accepted); the partner's word to it makes the alliance.  ``brk``: ``nation`` breaks
    its alliance with ``partner`` on its own, at once (treachery needs no consent), or takes
    back its open offer.  Allies' armies march through and stand in each other's provinces,
    never battle each other and fight on one side; armies of nations that break an alliance
    while sharing a province meet in battle when the orders are next carried out."""
    if nation not in state.nations or partner not in state.nations or nation == partner:
        raise InputError(f"alliance {nation!r}-{partner!r}: give two different nations of {', '.join(state.nations)}")
    pair = frozenset((nation, partner))
    if brk:
        if pair in state.alliances:
            state, events = set_alliance(state, nation, partner, False)
            state = replace(state, offers=frozenset(o for o in state.offers if frozenset(o) != pair))
            events = [replace(events[0], data={**events[0].data, "by": nation},
                              text=f"{nation} breaks its alliance with {partner}")]
            return state, events
        if (nation, partner) in state.offers:
            state = replace(state, offers=state.offers - {(nation, partner)})
            return state, [_event(state, "alliance_withdrawn", {"nation": nation, "partner": partner},
                                  f"{nation} takes back its offer of alliance to {partner}")]
        raise InputError(f"{nation} and {partner} are not allied and {nation} has offered nothing: nothing to break")
    if pair in state.alliances:
        raise InputError(f"{nation} and {partner} are allied already")
    if (partner, nation) in state.offers:
        state = replace(state, offers=frozenset(o for o in state.offers if frozenset(o) != pair))
        state, events = set_alliance(state, nation, partner, True)
        return state, [replace(events[0], data={**events[0].data, "by": nation},
                               text=f"{nation} accepts {partner}'s offer: {partner} and {nation} are allies")]
    if (nation, partner) in state.offers:
        raise InputError(f"{nation} has offered {partner} an alliance already: {partner} must answer")
    state = replace(state, offers=state.offers | {(nation, partner)})
    return state, [_event(state, "alliance_offered", {"nation": nation, "partner": partner},
                          f"{nation} offers {partner} an alliance")]
