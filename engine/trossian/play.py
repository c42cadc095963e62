"""The Trossian steps, each run by the core's runner (:meth:`SteppedRuleset.take_step`) in one
transaction: a nation's order, ``done``, ``bank`` or ``recruit`` (:func:`act`), an alliance
(:func:`ally`), the umpire's ``begin``/``resolve``/``end``/``spring`` (:func:`engine_step`,
:func:`next_step`) and a table battle's result (:func:`enter_result`); the events a step logs
besides the rules' (its marker, the dice, couriers tagged with their nation, the position)."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.machine import StepRefused
from bellica.engine.core.stepped import StepInput, StepOutcome
from bellica.engine.core.stepped import set_campaign as _set
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.files import whole_number
from bellica.engine.core.names import did_you_mean, named
from bellica.engine.core.names import matches as _match

from . import battles as battles_mod
from . import movement, treasury
from .calendar import label
from .dice import Dice
from .model import WINTER
from .orders import NATION_STEPS, ORDER_KINDS, _apply_order, _orders_of, _resolve_order, _SafeRoads, nation_named, place_named
from .status import next_decision
from .storage import _j
from .turn import begin_phase, contact, diplomacy, end_phase, end_winter

__all__ = ["act", "ally", "engine_step", "enter_result", "enter_roll", "apply_ruling", "next_step", "parse_dice", "parse_fates"]


def _restamp(rnd: int, phase: str, events: Sequence[Event]) -> list[Event]:
    return [Event(rnd, phase, e.kind, e.data, e.text) for e in events]


def _tag_couriers(events: Sequence[Event], owners: Mapping[int, str]) -> list[Event]:
    """Courier events carry their courier's nation (who may read them)."""
    out = []
    for e in events:
        if e.kind.startswith("courier_") and "nation" not in e.data and e.data.get("courier") in owners:
            e = Event(e.round, e.phase, e.kind, {**e.data, "nation": owners[e.data["courier"]]}, e.text)
        out.append(e)
    return out


def _roll_owner(label: tuple, couriers: Mapping[int, str]) -> str | None:
    """The nation a die is a secret of: a courier's interception (its nation), a card schedule
    (the drawing nation); None: a public roll."""
    if label and label[0] == "courier" and len(label) > 3:
        return couriers.get(int(label[3]))
    if label and label[0] == "cards" and len(label) > 2:
        return str(label[2])
    return None


def _dice_events(rnd: int, phase: str, dice: Dice, couriers: Mapping[int, str]) -> list[Event]:
    """The rolls a step used, as ``dice`` events: the public ones, then each nation's secret ones
    (``nation`` set: sealed from the others like the courier or card they decided)."""
    groups: dict[str | None, list[dict]] = {}
    for r in dice.log:
        groups.setdefault(_roll_owner(r.label, couriers), []).append(
            {"label": r.key, "sides": r.sides, "value": r.value, "entered": r.entered})
    out = []
    for owner in sorted(groups, key=lambda o: (o is not None, o or "")):
        rolls = groups[owner]
        data = {"rolls": rolls, **({"nation": owner} if owner else {})}
        out.append(Event(rnd, phase, "dice", data,
                         "dice" + (f" ({owner})" if owner else "") + ": " + "; ".join(
                             f"{r['label']} d{r['sides']} {r['value']}" + (" (entered)" if r["entered"] else "") for r in rolls)))
    return out


def _marker(rnd: int, phase: str, step: str, arg: Any, text: str) -> Event:
    return Event(rnd, phase, "step", {"step": step, "input": arg, "round": rnd}, text)


def _position(c, snap: Snapshot, rnd: int, phase: str, where: str, new_round: int) -> list[Event]:
    out = []
    if str(new_round) != snap.campaign("round"):
        out.append(_set(rnd, phase, "round", new_round))
    if where != snap.campaign("phase"):
        out.append(_set(rnd, phase, "phase", where))
    return out


def _run(c, name: str, body: Callable, *, nation: str | None = None, entered: Mapping[str, int] | None = None) -> list[Event]:
    """One step, run by the core (:meth:`SteppedRuleset.take_step`).  ``body(snap, scenario, rules,
    state, rnd, dice, nation)`` returns ``(marker, new_state or None, rule events, extra events,
    (round, phase) or None)``."""
    if nation is not None:
        nation = nation_named(c, nation)

    def rule(i: StepInput) -> StepOutcome:
        marker, new, told, extra, where = body(i.snap, i.board, i.rules, i.state, i.round, i.dice, i.actor)
        return StepOutcome(marker, new, told, extra, where)

    return c.ruleset.take_step(c, name, rule, actor=nation, entered=entered)


def _refuse(err: InputError, what: str) -> StepRefused:
    return StepRefused(f"{what}: {err}")


def act(c, step: str, nation: str, **arg) -> list[Event]:
    """``nation``'s step: an order (``march``: army, path; ``sail``: navy, actions; ``courier``:
    courier, action send|move|deliver, message/to or path), ``done``, or in winter ``bank``
    (source, target, ap) and ``recruit`` (at, kinds, quality)."""
    if step not in NATION_STEPS:
        raise BellicaError(f"no nation step {step!r}")

    def body(snap, scenario, rules, state, rnd, dice, who):
        phase = snap.campaign("phase")
        if step in ORDER_KINDS:
            a = _resolve_order(scenario, state, step, who, arg, rules)
            trial = state
            mine = _orders_of(snap, rnd, who)
            for _n, _s, kind, given in mine:  # the state this nation's earlier orders leave
                try:
                    trial, _ = _apply_order(scenario, trial, rules, _SafeRoads(), kind, given)
                except (InputError, KeyError):
                    pass
            try:
                _apply_order(scenario, trial, rules, _SafeRoads(), step, a)
            except InputError as err:
                raise _refuse(err, f"{who}'s {step} order") from None
            except KeyError:
                raise StepRefused(f"{who}'s {step} order: its {step if step != 'march' else 'army'} is gone "
                                  "by its nation's earlier orders") from None
            seq = len(mine) + 1
            row = {"round": rnd, "nation": who, "seq": seq, "kind": step, "input": _j(a)}
            text = f"{label(rules, state)}: {who} gives a {step} order"
            return (_marker(rnd, phase, step, a, text), None, [],
                    [Event(rnd, phase, "put_row", {"table": "tr_orders", "row": row}, f"{who}'s order {seq}: {step}")],
                    None)
        if step == "done":
            n = len(_orders_of(snap, rnd, who))
            row = {"round": rnd, "nation": who}
            return (_marker(rnd, phase, "done", {"nation": who}, f"{label(rules, state)}: {who} has given its orders"),
                    None, [], [Event(rnd, phase, "put_row", {"table": "tr_ready", "row": row},
                                     f"{who} is ready ({n} order{'s' if n != 1 else ''}, sealed)")], None)
        if step == "bank":
            a = {"nation": who, "source": place_named(scenario, arg["source"], "--from"),
                 "target": place_named(scenario, arg["target"], "--to"), "ap": int(arg["ap"])}
            run = lambda: treasury.transfer(scenario, state, who, a["source"], a["target"], a["ap"])  # noqa: E731
            text = f"winter {state.year}: {who} moves banked AP"
        else:
            kinds = [str(k).strip() for k in arg.get("kinds") or ()]
            if not kinds:
                raise InputError("recruit: give what to buy: --unit KIND [--unit KIND ...] (courier, navy too)")
            kinds = [named(k, list(rules.costs), "--unit", "no unit kind of this campaign") for k in kinds]
            quality = named(str(arg.get("quality") or "line"), ["line", "guard", "militia"], "--quality",
                            "no quality of this campaign")
            a = {"nation": who, "at": place_named(scenario, arg["at"], "--at"), "kinds": kinds, "quality": quality}
            run = lambda: treasury.recruit(scenario, state, rules, who, a["at"], kinds, quality=quality)  # noqa: E731
            text = f"winter {state.year}: {who} recruits"
        try:
            new, told = run()
        except InputError as err:
            raise _refuse(err, f"{who}'s {step}") from None
        return _marker(rnd, phase, step, a, text), new, told, [], None

    return _run(c, step, body, nation=nation)


def ally(c, nation: str, partner: str, *, brk: bool = False) -> list[Event]:
    """``nation`` offers ``partner`` an alliance, or accepts the one ``partner`` offered it (the
    alliance is made); ``brk``: breaks their alliance at once, or takes back its open offer.
    Public and logged; allowed in the orders phase (before or after the nation is done: it
    counts from the next ``resolve``) and in winter quarters."""
    def body(snap, scenario, rules, state, rnd, dice, who):
        other = nation_named(c, partner, "--with")
        a = {"nation": who, "with": other, "break": bool(brk)}
        try:
            new, told = diplomacy(state, who, other, brk=bool(brk))
        except InputError as err:
            raise _refuse(err, f"{who}'s word to {other}") from None
        verb = "breaks with" if brk else "treats with"
        return (_marker(rnd, snap.campaign("phase"), "ally", a, f"{label(rules, state)}: {who} {verb} {other}"),
                new, told, [], None)

    return _run(c, "ally", body, nation=nation)


def enter_roll(c, label: str, value) -> list[Event]:
    """The umpire enters a die rolled at the table under ``label`` (:mod:`.table_dice`): every later
    roll of that label is this face instead of the seed's.  Any phase; a nation's secret die (a
    courier's, a card schedule's) is sealed from the others like the roll itself."""
    from .calendar import label as when
    from .table_dice import roll_events

    def body(snap, scenario, rules, state, rnd, _dice, _n):
        phase = snap.campaign("phase")
        owners = {x.id: x.nation for x in state.couriers}
        arg, words, extra = roll_events(snap, scenario, rules, state, rnd, phase, label, value,
                                        lambda lab: _roll_owner(lab, owners))
        return _marker(rnd, phase, "roll", arg, f"{when(rules, state)}: the umpire enters {words}"), None, [], extra, None

    return _run(c, "roll", body)



def apply_ruling(c, nation: str, card: str, effect: str, *, ap: int | None = None, units: Sequence[str] = (),
                 quality: str = "line", lost_on: int | None = None, words: str = "") -> list[Event]:
    """The umpire applies a card left to him ("the umpire rules on ...", or any card as he rules it)
    to ``nation`` as one of the engine's effects (:data:`.cards.EFFECTS`) with its numbers: the
    effect's random picks are card-effect dice (entered at the table with ``roll``, else the seed's).
    Any phase; logged and re-adjudicated like every step."""
    from .calendar import label as when
    from .cards import EFFECTS, apply_card

    def body(snap, scenario, rules, state, rnd, dice, who):
        phase = snap.campaign("phase")
        key = named(card, [str(k["key"]) for k in scenario.cards], "--card", "not a card of this campaign")
        the = next(k for k in scenario.cards if str(k["key"]) == key)
        eff = named(effect, [e for e in EFFECTS if e], "--effect", "no card effect the engine applies")
        params: dict[str, Any] = {}
        if eff == "windfall":
            if not isinstance(ap, int) or ap < 1:
                raise InputError("--effect windfall: give --ap N, the AP banked in the capital")
            params["ap"] = ap
        if eff == "levy":
            if not units:
                raise InputError("--effect levy: give the units raised: --unit KIND [--unit KIND ...]")
            params["units"] = [named(k, list(rules.costs), "--unit", "no unit kind of this campaign") for k in units]
            params["quality"] = named(quality or "line", ["line", "guard", "militia"], "--quality", "no quality")
        if eff == "storm":
            if not isinstance(lost_on, int) or not 1 <= lost_on <= 6:
                raise InputError("--effect storm: give --lost-on N (1-6): the navy is lost on a d6 of N or less")
            params["lost_on"] = lost_on
        ruled = {"key": key, "title": the["title"], "text": the.get("text", ""), "effect": eff, **params}
        try:
            new, told = apply_card(scenario, state, rules, who, ruled, dice)
        except InputError as err:
            raise _refuse(err, f"the ruling on {key}") from None
        told = [e for e in told if e.kind != "card_drawn"]  # drawn when its phase began: only the effect now
        a = {"nation": who, "card": key, "effect": eff, **params, **({"words": str(words)} if words else {})}
        text = f"{when(rules, state)}: the umpire rules on '{the['title']}' for {who}: {eff}" + (f" ({words})" if words else "")
        return _marker(rnd, phase, "ruling", a, text), new, told, [], None

    return _run(c, "ruling", body, nation=nation)


def engine_step(c, name: str) -> list[Event]:
    """The umpire's step: ``begin``, ``resolve``, ``end`` or ``spring``."""
    def body(snap, scenario, rules, state, rnd, dice, _n):
        phase = snap.campaign("phase")
        when = label(rules, state)
        if name == "begin":
            new, told = begin_phase(scenario, state, rules, dice)
            return _marker(rnd, phase, "begin", None, f"{when} begins"), new, told, [], (rnd, "orders")
        if name == "resolve":
            told = []
            for nation in scenario.nations:
                for _n, seq, kind, a in _orders_of(snap, rnd, nation):
                    try:
                        state, evs = _apply_order(scenario, state, rules, dice, kind, a)
                        told += evs
                    except (InputError, KeyError) as err:
                        why = str(err) if isinstance(err, InputError) else f"{kind} {err} is no more"
                        told.append(Event(rnd, phase, "order_failed", {"nation": nation, "seq": seq, "kind": kind,
                                                                       "why": why},
                                          f"{nation}'s order {seq} ({kind}) fails: {why}"))
            state, evs = movement.follow_orders(scenario, state, rules)  # armies marching on by earlier orders
            told += evs
            new, evs = contact(scenario, state, rules, dice)
            return (_marker(rnd, phase, "resolve", None, f"{when}: the orders are carried out"),
                    new, told + evs, [], (rnd, "battles"))
        if name == "end":
            new, told = end_phase(scenario, state, rules)
            where = "winter" if new.phase == WINTER else "begin"
            return _marker(rnd, phase, "end", None, f"{when} ends"), new, told, [], (rnd + 1, where)
        if name == "spring":
            new, told = end_winter(scenario, state, rules)
            return _marker(rnd, phase, "spring", None, f"winter quarters {state.year} end"), new, told, [], (rnd + 1, "begin")
        raise BellicaError(f"no engine step {name!r}")

    return _run(c, name, body)


def next_step(c) -> list[Event]:
    """Whatever the umpire does next (begin, resolve, end or spring); refused while orders or results are due."""
    snap = c.snapshot()
    step, words = next_decision(c, snap)
    if step in ("begin", "resolve", "end", "spring"):
        return engine_step(c, step)
    raise StepRefused(f"cannot go on: {words}")


def parse_fates(items: Sequence[str]) -> dict[int, str]:
    out = {}
    for item in items or ():
        unit, sep, fate = str(item).partition("=")
        if not sep or whole_number(unit) is None or not fate.strip():
            raise InputError(f"--fate {item!r}: give UNIT=FATE, FATE one of {', '.join(battles_mod.FATES)}")
        out[whole_number(unit)] = named(fate, list(battles_mod.FATES), f"--fate {item!r}:", "no fate")
    return out


def parse_dice(items: Sequence[str]) -> dict[str, int]:
    out = {}
    for item in items or ():
        key, sep, value = str(item).rpartition("=")
        if not sep or not key or whole_number(value) is None:
            raise InputError(f"--die {item!r}: give LABEL=FACE, e.g. attrition/1806/0/7/12=4")
        out[key.strip()] = whole_number(value)
    return out


def enter_result(c, battle: int, winner: str, fates: Mapping[int, str] | None = None,
                 retreats: Mapping[int, str] | None = None, dice: Mapping[str, int] | None = None) -> list[Event]:
    """The table battle ``battle``'s result: ``winner`` "a", "b" (or a nation of that side) or
    "draw"; ``fates`` unit id -> destroyed/remaining/routed; ``retreats`` army id -> province;
    ``dice`` the umpire's real attrition dice (label -> face), else drawn from the seed."""
    def body(snap, scenario, rules, state, rnd, d, _n):
        b = next((x for x in state.battles if x.id == int(battle)), None)
        if b is None:
            raise InputError(f"battle {battle}: no such open battle: give one of "
                             f"{', '.join(str(x.id) for x in state.battles) or 'none'}")
        sides = {"a": "a", "b": "b", "draw": "draw"} | {n: "ab"[i] for i, ns in enumerate(b.nations) for n in ns}
        found = _match(winner, list(sides))  # the one matcher: any case, a unique beginning
        side = sides[found[0]] if len({sides[f] for f in found}) == 1 else None
        if side is None:
            raise InputError(f"--winner {winner!r}: {did_you_mean(winner, found, list(sides))}give a "
                             f"({' & '.join(b.nations[0])}), b ({' & '.join(b.nations[1])}) or draw")
        back = {int(k): place_named(scenario, v, "--retreat") for k, v in (retreats or {}).items()}
        f = {int(k): str(v) for k, v in (fates or {}).items()}
        a = {"battle": b.id, "winner": side, "fates": {str(k): v for k, v in sorted(f.items())},
             "retreats": {str(k): v for k, v in sorted(back.items())}, "dice": dict(sorted((dice or {}).items()))}
        try:
            new, told = battles_mod.resolve_battle(scenario, state, rules, b.id, side, f, d, back)
        except InputError as err:
            raise InputError(str(err)) from None
        return (_marker(rnd, snap.campaign("phase"), "result", a, f"{label(rules, state)}: battle {b.id} in {b.province} "
                        f"was fought: " + ("a draw" if side == "draw" else f"side {side} won")), new, told, [], None)

    return _run(c, "result", body, entered=dice)
