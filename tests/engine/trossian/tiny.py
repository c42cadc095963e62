"""A tiny synthetic Trossian world for the tests, written here rather than read from data.

    North (freezes) --- South
      |                   |
    A(Red capital, port Aport on North) - B(land, shore on North) - C(Blue town Cton, port Cport on South) - D(Blue capital, port Dport on South)
                                          |
                                          E(neutral land)

Roads: A-B, B-C.  Red holds A and B, Blue C and D, E is nobody's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bellica.engine.trossian.dice import Dice
from bellica.engine.trossian.model import Army, GameState, Lane, Nation, NationState, Province, Scenario, Town, Unit


def pair(a, b):
    return frozenset((a, b))


def tiny_scenario(cards=()) -> Scenario:
    towns = {
        "Aport": Town("Aport", "A", 0.0, 0.0, True, "North"),
        "Cton": Town("Cton", "C", 2.0, 0.0, False, ""),
        "Cport": Town("Cport", "C", 2.1, -0.1, True, "South"),
        "Dport": Town("Dport", "D", 3.0, 0.0, True, "South"),
    }
    provinces = {
        "A": Province("A", "Aport", 0.0, 0.0, "Red", ("Aport",), ("Aport",)),
        "B": Province("B", "Bfort", 1.0, 0.0, "Red", (), (), ("North",)),
        "C": Province("C", "Cton", 2.0, 0.0, "Blue", ("Cton", "Cport"), ("Cport",)),
        "D": Province("D", "Dport", 3.0, 0.0, "Blue", ("Dport",), ("Dport",)),
        "E": Province("E", "Efield", 1.0, 1.0, None, (), ()),
    }
    return Scenario(
        name="tiny", title="tiny", year=1801, provinces=provinces, towns=towns,
        lanes={"North": Lane("North", freezes=True), "South": Lane("South")},
        nations={"Red": Nation("Red", "A"), "Blue": Nation("Blue", "D")},
        borders=frozenset({pair("A", "B"), pair("B", "C"), pair("C", "D"), pair("B", "E")}),
        roads=frozenset({pair("A", "B"), pair("B", "C")}),
        lane_links=frozenset({pair("North", "South")}),
        holders={"A": "Red", "B": "Red", "C": "Blue", "D": "Blue", "E": None},
        cards=tuple(cards),
    )


def tiny_state(armies=(), navies=(), phase=1, banks=None) -> GameState:
    banks = banks or {}
    return GameState(year=1801, phase=phase, control={"A": "Red", "B": "Red", "C": "Blue", "D": "Blue", "E": None},
                     nations={n: NationState(n, bank=banks.get(n, {})) for n in ("Red", "Blue")},
                     armies=tuple(armies), navies=tuple(navies), next_id=1000, scheduled=1801)


def army(id, nation, province, *kinds, **kw) -> Army:
    """An army whose units get ids id*10+1, id*10+2, ...; a kind "x:guard" sets the quality."""
    units = []
    for i, k in enumerate(kinds, 1):
        kind, _, quality = k.partition(":")
        units.append(Unit(id * 10 + i, kind, quality or "line"))
    return Army(id, nation, province, tuple(units), **kw)


@dataclass
class Scripted(Dice):
    """Dice that give the faces in ``faces`` in order (then fail loudly), logging the labels."""

    faces: list = field(default_factory=list)

    def roll(self, sides, *label):
        assert self.faces, f"no face scripted for {label}"
        value = self.faces.pop(0)
        assert 1 <= value <= sides, (value, sides, label)
        self.log.append((label, sides, value))
        return value
