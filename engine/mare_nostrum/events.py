"""The random events: one for each nation every turn, from its wheel's second number.

:func:`draw_events` reads each playing nation's event number (in the order of play), finds
its band in the rules' 1-90 table and applies it: stability and naval points at once, the
action change through :func:`~bellica.engine.mare_nostrum.actions.allot_actions`, the turn's
conditions as the nation's ``effects`` (Siege Train, Internal Conspiracy, Military Training,
Defensive Artworks) and the choices it may still make as ``pending`` (Earthquake, Great
Blaze, the Defensive Artworks' province).  An own fortification, temple or fleet lost to an
event is picked by a lottery number among those the nation has (the seed does not say whose
choice it is).  An invasion reads the wheel's third number (1-45 the first province the seed
names for the nation, 46-90 the second) and declares a land battle of the invaders, played
by the player the seed names; a province already lost to an enemy or independent is spared.

Pirates attack one of the nation's fleets at once (a naval battle, one fleet each) and stay
in that quadrant; they attack every other fleet there once a turn (:func:`pirate_raids`, run
after the turn's events so that Naval Technology counts), from the next turn on (option
``pirates_raid_others``: or already this turn), until beaten.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Collection

from .battles import invaders_player, sea_battle
from .lottery import Lottery, pick
from .model import Attack, Event, Fleet, Scenario, TurnState, pirates_name, possessive
from .rules import EventBand, Rules
from .stability import change_stability

__all__ = ["apply_event", "draw_events", "invasion_target", "pirate_raids"]

#: Effects kept as the nation's conditions this turn.
CONDITIONS = ("own_single_commander", "siege_train", "defensive_artworks", "enemy_single_commander")
#: Effects that leave the nation a choice to make this turn.
CHOICES = ("defensive_artworks", "destroy_enemy_fortification", "destroy_enemy_temple")


def invasion_target(scenario: Scenario, rules: Rules, nation: str, number: int) -> str | None:
    """The province the invaders of ``nation`` attack on a third number of ``number``."""
    invaders = scenario.invaders_of(nation)
    if not invaders:
        return None
    idx = 0 if number <= rules.lottery.invasion_first_max else 1
    return invaders[min(idx, len(invaders) - 1)].province


def draw_events(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery) -> tuple[TurnState, list[Event]]:
    """Every playing nation's random event for the turn (``state.draws`` must hold its wheel)."""
    events: list[Event] = []
    chosen = dict(state.events)
    pos = rules.lottery.event_number
    for nation in state.order:
        if not state.nations[nation].playing:
            continue
        nums = state.draws[nation]
        band = rules.event(nums[pos - 1])
        chosen[nation] = band.key
        state = replace(state, events=chosen)
        state, more = apply_event(scenario, state, rules, lottery, nation, band, nums)
        events += more
    return state, events


def apply_event(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery, nation: str, band: EventBand,
                numbers: tuple[int, ...] = ()) -> tuple[TurnState, list[Event]]:
    """Apply one event of the table to ``nation`` (``numbers``: its wheel, for an invasion)."""
    turn = state.turn
    events = [Event(turn, "events", "random_event", {"nation": nation, "event": band.key, "title": band.title,
                                                     "number": numbers[rules.lottery.event_number - 1] if numbers else None,
                                                     "stability": band.stability, "actions": band.actions,
                                                     "naval": band.naval, "effect": band.effect},
                    f"{nation}: {band.title}")]
    ns = state.nations[nation]
    state = state.with_nation(nation, naval_bonus=ns.naval_bonus + band.naval,
                              effects=ns.effects | ({band.effect} if band.effect in CONDITIONS else set()),
                              pending=ns.pending + ((band.effect,) if band.effect in CHOICES else ()))
    if band.stability:
        state, more = change_stability(scenario, state, rules, nation, band.stability, band.title)
        events += more
        if not state.nations[nation].playing:
            return state, events
    e = band.effect
    if e in ("lose_fortification", "lose_temple"):
        attr = "fortifications" if e == "lose_fortification" else "temples"
        have = [p for p, w in state.works.items() if state.control.get(p) == nation and getattr(w, attr) > 0]
        if have:
            prov, d = pick(lottery, have, band.key, turn, nation)
            state = state.with_works(prov, **{attr: getattr(state.works_of(prov), attr) - 1})
            events.append(Event(turn, "events", "work_destroyed", {"nation": nation, "province": prov, "work": attr,
                                                                   "number": d.value if d else None},
                                f"{nation}: {band.title} destroys a {attr[:-1]} in {prov}"))
    elif e == "fleet_sinks":
        own = [f for f in state.fleets if f.owner == nation]
        if own:
            fid, d = pick(lottery, [f"{f.id:06d}" for f in own], band.key, turn, nation)
            fleet = next(f for f in own if f.id == int(fid))
            state = replace(state, fleets=tuple(f for f in state.fleets if f.id != fleet.id))
            events.append(Event(turn, "events", "fleet_sunk", {"nation": nation, "fleet": fleet.id, "sea": fleet.sea},
                                f"{nation}: a Great Storm sinks fleet {fleet.id} in {fleet.sea}"))
    elif e == "invasion":
        state, more = _invasion(scenario, state, rules, nation, numbers)
        events += more
    elif e == "pirates":
        own = [f for f in state.fleets if f.owner == nation]
        if own:
            fid, _d = pick(lottery, [f"{f.id:06d}" for f in own], band.key, turn, nation)
            fleet = next(f for f in own if f.id == int(fid))
            pirates = Fleet(state.next_fleet, pirates_name(rules), fleet.sea)
            state = replace(state, fleets=state.fleets + (pirates,), next_fleet=state.next_fleet + 1)
            events.append(Event(turn, "events", "pirates", {"nation": nation, "sea": fleet.sea, "fleet": pirates.id,
                                                            "victim": fleet.id},
                                f"pirates appear in {fleet.sea} and attack {possessive(nation)} fleet {fleet.id}"))
            state, _res, more = sea_battle(state, rules, lottery, fleet.sea, pirates.owner, [pirates], nation, [fleet],
                                           f"pirates {pirates.id}", phase="events")
            events += more
    return state, events


def _invasion(scenario: Scenario, state: TurnState, rules: Rules, nation: str,
              numbers: tuple[int, ...]) -> tuple[TurnState, list[Event]]:
    pos = rules.lottery.invasion_number
    number = numbers[pos - 1] if len(numbers) >= pos else None
    target = invasion_target(scenario, rules, nation, number) if number is not None else None
    if target is None:
        return state, [Event(state.turn, "events", "invasion", {"nation": nation, "number": number, "province": None},
                             f"{nation}: no province for invaders")]
    inv = scenario.invader_at(target)
    if state.control.get(target) != nation or target in state.attacked():
        return state, [Event(state.turn, "events", "invasion", {"nation": nation, "number": number, "province": target,
                                                                "spared": True},
                             f"{nation}: invaders ({inv.army}) find {target} no longer {possessive(nation)}: no effect")]
    a = Attack(seq=len(state.attacks) + 1, kind="invasion", attacker=None, target=target, defender=nation,
               army=inv.army, managed_by=inv.managed_by)
    state = replace(state, attacks=state.attacks + (a,))
    events = [Event(state.turn, "events", "invasion", {"nation": nation, "number": number, "province": target,
                                                       "army": inv.army, "managed_by": inv.managed_by, "seq": a.seq},
                    f"{nation}: {inv.army} invade {target} (played by {invaders_player(state, inv.managed_by)})")]
    if rules.options.temple_loss == "invasion_event" and state.works_of(target).temples:
        state = state.with_works(target, temples=0)
        events.append(Event(state.turn, "events", "work_destroyed", {"nation": nation, "province": target, "work": "temples"},
                            f"the invasion destroys {possessive(target)} temple"))
    return state, events


def pirate_raids(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery, *,
                 only: Collection[int] | None = None, spare: Collection[tuple[int, int]] = ()
                 ) -> tuple[TurnState, list[Event]]:
    """Pirates at sea attack every fleet in their quadrant once, in the order of play.

    ``only``: the pirate fleets (ids) that raid (None: all); ``spare``: (pirates, fleet) pairs
    that have already fought this turn and do not fight again."""
    events: list[Event] = []
    rank = {n: i for i, n in enumerate(state.order)}
    spared = set(spare)
    owner = pirates_name(rules)
    for pirates in [f for f in state.fleets if f.owner == owner and (only is None or f.id in only)]:
        victims = sorted((f for f in state.fleets if f.sea == pirates.sea and f.owner != owner
                          and (pirates.id, f.id) not in spared),
                         key=lambda f: (rank.get(f.owner, len(rank)), f.id))
        for victim in victims:
            if pirates not in state.fleets:
                break
            if victim not in state.fleets:
                continue
            state, _res, more = sea_battle(state, rules, lottery, pirates.sea, owner, [pirates], victim.owner, [victim],
                                           f"pirates {pirates.id} raid {victim.id}", phase="events")
            events += more
    return state, events
