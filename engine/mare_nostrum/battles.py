"""Land, amphibious and naval battles.

Land battles are declared in the actions phase and fought afterwards as 500-point battles
in Field of Glory; the umpire enters each result (:func:`resolve_battles`).  A province
already attacked this turn may not be attacked again, and a province assailed by an
earlier player this turn may not be used as a base.  Attacks go to an adjacent province
(the scenario's land adjacency) or through one of the seed's diagonal passages (option
``diagonals``).  A capital may be attacked only once enough of its nation's other home
provinces are lost.  A lost battle against a fortified province (or one under Defensive
Artworks) is followed by a siege: a number in the resistance band (61-90) sends the
attacker back, unless it has a Siege Train.

An amphibious attack first fights the enemy fleets in the quadrant (:func:`landing_opponents`,
option ``landing_opposed_by``); a naval attack needs a province facing the quadrant (option
``naval_needs_base``).  Invaders whose managing nation has left the game are played by the
umpire (:data:`UMPIRE`).

Naval battles are decided at once by lottery numbers: each side's number plus its bonuses
(+25 for two fleets against one, +25 with Naval Technology); a difference of 25 or less is
a draw, a greater one destroys the loser's fleet (all its fleets when two fight two).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from bellica.geo.errors import InputError

from .actions import spend_action
from .lottery import Lottery
from .model import Attack, Event, Fleet, Scenario, TurnState, home_provinces_lost, pirates_name, possessive
from .rules import Rules
from .stability import knock_out

__all__ = [
    "NavalResult",
    "amphibious_attack",
    "attack_fleets",
    "UMPIRE",
    "attack_problems",
    "base_problems",
    "target_problems",
    "battle_terms",
    "capital_open",
    "conquer",
    "land_attack",
    "invaders_player",
    "land_targets",
    "landing_opponents",
    "naval_bases",
    "naval_outcome",
    "reaches",
    "resolve_battles",
    "sea_battle",
]


# --- where an attack may go ----------------------------------------------------------------


def reaches(scenario: Scenario, rules: Rules, base: str, target: str) -> bool:
    """May a land attack go from ``base`` to ``target`` (adjacent, or a diagonal passage)?"""
    if target in scenario.adjacency.get(base, frozenset()):
        return True
    if (base, target) in scenario.passages:
        return True
    return rules.options.diagonals == "both_ways" and (target, base) in scenario.passages


def capital_open(scenario: Scenario, state: TurnState, rules: Rules, target: str) -> bool:
    """A capital held by its own nation may be attacked once ``capital_needs_homes_lost`` of
    that nation's other home provinces are lost (option ``capital_rule_counts``)."""
    prov = scenario.provinces[target]
    if not prov.capital or state.control.get(target) != prov.nation:
        return True
    lost = home_provinces_lost(scenario, state, prov.nation,
                               enemy_only=rules.options.capital_rule_counts == "enemy_held")
    return lost >= rules.battles.capital_needs_homes_lost


def target_problems(scenario: Scenario, state: TurnState, rules: Rules, nation: str, target: str) -> list[str]:
    if target not in scenario.provinces:
        return [f"{target!r} is not a province"]
    out = []
    holder = state.control.get(target)
    if holder == nation:
        out.append(f"{target} is already {possessive(nation)}")
    if target in state.attacked():
        out.append(f"{target} has already been attacked this turn")
    if holder is not None and (holder, nation) in state.peace:
        out.append(f"{holder} imposed a peace treaty on {nation} this turn")
    if not capital_open(scenario, state, rules, target):
        out.append(f"{target} is the capital of the {holder}: {rules.battles.capital_needs_homes_lost} of its other "
                   "home provinces must be lost first")
    return out


def base_problems(scenario: Scenario, state: TurnState, rules: Rules, nation: str, base: str) -> list[str]:
    if base not in scenario.provinces:
        return [f"{base!r} is not a province"]
    out = []
    if state.control.get(base) != nation:
        out.append(f"{base} is not {possessive(nation)}")
    if any(a.target == base and a.attacker != nation for a in state.attacks):
        out.append(f"{base} is under attack this turn and cannot be a base")
    if rules.options.one_attack_per_base and any(a.base == base and a.attacker == nation for a in state.attacks):
        out.append(f"{base} has already been the base of an attack this turn")
    return out


def attack_problems(scenario: Scenario, state: TurnState, rules: Rules, nation: str, base: str, target: str) -> list[str]:
    """Why ``nation`` may not attack ``target`` by land from ``base`` now (empty: it may)."""
    out = base_problems(scenario, state, rules, nation, base) + target_problems(scenario, state, rules, nation, target)
    if base in scenario.provinces and target in scenario.provinces and not reaches(scenario, rules, base, target):
        out.append(f"{target} cannot be reached by land from {base}")
    return out


def land_targets(scenario: Scenario, state: TurnState, rules: Rules, nation: str) -> list[tuple[str, str]]:
    """Every (base, target) of a land attack ``nation`` may declare now."""
    return [(b, t) for b in scenario.provinces if state.control.get(b) == nation
            for t in scenario.provinces if t != b and not attack_problems(scenario, state, rules, nation, b, t)]


def _defender_army(scenario: Scenario, state: TurnState, target: str) -> str:
    holder = state.control.get(target)
    if holder is not None:
        return scenario.nations[holder].army
    prov = scenario.provinces[target]
    if prov.nation is None:
        return scenario.independent_army(state.turn)
    inv = scenario.invader_at(target)
    return inv.army if inv else (scenario.nations[prov.nation].army if prov.nation in scenario.nations else "")


def _declare(state: TurnState, **kw) -> tuple[TurnState, Attack]:
    a = Attack(seq=len(state.attacks) + 1, **kw)
    return replace(state, attacks=state.attacks + (a,)), a


def land_attack(scenario: Scenario, state: TurnState, rules: Rules, nation: str, base: str,
                target: str) -> tuple[TurnState, list[Event]]:
    """``nation`` declares a land attack on ``target`` from ``base`` (one action)."""
    problems = attack_problems(scenario, state, rules, nation, base, target)
    if problems:
        raise InputError(f"{nation} attack {base} -> {target}: {problems[0]}; choose another target")
    state = spend_action(state, nation, f"attack {target}")
    state, a = _declare(state, kind="land", attacker=nation, target=target, defender=state.control.get(target),
                        base=base)
    return state, [Event(state.turn, "actions", "attack", _attack_data(a),
                         f"{nation} attacks {target} ({a.defender or 'independent'}) from {base}")]


def _attack_data(a: Attack) -> dict:
    return {"seq": a.seq, "kind": a.kind, "attacker": a.attacker, "target": a.target, "defender": a.defender,
            "base": a.base, "sea": a.sea, "army": a.army, "managed_by": a.managed_by}


# --- naval battles -------------------------------------------------------------------------


@dataclass(frozen=True)
class NavalResult:
    """Scores (number + bonuses) of the two sides; ``winner`` "a", "b" or None (a draw);
    ``lost``: the fleet ids destroyed."""

    a_number: int
    b_number: int
    a_score: int
    b_score: int
    winner: str | None
    lost: tuple[int, ...]


def naval_outcome(a_fleets: Sequence[int], b_fleets: Sequence[int], a_number: int, b_number: int,
                  rules: Rules, *, a_bonus: int = 0, b_bonus: int = 0) -> NavalResult:
    """The seed's naval battle: ``a_fleets``/``b_fleets`` (ids, at most two a side) and each
    side's lottery number; ``a_bonus``/``b_bonus`` other points (Naval Technology)."""
    na, nb = len(a_fleets), len(b_fleets)
    if not na or not nb:
        raise ValueError("a naval battle needs a fleet on each side")
    a_score = a_number + a_bonus + (rules.naval.pair_bonus if na > nb else 0)
    b_score = b_number + b_bonus + (rules.naval.pair_bonus if nb > na else 0)
    if abs(a_score - b_score) <= rules.naval.draw_margin:
        return NavalResult(a_number, b_number, a_score, b_score, None, ())
    winner = "a" if a_score > b_score else "b"
    losers = sorted(b_fleets if winner == "a" else a_fleets)
    n_win = na if winner == "a" else nb
    if len(losers) >= 2 and (n_win >= 2 or rules.options.pair_beaten_by_one == "all"):
        lost = tuple(losers)
    else:
        lost = tuple(losers[:1])
    return NavalResult(a_number, b_number, a_score, b_score, winner, lost)


def _naval_bonus(state: TurnState, owner: str) -> int:
    return state.nations[owner].naval_bonus if owner in state.nations else 0


def sea_battle(state: TurnState, rules: Rules, lottery: Lottery, sea: str, a_owner: str, a_fleets: Sequence[Fleet],
               b_owner: str, b_fleets: Sequence[Fleet], why: str, phase: str = "actions"
               ) -> tuple[TurnState, NavalResult, list[Event]]:
    """Fight a naval battle between two groups of fleets in ``sea``; the losers' fleets sink."""
    da = lottery.number("naval", state.turn, sea, why, a_owner)
    db = lottery.number("naval", state.turn, sea, why, b_owner)
    res = naval_outcome([f.id for f in a_fleets], [f.id for f in b_fleets], da.value, db.value, rules,
                        a_bonus=_naval_bonus(state, a_owner), b_bonus=_naval_bonus(state, b_owner))
    state = replace(state, fleets=tuple(f for f in state.fleets if f.id not in res.lost))
    win = {"a": a_owner, "b": b_owner, None: None}[res.winner]
    text = (f"naval battle in {sea} ({why}): {a_owner} {res.a_score} ({da.value}) vs {b_owner} {res.b_score} "
            f"({db.value}): " + (f"{win} wins, fleets {list(res.lost)} sunk" if win else "a draw"))
    return state, res, [Event(state.turn, phase, "naval_battle", {
        "sea": sea, "why": why, "a": a_owner, "b": b_owner, "a_fleets": [f.id for f in a_fleets],
        "b_fleets": [f.id for f in b_fleets], "a_number": da.value, "b_number": db.value,
        "a_score": res.a_score, "b_score": res.b_score, "winner": win, "lost": list(res.lost)}, text)]


def naval_bases(scenario: Scenario, state: TurnState, nation: str, sea: str) -> list[str]:
    """The provinces ``nation`` could fight a naval battle in ``sea`` from: held by it, facing
    ``sea``, not under another side's attack this turn (the seed: every military action takes
    place in a province, and one under attack cannot be used for any)."""
    assailed = {a.target for a in state.attacks if a.attacker != nation}
    return [p for p, prov in scenario.provinces.items()
            if state.control.get(p) == nation and sea in prov.seas and p not in assailed]


def attack_fleets(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery, nation: str, sea: str,
                  enemy: str) -> tuple[TurnState, list[Event]]:
    """``nation`` attacks ``enemy``'s fleets (or the pirates) in ``sea`` with all its fleets there (one action)."""
    if sea not in scenario.seas:
        raise InputError(f"{nation} naval attack: {sea!r} is not a sea quadrant; use one of {', '.join(scenario.seas)}")
    mine = [f for f in state.fleets if f.owner == nation and f.sea == sea]
    theirs = [f for f in state.fleets if f.owner == enemy and f.sea == sea and f.id not in state.fleets_attacked]
    if not mine:
        raise InputError(f"{nation} naval attack in {sea}: it has no fleet there; raise one first")
    if enemy == nation or not theirs:
        raise InputError(f"{nation} naval attack in {sea}: {enemy} has no fleet there that is not already attacked this turn")
    if (enemy, nation) in state.peace:
        raise InputError(f"{nation} naval attack in {sea}: {enemy} imposed a peace treaty on it this turn")
    if rules.options.naval_needs_base and not naval_bases(scenario, state, nation, sea):
        raise InputError(f"{nation} naval attack in {sea}: it holds no province facing {sea} that is not under "
                         "attack this turn, and every military action needs one")
    state = spend_action(state, nation, f"attack {possessive(enemy)} fleets in {sea}")
    state = replace(state, fleets_attacked=state.fleets_attacked | {f.id for f in theirs})
    state, _res, events = sea_battle(state, rules, lottery, sea, nation, mine, enemy, theirs, "attack")
    return state, events


def landing_opponents(scenario: Scenario, state: TurnState, rules: Rules, nation: str, sea: str,
                      target: str) -> list[tuple[str, list[Fleet]]]:
    """The fleets in ``sea`` that fight a landing of ``nation`` on ``target`` first, grouped by
    owner in the order they fight: the target's holder, the pirates, then (option
    ``landing_opposed_by`` "any_enemy") every other nation in the order of play, save one that
    imposed peace on ``nation`` this turn.  "defender" keeps the holder's only."""
    defender = state.control.get(target)
    rule = rules.options.landing_opposed_by
    owners: list[str] = [defender] if defender is not None else []
    pirates = pirates_name(rules)
    if rule in ("defender_and_pirates", "any_enemy"):
        owners.append(pirates)
    if rule == "any_enemy":
        rank = {n: i for i, n in enumerate(state.order)}
        others = {f.owner for f in state.fleets if f.sea == sea and f.owner not in (nation, defender, pirates)
                  and (f.owner, nation) not in state.peace}
        owners += sorted(others, key=lambda n: (rank.get(n, len(rank)), n))
    out = []
    for owner in owners:
        fleets = [f for f in state.fleets if f.owner == owner and f.sea == sea]
        if fleets and owner != nation:
            out.append((owner, fleets))
    return out


def amphibious_attack(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery, nation: str, base: str,
                      sea: str, target: str) -> tuple[TurnState, list[Event]]:
    """``nation`` attacks ``target`` by sea from ``base``, both facing ``sea`` (one action).  The
    enemy fleets there (:func:`landing_opponents`) fight first, one owner's at a time, whether or
    not already attacked this turn; the landing goes on only if none of them is left."""
    problems = base_problems(scenario, state, rules, nation, base) + target_problems(scenario, state, rules, nation, target)
    if sea not in scenario.seas:
        problems.append(f"{sea!r} is not a sea quadrant")
    else:
        for p in (base, target):
            if p in scenario.provinces and sea not in scenario.provinces[p].seas:
                problems.append(f"{p} does not face {sea}")
    mine = [f for f in state.fleets if f.owner == nation and f.sea == sea]
    opponents = landing_opponents(scenario, state, rules, nation, sea, target) if sea in scenario.seas else []
    if not mine and rules.options.amphibious_needs_fleet:
        problems.append(f"{nation} has no fleet in {sea}")
    elif not mine and opponents:
        problems.append(f"{possessive(opponents[0][0])} fleet holds {sea} and {nation} has no fleet there to fight it")
    if problems:
        raise InputError(f"{nation} amphibious attack {base} -> {target} by {sea}: {problems[0]}; choose another")
    state = spend_action(state, nation, f"amphibious attack on {target}")
    defender = state.control.get(target)
    events: list[Event] = []
    for owner, theirs in opponents:
        mine = [f for f in state.fleets if f.owner == nation and f.sea == sea]
        if not mine:
            return state, events + [Event(state.turn, "actions", "landing_aborted",
                                          {"attacker": nation, "target": target, "sea": sea, "holder": owner},
                                          f"{possessive(nation)} landing on {target} is aborted: its fleets are lost "
                                          f"and {possessive(owner)} fleet still holds {sea}")]
        state = replace(state, fleets_attacked=state.fleets_attacked | {f.id for f in theirs})
        # one labelled number a side per battle: the holder's fleets keep the plain label
        why = f"landing {target}" if owner == defender else f"landing {target} against {owner}"
        state, _res, more = sea_battle(state, rules, lottery, sea, nation, mine, owner, theirs, why)
        events += more
        if any(f.owner == owner and f.sea == sea for f in state.fleets):
            return state, events + [Event(state.turn, "actions", "landing_aborted",
                                          {"attacker": nation, "target": target, "sea": sea, "holder": owner},
                                          f"{possessive(nation)} landing on {target} is aborted: {possessive(owner)} fleet "
                                          f"still holds {sea}")]
    state, a = _declare(state, kind="amphibious", attacker=nation, target=target, defender=defender, base=base, sea=sea)
    return state, events + [Event(state.turn, "actions", "attack", _attack_data(a),
                                  f"{nation} lands in {target} ({defender or 'independent'}) from {base} across {sea}")]


# --- fighting the declared land battles -------------------------------------------------------


def battle_terms(scenario: Scenario, state: TurnState, rules: Rules, attack: Attack) -> dict:
    """How the Field of Glory battle is set up: the points, each side's army and whether it has
    only one Troop Commander (Internal Conspiracy on itself, Military Training on its enemy),
    and who plays each side (invaders whose managing nation has left the game: the umpire)."""
    def single(side: str | None, other: str | None) -> bool:
        me = state.nations.get(side) if side else None
        them = state.nations.get(other) if other else None
        return bool((me and "own_single_commander" in me.effects) or (them and "enemy_single_commander" in them.effects))

    attacker_army = attack.army if attack.kind in ("alliance", "invasion") else scenario.nations[attack.attacker].army
    defender_army = scenario.nations[attack.defender].army if attack.defender else _defender_army(scenario, state, attack.target)
    n = rules.battles.single_commanders
    return {"points": rules.battles.battle_points, "attacker_army": attacker_army, "defender_army": defender_army,
            "attacker_commanders": n if single(attack.attacker, attack.defender) else None,
            "defender_commanders": n if single(attack.defender, attack.attacker) else None,
            "attacker_played_by": invaders_player(state, attack.managed_by) if attack.managed_by else attack.attacker,
            "defender_played_by": attack.defender}


#: Who plays invaders whose managing nation has left the game (docs/rules/mare-nostrum.md).
UMPIRE = "umpire"


def invaders_player(state: TurnState, nation: str) -> str:
    """``nation``, or the umpire once ``nation`` has left the game."""
    ns = state.nations.get(nation)
    return nation if ns is not None and ns.playing else UMPIRE


def resolve_battles(scenario: Scenario, state: TurnState, rules: Rules, lottery: Lottery,
                    results: Mapping[str, str]) -> tuple[TurnState, list[Event]]:
    """Apply every declared land battle's result, in the order declared.  ``results``: target
    province -> "attacker" or "defender" (the Field of Glory winner)."""
    missing = [a.target for a in state.attacks if a.target not in results]
    if missing:
        raise InputError(f"battle results missing for {', '.join(missing)}: give \"attacker\" or \"defender\" for each")
    bad = {k: v for k, v in results.items() if v not in ("attacker", "defender")}
    if bad:
        k = next(iter(bad))
        raise InputError(f"battle result for {k} = {bad[k]!r}: give \"attacker\" or \"defender\"")
    events: list[Event] = []
    for a in state.attacks:
        terms = battle_terms(scenario, state, rules, a)
        holder = state.control.get(a.target)
        if a.attacker is not None and not state.nations[a.attacker].playing:
            events.append(Event(state.turn, "battles", "battle_void", {"seq": a.seq, "target": a.target},
                                f"{a.attacker} left the game: the attack on {a.target} does not take place"))
            continue
        if holder is not None and holder == a.attacker:
            events.append(Event(state.turn, "battles", "battle_void", {"seq": a.seq, "target": a.target},
                                f"{a.target} already passed to {holder}: no battle"))
            continue
        data = {**_attack_data(a), "terms": terms, "result": results[a.target], "holder": holder}
        who = a.attacker or f"invaders ({a.army}, played by {terms['attacker_played_by']})"
        if results[a.target] == "defender":
            events.append(Event(state.turn, "battles", "battle", data, f"{a.target}: {who} beaten off"))
            continue
        works = state.works_of(a.target)
        walls = works.fortifications > 0 or (holder is not None and state.nations[holder].artworks == a.target)
        train = a.attacker is not None and "siege_train" in state.nations[a.attacker].effects
        if walls and not train:
            d = lottery.number("siege", state.turn, a.target)
            data["siege_number"] = d.value
            if rules.sieges.resist_min <= d.value <= rules.sieges.resist_max:
                events.append(Event(state.turn, "battles", "battle", {**data, "siege": "resisted"},
                                    f"{a.target}: {who} wins the battle but the walls hold ({d.value})"))
                continue
            data["siege"] = "taken"
        elif walls:
            data["siege"] = "siege train"
        state, more = conquer(scenario, state, rules, a.target, a.attacker)
        events.append(Event(state.turn, "battles", "battle", data, f"{a.target}: taken by {who}"))
        events += more
    return state, events


def conquer(scenario: Scenario, state: TurnState, rules: Rules, province: str, taker: str | None
            ) -> tuple[TurnState, list[Event]]:
    """``province`` passes to ``taker`` (None: it becomes independent): its fortifications fall,
    its temple too (option ``temple_loss`` "conquest"), its suburbs stay; a capital taken from its
    nation knocks that nation out."""
    holder = state.control.get(province)
    control = dict(state.control)
    control[province] = taker
    state = replace(state, control=control)
    w = state.works_of(province)
    state = state.with_works(province, fortifications=0,
                             temples=0 if rules.options.temple_loss == "conquest" else w.temples)
    events = [Event(state.turn, "battles", "conquest", {"province": province, "from": holder, "to": taker,
                                                        "fortifications_lost": w.fortifications,
                                                        "temples_lost": w.temples if rules.options.temple_loss == "conquest" else 0},
                    f"{province}: {holder or 'independent'} -> {taker or 'independent'}")]
    if holder is not None:
        if taker is not None:
            last = dict(state.last_taker)
            last[holder] = taker
            state = replace(state, last_taker=last)
        prov = scenario.provinces[province]
        if prov.capital and prov.nation == holder and state.nations[holder].playing:
            state, more = knock_out(scenario, state, rules, holder, taker)
            events += more
    return state, events

