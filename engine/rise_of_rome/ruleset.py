"""Rise of Rome as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (the phase functions over :class:`~bellica.engine.rise_of_rome.model.TurnState`)
stay as they are; :mod:`~bellica.engine.rise_of_rome.storage` stores their state in the
campaign file and :mod:`~bellica.engine.rise_of_rome.play` runs them as *steps* of the core's
phase machine, one DuckDB transaction each, through the core's step runner
(:meth:`~bellica.engine.core.stepped.SteppedRuleset.take_step`) with this module's hooks;
:mod:`~bellica.engine.rise_of_rome.status` says where the turn stands:

=========  ===========  ==========  =======================================================
step       phase        stage       what
=========  ===========  ==========  =======================================================
revenue    revenue                  a new turn; phase 1, every Active power's revenue
rulers     rulers                   phase 2, change of ruler (the engine's powers)
attacks    attacks      engine      phase 3, the external armies' and the powers' attacks
attack     attacks      rome        Rome's decision: its target (or none)
spend      spending                 phase 4, Rome's split (Attack, Defense, Civic); the others'
battles    battles      fight       phase 5, every battle; stops at a table-played battle
                                    whose result is not yet entered (stage ``result``), or
                                    at a province Rome takes and may choose (``province``)
result     battles      result      Rome's input: the result of that battle
province   battles      province    Rome's input: the province it takes (or the seed's rule)
end        end                      phase 6 (externals) and Rome's civic accounting; after
                                    the last turn, or Rome's instant loss: the verdict
=========  ===========  ==========  =======================================================

Every step logs a ``step`` event first (``{"step", "input"}``): re-adjudication reads the
steps back from those and runs them again.  Every die comes from the campaign seed
through :class:`~bellica.engine.rise_of_rome.dice.Roller` (labels carry the turn, so a step
run again draws the same dice and a replay never draws).  The state a step leaves is
written as the core's ``put_row``/``drop_row`` events on the tables of ``STATE_SQL``
(diffed from the new TurnState), so the tables are the log's materialised view; the
turn's attack plan, spending and pending battle are round notes.

The static scenario is stored by :func:`write_scenario` (``ror_provinces``, ``ror_powers``,
``ror_borders`` and the frozen ``rules``), which the campaign creation calls; the
geometry of the provinces (``provinces``/``province_cells``) is the province builder's and
is not read by the rules.
"""

from __future__ import annotations

from typing import Any, Mapping

from bellica.engine.core.events import Event
from bellica.engine.core.machine import Step, StepRefused
from bellica.engine.core.ruleset import register
from bellica.engine.core.stepped import StepOutcome, SteppedRuleset
from bellica.engine.core.tables import Snapshot
from bellica.engine.rise_of_rome.dice import Roller
from bellica.engine.rise_of_rome.model import Scenario, TurnState
from bellica.engine.rise_of_rome.play import (choose_province, enter_result, enter_roll, give_attack, give_spending, move_events,
                                             play_until_decision, run_engine_step, take_to_table)
from bellica.engine.rise_of_rome.rules import RULESET
from bellica.engine.rise_of_rome.spending import Spending
from bellica.engine.rise_of_rome.status import (DECISIONS, ENGINE_STEPS, OVER, TurnView, campaign_over, next_decision,
                                               rome_free_revenue, turn_view)
from bellica.engine.rise_of_rome.storage import (GAME_STATE_KEYS, SCENARIO_SQL, STATE_SQL, VIEWS_SQL, install_views,
                                                read_scenario, state_of, state_rows, write_scenario)
from bellica.engine.rise_of_rome.turn import start
from bellica.geo.errors import BellicaError

# The names other modules import from here (the steps, the web app, the tests), wherever they live now.
__all__ = [
    "DECISIONS",
    "ENGINE_STEPS",
    "OVER",
    "RiseOfRome",
    "RISE_OF_ROME",
    "STATE_SQL",
    "SCENARIO_SQL",
    "TurnView",
    "VIEWS_SQL",
    "campaign_over",
    "choose_province",
    "enter_result",
    "give_attack",
    "give_spending",
    "install_views",
    "next_decision",
    "play_until_decision",
    "read_scenario",
    "rome_free_revenue",
    "run_engine_step",
    "state_of",
    "state_rows",
    "turn_view",
    "write_scenario",
]


class RiseOfRome(SteppedRuleset):
    name = RULESET
    play_command = "bellica turn"
    # Its steps (steps.py) make `bellica rise-of-rome ...`, which `bellica turn ...` runs for its campaigns.
    command_group = "rise-of-rome"
    faction_flag = "--power"
    title = "Rise of Rome"
    round_word = "turn"
    status_before_start = False
    status_json_names_file = False  # `status --json` is the web app's status JSON, CAMPAIGN in its words
    example_campaign = "rome.duckdb"
    state_sql = STATE_SQL
    steps = (
        Step("revenue", "open the turn (revenue)", "revenue"),
        Step("rulers", "change rulers", "rulers"),
        Step("attacks", "roll the powers' attacks", "attacks", ("engine",), "Rome's attack is awaited; {next}"),
        Step("attack", "give Rome's attack", "attacks", ("rome",), "the powers have not rolled their attacks yet; {next}"),
        Step("spend", "give Rome's spending", "spending"),
        Step("battles", "fight the battles", "battles", ("fight",), "{next}"),
        Step("result", "enter a battle's result", "battles", ("result",), "no battle awaits its result; {next}"),
        Step("province", "choose Rome's province", "battles", ("province",),
             "no province awaits Rome's choice; {next}"),
        Step("end", "end the turn", "end"),
        Step("roll", "enter a die rolled at the table", "end"),  # any phase: check_step
        Step("table", "take a battle to the table", "battles"),  # phase 4 or 5: check_step and the rule
    )

    scenario_name = "rise-of-rome"
    start_phase = "revenue"

    def folder_summary(self, scenario: Scenario) -> str:
        return (f"{len(scenario.nations)} powers, {len(scenario.externals)} external powers, "
                f"{sum(len(n) for n in scenario.adjacency.values()) // 2} borders")

    def start_state(self, campaign, seed: int):
        return start(campaign.board, campaign.rules, Roller(seed))

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        _state, told = self.start_state(campaign, seed)
        words = [Event(1, "setup", e.kind, e.data, e.text) for e in told]
        return words + super().initial_events(campaign, seed=seed)

    row_words = {
        "ror_control": "{province} is held by {power}",
        "ror_rulers": "{power}' ruler: Aggressor {aggressor}, Protector {protector}, Builder {builder}",
        "ror_externals": "the {power} army: {points} points in {province}",
        "ror_powers_state": "{power}: {status}, {provinces} provinces",
        "ror_game": "{key} = {value}",
    }

    # --- one step (the core's runner: SteppedRuleset.take_step; play.py's steps give the rules) ---

    state_keys = {"ror_game": GAME_STATE_KEYS}

    def state_of(self, campaign, snap: Snapshot) -> TurnState:
        return state_of(campaign.board, snap)

    def step_time(self, snap: Snapshot, state: TurnState) -> tuple[int, str]:
        """A step is logged in the campaign's round and phase, but ``revenue`` in the turn it opens."""
        rnd, phase = super().step_time(snap, state)
        return (state.turn + 1, phase) if phase == "revenue" else (rnd, phase)

    def dice_of(self, campaign, snap: Snapshot, entered) -> Roller:
        from bellica.engine.rise_of_rome.dice import TableRoller
        from bellica.engine.rise_of_rome.play import table_dice

        # Labels carry the turn: a step run again draws the same dice; the umpire's table dice (`roll`) first.
        return TableRoller(campaign.seed(), entered=table_dice(snap))

    def dice_events(self, dice, state, rnd: int, phase: str) -> list[Event]:
        """The dice rolled at the table that the step used (the seed's are told in the rules' words)."""
        used = getattr(dice, "used", ())
        if not used:
            return []
        return [Event(rnd, phase, "dice", {"rolls": [{"label": r.key, "dice": list(r.dice), "entered": True} for r in used]},
                      "dice rolled at the table: " + "; ".join(f"{r.key} {list(r.dice)}" for r in used))]

    def check_step(self, campaign, snap: Snapshot, name: str, actor: str | None) -> None:
        if name == "roll":  # a die rolled at the table: in any phase, until the campaign is over
            from bellica.engine.core.machine import position_of

            pos = position_of(snap)
            if pos.winner is not None:
                raise StepRefused(f"cannot enter a die: the campaign is over, {pos.winner} won in turn {pos.round}")
            return
        if name == "table" and snap.campaign("phase") in ("spending", "battles"):
            return  # the attacks are known; the rule says whether that battle is still to be fought
        super().check_step(campaign, snap, name, actor)

    def position_events(self, campaign, snap: Snapshot, out: StepOutcome, rnd: int, phase: str) -> list[Event]:
        return [] if out.where is None else move_events(rnd, phase, snap, out.where)

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_decision(campaign, snap)[1]

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        if action.name == "next":
            return next_decision(campaign, snap)[0] in ENGINE_STEPS.values()
        if action.name == "table":  # offered while a battle not Rome's is still to be fought
            from bellica.engine.rise_of_rome.play import table_candidates

            return bool(table_candidates(campaign, snap))
        return super().may_take(campaign, snap, action, viewer)

    def open_actions(self, campaign, viewer: str | None) -> list:
        """Rome's player's steps the position allows (the umpire's: ``next`` and ``result``; another power's: none)."""
        if not campaign.has_state():
            return []
        snap = campaign.snapshot()
        return [a for a in self.actions()
                if self.not_theirs(campaign, a, viewer) is None and self.may_take(campaign, snap, a, viewer)]

    def not_theirs(self, campaign, action, viewer: str | None) -> str | None:
        from bellica.engine.rise_of_rome.steps import not_theirs

        return not_theirs(campaign, action.name, viewer)

    def choices(self, campaign, viewer: str | None, action, param):
        from bellica.engine.rise_of_rome.steps import choices

        offered = choices(campaign, action, param) if campaign.has_state() else None
        return offered if offered is not None else super().choices(campaign, viewer, action, param)

    def status_lines(self, status: Mapping) -> list[str]:
        from bellica.engine.rise_of_rome.steps import status_lines

        return status_lines(status)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name in ENGINE_STEPS.values():
            return run_engine_step(campaign, name)
        if name == "attack":
            return give_attack(campaign, arg)
        if name == "spend":
            arg = dict(arg)
            split = arg.pop("defence_split", None)
            return give_spending(campaign, Spending(**arg), split)
        if name == "result":
            return enter_result(campaign, arg["battle"], arg["winner"], arg["major"])
        if name == "province":
            return choose_province(campaign, arg["province"], battle=arg["battle"], kind=arg["kind"])
        if name == "roll":
            return enter_roll(campaign, arg["label"], arg["dice"])
        if name == "table":
            return take_to_table(campaign, arg["battle"])
        raise BellicaError(f"ruleset {self.name} has no step {name!r}")


from bellica.engine.core.players import with_bots  # noqa: E402  (its bots: engine/rise_of_rome/bots.py, docs/bots.md)

RISE_OF_ROME = register(with_bots(RiseOfRome, "bellica.engine.rise_of_rome.bots")())
