"""Engagements, battles and their Field of Glory II set-up (seed: "Engagements and battles",
"Army strength and force point adjustment", "Map terrain of engagements", "Allies in
engagements", "Outcomes and effects of engagements and battles", "Assaults").

* An *engagement* is one FoG II game: two armies of different factions each in the
  other's ZoC after movement, or an assault by a besieging army on the structure.
* A *battle* is a connected group of engagements: armies that share an opponent are
  in one battle (the seed's examples 1-3).  An assault joins the battle of its
  assaulting army.
* :func:`engagement_setup` says how to set each game up (force points with every
  adjustment named, map, who sets up, which allies each side may take).
* :func:`battle_outcomes` turns recorded results into each battle's winner: the
  faction that won more engagements than it lost.

Everything is a pure function of value objects; numbering is deterministic.  Every
number (FP adjustments, caps, map names, allies) comes from ``board.rules.battles``
(datasets/rules/vae-victis-ii.toml, the scenario's ``[rules]`` over it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from bellica.engine.vae_victis.logistics import Logistics
from bellica.engine.vae_victis.model import Board, CampaignState
from bellica.engine.vae_victis.rules import BattleRules
from bellica.engine.vae_victis.zoc import army_zoc, controller_of, kept_within_army_zoc
from bellica.geo.errors import InputError

__all__ = [
    "BattleOutcome",
    "Engagement",
    "EngagementResult",
    "EngagementSetup",
    "OUTCOMES",
    "SideSetup",
    "army_battle_outcomes",
    "battle_outcomes",
    "check_results",
    "engagement_setup",
    "find_engagements",
    "garrison_player",
    "REPORTER_RULE",
    "result_reporter",
    "group_battles",
    "map_type",
    "still_besieging",
]

OUTCOMES = ("win", "draw", "loss")


@dataclass(frozen=True)
class Engagement:
    number: int
    battle: int
    army_a: int
    army_b: int | None  # None: an assault on ``assault``
    assault: str | None = None

    @property
    def armies(self) -> tuple[int, ...]:
        return (self.army_a,) if self.army_b is None else (self.army_a, self.army_b)

    def opponent(self, army: int) -> int | None:
        if army == self.army_a:
            return self.army_b
        if army == self.army_b:
            return self.army_a
        raise KeyError(army)


@dataclass(frozen=True)
class EngagementResult:
    engagement: int
    army: int
    outcome: str  # win / draw / loss
    casualties: int  # % as FoG II shows it at the end


# --- finding and grouping ------------------------------------------------------------


def _mutual_zoc(board: Board, a: str, b: str) -> bool:
    return b in army_zoc(board, a) and a in army_zoc(board, b)


def find_engagements(
    board: Board,
    state: CampaignState,
    assaults: Mapping[int, str] | None = None,
    retreats: Iterable[int] = (),
    paths: Mapping[int, tuple[str, ...]] | None = None,
) -> tuple[Engagement, ...]:
    """Every engagement after movement, numbered and grouped into battles.

    ``assaults``: {army: structure} the army's assault order (the army must be in the
    siege of that structure); ``retreats``: armies that chose to retreat rather than fight
    (their engagements are not fought; see victory points); ``paths``: the hexes each
    army entered this round, its start hex first.  Seed ("Assaults", "Progress of
    sieges"): only sieging armies assault, and an army that moved so that the structure
    left its ZoC (now, or at any hex of its path) has lifted its siege: its assault
    order lapses (:func:`still_besieging`).
    """
    out = set(retreats)
    # Navies (armies at sea) fight naval battles, never engagements (engine.vae_victis.naval_battles).
    live = [a for a in state.armies if not a.eliminated and a.cell is not None and board.hexes[a.cell].kind == "land"]
    pairs = []
    for i, a in enumerate(live):
        for b in live[i + 1 :]:
            if a.faction != b.faction and a.id not in out and b.id not in out and _mutual_zoc(board, a.cell, b.cell):
                pairs.append((a.id, b.id, None))
    for army_id, structure in sorted((assaults or {}).items()):
        siege = state.siege_of(structure)
        if siege is None or army_id not in siege.armies:
            raise InputError(f"army {army_id} cannot assault {structure}: it is not besieging it")
        if army_id not in out and still_besieging(board, state, army_id, structure, (paths or {}).get(army_id)):
            pairs.append((army_id, None, structure))
    return group_battles(pairs)


def still_besieging(
    board: Board, state: CampaignState, army_id: int, structure: str, path: tuple[str, ...] | None = None
) -> bool:
    """Is the army, after movement, still in its siege of ``structure``: on the map, the
    structure in its ZoC, and (``path`` given) never out of its ZoC while it moved?"""
    a = state.army(army_id)
    if a.eliminated or a.cell is None:
        return False
    cell = board.structures[structure].cell
    if cell not in army_zoc(board, a.cell):
        return False
    return path is None or kept_within_army_zoc(board, path, cell)


def group_battles(pairs: Iterable[tuple[int, int | None, str | None]]) -> tuple[Engagement, ...]:
    """Number engagements (by armies) and battles (connected components, by lowest army)."""
    pairs = sorted(set(pairs), key=lambda p: (p[0], p[1] if p[1] is not None else math.inf, p[2] or ""))
    parent: dict[int, int] = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _ in pairs:
        find(a)
        if b is not None:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    roots = sorted({find(a) for a, _, _ in pairs})
    battle_no = {r: i + 1 for i, r in enumerate(roots)}
    return tuple(
        Engagement(number=i + 1, battle=battle_no[find(a)], army_a=a, army_b=b, assault=s) for i, (a, b, s) in enumerate(pairs)
    )


def battles_of(engagements: Iterable[Engagement]) -> dict[int, tuple[Engagement, ...]]:
    out: dict[int, list[Engagement]] = {}
    for e in engagements:
        out.setdefault(e.battle, []).append(e)
    return {b: tuple(es) for b, es in sorted(out.items())}


# --- set-up -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SideSetup:
    army: int | None  # None: the structure's garrison in an assault
    faction: str | None
    fp: int
    adjustments: tuple[tuple[str, int], ...]  # (why, FP) in the order applied
    allies: tuple[str, ...] = ()
    played_by: str | None = None  # a garrison: the faction one of whose players plays it
    played_by_reason: str = ""


@dataclass(frozen=True)
class EngagementSetup:
    engagement: int
    sides: tuple[SideSetup, SideSetup]
    map: str
    map_reason: str
    sets_up: int | None  # army number; None: the umpire decides
    sets_up_reason: str
    scenario: str = ""  # the FoG II scenario: rules.battles.engagement_scenario
    result_window_days: int = 0  # rules.battles.result_window_days (0: no window stated)

    def text(self) -> str:
        parts = []
        for s in self.sides:
            who = f"army {s.army} ({s.faction})" if s.army is not None else f"garrison ({s.faction})"
            if s.army is None and s.played_by and self.result_window_days:  # 0: a sheet from before these aids
                who = f"garrison ({s.faction}, played by {s.played_by}: {s.played_by_reason})"
            adj = ", ".join(f"{why} {v:+d}" for why, v in s.adjustments)
            allies = f"; allies allowed: {', '.join(s.allies)}" if s.allies else "; no allies"
            parts.append(f"{who}: {s.fp} FP ({adj}){allies}")
        return (
            f"engagement {self.engagement}: {self.scenario}, map {self.map} ({self.map_reason}); "
            + "; ".join(parts)
            + f"; sets up: {'army ' + str(self.sets_up) if self.sets_up is not None else 'umpire decides'} ({self.sets_up_reason})"
            + (f"; result within {self.result_window_days} days, reported by {REPORTER_RULE}" if self.result_window_days else "")
        )


#: Seed, "Engagements and battles": who reports an engagement's result.
REPORTER_RULE = "the winner, or on a draw the side with fewer casualties"


def garrison_player(board: Board, controller: str | None, assaulter: str) -> tuple[str | None, str]:
    """The faction whose players choose one of them to play an assaulted structure's garrison
    (seed, "Assaults"): the controller's, or, for a structure of a faction with no players
    (Syracusae: ``player = false`` in factions.toml), the faction not assaulting.  With more
    than one such faction the umpire decides (None)."""
    info = board.factions.get(controller) if controller else None
    if controller and (info is None or info.player):
        return controller, "the faction controlling the structure"
    others = sorted(f.name for f in board.factions.values() if f.player and f.name != assaulter)
    if len(others) == 1:
        return others[0], "the faction not assaulting"
    return None, "the umpire decides among " + (", ".join(others) or "no player faction")


def result_reporter(
    factions: Mapping[int, str], outcomes: Mapping[int, tuple[str, int]], garrison: str | None = None
) -> tuple[int | None, str, str]:
    """Who reports an engagement's result (seed: "The winner, or the player having incurred the
    fewest casualties"): ``(army, faction, why)``.  ``outcomes`` {army: (outcome, casualties %)}.

    An assault's garrison records no casualties, so a lost assault is reported by the
    garrison's player (``garrison``: :func:`garrison_player`) and a drawn one by the assaulting
    army.  Equal casualties in a draw: the lower army number (the seed is silent)."""
    winners = [a for a, (o, _) in outcomes.items() if o == "win"]
    if winners:
        return winners[0], factions[winners[0]], "the winner"
    if all(o == "loss" for o, _ in outcomes.values()) and garrison:
        return None, garrison, "the garrison won the assault"
    army = min(outcomes, key=lambda a: (outcomes[a][1], a))
    why = "fewer casualties in the draw" if len(outcomes) > 1 else "the assaulting army, in a draw"
    if len(outcomes) > 1 and len({c for _, c in outcomes.values()}) == 1:
        why = "equal casualties in the draw: the lower army number"
    return army, factions[army], why


def structure_support(board: Board, state: CampaignState, faction: str, cell: str) -> tuple[int, str | None]:
    """FP support of a controlled, unsieged structure (seed: +30 in a Town's hex; +60 in a
    City's hex, +30 one hex from it; ``rules.battles.*_support_fp``).

    The best single support counts (the seed adds "+30 or +60", never both)."""
    rules = board.rules.battles
    best, name = 0, None
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if controller_of(state, s) != faction or state.siege_of(s.name) is not None:
            continue
        if s.cell == cell:
            v = rules.city_support_fp if s.kind == "city" else rules.town_support_fp
        elif s.kind == "city" and cell in board.sides.get(s.cell, {}).values() and board.hexes[cell].kind == "land":
            v = rules.city_adjacent_support_fp
        else:
            continue
        if v > best:
            best, name = v, s.name
    return best, name


def map_type(board: Board, cells_by_mp: Iterable[tuple[str, float]], prefix: str | None = None) -> tuple[str, str]:
    """Map from the terrain of the army that spent fewer MP; equal MP: the seed's priority list
    (``rules.battles.map_priority``; a terrain with no map takes the list's first)."""
    rules = board.rules.battles
    prefix = rules.map_prefix if prefix is None else prefix
    items = list(cells_by_mp)
    least = min(mp for _, mp in items)
    candidates = [c for c, mp in items if mp == least]
    terrains = [board.hexes[c].terrain for c in candidates]
    order = list(rules.map_priority)
    terrain = min((t for t in terrains if t in order), key=order.index, default=order[0])
    if len(items) > 1 and len(candidates) > 1:
        reason = f"equal MP: {terrain} comes first in the priority list"
    else:
        reason = f"{terrain} of the army that spent fewer MP" if len(items) > 1 else f"{terrain} of the structure's hex"
    return f"{prefix} {rules.map_names[terrain]}", reason


def allowed_allies(
    board: Board,
    start_state: CampaignState,
    faction: str,
    distance_mp: float,
    options: BattleRules | None = None,
) -> tuple[str, ...]:
    """Allies a side may select (seed, "Allies in engagements"): only within ``allies_max_mp``
    of its lines at the round's start; then the faction's own allies (``allies``), plus the
    conditional allies (Greek (Western)) for the controller of their city at the round's start
    once their faction controls no Town or City.  Faction names are the scenario's, resolved
    when the Board was built, so a spelling difference cannot switch this off."""
    rules = options if options is not None else board.rules.battles
    if distance_mp > rules.allies_max_mp:
        return ()
    allies = list(rules.allies.get(faction, ()))
    cond = rules.conditional_allies
    if cond.faction and cond.army_list and faction != cond.faction and start_state.control.get(cond.city) == faction:
        if not any(c == cond.faction for c in start_state.control.values()):
            allies.append(cond.army_list)
    return tuple(allies)


def engagement_setup(
    board: Board,
    state: CampaignState,
    engagement: Engagement,
    engagements: Iterable[Engagement],
    *,
    mp_spent: Mapping[int, float],
    initiative: Mapping[int, str] | None = None,
    start_logistics: Logistics | None = None,
    start_state: CampaignState | None = None,
    in_transit: Mapping[int, int] | None = None,
    blockaded: Iterable[str] = (),
    options: BattleRules | None = None,
) -> EngagementSetup:
    """The FoG II set-up of one engagement (seed "Army strength and force point adjustment").

    ``mp_spent``: MP each army spent this round until it completed its movement;
    ``initiative``: each army's use ("strength" = +40 FP, the default when absent);
    ``start_logistics``/``start_state``: the logistics and state at the start of the
    round (allies need the army within 6 MP of its lines then); ``in_transit``: FP
    an army is transferring this round (not part of its strength during the round);
    ``blockaded``: structures blockaded now (naval hook): an assaulted one's current
    Resilience, and so its garrison, is 1 lower (seed, "Start of a siege").
    """
    rules = options if options is not None else board.rules.battles
    same_battle = [e for e in engagements if e.battle == engagement.battle]
    count = {a: sum(1 for e in same_battle if a in e.armies) for e in same_battle for a in e.armies}

    def side(army_id: int, opponent_id: int | None) -> SideSetup:
        return _side_setup(board, state, rules, army_id, opponent_id, mp_spent=mp_spent, initiative=initiative or {},
                           in_transit=in_transit or {}, engagements_of=count, start_logistics=start_logistics,
                           start_state=start_state or state)

    if engagement.assault is not None:
        return _assault_setup(board, state, rules, engagement, side(engagement.army_a, None), blockaded)
    a_id, b_id = engagement.army_a, engagement.army_b
    sa, sb = side(a_id, b_id), side(b_id, a_id)
    a, b = state.army(a_id), state.army(b_id)
    m, reason = map_type(board, [(a.cell, mp_spent.get(a_id, 0)), (b.cell, mp_spent.get(b_id, 0))], rules.map_prefix)
    setter, why = _who_sets_up(state, rules, a_id, b_id, mp_spent)
    return EngagementSetup(engagement.number, (sa, sb), m, reason, setter, why, rules.engagement_scenario,
                           rules.result_window_days)


def _side_setup(board: Board, state: CampaignState, rules: BattleRules, army_id: int, opponent_id: int | None, *,
                mp_spent: Mapping[int, float], initiative: Mapping[int, str], in_transit: Mapping[int, int],
                engagements_of: Mapping[int, int], start_logistics: Logistics | None,
                start_state: CampaignState) -> SideSetup:
    """One army's force points, each adjustment named, and the allies it may take (``opponent_id`` None:
    it assaults a structure, so no river crossing applies)."""
    a = state.army(army_id)
    adj: list[tuple[str, int]] = [("strength", a.strength)]
    if in_transit.get(army_id):
        adj.append(("strength in transfer", -in_transit[army_id]))
    support, name = structure_support(board, state, a.faction, a.cell)
    if support:  # an assault is an engagement like the others but for the seed's listed differences
        adj.append((f"support of {name}", support))
    if opponent_id is not None:
        o = state.army(opponent_id)
        river = any(
            board.hexes[c].river and board.structure_at(c) is None for c in (a.cell, o.cell)
        )
        if river and mp_spent.get(army_id, 0) > mp_spent.get(opponent_id, 0):
            adj.append(("river, spent more MP", rules.river_fp))
    extra = engagements_of.get(army_id, 1) - 1
    if extra:
        adj.append((f"{extra} extra engagement{'s' if extra > 1 else ''} in the battle", rules.extra_engagement_fp * extra))
    fp = sum(v for _, v in adj)
    if initiative.get(army_id, "strength") == "strength":
        bonus = max(0, min(rules.initiative_fp, rules.max_fp - fp))
        adj.append((f"initiative (capped at {rules.max_fp})", bonus))
        fp += bonus
    distance = start_logistics.army_distance.get(army_id, math.inf) if start_logistics else math.inf
    allies = allowed_allies(board, start_state, a.faction, distance, rules)
    return SideSetup(army_id, a.faction, fp, tuple(adj), allies)


def _assault_setup(board: Board, state: CampaignState, rules: BattleRules, engagement: Engagement,
                   attacker: SideSetup, blockaded: Iterable[str]) -> EngagementSetup:
    """An assault: the assaulting army against the structure's garrison, whose force points come from the
    structure's current Resilience; the assaulting army sets up."""
    siege = state.siege_of(engagement.assault)
    if siege is None:
        raise InputError(f"engagement {engagement.number}: {engagement.assault} is not besieged")
    structure = board.structures[engagement.assault]
    # Seed: 1400 + 50 x the structure's *current* Resilience, which a blockade lowers by 1.
    blockade = board.rules.sieges.blockade_resilience if engagement.assault in set(blockaded) else 0
    resilience = siege.resilience + blockade
    per = rules.garrison_fp_per_resilience
    defender_fp = rules.garrison_fp + per * resilience
    why = f"{per} x Resilience {resilience}" + (f" (blockaded: {blockade:+d})" if blockade else "")
    controller = controller_of(state, structure)
    played_by, played_reason = garrison_player(board, controller, attacker.faction)
    defender = SideSetup(
        None,
        controller,
        defender_fp,
        (("garrison", rules.garrison_fp), (why, per * resilience)),
        (),
        played_by,
        played_reason,
    )
    m, reason = map_type(board, [(structure.cell, 0)], rules.map_prefix)
    return EngagementSetup(
        engagement.number, (attacker, defender), m, reason, engagement.army_a, "the assaulting army sets up",
        rules.engagement_scenario, rules.result_window_days,
    )


def _who_sets_up(state: CampaignState, rules: BattleRules, a_id: int, b_id: int,
                 mp_spent: Mapping[int, float]) -> tuple[int | None, str]:
    """The army that sets up first (seed: the one that spent fewer MP; a tie as rules.setup_tie says), and why."""
    ma, mb = mp_spent.get(a_id, 0), mp_spent.get(b_id, 0)
    if ma != mb:
        setter = a_id if ma < mb else b_id
        return setter, f"army {setter} spent fewer MP ({min(ma, mb)} against {max(ma, mb)})"
    if rules.setup_tie == "umpire":
        return None, "equal MP: the umpire decides"
    if rules.setup_tie == "lower_id":
        return min(a_id, b_id), "equal MP: the lower army number"
    setter = min((a_id, b_id), key=lambda i: (state.army(i).strength, i))
    return setter, "equal MP: the weaker army (then the lower army number)"


# --- results and outcomes ---------------------------------------------------------------


def check_results(engagements: Iterable[Engagement], results: Iterable[EngagementResult]) -> dict[int, dict[int, EngagementResult]]:
    """Validate the recorded results; refuse (InputError) until every engagement has a consistent one."""
    by_e: dict[int, dict[int, EngagementResult]] = {}
    for r in results:
        if r.outcome not in OUTCOMES:
            raise InputError(f"engagement {r.engagement}, army {r.army}: outcome {r.outcome!r} is not one of {', '.join(OUTCOMES)}")
        if isinstance(r.casualties, bool) or not isinstance(r.casualties, int) or not 0 <= r.casualties <= 100:
            raise InputError(f"engagement {r.engagement}, army {r.army}: casualties {r.casualties!r} must be 0-100 %")
        by_e.setdefault(r.engagement, {})[r.army] = r
    missing = []
    for e in engagements:
        got = by_e.get(e.number, {})
        if sorted(got) != sorted(e.armies):
            missing.append(e.number)
            continue
        if e.army_b is not None:
            pair = sorted(got[x].outcome for x in e.armies)
            if pair not in (["draw", "draw"], ["loss", "win"]):
                raise InputError(f"engagement {e.number}: outcomes {pair} disagree: one wins and the other loses, or both draw")
    if missing:
        raise InputError(f"engagement{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} ha{'ve' if len(missing) > 1 else 's'} no result yet")
    return by_e


@dataclass(frozen=True)
class BattleOutcome:
    battle: int
    engagements: tuple[int, ...]
    wins: Mapping[str, int]  # faction -> engagements won
    losses: Mapping[str, int]
    draws: Mapping[str, int]
    winner: str | None
    loser: str | None
    versus: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(faction, enemy faction) -> win/draw/loss of the faction against that enemy in this battle."""

    def outcome_for(self, faction: str) -> str:
        """The faction's outcome: against each enemy faction it met here, won more engagements
        than it lost (win) or fewer (loss); a loss against any enemy is a lost battle.  With two
        factions (every battle but one beside an assault on a third faction's structure) this is
        simply winner / loser / draw."""
        vs = [r for (f, _), r in self.versus.items() if f == faction]
        if vs:
            return "loss" if "loss" in vs else "win" if "win" in vs else "draw"
        if self.winner is None:
            return "draw"
        return "win" if faction == self.winner else "loss"


def battle_outcomes(
    board: Board,
    state: CampaignState,
    engagements: Iterable[Engagement],
    results: Iterable[EngagementResult],
) -> dict[int, BattleOutcome]:
    """Each battle's outcome: the faction that won more engagements than it lost wins it.

    An assault counts for the assaulting faction and the structure's controller."""
    engagements = tuple(engagements)
    by_e = check_results(engagements, results)
    out = {}
    for battle, es in battles_of(engagements).items():
        wins: dict[str, int] = {}
        losses: dict[str, int] = {}
        draws: dict[str, int] = {}
        tally: dict[tuple[str, str], int] = {}  # (faction, enemy) -> engagements won - lost
        for e in es:
            sides = [(state.army(x).faction, by_e[e.number][x].outcome) for x in e.armies]
            if e.assault is not None:
                defender = controller_of(state, board.structures[e.assault])
                inverse = {"win": "loss", "loss": "win", "draw": "draw"}[sides[0][1]]
                sides.append((defender, inverse))
            for faction, outcome in sides:
                if faction is None:
                    continue
                bucket = {"win": wins, "loss": losses, "draw": draws}[outcome]
                bucket[faction] = bucket.get(faction, 0) + 1
            (fa, oa), (fb, ob) = sides
            if fa is not None and fb is not None:
                for f, g, o in ((fa, fb, oa), (fb, fa, ob)):
                    tally[(f, g)] = tally.get((f, g), 0) + {"win": 1, "loss": -1, "draw": 0}[o]
        factions = sorted(set(wins) | set(losses) | set(draws))
        winner = next((f for f in factions if wins.get(f, 0) > losses.get(f, 0)), None)
        loser = next((f for f in factions if f != winner and losses.get(f, 0) > wins.get(f, 0)), None) if winner else None
        # Seed: a faction "won a battle against an enemy faction if it has won more engagements
        # than it has lost in that battle": judged against each enemy faction it met.
        versus = {k: "win" if v > 0 else "loss" if v < 0 else "draw" for k, v in sorted(tally.items())}
        out[battle] = BattleOutcome(battle, tuple(e.number for e in es), wins, losses, draws, winner, loser, versus)
    return out


def army_battle_outcomes(
    state: CampaignState, engagements: Iterable[Engagement], outcomes: Mapping[int, BattleOutcome]
) -> dict[int, str]:
    """{army: win/draw/loss of its battle} for every army that fought."""
    res = {}
    for e in engagements:
        for a in e.armies:
            res[a] = outcomes[e.battle].outcome_for(state.army(a).faction)
    return res
