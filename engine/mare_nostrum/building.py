"""Building: fortifications, suburbs, temples and fleets; the event choices that destroy them.

Each work costs one action and is built in a province the nation holds that no other player
has attacked this turn.  Works ordered in a player's turn stand once that player finishes
(:func:`complete_builds`), so a temple needs suburbs already standing, and a fleet raised
this turn cannot fight in its owner's own turn.  A fleet is raised in a coastal province,
in a sea quadrant it faces, and never leaves it; a player may have two fleets at most in a
quadrant (those ordered this turn count).
"""

from __future__ import annotations

from dataclasses import replace

from bellica.geo.errors import InputError

from .actions import spend_action
from .model import Event, Fleet, Scenario, TurnState, possessive
from .rules import Rules

__all__ = ["WORKS", "build", "complete_builds", "destroy_enemy_work", "place_artworks"]

#: What may be built: work -> the Works field it adds to ("" for fleets).
WORKS = {"fortification": "fortifications", "suburbs": "suburbs", "temple": "temples", "fleet": ""}


def _cap(rules: Rules, work: str) -> int:
    b = rules.building
    return {"fortification": b.fortifications_per_province, "suburbs": b.suburbs_per_province,
            "temple": b.temples_per_province}[work]


def build(scenario: Scenario, state: TurnState, rules: Rules, nation: str, work: str, province: str,
          sea: str = "") -> tuple[TurnState, list[Event]]:
    """``nation`` orders ``work`` ("fortification", "suburbs", "temple" or "fleet") in ``province``
    (for a fleet, in ``sea``, which may be left out when the province faces one quadrant only)."""
    where = f"{nation} build {work} in {province}"
    if work not in WORKS:
        raise InputError(f"{where}: no such work; build one of {', '.join(WORKS)}")
    if province not in scenario.provinces:
        raise InputError(f"{where}: {province!r} is not a province")
    if state.control.get(province) != nation:
        raise InputError(f"{where}: {province} is not {possessive(nation)}")
    if any(a.target == province and a.attacker != nation for a in state.attacks):
        raise InputError(f"{where}: {province} is under attack this turn; build elsewhere")
    pending = [b for b in state.builds if b[0] == work and b[1] == province]
    if work == "fleet":
        seas = scenario.provinces[province].seas
        if not seas:
            raise InputError(f"{where}: {province} faces no sea; raise fleets in a coastal province")
        if not sea:
            if len(seas) > 1:
                raise InputError(f"{where}: {province} faces {', '.join(seas)}; name the quadrant")
            sea = seas[0]
        if sea not in seas:
            raise InputError(f"{where}: {province} does not face {sea}; use one of {', '.join(seas)}")
        have = sum(1 for f in state.fleets if f.owner == nation and f.sea == sea)
        have += sum(1 for b in state.builds if b[0] == "fleet" and b[2] == sea)
        if have >= rules.building.fleets_per_quadrant:
            raise InputError(f"{where}: {nation} already has {have} fleets in {sea}, the most allowed")
    else:
        sea = ""
        w = state.works_of(province)
        if getattr(w, WORKS[work]) + len(pending) >= _cap(rules, work):
            raise InputError(f"{where}: {province} already has its {work}")
        if work == "temple" and w.suburbs < 1:
            raise InputError(f"{where}: a temple needs suburbs standing in {province} first")
    state = spend_action(state, nation, f"build {work}")
    state = replace(state, builds=state.builds + ((work, province, sea),))
    return state, [Event(state.turn, "actions", "build_ordered", {"nation": nation, "work": work, "province": province,
                                                                  "sea": sea},
                         f"{nation} orders a {work} in {province}" + (f" ({sea})" if sea else ""))]


def complete_builds(state: TurnState, nation: str) -> tuple[TurnState, list[Event]]:
    """The works ``nation`` ordered this turn stand (when it finishes its actions)."""
    events = []
    for work, province, sea in state.builds:
        if work == "fleet":
            fleet = Fleet(state.next_fleet, nation, sea)
            state = replace(state, fleets=state.fleets + (fleet,), next_fleet=state.next_fleet + 1)
            events.append(Event(state.turn, "actions", "built", {"nation": nation, "work": work, "province": province,
                                                                 "sea": sea, "fleet": fleet.id},
                                f"{possessive(nation)} fleet {fleet.id} is at sea in {sea}"))
        else:
            attr = WORKS[work]
            state = state.with_works(province, **{attr: getattr(state.works_of(province), attr) + 1})
            events.append(Event(state.turn, "actions", "built", {"nation": nation, "work": work, "province": province},
                                f"{possessive(nation)} {work} in {province} stands"))
    return replace(state, builds=()), events


def destroy_enemy_work(scenario: Scenario, state: TurnState, rules: Rules, nation: str, province: str,
                       work: str) -> tuple[TurnState, list[Event]]:
    """Earthquake / Great Blaze: ``nation`` destroys a fortification / temple of its choice in a
    province it does not hold (no action; once, in the turn of the event)."""
    choice = {"fortification": "destroy_enemy_fortification", "temple": "destroy_enemy_temple"}.get(work)
    ns = state.nations[nation]
    if choice is None:
        raise InputError(f"{nation} destroy {work}: give fortification or temple")
    if choice not in ns.pending:
        raise InputError(f"{nation} destroy a {work}: it has no event allowing it this turn")
    if province not in scenario.provinces or state.control.get(province) == nation:
        raise InputError(f"{nation} destroy a {work} in {province}: choose a province it does not hold")
    attr = WORKS[work]
    if getattr(state.works_of(province), attr) < 1:
        raise InputError(f"{nation} destroy a {work} in {province}: there is none there")
    state = state.with_works(province, **{attr: getattr(state.works_of(province), attr) - 1})
    pending = list(ns.pending)
    pending.remove(choice)
    state = state.with_nation(nation, pending=tuple(pending))
    return state, [Event(state.turn, "actions", "work_destroyed", {"nation": nation, "province": province, "work": attr,
                                                                   "by": choice},
                         f"{nation} destroys the {work} of {province}")]


def place_artworks(scenario: Scenario, state: TurnState, rules: Rules, nation: str,
                   province: str) -> tuple[TurnState, list[Event]]:
    """Defensive Artworks: ``province`` (``nation``'s) counts as fortified until the turn ends
    (no action; any time before the battles, or only in the nation's own actions: option
    ``artworks_until`` "own_turn")."""
    ns = state.nations[nation]
    if "defensive_artworks" not in ns.pending:
        raise InputError(f"{nation} defensive artworks: it has no such event to place this turn")
    if rules.options.artworks_until == "own_turn" and (state.phase != "actions" or state.acting != nation):
        raise InputError(f"{nation} defensive artworks: under option artworks_until \"own_turn\" they are placed "
                         "in the nation's own turn to act; wait for it")
    if state.control.get(province) != nation:
        raise InputError(f"{nation} defensive artworks in {province}: choose a province it holds")
    pending = list(ns.pending)
    pending.remove("defensive_artworks")
    state = state.with_nation(nation, artworks=province, pending=tuple(pending))
    return state, [Event(state.turn, "actions", "artworks", {"nation": nation, "province": province},
                         f"{nation} raises defensive artworks in {province}")]
