"""Read a Magna Graecia scenario file (``datasets/scenarios/magna-graecia/<name>.toml``).

A scenario is one season of campaigning in Sicily: ``[scenario]`` (name, title, year as a
negative number BC, capital rule, note), ``[[side]]`` in move order (capital and its
strength, starting node, fleet naval points and port, cities allied at the start, a
sample army of ``[[side.command]]``), ``[[alliance]]`` (pairs of friendly sides) and
``[[city]]`` (a city's neutral commands for this scenario, overriding the node map's).
Every choice carries a ``note`` from history.  Every check fails with one line naming the
file, the entry and the fix.

The places, their years, coasts, walls and neutral commands are the node map's alone
(``sicily-nodes.toml``, through the node tables a campaign holds): give ``places`` (a
:class:`~bellica.engine.magna_graecia.model.NodeMap`'s places) and every place the scenario
names is checked to be on it and standing in the scenario's year; without it the names are
checked when the game is set up on a node map (:func:`~bellica.engine.magna_graecia.turn.new_game`).
For a campaign, ``[scenario]`` also names ``ruleset = "magna-graecia"``, its node file
(``nodes``, beside it), ``bbox`` and ``resolution`` (docs/scenario_format.md); the rules ignore them.
"""

from __future__ import annotations

from collections import Counter

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from bellica.datasets import SCENARIOS_DIR
from bellica.geo.errors import InputError

from .model import element_type

__all__ = ["SCENARIOS", "CommandSpec", "Scenario", "SideSpec", "load_scenario", "scenario_from_toml", "scenario_path"]

SCENARIO_DIR = SCENARIOS_DIR / "magna-graecia"
#: The four scenarios of the seed, in historical order.
SCENARIOS = ("dionysian", "pyrrhic", "first-punic", "second-punic")

@dataclass(frozen=True)
class CommandSpec:
    """A command of a side's starting army: its general's element and the other elements."""

    general: str
    elements: Mapping[str, int]
    node: str = ""


@dataclass(frozen=True)
class SideSpec:
    name: str
    capital: str
    capital_strength: int
    start: str
    fleet_np: int = 0
    fleet_at: str = ""
    allied_cities: tuple[str, ...] = ()
    army: tuple[CommandSpec, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    year: int
    sides: tuple[SideSpec, ...]
    alliances: tuple[tuple[str, str], ...] = ()
    city_commands: Mapping[str, int] = field(default_factory=dict)
    capital_rule: str = "eliminated"
    note: str = ""
    notes: Mapping[str, str] = field(default_factory=dict)
    """The history behind each choice: ``side:<name>``, ``alliance:<a>+<b>``, ``city:<name>``."""

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sides)

    def side(self, name: str) -> SideSpec:
        return next(s for s in self.sides if s.name == name)

    def places(self) -> set[str]:
        """Every place the scenario names."""
        out: set[str] = set(self.city_commands)
        for s in self.sides:
            out |= {s.capital, s.start, *s.allied_cities, *(c.node for c in s.army if c.node)}
            if s.fleet_at:
                out.add(s.fleet_at)
        out.discard("")
        return out


def scenario_path(name: str) -> Path:
    return SCENARIO_DIR / f"{name}.toml"


def _place(path: Path | str, where: str, name: object, year: int, places: Mapping | None) -> str:
    if not isinstance(name, str) or not name:
        raise InputError(f"{path} {where}: {name!r}: give a place's name")
    if places is None:
        return name
    if name not in places:
        raise InputError(f"{path} {where}: {name!r} is not a place of the node map: use one of {', '.join(sorted(places))}")
    p = places[name]
    if not p.stands(year):
        span = f"{-p.first_year if p.first_year else '?'}-{-p.last_year if p.last_year else '?'} BC"
        raise InputError(f"{path} {where}: {name} does not stand in {-year} BC (it stands {span}): name another place")
    return name


#: The most elements of one type a command may hold: a sanity bound on the file, not a rule (a whole
#: DBM army is a few hundred elements at most).
MAX_ELEMENTS = 1000


def _elements(path: Path, where: str, table: object) -> dict[str, int]:
    if not isinstance(table, Mapping) or not table:
        raise InputError(f"{path} {where}: give elements as a table of DBM element -> count, e.g. {{\"Sp(I)\" = 6}}")
    out = {}
    for k, v in table.items():
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_ELEMENTS:
            raise InputError(f"{path} {where}: {k} = {v!r}: give a whole number of elements from 1 to {MAX_ELEMENTS}")
        out[str(k)] = v
    return out


def load_scenario(path: str | Path, *, known_types: tuple[str, ...] | None = None,
                  places: Mapping | None = None) -> Scenario:
    """A scenario file, checked; ``known_types``: the element types the rules know, ``places``:
    the node map's places (name -> :class:`~bellica.engine.magna_graecia.model.Place`), each
    checked when given."""
    path = Path(path)
    if not path.suffix and not path.exists():
        path = scenario_path(str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot be read ({getattr(err, 'strerror', None) or err}): "
                         "give a Magna Graecia scenario file") from None
    return scenario_from_toml(text, source=str(path), known_types=known_types, places=places)


def scenario_from_toml(text: str, *, source: str = "<scenario>", known_types: tuple[str, ...] | None = None,
                       places: Mapping | None = None) -> Scenario:
    """A scenario from its TOML text (what a campaign file stores), checked as :func:`load_scenario`."""
    path = source
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: not valid TOML ({err}): fix the file") from None
    head = data.get("scenario")
    name, title, year, capital_rule = _head(head, path)
    sides = _sides(data.get("side", []), path, year, places, known_types)
    notes = {f"side:{s.name}": s.note for s in sides}
    alliances = _alliances(data.get("alliance", []), path, [s.name for s in sides], notes)
    city_commands = _cities(data.get("city", []), path, year, places, notes)
    _check_claims(sides, path)
    return Scenario(name, title, year, tuple(sides), tuple(alliances), city_commands, capital_rule,
                    str(head.get("note", "")), notes)


def _head(head: object, path: str) -> tuple[str, str, int, str]:
    """``[scenario]``: its name, title, year (negative, BC) and capital rule."""
    if not isinstance(head, Mapping):
        raise InputError(f"{path}: no [scenario] table: give name, title and year")
    try:
        name, title, year = str(head["name"]), str(head["title"]), head["year"]
    except KeyError as err:
        raise InputError(f"{path} [scenario] lacks {err}: give name, title and year") from None
    if isinstance(year, bool) or not isinstance(year, int) or not -500 <= year <= -100:
        raise InputError(f"{path} [scenario] year = {year!r}: give the year as a negative number BC, e.g. -397")
    capital_rule = str(head.get("capital_rule", "eliminated"))
    if capital_rule not in ("eliminated", "continues"):
        raise InputError(f"{path} [scenario] capital_rule = {capital_rule!r}: give \"eliminated\" or \"continues\"")
    return name, title, year, capital_rule


def _sides(entries: list, path: str, year: int, places: Mapping | None,
           known_types: tuple[str, ...] | None) -> list[SideSpec]:
    """``[[side]]`` in move order: at least two, each named once, no two sharing a capital."""
    sides: list[SideSpec] = []
    for i, s in enumerate(entries, 1):
        sides.append(_side(s, f"side #{i} ({s.get('name', '?')})", path, year, places, known_types, sides))
    if len(sides) < 2:
        raise InputError(f"{path}: {len(sides)} [[side]] given: give at least two sides, in move order")
    capitals = [s.capital for s in sides]
    if len(set(capitals)) != len(capitals):
        raise InputError(f"{path}: two sides share a capital: give each its own")
    return sides


def _side(s: Mapping, where: str, path: str, year: int, places: Mapping | None,
          known_types: tuple[str, ...] | None, before: list[SideSpec]) -> SideSpec:
    """One ``[[side]]`` (``where`` in messages), checked against the sides ``before`` it."""
    try:
        sname, capital, start = s["name"], s["capital"], s["start"]
        strength = s["capital_strength"]
    except KeyError as err:
        raise InputError(f"{path} {where}: lacks {err}: give name, capital, capital_strength and start") from None
    if not isinstance(sname, str) or not sname.strip():
        raise InputError(f"{path} {where}: name = {sname!r}: give the side's name as a non-empty quoted string")
    sname = sname.strip()
    if any(x.name == sname for x in before):
        raise InputError(f"{path} {where}: the side is given twice: keep one")
    if isinstance(strength, bool) or not isinstance(strength, int) or not 0 <= strength <= 3:
        raise InputError(f"{path} {where}: capital_strength = {strength!r}: give 0 to 3 commands")
    _place(path, f"{where} capital", capital, year, places)
    _place(path, f"{where} start", start, year, places)
    np_, at = s.get("fleet_np", 0), s.get("fleet_at", "")
    if isinstance(np_, bool) or not isinstance(np_, int) or np_ < 0:
        raise InputError(f"{path} {where}: fleet_np = {np_!r}: give a whole number of naval points >= 0")
    if np_ and not at:
        raise InputError(f"{path} {where}: a fleet of {np_} NP needs fleet_at (its port): name a coastal place")
    if at:
        _place(path, f"{where} fleet_at", at, year, places)
    allied = tuple(_place(path, f"{where} allied_cities", c, year, places) for c in s.get("allied_cities", []))
    twice = sorted(c for c, n in Counter(allied).items() if n > 1)
    if twice:
        raise InputError(f"{path} {where}: allied_cities names {', '.join(twice)} more than once: name each city once")
    army = [_command(c, f"{where} command #{j}", path, year, places, known_types)
            for j, c in enumerate(s.get("command", []), 1)]
    return SideSpec(sname, capital, strength, start, np_, at, allied, tuple(army), str(s.get("note", "")))


def _command(c: Mapping, cw: str, path: str, year: int, places: Mapping | None,
             known_types: tuple[str, ...] | None) -> CommandSpec:
    """One ``[[side.command]]`` (``cw`` in messages): its general, elements and optional node."""
    general = c.get("general")
    if not isinstance(general, str) or not general:
        raise InputError(f"{path} {cw}: give general, the commander's element (e.g. \"Cv(O)\")")
    els = _elements(path, cw, c.get("elements"))
    node = _place(path, f"{cw} node", c["node"], year, places) if c.get("node") else ""
    if known_types is not None:
        for k in [general, *els]:
            if element_type(k) not in known_types:
                raise InputError(f"{path} {cw}: element {k!r} is not a DBM type the rules know: use one of {', '.join(known_types)}")
    return CommandSpec(general, els, node)


def _alliances(entries: list, path: str, names: list[str], notes: dict[str, str]) -> list[tuple[str, str]]:
    """``[[alliance]]``: pairs of two different sides; each one's note goes into ``notes``."""
    alliances = []
    for i, a in enumerate(entries, 1):
        pair = a.get("sides", [])
        if len(pair) != 2 or pair[0] == pair[1] or any(p not in names for p in pair):
            raise InputError(f"{path} alliance #{i} {pair}: give two different sides of the scenario ({', '.join(names)})")
        alliances.append((str(pair[0]), str(pair[1])))
        notes[f"alliance:{pair[0]}+{pair[1]}"] = str(a.get("note", ""))
    return alliances


def _cities(entries: list, path: str, year: int, places: Mapping | None, notes: dict[str, str]) -> dict[str, int]:
    """``[[city]]``: a city's neutral commands in this scenario (0 to 3); each one's note goes into ``notes``."""
    city_commands: dict[str, int] = {}
    for i, c in enumerate(entries, 1):
        cname = _place(path, f"city #{i}", c.get("name"), year, places)
        n = c.get("commands")
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 3:
            raise InputError(f"{path} city #{i} ({cname}): commands = {n!r}: give 0 to 3")
        city_commands[cname] = n
        notes[f"city:{cname}"] = str(c.get("note", ""))
    return city_commands


def _check_claims(sides: list[SideSpec], path: str) -> None:
    """No city is two sides' (a capital or a city allied at the start)."""
    claimed: dict[str, str] = {}
    for s in sides:
        for c in (s.capital, *s.allied_cities):
            if c in claimed and claimed[c] != s.name:
                raise InputError(f"{path} side {s.name}: {c} is already {claimed[c]}'s: give each city one side")
            claimed[c] = s.name
