"""The Vae Victis II rules as one frozen, typed object.

The values live in ``datasets/rules/vae-victis-ii.toml`` (a scenario's ``[rules]``
overrides them; ``bellica campaign new`` freezes the merged values in the campaign's
``rules`` table).  :class:`Rules` groups them by the part of the rules that reads
them: ``board.rules.movement`` for :func:`engine.vae_victis.movement.resolve_movement`,
``board.rules.battles``, ``.sieges``, ``.administration``, ``.victory``, ``.logistics``,
``.naval`` and ``.start``.  The umpire's choices where the seed is silent (the file's
``[options]``) sit in the section of the rule they change.

Every faction named by the rules (allies) is spelled as the scenario spells it:
:meth:`Rules.for_factions` resolves them (``Board`` does so when it is built).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from functools import lru_cache
from typing import Any, Iterable, Mapping

import duckdb

from bellica.datasets.rules import DEFAULT_RULESET, load_rules, resolve_factions
from bellica.engine.core.rules import RuleSet, stored_rules, stored_ruleset_name
from bellica.geo.errors import InputError
from bellica.schema import existing_tables

__all__ = [
    "AdministrationRules",
    "BattleRules",
    "ConditionalAllies",
    "LogisticsRules",
    "MovementRules",
    "NavalOutcome",
    "NavalRules",
    "Rules",
    "SiegeRules",
    "StartRules",
    "VictoryRules",
    "ZocRules",
    "default_rules",
    "read_rules",
    "rules_with",
]


@dataclass(frozen=True)
class StartRules:
    army_fp: int


@dataclass(frozen=True)
class MovementRules:
    points_per_round: int
    stand_still_mp: int
    min_move_mp: int
    max_move_mp: int
    road_divisor: int
    logistics_road_mp: int
    river_mp: int
    enemy_navy_zoc_mp: int
    terrain_mp: Mapping[str, int]
    contest_window: str
    """"move": armies of different factions contest a hex while their moves into it overlap in
    time (each move claims its hex from its first MP), so the seed's steps 1-2 (cheaper move,
    fewer MP spent before it) pick the army that gets there first.  "arrival": only armies
    that would enter on the same tick contest."""
    structure_road_any_side: bool
    """The seed treats a Town/City hex where roads end or intersect as a road hex.  False: the
    halving still needs the army to enter through a side a road crosses.  True: entering such a
    hex through any side is halved."""
    halt_when_enemy_arrives: bool
    """False: only *entering* a ZoC halts (the seed's words).  True: an army that an enemy army
    moves next to halts at once."""


@dataclass(frozen=True)
class ZocRules:
    town_land_hexes: int
    town_coast_hexes: int
    city_land_hexes: int
    city_coast_hexes: int


@dataclass(frozen=True)
class ConditionalAllies:
    """Allies offered to whoever controls ``city`` at the round's start once ``faction``
    controls no Town or City (First Punic War: Greek (Western) allies, Syracusae)."""

    faction: str
    city: str
    army_list: str


@dataclass(frozen=True)
class BattleRules:
    max_fp: int
    initiative_fp: int
    river_fp: int
    extra_engagement_fp: int
    town_support_fp: int
    city_support_fp: int
    city_adjacent_support_fp: int
    garrison_fp: int
    garrison_fp_per_resilience: int
    allies_max_mp: float
    map_prefix: str
    engagement_scenario: str
    map_priority: tuple[str, ...]
    map_names: Mapping[str, str]
    allies: Mapping[str, tuple[str, ...]]
    conditional_allies: ConditionalAllies
    setup_tie: str
    """Equal MP: "lower_strength" (the weaker army sets up, then the lower number), "lower_id",
    or "umpire"."""
    # Issue 22's engagement window.  A campaign made before the key froze rules without it; 0 plays it as
    # that bellica did (no window stated, no reporter recorded), so its log still re-adjudicates.
    result_window_days: int = 0


@dataclass(frozen=True)
class SiegeRules:
    attrition_beyond_mp: float
    attrition_fp_per_resilience: int
    blockade_resilience: int
    resilience: Mapping[str, int]


@dataclass(frozen=True)
class AdministrationRules:
    retreat_hexes: int
    casualty_fp_won: int
    casualty_fp_drawn_or_lost: int
    max_transfer_fp: int
    reinforcement: Mapping[str, int]
    reinforcement_cut_off: Mapping[str, int]
    draw_blocked: str
    """A drawn army with no legal retreat "stay"s, or is placed like a loser ("as_loser")."""
    retreat_like_draw: bool
    """Armies that retreated from an engagement without fighting move like drawn ones."""
    transfer_excess: str
    """FP a receiver at the strength cap cannot take "return" to the giver, or are "lost"."""


@dataclass(frozen=True)
class VictoryRules:
    vp_to_win: int
    vp_lead_to_win: int
    weak_army_fp: int
    engagement_fought_vp: int
    engagement_won_vp: int
    engagement_drawn_vp: int
    engagement_lost_vp: int
    retreat_vp: int
    enemy_retreat_vp: int
    town_vp: int
    city_vp: int
    not_surrendered_vp: int
    not_surrendered_min_resilience: int
    simultaneous_victory: str
    """Both factions meeting a condition in one round: "vp" = more VP wins, "none" = nobody."""


@dataclass(frozen=True)
class LogisticsRules:
    river_access: str
    distance_cutoff_mp: int
    transfer_reach_mp: int


@dataclass(frozen=True)
class NavalOutcome:
    """One row of the seed's naval outcome table: a defeat from ``net`` (the net Naval Battle
    Strength against the loser), its retreat of at least ``retreat_hexes`` Coast or Sea hexes
    and ``inactive_rounds`` rounds in which the army may not embark."""

    name: str
    net: int
    retreat_hexes: int
    inactive_rounds: int


@dataclass(frozen=True)
class NavalRules:
    superiority_base: int
    movement_points_per_superiority: int
    strait_min_superiority: int
    retreat_min_superiority: int
    random_min_armies: int
    random_modulus: int
    draw_retreat_hexes: int
    move_nmp: Mapping[str, int]
    """NMP to enter a non-land hex, by hex kind (coast, sea); a kind missing cannot be entered (Ocean)."""
    debark_nmp: Mapping[str, int]
    """NMP to debark: "structure" for a Town/City hex, else by terrain; a terrain missing cannot be debarked onto."""
    outcomes: tuple[NavalOutcome, ...]
    """The defeats, smallest first (built from the file's ``[naval.outcomes]``)."""
    influence_cap: str
    """"multiplier": a faction may assign its influence multiplier x its coastal structures in a zone
    (the rules); "count": the structures alone (the umpire's restatement in the seed's thread)."""
    border_pool: str
    """A hex in two zones is paid from the zone whose pool has the most NMP left ("richest"), or
    from the zone of the hex the navy came from when that zone has it ("came_from")."""
    nmp_sharing: str
    """A zone's pool is spent "first_come" (move by move, the lower army number first within a
    move) or in "equal" shares among the faction's navies that move in that zone."""
    numbers_exhausted: str
    """More navies in battle than random numbers: "cycle" from the first number again, or "rng"
    (even numbers drawn from the campaign's seeded source)."""
    no_port: str
    """A beaten navy with no port the required distance away goes to the "nearest" port at any
    distance, or is eliminated ("eliminate")."""


def _section(cls, values: Mapping[str, Any], options: Mapping[str, Any]):
    """Build ``cls`` from a section of the merged values plus the options it declares."""
    kwargs = {}
    for f in fields(cls):
        if f.name not in values and f.name not in options and f.default is not MISSING:
            continue  # a key added after the campaign froze its rules: the field's default, the old play
        v = values[f.name] if f.name in values else options[f.name]
        if isinstance(v, list):
            v = tuple(v)
        elif isinstance(v, Mapping):
            v = {k: tuple(x) if isinstance(x, list) else x for k, x in v.items()}
        kwargs[f.name] = v
    return cls(**kwargs)


def _naval_values(naval: Mapping[str, Any]) -> dict:
    """The [naval] table with its outcome table as :class:`NavalOutcome` rows, smallest defeat first."""
    out = dict(naval)
    out["outcomes"] = tuple(sorted((NavalOutcome(name, int(v["net"]), int(v["retreat_hexes"]), int(v["inactive_rounds"]))
                                    for name, v in naval["outcomes"].items()), key=lambda o: o.net))
    return out


@dataclass(frozen=True)
class Rules(RuleSet):
    """Every Vae Victis II rule value, by section (see the module doc)."""

    start: StartRules
    movement: MovementRules
    zoc: ZocRules
    battles: BattleRules
    sieges: SiegeRules
    administration: AdministrationRules
    victory: VictoryRules
    logistics: LogisticsRules
    naval: NavalRules

    @classmethod
    def from_mapping(cls, merged: Mapping[str, Any], name: str = DEFAULT_RULESET) -> "Rules":
        """From :func:`bellica.datasets.rules.load_rules`' merged values (or the stored ones)."""
        try:
            opts = merged["options"]
            battles = dict(merged["battles"])
            battles["conditional_allies"] = ConditionalAllies(**merged["battles"]["conditional_allies"])
            return cls(
                name=name,
                values=merged,
                start=_section(StartRules, merged["start"], opts),
                movement=_section(MovementRules, merged["movement"], opts),
                zoc=_section(ZocRules, merged["zoc"], opts),
                battles=_section(BattleRules, battles, opts),
                sieges=_section(SiegeRules, merged["sieges"], opts),
                administration=_section(AdministrationRules, merged["administration"], opts),
                victory=_section(VictoryRules, merged["victory"], opts),
                logistics=_section(LogisticsRules, merged["logistics"] if "logistics" in merged else {}, opts),
                naval=_section(NavalRules, _naval_values(merged["naval"]), opts),
            )
        except (KeyError, TypeError) as e:
            raise InputError(f"the {name} rules lack {e}: the stored rules are incomplete; "
                             "recreate the campaign with `bellica campaign new`") from None

    def for_factions(self, factions: Iterable[str]) -> "Rules":
        """The same rules with every faction reference spelled as ``factions`` spell it
        (InputError naming the valid factions for an unknown one)."""
        resolved = resolve_factions(self.values, factions, ruleset=self.name, source=f"{self.name} rules")
        if resolved == self.values:
            return self
        return Rules.from_mapping(resolved, self.name)


@lru_cache(maxsize=None)
def _default_rules(name: str) -> Rules:
    return Rules.from_mapping(load_rules(name), name)


def default_rules(name: str = DEFAULT_RULESET) -> Rules:
    """The ruleset file's values with no scenario overrides (cached)."""
    return _default_rules(name)


def rules_with(overrides: Mapping[str, Any], name: str = DEFAULT_RULESET, *, source: str = "rules") -> Rules:
    """The ruleset's values with ``overrides`` (a scenario ``[rules]``-shaped mapping) merged in."""
    return Rules.from_mapping(load_rules(name, overrides, source=source), name)


def read_rules(con: duckdb.DuckDBPyConnection) -> Rules:
    """The rules a campaign froze at ``campaign new`` (its ``rules`` table).

    A database that was not written by ``campaign new`` (no ``scenario_meta``: a map file or
    a hand-built test board) gets the default rules; a campaign without the table is refused."""
    stored = stored_rules(con)
    name = stored_ruleset_name(con, DEFAULT_RULESET)
    if stored is None:
        if "scenario_meta" in existing_tables(con):
            raise InputError("this campaign has no `rules` table (it predates rules as data): "
                             "recreate it with `bellica campaign new`")
        return default_rules(name)
    return Rules.from_mapping(stored, name)
