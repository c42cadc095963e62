"""Value objects of the Trossian campaign: the static world and the state of a phase.

Every rule is a pure function: it takes the :class:`Scenario`, the :class:`GameState`, the
:class:`~bellica.engine.trossian.rules.Rules`, the player's choices and (when it needs
chance) a :class:`~bellica.engine.trossian.dice.Dice`, and returns ``(new_state, [Event,
...])``.  Nothing here mutates; use :func:`dataclasses.replace`.  Mappings inside the frozen
classes are read-only by convention.  :func:`state_to_dict` / :func:`state_from_dict` give
the state as JSON-able data and back (what a campaign table stores).

Where things are: an army is in a province, or aboard a navy (``aboard`` = the navy's id,
``province`` then its last province); a navy is in a sea lane (``lane``), and at a
``berth`` in it: "" out at sea, ``"port:<town>"`` in a port, ``"coast:<province>"``
lying off a province's coast (the seed's "ports and coastlines as a separate sea-lane");
a courier is in a province or a lane (``mode`` "horse" or "ship").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Mapping

from bellica.engine.core.events import Event

__all__ = [
    "Army", "Battle", "Courier", "Event", "GameState", "Lane", "Nation", "NationState", "Navy", "Province",
    "Scenario", "Siege", "Town", "Unit", "WINTER", "state_from_dict", "state_to_dict",
]

#: ``GameState.phase`` during winter quarters (after the last phase of the year).
WINTER = -1


@dataclass(frozen=True)
class Town:
    """A town of a province: ``port`` (a harbour navies may use) or ``lane`` (the sea lane a
    coastal town lies on; "" inland).  Couriers change horse for boat at any coastal town."""

    name: str
    province: str
    lon: float
    lat: float
    port: bool = False
    lane: str = ""

    @property
    def coastal(self) -> bool:
        return bool(self.lane)


@dataclass(frozen=True)
class Province:
    """A province: ``home`` the nation whose homeland it is (None: none); ``towns`` its towns
    (names, the seat first); ``coast`` the lanes its shore touches (landings of up to the
    beach load are possible from them)."""

    name: str
    seat: str
    lon: float
    lat: float
    home: str | None = None
    towns: tuple[str, ...] = ()
    ports: tuple[str, ...] = ()
    coast: tuple[str, ...] = ()
    note: str = ""

    @property
    def kind(self) -> str:
        """"port", "town" or "land": what the seed's AP table reads."""
        return "port" if self.ports else "town" if self.towns else "land"

    @property
    def city(self) -> bool:
        """A city province (a town or a port): it banks AP, recruits and must be besieged."""
        return bool(self.towns)


@dataclass(frozen=True)
class Lane:
    name: str
    freezes: bool = False
    note: str = ""


@dataclass(frozen=True)
class Nation:
    name: str
    capital: str
    """The province of its king's city (where couriers start, where banking defaults)."""
    colour: str = "#808080"
    note: str = ""


@dataclass(frozen=True)
class Scenario:
    """The static world: provinces, towns, lanes, nations, land borders, roads, lane links,
    and the starting census (``forces``: the loader's parsed starting state parts)."""

    name: str
    title: str
    year: int
    provinces: Mapping[str, Province]
    towns: Mapping[str, Town]
    lanes: Mapping[str, Lane]
    nations: Mapping[str, Nation]
    borders: frozenset[frozenset[str]]
    roads: frozenset[frozenset[str]]
    lane_links: frozenset[frozenset[str]]
    holders: Mapping[str, str | None] = field(default_factory=dict)
    forces: Mapping[str, Any] = field(default_factory=dict)
    cards: tuple[Mapping[str, Any], ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def neighbours(self, province: str) -> tuple[str, ...]:
        return tuple(p for p in self.provinces if p != province and frozenset((p, province)) in self.borders)

    def adjacent(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.borders

    def road(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.roads

    def lane_neighbours(self, lane: str) -> tuple[str, ...]:
        return tuple(x for x in self.lanes if x != lane and frozenset((x, lane)) in self.lane_links)

    def lanes_of(self, province: str) -> tuple[str, ...]:
        """The lanes a province touches: its shore and its towns' lanes."""
        p = self.provinces[province]
        found = list(p.coast)
        for t in p.towns:
            lane = self.towns[t].lane
            if lane and lane not in found:
                found.append(lane)
        return tuple(found)

    def cities(self) -> tuple[str, ...]:
        return tuple(p for p, v in self.provinces.items() if v.city)

    def homes(self, nation: str) -> tuple[str, ...]:
        return tuple(p for p, v in self.provinces.items() if v.home == nation)


# --- the state ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A stand of the tabletop army: ``kind`` (costs and arms in the rules), ``quality``
    "line", "guard" or "militia"."""

    id: int
    kind: str
    quality: str = "line"


@dataclass(frozen=True)
class Army:
    """A detachment.  ``rest``: phases it must stay still (victor's rest, draw's freeze);
    ``moved``: it moved (or fought) this phase; ``standing``: the order of an army that has
    lost its last HQ ("hold" or "home"; "" while it has one).  Recruits are raised in winter
    quarters, when no army moves, so they first act in Early Spring."""

    id: int
    nation: str
    province: str
    units: tuple[Unit, ...]
    aboard: int = 0
    rest: int = 0
    moved: bool = False
    fought: bool = False
    standing: str = ""
    name: str = ""
    order: tuple[str, ...] = ()
    """The order it obeys (options.couriers_carry_orders): ``("march", P, ...)`` the provinces still
    to enter, ``("hold",)``; () none yet (it holds).  Its nation's secret."""
    order_from: str = ""
    """How and when that order reached it ("courier 74, Mid Spring 1806")."""

    @property
    def garrison(self) -> bool:
        """A city's garrison (``standing`` "garrison"): it never marches, retreats nor leaves its city."""
        return self.standing == "garrison"

    @property
    def has_hq(self) -> bool:
        return any(u.kind == "hq" for u in self.units)


@dataclass(frozen=True)
class Navy:
    id: int
    nation: str
    lane: str
    berth: str = ""
    actions: int = 0
    """Actions taken this phase."""

    @property
    def at_sea(self) -> bool:
        return self.berth == ""

    @property
    def port(self) -> str:
        return self.berth[5:] if self.berth.startswith("port:") else ""


@dataclass(frozen=True)
class Courier:
    """A messenger: ``where`` a province or a lane, ``mode`` "horse" or "ship"; ``message``
    the order it carries, ``to`` whom (an army id as text, a nation, a province)."""

    id: int
    nation: str
    where: str
    mode: str = "horse"
    message: str = ""
    to: str = ""
    moved: bool = False
    order: tuple[str, ...] = ()
    """The order its message gives the army it is for (as :attr:`Army.order`); () none."""


@dataclass(frozen=True)
class Siege:
    """Pacification (of a city: a siege) of ``province`` by ``nation``: ``done`` full phases
    so far, ``needed`` in all (raised by one for a port siege that lasts through a winter;
    ``wintered`` says it has been)."""

    province: str
    nation: str
    done: int = 0
    needed: int = 1
    wintered: bool = False


@dataclass(frozen=True)
class Battle:
    """A battle to be fought on the table: ``sides`` two tuples of army ids."""

    id: int
    province: str
    sides: tuple[tuple[int, ...], tuple[int, ...]]
    nations: tuple[tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class NationState:
    """``bank``: AP held in each city (by province); ``schedule``: the phases (0-based) its
    chance cards fall this year; ``effects``: card effects in force (e.g. plague ports);
    ``intelligence``: messages its enemies lost to it (captured couriers)."""

    name: str
    bank: Mapping[str, int] = field(default_factory=dict)
    schedule: tuple[int, ...] = ()
    effects: tuple[tuple[str, str], ...] = ()
    intelligence: tuple[str, ...] = ()

    @property
    def treasury(self) -> int:
        return sum(self.bank.values())


@dataclass(frozen=True)
class GameState:
    """Everything the steps read and change.  ``phase``: 0-8 (index into the calendar) or
    :data:`WINTER`; ``control``: province -> nation or None."""

    year: int
    phase: int
    control: Mapping[str, str | None]
    nations: Mapping[str, NationState]
    armies: tuple[Army, ...] = ()
    navies: tuple[Navy, ...] = ()
    couriers: tuple[Courier, ...] = ()
    sieges: tuple[Siege, ...] = ()
    battles: tuple[Battle, ...] = ()
    alliances: frozenset[frozenset[str]] = frozenset()
    contested: frozenset[str] = frozenset()
    """Provinces where a battle was fought this phase (it spoils pacification there)."""
    entries: frozenset[tuple[str, str]] = frozenset()
    """(province, nation): armies of ``nation`` entered ``province`` this phase."""
    scheduled: int = 0
    """The year whose chance-card schedule has been rolled."""
    next_id: int = 1
    offers: frozenset[tuple[str, str]] = frozenset()
    """(nation, partner): alliances offered and not yet accepted (:func:`turn.diplomacy`)."""
    sailed: frozenset[int] = frozenset()
    """Navies that sailed into a lane, put into a port or put out of one this phase: they were
    not in their lane's waters the whole phase, so they blockade no port this phase."""
    ungarrisoned: frozenset[str] = frozenset()
    """City provinces whose garrison has been beaten (it is raised again in winter quarters)."""

    # -- lookups
    def army(self, army_id: int) -> Army:
        for a in self.armies:
            if a.id == army_id:
                return a
        raise KeyError(army_id)

    def navy(self, navy_id: int) -> Navy:
        for n in self.navies:
            if n.id == navy_id:
                return n
        raise KeyError(navy_id)

    def courier(self, courier_id: int) -> Courier:
        for c in self.couriers:
            if c.id == courier_id:
                return c
        raise KeyError(courier_id)

    def hostile(self, a: str | None, b: str | None) -> bool:
        return a is not None and b is not None and a != b and frozenset((a, b)) not in self.alliances

    def armies_in(self, province: str, nation: str | None = None) -> tuple[Army, ...]:
        return tuple(a for a in self.armies if a.province == province and not a.aboard
                     and (nation is None or a.nation == nation))

    def enemies_in(self, province: str, nation: str) -> tuple[Army, ...]:
        return tuple(a for a in self.armies_in(province) if self.hostile(a.nation, nation))

    def navies_in(self, lane: str) -> tuple[Navy, ...]:
        return tuple(n for n in self.navies if n.lane == lane)

    def siege(self, province: str) -> Siege | None:
        return next((s for s in self.sieges if s.province == province), None)

    # -- changes
    def with_armies(self, *armies: Army, drop: tuple[int, ...] = ()) -> "GameState":
        new = {a.id: a for a in armies}
        kept = [new.pop(a.id, a) for a in self.armies if a.id not in drop]
        return replace(self, armies=tuple(kept) + tuple(new.values()))

    def with_navies(self, *navies: Navy, drop: tuple[int, ...] = ()) -> "GameState":
        new = {n.id: n for n in navies}
        kept = [new.pop(n.id, n) for n in self.navies if n.id not in drop]
        return replace(self, navies=tuple(kept) + tuple(new.values()))

    def with_couriers(self, *couriers: Courier, drop: tuple[int, ...] = ()) -> "GameState":
        new = {c.id: c for c in couriers}
        kept = [new.pop(c.id, c) for c in self.couriers if c.id not in drop]
        return replace(self, couriers=tuple(kept) + tuple(new.values()))

    def with_nation(self, name: str, **changes) -> "GameState":
        nations = dict(self.nations)
        nations[name] = replace(nations[name], **changes)
        return replace(self, nations=nations)

    def ids(self, count: int) -> tuple[tuple[int, ...], "GameState"]:
        """``count`` fresh ids and the state that has used them."""
        return tuple(range(self.next_id, self.next_id + count)), replace(self, next_id=self.next_id + count)


# --- JSON ------------------------------------------------------------------------------------


def state_to_dict(state: GameState) -> dict:
    """The state as JSON-able data (lists and dicts of plain values)."""
    data = asdict(state)
    data["alliances"] = sorted(sorted(p) for p in state.alliances)
    data["contested"] = sorted(state.contested)
    data["entries"] = sorted(list(e) for e in state.entries)
    data["offers"] = sorted(list(o) for o in state.offers)
    data["sailed"] = sorted(state.sailed)
    data["ungarrisoned"] = sorted(state.ungarrisoned)
    return _lists(data)


def _lists(value):
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value


def state_from_dict(data: Mapping[str, Any]) -> GameState:
    """The inverse of :func:`state_to_dict`."""
    def army(d):
        d = dict(d)
        d["units"] = tuple(Unit(**u) for u in d["units"])
        d["order"] = tuple(d.get("order", ()))
        return Army(**d)

    def courier(d):
        d = dict(d)
        d["order"] = tuple(d.get("order", ()))
        return Courier(**d)

    def nation(d):
        d = dict(d)
        d["bank"] = dict(d.get("bank", {}))
        d["schedule"] = tuple(d.get("schedule", ()))
        d["effects"] = tuple(tuple(e) for e in d.get("effects", ()))
        d["intelligence"] = tuple(d.get("intelligence", ()))
        return NationState(**d)

    def battle(d):
        return Battle(id=d["id"], province=d["province"], sides=tuple(tuple(s) for s in d["sides"]),
                      nations=tuple(tuple(s) for s in d["nations"]))

    known = {f.name for f in fields(GameState)}
    unknown = set(data) - known
    if unknown:
        from bellica.geo.errors import InputError
        raise InputError(f"trossian state: unknown key(s) {sorted(unknown)}: use {', '.join(sorted(known))}")
    return GameState(
        year=int(data["year"]), phase=int(data["phase"]), control=dict(data["control"]),
        nations={k: nation(v) for k, v in data["nations"].items()},
        armies=tuple(army(a) for a in data.get("armies", ())),
        navies=tuple(Navy(**n) for n in data.get("navies", ())),
        couriers=tuple(courier(c) for c in data.get("couriers", ())),
        sieges=tuple(Siege(**s) for s in data.get("sieges", ())),
        battles=tuple(battle(b) for b in data.get("battles", ())),
        alliances=frozenset(frozenset(p) for p in data.get("alliances", ())),
        contested=frozenset(data.get("contested", ())),
        entries=frozenset(tuple(e) for e in data.get("entries", ())),
        scheduled=int(data.get("scheduled", 0)),
        next_id=int(data.get("next_id", 1)),
        offers=frozenset(tuple(o) for o in data.get("offers", ())),
        sailed=frozenset(int(n) for n in data.get("sailed", ())),
        ungarrisoned=frozenset(data.get("ungarrisoned", ())),
    )
