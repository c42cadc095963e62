"""Rise of Rome's steps: each runs its pure rules in one transaction through the core's step
runner (:meth:`~bellica.engine.core.stepped.SteppedRuleset.take_step`, the hooks on
:class:`~bellica.engine.rise_of_rome.ruleset.RiseOfRome`).  A step's rule takes the
:class:`~bellica.engine.core.stepped.StepInput` (the pure state, the round, the campaign's
:class:`~bellica.engine.rise_of_rome.dice.Roller`) and gives a
:class:`~bellica.engine.core.stepped.StepOutcome`: its ``step`` event, the new state, the rules'
events, the rows and notes it writes and where the turn goes next (a :class:`Move`).

The engine's steps (:func:`run_engine_step`: revenue, rulers, attacks, battles, end) and Rome's
decisions (:func:`give_attack`, :func:`give_spending`, :func:`enter_result`,
:func:`choose_province`); :func:`play_until_decision` runs the engine until Rome must decide.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Mapping, NamedTuple, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.machine import StepRefused
from bellica.engine.core.stepped import StepInput, StepOutcome
from bellica.engine.core.stepped import set_campaign as _position
from bellica.engine.core.stepped import step_event as _marker
from bellica.engine.core.tables import Snapshot
from bellica.engine.rise_of_rome.attacks import candidate_targets, declare_player_attack, roll_attacks
from bellica.engine.rise_of_rome.battles import Battle, BattleResult, ProvinceQuestion, check_defence_split, fight_battles
from bellica.engine.rise_of_rome.civic import VERDICTS, civic_end_of_turn, verdict
from bellica.engine.rise_of_rome.externals import end_of_turn, external_attacks
from bellica.engine.rise_of_rome.model import Scenario, TurnState
from bellica.engine.rise_of_rome.revenue import collect_revenue
from bellica.engine.rise_of_rome.rulers import change_rulers
from bellica.engine.rise_of_rome.spending import Spending, divert, spend
from bellica.engine.rise_of_rome.status import ENGINE_STEPS, OVER, next_decision, rome_free_revenue
from bellica.engine.rise_of_rome.storage import plan_json, plan_of, state_of
from bellica.engine.rise_of_rome.turn import begin_turn
from bellica.geo.errors import InputError, BellicaError

__all__ = ["Move", "TABLE_BATTLES", "choose_province", "enter_result", "give_attack", "give_spending", "move_events",
           "play_until_decision", "run_engine_step", "take_to_table"]


class Move(NamedTuple):
    """Where a step leaves the turn: its phase, its stage and, for a new turn, its round."""

    phase: str
    stage: str | None = None
    round_to: int | None = None


def move_events(rnd: int, phase: str, snap: Snapshot, to: Move) -> list[Event]:
    """set_campaign events moving the core position from ``snap``'s to ``to``."""
    out = []
    if to.round_to is not None and str(to.round_to) != snap.campaign("round"):
        out.append(_position(rnd, phase, "round", to.round_to))
    out.append(_position(rnd, phase, "phase", to.phase))
    if to.stage != snap.campaign("stage"):
        out.append(_position(rnd, phase, "stage", to.stage))
    return out


def _take(c, name: str, rule: Callable[..., StepOutcome], *args) -> list[Event]:
    """Step ``name``, run by the core: ``rule(c, StepInput, *args)``."""
    return c.ruleset.take_step(c, name, lambda i: rule(c, i, *args))


def _plan_note(rnd: int, phase: str, plan, words: str) -> Event:
    return Event(rnd, phase, "put_note", {"round": rnd, "key": "plan", "value": plan_json(plan)},
                 words + (", ".join(f"{a.attacker} on {a.target}" for a in plan.attacks) or "none"))


def _treasury(c, snap: Snapshot, scenario: Scenario, state: TurnState, rnd: int, phase: str,
              spent: Spending | None = None) -> list[Event]:
    player = scenario.player
    old = snap.tables["ror_treasury"].get((rnd,))
    names = c.ruleset.schema.tables["ror_treasury"].column_names
    row = dict(zip(names, old)) if old else {"turn": rnd, "revenue": state.revenue.get(player, 0),
                                               "civic_only": state.civic_only.get(player, 0),
                                               "attack": 0, "defence": 0, "civic": 0}
    if spent is not None:
        row.update(attack=spent.attack, defence=spent.defence, civic=spent.civic)
    row.update(civic_spent=state.civic_spent, civic_penalty=state.civic_penalty, civic_total=state.civic_total)
    return [Event(rnd, phase, "put_row", {"table": "ror_treasury", "row": row},
                  f"Rome's treasury, turn {rnd}: revenue {row['revenue']}, Attack {row['attack']}, Defense {row['defence']}, "
                  f"Civic {row['civic']}; Civic Development {row['civic_total']}")]


# --- the engine's steps ------------------------------------------------------------------------


def _revenue(c, i: StepInput) -> StepOutcome:
    rules = i.rules
    state = begin_turn(i.state)
    rnd = state.turn  # the turn it opens (the ruleset's step_time logs the step in it)
    y0, y1 = rules.game.years(state.turn)
    marker = _marker(rnd, "revenue", "revenue", None, f"Turn {rnd} of {rules.game.turns}: {-y0} to {-y1} BC")
    state, told = collect_revenue(i.board, state, rules)
    return StepOutcome(marker, state, told, where=Move("rulers", round_to=rnd))


def _rulers(c, i: StepInput) -> StepOutcome:
    rnd = i.round
    state, told = change_rulers(i.board, i.state, i.rules, i.dice)
    return StepOutcome(_marker(rnd, "rulers", "rulers", None, f"Turn {rnd}, phase 2: change of rulers"), state, told,
                       where=Move("attacks", "engine"))


def _attacks(c, i: StepInput) -> StepOutcome:
    rnd = i.round
    state, plan, told = external_attacks(i.board, i.state, i.rules, i.dice)
    plan, more = roll_attacks(i.board, state, i.rules, i.dice, plan)
    return StepOutcome(_marker(rnd, "attacks", "attacks", None, f"Turn {rnd}, phase 3: attacks"), state, [*told, *more],
                       after=[_plan_note(rnd, "attacks", plan, "the attacks so far: ")], where=Move("attacks", "rome"))


class _NeedResult(Exception):
    wants_so_far = True  # fight_battles puts the events of the battles before it in ``so_far``

    def __init__(self, battle: Battle):
        self.battle = battle
        self.so_far: list[Event] = []


class _NeedProvince(Exception):
    wants_so_far = True

    def __init__(self, question: ProvinceQuestion):
        self.question = question
        self.so_far: list[Event] = []


def _so_far(rnd: int, need) -> list[Event]:
    """How the turn's battles before the one awaited ended (they are fought again, the same, when
    the turn's battles go on: nothing is applied yet), so the player knows before answering."""
    events = list(getattr(need, "so_far", ()))
    who = {e.data["index"]: f"{e.data['attacker']} on {e.data['army']} in {e.data['province']}"
           for e in events if e.kind == "battle"}
    ended = [e.text.replace(f"Battle {e.data['index']}:", f"Battle {e.data['index']} ({who[e.data['index']]}):", 1)
             if e.kind == "battle_result" and e.data.get("index") in who else e.text
             for e in events if e.kind in ("battle_result", "attack_cancelled")]
    if not ended:
        return []
    return [Event(rnd, "battles", "battles_so_far", {"results": ended},
                  "so far this turn: " + "; ".join(ended) + " (applied when the turn's battles are over)")]


@dataclass
class _Chooser:
    entered: Mapping[int, BattleResult]
    generate: bool
    chosen: Mapping[tuple[int, str], str | None] = None
    table: frozenset[int] = frozenset()  # other battles the player takes to the table (`table`)

    def on_table(self, index: int) -> bool:
        return index in self.table

    def province(self, state, options, why):
        return None  # the rule decides (the most revenue, a resource, a die)

    def province_question(self, state, q: ProvinceQuestion):
        """The seed lets Rome choose the provinces it takes: a stored choice, or the campaign stops for one."""
        if len(q.options) < 2:
            return None
        if (q.battle, q.kind) in (self.chosen or {}):
            return self.chosen[(q.battle, q.kind)]  # None: the seed's rule, as Rome asked
        raise _NeedProvince(q)

    def result(self, battle: Battle):
        if battle.index in self.entered:
            return self.entered[battle.index]
        if self.generate and battle.index not in self.table:  # one the player asked for is never generated
            return None
        raise _NeedResult(battle)




def _battles(c, i: StepInput) -> StepOutcome:
    snap, rnd, rules = i.snap, i.round, i.rules
    plan = plan_of(snap.note(rnd, "plan"))
    spending = {p: Spending(**s) for p, s in (snap.note(rnd, "spending") or {}).items()}
    entered = {b: BattleResult(w, bool(m)) for (t, b), (_t, _b, w, m) in snap.tables["ror_battle_results"].items() if t == rnd}
    chosen = {(b, k): p for (t, b, k), (_t, _b, _k, p) in snap.tables["ror_province_choices"].items() if t == rnd}
    split = snap.note(rnd, "defence_split") or None
    table = frozenset(int(b) for b in snap.note(rnd, TABLE_BATTLES) or ())
    marker = _marker(rnd, "battles", "battles", None, f"Turn {rnd}, phase 5: battles")
    try:
        new, _battles_fought, told = fight_battles(i.board, i.state, rules, i.dice, plan, spending,
                                                   _Chooser(entered, rules.options.generate_player_battles, chosen, table),
                                                   split)
    except _NeedProvince as need:
        q = need.question
        return StepOutcome(marker, told=[*_so_far(rnd, need),
            Event(rnd, "battles", "province_awaited", {"battle": q.battle, "kind": q.kind, "options": list(q.options)},
                  f"Battle {q.battle}: Rome takes a province of {q.power} ({q.why}); choose one of {', '.join(q.options)}"),
            Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_province", "value": asdict(q)},
                  f"battle {q.battle} awaits Rome's choice of province")], where=Move("battles", "province"))
    except _NeedResult as need:
        b = need.battle
        return StepOutcome(marker, told=[*_so_far(rnd, need),
            Event(rnd, "battles", "battle_awaited", {"index": b.index}, f"Battle {b.index}: {b.text()}; enter its result"),
            Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_battle", "value": asdict(b)},
                  f"battle {b.index} awaits its result")], where=Move("battles", "result"))
    after = []
    if snap.note(rnd, "pending_battle") is not None:
        after.append(Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_battle", "value": None},
                           "no battle awaits its result"))
    if snap.note(rnd, "pending_province") is not None:
        after.append(Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_province", "value": None},
                           "no province awaits Rome's choice"))
    return StepOutcome(marker, new, told, after=after, where=Move("end"))


def _end(c, i: StepInput) -> StepOutcome:
    scenario, rules, state, rnd = i.board, i.rules, i.state, i.round
    told: list[Event] = []
    if not state.defeated:
        state, ev = end_of_turn(scenario, state, rules, i.dice)
        told += ev
    state, ev = civic_end_of_turn(scenario, state, rules)
    told += ev
    after = _treasury(c, i.snap, scenario, state, rnd, "end")
    where = Move("revenue")
    if state.defeated or state.turn >= rules.game.turns:
        v = verdict(state.civic_total, rules, defeated=state.defeated)
        after += [Event(rnd, "civic", "verdict", {"total": state.civic_total, "verdict": v},
                        f"Final Civic Development {state.civic_total}: {VERDICTS[v]}"),
                  Event(rnd, "end", "put_row", {"table": "ror_game", "row": {"key": "verdict", "value": v}}, f"verdict: {v}")]
        where = Move(OVER)
    return StepOutcome(_marker(rnd, "end", "end", None, f"Turn {rnd}, phase 6: end of the turn"), state, told,
                       after=after, where=where)


_ENGINE_RULES = {"revenue": _revenue, "rulers": _rulers, "attacks": _attacks, "battles": _battles, "end": _end}


def run_engine_step(c, name: str) -> list[Event]:
    """Run the engine's step ``name`` (one transaction); its events."""
    def rule(c, i: StepInput) -> StepOutcome:
        if name not in _ENGINE_RULES:
            raise BellicaError(f"no engine step {name!r}")
        return _ENGINE_RULES[name](c, i)

    return _take(c, name, rule)


# --- Rome's decisions ---------------------------------------------------------------------------


def give_attack(c, target: str | None) -> list[Event]:
    """Rome's attack this turn: a power's name (any case), or None for no attack."""
    return _take(c, "attack", _attack, target)


def _attack(c, i: StepInput, target: str | None) -> StepOutcome:
    scenario, rnd = i.board, i.round
    if target is not None:
        target = _power_named(scenario, target, candidate_targets(scenario, i.state, scenario.player), "--target")
    plan, told = declare_player_attack(scenario, i.state, i.rules, plan_of(i.snap.note(rnd, "plan")), target)
    return StepOutcome(_marker(rnd, "attacks", "attack", target, f"Turn {rnd}: Rome's decision, attack {target or 'nobody'}"),
                       told=told, extra=[_plan_note(rnd, "attacks", plan, "the turn's attacks: ")], where=Move("spending"))


def _power_named(scenario: Scenario, name: str, allowed: Sequence[str], where: str,
                 options: Sequence[str] | None = None) -> str:
    """The power ``name`` means by the one matcher (:func:`engine.core.names.named`: any case, a
    unique beginning, "did you mean"); a refusal lists ``allowed``."""
    from bellica.engine.core.names import named

    options = list(scenario.nations if options is None else options)
    return named(name, options, where, "no power of this campaign", allowed=allowed, plural="powers")


def give_spending(c, given: Spending, defence_split: Mapping[str, int] | None = None) -> list[Event]:
    """Rome's split of its revenue (it must add up to the revenue it may spend freely).
    ``defence_split``: {attacking power: Defense points} for some or all of the attacks on Rome
    (the rest of the Defense is spread evenly over the attacks not named)."""
    return _take(c, "spend", _spend, given, defence_split)


def _spend(c, i: StepInput, given: Spending, defence_split: Mapping[str, int] | None) -> StepOutcome:
    scenario, rules, state, rnd = i.board, i.rules, i.state, i.round
    plan = plan_of(i.snap.note(rnd, "plan"))
    player = scenario.player
    split: dict[str, int] = {}
    if defence_split:
        on_rome = [a.attacker for a in plan.attacks if a.target == player]
        for name_, n in defence_split.items():
            who = _power_named(scenario, str(name_), on_rome or ["none (nobody attacks Rome this turn)"],
                               "--defence-split", options=list(scenario.powers))
            if who in split:
                raise InputError(f"--defence-split names {who} twice: give each power once")
            split[who] = int(n)
        # Canonical order (by power's name), as the stored JSON reads back: a re-adjudication
        # rebuilds the same words whatever order the player typed (issue 22, item 3).
        split = dict(sorted(split.items()))
        free = rome_free_revenue(scenario, state)
        if min(given.attack, given.defence, given.civic) >= 0 and given.total == free:
            attacking = any(a.attacker == player for a in plan.attacks)
            check_defence_split(plan, player, divert(given, attacking, bool(on_rome)).defence, split)
    arg = asdict(given) | ({"defence_split": split} if split else {})
    words = "; Defense " + ", ".join(f"{n} against {w}" for w, n in split.items()) if split else ""
    marker = _marker(rnd, "spending", "spend", arg,
                     f"Turn {rnd}: Rome's decision, {given.attack} Attack, {given.defence} Defense, {given.civic} Civic" + words)
    state, spending, told = spend(scenario, state, rules, plan, given)
    after = []
    if split:
        after.append(Event(rnd, "spending", "put_note", {"round": rnd, "key": "defence_split", "value": {player: split}},
                           f"Rome's Defense named for the attacks: {', '.join(f'{w} {n}' for w, n in split.items())}"))
    after += _treasury(c, i.snap, scenario, state, rnd, "spending", spending.get(scenario.player, Spending()))
    after.append(Event(rnd, "spending", "put_note",
                       {"round": rnd, "key": "spending", "value": {p: asdict(s) for p, s in spending.items()}},
                       "every power's spending noted for the battles"))
    return StepOutcome(marker, state, told, after=after, where=Move("battles", "fight"))


#: The round note listing the battles the player took to the table this turn (`table`).
TABLE_BATTLES = "table_battles"


def take_to_table(c, battle: int) -> list[Event]:
    """The seed: "Other battles may be played at the choice of the player": battle ``battle`` of
    this turn's plan (its attack's place in the order) is played on the table and its result
    entered with ``result``, like Rome's own.  Once the attacks are known (phase 4 or 5), before
    the battle is fought."""
    return _take(c, "table", _table, battle)


def table_candidates(c, snap: Snapshot) -> list[int]:
    """The battles of this turn Rome's player may still take to the table: not Rome's, not fought."""
    rnd = int(snap.campaign("round") or 0)
    if snap.campaign("phase") not in ("spending", "battles") or not snap.note(rnd, "plan"):
        return []
    waiting = (snap.note(rnd, "pending_battle") or snap.note(rnd, "pending_province") or {})
    reached = int(waiting.get("index") or waiting.get("battle") or 0)
    rome = c.board.player
    return [j for j, a in enumerate(plan_of(snap.note(rnd, "plan")).attacks, start=1)
            if rome not in (a.attacker, a.target) and j >= reached]


def _table(c, i: StepInput, battle: int) -> StepOutcome:
    rnd, snap = i.round, i.snap
    plan = plan_of(snap.note(rnd, "plan")) if snap.note(rnd, "plan") else None
    if plan is None or snap.campaign("phase") not in ("spending", "battles"):
        raise StepRefused(f"cannot take a battle to the table: the turn's attacks are not all known yet (phase "
                          f"{snap.campaign('phase')}); it is done after Rome's attack, before `turn next` fights it")
    n = len(plan.attacks)
    if not 1 <= int(battle) <= n:
        raise InputError(f"battle {battle}: this turn's battles are 1 to {n} (`bellica turn status` lists the attacks)")
    a = plan.attacks[int(battle) - 1]
    if c.board.player in (a.attacker, a.target):
        raise InputError(f"battle {battle} ({a.attacker} against {a.target}) involves Rome: it is played on the table already")
    waiting = (snap.note(rnd, "pending_battle") or snap.note(rnd, "pending_province") or {})
    reached = int(waiting.get("index") or waiting.get("battle") or 0)
    if reached and int(battle) < reached:
        raise StepRefused(f"cannot take battle {battle} to the table: it was fought (generated) before battle {reached}")
    marked = sorted(set(int(b) for b in snap.note(rnd, TABLE_BATTLES) or ()) | {int(battle)})
    words = f"battle {battle} ({a.attacker} against {a.target}) is played on the table"
    return StepOutcome(_marker(rnd, i.phase, "table", {"battle": int(battle)}, f"Turn {rnd}: Rome's player: {words}"),
                       extra=[Event(rnd, i.phase, "put_note", {"round": rnd, "key": TABLE_BATTLES, "value": marked}, words)])


def enter_result(c, battle: int, winner: str, major: bool) -> list[Event]:
    """The result of table-played battle ``battle``: ``winner`` is "attacker", "defender" or a side's power."""
    return _take(c, "result", _result, battle, winner, major)


def _result(c, i: StepInput, battle: int, winner: str, major: bool) -> StepOutcome:
    rnd = i.round
    pending = i.snap.note(rnd, "pending_battle") or {}
    if int(battle) != pending.get("index"):
        raise InputError(f"battle {battle} does not await its result: battle {pending.get('index')} does "
                         f"({pending.get('attacker')} against {pending.get('army')} in {pending.get('province')})")
    from bellica.engine.core.names import did_you_mean, matches

    sides = {"attacker": "attacker", "defender": "defender", str(pending["attacker"]): "attacker",
             str(pending["army"]): "defender", str(pending["target"]): "defender"}
    found = list(dict.fromkeys(sides[f] for f in matches(winner, list(sides))))  # one matcher: any case, a beginning
    if len(found) != 1:
        raise InputError(f"--winner {winner!r}: {did_you_mean(winner, matches(winner, list(sides)), list(sides))}"
                         f"give attacker ({pending['attacker']}) or defender ({pending['army']})")
    side = found[0]
    result = BattleResult(side, bool(major))
    return StepOutcome(
        _marker(rnd, "battles", "result", {"battle": int(battle), "winner": side, "major": bool(major)},
                f"Turn {rnd}: battle {battle} was played on the table: {result.text()}"),
        extra=[Event(rnd, "battles", "put_row", {"table": "ror_battle_results",
                                                 "row": {"turn": rnd, "battle": int(battle), "winner": side, "major": bool(major)}},
                     f"battle {battle}: {result.text()} (entered)")],
        where=Move("battles", "fight"))


def choose_province(c, province: str | None, *, battle: int | None = None, kind: str | None = None) -> list[Event]:
    """The province Rome takes at the choice the battles stopped for (``province`` None: the seed's rule
    picks it: the most revenue next turn, then a resource, then a die).  ``battle``/``kind``, when given,
    must be the pending choice's (re-adjudication passes them)."""
    return _take(c, "province", _province, province, battle, kind)


def _province(c, i: StepInput, province: str | None, battle: int | None, kind: str | None) -> StepOutcome:
    rnd = i.round
    q = i.snap.note(rnd, "pending_province") or {}
    if (battle is not None and int(battle) != q.get("battle")) or (kind is not None and kind != q.get("kind")):
        raise InputError(f"battle {battle} ({kind}) does not await Rome's choice: battle {q.get('battle')} "
                         f"({q.get('why')}) does")
    options = list(q.get("options") or ())
    if province is not None:
        from bellica.engine.core.names import did_you_mean, matches

        found = matches(province, options)  # the one matcher: any case, a unique beginning
        if len(found) != 1:
            raise InputError(f"--choose {province!r}: {did_you_mean(province, found, options)}Rome may take one of "
                             f"{', '.join(options)} (battle {q.get('battle')}, {q.get('why')}), or give --by-rule")
        province = found[0]
    words = province if province is not None else "as the seed's rule picks it"
    return StepOutcome(
        _marker(rnd, "battles", "province", {"battle": q["battle"], "kind": q["kind"], "province": province},
                f"Turn {rnd}: Rome's decision, battle {q['battle']}: the province taken, {words}"),
        extra=[Event(rnd, "battles", "put_row", {"table": "ror_province_choices",
                                                 "row": {"turn": rnd, "battle": q["battle"], "kind": q["kind"],
                                                         "province": province}},
                     f"battle {q['battle']}: Rome takes {words} (chosen)")],
        where=Move("battles", "fight"))


def play_until_decision(c, *, auto: bool = True) -> list[Event]:
    """Run the engine's steps until Rome must decide (or the campaign is over).  With ``auto``,
    a decision with nothing to choose is taken at once: no attack when Rome has no Active
    neighbour, and all to Civic Improvement when Rome has nothing to spend freely."""
    events: list[Event] = []
    while True:
        snap = c.snapshot()
        step, _words = next_decision(c, snap)
        if step is None:
            return events
        if step in ENGINE_STEPS.values():
            events += run_engine_step(c, step)
            continue
        if not auto:
            return events
        state = state_of(c.board, snap)
        if step == "attack" and not candidate_targets(c.board, state, c.board.player):
            events += give_attack(c, None)
            continue
        if step == "spend" and rome_free_revenue(c.board, state) <= 0:
            events += give_spending(c, Spending(0, 0, 0))
            continue
        return events



# --- dice rolled at the table (issue 22): the `roll` step -------------------------------------------

#: The kinds of roll the rules make, the first word of a label (``attack/3/Samnites``).
ROLL_KINDS = ("attack", "target", "province", "battle", "external-order", "intervention", "landing", "ruler",
              "ruler-change")
TABLE_DICE = "table_dice"


def table_dice(snap: Snapshot) -> dict[str, list[int]]:
    """The dice the umpire entered at the table (label key -> faces): the round-0 note ``table_dice``."""
    return dict(snap.note(0, TABLE_DICE) or {})


def enter_roll(c, label: str, dice) -> list[Event]:
    """The umpire (or Rome's player at the table) enters the dice rolled for ``label``
    (``attack/3/Samnites``, ``battle/2/1/attacker/1``): every later roll of that label uses these
    faces instead of the seed's, and the step rolling them logs them as entered.  Any phase; a label
    entered again is replaced (dice refused when rolled, too many or too few, can be corrected)."""
    return _take(c, "roll", _roll, label, dice)


def _roll(c, i: StepInput, label: str, dice) -> StepOutcome:
    from bellica.engine.core.names import matches
    from bellica.geo.files import whole_number

    parts = [p.strip() for p in str(label or "").strip().strip("/").split("/")]
    if len(parts) < 3 or parts[0].lower() not in ROLL_KINDS:
        raise InputError(f"roll label {label!r}: give KIND/TURN/..., KIND one of {', '.join(ROLL_KINDS)} (the labels "
                         "the turn's rolls are told by, e.g. attack/3/Samnites or battle/3/1/attacker/1)")
    turn = whole_number(parts[1])
    if turn is None or turn < i.state.turn:
        raise InputError(f"roll label {label!r}: turn {parts[1]!r} is not this turn ({i.state.turn}) or a later one")
    names = list(i.board.nations) + [n for n in i.board.externals if n not in i.board.nations]
    spelled = [parts[0].lower(), str(turn)]
    for p in parts[2:]:  # a power's name by the one matcher; numbers and the rules' words as given
        found = matches(p, names) if whole_number(p) is None else []
        spelled.append(found[0] if len(found) == 1 else p)
    key = "/".join(spelled)
    items = dice if isinstance(dice, (list, tuple)) else str(dice).replace(",", " ").split()
    faces = [d if isinstance(d, int) and not isinstance(d, bool) else whole_number(str(d).strip()) for d in items]
    if not faces or any(f is None or f < 1 for f in faces):
        raise InputError(f"roll {key}: give the faces rolled, whole numbers from 1 (e.g. 5,2), not {dice!r}")
    held = table_dice(i.snap)
    again = held.get(key)
    held[key] = faces
    words = (f"dice {key} = {', '.join(map(str, faces))} (rolled at the table"
             + (f", replacing {', '.join(map(str, again))})" if again else ")"))
    rnd, phase = i.round, i.phase
    return StepOutcome(_marker(rnd, phase, "roll", {"label": key, "dice": faces}, f"Turn {rnd}: the umpire enters {words}"),
                       extra=[Event(rnd, phase, "put_note", {"round": 0, "key": TABLE_DICE, "value": dict(sorted(held.items()))},
                                    words)])
