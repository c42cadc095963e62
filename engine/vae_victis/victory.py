"""Victory points and the five victory conditions (seed: "Victory points", "Overview").

Points are allocated to factions at the end of each round:

    +1 each fought engagement (won, drawn or lost)   +3 won   -1 drawn   -3 lost
    -1 retreating from an engagement without fighting it; +1 when the enemy does
    +1 / +2 each Town / City gained from another faction; -1 / -2 each lost to one
    -1 more for a Town/City lost without surrendering whose Resilience started at 2+

The campaign ends when a faction has at least +50 VP, at least +30 more than the
other faction, control of the other faction's capital, or when every army of the
other faction is eliminated or below 1200 FP.  Every number is ``board.rules.victory``
(datasets/rules/vae-victis-ii.toml, the scenario's ``[rules]`` over it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from bellica.engine.vae_victis.battles import Engagement, EngagementResult
from bellica.engine.vae_victis.model import Board, CampaignState, Event
from bellica.engine.vae_victis.rules import VictoryRules
from bellica.engine.vae_victis.zoc import controller_of

__all__ = [
    "VictoryCheck",
    "check_victory",
    "round_victory_points",
    "score_round",
]

def engagement_vp(rules: VictoryRules, outcome: str) -> tuple[int, int]:
    """(VP for fighting, VP for the outcome) of one engagement."""
    by_outcome = {"win": rules.engagement_won_vp, "draw": rules.engagement_drawn_vp, "loss": rules.engagement_lost_vp}
    return rules.engagement_fought_vp, by_outcome[outcome]


def round_victory_points(
    board: Board,
    start_state: CampaignState,
    engagements: Iterable[Engagement] = (),
    results: Iterable[EngagementResult] = (),
    retreats: Iterable[tuple[int, int]] = (),
    control_events: Iterable[Event] = (),
) -> tuple[dict[str, int], tuple[Event, ...]]:
    """This round's VP per faction and one event per award, explained in words.

    ``retreats``: (retreating army, enemy army) for each engagement avoided by retreat;
    ``control_events``: the ``control_changed`` events of the round (sieges, assaults,
    surrenders, unowned structures gained by ZoC)."""
    rules = board.rules.victory
    rnd = start_state.round
    faction_of = {a.id: a.faction for a in start_state.armies}
    outcome = {(r.engagement, r.army): r.outcome for r in results}
    vp: dict[str, int] = {}
    events: list[Event] = []

    def award(faction: str | None, points: int, why: str, data: Mapping):
        if faction is None or points == 0:
            return
        vp[faction] = vp.get(faction, 0) + points
        events.append(Event(rnd, "victory", "vp_awarded", {"faction": faction, "vp": points, **data},
                            f"{faction} {points:+d} VP: {why}"))

    for e in engagements:
        o = outcome.get((e.number, e.army_a))
        if o is None:
            continue
        sides = [(faction_of[e.army_a], o)]
        if e.army_b is not None:
            sides.append((faction_of[e.army_b], outcome[(e.number, e.army_b)]))
        else:
            defender = controller_of(start_state, board.structures[e.assault])
            sides.append((defender, {"win": "loss", "loss": "win", "draw": "draw"}[o]))
        for faction, res in sides:
            word = {"win": "won", "draw": "drawn", "loss": "lost"}[res]
            fought, result = engagement_vp(rules, res)
            award(faction, fought + result, f"engagement {e.number} fought ({fought:+d}) and {word} "
                  f"({result:+d})", {"engagement": e.number, "outcome": res})
    for army, enemy in retreats:
        award(faction_of[army], rules.retreat_vp, f"army {army} retreated from engagement with army {enemy} without fighting",
              {"army": army, "reason": "retreated"})
        award(faction_of[enemy], rules.enemy_retreat_vp, f"enemy army {army} retreated from army {enemy}",
              {"army": enemy, "reason": "enemy retreated"})
    for ev in control_events:
        d = ev.data
        if ev.kind != "control_changed" or d.get("from") is None or d.get("from") == d.get("to"):
            continue  # gaining an unowned structure earns nothing: "gained from another faction"
        city = d["structure_kind"] == "city"
        value = rules.city_vp if city else rules.town_vp
        kind = "City" if city else "Town"
        award(d["to"], value, f"{kind} {d['structure']} gained from {d['from']}", {"structure": d["structure"], "reason": "gained"})
        award(d["from"], -value, f"{kind} {d['structure']} lost to {d['to']}", {"structure": d["structure"], "reason": "lost"})
        started = d.get("start_resilience") or 0
        if not d.get("surrendered") and started >= rules.not_surrendered_min_resilience and d.get("how") in ("siege", "assault"):
            award(d["from"], rules.not_surrendered_vp, f"{d['structure']} lost without surrendering, its Resilience having started at "
                  f"{d['start_resilience']}", {"structure": d["structure"], "reason": "not surrendered"})
    return vp, tuple(events)


def score_round(board: Board, state: CampaignState, round_vp: Mapping[str, int]) -> CampaignState:
    """Add a round's VP to the standing."""
    total = dict(state.victory_points)
    for f, v in round_vp.items():
        total[f] = total.get(f, 0) + v
    return replace(state, victory_points=total)


@dataclass(frozen=True)
class VictoryCheck:
    winner: str | None
    met: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # faction -> conditions met, in words

    @property
    def ended(self) -> bool:
        return self.winner is not None


def check_victory(board: Board, state: CampaignState, options: VictoryRules | None = None) -> tuple[VictoryCheck, tuple[Event, ...]]:
    """The five conditions for every player faction against each other player faction.
    ``options``: the victory rules, default ``board.rules.victory``."""
    options = options if options is not None else board.rules.victory
    players = sorted(f.name for f in board.factions.values() if f.player) or sorted(board.factions)
    vp = state.victory_points
    met: dict[str, list[str]] = {}
    for f in players:
        reasons = []
        if vp.get(f, 0) >= options.vp_to_win:
            reasons.append(f"{vp.get(f, 0)} VP (at least +{options.vp_to_win})")
        for g in players:
            if g == f:
                continue
            if vp.get(f, 0) - vp.get(g, 0) >= options.vp_lead_to_win:
                reasons.append(f"{vp.get(f, 0) - vp.get(g, 0)} VP more than {g} (at least +{options.vp_lead_to_win})")
            for cap in board.factions[g].capitals:
                if cap in board.structures and controller_of(state, board.structures[cap]) == f:
                    reasons.append(f"controls {g}'s capital {cap}")
            theirs = [a for a in state.armies if a.faction == g]
            alive = [a for a in theirs if not a.eliminated]
            if theirs and not alive:
                reasons.append(f"every army of {g} is eliminated")
            elif alive and all(a.strength < options.weak_army_fp for a in alive):
                reasons.append(f"every army of {g} is below {options.weak_army_fp} FP")
        if reasons:
            met[f] = reasons
    winner = None
    if len(met) == 1:
        winner = next(iter(met))
    elif len(met) > 1 and options.simultaneous_victory == "vp":
        ranked = sorted(met, key=lambda f: -vp.get(f, 0))
        if vp.get(ranked[0], 0) > vp.get(ranked[1], 0):
            winner = ranked[0]
    events = []
    if winner:
        events.append(Event(state.round, "victory", "victory", {"winner": winner, "conditions": met[winner]},
                            f"{winner} wins the campaign: " + "; ".join(met[winner])))
    return VictoryCheck(winner, {f: tuple(r) for f, r in met.items()}), tuple(events)
