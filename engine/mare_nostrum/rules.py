"""The Mare Nostrum rules as one frozen, typed object.

The values live in ``datasets/rules/mare-nostrum.toml`` (read through
:func:`bellica.datasets.rules.load_rules`, so a scenario's ``[rules]`` table overrides any
key and a campaign can freeze the merged values in its ``rules`` table like any other
ruleset).  :class:`Rules` groups them by the part of the turn that reads them; every check
of the values' meaning (the event bands tile 1-90, bands inside the lottery's numbers)
fails with one line naming the key and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from bellica.engine.core.rules import SectionedRules, Span, TurnYears
from bellica.engine.core.rules_loaders import rules_loaders
from bellica.geo.errors import InputError

__all__ = [
    "EFFECTS",
    "RULESET",
    "EventBand",
    "Rules",
    "default_rules",
    "rules_from_file",
    "rules_with",
]

#: The ruleset's name: ``datasets/rules/<RULESET>.toml``.
RULESET = "mare-nostrum"

#: What an event may do besides changing stability, actions and naval points (events.py).
EFFECTS = (
    "", "lose_fortification", "lose_temple", "own_single_commander", "fleet_sinks", "invasion",
    "pirates", "siege_train", "defensive_artworks", "enemy_single_commander",
    "destroy_enemy_fortification", "destroy_enemy_temple",
)


@dataclass(frozen=True)
class EventBand(Span):
    """One row of the 1-90 random-event table."""

    key: str
    title: str
    low: int
    high: int
    stability: int
    actions: int
    naval: int
    effect: str


@dataclass(frozen=True)
class GameRules(TurnYears):
    """Turn 1 is the years (-290, -280)."""

    turns: int
    first_year: int
    years_per_turn: int


@dataclass(frozen=True)
class TreasuryRules:
    per_province: int
    per_suburbs: int
    per_temple: int
    points_per_action: int
    min_actions: int


@dataclass(frozen=True)
class LotteryRules:
    lowest: int
    highest: int
    numbers_per_wheel: int
    order_number: int
    event_number: int
    invasion_number: int
    invasion_first_max: int


@dataclass(frozen=True)
class BuildingRules:
    fortifications_per_province: int
    suburbs_per_province: int
    temples_per_province: int
    fleets_per_quadrant: int


@dataclass(frozen=True)
class SiegeRules:
    resist_min: int
    resist_max: int


@dataclass(frozen=True)
class DiplomacyRules:
    peace_min: int
    peace_max: int
    alliance_min: int
    alliance_max: int
    grain_stability: int


@dataclass(frozen=True)
class BattleRules:
    battle_points: int
    capital_needs_homes_lost: int
    single_commanders: int


@dataclass(frozen=True)
class NavalRules:
    draw_margin: int
    pair_bonus: int


@dataclass(frozen=True)
class StabilityRules:
    start: int
    maximum: int
    minimum: int
    penalty_at: int
    penalty_actions: int
    collapse_at: int


@dataclass(frozen=True)
class VictoryRules:
    provinces: int
    temple_points: int
    suburbs_points: int
    fleet_points: int
    fortification_points: int
    stability_points: int


@dataclass(frozen=True)
class Options:
    order_tie: str
    action_floor: str
    stability_floor: str
    collapse_provinces: str
    capital_fall_provinces: str
    diagonals: str
    temple_loss: str
    amphibious_needs_fleet: bool
    one_attack_per_base: bool
    pair_beaten_by_one: str
    capital_rule_counts: str
    # Keys added after campaigns were first frozen: a campaign whose stored rules lack one
    # plays by the value below, the behaviour it was started with (the file's own default
    # may differ; docs/rules/mare-nostrum.md says which).
    landing_opposed_by: str = "defender"
    artworks_until: str = "battles"
    naval_needs_base: bool = False
    pirates_raid_others: str = "next_turn"


@dataclass(frozen=True)
class Rules(SectionedRules):
    """Every Mare Nostrum rule value, by the part of the turn that reads it."""

    RULESET = RULESET

    game: GameRules
    treasury: TreasuryRules
    lottery: LotteryRules
    events: tuple[EventBand, ...]
    building: BuildingRules
    sieges: SiegeRules
    diplomacy: DiplomacyRules
    battles: BattleRules
    naval: NavalRules
    stability: StabilityRules
    victory: VictoryRules
    options: Options

    @classmethod
    def built_otherwise(cls, merged: Mapping[str, Any], where: str) -> Mapping[str, Any]:
        return {"events": _event_bands}

    def _check(self, where: str) -> None:
        lo, hi = self.lottery.lowest, self.lottery.highest
        if not 1 <= lo < hi:
            raise InputError(f"{where} lottery: lowest {lo} / highest {hi}: give 1 <= lowest < highest")
        if not 1 <= self.lottery.numbers_per_wheel <= hi - lo + 1:
            raise InputError(f"{where} lottery.numbers_per_wheel = {self.lottery.numbers_per_wheel}: "
                             f"give 1 to {hi - lo + 1}")
        for pos in ("order_number", "event_number", "invasion_number"):
            if not 1 <= getattr(self.lottery, pos) <= self.lottery.numbers_per_wheel:
                raise InputError(f"{where} lottery.{pos}: give a position from 1 to numbers_per_wheel")
        expect = lo
        for band in self.events:
            if band.effect not in EFFECTS:
                raise InputError(f"{where} events.{band.key}.effect = {band.effect!r}: give one of "
                                 + ", ".join(repr(e) for e in EFFECTS))
            if band.low > band.high:
                raise InputError(f"{where} events.{band.key}: min {band.low} is above max {band.high}: swap them")
            if band.low != expect:
                raise InputError(f"{where} events.{band.key}: starts at {band.low}, expected {expect}: "
                                 f"make the bands cover {lo}-{hi} without gaps or overlaps")
            expect = band.high + 1
        if expect != hi + 1:
            raise InputError(f"{where} events: the bands end at {expect - 1}: make the last band end at {hi}")
        for key, (a, b) in {"sieges.resist": (self.sieges.resist_min, self.sieges.resist_max),
                            "diplomacy.peace": (self.diplomacy.peace_min, self.diplomacy.peace_max),
                            "diplomacy.alliance": (self.diplomacy.alliance_min, self.diplomacy.alliance_max)}.items():
            if not lo <= a <= b <= hi:
                raise InputError(f"{where} {key}_min/{key}_max = {a}/{b}: give {lo} <= min <= max <= {hi}")
        s = self.stability
        if not s.collapse_at < s.minimum <= s.start <= s.maximum:
            raise InputError(f"{where} stability: give collapse_at < minimum <= start <= maximum")
        if self.treasury.points_per_action < 1:
            raise InputError(f"{where} treasury.points_per_action: give 1 or more")

    def event(self, number: int) -> EventBand:
        """The event of the 1-90 table that ``number`` falls in."""
        for band in self.events:
            if band.holds(number):
                return band
        raise InputError(f"lottery number {number}: give a number from {self.lottery.lowest} to {self.lottery.highest}")

    def event_by_key(self, key: str) -> EventBand:
        for band in self.events:
            if band.key == key:
                return band
        raise InputError(f"no event {key!r}: use one of {', '.join(b.key for b in self.events)}")


def _event_bands(table: Mapping[str, Mapping[str, Any]]) -> tuple[EventBand, ...]:
    """The 1-90 event table's rows, lowest band first."""
    return tuple(sorted((EventBand(key=k, title=str(v["title"]), low=int(v["min"]), high=int(v["max"]),
                                   stability=int(v["stability"]), actions=int(v["actions"]),
                                   naval=int(v["naval"]), effect=str(v["effect"]))
                         for k, v in table.items()), key=lambda b: b.low))


#: The ruleset file as it stands (cached), with a scenario's ``[rules]`` merged in, and a
#: designer's whole variant file (engine/core/rules_loaders.py).
default_rules, rules_with, rules_from_file = rules_loaders(RULESET, Rules.from_mapping)
