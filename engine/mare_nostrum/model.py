"""Value objects of Mare Nostrum: the static scenario and the state of a turn.

Every rule is a pure function: it takes the :class:`Scenario`, the current
:class:`TurnState`, the :class:`~bellica.engine.mare_nostrum.rules.Rules`, a lottery
(:mod:`bellica.engine.mare_nostrum.lottery`, when it needs numbers) and the player's
choices, and returns a new state plus :class:`~bellica.engine.core.events.Event` records
that say what happened and why.  Nothing here mutates; use :func:`dataclasses.replace`.
Mappings inside the frozen classes are read-only by convention.

Control: ``TurnState.control`` maps every province to the nation holding it, or to
``None`` while it is independent (Illyria and Epirus at the start; a province taken by
invaders, or left by a collapsed nation).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from bellica.engine.core.events import Event

__all__ = [
    "Attack",
    "Event",
    "Fleet",
    "Invader",
    "Nation",
    "NationState",
    "Province",
    "Scenario",
    "SeaQuadrant",
    "TurnState",
    "Works",
    "fleets_of",
    "home_provinces_lost",
    "pirates_name",
    "possessive",
    "provinces_of",
]

def pirates_name(rules) -> str:
    """The owner of a pirate fleet: the title the rules give the event that brings pirates out
    (``events.pirates.title`` in datasets/rules/mare-nostrum.toml; a scenario's or a variant
    file's ``[rules]`` may rename them).  Rules without such an event bring no pirates out; their
    fleets, if a scenario sets any at sea, belong to "pirates" (the effect's own name)."""
    for band in rules.events:
        if band.effect == "pirates":
            return band.title
    return "pirates"


@dataclass(frozen=True)
class Province:
    """A province: ``nation`` is the nation whose home or border province it is (None for the
    independents); ``role`` is "capital", "home", "border" or "independent"; ``seas`` the
    sea quadrants it faces (empty: inland); ``lon``/``lat`` its capital or centre."""

    name: str
    nation: str | None
    role: str
    city: str = ""
    lon: float = 0.0
    lat: float = 0.0
    seas: tuple[str, ...] = ()
    revenue: int = 1
    army: str = ""
    """The army that defends it while independent (Illyria, Epirus) or that invades it."""

    @property
    def capital(self) -> bool:
        return self.role == "capital"

    @property
    def border(self) -> bool:
        return self.role == "border"

    @property
    def home(self) -> bool:
        """A home province (the capital included)."""
        return self.role in ("capital", "home")

    @property
    def coastal(self) -> bool:
        return bool(self.seas)


@dataclass(frozen=True)
class Invader:
    """An invader force of the random events: it may attack ``province`` (a province of
    ``nation``) with ``army``, managed by the player of ``managed_by``."""

    province: str
    nation: str
    army: str
    managed_by: str


@dataclass(frozen=True)
class Nation:
    """One of the six player nations (static): capital province, lottery wheel, army list."""

    name: str
    capital: str
    wheel: str
    army: str
    colour: str = "#808080"


@dataclass(frozen=True)
class SeaQuadrant:
    """A sea quadrant: a point inside it (for labels and the builder) and a note."""

    name: str
    lon: float
    lat: float
    note: str = ""


@dataclass(frozen=True)
class Scenario:
    """The static map: provinces (in scenario order), nations (in the seed's wheel order),
    sea quadrants, land adjacency, the declared diagonal passages, the invaders."""

    name: str
    provinces: Mapping[str, Province]
    nations: Mapping[str, Nation]
    seas: Mapping[str, SeaQuadrant]
    adjacency: Mapping[str, frozenset[str]]
    passages: tuple[tuple[str, str], ...] = ()
    """(from, to) as the seed writes them: ``to`` may be attacked from ``from``."""
    invaders: tuple[Invader, ...] = ()
    independent_armies: tuple[tuple[int, str], ...] = ()
    """(first turn, army) of Illyria and Epirus, in turn order."""

    def homes(self, nation: str) -> tuple[str, ...]:
        return tuple(p.name for p in self.provinces.values() if p.nation == nation and p.home)

    def start_control(self) -> dict[str, str | None]:
        return {name: p.nation for name, p in self.provinces.items()}

    def invaders_of(self, nation: str) -> tuple[Invader, ...]:
        return tuple(i for i in self.invaders if i.nation == nation)

    def invader_at(self, province: str) -> Invader | None:
        return next((i for i in self.invaders if i.province == province), None)

    def facing(self, sea: str) -> tuple[str, ...]:
        """Provinces facing sea quadrant ``sea``."""
        return tuple(p.name for p in self.provinces.values() if sea in p.seas)

    def independent_army(self, turn: int) -> str:
        army = ""
        for first, name in self.independent_armies:
            if turn >= first:
                army = name
        return army


@dataclass(frozen=True)
class Works:
    """What stands in a province: fortifications, suburbs, temples (counts)."""

    fortifications: int = 0
    suburbs: int = 0
    temples: int = 0


@dataclass(frozen=True)
class Fleet:
    id: int
    owner: str
    sea: str


@dataclass(frozen=True)
class NationState:
    """A nation's standing this turn.  ``out``: why it left the game ("" while playing)."""

    name: str
    stability: int
    treasury: int = 0
    actions: int = 0
    """Actions allotted this turn (after events and penalties)."""
    used: int = 0
    effects: frozenset[str] = frozenset()
    """This turn's event effects (siege_train, own_single_commander, ...)."""
    naval_bonus: int = 0
    pending: tuple[str, ...] = ()
    """Event choices still open to it this turn (destroy_enemy_fortification, ...)."""
    artworks: str = ""
    """The province its Defensive Artworks protect this turn."""
    out: str = ""
    out_turn: int = 0

    @property
    def playing(self) -> bool:
        return not self.out

    @property
    def actions_left(self) -> int:
        return self.actions - self.used


@dataclass(frozen=True)
class Attack:
    """A land battle declared this turn, waiting for its Field of Glory result.

    ``kind``: "land", "amphibious", "alliance" (with an invader force's army) or "invasion"
    (a random event: ``attacker`` is None, ``managed_by`` plays the invaders)."""

    seq: int
    kind: str
    attacker: str | None
    target: str
    defender: str | None
    base: str = ""
    sea: str = ""
    army: str = ""
    """The attacking army when it is not the attacker's own (an alliance's or invasion's)."""
    managed_by: str = ""


@dataclass(frozen=True)
class TurnState:
    """Everything the turn's steps read and change.  ``turn`` is the turn being played
    (0 before the first); ``order`` the nations in order of play; ``current`` the index in
    ``order`` of the nation whose actions are being taken (len(order): all done)."""

    turn: int
    control: Mapping[str, str | None]
    nations: Mapping[str, NationState]
    works: Mapping[str, Works] = field(default_factory=dict)
    fleets: tuple[Fleet, ...] = ()
    next_fleet: int = 1
    order: tuple[str, ...] = ()
    current: int = 0
    draws: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Each nation's wheel numbers this turn, as drawn or entered."""
    events: Mapping[str, str] = field(default_factory=dict)
    """Each nation's random event this turn (an events key of the rules)."""
    attacks: tuple[Attack, ...] = ()
    fleets_attacked: frozenset[int] = frozenset()
    peace: frozenset[tuple[str, str]] = frozenset()
    """(imposer, bound): ``bound`` may not attack ``imposer`` this turn."""
    builds: tuple[tuple[str, str, str], ...] = ()
    """(work, province, sea) ordered by the acting nation, completed when it finishes."""
    last_taker: Mapping[str, str] = field(default_factory=dict)
    """Nation -> the nation that last took a province from it (for the collapse option)."""
    phase: str = "start"
    """"start", "actions", "battles", "done"."""
    winner: str | None = None
    extra_turns: int = 0

    def works_of(self, province: str) -> Works:
        return self.works.get(province, Works())

    def nation(self, name: str) -> NationState:
        return self.nations[name]

    def playing(self) -> tuple[str, ...]:
        return tuple(n for n, s in self.nations.items() if s.playing)

    @property
    def acting(self) -> str | None:
        return self.order[self.current] if self.current < len(self.order) else None

    def attacked(self) -> frozenset[str]:
        """Provinces attacked this turn."""
        return frozenset(a.target for a in self.attacks)

    def with_nation(self, name: str, **changes) -> "TurnState":
        nations = dict(self.nations)
        nations[name] = replace(nations[name], **changes)
        return replace(self, nations=nations)

    def with_works(self, province: str, **changes) -> "TurnState":
        works = dict(self.works)
        works[province] = replace(self.works_of(province), **changes)
        return replace(self, works=works)


def provinces_of(scenario: Scenario, state: TurnState, nation: str) -> tuple[str, ...]:
    """The provinces ``nation`` holds, in scenario order."""
    return tuple(p for p in scenario.provinces if state.control.get(p) == nation)


def fleets_of(state: TurnState, owner: str, sea: str | None = None) -> tuple[Fleet, ...]:
    return tuple(f for f in state.fleets if f.owner == owner and (sea is None or f.sea == sea))


def home_provinces_lost(scenario: Scenario, state: TurnState, nation: str, *, enemy_only: bool = False) -> int:
    """How many of ``nation``'s home provinces other than its capital it does not hold
    (``enemy_only``: only those another nation holds)."""
    lost = 0
    for p in scenario.homes(nation):
        if scenario.provinces[p].capital:
            continue
        holder = state.control.get(p)
        if holder != nation and (holder is not None or not enemy_only):
            lost += 1
    return lost


def possessive(name: str) -> str:
    """``Romans'``, ``Epirus'``, ``Roma's``: the possessive of a nation's or a province's name."""
    return name + ("'" if name.endswith("s") else "'s")
