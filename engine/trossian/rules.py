"""The Trossian rules as one frozen, typed object.

The values live in ``datasets/rules/trossian.toml`` (read through
:func:`bellica.datasets.rules.load_rules`, so a scenario's ``[rules]`` table overrides any
key).  :class:`Rules` groups them by the part of the phase that reads them; every check of
their meaning fails with one line naming the key and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from bellica.engine.core.rules import SectionedRules
from bellica.engine.core.rules_loaders import rules_loaders
from bellica.geo.errors import InputError

__all__ = ["RESULTS", "RULESET", "ARMS", "PROVINCE_KINDS", "Rules", "default_rules", "rules_from_file", "rules_with"]

#: The ruleset's name: ``datasets/rules/<RULESET>.toml``.
RULESET = "trossian"

#: The three battle results, and the three fates of a unit on the table.
RESULTS = ("winner", "loser", "draw")
FATES = ("destroyed", "remaining", "routed")
ARMS = ("infantry", "mounted", "artillery")
#: The kinds of province (model.Province.kind) the treasury table gives AP for.
PROVINCE_KINDS = ("land", "town", "port")


@dataclass(frozen=True)
class CalendarRules:
    first_year: int
    phases: tuple[str, ...]
    seasons: tuple[str, ...]
    phases_per_season: int

    @property
    def per_year(self) -> int:
        return len(self.phases)

    def season(self, phase: int) -> str:
        return self.seasons[phase // self.phases_per_season]


@dataclass(frozen=True)
class MovementRules:
    infantry: int
    artillery: int
    mounted: int
    courier: int
    road_bonus: int
    retreat: int
    victor_rest: int
    draw_freeze: int

    def rate(self, arm: str) -> int:
        return getattr(self, arm)


@dataclass(frozen=True)
class UnitRules:
    infantry: tuple[str, ...]
    mounted: tuple[str, ...]
    artillery: tuple[str, ...]

    def arm(self, kind: str) -> str:
        for arm in ARMS:
            if kind in getattr(self, arm):
                return arm
        raise InputError(f"unit kind {kind!r}: use one of {', '.join(self.kinds())}")

    def kinds(self) -> tuple[str, ...]:
        return self.infantry + self.mounted + self.artillery


@dataclass(frozen=True)
class AttritionRow:
    """One result's table: eliminated when the modified d6 is at or below the number."""

    destroyed: int
    remaining: int
    routed: int
    guard_hq: int
    militia: int

    def threshold(self, fate: str) -> int:
        return getattr(self, fate)


@dataclass(frozen=True)
class CourierRules:
    die: int
    fail_on: int
    captured_max: int
    killed_max: int

    def outcome(self, roll: int) -> str:
        """The failure table: "captured", "killed" or "false_message"."""
        if roll <= self.captured_max:
            return "captured"
        if roll <= self.killed_max:
            return "killed"
        return "false_message"


@dataclass(frozen=True)
class NavyRules:
    actions: int
    port_capacity: int
    transport_ap: int
    port_load_ap: int
    beach_load_ap: int
    battle_die: int
    loss_on: int


@dataclass(frozen=True)
class IceRules:
    closed: tuple[str, ...]
    lost_in: str


@dataclass(frozen=True)
class PacificationRules:
    """``garrison_town`` / ``garrison_port``: the units of a city's garrison by the city's kind
    ("Every city possesses a garrison"; the numbers are ours, datasets/rules/trossian.toml).  A
    campaign whose frozen rules predate the garrison has none (the empty default)."""

    ap: int
    phases: int
    winter_port_extra: int
    garrison_town: tuple[str, ...] = ()
    garrison_port: tuple[str, ...] = ()

    def garrison(self, kind: str) -> tuple[str, ...]:
        """The garrison of a city province of ``kind`` ("town" or "port"; a land province has none)."""
        return {"town": self.garrison_town, "port": self.garrison_port}.get(kind, ())


@dataclass(frozen=True)
class CardRules:
    die: int
    double_on: int


@dataclass(frozen=True)
class Options:
    attrition_modifiers: str
    modifiers_on: str
    ap_basis: str
    recruit_at: str
    pacification_interrupt: str
    unblockaded_port: str
    naval_battles: str
    naval_tie: str
    navy_rolls_itself: bool
    courier_lane_capture: str
    couriers_through_ice: bool
    pacify_counts_hq: bool
    retreat_into: str
    card_tens: str = "reroll"
    # The options below came with issue 22's rules (couriers carry orders, city garrisons, navies
    # wintering in port).  A campaign whose frozen rules predate them reads these defaults, which
    # are the engine's play before them, so its log still replays; datasets/rules/trossian.toml
    # gives the seed's reading for new campaigns.
    couriers_carry_orders: bool = False
    local_command: str = "capital"
    garrison_fights: str = "alone"
    neutral_garrisons: bool = False
    navies_winter_in_port: bool = False
    winter_without_berth: str = "lost"


@dataclass(frozen=True)
class Rules(SectionedRules):
    """Every Trossian rule value, by the part of the phase that reads it."""

    RULESET = RULESET

    calendar: CalendarRules
    movement: MovementRules
    units: UnitRules
    attrition: Mapping[str, AttritionRow]
    couriers: CourierRules
    navies: NavyRules
    ice: IceRules
    pacification: PacificationRules
    treasury: Mapping[str, int]
    """AP a held province yields in winter, by its kind (:data:`PROVINCE_KINDS`)."""
    costs: Mapping[str, int]
    cards: CardRules
    options: Options

    @classmethod
    def built_otherwise(cls, merged: Mapping[str, Any], where: str) -> Mapping[str, Any]:
        return {
            "attrition": lambda rows: {r: AttritionRow(**rows[r]) for r in RESULTS},
            "treasury": _whole_numbers,
            "costs": _whole_numbers,
        }

    def _check(self, where: str) -> None:
        c = self.calendar
        if len(c.phases) != len(c.seasons) * c.phases_per_season:
            raise InputError(f"{where} calendar: {len(c.phases)} phases for {len(c.seasons)} seasons of "
                             f"{c.phases_per_season}: give seasons x phases_per_season phase names")
        if len(set(c.phases)) != len(c.phases):
            raise InputError(f"{where} calendar.phases: a name is given twice: give each phase once")
        for name in (*self.ice.closed, self.ice.lost_in):
            if name not in c.phases:
                raise InputError(f"{where} ice: {name!r} is not a phase: use one of {', '.join(c.phases)}")
        kinds = self.units.kinds()
        if len(set(kinds)) != len(kinds):
            raise InputError(f"{where} units: a kind is listed under two arms: list each once")
        if sorted(self.treasury) != sorted(PROVINCE_KINDS):
            raise InputError(f"{where} treasury: keys {', '.join(sorted(self.treasury))}: give the AP of each "
                             f"kind of province, {', '.join(PROVINCE_KINDS)}")
        missing = [k for k in kinds if k not in self.costs]
        if missing:
            raise InputError(f"{where} costs: no cost for {', '.join(missing)}: add one")
        cr = self.couriers
        if not 1 <= cr.captured_max <= cr.killed_max <= cr.die:
            raise InputError(f"{where} couriers: give 1 <= captured_max <= killed_max <= die")
        for kind in ("town", "port"):
            wrong = [k for k in self.pacification.garrison(kind) if k not in kinds]
            if wrong:
                raise InputError(f"{where} pacification.garrison_{kind}: {wrong[0]!r} is no unit kind: use {', '.join(kinds)}")
        if self.cards.double_on != self.cards.die or self.cards.die - 1 != c.per_year:
            raise InputError(f"{where} cards: die = {self.cards.die}, double_on = {self.cards.double_on}: give one "
                             f"face per phase plus the double on the top face (die = double_on = {c.per_year + 1})")

    def phase_index(self, name: str) -> int:
        try:
            return self.calendar.phases.index(name)
        except ValueError:
            raise InputError(f"phase {name!r}: use one of {', '.join(self.calendar.phases)}") from None

    def attrition_modifier(self, result: str, quality: str, kind: str) -> int:
        """The d6 modifier of a unit in ``result``'s attrition rolls (options.attrition_modifiers)."""
        guard = quality == "guard" or kind == "hq"
        militia = quality == "militia" or kind.startswith("militia")
        if not (guard or militia):
            return 0
        mode = self.options.attrition_modifiers
        row = self.attrition["winner" if mode == "draw_as_others" and result == "draw" else result]
        printed = row.guard_hq if guard else row.militia
        if mode == "on_threshold":
            # the printed number moves the threshold, not the roll: the sign reversed on the roll
            return -printed
        if mode == "guard_tougher":
            # the seed's magnitude, with the sign that makes the Guard harder to lose
            return abs(printed) if guard else -abs(printed)
        return printed


def _whole_numbers(table: Mapping[str, Any]) -> dict[str, int]:
    """A table of whole numbers by name (AP by province kind, costs by unit kind)."""
    return {k: int(v) for k, v in table.items()}


#: The ruleset file as it stands (cached), with a scenario's ``[rules]`` merged in, and a
#: designer's whole variant file.
default_rules, rules_with, rules_from_file = rules_loaders(RULESET, Rules.from_mapping)
