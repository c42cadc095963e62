"""Value objects of Magna Graecia: the node map, the scenario and the state of the game.

Every rule is a pure function over these frozen classes: it takes the :class:`GameState`,
the :class:`NodeMap`, the :class:`~bellica.engine.magna_graecia.rules.Rules`, the players'
choices and, when it needs dice, a :class:`~bellica.engine.magna_graecia.dice.Dice`, and
returns ``(new_state, [Event, ...])``.  Nothing here mutates; use :func:`dataclasses.replace`.
Mappings inside the frozen classes are read-only by convention; every field is plain data,
so :func:`bellica.engine.magna_graecia.state_json.to_dict` writes a state as JSON.

Elements are keyed by their DBM name, with the grade when it matters (``"Sp(I)"``,
``"Ps(O)"``, ``"El"``); :func:`element_type` reads the type (``"Sp"``).  A command's general
is one element kept apart from the rest (:attr:`Command.general`), so that losing it is
losing the commander.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from bellica.engine.core.events import Event
from bellica.geo.errors import InputError

__all__ = [
    "Battle",
    "CityState",
    "Command",
    "Event",
    "Fleet",
    "GameState",
    "Link",
    "NodeMap",
    "Place",
    "Retreat",
    "Salvage",
    "SideState",
    "Siege",
    "element_type",
    "give_elements",
]

#: The owner of a neutral city's commands (their city says whose ally they are).
NEUTRAL = ""


def give_elements(giver: int, have: Mapping[str, int], get: Mapping[str, int],
                  elements: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Command ``giver``'s elements ``have`` and the taker's ``get`` after ``elements`` (key -> count) pass
    from one to the other: an exchange, or a city's reorganisation.  One line for an element it lacks."""
    have, get = dict(have), dict(get)
    for k, n in elements.items():
        if n < 1 or have.get(k, 0) < n:
            raise InputError(f"command {giver} has {have.get(k, 0)} {k}: give 1 to that many")
        have[k] -= n
        if not have[k]:
            del have[k]
        get[k] = get.get(k, 0) + n
    return have, get


def element_type(key: str) -> str:
    """``"Sp(I)"`` -> ``"Sp"``: the DBM type of an element key."""
    return key.split("(", 1)[0].strip()


# --- the map ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """A node: ``commands`` is its neutral army (0-3 commands); ``first_year``/``last_year``
    (negative BC, None: always) bound the years the city stands."""

    name: str
    coastal: bool = False
    fortified: bool = False
    commands: int = 0
    first_year: int | None = None
    last_year: int | None = None

    def stands(self, year: int) -> bool:
        return (self.first_year is None or year >= self.first_year) and (self.last_year is None or year <= self.last_year)


@dataclass(frozen=True)
class Link:
    """A path between two nodes: ``kind`` "land" (counters march) or "sea" (fleets sail)."""

    a: str
    b: str
    kind: str = "land"


@dataclass(frozen=True)
class NodeMap:
    """The places and the paths joining them (filled by the ruleset plug-in from the node tables)."""

    places: Mapping[str, Place]
    links: tuple[Link, ...] = ()

    def neighbours(self, node: str, kind: str = "land") -> tuple[str, ...]:
        out = {l.b for l in self.links if l.a == node and l.kind == kind}
        out |= {l.a for l in self.links if l.b == node and l.kind == kind}
        return tuple(sorted(out))

    def joined(self, a: str, b: str, kind: str = "land") -> bool:
        return any(l.kind == kind and {l.a, l.b} == {a, b} for l in self.links)

    def for_year(self, year: int) -> "NodeMap":
        """The map as it stands in ``year``: places not yet founded or already destroyed dropped."""
        keep = {n: p for n, p in self.places.items() if p.stands(year)}
        return NodeMap(keep, tuple(l for l in self.links if l.a in keep and l.b in keep))


# --- counters --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    """A command counter (or a neutral city's command, ``side == ""`` and ``city`` set).

    ``general``: the element key of its commander ("" when leaderless); ``elements`` the rest.
    ``inherent``: a strength-0 capital's sub-general, who never leaves the city (no counter).
    ``mp_left``: movement points left in the current movement phase; ``moved``: it moved
    this player-turn; ``entered_from``: the node it last came from (the battle's base edge);
    ``aboard``: carried by its side's fleet; ``in_city``: declared inside the walls."""

    id: int
    side: str
    node: str
    elements: Mapping[str, int]
    general: str = ""
    city: str = ""
    inherent: bool = False
    mp_left: int = 0
    moved: bool = False
    entered_from: str = ""
    aboard: bool = False
    in_city: bool = False
    ally: str = ""
    """A city's command that surrendered in a battle: the side it is allied to from turn
    ``ally_from`` (until then it fights for nobody), whatever its city's alliance."""
    ally_from: int = 0

    @property
    def leaderless(self) -> bool:
        return not self.general

    def element_count(self) -> int:
        """Elements including the general's."""
        return sum(self.elements.values()) + (1 if self.general else 0)

    def types(self) -> set[str]:
        t = {element_type(k) for k, n in self.elements.items() if n > 0}
        if self.general:
            t.add(element_type(self.general))
        return t


@dataclass(frozen=True)
class Fleet:
    """A side's one fleet counter: ``np`` naval points; ``carrying`` the command ids aboard."""

    side: str
    node: str
    np: int
    carrying: tuple[int, ...] = ()
    sheltered: bool = False
    mp_left: int = 0
    moved: bool = False


@dataclass(frozen=True)
class CityState:
    """A city with its own forces: ``ally`` the side it has joined (None: neutral);
    ``start_ally`` its ally at the start (for the victory points); ``hostile_to`` the side
    that attacked it while neutral; ``holder`` the side holding a taken city."""

    name: str
    ally: str | None = None
    start_ally: str | None = None
    hostile_to: str | None = None
    holder: str | None = None


@dataclass(frozen=True)
class Siege:
    """A siege of the fortified city at ``node``: ``defender`` is a side or ``"city:<name>"``
    for a neutral city's own forces; ``rolls`` fall rolls made so far in a row; ``disease``
    the turn disease arrived (0: none)."""

    node: str
    besieger: str
    defender: str
    started: int
    rolls: int = 0
    disease: int = 0
    disease_index: int = 0
    """With ``disease``: the index in the side order of the player-turn it arrived in."""


@dataclass(frozen=True)
class Battle:
    """A land battle due at ``node``: ``attacker`` the phasing side, ``defenders`` the sides
    (or ``"city:<name>"``) it fights; ``base_edge`` the node the attacker entered from;
    ``defence`` "forward", "central" or "rear" once chosen; ``day`` 1 or 2."""

    node: str
    attacker: str
    defenders: tuple[str, ...]
    base_edge: str = ""
    defence: str = ""
    day: int = 1
    undecided: bool = False
    kind: str = "land"
    """"land" or "naval" (two fleets in one node)."""
    sally: bool = False
    """The besieged attack their besiegers: beaten, they go back inside instead of retreating."""


@dataclass(frozen=True)
class Retreat:
    """A counter that must move after a battle: ``command`` id, or 0 with ``fleet_side`` set."""

    command: int = 0
    fleet_side: str = ""
    open_paths: tuple[str, ...] = ()
    """Nodes the counter may leave towards (empty: any)."""
    lift_siege: bool = True
    by: str = ""
    """The side it retreats from (credited with commanders destroyed on the way)."""


@dataclass(frozen=True)
class Salvage:
    """Naval points salvaged at ``node`` waiting for ``side``'s fleet to come and take them."""

    side: str
    node: str
    np: int


@dataclass(frozen=True)
class SideState:
    """A side's standing: ``capital`` its city (``capital_strength`` its garrison commands);
    ``out`` why it left the campaign ("" while playing); tallies for the victory points."""

    name: str
    capital: str = ""
    capital_strength: int = 0
    out: str = ""
    commanders_destroyed: int = 0
    np_destroyed: int = 0
    capitals_captured: tuple[str, ...] = ()

    @property
    def playing(self) -> bool:
        return not self.out


@dataclass(frozen=True)
class GameState:
    """Everything the steps read and change.

    ``order``: the sides in move order; ``current``: index of the phasing side; ``phase``:
    "movement", "battles", "retreats" or "over"; ``alliances``: pairs of sides that are
    friends (three-sided scenarios)."""

    scenario: str
    year: int
    turn: int
    order: tuple[str, ...]
    sides: Mapping[str, SideState]
    commands: tuple[Command, ...] = ()
    fleets: tuple[Fleet, ...] = ()
    cities: Mapping[str, CityState] = field(default_factory=dict)
    sieges: tuple[Siege, ...] = ()
    battles: tuple[Battle, ...] = ()
    retreats: tuple[Retreat, ...] = ()
    salvage: tuple[Salvage, ...] = ()
    alliances: tuple[tuple[str, str], ...] = ()
    current: int = 0
    phase: str = "movement"
    next_id: int = 1
    capital_rule: str = "eliminated"

    # --- who is who ----------------------------------------------------------------------

    @property
    def phasing(self) -> str:
        return self.order[self.current]

    def friends(self, a: str, b: str) -> bool:
        return a == b or (a, b) in self.alliances or (b, a) in self.alliances

    def enemies(self, a: str, b: str) -> bool:
        return bool(a) and bool(b) and not self.friends(a, b)

    def owner(self, c: Command) -> str:
        """The side a command fights for ("" for a neutral city's command)."""
        if c.side:
            return c.side
        if c.ally:  # surrendered: nobody's until the next campaign turn, then the holder's ally
            return c.ally if self.turn >= c.ally_from else ""
        city = self.cities.get(c.city)
        return city.ally or "" if city else ""

    # --- lookups -------------------------------------------------------------------------

    def command(self, cid: int) -> Command:
        for c in self.commands:
            if c.id == cid:
                return c
        raise KeyError(cid)

    def at(self, node: str, *, side: str | None = None, include_city: bool = True) -> tuple[Command, ...]:
        out = tuple(c for c in self.commands if c.node == node and not c.aboard)
        if not include_city:
            out = tuple(c for c in out if c.side)
        if side is not None:
            out = tuple(c for c in out if self.owner(c) == side)
        return out

    def fleet(self, side: str) -> Fleet | None:
        return next((f for f in self.fleets if f.side == side), None)

    def fleets_at(self, node: str) -> tuple[Fleet, ...]:
        return tuple(f for f in self.fleets if f.node == node)

    def siege_at(self, node: str) -> Siege | None:
        return next((s for s in self.sieges if s.node == node), None)

    def battle_at(self, node: str, kind: str = "land") -> Battle | None:
        return next((b for b in self.battles if b.node == node and b.kind == kind), None)

    def enemy_land(self, node: str, side: str) -> tuple[Command, ...]:
        """Land commands at ``node`` fighting for an enemy of ``side`` (a neutral city's are not)."""
        return tuple(c for c in self.at(node) if self.enemies(side, self.owner(c)))

    def friendly_land(self, node: str, side: str) -> tuple[Command, ...]:
        return tuple(c for c in self.at(node) if self.owner(c) and self.friends(side, self.owner(c)))

    def playing(self) -> tuple[str, ...]:
        return tuple(s for s in self.order if self.sides[s].playing)

    # --- changes -------------------------------------------------------------------------

    def with_command(self, c: Command) -> "GameState":
        return replace(self, commands=tuple(c if x.id == c.id else x for x in self.commands))

    def with_commands(self, changed: Iterable[Command]) -> "GameState":
        by = {c.id: c for c in changed}
        return replace(self, commands=tuple(by.get(x.id, x) for x in self.commands))

    def without_commands(self, ids: Iterable[int]) -> "GameState":
        gone = set(ids)
        fleets = tuple(replace(f, carrying=tuple(i for i in f.carrying if i not in gone)) for f in self.fleets)
        return replace(self, commands=tuple(c for c in self.commands if c.id not in gone), fleets=fleets)

    def retreat_side(self, r: Retreat) -> str:
        """The side a retreat owed belongs to ("" if its command is gone)."""
        if r.fleet_side:
            return r.fleet_side
        c = next((x for x in self.commands if x.id == r.command), None)
        return self.owner(c) if c is not None else ""

    def with_retreats(self, retreats: Iterable[Retreat]) -> "GameState":
        """``retreats`` owed, the non-phasing sides' first (the order they must be made in)."""
        rs = tuple(retreats)
        return replace(self, retreats=tuple(sorted(rs, key=lambda r: self.retreat_side(r) == self.phasing)))

    def with_fleet(self, f: Fleet) -> "GameState":
        others = tuple(x for x in self.fleets if x.side != f.side)
        return replace(self, fleets=others + (f,))

    def without_fleet(self, side: str) -> "GameState":
        return replace(self, fleets=tuple(f for f in self.fleets if f.side != side))

    def with_side(self, name: str, **changes) -> "GameState":
        sides = dict(self.sides)
        sides[name] = replace(sides[name], **changes)
        return replace(self, sides=sides)

    def with_city(self, name: str, **changes) -> "GameState":
        cities = dict(self.cities)
        cities[name] = replace(cities[name], **changes)
        return replace(self, cities=cities)
