"""Trossian as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (:mod:`~bellica.engine.trossian.turn` and the modules it calls) stay as they
are; the plug-in stores their :class:`~bellica.engine.trossian.model.GameState` in the
campaign file (the ``tr_*`` tables of ``sql/state.sql``: :mod:`.storage`) and runs them as
*steps* of the core's phase machine, one DuckDB transaction each (:mod:`.play`, the orders'
input :mod:`.orders`).  This module holds the :class:`Trossian` class and registers it; the
seal is :mod:`.seal`'s, where the campaign stands and its status :mod:`.status`'s.  The core position: ``round`` counts the
campaign's phases (1 = the scenario's first Early Spring; winter quarters are a round of
their own), ``phase`` is where the round stands:

==========  =========  ================================================================
step        phase      what
==========  =========  ================================================================
begin       begin      open the phase: the year's card schedule, the ice, chance cards,
                       headless armies marching home (the umpire: ``next``)
march       orders     a nation's order: an army marches along a path of provinces
sail        orders     ... a navy's actions (sail, put_in, lie_off, put_out, embark, disembark)
courier     orders     ... a courier: send (the king's message, from the capital), move, deliver
army        orders     ... armies in one province merge, an army detaches units, or an army
                       without an HQ is told to hold or march home
done        orders     the nation has given all its orders for the phase
resolve     orders     every nation done: the orders carried out (nations in scenario order,
                       each nation's in the order given), then sea fights and battles opened
result      battles    a table battle's result and each unit's fate: the attrition rolls
end         battles    every battle entered: pacification and sieges, the next phase (or
                       winter quarters with the income)
bank        winter     a nation moves banked AP between two of its cities
recruit     winter     ... buys units, couriers or a navy at one of its cities
spring      winter     leave winter quarters: Early Spring of the next year
ally        orders or  a nation offers an alliance, accepts one offered to it, or breaks
            winter     one (``--break``: at once, on its own word); public, logged
==========  =========  ================================================================

**Sealed orders.** A nation's orders are stored when given (``tr_orders``) and checked then
against the state its earlier orders of the phase leave (an illegal order is refused, exit 3),
but carried out only by ``resolve``, once every nation is ``done``: so no order can be read
or answered before the phase's orders are all in.  The log seals them
(:data:`TROSSIAN_SEAL`): another nation (and the umpire, like any reader of the sealed log)
sees that an order came in and from whom, never what it says, until every nation is done;
a courier's message never opens to another nation, save the one that captures it (its
``courier_check`` event and the captor's ``intelligence``).  A nation's treasury, couriers and
the units of its armies are its own in the log (others read only that a row changed).  An
order the earlier ones made impossible when carried out (an enemy now in the way) fails and
is logged (``order_failed``), the rest go on.

Every die comes from :class:`~bellica.engine.trossian.dice.Dice` keyed by the campaign seed and
a label (or as the umpire entered it: ``result --die LABEL=N``); a step logs every roll it
used (a ``dice`` event), so re-adjudication (``bellica round verify --readjudicate``) running
the step again gets the same faces.  Chance cards are drawn the same way (a die with a face
per card, labelled ``card/YEAR/PHASE/NATION/N``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from bellica.engine.core.events import Event
from bellica.engine.core.machine import Step
from bellica.engine.core.ruleset import register
from bellica.engine.core.stepped import SteppedRuleset, allowed
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import BellicaError

from .dice import Dice
from .model import GameState, Scenario
from .orders import ALLY_PHASES, NATION_STEPS, ORDER_KINDS, nation_named, place_named
from .play import (_dice_events, _position, _restamp, _tag_couriers, act, ally, engine_step, enter_result, enter_roll, apply_ruling, next_step,
                   parse_dice, parse_fates)
from .rules import RULESET, rules_with
from .seal import TROSSIAN_SEAL, TrossianSeal
from .status import _require, next_decision, status_lines, status_view
from .storage import (_GAME_KEYS, SCENARIO_SQL, STATE_SQL, VIEWS_SQL, _rows, install_views, read_scenario, state_of,
                      write_scenario)

# The names other modules import from here (the steps, the player view, the demo, the tests) live in
# the modules above; they stay importable from ``engine.trossian.ruleset``.
__all__ = ["ALLY_PHASES", "NATION_STEPS", "ORDER_KINDS", "SCENARIO_SQL", "STATE_SQL", "TROSSIAN", "TROSSIAN_SEAL",
           "Trossian", "TrossianSeal", "VIEWS_SQL", "act", "ally", "engine_step", "enter_result", "install_views",
           "nation_named", "next_decision", "next_step", "parse_dice", "parse_fates", "place_named", "read_scenario",
           "state_of", "status_lines", "status_view", "write_scenario"]


class Trossian(SteppedRuleset):
    name = RULESET
    command_group = "trossian"
    faction_flag = "--nation"
    title = "Trossian"
    told_tables = frozenset({"tr_orders", "tr_ready"})
    status_before_start = False  # `status` before `start` is a step out of order (exit 3), as it always was
    state_sql = STATE_SQL
    order_seal = TROSSIAN_SEAL
    steps = (
        Step("begin", "begin the phase", "begin"),
        Step("march", "order a march", "orders"),
        Step("sail", "order a navy's actions", "orders"),
        Step("courier", "order a courier", "orders"),
        Step("army", "order an army to merge, detach, hold or go home", "orders"),
        Step("done", "finish the nation's orders", "orders"),
        Step("resolve", "carry out the orders", "orders"),
        Step("result", "enter a battle's result", "battles"),
        Step("end", "end the phase", "battles"),
        Step("bank", "move banked AP", "winter"),
        Step("recruit", "recruit", "winter"),
        Step("spring", "leave winter quarters", "winter"),
        Step("ally", "make or break an alliance", "orders"),  # also in winter: ALLY_PHASES
        Step("roll", "enter a die rolled at the table", "begin"),  # any phase (status._require)
        Step("ruling", "apply a card as the umpire rules it", "begin"),  # any phase (status._require)
    )

    scenario_name = "trossian"
    start_phase = "begin"

    def state_rows(self, scenario, state):
        return _rows(scenario, state)

    def load_folder(self, folder: Path):
        from .scenario import _read, load_scenario

        rules_over = _read(Path(folder) / "provinces.toml").get("rules")
        rules = rules_with(rules_over, source=f"{Path(folder).name}/provinces.toml [rules]") if rules_over else None
        return load_scenario(folder, rules), rules_over

    def folder_summary(self, scenario: Scenario) -> str:
        return (f"{len(scenario.nations)} nations, {len(scenario.towns)} towns, "
                f"{len(scenario.lanes)} sea lanes ({sum(x.freezes for x in scenario.lanes.values())} freeze)")

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        s = campaign.board
        told = Event(1, "setup", "campaign_start", {"nations": list(s.nations), "seed": seed},
                     f"{s.title}: {', '.join(s.nations)}; {len(s.provinces)} provinces, Early Spring {s.year}")
        return [told] + super().initial_events(campaign, seed=seed)

    row_words = {
        "tr_control": lambda r: f"{r['province']} is held by {r['nation'] or 'nobody'}",
        "tr_armies": "army {army} ({nation}) in {province}: {strength} units",
        "tr_navies": lambda r: f"navy {r['navy']} ({r['nation']}) in {r['lane']}" + (
            f" at {r['berth']}" if r["berth"] else " at sea"),
        "tr_couriers": "courier {courier} ({nation}) in {place} ({mode})",
        "tr_treasury": "{nation}: {treasury} AP banked",
        "tr_sieges": "{nation} pacifies {province}: {done} of {needed} phases",
        "tr_battles": "battle {battle} open in {province}",
        "tr_game": "{key} = {value}",
    }
    drop_words = {"tr_armies": "army {army} is gone", "tr_navies": "navy {navy} is gone",
                  "tr_couriers": "courier {courier} is gone", "tr_battles": "battle {battle} is over",
                  "tr_sieges": "the siege of {province} ends"}

    def require(self, campaign, snap: Snapshot, name: str) -> None:
        _require(campaign, snap, name)

    # --- one step (the core's runner: SteppedRuleset.take_step) ---

    state_keys = {"tr_game": _GAME_KEYS}

    def check_step(self, campaign, snap: Snapshot, name: str, actor: str | None) -> None:
        _require(campaign, snap, name, actor)

    def state_of(self, campaign, snap: Snapshot) -> GameState:
        return state_of(snap)

    def dice_of(self, campaign, snap: Snapshot, entered) -> Dice:
        from .table_dice import table_dice

        # The dice the umpire entered at the table (`roll`), then a step's own (`result --die`).
        return Dice(seed=int(snap.campaign("seed")), entered={**table_dice(snap), **dict(entered or {})})

    def step_rows(self, campaign, state: GameState):
        return _rows(campaign.board, state, campaign.rules)

    def told_events(self, out, state: GameState, rnd: int, phase: str) -> list[Event]:
        """The rules' events in the step's round and phase, a courier's carrying its nation."""
        return _tag_couriers(_restamp(rnd, phase, out.told), {x.id: x.nation for x in state.couriers})

    def dice_events(self, dice: Dice, state: GameState, rnd: int, phase: str) -> list[Event]:
        return _dice_events(rnd, phase, dice, {x.id: x.nation for x in state.couriers})

    def position_events(self, campaign, snap: Snapshot, out, rnd: int, phase: str) -> list[Event]:
        return [] if out.where is None else _position(campaign, snap, rnd, phase, out.where[1], out.where[0])

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_decision(campaign, snap)[1]

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        if action.name == "next":
            return next_decision(campaign, snap)[0] in ("begin", "resolve", "end", "spring")
        return allowed(_require, campaign, snap, action.machine_step, viewer)

    def status_lines(self, status: Mapping) -> list[str]:
        return status_lines(status)

    def choices(self, campaign, viewer: str | None, action, param):
        """What a nation's (or the umpire's) page offers: its own armies', navies' and couriers'
        numbers, the places it may name, the cities it holds, what it may recruit, the open battles."""
        from .storage import state_of as stored_state

        if not campaign.has_state():
            return super().choices(campaign, viewer, action, param)
        state, s = stored_state(campaign.snapshot()), campaign.board
        own = lambda xs: [x.id for x in xs if x.nation == viewer]  # noqa: E731
        cities = [p for p, prov in s.provinces.items() if prov.city and state.control.get(p) == viewer]
        offered = {
            "army": own(state.armies), "others": own(state.armies), "navy": own(state.navies),
            "courier": own(state.couriers), "source": cities, "target": cities, "at": cities,
            "kinds": list(campaign.rules.costs), "battle": [b.id for b in state.battles],
            "to": [f"army {a}" for a in own(state.armies)] if action.name == "courier" else sorted(s.provinces),
            "path": sorted(s.provinces) + (sorted(s.lanes) if action.name == "courier" else []),
        }.get(param.name)
        if action.name == "result" and param.name == "winner":
            offered = ["a", "b", "draw"]
        return offered if offered is not None else super().choices(campaign, viewer, action, param)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name in ("begin", "resolve", "end", "spring"):
            return engine_step(campaign, name)
        if name == "result":
            return enter_result(campaign, arg["battle"], arg["winner"], {int(k): v for k, v in arg["fates"].items()},
                                {int(k): v for k, v in arg["retreats"].items()}, arg.get("dice") or {})
        if name == "ally":
            return ally(campaign, arg["nation"], arg["with"], brk=bool(arg.get("break")))
        if name == "roll":
            return enter_roll(campaign, arg["label"], arg["value"])
        if name == "ruling":
            return apply_ruling(campaign, arg["nation"], arg["card"], arg["effect"], ap=arg.get("ap"),
                                units=arg.get("units") or (), quality=arg.get("quality", "line"),
                                lost_on=arg.get("lost_on"), words=arg.get("words", ""))
        if name in NATION_STEPS:
            a = dict(arg)
            nation = a.pop("nation")
            if name == "bank":
                return act(campaign, name, nation, source=a["source"], target=a["target"], ap=a["ap"])
            return act(campaign, name, nation, **a)
        raise BellicaError(f"ruleset {self.name} has no step {name!r}")


from bellica.engine.core.players import with_bots  # noqa: E402  (its bots: engine/trossian/bots.py, docs/bots.md)

TROSSIAN = register(with_bots(Trossian, "bellica.engine.trossian.bots")())
