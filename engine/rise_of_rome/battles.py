"""Phase 5: battles, in the order of the attacks, and their consequences on the map.

Each battle's province is chosen when it is fought (earlier battles may have changed
the map; an attack with no province of its target next to the attacker any more is
cancelled and its Attack money goes to the attacker's Defense).  The attacker brings
80 points plus its Attack money (an external army its own points); the defender 80
plus its share of its Defense money, +10 if it is not attacking this turn, -10 per
attack on it beyond the first (attacks on its Subjects included).  A Subject's
province is defended by the Subject's own army.  Command Cards come from the Builder
rating (Rome 5), Generals from the army's points.

Battles involving Rome (or a province of one of Rome's Subjects) are played on the
table and their result entered; every other battle is generated (:func:`generate`):
both sides roll 2D6 and keep the higher die, +1 per full 20 points, equal scores roll
again, a margin of 3 or more is a Major Victory.  Generating Rome's battles too is a
departure from the seed, made explicit by the rules option ``generate_player_battles``.

Consequences: an attacker's Minor Victory takes the province, a Major one also one
more province of the same enemy next to the attacker's; a defender's Major Victory
takes one of the attacker's provinces.  An external army that loses is removed; one
that wins moves into the province (it never controls one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from tabula.engine.rise_of_rome.attacks import Attack, AttackPlan, border_provinces, target_province
from tabula.engine.rise_of_rome.control import transfer
from tabula.engine.rise_of_rome.dice import DiceRoller, pick
from tabula.engine.rise_of_rome.model import (Event, Scenario, TurnState, is_active, provinces_of,
                                              suzerain)
from tabula.engine.rise_of_rome.rules import Rules
from tabula.engine.rise_of_rome.spending import Spending
from tabula.geo.errors import InputError

__all__ = [
    "PHASE",
    "Battle",
    "BattleResult",
    "PlayerChoices",
    "command_cards",
    "fight_battles",
    "generate",
    "max_generals",
    "score_bonus",
]

PHASE = "battles"


@dataclass(frozen=True)
class BattleResult:
    winner: str  # "attacker" | "defender"
    major: bool
    scores: tuple[int, int] | None = None  # generated: (attacker, defender) final scores
    rolls: tuple[tuple[int, ...], ...] = ()  # generated: every 2D6 rolled, attacker then defender, per attempt

    def __post_init__(self) -> None:
        if self.winner not in ("attacker", "defender"):
            raise InputError(f"battle result winner {self.winner!r}: give \"attacker\" or \"defender\"")

    def text(self) -> str:
        return f"{'Major' if self.major else 'Minor'} Victory for the {self.winner}"


@dataclass(frozen=True)
class Battle:
    """One battle as set up for the table (or the generator)."""

    index: int
    attacker: str
    target: str  # the power attacked (controller of the province)
    province: str
    army: str  # whose army defends: the target, or the Subject whose province it is
    attack_points: int
    defence_points: int
    attacker_cards: int
    defender_cards: int
    attacker_generals: int
    defender_generals: int
    tabletop: bool
    external: bool = False

    def text(self) -> str:
        return (f"{self.attacker} ({self.attack_points} pts, {self.attacker_cards} cards, up to {self.attacker_generals} "
                f"Generals) attack {self.province}, defended by {self.army} ({self.defence_points} pts, "
                f"{self.defender_cards} cards, up to {self.defender_generals} Generals)"
                + (" -- played on the table" if self.tabletop else ""))


class PlayerChoices(Protocol):
    """What the player decides during the battles phase (any method may return None: the rule decides)."""

    def province(self, state: TurnState, options: tuple[str, ...], why: str) -> str | None: ...

    def result(self, battle: Battle) -> BattleResult | None: ...


def command_cards(scenario: Scenario, state: TurnState, rules: Rules, power: str) -> int:
    """Rome: 5; an external army: the rules' number; any other power: by its ruler's Builder rating."""
    if power == scenario.player:
        return rules.battles.player_command_cards
    if power in scenario.powers and scenario.powers[power].external:
        return rules.externals.command_cards
    ruler = state.rulers.get(power)
    return rules.command_cards(ruler.builder if ruler else 0)


def max_generals(rules: Rules, power: str, points: int) -> int:
    """At most one General per the power's points-per-General (full multiples only)."""
    return points // rules.points_per_general(power)


def score_bonus(rules: Rules, points: int) -> int:
    """+1 per full 20 points of the army."""
    return points // rules.battles.generator.points_per_bonus


def generate(rules: Rules, roller: DiceRoller, attack_points: int, defence_points: int, *label: object) -> BattleResult:
    """The Battle Result Generator: 2D6 keep the higher, + points bonus; equal: again; margin 3+: Major."""
    g = rules.battles.generator
    rolls = []
    for attempt in range(1, g.max_rerolls + 1):
        ra = roller.roll(g.dice, g.die, *label, "attacker", attempt)
        rd = roller.roll(g.dice, g.die, *label, "defender", attempt)
        rolls += [ra.dice, rd.dice]
        sa = max(ra.dice) + score_bonus(rules, attack_points)
        sd = max(rd.dice) + score_bonus(rules, defence_points)
        if sa != sd:
            winner = "attacker" if sa > sd else "defender"
            return BattleResult(winner, abs(sa - sd) >= g.major_margin, (sa, sd), tuple(rolls))
    raise InputError(f"battle {label}: still equal after {g.max_rerolls} rolls: raise battles.generator.max_rerolls")


@dataclass
class _Pools:
    attack: dict[str, int]
    defence: dict[str, int]
    attacks_left: dict[str, int]


def _choose(scenario, state, rules, roller, chooser: PlayerChoices | None, who: str, options, why, label):
    if who == scenario.player and chooser is not None:
        chosen = chooser.province(state, options, why)
        if chosen is not None:
            if chosen not in options:
                raise InputError(f"{who} cannot take {chosen!r} ({why}): choose one of {', '.join(options)}")
            return chosen, "the player's choice"
    return target_province(scenario, state, rules, roller, who, options, label=label)


def fight_battles(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller, plan: AttackPlan,
                  spending: dict[str, Spending], chooser: PlayerChoices | None = None
                  ) -> tuple[TurnState, list[Battle], list[Event]]:
    """Phase 5: every attack of ``plan`` in order; returns the new state, the battles fought, the events."""
    pools = _Pools(attack={p: s.attack for p, s in spending.items()},
                   defence={p: s.defence for p, s in spending.items()},
                   attacks_left={})
    for a in plan.attacks:
        pools.attacks_left[a.target] = pools.attacks_left.get(a.target, 0) + 1
    attackers = plan.attackers()
    events: list[Event] = []
    battles: list[Battle] = []
    won, lost = set(state.won), set(state.lost)
    for index, attack in enumerate(plan.attacks, start=1):
        if state.defeated:
            break
        state, battle, more = _fight(scenario, state, rules, roller, plan, attack, index, pools, attackers, chooser, won, lost)
        events += more
        if battle is not None:
            battles.append(battle)
    return replace(state, won=frozenset(won), lost=frozenset(lost)), battles, events


def _fight(scenario, state, rules, roller, plan, attack: Attack, index, pools: _Pools, attackers, chooser, won, lost):
    t = state.turn
    events: list[Event] = []
    target = attack.target
    pools.attacks_left[target] -= 1
    label = ("battle", t, index)
    # Who can still fight?
    army = state.externals.get(attack.attacker) if attack.external else None
    if attack.external:
        options = () if army is None else tuple(
            p for p in provinces_of(scenario, state, target) if p in scenario.neighbours(army.province))
        if army is not None and army.paymaster == target:
            options = ()
    elif is_active(scenario, state, attack.attacker):
        options = border_provinces(scenario, state, provinces_of(scenario, state, attack.attacker), target)
    else:
        options = ()
    if not is_active(scenario, state, target) or not options:
        if not attack.external:
            moved = pools.attack.get(attack.attacker, 0)
            pools.attack[attack.attacker] = 0
            pools.defence[attack.attacker] = pools.defence.get(attack.attacker, 0) + moved
        events.append(Event(t, PHASE, "attack_cancelled", {"attacker": attack.attacker, "target": target},
                            f"{attack.attacker}' attack on {target} is cancelled: no province of theirs can be reached"
                            + ("" if attack.external else "; its Attack money goes to Defense")))
        return state, None, events
    # The province.
    if attack.external:
        province, roll = pick(roller, options, *label, "province")
        why = "at random"
    else:
        province, why = _choose(scenario, state, rules, roller, chooser, attack.attacker, options,
                                f"the province {attack.attacker} attack", label)
    home = scenario.provinces[province].home_of
    defending_army = home if home and home != target and suzerain(scenario, state, home) == target else target
    # Points.
    b = rules.battles
    if attack.external:
        attack_points = army.points
    else:
        attack_points = b.base_army + pools.attack.get(attack.attacker, 0)
    left = pools.attacks_left[target]
    share = pools.defence.get(target, 0) // (left + 1)
    pools.defence[target] = pools.defence.get(target, 0) - share
    defence_points = b.base_army + share
    if target not in attackers:
        defence_points += b.not_attacking_bonus
    defence_points -= b.per_extra_attack * max(0, plan.attacks_on(target) - 1)
    player = scenario.player
    tabletop = attack.attacker == player or target == player
    battle = Battle(index, attack.attacker, target, province, defending_army, attack_points, defence_points,
                    command_cards(scenario, state, rules, attack.attacker),
                    command_cards(scenario, state, rules, defending_army),
                    max_generals(rules, attack.attacker, attack_points),
                    max_generals(rules, defending_army, defence_points),
                    tabletop, attack.external)
    events.append(Event(t, PHASE, "battle", {"index": index, "attacker": battle.attacker, "target": target,
                                            "province": province, "army": defending_army,
                                            "attack_points": attack_points, "defence_points": defence_points,
                                            "attacker_cards": battle.attacker_cards, "defender_cards": battle.defender_cards,
                                            "attacker_generals": battle.attacker_generals,
                                            "defender_generals": battle.defender_generals, "tabletop": tabletop},
                        f"Battle {index}: {battle.text()} (province chosen: {why})"))
    # The result.
    result = chooser.result(battle) if (tabletop and chooser is not None) else None
    if result is None:
        if tabletop and not rules.options.generate_player_battles:
            raise InputError(f"battle {index} ({battle.attacker} against {battle.army} in {province}) is played on the "
                             "table: enter its result, or set the rules option generate_player_battles = true")
        result = generate(rules, roller, attack_points, defence_points, *label)
        how = f"generated: {result.scores[0]} to {result.scores[1]}"
    else:
        how = "entered"
    events.append(Event(t, PHASE, "battle_result", {"index": index, "winner": result.winner, "major": result.major,
                                                   "scores": list(result.scores) if result.scores else None,
                                                   "rolls": [list(r) for r in result.rolls]},
                        f"Battle {index}: {result.text()} ({how})"))
    winner, loser = (attack.attacker, target) if result.winner == "attacker" else (target, attack.attacker)
    for p, s in ((winner, won), (loser, lost)):
        if p in scenario.nations:
            s.add(p)
    # Consequences.
    if attack.external:
        externals = dict(state.externals)
        if result.winner == "attacker":
            externals[attack.attacker] = replace(army, province=province)
            events.append(Event(t, PHASE, "external_moves", {"power": attack.attacker, "province": province},
                                f"The {attack.attacker} army moves into {province}"))
        else:
            del externals[attack.attacker]
            events.append(Event(t, PHASE, "external_removed", {"power": attack.attacker, "why": "defeated"},
                                f"The {attack.attacker} army is defeated and leaves Italy"))
        return replace(state, externals=externals), battle, events
    if result.winner == "attacker":
        state, more = transfer(scenario, state, province, attack.attacker, phase=PHASE, why=result.text())
        events += more
        if result.major and is_active(scenario, state, target):
            extra = border_provinces(scenario, state, provinces_of(scenario, state, attack.attacker), target)
            if extra:
                p, why = _choose(scenario, state, rules, roller, chooser, attack.attacker, extra,
                                 "the second province of a Major Victory", label + ("extra",))
                state, more = transfer(scenario, state, p, attack.attacker, phase=PHASE, why=f"Major Victory; {why}")
                events += more
    elif result.major and is_active(scenario, state, target):
        options = border_provinces(scenario, state, provinces_of(scenario, state, target), attack.attacker)
        if options:
            p, why = _choose(scenario, state, rules, roller, chooser, target, options,
                             "the province a defender's Major Victory takes", label + ("counter",))
            state, more = transfer(scenario, state, p, target, phase=PHASE, why=f"defender's Major Victory; {why}")
            events += more
    return state, battle, events
