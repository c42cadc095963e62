"""Magna Graecia as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (:mod:`~bellica.engine.magna_graecia.actions` and the modules it calls) stay as
they are; the plug-in keeps their :class:`~bellica.engine.magna_graecia.model.GameState` in the
campaign file's ``mg_*`` tables (``sql/state.sql``: :mod:`.storage`) and runs every action as a
*step* of the core, one DuckDB transaction each (:mod:`.play`; the steps and their input:
:mod:`.inputs`).  This module holds the :class:`MagnaGraecia` class and registers it; the seal is
:mod:`.seal`'s, where the campaign stands and the players' view :mod:`.status`'s.  The campaign's
position: ``round`` = the campaign turn, ``phase`` = ``movement`` / ``battles`` / ``over``,
``stage`` = the phasing side.

The board is read from the campaign file only: the places (coastal, fortified, neutral
commands, years) and paths are the node tables' (``nodes``, ``node_paths``: built from the
scenario's node file when the campaign was made), the sides and armies the stored scenario
file's (``mg_scenario``).

==============  =========  ===========================================================
step            phase      what (``side``: who must give it)
==============  =========  ===========================================================
move            movement   the phasing side moves a command along a path
exchange        movement   ... moves elements between two of its commands in one node
embark          movement   ... puts commands aboard its fleet
disembark       movement   ... lands them
sail            movement   ... sails its fleet along sea paths
shelter         movement   ... shelters its fleet in a friendly fortified port
attack_city     mov./bat.  ... attacks the neutral city where it stands (or, in the battles,
                           a defending side attacks it during the battle there)
end_movement    movement   ... ends its movement: alliance rolls, sieges, battles due
base_edge       battles    the attacker names its path of entry when it came by several
reorganise      battles    a city's ally moves elements between the city's commands
defence         battles    a defending side chooses forward / central / rear
siege           battles    the defenders go inside the walls: a siege instead of a battle
                           (the phasing side or a defending side gives it; refused once
                           the defenders chose a field defence)
sally           battles    the phasing side's besieged forces sally
result          battles    the umpire enters a table battle's result and losses
second_day      battles    one side's sealed stay/retire order (revealed once all are in)
fleet_battle    battles    the fleet fight at a node (or the defender's retreat instead)
retreat         battles    a beaten command's owner retreats it
retreat_fleet   battles    a fleet retreats
end_turn        battles    the phasing side ends its player-turn: next side (or turn)
agree_end       any        the sides agree to end the season
roll            any        the umpire enters a die rolled at the table, under its label
==============  =========  ===========================================================

Every step logs a ``step`` event first (``{"step", "input"}``, names as the campaign spells
them), then the rules' events, a ``dice`` event listing every die the step used (entered
at the table or drawn from the campaign seed under its label, :mod:`~.dice`), and the state
it leaves as ``put_row``/``drop_row`` events; re-adjudication runs the steps again.  A step out
of turn, or one the rules refuse, is :class:`~bellica.engine.core.machine.StepRefused` (exit 3);
a bad input (an unknown place, command or side) is :class:`InputError` (exit 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.machine import Step
from bellica.engine.core.ruleset import register
from bellica.engine.core.stepped import SteppedRuleset
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError, BellicaError

from .dice import Dice
from .inputs import OVER, STEPS, WORDS, node_named, side_named
from .model import GameState
from .play import _check_position, _dice, _dice_event, _position, play
from .rules import RULESET, default_rules, rules_with
from .scenario import scenario_from_toml
from .seal import SEAL, MagnaGraeciaSeal
from .status import _side_may, _umpire_may, next_decision, view, view_lines
from .storage import (_GAME_KEYS, SCENARIO_SQL, STATE_SQL, VIEWS_SQL, Board, install_views, node_map_of, read_board,
                      state_of, state_rows, write_scenario)
from .turn import new_game

# The names other modules import from here (the steps, the player view, the demo, the tests) live in
# the modules above; they stay importable from ``engine.magna_graecia.ruleset``.
__all__ = ["Board", "MAGNA_GRAECIA", "MagnaGraecia", "MagnaGraeciaSeal", "OVER", "SCENARIO_SQL", "SEAL", "STATE_SQL",
           "STEPS", "VIEWS_SQL", "WORDS", "install_views", "next_decision", "node_map_of", "node_named", "play",
           "read_board", "side_named", "state_of", "state_rows", "view", "view_lines", "write_scenario"]


def _command_words(r: Mapping) -> str:
    who = r["side"] or f"{r['city']}'s own"
    where = " aboard" if r["aboard"] else (" inside the walls" if r["in_city"] else "")
    return f"command {r['id']} ({who}) at {r['node']}{where}"


class MagnaGraecia(SteppedRuleset):
    name = RULESET
    # `bellica magna-graecia <step>` is made from the steps declared in steps.py (bellica/commands/play.py)
    command_group = "magna-graecia"
    faction_flag = "--side"
    title = "Magna Graecia"
    round_word = "turn"
    status_before_start = False  # `status` before `start` is a step out of order (exit 3), as it always was
    example_campaign = "dionysian.duckdb"
    state_sql = STATE_SQL
    steps = tuple(Step(n, WORDS[n], phases[0]) for n, (phases, _who) in STEPS.items())
    order_seal = SEAL
    scenario_name = "magna-graecia"
    start_phase = "movement"
    read_scenario = staticmethod(read_board)

    def write_scenario(self, con, scenario, rules):  # the node-campaign path passes text instead
        raise BellicaError("Magna Graecia scenarios are written by write_scenario_file")

    def write_scenario_file(self, con, path) -> str:
        """Read the scenario file at ``path`` (its ``[rules]`` over the ruleset's) and, given a
        connection holding the node tables, check it against them and store it.  A summary in words."""
        import tomllib

        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
            overrides = tomllib.loads(text).get("rules")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
            raise InputError(f"{path}: cannot be read ({err}): give a Magna Graecia scenario file") from None
        rules = rules_with(overrides, source=f"{path.name} [rules]") if overrides else default_rules()
        if con is None:
            s = scenario_from_toml(text, source=str(path), known_types=rules.elements.types)
        else:
            s = write_scenario(con, text, str(path), rules)
        return f"{len(s.sides)} sides ({', '.join(s.order)}), {-s.year} BC"

    def factions(self, campaign) -> list[str]:
        return sorted(campaign.board.scenario.order)

    def start_state(self, campaign, seed: int):
        b = campaign.board
        return new_game(b.scenario, b.nmap, campaign.rules)

    def start_position(self, state: GameState) -> tuple[tuple[str, str], ...]:
        return (("stage", state.phasing),)  # the movement phase is taken side by side: the first side's

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        _state, told = self.start_state(campaign, seed)
        return list(told) + super().initial_events(campaign, seed=seed)

    row_words = {
        "mg_commands": _command_words,
        "mg_fleets": "{side}'s fleet at {node}, {np} NP",
        "mg_cities": lambda r: (f"{r['name']}: " + (f"{r['ally']}'s ally" if r["ally"] else "neutral")
                                + (f", held by {r['holder']}" if r["holder"] else "")),
        "mg_sieges": "siege of {node} by {besieger} ({rolls} fall rolls)",
        "mg_game": "{key} = {value}",
        "mg_orders": "{side} writes its second-day order at {node}",
    }
    drop_words = {"mg_commands": "command {id} is gone", "mg_fleets": "{side}'s fleet is gone",
                  "mg_sieges": "the siege of {node} is over"}

    def choices(self, campaign, viewer: str | None, action, param):
        """What a side's (or the umpire's) page offers: its own commands' numbers (a city's beaten
        command for the umpire), the places of the map, the neutral cities to attack, the nodes
        where a battle or siege stands, a battle's sides for its winner."""
        from .storage import state_of as stored_state

        if not campaign.has_state():
            return super().choices(campaign, viewer, action, param)
        state = stored_state(campaign.snapshot())
        mine = [c.id for c in state.commands if viewer is None or state.owner(c) == viewer]
        battles = [b.node for b in state.battles]
        nodes = {"attack-city": [n for n, city in sorted(state.cities.items()) if city.ally is None],
                 "siege": battles, "defence": battles, "result": battles, "second-day": battles,
                 "fleet-battle": battles, "sally": [s.node for s in state.sieges]}
        offered = {"command": mine, "commands": mine, "giver": mine, "taker": mine,
                   "path": sorted(campaign.board.nmap.places), "open_paths": sorted(campaign.board.nmap.places),
                   "node": nodes.get(action.name, sorted(campaign.board.nmap.places))}.get(param.name)
        if action.name == "result" and param.name == "winner":
            offered = sorted(campaign.board.scenario.order) + ["none"]
        return offered if offered is not None else super().choices(campaign, viewer, action, param)

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_decision(campaign, snap)

    # --- one step (the core's runner: SteppedRuleset.take_step) ---

    state_keys = {"mg_game": _GAME_KEYS}

    def check_step(self, campaign, snap: Snapshot, name: str, actor: str | None) -> None:
        _check_position(campaign, snap, name)

    def state_of(self, campaign, snap: Snapshot) -> GameState:
        return state_of(snap)

    def step_time(self, snap: Snapshot, state: GameState) -> tuple[int, str]:
        return state.turn, state.phase

    def dice_of(self, campaign, snap: Snapshot, entered) -> Dice:
        return _dice(snap)  # the dice rolled at the table are the mg_rolls rows (`roll`)

    def dice_events(self, dice: Dice, state: GameState, rnd: int, phase: str) -> list[Event]:
        return _dice_event(rnd, phase, dice)

    def position_events(self, campaign, snap: Snapshot, out, rnd: int, phase: str) -> list[Event]:
        return [] if out.state is None else _position(rnd, phase, out.state, snap, campaign.rules)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name not in STEPS:
            raise BellicaError(f"ruleset {self.name} has no step {name!r}")
        return play(campaign, name, arg)

    # --- the declared steps (steps.py) as the front ends offer and tell them ---------------------------

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        """Whether ``viewer`` (None: the umpire) may take ``action`` now: the step's phase, and who
        gives it (:data:`STEPS`): the phasing side, a defending side, a side of an undecided
        battle, a beaten command's or fleet's owner, the umpire."""
        if snap.campaign("phase") in (None, OVER) or snap.campaign("winner"):
            return False
        state = state_of(snap)
        step = "end_movement" if action.name == "next" and state.phase == "movement" else (
            "end_turn" if action.name == "next" else action.machine_step)
        if step not in STEPS:
            return False
        phases, who = STEPS[step]
        if state.phase not in phases:
            return False
        if viewer is None:
            return _umpire_may(state, step, who)
        return _side_may(state, step, who, viewer, snap)

    def said(self, campaign, events: Sequence, viewer: str | None) -> list[str]:
        """What a step tells whoever took it: every event but the bookkeeping (the step's own
        words as a heading), as the table plays it; another viewer reads it sealed as the log is."""
        taker = next((((e.data.get("input") or {}).get("side")) for e in events if e.kind == "step"), None)
        if viewer is not None and taker != viewer:
            return super().said(campaign, events, viewer)
        quiet = {"put_row", "drop_row", "set_campaign", "put_note"}
        return [f"== {e.text}" if e.kind == "step" else e.text for e in events if e.kind not in quiet]

    def status_lines(self, status: Mapping) -> list[str]:
        if not status.get("started", True):
            return [f"{status['title']}: not started: `bellica magna-graecia start CAMPAIGN`"]
        return view_lines(status)


from bellica.engine.core.players import with_bots  # noqa: E402  (its bots: engine/magna_graecia/bots.py, docs/bots.md)

MAGNA_GRAECIA = register(with_bots(MagnaGraecia, "bellica.engine.magna_graecia.bots")())
