"""The AP treasury: income after Late Autumn, banking in cities, recruiting in winter quarters.

Income (after Late Autumn) is 2 AP for a plain province, 4 for a town province, 6 for a
port province (options.ap_basis: "kind" as just said; "adds": the province's 2 plus 4 or 6
for its town or port; "per_town": 2 plus 4 a town and 6 a port).  A besieged city banks its
own income where it stands; the rest goes to the capital (or, if the capital is lost, to
the first city the nation holds).  AP are banked in cities (:func:`transfer` moves them in
winter between cities not under siege); a city lost to a siege loses its AP to the captor
(sieges.capture).  Recruits are bought in winter quarters at the seed's costs and placed in
a controlled city (options.recruit_at: "any_city" or "capital"); AP banked in a besieged
city buy recruits only in that city.  Recruits bought with an HQ form a new army; without
one they join an army with an HQ in that city (the seed: an HQ is "Required for every
detachment").  No nation fields more units of a kind than its census
(``forces.toml`` ``[census.<nation>]``: the stands its tabletop army owns) allows.
"""

from __future__ import annotations

from dataclasses import replace

from bellica.geo.errors import InputError

from .model import WINTER, Army, Courier, Event, GameState, Navy, Scenario, Unit
from .navies import port_berths
from .rules import Rules

__all__ = ["census_left", "collect_income", "income", "province_ap", "recruit", "transfer"]


def _event(state: GameState, kind: str, data: dict, text: str) -> Event:
    return Event(state.year, str(state.phase), kind, data, text)


def province_ap(scenario: Scenario, rules: Rules, province: str) -> int:
    p = scenario.provinces[province]
    ap = rules.treasury
    basis = rules.options.ap_basis
    if basis == "kind":
        return ap[p.kind]
    if basis == "adds":
        return ap["land"] + (0 if p.kind == "land" else ap[p.kind])
    towns = [x for x in p.towns if x not in p.ports]
    return ap["land"] + ap["town"] * len(towns) + ap["port"] * len(p.ports)


def income(scenario: Scenario, state: GameState, rules: Rules, nation: str) -> dict[str, int]:
    """Province -> AP it yields ``nation`` this winter (a card's plague halves one)."""
    halved = {arg for eff, arg in state.nations[nation].effects if eff == "half_ap"}
    out = {}
    for p in scenario.provinces:
        if state.control.get(p) == nation:
            ap = province_ap(scenario, rules, p)
            out[p] = ap // 2 if p in halved else ap
    return out


def _treasury_city(scenario: Scenario, state: GameState, nation: str) -> str | None:
    capital = scenario.nations[nation].capital
    if state.control.get(capital) == nation and scenario.provinces[capital].city and state.siege(capital) is None:
        return capital
    return next((p for p in scenario.cities() if state.control.get(p) == nation and state.siege(p) is None), None)


def collect_income(scenario: Scenario, state: GameState, rules: Rules) -> tuple[GameState, list[Event]]:
    """Every nation's income into its banks (after Late Autumn)."""
    events: list[Event] = []
    for nation in state.nations:
        by_province = income(scenario, state, rules, nation)
        bank = dict(state.nations[nation].bank)
        home = _treasury_city(scenario, state, nation)
        to_home = 0
        for p, ap in by_province.items():
            if state.siege(p) is not None and scenario.provinces[p].city:
                bank[p] = bank.get(p, 0) + ap
            else:
                to_home += ap
        if home is not None and to_home:
            bank[home] = bank.get(home, 0) + to_home
        total = sum(by_province.values())
        state = state.with_nation(nation, bank=bank, effects=tuple(e for e in state.nations[nation].effects
                                                                   if e[0] != "half_ap"))
        events.append(_event(state, "income", {"nation": nation, "ap": total, "by_province": by_province,
                                               "banked_at": home, "lost": to_home if home is None else 0},
                             f"{nation} collects {total} AP" + (f", banked at {home}" if home else
                                                                " but holds no free city to bank it")))
    return state, events


def transfer(scenario: Scenario, state: GameState, nation: str, source: str, target: str,
             amount: int) -> tuple[GameState, list[Event]]:
    """Move banked AP between two of ``nation``'s cities, in winter, neither under siege."""
    if state.phase != WINTER:
        raise InputError("AP are moved between cities in winter quarters only")
    bank = dict(state.nations[nation].bank)
    for p in (source, target):
        if p not in scenario.provinces or not scenario.provinces[p].city or state.control.get(p) != nation:
            raise InputError(f"{nation}: {p!r} is not a city it holds")
        if state.siege(p) is not None:
            raise InputError(f"{nation}: {p} is under siege: its AP stay there")
    if not 0 < amount <= bank.get(source, 0):
        raise InputError(f"{nation}: {source} holds {bank.get(source, 0)} AP: give 1 to that many")
    bank[source] -= amount
    bank[target] = bank.get(target, 0) + amount
    bank = {k: v for k, v in bank.items() if v}
    return (state.with_nation(nation, bank=bank),
            [_event(state, "ap_moved", {"nation": nation, "from": source, "to": target, "ap": amount},
                    f"{nation} moves {amount} AP from {source} to {target}")])


def _pay(scenario: Scenario, state: GameState, nation: str, at: str, cost: int) -> dict[str, int]:
    """The bank after paying ``cost`` for recruits at ``at``: its own AP first, then (unless
    ``at`` is besieged) other cities' not under siege, in scenario order."""
    bank = dict(state.nations[nation].bank)
    sources = [at] + ([] if state.siege(at) else
                      [p for p in scenario.provinces if p != at and p in bank and state.siege(p) is None])
    due = cost
    for p in sources:
        take = min(due, bank.get(p, 0))
        if take:
            bank[p] -= take
            due -= take
    if due:
        have = sum(bank.get(p, 0) for p in sources) + cost - due
        raise InputError(f"{nation}: recruits at {at} cost {cost} AP but only {have} AP can pay for them there")
    return {k: v for k, v in bank.items() if v}


def census_left(scenario: Scenario, state: GameState, nation: str, kind: str) -> int | None:
    """How many more ``kind`` (a unit kind, "navy" or "courier") ``nation`` may field under its
    census (``forces.toml`` ``[census.<nation>]``); None: the census does not limit that kind."""
    limit = (scenario.forces.get("census", {}).get(nation) or {}).get(kind)
    if limit is None:
        return None
    if kind == "navy":
        have = sum(1 for n in state.navies if n.nation == nation)
    elif kind == "courier":
        have = sum(1 for c in state.couriers if c.nation == nation)
    else:
        # a city's garrison is the city's, not a stand of the nation's tabletop army
        have = sum(1 for a in state.armies if a.nation == nation and not a.garrison for u in a.units if u.kind == kind)
    return max(0, int(limit) - have)


def recruit(scenario: Scenario, state: GameState, rules: Rules, nation: str, at: str, kinds: list[str], *,
            quality: str = "line", free: bool = False, why: str = "winter") -> tuple[GameState, list[Event]]:
    """Buy ``kinds`` (unit kinds, "courier", "navy") at city ``at``.  ``free``: a card's gift
    (no cost, any phase)."""
    if not free and state.phase != WINTER:
        raise InputError(f"{nation}: recruits are bought in winter quarters (or come from chance cards)")
    prov = scenario.provinces.get(at)
    if prov is None or not prov.city or state.control.get(at) != nation:
        raise InputError(f"{nation}: {at!r} is not a city it holds: recruit in one of its cities")
    if rules.options.recruit_at == "capital" and at != scenario.nations[nation].capital:
        raise InputError(f"{nation}: recruits appear in its capital {scenario.nations[nation].capital} "
                         "(options.recruit_at = \"capital\")")
    for k in kinds:
        if k not in rules.costs:
            raise InputError(f"{nation}: cannot recruit {k!r}: use one of {', '.join(rules.costs)}")
    for k in dict.fromkeys(kinds):
        left = census_left(scenario, state, nation, k)
        if left is not None and kinds.count(k) > left:
            raise InputError(f"{nation}: its census allows {left} more {k}: recruit no more than that")
    troops = [k for k in kinds if k not in ("courier", "navy")]
    # "4AP: HQ (Required for every detachment)": recruits with an HQ form a new army; without
    # one they join the nation's army with an HQ in that city (the lowest-numbered); with none
    # there, a winter purchase is refused and a card's levy waits in the city for an HQ
    # (standing "hold", as an army that lost its last HQ).  docs/rules/trossian.md.
    host = None
    if troops and "hq" not in troops:
        host = min((a for a in state.armies if a.nation == nation and a.province == at and not a.aboard
                    and a.has_hq), key=lambda a: a.id, default=None)
        if host is None and not free:
            raise InputError(f"{nation}: recruits at {at} need an HQ (required for every detachment) and no army "
                             f"of {nation} with one stands there: add --unit hq (4 AP) or recruit where one stands")
    cost = 0 if free else sum(rules.costs[k] for k in kinds)
    bank = state.nations[nation].bank if free else _pay(scenario, state, nation, at, cost)
    state = state.with_nation(nation, bank=bank)
    events: list[Event] = []
    if troops and host is not None:
        unit_ids, state = state.ids(len(troops))
        units = tuple(Unit(i, k, quality) for i, k in zip(unit_ids, troops))
        state = state.with_armies(replace(host, units=host.units + units))
        events.append(_event(state, "recruited", {"nation": nation, "at": at, "army": host.id, "units": troops,
                                                  "cost": cost, "why": why, "joined": True},
                             f"{nation} raises {', '.join(troops)} at {at} (joining army {host.id}, {cost} AP)"))
    elif troops:
        ids, state = state.ids(len(troops) + 1)
        army_id, unit_ids = ids[0], ids[1:]
        units = tuple(Unit(i, k, quality) for i, k in zip(unit_ids, troops))
        standing = "" if "hq" in troops else "hold"
        state = state.with_armies(Army(army_id, nation, at, units, name=f"recruits {state.year}", standing=standing))
        events.append(_event(state, "recruited", {"nation": nation, "at": at, "army": army_id, "units": troops,
                                                  "cost": cost, "why": why},
                             f"{nation} raises {', '.join(troops)} at {at} (army {army_id}, {cost} AP"
                             + (")" if not standing else "; no HQ: it holds until one joins it)")))
    for k in kinds:
        if k == "courier":
            (cid,), state = state.ids(1)
            state = state.with_couriers(Courier(cid, nation, at))
            events.append(_event(state, "recruited", {"nation": nation, "at": at, "courier": cid, "why": why},
                                 f"{nation} engages courier {cid} at {at}"))
        elif k == "navy":
            port = next((t for t in prov.ports if port_berths(state, t) < rules.navies.port_capacity), None)
            if port is None:
                raise InputError(f"{nation}: a navy is built in a port with room: {at} has "
                                 + ("none" if not prov.ports else "no free berth"))
            (nid,), state = state.ids(1)
            state = state.with_navies(Navy(nid, nation, scenario.towns[port].lane, f"port:{port}"))
            events.append(_event(state, "recruited", {"nation": nation, "at": at, "navy": nid, "why": why},
                                 f"{nation} builds navy {nid} at {port}"))
    return state, events
