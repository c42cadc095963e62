"""Value objects shared by every rules module of Vae Victis II.

A game is data plus pure functions: each step takes the static :class:`Board`,
the current :class:`CampaignState` and the inputs of that step (orders,
engagement results, umpire choices) and returns a new state plus the
:class:`Event` records that explain it.  Nothing here mutates; use
``dataclasses.replace``.  Mappings inside frozen dataclasses are treated as
read-only by convention.

Extending: add new fields with defaults or new classes at the end; never rename.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any, Mapping

from bellica.engine.core.events import Event  # the core's record, re-exported for the rules modules
from bellica.engine.vae_victis.rules import Rules, default_rules

# --- the static board ---------------------------------------------------------

LAND_TERRAINS = ("farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks")
WATER_KINDS = ("coast", "sea", "ocean", "lake")


@dataclass(frozen=True)
class Hex:
    cell: str
    kind: str  # land / coast / sea / ocean / lake
    terrain: str | None  # land only
    river: bool = False  # a River hex of this scenario
    lat: float = 0.0
    lng: float = 0.0


@dataclass(frozen=True)
class StructureInfo:
    name: str
    kind: str  # town / city
    cell: str
    capital: bool = False
    coastal: bool = False  # adjacent to a coast hex
    start_controller: str | None = None


@dataclass(frozen=True)
class FactionInfo:
    name: str
    player: bool = True
    capitals: tuple[str, ...] = ()
    influence_multiplier: int = 1
    colour: str = "#888888"


@dataclass(frozen=True)
class Board:
    """Everything that does not change during a campaign.

    ``sides[cell][clock] = neighbour`` for neighbours on the map; ``road_edges``
    holds ordered pairs (a, b) of adjacent cells joined by a road (both
    directions present); ``sea_zones[cell]`` the zones a water hex belongs to.
    """

    res: int
    hexes: Mapping[str, Hex]
    sides: Mapping[str, Mapping[int, str]]
    road_edges: frozenset[tuple[str, str]] = frozenset()
    structures: Mapping[str, StructureInfo] = field(default_factory=dict)
    factions: Mapping[str, FactionInfo] = field(default_factory=dict)
    sea_zones: Mapping[str, frozenset[str]] = field(default_factory=dict)
    rules: Rules = field(default_factory=default_rules)
    """Every rule value (datasets/rules/vae-victis-ii.toml with the scenario's overrides)."""
    derived: dict = field(default_factory=dict, compare=False, repr=False)
    """Data derived from this Board and kept with it (caches), never part of its identity."""

    def __post_init__(self) -> None:
        # Faction names in the rules (allies) are spelled as this board's factions spell them,
        # so a case or spelling difference fails loudly instead of switching a rule off.
        if self.factions:
            object.__setattr__(self, "rules", self.rules.for_factions(self.factions))

    def structure_at(self, cell: str) -> StructureInfo | None:
        return self._structures_by_cell.get(cell)

    @cached_property
    def _structures_by_cell(self) -> dict[str, StructureInfo]:
        out: dict[str, StructureInfo] = {}
        for s in self.structures.values():
            out.setdefault(s.cell, s)
        return out


# --- the changing state -------------------------------------------------------


class Phase(str, Enum):
    """The round's phases in the order the rules play them."""

    ORDERS = "orders"
    MOVEMENT = "movement"
    BATTLES = "battles"
    ADMINISTRATION = "administration"
    VICTORY = "victory"


@dataclass(frozen=True)
class Army:
    id: int
    faction: str
    cell: str | None  # None once irrevocably eliminated
    strength: int  # force points (FP)
    eliminated: bool = False


@dataclass(frozen=True)
class Siege:
    structure: str
    faction: str
    armies: tuple[int, ...]
    resilience: int
    start_resilience: int
    started_round: int


@dataclass(frozen=True)
class CampaignState:
    round: int
    phase: Phase
    armies: tuple[Army, ...]  # sorted by id
    control: Mapping[str, str | None]  # structure name -> controlling faction (None: nobody)
    sieges: tuple[Siege, ...] = ()
    victory_points: Mapping[str, int] = field(default_factory=dict)
    seed: int = 0
    winner: str | None = None
    superiority: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Naval superiority in force, {zone: {faction: level}} (published in step 1.2; at the start of
    the campaign the base level).  A zone or faction missing reads as the rules' base level
    (:func:`engine.vae_victis.naval.superiority_level`)."""
    sea_links: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    """The sea-zone logistics links in force, {faction: {zone: target structures, in the order
    chosen}}: set when movement runs, from the round's orders or the default rule."""
    navy_rest: Mapping[int, int] = field(default_factory=dict)
    """Armies beaten at sea, {army: the last round in which it may not act as a navy}."""

    def army(self, army_id: int) -> Army:
        for a in self.armies:
            if a.id == army_id:
                return a
        raise KeyError(army_id)

    def siege_of(self, structure: str) -> Siege | None:
        for s in self.sieges:
            if s.structure == structure:
                return s
        return None


@dataclass(frozen=True)
class Halt:
    """Why an army (on land, :mod:`engine.vae_victis.movement`, or at sea, :mod:`engine.vae_victis.naval`)
    stopped before the end of its orders.

    ``kind``: ``zoc`` (entered an enemy ZoC), ``mp`` (next move costs more than the MP
    left), ``occupied`` (hex held by an enemy army, or the enemy is coming the other way),
    ``contest`` (lost the seven-step priority), ``friendly`` (would have ended the round on a
    friendly army), ``arrival`` (an enemy army moved next to it, with
    ``halt_when_enemy_arrives``), ``strait`` (crossed a strait: it stops after landing),
    ``strait_closed`` (may not cross the strait it was ordered across).  ``move`` is the 1-based
    number of the move not made (or, for ``zoc`` and ``strait``, the move that entered the hex;
    a strait crossing is numbered by its first move, into the strait hex).
    """

    kind: str
    text: str
    move: int | None = None
    cell: str | None = None
    by: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.text


# --- inputs of a round -------------------------------------------------------


@dataclass(frozen=True)
class Transfer:
    to_army: int
    fp: int


@dataclass(frozen=True)
class ArmyOrders:
    """One army's orders for a round, as the players write them.

    ``moves`` are clock positions, 0 = stand still (costs 1 MP).
    ``initiative`` is "strength" (+40 FP in engagements, the default) or a sea-zone name.
    """

    army: int
    moves: tuple[int, ...] = ()
    initiative: str = "strength"
    lift_siege: bool = False
    assault: str | None = None  # name of the besieged structure assaulted
    transfers: tuple[Transfer, ...] = ()
    sea_links: tuple[tuple[str, str], ...] = ()
    """(sea zone, structure) pairs: the faction's chosen sea-zone logistics targets (seed, "Lines of
    logistics" 4), in the order written; a faction's choice is the union over its armies' orders."""

