"""Mare Nostrum as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (:mod:`~bellica.engine.mare_nostrum.turn` and the modules it calls) stay as
they are; :mod:`~bellica.engine.mare_nostrum.storage` stores their
:class:`~bellica.engine.mare_nostrum.model.TurnState` in the campaign file and
:mod:`~bellica.engine.mare_nostrum.play` runs them as *steps* of the core's phase machine, one
DuckDB transaction each, through the core's step runner
(:meth:`~bellica.engine.core.stepped.SteppedRuleset.take_step`) with this module's hooks.  The campaign's position (the core ``campaign`` table) is ``round`` = the turn,
``phase`` one of ``begin`` / ``actions`` / ``battles`` / ``over`` and, in ``actions``,
``stage`` = the nation whose turn it is to act.

==========  =============  ==========================================================
step        phase          what
==========  =============  ==========================================================
lottery     any but over   the umpire enters a wheel's real numbers for a turn, or one
                           labelled number (``siege/3/Apulia``); kept in ``mn_wheels`` /
                           ``mn_numbers`` and read by every later step
begin       begin          a new turn: order of play, pirate raids, random events, actions
build       actions        the acting nation orders a fortification, suburbs, temple or fleet
peace       actions        ... imposes peace on a nation later in the order
alliance    actions        ... allies with the invaders of an enemy province
grain       actions        ... distributes grain
attack      actions        ... declares a land attack
amphibious  actions        ... declares an amphibious attack (the defender's fleets fight first)
naval       actions        ... attacks an enemy's (or the pirates') fleets
destroy     actions        ... uses its Earthquake / Great Blaze on a work it does not hold
artworks    actions        a nation with Defensive Artworks names its province (no action;
                           until the battles, or only in its own turn: option artworks_until)
done        actions        the acting nation finishes: its works stand, the next one acts
result      battles        a declared battle's Field of Glory result (attacker / defender)
end         battles        every battle is applied (sieges drawn), the verdict; next turn
==========  =============  ==========================================================

A nation acts only in its own turn: any other is refused (:class:`StepRefused`, exit 3).
Every step logs a ``step`` event first (``{"step", "input"}``, the input as resolved);
re-adjudication reads the steps back from those and runs them again.  Every lottery number
a step needs is read from what was entered or drawn from the campaign seed under its label
(:mod:`~bellica.engine.mare_nostrum.lottery`), and the step logs them all (a ``numbers``
event), so a step run again gets the same numbers and a replay never draws.  The state a
step leaves is written as the core's ``put_row``/``drop_row`` events on the tables of
:data:`STATE_SQL` (diffed from the new TurnState): the tables are the log's materialised view.

The static scenario is stored by :func:`write_scenario` (``mn_provinces``, ``mn_nations``,
``mn_seas``, ``mn_borders``, ``mn_passages``, ``mn_invaders``, ``mn_independent_armies`` and
the frozen ``rules``) when ``bellica campaign new`` makes the campaign; the provinces'
geometry (``provinces``/``province_cells``) is the province builder's and the rules do not
read it (the land adjacency is the scenario's ``[[border]]`` list).
"""

from __future__ import annotations

from typing import Any, Mapping

from bellica.engine.core.events import Event
from bellica.engine.core.machine import Step
from bellica.engine.core.ruleset import register
from bellica.engine.core.stepped import SteppedRuleset, StepOutcome, allowed
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import BellicaError

from .lottery import Lottery
from .model import Scenario, TurnState
from .names import WHEEL_CITIES, nation_named, province_named, sea_named, wheel_named
from .play import act, enter_number, enter_result, enter_wheel, numbers_events, position_events, run_engine_step
from .rules import RULESET
from .status import ACTION_STEPS, OVER, TurnView, next_decision, require, standings_now, turn_view
from .storage import (GAME_KEYS, SCENARIO_SQL, STATE_SQL, VIEWS_SQL, install_views, lottery_of, read_scenario, state_of,
                      state_rows, write_scenario)

# The names other modules import from here (the steps, the web app, the demo, the tests), wherever they live now.
__all__ = [
    "ACTION_STEPS",
    "MARE_NOSTRUM",
    "MareNostrum",
    "OVER",
    "SCENARIO_SQL",
    "STATE_SQL",
    "TurnView",
    "VIEWS_SQL",
    "WHEEL_CITIES",
    "act",
    "enter_number",
    "enter_result",
    "enter_wheel",
    "install_views",
    "nation_named",
    "next_decision",
    "province_named",
    "read_scenario",
    "run_engine_step",
    "sea_named",
    "standings_now",
    "state_of",
    "state_rows",
    "turn_view",
    "wheel_named",
    "write_scenario",
]


class MareNostrum(SteppedRuleset):
    name = RULESET
    play_command = "bellica turn"
    # Its steps (steps.py) make `bellica mare-nostrum ...`, which `bellica turn ...` runs for its campaigns.
    command_group = "mare-nostrum"
    faction_flag = "--nation"
    title = "Mare Nostrum"
    round_word = "turn"
    status_before_start = False
    status_json_names_file = False  # `status --json` is the web app's status JSON, CAMPAIGN in its words
    example_campaign = "mare.duckdb"
    state_sql = STATE_SQL
    steps = (
        Step("lottery", "enter lottery numbers", "begin"),
        Step("begin", "begin the turn", "begin"),
        Step("build", "build", "actions"),
        Step("peace", "impose peace", "actions"),
        Step("alliance", "ally with invaders", "actions"),
        Step("grain", "distribute grain", "actions"),
        Step("attack", "declare a land attack", "actions"),
        Step("amphibious", "declare an amphibious attack", "actions"),
        Step("naval", "attack fleets", "actions"),
        Step("destroy", "destroy an enemy work", "actions"),
        Step("artworks", "place defensive artworks", "actions"),
        Step("done", "finish the nation's actions", "actions"),
        Step("result", "enter a battle's result", "battles"),
        Step("end", "end the turn", "battles"),
    )

    scenario_name = "mare-nostrum"
    start_phase = "begin"

    def folder_summary(self, scenario: Scenario) -> str:
        return (f"{len(scenario.nations)} nations, {len(scenario.seas)} sea quadrants, "
                f"{sum(len(n) for n in scenario.adjacency.values()) // 2} borders, {len(scenario.invaders)} invaders")

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        scenario, rules = campaign.board, campaign.rules
        y0 = rules.game.first_year
        told = Event(1, "setup", "campaign_start", {"nations": list(scenario.nations), "seed": seed},
                     f"Mare Nostrum, {-y0} BC: {', '.join(scenario.nations)}, {len(scenario.provinces)} provinces, "
                     f"{rules.game.turns} turns; every nation at stability {rules.stability.start}")
        return [told] + super().initial_events(campaign, seed=seed)

    row_words = {
        "mn_control": lambda r: f"{r['province']} is held by {r['nation'] or 'nobody (independent)'}",
        "mn_nations_state": lambda r: (f"{r['nation']}: stability {r['stability']}, {r['provinces']} provinces, "
                                       f"{r['used']} of {r['actions']} actions used"
                                       + (f", out ({r['left_game']})" if r["left_game"] else "")),
        "mn_works": "{province}: {fortifications} fortification, {suburbs} suburbs, {temples} temple",
        "mn_fleets": "fleet {fleet} ({owner}) in {sea}",
        "mn_attacks": lambda r: f"battle {r['seq']}: {r['attacker'] or 'invaders'} against {r['target']} ({r['kind']})",
        "mn_order": "order of play {position}: {nation}",
        "mn_builds": "ordered: {work} in {province}",
        "mn_game": "{key} = {value}",
    }
    drop_words = {"mn_fleets": "fleet {fleet} is gone", "mn_works": "{province}: nothing stands"}

    def require(self, campaign, snap: Snapshot, name: str) -> None:
        require(campaign, snap, name)

    # --- one step (the core's runner: SteppedRuleset.take_step; play.py's steps give the rules) ---

    state_keys = {"mn_game": GAME_KEYS}

    def check_step(self, campaign, snap: Snapshot, name: str, actor: str | None) -> None:
        """The position allows the step; for a nation's action, also its turn to act (its name
        is read after the position is checked: a step out of place is refused first)."""
        require(campaign, snap, name)
        if actor is not None:
            require(campaign, snap, name, nation_named(campaign, actor))

    def state_of(self, campaign, snap: Snapshot) -> TurnState:
        return state_of(campaign.board, snap)

    def step_time(self, snap: Snapshot, state: TurnState) -> tuple[int, str]:
        """A step is logged in the campaign's round and phase, but ``begin`` in the turn it opens
        (the other step of phase begin, ``lottery``, logs no state, numbers or position)."""
        rnd, phase = super().step_time(snap, state)
        return (state.turn + 1, phase) if phase == "begin" else (rnd, phase)

    def dice_of(self, campaign, snap: Snapshot, entered) -> Lottery:
        return lottery_of(campaign, snap)  # the numbers entered at the table are the mn_wheels / mn_numbers rows

    def dice_events(self, dice: Lottery, state: TurnState, rnd: int, phase: str) -> list[Event]:
        return numbers_events(rnd, phase, dice)

    def position_events(self, campaign, snap: Snapshot, out: StepOutcome, rnd: int, phase: str) -> list[Event]:
        return [] if out.state is None else position_events(rnd, phase, out.state, snap)

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_decision(campaign, snap)[1]

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        if action.name == "next":
            return next_decision(campaign, snap)[0] in ("begin", "end")
        if not allowed(require, campaign, snap, action.machine_step, viewer):
            return False
        from .steps import offered

        return offered(campaign, snap, action, viewer)

    def choices(self, campaign, viewer: str | None, action, param):
        from .steps import choices

        offered = choices(campaign, viewer, action, param) if campaign.has_state() else None
        return offered if offered is not None else super().choices(campaign, viewer, action, param)

    def status_lines(self, status: Mapping) -> list[str]:
        from .steps import status_lines

        return status_lines(status)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name in ("begin", "end"):
            return run_engine_step(campaign, name)
        if name == "lottery":
            if "wheel" in arg:
                return enter_wheel(campaign, arg["wheel"], arg["numbers"], turn=arg["turn"])
            return enter_number(campaign, arg["label"], arg["value"])
        if name == "result":
            return enter_result(campaign, arg["province"], arg["winner"])
        if name in ACTION_STEPS or name == "artworks":
            arg = dict(arg)
            return act(campaign, name, arg.pop("nation"), **arg)
        raise BellicaError(f"ruleset {self.name} has no step {name!r}")


from bellica.engine.core.players import with_bots  # noqa: E402  (its bots: engine/mare_nostrum/bots.py, docs/bots.md)

MARE_NOSTRUM = register(with_bots(MareNostrum, "bellica.engine.mare_nostrum.bots")())
