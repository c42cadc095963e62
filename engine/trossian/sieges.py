"""Pacification and sieges: taking a province by holding it with 20 AP for a full phase.

At the end of each phase, a nation with at least 20 AP of troops (HQs not counted unless
options.pacify_counts_hq) that stayed all phase in a province held by an enemy or by no one
pacifies it for that phase.  A battle there, or a hostile army entering, spoils the phase
(options.pacification_interrupt: "pause", that month lost, or "restart" from nothing).
When the phases done reach the phases needed (pacification.phases; +1 for a port siege
that lasted through a winter) the province changes hands: AP banked in it are captured, navies in its ports are
captured.  A port does not count as besieged without a navy of the besieger's side in the
lane of one of its ports at the end of every phase of the siege (options.unblockaded_port
"restart": a phase without one undoes the phases done; "no_progress": it only counts for
nothing; "ignore").  Troops aboard navies in a port that is besieged land to defend it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .model import WINTER, Army, Event, GameState, Scenario, Siege, Unit
from .rules import Rules

__all__ = ["blockaded", "capture", "pacification", "raise_garrisons", "troop_ap", "winter_garrisons", "winter_sieges"]


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def troop_ap(rules: Rules, armies: Sequence[Army]) -> int:
    """The AP worth of ``armies``' units (their recruiting costs; HQs per the option)."""
    return sum(rules.costs[u.kind] for a in armies for u in a.units
               if u.kind != "hq" or rules.options.pacify_counts_hq)


def blockaded(scenario: Scenario, state: GameState, province: str, nation: str) -> bool:
    """A navy of ``nation`` or an ally, out of port, in the lane of one of ``province``'s ports,
    and there the whole phase (it has not sailed in, put into a port or out of one:
    ``state.sailed``)."""
    lanes = {scenario.towns[t].lane for t in scenario.provinces[province].ports}
    return any(n.lane in lanes and not n.port and n.id not in state.sailed and not state.hostile(n.nation, nation)
               for n in state.navies)


def capture(scenario: Scenario, state: GameState, province: str, nation: str) -> tuple[GameState, list[Event]]:
    """``nation`` takes ``province``: its control, the AP banked there, the navies in its ports."""
    old = state.control.get(province)
    control = dict(state.control)
    control[province] = nation
    state = replace(state, control=control)
    events = [_event(state, "province_taken", {"province": province, "nation": nation, "from": old},
                     f"{nation} takes {province}" + (f" from {old}" if old else ""))]
    if old is not None and old in state.nations:
        bank = dict(state.nations[old].bank)
        ap = bank.pop(province, 0)
        state = state.with_nation(old, bank=bank)
        if ap:
            mine = dict(state.nations[nation].bank)
            mine[province] = mine.get(province, 0) + ap
            state = state.with_nation(nation, bank=mine)
            events.append(_event(state, "bank_captured", {"province": province, "nation": nation, "from": old, "ap": ap},
                                 f"{nation} captures {ap} AP banked in {province}"))
    ports = {f"port:{t}" for t in scenario.provinces[province].ports}
    for navy in state.navies:
        if navy.berth in ports and state.hostile(navy.nation, nation):
            state = state.with_navies(replace(navy, nation=nation))
            events.append(_event(state, "navy_captured", {"navy": navy.id, "nation": nation, "from": navy.nation},
                                 f"{nation} captures {navy.nation}'s navy {navy.id} in {navy.port}"))
    return state, events


def _land_cargo(scenario: Scenario, state: GameState, province: str) -> GameState:
    ports = {f"port:{t}" for t in scenario.provinces[province].ports}
    aboard = {n.id for n in state.navies if n.berth in ports}
    landed = [replace(a, aboard=0, province=province) for a in state.armies if a.aboard in aboard]
    return state.with_armies(*landed) if landed else state


def pacification(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """The end-of-phase pacification of every province (scenario order)."""
    events: list[Event] = []
    sieges = {s.province: s for s in state.sieges}
    for province, prov in scenario.provinces.items():
        holder = state.control.get(province)
        here = [a for a in state.armies_in(province) if a.nation != holder and not a.garrison  # a garrison pacifies nothing
                and (holder is None or state.hostile(a.nation, holder))]
        nations = list(dict.fromkeys(a.nation for a in here))
        siege = sieges.get(province)
        if len(nations) != 1:
            if siege and not nations:
                del sieges[province]
                events.append(_event(state, "siege_lifted", {"province": province, "nation": siege.nation},
                                     f"{siege.nation}'s pacification of {province} ends: no troops remain"))
            continue
        nation = nations[0]
        if siege and siege.nation != nation:
            siege = None
        stayed = [a for a in here if not a.moved]
        ap = troop_ap(rules, stayed)
        if ap < rules.pacification.ap:
            if siege:
                del sieges[province]
                events.append(_event(state, "siege_lifted", {"province": province, "nation": nation, "ap": ap},
                                     f"{nation} has {ap} AP in {province}, below {rules.pacification.ap}: no pacification"))
            continue
        if siege is None:
            siege = Siege(province, nation, 0, rules.pacification.phases)
        if prov.ports:
            # troops aboard in a besieged port land for the siege (each phase, so none is
            # still aboard a navy captured with the port)
            state = _land_cargo(scenario, state, province)
        spoiled = province in state.contested or any(p == province and state.hostile(n, nation) for p, n in state.entries)
        if spoiled:
            events.append(_event(state, "pacification_spoiled", {"province": province, "nation": nation},
                                 f"movement or battle in {province} spoils {nation}'s pacification this phase"))
            if rules.options.pacification_interrupt == "restart":
                sieges.pop(province, None)
            else:
                sieges[province] = siege
            continue
        if prov.ports and holder is not None and rules.options.unblockaded_port != "ignore" \
                and not blockaded(scenario, state, province, nation):
            # the navy that went back to port for the winter sails out again in Early Spring: the
            # seed prices that lifted blockade as the winter's one extra phase, so it undoes nothing
            back_from_winter = siege.wintered and state.phase == 0 and rules.options.navies_winter_in_port
            if rules.options.unblockaded_port == "restart" and not back_from_winter:
                siege = replace(siege, done=0)
            sieges[province] = siege
            events.append(_event(state, "siege_unblockaded", {"province": province, "nation": nation},
                                 f"{province} is supplied by sea: no {nation} navy blockades its port, the siege makes no progress"))
            continue
        siege = replace(siege, done=siege.done + 1)
        events.append(_event(state, "pacification", {"province": province, "nation": nation, "done": siege.done,
                                                     "needed": siege.needed, "ap": ap},
                             f"{nation} pacifies {province}: {siege.done} of {siege.needed} phases"))
        if siege.done >= siege.needed:
            sieges.pop(province, None)
            state = replace(state, sieges=tuple(sieges.values()))
            state, evs = capture(scenario, state, province, nation)
            events += evs
            continue
        sieges[province] = siege
    return replace(state, sieges=tuple(sieges.values())), events


def winter_sieges(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """Sieges last through winter; a port siege that does costs one more phase (once a winter)."""
    events: list[Event] = []
    out = []
    for s in state.sieges:
        if scenario.provinces[s.province].ports and state.phase == WINTER and not s.wintered:
            s = replace(s, needed=s.needed + rules.pacification.winter_port_extra, wintered=True)
            events.append(_event(state, "siege_winter", {"province": s.province, "nation": s.nation, "needed": s.needed},
                                 f"the blockade of {s.province} lifts for the winter: the siege needs {s.needed} phases"))
        out.append(s)
    return replace(state, sieges=tuple(out)), events


# --- city garrisons ("Every city possesses a garrison") --------------------------------------------


#: The name a neutral city's garrison fights under: "neutral Serbia" (no nation of the scenario).
NEUTRAL = "neutral "


def raise_garrisons(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """Before the battles are found: in every city province (scenario order) held by a nation where
    an army hostile to it stands, the city's garrison (pacification.garrison_town / _port) turns out
    as an army of the holder (``standing`` "garrison"), so a battle opens against it, unless it was
    beaten already (``state.ungarrisoned``), or (options.garrison_fights "alone") an army of the
    holder or an ally stands there to fight instead.  A city nobody holds fields its garrison as
    "neutral PROVINCE" (options.neutral_garrisons), an enemy of every nation."""
    events: list[Event] = []
    for province, prov in scenario.provinces.items():
        holder = state.control.get(province)
        if holder is None and rules.options.neutral_garrisons:
            holder = NEUTRAL + province  # a city nobody holds: its garrison is hostile to every nation
        kinds = rules.pacification.garrison(prov.kind)
        if holder is None or not kinds or province in state.ungarrisoned:
            continue
        here = state.armies_in(province)
        if any(a.garrison for a in here) or not any(state.hostile(a.nation, holder) for a in here):
            continue
        if rules.options.garrison_fights == "alone" and any(not state.hostile(a.nation, holder) for a in here):
            continue
        ids, state = state.ids(1 + len(kinds))
        army = Army(ids[0], holder, province, tuple(Unit(i, k) for i, k in zip(ids[1:], kinds)),
                    standing="garrison", name=f"garrison of {prov.seat}")
        state = state.with_armies(army)
        events.append(_event(state, "garrison_stands", {"army": army.id, "nation": holder, "province": province,
                                                        "units": list(kinds)},
                             f"the garrison of {province} ({holder}: {', '.join(kinds)}) stands as army {army.id}"))
    return state, events


def winter_garrisons(scenario: Scenario, state: GameState) -> tuple[GameState, list[Event]]:
    """In winter quarters the garrisons go back within their walls (their armies leave the board) and
    every beaten one is raised again, save in a city still under siege."""
    gone = tuple(a.id for a in state.armies if a.garrison)
    besieged = {s.province for s in state.sieges}
    raised = sorted(p for p in state.ungarrisoned if p not in besieged)
    state = replace(state.with_armies(drop=gone), ungarrisoned=state.ungarrisoned & besieged)
    return state, ([_event(state, "garrisons_raised", {"provinces": raised},
                           f"winter quarters: the garrisons of {', '.join(raised)} are raised again")] if raised else [])
