"""The logistics' inputs where the seed is silent, and the results they produce."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from bellica.engine.vae_victis.rules import LogisticsRules, default_rules
from bellica.geo.errors import InputError


def _default(name: str):
    # The values are stated once, in datasets/rules/vae-victis-ii.toml ([options]).
    return field(default_factory=lambda: getattr(default_rules().logistics, name))


@dataclass(frozen=True)
class LogisticsOptions:
    """Choices where the seed is silent (docs/rules/administration.md); defaults from the rules data.

    ``river_access``: "own_hex" = a town/city joins a River link only when its own
    hex is a River hex; "adjacent" = also from an adjacent River hex.
    ``distance_cutoff_mp``: MP distances beyond this are reported as infinite
    (the rules only ask "within 6 MP" and "more than 12 MP").
    ``transfer_reach_mp``: an army counts as connected to the lines (for
    transfers) when within this many MP of a hex of its faction's lines.
    """

    river_access: str = _default("river_access")
    distance_cutoff_mp: int = _default("distance_cutoff_mp")
    transfer_reach_mp: int = _default("transfer_reach_mp")

    def __post_init__(self):
        if self.river_access not in ("own_hex", "adjacent"):
            raise InputError(f"river_access {self.river_access!r}: use 'own_hex' or 'adjacent'")

    @classmethod
    def from_rules(cls, rules: LogisticsRules) -> "LogisticsOptions":
        """The options a campaign's rules (``board.rules.logistics``) fix."""
        return cls(rules.river_access, rules.distance_cutoff_mp, rules.transfer_reach_mp)


@dataclass(frozen=True)
class LogisticsLine:
    faction: str
    from_structure: str
    to_structure: str
    link_type: str  # road / coast / river / sea


@dataclass(frozen=True)
class Logistics:
    """One faction-by-faction snapshot of the logistics lines."""

    supplied: Mapping[str, frozenset[str]]  # faction -> structures on its lines (capitals included)
    lines: tuple[LogisticsLine, ...]
    road_edges: Mapping[str, frozenset[tuple[str, str]]]  # faction -> road steps on its lines, both directions
    line_cells: Mapping[str, frozenset[str]]  # faction -> land hexes of its lines (structures, road/river hexes)
    army_distance: Mapping[int, float] = field(default_factory=dict)  # army -> MP to its lines (inf: beyond cutoff)
    linked_armies: frozenset[tuple[int, int]] = frozenset()  # (a, b), a < b: may transfer strength

    def is_supplied(self, faction: str, structure: str) -> bool:
        return structure in self.supplied.get(faction, frozenset())

    def linked(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) in self.linked_armies


def resolve_options(options: LogisticsOptions | None, *, board=None, con=None) -> LogisticsOptions:
    """``options``, else the ones the campaign's rules fix: the Board's, else those frozen in ``con``."""
    if options is not None:
        return options
    if board is not None:
        return LogisticsOptions.from_rules(board.rules.logistics)
    if con is not None:
        from bellica.engine.vae_victis.rules import read_rules

        return LogisticsOptions.from_rules(read_rules(con).logistics)
    return LogisticsOptions()
