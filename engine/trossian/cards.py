"""Chance cards: the yearly schedule and the cards' effects.

At the start of each year a d10 per nation gives the phase (1-9) in which it meets a chance
card; a 10 means two cards, placed by two more rolls, each 10 among them rolled again.  The
deck is designer data (``datasets/scenarios/trossian/cards.toml``): each card has a title,
its text for the players, and an ``effect`` the engine applies where it is mechanical
(:data:`EFFECTS`); a card without one is shown to the umpire, who rules on it.  A card
whose condition fails (a plague in a port when the nation holds none) has no effect.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from bellica.geo.errors import InputError

from .dice import Dice
from .model import WINTER, Event, GameState, Scenario
from .navies import sink
from .rules import Rules
from .treasury import census_left, recruit

__all__ = ["EFFECTS", "apply_card", "card_schedule", "check_cards", "draw_cards", "schedule_year"]

#: Mechanical effects (cards.toml ``effect``) and the parameters each reads.
EFFECTS: Mapping[str, tuple[str, ...]] = {
    "": (),
    "half_port_ap": (),
    "windfall": ("ap",),
    "levy": ("units", "quality"),
    "desertion": (),
    "storm": ("lost_on",),
    "mud": (),
}


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def check_cards(cards, rules: Rules, where: str) -> None:
    """One line naming the card and the fix for a bad deck."""
    keys = set()
    for i, card in enumerate(cards, 1):
        key = card.get("key")
        if not key or not card.get("title") or not card.get("text"):
            raise InputError(f"{where} card #{i}: give key, title and text")
        if key in keys:
            raise InputError(f"{where} card {key!r} is given twice: keep one")
        keys.add(key)
        effect = card.get("effect", "")
        if effect not in EFFECTS:
            raise InputError(f"{where} card {key!r} effect {effect!r}: use one of "
                             + ", ".join(repr(e) for e in EFFECTS))
        for param in EFFECTS[effect]:
            if param not in card and param != "quality":
                raise InputError(f"{where} card {key!r} ({effect}): give {param}")
        for kind in card.get("units", ()):
            if kind not in rules.units.kinds():
                raise InputError(f"{where} card {key!r}: unit {kind!r}: use one of {', '.join(rules.units.kinds())}")
    if not cards:
        raise InputError(f"{where}: no [[card]] entries: give the deck at least one card")


def card_schedule(rules: Rules, dice: Dice, year: int, nation: str) -> tuple[int, ...]:
    """The phases (0-based) of ``nation``'s chance cards in ``year``: one d10 (1-9: that
    phase); a 10 gives two rolls, each placing a card; a further 10 is rolled again
    (options.card_tens "reroll") or places no card ("no_card")."""
    die, double = rules.cards.die, rules.cards.double_on
    first = dice.roll(die, "cards", year, nation, 0)
    if first != double:
        return (first - 1,)
    phases = []
    for card in (1, 2):
        attempt = 0
        while True:
            attempt += 1
            r = dice.roll(die, "cards", year, nation, card, attempt)
            if r != double:
                phases.append(r - 1)
                break
            if rules.options.card_tens == "no_card":
                break           # the further 10 is ignored: that roll places no card
    return tuple(sorted(phases))


def schedule_year(state: GameState, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """Every nation's card phases for ``state.year``."""
    events = []
    for nation in state.nations:
        phases = card_schedule(rules, dice, state.year, nation)
        state = state.with_nation(nation, schedule=phases)
        events.append(_event(state, "card_schedule", {"nation": nation, "phases": list(phases)},
                             f"{nation} draws chance cards in "
                             + " and ".join(rules.calendar.phases[p] for p in phases)))
    return state, events


def draw_cards(scenario: Scenario, state: GameState, rules: Rules, dice: Dice) -> tuple[GameState, list[Event]]:
    """The cards due this phase, drawn (a die with one face a card) and applied."""
    events: list[Event] = []
    if state.phase == WINTER:
        return state, events
    for nation, ns in state.nations.items():
        for n in range(ns.schedule.count(state.phase)):
            card = dice.pick(scenario.cards, "card", state.year, state.phase, nation, n)
            state, evs = apply_card(scenario, state, rules, nation, card, dice)
            events += evs
    return state, events


def apply_card(scenario: Scenario, state: GameState, rules: Rules, nation: str, card: Mapping[str, Any],
               dice: Dice) -> tuple[GameState, list[Event]]:
    """Apply ``card`` to ``nation`` (mechanical effects) or report it to the umpire."""
    effect = card.get("effect", "")
    label = ("card-effect", state.year, state.phase, nation, card["key"])
    base = {"nation": nation, "card": card["key"], "title": card["title"], "effect": effect}
    drawn = _event(state, "card_drawn", {**base, "text": card["text"]}, f"{nation} draws '{card['title']}': {card['text']}")
    events = [drawn]

    def nothing(why: str):
        return state, events + [_event(state, "card_no_effect", {**base, "why": why}, f"'{card['title']}' has no effect: {why}")]

    if effect == "":
        return state, events + [_event(state, "card_for_umpire", base, f"the umpire rules on '{card['title']}' for {nation}")]
    if effect == "half_port_ap":
        ports = [p for p in scenario.provinces if state.control.get(p) == nation and scenario.provinces[p].ports]
        if not ports:
            return nothing("it holds no port")
        port = dice.pick(ports, *label)
        state = state.with_nation(nation, effects=state.nations[nation].effects + (("half_ap", port),))
        return state, events + [_event(state, "card_effect", {**base, "province": port},
                                       f"{port} yields half its AP to {nation} this winter")]
    if effect == "windfall":
        capital = scenario.nations[nation].capital
        city = capital if state.control.get(capital) == nation else next(
            (p for p in scenario.cities() if state.control.get(p) == nation), None)
        if city is None:
            return nothing("it holds no city to bank the AP")
        bank = dict(state.nations[nation].bank)
        bank[city] = bank.get(city, 0) + int(card["ap"])
        state = state.with_nation(nation, bank=bank)
        return state, events + [_event(state, "card_effect", {**base, "ap": int(card["ap"]), "province": city},
                                       f"{nation} banks {card['ap']} AP at {city}")]
    if effect == "levy":
        capital = scenario.nations[nation].capital
        if state.control.get(capital) != nation:
            return nothing("its capital is lost")
        full = [k for k in dict.fromkeys(card["units"])
                if (left := census_left(scenario, state, nation, k)) is not None and list(card["units"]).count(k) > left]
        if full:
            return nothing(f"its census has no more {', '.join(full)}")
        state, evs = recruit(scenario, state, rules, nation, capital, list(card["units"]),
                             quality=str(card.get("quality", "line")), free=True, why=f"card {card['key']}")
        return state, events + evs
    if effect == "desertion":
        armies = [a for a in state.armies  # a city's garrison is the city's, not one of the nation's armies
                  if a.nation == nation and not a.garrison and any(u.kind != "hq" for u in a.units)]
        if not armies:
            return nothing("it has no troops to lose")
        army = dice.pick(armies, *label, "army")
        unit = dice.pick([u for u in army.units if u.kind != "hq"], *label, "unit")
        left = tuple(u for u in army.units if u.id != unit.id)
        state = state.with_armies(replace(army, units=left)) if left else state.with_armies(drop=(army.id,))
        return state, events + [_event(state, "card_effect", {**base, "army": army.id, "unit": unit.id},
                                       f"{nation} loses {unit.kind} {unit.id} of army {army.id} to desertion")]
    if effect == "storm":
        navies = [n for n in state.navies if n.nation == nation and not n.port]
        if not navies:
            return nothing("it has no navy at sea")
        navy = dice.pick(navies, *label, "navy")
        roll = dice.roll(6, *label, "roll")
        if roll > int(card["lost_on"]):
            return state, events + [_event(state, "card_effect", {**base, "navy": navy.id, "roll": roll, "lost": False},
                                           f"navy {navy.id} rides out the storm (d6 {roll})")]
        state, evs = sink(state, navy, f"storm (d6 {roll})")
        return state, events + evs
    if effect == "mud":
        armies = [a for a in state.armies if a.nation == nation and not a.aboard and not a.garrison]
        if not armies:
            return nothing("it has no army ashore")
        army = dice.pick(armies, *label, "army")
        state = state.with_armies(replace(army, rest=max(army.rest, 1)))
        return state, events + [_event(state, "card_effect", {**base, "army": army.id},
                                       f"army {army.id} ({nation}) is stuck in the mud this phase")]
    raise InputError(f"card {card['key']!r}: effect {effect!r} is unknown")
