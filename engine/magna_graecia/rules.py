"""The Magna Graecia rules as one frozen, typed object.

The values live in ``datasets/rules/magna-graecia.toml`` (read through
:func:`bellica.datasets.rules.load_rules`, so a scenario's ``[rules]`` table overrides any
key and a campaign can freeze the merged values like any other ruleset).  A bad value is
one line naming the key and the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from bellica.engine.core.rules import SectionedRules
from bellica.engine.core.rules_loaders import rules_loaders
from bellica.geo.errors import InputError

from .model import element_type

__all__ = ["RULESET", "Rules", "default_rules", "rules_from_file", "rules_with"]

RULESET = "magna-graecia"


@dataclass(frozen=True)
class GameRules:
    turns: int
    die: int


@dataclass(frozen=True)
class ElementRules:
    types: tuple[str, ...]
    effective: Mapping[str, float]

    def weight(self, key: str) -> float:
        return float(self.effective.get(element_type(key), 1.0))


@dataclass(frozen=True)
class MovementRules:
    fast_types: tuple[str, ...]
    fast_mp: int
    slow_mp: int
    fleet_mp: int
    node_cost: int
    exchange_cost: int
    embark_cost: int
    disembark_cost: int


@dataclass(frozen=True)
class StackingRules:
    land_counters: int
    fleets: int


@dataclass(frozen=True)
class NeutralRules:
    alliance_roll: int
    general: str
    elements: Mapping[str, int]


@dataclass(frozen=True)
class SiegeRules:
    fall_at: int
    disease_natural: int
    disease_at: int
    disease_loss_percent: int
    fall_loss_percent: int
    ratio_2_to_1: int
    ratio_3_to_1: int
    per_consecutive_turn: int
    city_modifiers: Mapping[str, int]


@dataclass(frozen=True)
class FleetRules:
    per_side: int
    elements_per_np: int


@dataclass(frozen=True)
class RecoveryRules:
    at: int
    held_field: int
    command_element: int
    leader_killed: int
    allied_element: int


@dataclass(frozen=True)
class VictoryRules:
    city_allied: int
    commander_destroyed: int
    np_per_point: int
    capital_captured: int


@dataclass(frozen=True)
class Options:
    siege_modifiers_apply: str
    ratio_modifiers: str
    fleet_tie: str
    percent_rounding: str
    salvage_held_field: bool
    attacked_city_joins: str


@dataclass(frozen=True)
class Rules(SectionedRules):
    """Every Magna Graecia rule value, by the part of the game that reads it."""

    RULESET = RULESET

    game: GameRules
    elements: ElementRules
    movement: MovementRules
    stacking: StackingRules
    neutral: NeutralRules
    sieges: SiegeRules
    fleets: FleetRules
    recovery: RecoveryRules
    victory: VictoryRules
    options: Options

    def _check(self, where: str) -> None:
        known = set(self.elements.types)
        for key in ("fast_types",):
            for t in getattr(self.movement, key):
                if t not in known:
                    raise InputError(f"{where} movement.{key}: {t!r} is not in elements.types: add it there or drop it")
        for k in list(self.neutral.elements) + [self.neutral.general]:
            if element_type(k) not in known:
                raise InputError(f"{where} neutral: element {k!r} is not a type of elements.types: use one of those")
        if not 1 <= self.neutral.alliance_roll <= self.game.die:
            raise InputError(f"{where} neutral.alliance_roll = {self.neutral.alliance_roll}: give 1 to {self.game.die}")
        if not 1 <= self.recovery.at <= self.game.die + 10:
            raise InputError(f"{where} recovery.at = {self.recovery.at}: give a number a modified die can reach")

    def is_known(self, key: str) -> bool:
        return element_type(key) in self.elements.types

    def share(self, amount: float, percent: int) -> int:
        """``percent`` of ``amount`` as whole elements, rounded by the ``percent_rounding`` option."""
        exact = amount * percent / 100.0
        how = self.options.percent_rounding
        if how == "up":
            return int(math.ceil(exact - 1e-9))
        if how == "down":
            return int(math.floor(exact + 1e-9))
        return int(math.floor(exact + 0.5))


#: The ruleset file as it stands (cached), with a scenario's ``[rules]`` merged in, and a
#: designer's whole variant file (engine/core/rules_loaders.py).
default_rules, rules_with, rules_from_file = rules_loaders(RULESET, Rules.from_mapping)
