"""Phase 3: which powers attack, whom, and (when the battle comes) which province.

Every Active power but Rome rolls 2D6, modified by last turn's battles and its ruler's
Aggressor rating; 9 or more attacks.  In the order of the modified rolls, highest
first (equal rolls: a roll-off), each attacker picks its target among the Active powers
holding a province next to one of its own: 1D6 each, +1 for the poorest, +2 for the
next and so on (equal revenue, equal bonus), +2 where a Minor Victory would give the
attacker a Subject Inactive Power; the highest wins (equal: a roll-off).  Then Rome (the
player) may name a target.  The province attacked is the one that would give the
attacker the most revenue next turn, then one with a resource, then a die
(:func:`target_province`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bellica.engine.rise_of_rome.control import transfer
from bellica.engine.rise_of_rome.dice import DiceRoller, roll_off
from bellica.engine.rise_of_rome.model import (Event, Scenario, TurnState, is_active, provinces_of,
                                              subjects_of)
from bellica.engine.rise_of_rome.revenue import power_revenue
from bellica.engine.rise_of_rome.rules import Rules
from bellica.geo.errors import InputError

__all__ = [
    "PHASE",
    "Attack",
    "AttackPlan",
    "attack_modifier",
    "best_provinces",
    "border_provinces",
    "candidate_targets",
    "choose_target",
    "declare_player_attack",
    "order_by_roll",
    "roll_attacks",
    "target_province",
    "would_gain_subject",
]

PHASE = "attacks"


@dataclass(frozen=True)
class Attack:
    """``attacker`` attacks ``target`` this turn.  ``roll``: the modified attack roll (None for the
    player and external armies, which roll none)."""

    attacker: str
    target: str
    roll: int | None = None
    external: bool = False
    player: bool = False


@dataclass(frozen=True)
class AttackPlan:
    """The turn's attacks in the order their battles are fought."""

    attacks: tuple[Attack, ...] = ()

    def attackers(self) -> frozenset[str]:
        return frozenset(a.attacker for a in self.attacks)

    def attacks_on(self, power: str) -> int:
        return sum(1 for a in self.attacks if a.target == power)


def attack_modifier(state: TurnState, rules: Rules, power: str) -> tuple[int, list[str]]:
    """The modifier to ``power``'s attack roll, and its parts in words."""
    a = rules.attacks
    total, parts = 0, []
    if power in state.won_last:
        total += a.won_last_turn
        parts.append(f"won last turn {a.won_last_turn:+d}")
    if power in state.lost_last:
        total += a.lost_last_turn
        parts.append(f"lost last turn {a.lost_last_turn:+d}")
    ruler = state.rulers.get(power)
    if ruler is not None:
        m = rules.aggressor_modifier(ruler.aggressor)
        if m:
            total += m
            parts.append(f"Aggressor {ruler.aggressor} {m:+d}")
    return total, parts


def border_provinces(scenario: Scenario, state: TurnState, attacker_provinces: tuple[str, ...] | frozenset[str],
                     target: str) -> tuple[str, ...]:
    """``target``'s provinces next to any of ``attacker_provinces`` (scenario order)."""
    near = set()
    for p in attacker_provinces:
        near |= scenario.neighbours(p)
    return tuple(p for p in provinces_of(scenario, state, target) if p in near)


def candidate_targets(scenario: Scenario, state: TurnState, attacker: str) -> tuple[str, ...]:
    """Active powers (never the attacker) holding a province next to one of the attacker's."""
    mine = provinces_of(scenario, state, attacker)
    return tuple(p for p in scenario.nations
                 if p != attacker and is_active(scenario, state, p) and border_provinces(scenario, state, mine, p))


def would_gain_subject(scenario: Scenario, state: TurnState, attacker: str, target: str,
                       provinces: tuple[str, ...] | None = None) -> bool:
    """Would taking one of ``provinces`` (default: ``target``'s next to the attacker) give the
    attacker a new Subject Inactive Power?"""
    if provinces is None:
        provinces = border_provinces(scenario, state, provinces_of(scenario, state, attacker), target)
    before = set(subjects_of(scenario, state, attacker))
    for p in provinces:
        after, _ = transfer(scenario, state, p, attacker)
        if set(subjects_of(scenario, after, attacker)) - before:
            return True
    return False


def _revenue_ranks(state: TurnState, powers: tuple[str, ...]) -> dict[str, int]:
    """1 for the least revenue, 2 for the next-lowest, ...; equal revenue, equal rank."""
    levels = sorted({state.revenue.get(p, 0) for p in powers})
    return {p: levels.index(state.revenue.get(p, 0)) + 1 for p in powers}


def choose_target(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller, attacker: str,
                  candidates: tuple[str, ...], *, label: str = "target") -> tuple[str, list[Event]]:
    """The seed's target roll among ``candidates``; (target, events)."""
    a = rules.attacks
    ranks = _revenue_ranks(state, candidates)
    scores, parts = {}, []
    attacker_provinces = (provinces_of(scenario, state, attacker) if attacker in scenario.nations
                          else tuple(x.province for x in state.externals.values() if x.power == attacker))
    for c in candidates:
        r = roller.roll(a.target_dice, a.target_die, label, state.turn, attacker, c)
        bonus = ranks[c] * a.revenue_rank_step
        subject = 0
        if attacker in scenario.nations and would_gain_subject(
                scenario, state, attacker, c, border_provinces(scenario, state, attacker_provinces, c)):
            subject = a.subject_bonus
        scores[c] = r.total + bonus + subject
        parts.append(f"{c} {r.total}+{bonus}" + (f"+{subject}" if subject else "") + f"={scores[c]}")
    best = max(scores.values())
    tied = [c for c in candidates if scores[c] == best]
    target, offs = roll_off(roller, tied, label, state.turn, attacker) if len(tied) > 1 else (tied[0], [])
    text = f"{attacker} choose their target: {', '.join(parts)} -> {target}"
    if offs:
        text += f" (roll-off {', '.join(f'{r.label[-1]} {r.total}' for r in offs)})"
    return target, [Event(state.turn, PHASE, "target", {"attacker": attacker, "scores": scores, "target": target}, text)]


def order_by_roll(roller: DiceRoller, totals: dict[str, int], *label: object) -> list[str]:
    """Highest total first; equal totals ordered by successive roll-offs."""
    order: list[str] = []
    for value in sorted(set(totals.values()), reverse=True):
        tied = sorted(p for p, t in totals.items() if t == value)
        n = 0
        while len(tied) > 1:
            n += 1
            first, _ = roll_off(roller, tied, *label, value, n)
            order.append(first)
            tied.remove(first)
        order += tied
    return order


def roll_attacks(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller,
                 plan: AttackPlan = AttackPlan()) -> tuple[AttackPlan, list[Event]]:
    """Phase 3 for the engine's powers: their attack rolls, then each attacker's target, in
    order of the modified rolls.  ``plan``: attacks already declared (the external armies'),
    which stay first."""
    a = rules.attacks
    events: list[Event] = []
    totals: dict[str, int] = {}
    for power in scenario.nations:
        if power == scenario.player or not is_active(scenario, state, power):
            continue
        r = roller.roll(a.dice, a.die, "attack", state.turn, power)
        mod, parts = attack_modifier(state, rules, power)
        total = r.total + mod
        attacks = total >= a.threshold
        events.append(Event(state.turn, PHASE, "attack_roll",
                            {"power": power, "dice": list(r.dice), "modifier": mod, "total": total, "attacks": attacks},
                            f"{power} roll {list(r.dice)}" + (f" ({', '.join(parts)})" if parts else "")
                            + f" = {total}: " + ("they attack" if attacks else f"below {a.threshold}, no attack")))
        if attacks:
            totals[power] = total
    attacks_list = list(plan.attacks)
    log = getattr(roller, "log", None)
    before = len(log) if log is not None else 0
    order = order_by_roll(roller, totals, "attack-order", state.turn)
    offs = [r for r in (log or [])[before:] if r.label and r.label[0] == "attack-order"]
    if offs:  # equal attack rolls: say how the tie was broken (issue 22)
        by_value: dict[int, list[str]] = {}
        for r in offs:  # label: attack-order, turn, value, n, roll-off, attempt, power
            by_value.setdefault(int(r.label[2]), []).append(f"{r.label[-1]} {r.total}")
        events.append(Event(state.turn, PHASE, "attack_order", {"order": order},
                            "equal attack rolls go in the order of a roll-off (1D6 each, highest first, the tied roll "
                            "again): " + "; ".join(f"at {v}: {', '.join(rs)}" for v, rs in sorted(by_value.items(), reverse=True))
                            + f"; the attackers choose their targets in the order {', '.join(order)}"))
    for power in order:
        candidates = candidate_targets(scenario, state, power)
        if not candidates:
            events.append(Event(state.turn, PHASE, "no_target", {"power": power},
                                f"{power} have no Active neighbour to attack"))
            continue
        target, more = choose_target(scenario, state, rules, roller, power, candidates)
        events += more
        attacks_list.append(Attack(power, target, totals[power]))
    return AttackPlan(tuple(attacks_list)), events


def declare_player_attack(scenario: Scenario, state: TurnState, rules: Rules, plan: AttackPlan,
                          target: str | None) -> tuple[AttackPlan, list[Event]]:
    """Rome names its target (None: no attack); its battle goes last or first among the powers'
    attacks (option ``player_battle_order``; external armies always first)."""
    player = scenario.player
    if target is None:
        return plan, [Event(state.turn, PHASE, "player_attack", {"power": player, "target": None},
                            f"{player} do not attack this turn")]
    allowed = candidate_targets(scenario, state, player)
    if target not in allowed:
        raise InputError(f"{player} cannot attack {target!r} this turn: choose one of {', '.join(allowed) or 'none'}")
    attack = Attack(player, target, player=True)
    if rules.options.player_battle_order == "first":
        n = sum(1 for a in plan.attacks if a.external)
        attacks = plan.attacks[:n] + (attack,) + plan.attacks[n:]
    else:
        attacks = plan.attacks + (attack,)
    return AttackPlan(attacks), [Event(state.turn, PHASE, "player_attack", {"power": player, "target": target},
                                       f"{player} attack {target}")]


def best_provinces(scenario: Scenario, state: TurnState, rules: Rules, attacker: str,
                   options: tuple[str, ...]) -> tuple[list[str], str]:
    """The seed's province rule without its die: of ``options``, those giving ``attacker`` the most
    revenue next turn, then those with a resource; (the provinces still equal, the reason in words)."""
    value = {}
    for p in options:
        after, _ = transfer(scenario, state, p, attacker)
        value[p] = power_revenue(scenario, after, rules, attacker).total
    best = max(value.values())
    tied = [p for p in options if value[p] == best]
    why = f"most revenue next turn ({best})"
    if len(tied) > 1:
        with_res = [p for p in tied if scenario.provinces[p].resource]
        if with_res:
            tied = with_res
            why += ", with a resource"
    return tied, why


def target_province(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller, attacker: str,
                    options: tuple[str, ...], *, label: tuple = ()) -> tuple[str, str]:
    """Of ``options``, the province that gives ``attacker`` the most revenue next turn once taken
    (resources and a Subject created counted), then one with a resource, then a die roll.
    Returns (province, the reason in words)."""
    if len(options) == 1:
        return options[0], "the only one"
    tied, why = best_provinces(scenario, state, rules, attacker, options)
    if len(tied) > 1:
        p, _ = roll_off(roller, tied, "province", state.turn, attacker, *label)
        return p, why + ", by a die"
    return tied[0], why


