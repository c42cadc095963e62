"""Mare Nostrum's steps: each runs its pure rules in one transaction through the core's step
runner (:meth:`~bellica.engine.core.stepped.SteppedRuleset.take_step`, the hooks on
:class:`~bellica.engine.mare_nostrum.ruleset.MareNostrum`): ``begin`` and ``end``
(:func:`run_engine_step`), the umpire's lottery numbers (:func:`enter_wheel`,
:func:`enter_number`), a nation's actions (:func:`act`) and a battle's result
(:func:`enter_result`)."""

from __future__ import annotations

import json
from typing import Callable, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.machine import StepRefused
from bellica.engine.core.names import named
from bellica.engine.core.stepped import StepInput, StepOutcome
from bellica.engine.core.stepped import set_campaign as _set
from bellica.engine.core.stepped import step_event as _marker
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError, BellicaError

from . import battles as battles_mod
from . import building, diplomacy
from .lottery import Lottery, WheelDraw, label_key
from .model import Attack, TurnState
from .names import WHEEL_CITIES, nation_named, province_named, resolve, sea_named, wheel_named
from .rules import Rules
from .status import ACTION_STEPS, OVER, next_decision
from .storage import lottery_of
from .turn import begin_turn, end_turn, finish_actions

__all__ = ["act", "enter_number", "enter_result", "enter_wheel", "numbers_events", "position_events", "run_engine_step"]


def position_events(rnd: int, phase: str, state: TurnState, snap: Snapshot, *, verdict_text: str | None = None) -> list[Event]:
    """set_campaign events moving the core position to where ``state`` stands."""
    if state.winner is not None:
        where, stage = OVER, None
    elif state.phase == "done":
        where, stage = "begin", None
    elif state.phase == "actions":
        where, stage = "actions", state.acting
    else:
        where, stage = state.phase, None
    out = []
    if state.turn >= 1 and str(state.turn) != snap.campaign("round"):
        out.append(_set(rnd, phase, "round", state.turn))
    if where != snap.campaign("phase"):
        out.append(_set(rnd, phase, "phase", where))
    if stage != snap.campaign("stage"):
        out.append(_set(rnd, phase, "stage", stage))
    if state.winner is not None and snap.campaign("winner") != state.winner:
        out.append(_set(rnd, phase, "winner", state.winner))
    return out


def numbers_events(rnd: int, phase: str, lot: Lottery) -> list[Event]:
    """One event listing every lottery number the step used, entered or drawn."""
    if not lot.log:
        return []
    items, words = [], []
    for d in lot.log:
        if isinstance(d, WheelDraw):
            key, value = label_key(("wheel", d.turn, d.wheel)), list(d.numbers)
            words.append(f"{key} {' '.join(map(str, d.numbers))}")
        else:
            key, value = d.key, d.value
            words.append(f"{key} {d.value}")
        if d.entered:
            words[-1] += " (entered)"
        elif isinstance(d, WheelDraw):  # what the umpire could have entered instead (issue 22)
            words[-1] += f" (drawn) [the umpire could have entered the real draw before the turn: --wheel {d.wheel}]"
        else:
            words[-1] += f" (drawn) [the umpire could have entered it beforehand: --number {key} N]"
        items.append({"label": key, "value": value, "entered": d.entered})
    return [Event(rnd, phase, "numbers", {"numbers": items}, "lottery numbers: " + "; ".join(words))]


def _run(c, name: str, body: Callable, *, nation: str | None = None) -> list[Event]:
    """One step, run by the core (:meth:`~bellica.engine.core.stepped.SteppedRuleset.take_step`).
    ``body(snap, scenario, rules, state, rnd, lot, nation)`` returns ``(marker, new_state or None,
    rule events, extra events)``; ``rnd`` is the campaign's round, ``nation`` the acting nation as
    the scenario spells it (the ruleset's ``check_step`` has refused it if it may not act)."""
    def rule(i: StepInput) -> StepOutcome:
        who = nation_named(c, i.actor) if i.actor is not None else None
        marker, new, told, extra = body(i.snap, i.board, i.rules, i.state, int(i.snap.campaign("round")), i.dice, who)
        return StepOutcome(marker, new, told, extra)

    return c.ruleset.take_step(c, name, rule, actor=nation)


def run_engine_step(c, name: str) -> list[Event]:
    """Run ``begin`` (open the next turn) or ``end`` (fight the battles, the verdict)."""
    if name == "begin":
        def body(snap, scenario, rules, state, rnd, lot, _n):
            new, told = begin_turn(scenario, state, rules, lot)
            y0, y1 = rules.game.years(new.turn)
            return (_marker(new.turn, "begin", "begin", None,
                            f"Turn {new.turn} of {rules.game.turns}: {-y0} to {-y1} BC"), new, told, [])
        return _run(c, "begin", body)
    if name == "end":
        def body(snap, scenario, rules, state, rnd, lot, _n):
            results = {p: w for (t, p), (_t, _p, w) in snap.tables["mn_results"].items() if t == state.turn}
            missing = [a.target for a in state.attacks if a.target not in results]
            if missing:  # allowed only where the battle never takes place (its attacker was knocked out first)
                trial = {**results, **{t: "defender" for t in missing}}
                _s, evs = battles_mod.resolve_battles(scenario, state, rules, lottery_of(c, snap), trial)
                fought = [t for t in missing if any(e.kind == "battle" and e.data.get("target") == t for e in evs)]
                if fought:
                    raise StepRefused(f"cannot end the turn: the battle for {fought[0]} awaits its result; "
                                      + next_decision(c, snap)[1])
                results = trial
            new, v, told = end_turn(scenario, state, rules, lot, results)
            extra = [Event(rnd, "end", "put_row", {"table": "mn_game", "row": {"key": "verdict",
                                                                               "value": _verdict_words(v)}},
                           f"verdict: {_verdict_words(v)}")]
            return (_marker(rnd, "battles", "end", None, f"Turn {rnd}: the battles and the end of the turn"),
                    new, told, extra)
        return _run(c, "end", body)
    raise BellicaError(f"no engine step {name!r}")


def _verdict_words(v) -> str:
    return f"{v.winner} wins: {v.reason}" if v.winner else v.reason


def enter_wheel(c, wheel: str, numbers: Sequence[int], *, turn: int | None = None) -> list[Event]:
    """The real draw of ``wheel`` (a code such as BA, its city, or a nation's name) for ``turn``
    (default: the next turn to begin)."""
    def body(snap, scenario, rules, state, rnd, lot, _n):
        code = wheel_named(scenario, wheel)
        first = state.turn + 1  # the turn being played (if any) has drawn its wheels
        t = first if turn is None else int(turn)
        if t < first:
            raise InputError(f"--turn {t}: turn {t} has begun, its wheels are drawn; enter the draw of turn {first} or later")
        if t > rules.game.turns:
            raise InputError(f"--turn {t}: the campaign has {rules.game.turns} turns; enter the draw of turn {first} "
                             f"to {rules.game.turns}")
        nums = [int(n) for n in numbers]
        if len(nums) != rules.lottery.numbers_per_wheel:  # a short draw left the invasion's number to the seed
            raise InputError(f"--wheel {wheel}: {len(nums)} numbers; a wheel's draw is {rules.lottery.numbers_per_wheel} "
                             "numbers, in the order drawn")
        lot.wheels = {t: {code: nums}}
        lot.wheel(t, code)  # checks the numbers (1-90, different, at most five)
        lot.log.clear()
        who = next((n.name for n in scenario.nations.values() if n.wheel == code), "")
        arg = {"turn": t, "wheel": code, "numbers": nums}
        text = f"the umpire enters the draw of {WHEEL_CITIES.get(code, code)} ({code}) for turn {t}: {' '.join(map(str, nums))}"
        row = Event(rnd, snap.campaign("phase"), "put_row",
                    {"table": "mn_wheels", "row": {"turn": t, "wheel": code, "numbers": json.dumps(nums)}},
                    f"turn {t}, wheel {code}" + (f" ({who})" if who else "") + f": {' '.join(map(str, nums))}")
        return _marker(rnd, snap.campaign("phase"), "lottery", arg, text), None, [], [row]
    return _run(c, "lottery", body)


def enter_number(c, label: str, value: int) -> list[Event]:
    """One number for a labelled test (``siege/3/Apulia``, ``peace/2/Romans/Seleucids``, ...)."""
    def body(snap, scenario, rules, state, rnd, lot, _n):
        key = _check_label(rules, scenario, state, label)
        lot.entered = {key: value}
        lot.number(*key.split("/"))  # checks the value
        lot.log.clear()
        arg = {"label": key, "value": int(value)}
        row = Event(rnd, snap.campaign("phase"), "put_row", {"table": "mn_numbers", "row": {"label": key, "value": int(value)}},
                    f"number {key} = {value}")
        return (_marker(rnd, snap.campaign("phase"), "lottery", arg, f"the umpire enters the number for {key}: {value}"),
                None, [], [row])
    return _run(c, "lottery", body)


_LABEL_KINDS = ("siege", "peace", "alliance", "naval")


#: What follows KIND/TURN/ in the label of each number a rule draws (battles.py, diplomacy.py), None: free.
_LABEL_PARTS = {"siege": ("province",), "peace": ("nation", "nation"), "alliance": ("nation", "province"),
                "naval": ("sea", None, None)}


def _check_label(rules: Rules, scenario, state: TurnState, label: str) -> str:
    """The label as the rules draw it (names spelled as the campaign spells them), or one line saying
    why no draw of this campaign can have it: a kind no rule draws, a turn over or past the last, a
    province, nation or sea the campaign does not have, too many or too few parts."""
    parts = [p.strip() for p in str(label).strip().strip("/").split("/")]
    kinds = _LABEL_KINDS + tuple(b.key for b in rules.events)
    if len(parts) < 3 or parts[0] not in kinds or not parts[1].isdigit():
        raise InputError(f"--number {label!r}: give a label KIND/TURN/... such as siege/3/Apulia or "
                         f"peace/2/Romans/Seleucids (KIND one of {', '.join(_LABEL_KINDS)} or an event key)")
    first = state.turn + 1 if state.phase == "done" else state.turn
    if int(parts[1]) < first:
        raise InputError(f"--number {label!r}: turn {parts[1]} is over; enter numbers for turn {first} or later")
    if int(parts[1]) > rules.game.turns:
        raise InputError(f"--number {label!r}: the campaign has {rules.game.turns} turns")
    names = _LABEL_PARTS.get(parts[0])
    if names is not None:
        if len(parts) != 2 + len(names):
            form = "/".join([parts[0], "TURN", *((n or "X").upper() for n in names)])
            raise InputError(f"--number {label!r}: a {parts[0]} number's label is {form}")
        where = f"--number {label!r}:"
        spell = {"province": lambda x: province_named(scenario, x, where),
                 "nation": lambda x: named(x, list(scenario.nations), where, "no nation of this campaign"),
                 "sea": lambda x: _sea_in_label(scenario, x, where)}
        parts[2:] = [spell[n](x) if n else x for n, x in zip(names, parts[2:])]
    return "/".join([parts[0], str(int(parts[1])), *parts[2:]])


def _sea_in_label(scenario, name: str, where: str) -> str:
    try:
        return sea_named(scenario, name)
    except InputError as e:  # its words name --sea: here the sea is inside the label
        raise InputError(f"{where} {str(e).removeprefix('--sea ')}") from None


def act(c, step: str, nation: str, **arg) -> list[Event]:
    """``nation``'s action ``step`` (one of :data:`ACTION_STEPS` or "artworks") with its input:
    build(work, province, sea=""), peace(target), alliance(province), grain(), attack(base, target),
    amphibious(base, sea, target), naval(sea, enemy), destroy(work, province), artworks(province), done()."""
    if step not in ACTION_STEPS and step != "artworks":
        raise BellicaError(f"no action step {step!r}")

    def body(snap, scenario, rules, state, rnd, lot, who):
        a = resolve(c, scenario, step, arg)
        if step == "build":
            new, told = building.build(scenario, state, rules, who, a["work"], a["province"], a.get("sea", ""))
            text = f"{who} builds a {a['work']} in {a['province']}" + (f" ({a['sea']})" if a.get("sea") else "")
        elif step == "peace":
            new, told = diplomacy.impose_peace(scenario, state, rules, lot, who, a["target"])
            text = f"{who} would impose peace on {a['target']}"
        elif step == "alliance":
            new, told = diplomacy.ally_with_invaders(scenario, state, rules, lot, who, a["province"])
            text = f"{who} seeks an alliance with the invaders of {a['province']}"
        elif step == "grain":
            new, told = diplomacy.distribute_grain(scenario, state, rules, who)
            text = f"{who} distributes grain"
        elif step == "attack":
            new, told = battles_mod.land_attack(scenario, state, rules, who, a["base"], a["target"])
            text = f"{who} attacks {a['target']} from {a['base']}"
        elif step == "amphibious":
            new, told = battles_mod.amphibious_attack(scenario, state, rules, lot, who, a["base"], a["sea"], a["target"])
            text = f"{who} attacks {a['target']} from {a['base']} across {a['sea']}"
        elif step == "naval":
            new, told = battles_mod.attack_fleets(scenario, state, rules, lot, who, a["sea"], a["enemy"])
            text = f"{who} attacks the {a['enemy']}' fleets in {a['sea']}"
        elif step == "destroy":
            new, told = building.destroy_enemy_work(scenario, state, rules, who, a["province"], a["work"])
            text = f"{who} destroys a {a['work']} in {a['province']}"
        elif step == "artworks":
            new, told = building.place_artworks(scenario, state, rules, who, a["province"])
            text = f"{who} raises defensive artworks in {a['province']}"
        else:  # done
            new, told = finish_actions(scenario, state, rules, who)
            text = f"{who} has finished its actions"
        phase = snap.campaign("phase")
        return _marker(rnd, phase, step, {"nation": who, **a}, f"Turn {rnd}: {text}"), new, told, []

    return _run(c, step, body, nation=nation)


def enter_result(c, province: str, winner: str) -> list[Event]:
    """The Field of Glory result of the battle for ``province``: ``winner`` is "attacker",
    "defender", or the winning side's nation ("invaders" / "independent" for those sides)."""
    def body(snap, scenario, rules, state, rnd, lot, _n):
        target = province_named(scenario, province, "battle")
        attack = next((a for a in state.attacks if a.target == target), None)
        if attack is None:
            declared = ", ".join(a.target for a in state.attacks) or "none"
            raise InputError(f"no battle for {target} was declared this turn: give one of {declared}")
        side = _side(attack, winner)
        row = {"turn": state.turn, "province": target, "winner": side}
        who = attack.attacker or f"the invaders ({attack.army})" if side == "attacker" else (attack.defender or "the independents")
        return (_marker(rnd, "battles", "result", {"province": target, "winner": side},
                        f"Turn {rnd}: the battle for {target} was played: {who} won ({side})"),
                None, [], [Event(rnd, "battles", "put_row", {"table": "mn_results", "row": row},
                                 f"battle for {target}: the {side} won (entered)")])
    return _run(c, "result", body)


def _side(attack: Attack, winner: str) -> str:
    w = str(winner).strip().casefold()
    sides = {"attacker": "attacker", "defender": "defender"}
    if attack.attacker:
        sides[attack.attacker.casefold()] = "attacker"
    else:
        sides["invaders"] = "attacker"
        if attack.managed_by:
            sides.setdefault(attack.managed_by.casefold(), "attacker")
    if attack.defender:
        sides.setdefault(attack.defender.casefold(), "defender")
    else:
        sides["independent"] = "defender"
    from bellica.engine.core.names import did_you_mean, matches

    found = matches(w, list(sides))  # the one matcher: any case, a unique beginning
    if len({sides[f] for f in found}) != 1:
        raise InputError(f"--winner {winner!r}: {did_you_mean(winner, found, list(sides))}give attacker "
                         f"({attack.attacker or 'the invaders'}) or defender ({attack.defender or 'independent'})")
    return sides[found[0]]
