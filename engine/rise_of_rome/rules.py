"""The Rise of Rome rules as one frozen, typed object.

The values live in ``datasets/rules/rise-of-rome.toml`` (read through
:func:`bellica.datasets.rules.load_rules`, so a scenario's ``[rules]`` table overrides
any key and a campaign can freeze the merged values in its ``rules`` table like any
other ruleset).  :class:`Rules` groups them by the phase that reads them; every check
of the values' meaning (bands ordered, every power given its numbers) fails with one
line naming the key and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from bellica.engine.core.rules import SectionedRules, Span, TurnYears
from bellica.engine.core.rules_loaders import rules_loaders
from bellica.geo.errors import InputError

__all__ = [
    "RULESET",
    "Band",
    "Rules",
    "default_rules",
    "rules_from_file",
    "rules_with",
]

#: The ruleset's name: ``datasets/rules/<RULESET>.toml``.
RULESET = "rise-of-rome"

ASPECTS = ("aggressor", "protector", "builder")


@dataclass(frozen=True)
class Band(Span):
    """An inclusive range of a rating and what it gives (a modifier, a number of cards)."""

    name: str
    low: int
    high: int
    value: int


@dataclass(frozen=True)
class GameRules(TurnYears):
    """Turn 1 is 348-341 BC."""

    turns: int
    first_year: int
    years_per_turn: int
    last_year: int
    player: str


@dataclass(frozen=True)
class RevenueRules:
    subject_yield: Mapping[int, int]
    civic_only_max_provinces: int
    resource_pair: int
    resource_monopoly: int
    missing_home_penalty: int
    floor: int

    def yield_of(self, provinces: int) -> int:
        """A subject of ``provinces`` provinces yields this (the largest listed size for more)."""
        if provinces <= 0:
            return 0
        sizes = sorted(self.subject_yield)
        size = max((s for s in sizes if s <= provinces), default=sizes[0])
        return self.subject_yield[size]


@dataclass(frozen=True)
class RulerRules:
    change_dice: int
    change_die: int
    change_threshold: int
    change_per_turn: int
    characteristic_die: int
    percent_step: int
    modifiers: Mapping[str, tuple[int, int, int]]

    def modifiers_of(self, power: str) -> tuple[int, int, int]:
        return self.modifiers.get(power, (0, 0, 0))


@dataclass(frozen=True)
class AttackRules:
    dice: int
    die: int
    threshold: int
    won_last_turn: int
    lost_last_turn: int
    target_dice: int
    target_die: int
    revenue_rank_step: int
    subject_bonus: int
    aggressor: tuple[Band, ...]


@dataclass(frozen=True)
class GeneratorRules:
    dice: int
    die: int
    points_per_bonus: int
    major_margin: int
    max_rerolls: int


@dataclass(frozen=True)
class BattleRules:
    base_army: int
    not_attacking_bonus: int
    per_extra_attack: int
    player_command_cards: int
    command_cards: tuple[Band, ...]
    points_per_general: Mapping[str, int]
    generator: GeneratorRules
    # Issue 22's allied corps.  A campaign made before the key froze rules without it; 0 plays it as that
    # bellica did (no allied corps listed), so its log still re-adjudicates.
    allied_corps_divisor: int = 0


@dataclass(frozen=True)
class ExternalRules:
    army: int
    decay: int
    dice: int
    die: int
    above: int
    carthage: str
    epirus: str
    carthage_revenue_step: int
    epirus_per_province: int
    command_cards: int


@dataclass(frozen=True)
class CivicRules:
    enemy_control_penalty: int
    assured: int
    italy: int
    provincial: int


@dataclass(frozen=True)
class Options:
    rating_scale: str
    band_180: str
    subject_yield: str
    generate_player_battles: bool
    player_battle_order: str
    occupied_home_is_lost: bool
    start_rulers: str
    defence_split: str
    # Defaults for campaigns whose stored rules predate these options (they were played that way).
    subject_attacks: str = "together"
    player_battle_bonus: int = 0


@dataclass(frozen=True)
class Rules(SectionedRules):
    """Every Rise of Rome rule value, by the phase that reads it."""

    RULESET = RULESET
    #: A value error (a band's "min" not a number) passes through as raised.
    WRONG = (TypeError,)

    game: GameRules
    revenue: RevenueRules
    rulers: RulerRules
    attacks: AttackRules
    battles: BattleRules
    externals: ExternalRules
    civic: CivicRules
    options: Options

    @classmethod
    def built_otherwise(cls, merged: Mapping[str, Any], where: str) -> Mapping[str, Any]:
        return {
            "revenue": lambda r: RevenueRules(
                subject_yield={_int_key(k, f"{where} revenue.subject_yield"): int(v) for k, v in r["subject_yield"].items()},
                **{k: v for k, v in r.items() if k != "subject_yield"}),
            "rulers": lambda ru: RulerRules(
                modifiers={p: tuple(int(m[x]) for x in ASPECTS) for p, m in ru["modifiers"].items()},
                **{k: v for k, v in ru.items() if k != "modifiers"}),
            "attacks": lambda a: AttackRules(
                aggressor=_bands(a["aggressor"], "modifier"),
                **{k: v for k, v in a.items() if k != "aggressor"}),
            "battles": lambda b: BattleRules(
                command_cards=_bands(b["command_cards"], "cards"),
                points_per_general=dict(b["points_per_general"]),
                generator=GeneratorRules(**b["generator"]),
                **{k: v for k, v in b.items() if k not in ("command_cards", "points_per_general", "generator")}),
            "civic": lambda c: CivicRules(enemy_control_penalty=c["enemy_control_penalty"], **c["verdicts"]),
        }

    def _check(self, where: str) -> None:
        g = self.game
        if g.first_year + g.turns * g.years_per_turn != g.last_year:
            raise InputError(f"{where} game: {g.turns} turns of {g.years_per_turn} years from {g.first_year} "
                             f"do not end in {g.last_year}: make first_year + turns x years_per_turn = last_year")
        if not self.revenue.subject_yield:
            raise InputError(f"{where} revenue.subject_yield is empty: give the yield of a 1-province subject at least")
        for table, bands in (("attacks.aggressor", self.attacks.aggressor), ("battles.command_cards", self.battles.command_cards)):
            ordered = sorted(bands, key=lambda x: x.low)
            for x in ordered:
                if x.low > x.high:
                    raise InputError(f"{where} {table}.{x.name}: min {x.low} is above max {x.high}: swap them")
            for x, y in zip(ordered, ordered[1:]):
                if y.low <= x.high:
                    raise InputError(f"{where} {table}: bands {x.name} and {y.name} overlap: make each min above the previous max")
        c = self.civic
        if not c.provincial <= c.italy <= c.assured:
            raise InputError(f"{where} civic.verdicts: give provincial <= italy <= assured")

    def command_cards(self, builder: int) -> int:
        """Command Cards of a non-player power whose ruler has this Builder rating."""
        for band in self.battles.command_cards:
            if band.holds(builder):
                return band.value
        raise InputError(f"{self.name} rules battles.command_cards: no band holds a Builder rating of {builder}: "
                         "make the bands cover 0 to 100")

    def aggressor_modifier(self, aggressor: int) -> int:
        """The attack-roll modifier of a ruler with this Aggressor rating (0 between the bands)."""
        return sum(b.value for b in self.attacks.aggressor if b.holds(aggressor))

    def points_per_general(self, power: str) -> int:
        try:
            return self.battles.points_per_general[power]
        except KeyError:
            raise InputError(f"{self.name} rules battles.points_per_general has no entry for {power!r}: add one") from None


def _int_key(key: str, where: str) -> int:
    try:
        return int(key)
    except ValueError:
        raise InputError(f"{where}: key {key!r} is not a number of provinces: use \"1\", \"2\", ...") from None


def _bands(table: Mapping[str, Mapping[str, int]], value_key: str) -> tuple[Band, ...]:
    return tuple(sorted((Band(n, int(v["min"]), int(v["max"]), int(v[value_key])) for n, v in table.items()),
                        key=lambda b: b.low))


#: The ruleset file as it stands (cached), with a scenario's ``[rules]`` merged in, and a
#: designer's whole variant file (engine/core/rules_loaders.py).
default_rules, rules_with, rules_from_file = rules_loaders(RULESET, Rules.from_mapping)
