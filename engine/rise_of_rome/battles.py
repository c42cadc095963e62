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

from dataclasses import dataclass, field, replace
from typing import Mapping, Protocol

from bellica.engine.rise_of_rome.attacks import Attack, AttackPlan, best_provinces, border_provinces, target_province
from bellica.engine.rise_of_rome.control import transfer
from bellica.engine.rise_of_rome.dice import DiceRoller, pick
from bellica.engine.rise_of_rome.model import (Event, Scenario, TurnState, is_active, provinces_of, subjects_of,
                                              suzerain)
from bellica.engine.rise_of_rome.rules import Rules
from bellica.engine.rise_of_rome.spending import Spending
from bellica.geo.errors import InputError

__all__ = [
    "PHASE",
    "Battle",
    "BattleResult",
    "PlayerChoices",
    "allied_corps",
    "ProvinceQuestion",
    "command_cards",
    "defending_army",
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
    terrain: tuple[str, ...] = ()  # the province's terrain types on the map, most hexes first
    attacker_allies: tuple[str, ...] = ()  # Subjects the attacker may take an allied corps from
    defender_allies: tuple[str, ...] = ()
    allied_corps_divisor: int = 0  # an allied corps is at most points // this (rules.battles; 0: none listed)

    def text(self) -> str:
        return (f"{self.attacker} ({self.attack_points} pts, {self.attacker_cards} cards, up to {self.attacker_generals} "
                f"Generals) attack {self.province}, defended by {self.army} ({self.defence_points} pts, "
                f"{self.defender_cards} cards, up to {self.defender_generals} Generals)"
                + (" -- played on the table" if self.tabletop else "") + self.table_text())

    def table_text(self) -> str:
        """What the table needs beyond the armies: the ground and the allied corps allowed.  None for a
        campaign made before these table aids (its frozen rules have no allied_corps_divisor: 0), so
        its battle lines, and its re-adjudication, stay as that bellica wrote them."""
        if not self.allied_corps_divisor:
            return ""
        out = f"; terrain on the map: {', '.join(self.terrain)}" if self.terrain else ""
        for power, points, allies in ((self.attacker, self.attack_points, self.attacker_allies),
                                      (self.army, self.defence_points, self.defender_allies)):
            if allies:
                out += (f"; {power} may field an allied corps of {' or '.join(allies)} "
                        f"(at most {points // self.allied_corps_divisor} pts)")
        return out


class PlayerChoices(Protocol):
    """What the player decides during the battles phase (any method may return None: the rule decides).

    A chooser may also have ``province_question(state, question: ProvinceQuestion) -> str | None``,
    which is then asked instead of ``province`` (it says which battle and which province it is)."""

    def province(self, state: TurnState, options: tuple[str, ...], why: str) -> str | None: ...

    def result(self, battle: Battle) -> BattleResult | None: ...

    # Optional: ``on_table(index) -> bool``, a battle the player takes to the table (its result is then
    # asked for through ``result`` like Rome's own).


#: The three moments the player takes a province: his attack's province, the second province of
#: his Major Victory, the province his defender's Major Victory takes from the attacker.
PROVINCE_KINDS = ("target", "extra", "counter")


@dataclass(frozen=True)
class ProvinceQuestion:
    """A province the player (Rome) takes control of and may choose (the seed lets him)."""

    turn: int
    battle: int
    kind: str  # one of PROVINCE_KINDS
    power: str  # the enemy the province is taken from
    options: tuple[str, ...]
    why: str

    def text(self) -> str:
        return f"battle {self.battle}, {self.why}: choose one of {', '.join(self.options)}"


def defending_army(scenario: Scenario, state: TurnState, province: str, target: str) -> str:
    """Whose army defends ``province`` of ``target``: the Subject whose home it is, else ``target``'s."""
    home = scenario.provinces[province].home_of
    return home if home and home != target and suzerain(scenario, state, home) == target else target


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


def generate(rules: Rules, roller: DiceRoller, attack_points: int, defence_points: int, *label: object,
             bonuses: tuple[int, int] = (0, 0)) -> BattleResult:
    """The Battle Result Generator: 2D6 keep the higher, + points bonus; equal: again; margin 3+: Major.
    ``bonuses``: added to the (attacker's, defender's) score (option ``player_battle_bonus``; not in the seed)."""
    g = rules.battles.generator
    rolls = []
    for attempt in range(1, g.max_rerolls + 1):
        ra = roller.roll(g.dice, g.die, *label, "attacker", attempt)
        rd = roller.roll(g.dice, g.die, *label, "defender", attempt)
        rolls += [ra.dice, rd.dice]
        sa = max(ra.dice) + score_bonus(rules, attack_points) + bonuses[0]
        sd = max(rd.dice) + score_bonus(rules, defence_points) + bonuses[1]
        if sa != sd:
            winner = "attacker" if sa > sd else "defender"
            return BattleResult(winner, abs(sa - sd) >= g.major_margin, (sa, sd), tuple(rolls))
    raise InputError(f"battle {label}: still equal after {g.max_rerolls} rolls: raise battles.generator.max_rerolls")


@dataclass
class _Pools:
    attack: dict[str, int]
    defence: dict[str, int]
    attacks_left: dict[str, int]
    named: dict[tuple[str, str], int] = field(default_factory=dict)  # (defender, attacker) -> Defense named for it
    armies: dict[int, str] = field(default_factory=dict)  # battle index -> the army that defended


def _choose(scenario, state, rules, roller, chooser: PlayerChoices | None, who: str, options, why, label,
            kind: str = "target", enemy: str = ""):
    if who == scenario.player and chooser is not None:
        ask = getattr(chooser, "province_question", None)
        if ask is not None:
            chosen = ask(state, ProvinceQuestion(state.turn, int(label[2]), kind, enemy, tuple(options), why))
        else:
            chosen = chooser.province(state, options, why)
        if chosen is not None:
            if chosen not in options:
                raise InputError(f"{who} cannot take {chosen!r} ({why}): choose one of {', '.join(options)}")
            return chosen, "the player's choice"
    return target_province(scenario, state, rules, roller, who, options, label=label)


def fight_battles(scenario: Scenario, state: TurnState, rules: Rules, roller: DiceRoller, plan: AttackPlan,
                  spending: dict[str, Spending], chooser: PlayerChoices | None = None,
                  defence_split: Mapping[str, Mapping[str, int]] | None = None
                  ) -> tuple[TurnState, list[Battle], list[Event]]:
    """Phase 5: every attack of ``plan`` in order; returns the new state, the battles fought, the events.

    ``defence_split``: ``{defender: {attacker: points}}``, Defense money a defender (the player) puts
    against named attacks; the rest of its Defense is spread evenly over the attacks not named."""
    pools = _Pools(attack={p: s.attack for p, s in spending.items()},
                   defence={p: s.defence for p, s in spending.items()},
                   attacks_left={})
    for a in plan.attacks:
        pools.attacks_left[a.target] = pools.attacks_left.get(a.target, 0) + 1
    for defender, split in (defence_split or {}).items():
        pools.named.update({(defender, attacker): int(n) for attacker, n in split.items()})
        pools.defence[defender] = pools.defence.get(defender, 0) - sum(int(n) for n in split.values())
        check_defence_split(plan, defender, spending.get(defender, Spending()).defence, split)
    attackers = plan.attackers()
    events: list[Event] = []
    battles: list[Battle] = []
    won, lost = set(state.won), set(state.lost)
    for index, attack in enumerate(plan.attacks, start=1):
        if state.defeated:
            break
        try:
            state, battle, more = _fight(scenario, state, rules, roller, plan, attack, index, pools, attackers, chooser,
                                         won, lost)
        except Exception as stop:  # a question for the player: the battles before it, for its words (issue 22)
            if getattr(stop, "wants_so_far", False):
                stop.so_far = list(events)
            raise
        events += more
        if battle is not None:
            battles.append(battle)
    return replace(state, won=frozenset(won), lost=frozenset(lost)), battles, events


def _fight(scenario, state, rules, roller, plan, attack: Attack, index, pools: _Pools, attackers, chooser, won, lost):
    t = state.turn
    target = attack.target
    pools.attacks_left[target] -= 1
    label = ("battle", t, index)
    army = state.externals.get(attack.attacker) if attack.external else None
    options = _reachable_provinces(scenario, state, attack, army)
    if not is_active(scenario, state, target) or not options:
        return state, None, [_cancel_attack(t, attack, pools)]
    # The province.
    if attack.external:
        province, roll = pick(roller, options, *label, "province")
        why = "at random"
    else:
        province, why = _choose(scenario, state, rules, roller, chooser, attack.attacker, options,
                                f"the province {attack.attacker} attack", label, "target", target)
    army_of = defending_army(scenario, state, province, target)
    pools.armies[index] = army_of
    battle = _set_up_battle(scenario, state, rules, plan, attack, index, pools, attackers, chooser, army, province,
                            army_of)
    events = [_battle_event(t, battle, why)]
    result, how = _battle_result(rules, roller, chooser, battle, scenario.player, label)
    events.append(Event(t, PHASE, "battle_result", {"index": index, "winner": result.winner, "major": result.major,
                                                   "scores": list(result.scores) if result.scores else None,
                                                   "rolls": [list(r) for r in result.rolls]},
                        f"Battle {index}: {result.text()} ({how})"))
    winner, loser = (attack.attacker, target) if result.winner == "attacker" else (target, attack.attacker)
    for p, s in ((winner, won), (loser, lost)):
        if p in scenario.nations:
            s.add(p)
    if attack.external:
        state, more = _external_aftermath(state, attack, army, province, result)
    else:
        state, more = _aftermath(scenario, state, rules, roller, chooser, attack, province, result, label)
    return state, battle, events + more


def _reachable_provinces(scenario, state, attack: Attack, army) -> tuple[str, ...]:
    """The target's provinces the attacker can still reach: an external army's neighbours (none when the
    target pays it, or it is gone), or a nation's border provinces (none once it is out of the game)."""
    target = attack.target
    if attack.external:
        options = () if army is None else tuple(
            p for p in provinces_of(scenario, state, target) if p in scenario.neighbours(army.province))
        if army is not None and army.paymaster == target:
            options = ()
        return options
    if is_active(scenario, state, attack.attacker):
        return border_provinces(scenario, state, provinces_of(scenario, state, attack.attacker), target)
    return ()


def _cancel_attack(t, attack: Attack, pools: _Pools) -> Event:
    """An attack with nobody to fight: the Defense named against it goes back to the defender's pool, and
    a nation's unspent Attack money becomes its Defense."""
    target = attack.target
    if (target, attack.attacker) in pools.named:
        pools.defence[target] = pools.defence.get(target, 0) + pools.named.pop((target, attack.attacker))
    if not attack.external:
        moved = pools.attack.get(attack.attacker, 0)
        pools.attack[attack.attacker] = 0
        pools.defence[attack.attacker] = pools.defence.get(attack.attacker, 0) + moved
    return Event(t, PHASE, "attack_cancelled", {"attacker": attack.attacker, "target": target},
                 f"{attack.attacker}' attack on {target} is cancelled: no province of theirs can be reached"
                 + ("" if attack.external else "; its Attack money goes to Defense"))


def _defence_share(plan, attack: Attack, index, pools: _Pools) -> int:
    """The Defense money the target puts against this attack: what it named for it, else an even share of
    its unnamed Defense over this attack and the unnamed ones still to come."""
    target = attack.target
    if (target, attack.attacker) in pools.named:
        return pools.named.pop((target, attack.attacker))
    left = sum(1 for a in plan.attacks[index:] if a.target == target and (target, a.attacker) not in pools.named)
    share = pools.defence.get(target, 0) // (left + 1)
    pools.defence[target] = pools.defence.get(target, 0) - share
    return share


def _set_up_battle(scenario, state, rules, plan, attack: Attack, index, pools: _Pools, attackers, chooser, army,
                   province, army_of) -> Battle:
    """The battle as the table gets it: both sides' points, cards, Generals, ground and allied corps."""
    target = attack.target
    b = rules.battles
    if attack.external:
        attack_points = army.points
    else:
        attack_points = b.base_army + pools.attack.get(attack.attacker, 0)
    defence_points = b.base_army + _defence_share(plan, attack, index, pools)
    if target not in attackers:
        defence_points += b.not_attacking_bonus
    if rules.options.subject_attacks == "together":
        attacks_on = plan.attacks_on(target)
    else:
        attacks_on = attacks_on_army(scenario, state, rules, plan, index, target, army_of, pools.armies)
    defence_points -= b.per_extra_attack * max(0, attacks_on - 1)
    player = scenario.player
    chosen = getattr(chooser, "on_table", None)  # the seed: other battles "at the choice of the player"
    tabletop = attack.attacker == player or target == player or bool(chosen and chosen(index))
    fought = {**pools.armies, index: army_of}
    return Battle(index, attack.attacker, target, province, army_of, attack_points, defence_points,
                  command_cards(scenario, state, rules, attack.attacker),
                  command_cards(scenario, state, rules, army_of),
                  max_generals(rules, attack.attacker, attack_points),
                  max_generals(rules, army_of, defence_points),
                  tabletop, attack.external, scenario.terrain.get(province, ()),
                  () if attack.external else allied_corps(scenario, state, rules, plan, index, attack.attacker, fought),
                  allied_corps(scenario, state, rules, plan, index, army_of, fought),
                  b.allied_corps_divisor)


def _battle_event(t, battle: Battle, why: str) -> Event:
    return Event(t, PHASE, "battle", {"index": battle.index, "attacker": battle.attacker, "target": battle.target,
                                     "province": battle.province, "army": battle.army,
                                     "attack_points": battle.attack_points, "defence_points": battle.defence_points,
                                     "attacker_cards": battle.attacker_cards, "defender_cards": battle.defender_cards,
                                     "attacker_generals": battle.attacker_generals,
                                     "defender_generals": battle.defender_generals, "tabletop": battle.tabletop},
                 f"Battle {battle.index}: {battle.text()} (province chosen: {why})")


def _battle_result(rules, roller, chooser, battle: Battle, player, label) -> tuple[BattleResult, str]:
    """The result entered for a table battle, else one generated; with the words saying which."""
    tabletop = battle.tabletop
    result = chooser.result(battle) if (tabletop and chooser is not None) else None
    if result is not None:
        return result, "entered"
    if tabletop and not rules.options.generate_player_battles:
        raise InputError(f"battle {battle.index} ({battle.attacker} against {battle.army} in {battle.province}) is "
                         "played on the table: enter its result, or set the rules option generate_player_battles = true")
    edge = rules.options.player_battle_bonus if tabletop else 0
    bonuses = (edge, 0) if battle.attacker == player else (0, edge)
    result = generate(rules, roller, battle.attack_points, battle.defence_points, *label, bonuses=bonuses)
    how = f"generated: {result.scores[0]} to {result.scores[1]}"
    if edge:
        how += f", Rome's side {edge:+d} (option player_battle_bonus, not in the seed)"
    return result, how


def _external_aftermath(state, attack: Attack, army, province, result: BattleResult):
    """An external army that wins moves into the province; one that loses leaves Italy."""
    t = state.turn
    externals = dict(state.externals)
    if result.winner == "attacker":
        externals[attack.attacker] = replace(army, province=province)
        event = Event(t, PHASE, "external_moves", {"power": attack.attacker, "province": province},
                      f"The {attack.attacker} army moves into {province}")
    else:
        del externals[attack.attacker]
        event = Event(t, PHASE, "external_removed", {"power": attack.attacker, "why": "defeated"},
                      f"The {attack.attacker} army is defeated and leaves Italy")
    return replace(state, externals=externals), [event]


def _aftermath(scenario, state, rules, roller, chooser, attack: Attack, province, result: BattleResult, label):
    """A nation's battle: the winning attacker takes the province (and a second on a Major Victory); a
    defender's Major Victory takes one of the attacker's provinces."""
    target = attack.target
    events: list[Event] = []
    if result.winner == "attacker":
        state, more = transfer(scenario, state, province, attack.attacker, phase=PHASE, why=result.text())
        events += more
        if result.major and is_active(scenario, state, target):
            extra = border_provinces(scenario, state, provinces_of(scenario, state, attack.attacker), target)
            if extra:
                p, why = _choose(scenario, state, rules, roller, chooser, attack.attacker, extra,
                                 "the second province of a Major Victory", label + ("extra",), "extra", target)
                state, more = transfer(scenario, state, p, attack.attacker, phase=PHASE, why=f"Major Victory; {why}")
                events += more
    elif result.major and is_active(scenario, state, target):
        options = border_provinces(scenario, state, provinces_of(scenario, state, target), attack.attacker)
        if options:
            p, why = _choose(scenario, state, rules, roller, chooser, target, options,
                             "the province a defender's Major Victory takes", label + ("counter",), "counter",
                             attack.attacker)
            state, more = transfer(scenario, state, p, target, phase=PHASE, why=f"defender's Major Victory; {why}")
            events += more
    return state, events


def check_defence_split(plan: AttackPlan, defender: str, defence: int, split: Mapping[str, int]) -> None:
    """A defender's named Defense must go to attacks on it, add up to no more than its Defense, and to
    all of it when every attack is named (else some of it would defend nothing)."""
    attackers = [a.attacker for a in plan.attacks if a.target == defender]
    for attacker, n in split.items():
        if attacker not in attackers:
            raise InputError(f"--defence-split {attacker}: {attacker} do not attack {defender} this turn: name one of "
                             f"{', '.join(attackers) or 'none (nobody attacks them)'}")
        if int(n) < 0:
            raise InputError(f"--defence-split {attacker}={n}: give 0 or more points")
    named = sum(int(n) for n in split.values())
    if named > defence:
        raise InputError(f"--defence-split names {named} points but {defender}' Defense is {defence}: "
                         "give amounts adding up to no more than it")
    if split and set(attackers) <= set(split) and named != defence:
        raise InputError(f"--defence-split names every attack on {defender} but only {named} of its {defence} Defense: "
                         "make the amounts add up to the Defense, or leave an attack out to take the rest")


def _options_of(scenario: Scenario, state: TurnState, attack: Attack, target: str) -> tuple[str, ...]:
    """The provinces of ``target`` that ``attack`` could take now (none: it would be cancelled)."""
    if not is_active(scenario, state, target):
        return ()
    if attack.external:
        army = state.externals.get(attack.attacker)
        if army is None or army.paymaster == target:
            return ()
        return tuple(p for p in provinces_of(scenario, state, target) if p in scenario.neighbours(army.province))
    if not is_active(scenario, state, attack.attacker):
        return ()
    return border_provinces(scenario, state, provinces_of(scenario, state, attack.attacker), target)


def forecast_army(scenario: Scenario, state: TurnState, rules: Rules, attack: Attack, target: str) -> str | None:
    """Whose army an attack still to be fought would meet, on the map as it stands: the army of the
    province the seed's rule would pick (without its die; an external army's province is random, so
    only when all its options are one army's); ``target``'s own when a die would decide between
    armies; None when the attack could reach nothing."""
    options = _options_of(scenario, state, attack, target)
    if not options:
        return None
    armies = {defending_army(scenario, state, p, target) for p in options}
    if len(armies) > 1 and not attack.external:
        tied, _why = best_provinces(scenario, state, rules, attack.attacker, options)
        armies = {defending_army(scenario, state, p, target) for p in tied}
    return armies.pop() if len(armies) == 1 else target


def allied_corps(scenario: Scenario, state: TurnState, rules: Rules, plan: AttackPlan, index: int, power: str,
                 fought: Mapping[int, str]) -> tuple[str, ...]:
    """The Subjects ``power`` controls that may give its army an allied corps in battle ``index``:
    those "not itself under attack this turn" (the seed), i.e. whose army no battle of the turn
    meets: ``fought`` (battle -> army, this one included), and those to come as
    :func:`forecast_army` sees them now."""
    subjects = subjects_of(scenario, state, power)
    if not subjects:
        return ()
    attacked = set(fought.values())
    for j, a in enumerate(plan.attacks, start=1):
        if j > index:
            attacked.add(forecast_army(scenario, state, rules, a, a.target))
    return tuple(s for s in subjects if s not in attacked)


def attacks_on_army(scenario: Scenario, state: TurnState, rules: Rules, plan: AttackPlan, index: int, target: str,
                    army: str, fought: Mapping[int, str]) -> int:
    """Option ``subject_attacks = "separate"``: how many of the turn's attacks on ``target`` are against
    ``army`` (``target``'s own or one of its Subjects'): those fought (``fought``: battle -> army), this
    one (battle ``index``), and those to come as :func:`forecast_army` sees them now."""
    n = 0
    for j, a in enumerate(plan.attacks, start=1):
        if a.target != target:
            continue
        if j < index:
            met = fought.get(j)
        elif j == index:
            met = army
        else:
            met = forecast_army(scenario, state, rules, a, target)
        n += met == army
    return n
