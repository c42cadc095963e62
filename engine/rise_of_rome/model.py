"""Value objects of the Rise of Rome: the static scenario and the state of a turn.

A phase is a pure function: it takes the :class:`Scenario`, the current
:class:`TurnState`, the :class:`~bellica.engine.rise_of_rome.rules.Rules`, a roller
(:mod:`bellica.engine.rise_of_rome.dice`) and the player's choices, and returns a new
state plus :class:`~bellica.engine.core.events.Event` records that say what happened
and why.  Nothing here mutates; use :func:`dataclasses.replace`.  Mappings inside the
frozen classes are read-only by convention.

Control: ``TurnState.control`` gives every province's controlling power.  An external
army *occupies* a province (``TurnState.externals``); the province then yields nothing
and belongs to no power until the army leaves, when it is again its ``control`` owner's
(the seed's "control reverts to its previous owner").  A power's status (Active,
Inactive, Subject) is never stored: :func:`is_active` and :func:`suzerain` derive it
from ``control``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from bellica.engine.core.events import Event

__all__ = [
    "Event",
    "ExternalArmy",
    "Power",
    "Province",
    "Ruler",
    "Scenario",
    "TurnState",
    "controller",
    "is_active",
    "occupied",
    "provinces_of",
    "status",
    "subjects_of",
    "suzerain",
]


@dataclass(frozen=True)
class Province:
    name: str
    home_of: str | None
    resource: str | None
    coastal: bool
    revenue: int
    capital: str = ""
    lon: float = 0.0
    lat: float = 0.0


@dataclass(frozen=True)
class Power:
    """One of the nine powers (``external`` False) or an external power (Carthage, Epirus/Macedonia)."""

    name: str
    homes: tuple[str, ...] = ()
    external: bool = False
    player: bool = False


@dataclass(frozen=True)
class Ruler:
    """A ruler (or ruling caste): ratings in percent, multiples of the rules' ``percent_step``.

    ``rolled``: the 3D10 as rolled; ``characteristics``: after the power's modifiers and the
    rebalancing; ``since``: the turn the ruler took over (0: at the start)."""

    aggressor: int
    protector: int
    builder: int
    since: int = 0
    rolled: tuple[int, ...] = ()
    characteristics: tuple[int, ...] = ()

    @property
    def ratings(self) -> tuple[int, int, int]:
        return (self.aggressor, self.protector, self.builder)


@dataclass(frozen=True)
class Scenario:
    """The static map: provinces (in scenario order), powers, adjacency, the start."""

    name: str
    provinces: Mapping[str, Province]
    powers: Mapping[str, Power]
    adjacency: Mapping[str, frozenset[str]]
    player: str  # the power the person plays (the scenario's player = true)
    given_rulers: Mapping[str, tuple[int, int, int]] = field(default_factory=dict)
    """3D10 as given by the scenario (used when the rules' ``start_rulers`` is "given")."""
    terrain: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each province's land terrain types on the campaign's map, most hexes first (the seed: the
    terrain types available for a battle "are indicated on the map"); empty without a map."""

    @property
    def nations(self) -> tuple[str, ...]:
        """The nine (non-external) powers, in scenario order."""
        return tuple(p.name for p in self.powers.values() if not p.external)

    @property
    def externals(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.powers.values() if p.external)

    def homes(self, power: str) -> tuple[str, ...]:
        return self.powers[power].homes

    def neighbours(self, province: str) -> frozenset[str]:
        return self.adjacency.get(province, frozenset())

    def resource_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.provinces.values():
            if p.resource:
                out[p.resource] = out.get(p.resource, 0) + 1
        return out

    def start_control(self) -> dict[str, str]:
        """Every province controlled by the power whose home it is."""
        return {name: p.home_of for name, p in self.provinces.items() if p.home_of}


@dataclass(frozen=True)
class ExternalArmy:
    """An external power's army: where it is, its points, who pays it (immune to it)."""

    power: str
    province: str
    points: int
    arrived: int
    paymaster: str | None = None


@dataclass(frozen=True)
class TurnState:
    """Everything the phases read and change.  ``turn`` is the turn being played (0 before the first)."""

    turn: int
    control: Mapping[str, str]
    rulers: Mapping[str, Ruler] = field(default_factory=dict)
    externals: Mapping[str, ExternalArmy] = field(default_factory=dict)
    revenue: Mapping[str, int] = field(default_factory=dict)
    """Revenue collected this turn (phase 1), civic-only part included."""
    civic_only: Mapping[str, int] = field(default_factory=dict)
    """The part of ``revenue`` that may only go to Civic Improvement."""
    won_last: frozenset[str] = frozenset()
    lost_last: frozenset[str] = frozenset()
    won: frozenset[str] = frozenset()
    lost: frozenset[str] = frozenset()
    subjects_created: tuple[tuple[str, int], ...] = ()
    """(subject power, its number of provinces) created this turn, in order."""
    civic_spent: int = 0
    """Rome's revenue spent on Civic Improvement, the whole campaign so far."""
    civic_penalty: int = 0
    """Civic Development lost so far to Roman home provinces under enemy control."""
    defeated: bool = False
    """Rome holds none of its home provinces: the game is lost at once."""

    @property
    def civic_total(self) -> int:
        return self.civic_spent - self.civic_penalty


def occupied(state: TurnState) -> dict[str, str]:
    """Province -> the external power whose army occupies it."""
    return {a.province: a.power for a in state.externals.values()}


def controller(state: TurnState, province: str) -> str | None:
    """The power that controls ``province`` now (None while an external army occupies it)."""
    if any(a.province == province for a in state.externals.values()):
        return None
    return state.control.get(province)


def provinces_of(scenario: Scenario, state: TurnState, power: str) -> tuple[str, ...]:
    """The provinces ``power`` controls now (not those an external army occupies), in scenario order."""
    occ = occupied(state)
    return tuple(p for p in scenario.provinces if state.control.get(p) == power and p not in occ)


def is_active(scenario: Scenario, state: TurnState, power: str) -> bool:
    """Active unless every home province is controlled by other powers (an external army's
    occupation does not change a power's status)."""
    return any(state.control.get(h) == power for h in scenario.homes(power))


def suzerain(scenario: Scenario, state: TurnState, power: str) -> str | None:
    """The Active power whose Subject ``power`` is: it controls all of ``power``'s home provinces
    (a home an external army occupies is "not controlled by any Power": no Subject meanwhile)."""
    if is_active(scenario, state, power):
        return None
    owners = {controller(state, h) for h in scenario.homes(power)}
    if len(owners) == 1:
        (owner,) = owners
        if owner and owner != power and is_active(scenario, state, owner):
            return owner
    return None


def subjects_of(scenario: Scenario, state: TurnState, power: str) -> tuple[str, ...]:
    return tuple(p for p in scenario.nations if p != power and suzerain(scenario, state, p) == power)


def status(scenario: Scenario, state: TurnState, power: str) -> str:
    """"active", "subject of <power>" or "inactive", in words."""
    if is_active(scenario, state, power):
        return "active"
    master = suzerain(scenario, state, power)
    return f"subject of {master}" if master else "inactive"
