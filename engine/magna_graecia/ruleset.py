"""Magna Graecia as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (:mod:`~bellica.engine.magna_graecia.actions` and the modules it calls) stay as
they are; this module keeps their :class:`~bellica.engine.magna_graecia.model.GameState` in the
campaign file's ``mg_*`` tables (``sql/state.sql``) and runs every action as a *step* of the
core, one DuckDB transaction each.  The campaign's position: ``round`` = the campaign turn,
``phase`` = ``movement`` / ``battles`` / ``over``, ``stage`` = the phasing side.

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

import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Mapping, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.names import matches as _match
from bellica.engine.core.machine import Step, StepRefused, position_of
from bellica.engine.core.ruleset import register
from bellica.engine.core.sealed import OrderSeal
from bellica.engine.core.stepped import (StepInput, StepOutcome, SteppedRuleset, create_scenario_tables, scenario_tables,
                                        snapshot_of, store_rules)
from bellica.engine.core.stepped import set_campaign as _set
from bellica.engine.core.stepped import step_event as _marker
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.files import whole_number

from . import actions as actions_mod
from .battles import CHOICES, DEFENCES, camps
from .dice import Dice
from .model import Battle, CityState, Command, Fleet, GameState, Link, NodeMap, Place, Retreat, Salvage, SideState, Siege
from .movement import reachable, reachable_by_sea
from .rules import RULESET, Rules, default_rules, rules_with
from .scenario import Scenario, scenario_from_toml
from .turn import new_game
from .victory import standings, victory_points

__all__ = ["Board", "MAGNA_GRAECIA", "MagnaGraecia", "STEPS", "SCENARIO_SQL", "STATE_SQL", "VIEWS_SQL",
           "install_views", "next_decision", "play", "read_board", "state_of", "view", "write_scenario"]

SQL = Path(__file__).with_name("sql")
STATE_SQL = SQL / "state.sql"
SCENARIO_SQL = SQL / "scenario.sql"
VIEWS_SQL = SQL / "views.sql"

OVER = "over"
#: step -> (phases it runs in, who gives it: "phasing", "defender", "phasing or defender", "owner", "any side",
#: "umpire")
STEPS: Mapping[str, tuple[tuple[str, ...], str]] = {
    "move": (("movement",), "phasing"), "exchange": (("movement",), "phasing"), "embark": (("movement",), "phasing"),
    "disembark": (("movement",), "phasing"), "sail": (("movement",), "phasing"), "shelter": (("movement",), "phasing"),
    "attack_city": (("movement", "battles"), "phasing or defender"), "end_movement": (("movement",), "phasing"),
    "defence": (("battles",), "defender"), "siege": (("battles",), "phasing or defender"),
    "sally": (("battles",), "phasing"),
    "result": (("battles",), "umpire"), "second_day": (("battles",), "any side"),
    "fleet_battle": (("battles",), "umpire"), "retreat": (("battles",), "owner"),
    "retreat_fleet": (("battles",), "owner"), "end_turn": (("battles",), "phasing"),
    "agree_end": (("movement", "battles"), "umpire"), "roll": (("movement", "battles"), "umpire"),
}
#: step -> its words in a refusal ("cannot <words>: ...")
WORDS = {"move": "move", "exchange": "exchange elements", "embark": "embark", "disembark": "disembark",
         "sail": "sail", "shelter": "shelter the fleet", "attack_city": "attack the city", "end_movement": "end the movement",
         "defence": "choose the defence", "siege": "lay siege", "sally": "sally", "result": "enter the result",
         "second_day": "write a second-day order", "fleet_battle": "fight the fleets", "retreat": "retreat",
         "retreat_fleet": "retreat the fleet", "end_turn": "end the turn", "agree_end": "end the season",
         "roll": "enter a die"}
#: our step -> the engine action it runs (actions.ACTIONS)
_ENGINE = {"agree_end": "end_by_agreement", "siege": "siege", "end_turn": "end_turn"}
_GAME_KEYS = ("scenario", "year", "turn", "order", "current", "phase", "next_id", "capital_rule", "alliances")
_DERIVED = ("mg_game", "mg_sides", "mg_commands", "mg_fleets", "mg_cities", "mg_sieges", "mg_battles", "mg_retreats",
            "mg_salvage")


# --- the board: the node tables and the stored scenario ---------------------------------------------


class Board:
    """The static campaign: the scenario (sides, armies) and the node map of its year."""

    def __init__(self, scenario: Scenario, nmap: NodeMap, positions: Mapping[str, tuple[float, float]]):
        self.scenario = scenario
        self.nmap = nmap
        self.positions = positions

    @property
    def nations(self) -> tuple[str, ...]:  # the factions (SteppedRuleset.factions)
        return self.scenario.order


def node_map_of(con, year: int) -> tuple[NodeMap, dict[str, tuple[float, float]]]:
    """The node map of ``year`` from the campaign's node tables (places, their years, coasts, walls,
    neutral commands; land and sea paths) and each place's (lon, lat)."""
    have = scenario_tables(con)
    if not {"nodes", "node_paths"} <= have:
        raise InputError("this campaign file has no node tables (nodes, node_paths): make it with "
                         "`bellica campaign new --scenario magna-graecia/<name>`")
    y = int(year)
    places, pos = {}, {}
    for name, coastal, fortified, commands, first, last, lon, lat in con.execute(
            "SELECT name, coastal, fortified, commands, from_year, until_year, lon, lat FROM nodes ORDER BY name").fetchall():
        p = Place(name, bool(coastal), bool(fortified), int(commands or 0), first, last)
        if p.stands(y):
            places[name] = p
            pos[name] = (float(lon), float(lat))
    links = []
    for a, b, kind, first, last in con.execute(
            "SELECT a, b, kind, from_year, until_year FROM node_paths ORDER BY a, b, kind").fetchall():
        if a in places and b in places and (first is None or first <= y) and (last is None or y <= last):
            links.append(Link(a, b, kind))
    return NodeMap(places, tuple(links)), pos


def write_scenario(con, text: str, source: str, rules: Rules) -> Scenario:
    """Check the scenario file's ``text`` against the campaign's node tables and store it with the
    merged ``rules`` (``con``: a campaign file being made, its node tables written)."""
    import tomllib

    year = tomllib.loads(text).get("scenario", {}).get("year")
    if not isinstance(year, int) or isinstance(year, bool):
        raise InputError(f"{source} [scenario] year = {year!r}: give the year as a negative number BC, e.g. -397")
    nmap, _pos = node_map_of(con, year)
    scenario = scenario_from_toml(text, source=source, known_types=rules.elements.types, places=nmap.places)
    new_game(scenario, nmap, rules)  # every side set up, or one line saying why not
    create_scenario_tables(con, SCENARIO_SQL.read_text())
    con.executemany("INSERT INTO mg_scenario VALUES (?, ?)",
                    [("name", scenario.name), ("title", scenario.title), ("year", str(scenario.year)),
                     ("source", source), ("toml", text)])
    store_rules(con, rules)
    return scenario


def read_board(con, name: str = "") -> Board:
    """The :class:`Board` a campaign file stores."""
    if "mg_scenario" not in scenario_tables(con):
        raise InputError("this campaign file has no Magna Graecia scenario (mg_scenario): make it with "
                         "`bellica campaign new --scenario magna-graecia/<name>`")
    meta = dict(con.execute("SELECT key, value FROM mg_scenario").fetchall())
    scenario = scenario_from_toml(meta["toml"], source=meta.get("source", "mg_scenario"))
    nmap, pos = node_map_of(con, scenario.year)
    return Board(scenario, nmap, pos)


def install_views(con) -> None:
    """Create (or replace) the Magna Graecia views (mg_reach, mg_fleet_reach, mg_node_counters, ...)."""
    from bellica.geo.spatialdb import run_sql_file

    run_sql_file(con, VIEWS_SQL)


# --- the state as rows, and back --------------------------------------------------------------------

_LISTS = (("mg_commands", "commands", Command), ("mg_fleets", "fleets", Fleet), ("mg_sieges", "sieges", Siege),
          ("mg_battles", "battles", Battle), ("mg_retreats", "retreats", Retreat), ("mg_salvage", "salvage", Salvage))
_RENAME = {"by": "by_side", "out": "left_game"}
_JSON = {"elements", "carrying", "defenders", "open_paths", "capitals_captured"}


def _row(obj, extra: Mapping) -> dict:
    out = dict(extra)
    for f in fields(obj):
        v = getattr(obj, f.name)
        if f.name in _JSON:
            v = json.dumps(list(v) if isinstance(v, tuple) else dict(v))
        out[_RENAME.get(f.name, f.name)] = v
    return out


def _obj(cls, row: Mapping):
    kw = {}
    for f in fields(cls):
        v = row.get(_RENAME.get(f.name, f.name))
        if f.name in _JSON:
            v = json.loads(v) if v else ([] if f.name != "elements" else {})
            v = tuple(v) if isinstance(v, list) else v
        elif isinstance(f.default, bool):
            v = bool(v)
        if v is None and f.name in ("left_game", "out"):
            v = ""
        kw[f.name] = v
    return cls(**kw)


def state_rows(board: Board, state: GameState) -> dict[str, dict[tuple, dict]]:
    out: dict[str, dict[tuple, dict]] = {}
    game = {"scenario": state.scenario, "year": state.year, "turn": state.turn, "order": json.dumps(list(state.order)),
            "current": state.current, "phase": state.phase, "next_id": state.next_id, "capital_rule": state.capital_rule,
            "alliances": json.dumps([list(p) for p in state.alliances])}
    out["mg_game"] = {(k,): {"key": k, "value": str(v)} for k, v in game.items()}
    out["mg_sides"] = {(s.name,): _row(s, {"ord": i}) for i, s in enumerate(state.sides.values())}
    out["mg_cities"] = {(c.name,): _row(c, {"ord": i}) for i, c in enumerate(state.cities.values())}
    keys = {"mg_commands": lambda x, i: (x.id,), "mg_fleets": lambda x, i: (x.side,),
            "mg_sieges": lambda x, i: (x.node,)}
    for table, attr, _cls in _LISTS:
        key = keys.get(table, lambda x, i: (i,))  # battles, retreats, salvage: by their place in the list
        out[table] = {key(x, i): _row(x, {"ord": i}) for i, x in enumerate(getattr(state, attr))}
    return out


def _dicts(snap: Snapshot, table: str) -> list[dict]:
    names = MAGNA_GRAECIA.schema.tables[table].column_names
    rows = snap.tables[table].values()
    return sorted((dict(zip(names, r)) for r in rows), key=lambda d: d.get("ord", 0))


def state_of(snap: Snapshot) -> GameState:
    """The :class:`GameState` the stored tables hold."""
    game = {k[0]: row[1] for k, row in snap.tables["mg_game"].items()}
    sides = {}
    for d in _dicts(snap, "mg_sides"):
        s = _obj(SideState, d)
        sides[s.name] = s
    cities = {d["name"]: _obj(CityState, d) for d in _dicts(snap, "mg_cities")}
    lists = {attr: tuple(_obj(cls, d) for d in _dicts(snap, table)) for table, attr, cls in _LISTS}
    return GameState(scenario=game["scenario"], year=int(game["year"]), turn=int(game["turn"]),
                     order=tuple(json.loads(game["order"])), sides=sides, cities=cities,
                     alliances=tuple(tuple(p) for p in json.loads(game["alliances"])), current=int(game["current"]),
                     phase=game["phase"], next_id=int(game["next_id"]), capital_rule=game["capital_rule"], **lists)


# --- sealed second-day orders ----------------------------------------------------------------------


def _is_order(kind: str, data: Mapping) -> bool:
    if kind == "step":
        return data.get("step") == "second_day"
    return kind == "put_row" and data.get("table") == "mg_orders"


def _order_fields(data: Mapping) -> Mapping:
    return data.get("input") or data.get("row") or {}


def _opened(rnd: int, snap: Snapshot):
    """An order is open once no order of its turn is still waiting (mg_orders holds only those)."""
    waiting = any(int(k[0]) == int(rnd) for k in snap.tables["mg_orders"])
    return frozenset({"step", "table"}) if waiting else None


#: A side's steps whose input names its elements (another side reads only that the step was taken).
_COMPOSITION_STEPS = ("exchange", "embark", "disembark")


class MagnaGraeciaSeal(OrderSeal):
    """The core's :class:`OrderSeal` with what a side may not read: besides the second-day orders
    still sealed, every outcome of the rules (rows, dice, battles, recoveries), whose words and
    data name the sides' elements and naval points, and the element lists of another side's
    exchanges and embarkations.  A side reads the steps taken (where counters went, in the open
    on the table's map); the umpire (``viewer`` None) reads everything but unopened orders.
    One rule for every reader: ``bellica log --faction``, the web app's log, an export."""

    def hides(self, viewer, kind, data, snap) -> bool:
        if super().hides(viewer, kind, data, snap):
            return True
        if viewer is None:
            return False
        if kind != "step":
            return True
        return data.get("step") in _COMPOSITION_STEPS and (data.get("input") or {}).get("side") not in (None, viewer)


def _public(data: Mapping) -> dict:
    """What a hidden event still shows: the step, whose, when and where (never a choice or elements)."""
    fields = _order_fields(data)
    return {**({"step": data["step"]} if "step" in data else {}),
            **{k: fields[k] for k in ("side", "turn", "node") if k in fields}}


def _sealed_text(data: Mapping) -> str:
    fields = _order_fields(data)
    if _is_order("step" if "step" in data else "put_row", data):
        return f"{fields.get('side')} writes its sealed second-day order for {fields.get('node')}"
    if data.get("step") in _COMPOSITION_STEPS:
        return f"{fields.get('side')} {data['step']}s (its elements are its own)"
    return "an outcome of the rules (hidden: it names the sides' forces)"


SEAL = MagnaGraeciaSeal(
    is_order=_is_order,
    round=lambda d: int(_order_fields(d).get("turn", 0)),
    owner=lambda d, snap: _order_fields(d).get("side"),
    carried=lambda d: frozenset(d),
    opened=_opened,
    public=_public,
    text=_sealed_text,
)


# --- the ruleset -----------------------------------------------------------------------------------


class MagnaGraecia(SteppedRuleset):
    name = RULESET
    play_command = "bellica magna-graecia"
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
    rules_class = Rules
    read_scenario = staticmethod(read_board)
    state_rows = staticmethod(state_rows)
    install_views = staticmethod(install_views)
    default_rules = staticmethod(default_rules)
    rules_with = staticmethod(rules_with)

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

    def start_snapshot(self, campaign, *, seed: int) -> Snapshot:
        state, _told = self.start_state(campaign, seed)
        position = (("round", "1"), ("phase", "movement"), ("stage", state.phasing), ("seed", str(seed)))
        return snapshot_of(self.schema, position, state_rows(campaign.board, state))

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        _state, told = self.start_state(campaign, seed)
        return list(told) + super().initial_events(campaign, seed=seed)

    def describe_row(self, t: str, r: Mapping) -> str | None:
        if t == "mg_commands":
            who = r["side"] or f"{r['city']}'s own"
            where = " aboard" if r["aboard"] else (" inside the walls" if r["in_city"] else "")
            return f"command {r['id']} ({who}) at {r['node']}{where}"
        if t == "mg_fleets":
            return f"{r['side']}'s fleet at {r['node']}, {r['np']} NP"
        if t == "mg_cities":
            return f"{r['name']}: " + (f"{r['ally']}'s ally" if r["ally"] else "neutral") + \
                (f", held by {r['holder']}" if r["holder"] else "")
        if t == "mg_sieges":
            return f"siege of {r['node']} by {r['besieger']} ({r['rolls']} fall rolls)"
        if t == "mg_game":
            return f"{r['key']} = {r['value']}"
        if t == "mg_orders":
            return f"{r['side']} writes its second-day order at {r['node']}"
        return None

    def describe_drop(self, t: str, k: Mapping) -> str | None:
        if t == "mg_commands":
            return f"command {k['id']} is gone"
        if t == "mg_fleets":
            return f"{k['side']}'s fleet is gone"
        if t == "mg_sieges":
            return f"the siege of {k['node']} is over"
        return None

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

    def open_actions(self, campaign, viewer: str | None) -> list:
        """The generic answer, and for the umpire also the sides' steps it may take for them
        (``umpire_too``: a defence, a retreat) when one is due."""
        found = super().open_actions(campaign, viewer)
        if viewer is None and campaign.has_state():
            snap = campaign.snapshot()
            found += [a for a in self.actions() if a.umpire_too and self.may_take(campaign, snap, a, None)]
        return found

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


MAGNA_GRAECIA = register(MagnaGraecia())


# --- where the campaign stands -----------------------------------------------------------------------


def _poss(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def next_decision(c, snap: Snapshot) -> str:
    """What comes next, in words naming the `bellica magna-graecia` command."""
    if snap.campaign("phase") == OVER or snap.campaign("winner"):
        return f"the season is over ({snap.campaign('winner') or 'ended'}): `bellica magna-graecia status CAMPAIGN`"
    state = state_of(snap)
    side = state.phasing
    if state.phase == "movement":
        return (f"{side} moves: `bellica magna-graecia move CAMPAIGN --side {side} COMMAND NODE...` (or sail, embark, "
                f"exchange, ...), then `bellica magna-graecia end-movement CAMPAIGN --side {side}`")
    for b in state.battles:
        if b.kind == "naval":
            return f"the fleets at {b.node} fight: `bellica magna-graecia fleet-battle CAMPAIGN {b.node}`"
        if b.undecided:
            waiting = [s for s in _second_day_sides(state, b)
                       if (state.turn, b.node, b.day, s) not in {k for k in snap.tables["mg_orders"]}]
            return (f"the battle at {b.node} is undecided: each side writes stay or retire, sealed "
                    f"(`bellica magna-graecia second-day CAMPAIGN {b.node} --side S stay|retire`); waiting for "
                    + ", ".join(waiting))
        if not b.defence:
            return (f"battle at {b.node}: the defenders choose their defence (`bellica magna-graecia defence CAMPAIGN "
                    f"{b.node} forward|central|rear --side S`)" + (", or they go inside the walls for a siege (`siege`)"
                                                                  if _fortified(c, b.node) else ""))
        return (f"battle at {b.node}: enter the table's result: `bellica magna-graecia result CAMPAIGN {b.node} "
                f"--winner SIDE|none [--loss COMMAND:ELEMENT=N ...]`")
    if state.retreats:
        r = state.retreats[0]
        if r.command:
            return f"command {r.command} must retreat: `bellica magna-graecia retreat CAMPAIGN {r.command} NODE...`"
        return f"{_poss(r.fleet_side)} fleet must retreat: `bellica magna-graecia retreat-fleet CAMPAIGN --side {r.fleet_side} NODE...`"
    return f"{side} ends its turn: `bellica magna-graecia end-turn CAMPAIGN --side {side}`"


def _defending(state: GameState, side: str, b: Battle) -> bool:
    return side in b.defenders or any(state.friends(side, d) for d in b.defenders if d in state.sides)


def _umpire_may(state: GameState, step: str, who: str) -> bool:
    """The umpire's steps, and the sides' it may take for them (a defence, a retreat), when one is due."""
    land = [b for b in state.battles if b.kind == "land"]
    if step == "result":
        return any(b.defence and not b.undecided for b in land)
    if step == "fleet_battle":
        return any(b.kind == "naval" for b in state.battles)
    if step == "defence":
        return any(not b.defence and not b.undecided for b in land)
    if step == "retreat":
        return any(r.command for r in state.retreats)
    if step == "retreat_fleet":
        return any(r.fleet_side for r in state.retreats)
    return who == "umpire"


def _side_may(state: GameState, step: str, who: str, side: str, snap: Snapshot) -> bool:
    """A side's steps: whether ``side`` gives ``step`` now (the rules may still refuse its input)."""
    phasing = side == state.phasing
    land = [b for b in state.battles if b.kind == "land"]
    if step == "end_turn":
        return phasing and not state.battles and not state.retreats
    if step == "sally":
        return phasing and any(s.besieger != side and any(c.side == side and c.node == s.node for c in state.commands)
                               for s in state.sieges)
    if step == "defence":
        return any(not b.defence and not b.undecided and _defending(state, side, b) for b in land)
    if step == "siege":
        return any(not b.defence and (phasing or _defending(state, side, b)) for b in land)
    if step == "attack_city" and state.phase == "battles":
        return phasing or any(_defending(state, side, b) for b in land)
    if step == "second_day":
        written = {k for k in snap.tables["mg_orders"]}
        return any(b.undecided and side in _second_day_sides(state, b)
                   and (state.turn, b.node, b.day, side) not in written for b in land)
    if step == "retreat":
        return any(r.command and state.owner(state.command(r.command)) == side for r in state.retreats)
    if step == "retreat_fleet":
        return any(r.fleet_side == side for r in state.retreats)
    return who in ("phasing", "phasing or defender") and phasing


def _fortified(c, node: str) -> bool:
    p = c.board.nmap.places.get(node)
    return bool(p and p.fortified)


def _second_day_sides(state: GameState, b: Battle) -> list[str]:
    _att, dfn = camps(state, b)
    return sorted({b.attacker} | {state.owner(c) for c in dfn if c.side})


# --- names as players type them --------------------------------------------------------------------




def side_named(board: Board, name: str, where: str = "--side") -> str:
    options = list(board.scenario.order)
    found = _match(name, options)
    if len(found) != 1:
        raise InputError(f"{where} {name!r} is no side of this campaign: use one of {', '.join(options)}")
    return found[0]


def node_named(board: Board, name: str, where: str = "node") -> str:
    options = sorted(board.nmap.places)
    found = _match(name, options)
    if len(found) != 1:
        raise InputError(f"{where} {name!r} is not a place of this campaign's map: use one of {', '.join(options)}")
    return found[0]


def _command_id(state: GameState, v: Any, where: str = "command") -> int:
    try:
        cid = int(v)
    except (TypeError, ValueError):
        raise InputError(f"{where} {v!r}: give a command's number (`bellica magna-graecia status` lists them)") from None
    if not any(c.id == cid for c in state.commands):
        raise InputError(f"{where} {cid} is not in play: give one of {', '.join(str(c.id) for c in state.commands)}")
    return cid


def _resolve(board: Board, state: GameState, step: str, arg: Mapping) -> dict:
    """The input with every name spelled as the campaign spells it (what the log records); bad input: InputError."""
    a = {k: v for k, v in arg.items() if v is not None}
    if a.get("side"):
        a["side"] = side_named(board, a["side"])
    for k in ("node",):
        if k in a:
            a[k] = node_named(board, a[k])
    if "path" in a:
        if not a["path"] and step != "retreat":
            raise InputError(f"{step}: give the nodes to enter, in order")
        a["path"] = [node_named(board, n, "path node") for n in a["path"]]
    for k in ("command", "from", "to"):
        if k in a:
            a[k] = _command_id(state, a[k], k)
    if "commands" in a:
        if not a["commands"]:
            raise InputError(f"{step}: give at least one command")
        a["commands"] = [_command_id(state, x) for x in a["commands"]]
    if step == "exchange":
        els = a.get("elements") or {}
        if not els or any(not isinstance(n, int) or n < 1 for n in els.values()):
            raise InputError("exchange: give elements as ELEMENT=N with N >= 1")
    if step == "defence" and a.get("defence") not in DEFENCES:
        raise InputError(f"defence {a.get('defence')!r}: give one of {', '.join(DEFENCES)}")
    if step == "second_day" and a.get("choice") not in CHOICES:
        raise InputError(f"second day order {a.get('choice')!r}: give one of {', '.join(CHOICES)}")
    if step == "result":
        w = a.get("winner")
        a["winner"] = None if w in (None, "", "none", "undecided") else side_named(board, w, "--winner")
        losses = {}
        for cid, els in (a.get("losses") or {}).items():
            cid = _command_id(state, cid, "loss command")
            for e, n in els.items():
                if not isinstance(n, int) or n < 1:
                    raise InputError(f"loss {cid}:{e}={n!r}: give a whole number of elements >= 1")
            losses[str(cid)] = dict(els)
        a["losses"] = losses
        if a.get("open_paths") is not None:
            a["open_paths"] = [node_named(board, n, "open path") for n in a["open_paths"]]
        else:
            a.pop("open_paths", None)
    if step == "fleet_battle":
        if a.get("retreat"):
            a["retreat"] = side_named(board, a["retreat"], "--retreat")
        else:
            a.pop("retreat", None)
    if step == "roll":
        label, value = a.get("label"), a.get("value")
        if isinstance(value, str) and whole_number(value) is not None:  # ASCII digits only: "²" is no face
            value = a["value"] = whole_number(value)
        if not isinstance(label, str) or label.count("/") < 2:
            raise InputError(f"roll label {label!r}: give KIND/TURN/... as the dice are labelled "
                             "(alliance/3/Gela/Syracuse, siege/4/Motya/Syracuse; engine/magna_graecia/README.md)")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise InputError(f"roll {label} = {value!r}: give a whole number from 1 to 6")
        a["label"] = label.strip().strip("/")
    return a


def _check_turn(state: GameState, step: str, a: Mapping) -> None:
    """Out of turn: StepRefused (exit 3)."""
    _phases, who = STEPS[step]
    side = a.get("side")
    if who == "phasing":
        if not side:
            raise InputError(f"{step}: give --side (the phasing side, {state.phasing})")
        if side != state.phasing:
            raise StepRefused(f"cannot {WORDS[step]}: it is {_poss(state.phasing)} turn, not {_poss(side)}")
    elif who == "defender" or (who == "phasing or defender" and side != state.phasing):
        if who != "defender" and not side:
            raise InputError(f"{step}: give --side (the phasing side, {state.phasing}, or a defending side)")
        b = state.battle_at(a["node"])
        if side and b is not None and side not in b.defenders and not any(state.friends(side, d) for d in b.defenders
                                                                 if d in state.sides):
            raise StepRefused(f"cannot {WORDS[step] if who != 'defender' else 'choose the defence'} at {a['node']}: "
                              f"{side} is not defending there")
    elif who == "owner" and side and step == "retreat":  # retreat_fleet: --side names the fleet
        owner = state.owner(state.command(a["command"]))
        if owner != side:
            raise StepRefused(f"cannot retreat command {a['command']}: it is {_poss(owner or 'a neutral city')}, "
                              f"not {_poss(side)}")
    elif who == "any side" and not side:
        raise InputError(f"{step}: give --side")


# --- the steps ----------------------------------------------------------------------------------------


def _dice(snap: Snapshot) -> Dice:
    entered = {label: int(v) for label, v in snap.tables["mg_rolls"].values()}
    return Dice(int(snap.campaign("seed")), entered)


def _dice_event(rnd: int, phase: str, dice: Dice) -> list[Event]:
    if not dice.log:
        return []
    items = [r.as_data() for r in dice.log]
    words = "; ".join(f"{r.key} {r.value} ({'entered' if r.entered else 'drawn'})" for r in dice.log)
    return [Event(rnd, phase, "dice", {"rolls": items}, f"dice: {words}")]


def _position(rnd: int, phase: str, state: GameState, snap: Snapshot, rules: Rules) -> list[Event]:
    out = []
    where = OVER if state.phase == OVER else state.phase
    stage = None if where == OVER else state.phasing
    if str(state.turn) != snap.campaign("round"):
        out.append(_set(rnd, phase, "round", state.turn))
    if where != snap.campaign("phase"):
        out.append(_set(rnd, phase, "phase", where))
    if stage != snap.campaign("stage"):
        out.append(_set(rnd, phase, "stage", stage))
    if where == OVER and not snap.campaign("winner"):
        order = standings(state, rules)
        winner = order[0][0] if len(order) == 1 or order[0][1] > order[1][1] else "draw"
        out.append(_set(rnd, phase, "winner", winner))
    return out


def play(c, step: str, arg: Mapping | None = None) -> list[Event]:
    """Run one step (see the module doc) with its input in one transaction; the events it logged."""
    if step not in STEPS:
        raise InputError(f"no Magna Graecia step {step!r}: give one of {', '.join(STEPS)}")
    arg = dict(arg or {})
    if not c.has_state():
        raise StepRefused(f"cannot {WORDS[step]}: the campaign has not started: `bellica magna-graecia start {c.path}`")
    return c.ruleset.take_step(c, step, lambda i: _rule(c, step, arg, i))


def _check_position(c, snap: Snapshot, step: str) -> None:
    """Refuse ``step`` unless the season is on and in one of the step's phases."""
    if snap.campaign("phase") is None:
        raise StepRefused(f"cannot {WORDS[step]}: the campaign has not started: `bellica magna-graecia start CAMPAIGN`")
    pos = position_of(snap)
    phases, _who = STEPS[step]
    if pos.winner is not None or pos.phase == OVER:
        raise StepRefused(f"cannot {WORDS[step]}: the season is over")
    if pos.phase not in phases:
        raise StepRefused(f"cannot {WORDS[step]}: turn {pos.round} is in the {pos.phase} phase; "
                          + next_decision(c, snap).replace("CAMPAIGN", str(c.path)))


def _rule(c, step: str, arg: dict, i: StepInput) -> StepOutcome:
    """The step's input resolved against the board and checked against the turn, then the rules."""
    snap, board, state, rnd, phase, dice = i.snap, i.board, i.state, i.round, i.phase, i.dice
    a = _resolve(board, state, step, arg)
    _check_turn(state, step, a)
    extra: list[Event] = []
    new, told = state, []
    if step == "roll":
        if a["label"] in {k[0] for k in snap.tables["mg_rolls"]}:
            raise StepRefused(f"roll {a['label']} has been entered already")
        extra = [Event(rnd, phase, "put_row", {"table": "mg_rolls", "row": {"label": a["label"], "value": a["value"]}},
                       f"die {a['label']} = {a['value']} (rolled at the table)")]
        text = f"the umpire enters the die {a['label']}: {a['value']}"
    elif step == "second_day":
        a["turn"] = state.turn  # the seal's round
        new, told, extra, text = _second_day(c, snap, state, a, dice)
    else:
        try:
            new, told = actions_mod.act(state, board.nmap, i.rules, dice, _action(step, a, state))
        except StepRefused:
            raise
        except InputError as err:  # the rules refuse it: illegal now, not malformed
            raise StepRefused(f"cannot {WORDS[step]}: {err}") from None
        text = _words(step, a, state)
    return StepOutcome(_marker(rnd, phase, step, a, f"Turn {rnd}: {text}"), None if new is state else new, told, extra)


def _action(step: str, a: Mapping, state: GameState) -> dict:
    do = _ENGINE.get(step, step)
    drop = {"side"}
    if step == "attack_city" and a.get("side") and a.get("side") != state.phasing:
        a = {**a, "by": a["side"]}          # a defender attacking the city during the battle
    if step == "retreat_fleet":
        drop = set()
        a = {**a, "side": a.get("side") or next((r.fleet_side for r in state.retreats if r.fleet_side), "")}
    return {"do": do, **{k: v for k, v in a.items() if k not in drop}}


def _words(step: str, a: Mapping, state: GameState) -> str:
    side = a.get("side") or ""
    if step == "move":
        return f"{side} moves command {a['command']} to {' -> '.join(a['path'])}"
    if step == "sail":
        return f"{side} sails its fleet to {' -> '.join(a['path'])}"
    if step == "result":
        return f"the battle at {a['node']} is entered: " + (f"{a['winner']} wins" if a["winner"] else "undecided")
    if step in ("retreat",):
        return f"command {a['command']} retreats to {' -> '.join(a['path'])}"
    bits = ", ".join(f"{k} {v}" for k, v in sorted(a.items()) if k != "side")
    return f"{side + ' ' if side else ''}{WORDS[step]}" + (f" ({bits})" if bits else "")


def _second_day(c, snap: Snapshot, state: GameState, a: Mapping, dice: Dice):
    """One side's sealed order; when every side of the battle has written one, they are revealed together."""
    node, side, choice = a["node"], a["side"], a["choice"]
    b = state.battle_at(node)
    if b is None or not b.undecided:
        raise StepRefused(f"cannot write a second-day order at {node}: no undecided battle there")
    need = _second_day_sides(state, b)
    if side not in need:
        raise StepRefused(f"cannot write a second-day order at {node}: {side} did not fight there ({', '.join(need)} did)")
    key = (state.turn, node, b.day, side)
    if key in snap.tables["mg_orders"]:
        raise StepRefused(f"cannot write a second-day order at {node}: {side} has written one already")
    rnd, phase = state.turn, state.phase
    row = {"turn": state.turn, "node": node, "day": b.day, "side": side, "choice": choice}
    extra = [Event(rnd, phase, "put_row", {"table": "mg_orders", "row": row}, f"{side} writes its second-day order at {node}")]
    orders = {k[3]: r[4] for k, r in snap.tables["mg_orders"].items() if k[:3] == key[:3]}
    orders[side] = choice
    text = f"{side} writes its sealed second-day order for {node}"
    if set(need) - set(orders):
        return state, [], extra, text
    try:
        new, told = actions_mod.act(state, c.board.nmap, c.rules, dice,
                                    {"do": "second_day", "node": node, "orders": orders})
    except InputError as err:
        raise StepRefused(f"cannot reveal the second-day orders at {node}: {err}") from None
    extra = []  # the last order is never stored: its step and the revealing event carry it; the others' rows go
    for s in need:
        if s != side:
            extra.append(Event(rnd, phase, "drop_row", {"table": "mg_orders", "key": {"turn": state.turn, "node": node,
                                                                                   "day": b.day, "side": s}},
                               f"{s}'s order at {node} is opened"))
    return new, list(told), extra, text


# --- the players' view ---------------------------------------------------------------------------------


def _elements_text(cmd: Command) -> str:
    els = ", ".join(f"{n} {k}" for k, n in cmd.elements.items() if n)
    return (f"general {cmd.general}" if cmd.general else "leaderless") + (f"; {els}" if els else "")


def view(c, *, side: str | None = None) -> dict:
    """Where the campaign stands, as ``side`` may see it (None: the umpire): the turn, each side's
    standing, the counters (a side's own with their elements and fleets' NPs; the others' only
    as counters in a node), cities, sieges, battles and retreats due, what the phasing side can
    reach, the victory points and what comes next."""
    snap = c.snapshot()
    board = c.board
    viewer = side_named(board, side) if side else None
    state = state_of(snap)
    pos = position_of(snap)
    counters = []
    for cmd in state.commands:
        owner = state.owner(cmd)
        mine = viewer is None or (owner and state.friends(viewer, owner) and cmd.side == viewer)
        if cmd.aboard and not mine:
            continue  # aboard an enemy fleet: hidden with the fleet's load
        entry = {"node": cmd.node, "owner": owner or "", "city": cmd.city, "in_city": cmd.in_city}
        if mine:
            entry.update({"id": cmd.id, "side": cmd.side, "elements": dict(cmd.elements), "general": cmd.general,
                          "strength": cmd.element_count(), "mp_left": cmd.mp_left, "aboard": cmd.aboard,
                          "inherent": cmd.inherent})
        counters.append(entry)
    fleets = []
    for f in state.fleets:
        if viewer is None or f.side == viewer:
            fleets.append({"side": f.side, "node": f.node, "np": f.np, "carrying": list(f.carrying),
                           "sheltered": f.sheltered, "mp_left": f.mp_left})
        else:
            fleets.append({"side": f.side, "node": f.node})
    phasing = state.phasing
    reach = {}
    if state.phase == "movement" and (viewer is None or viewer == phasing):
        for cmd in state.commands:
            if cmd.side == phasing and cmd.mp_left:
                r = reachable(state, board.nmap, c.rules, cmd.id)
                if r:
                    reach[str(cmd.id)] = sorted(r)
        sea = reachable_by_sea(state, board.nmap, c.rules, phasing)
        if sea:
            reach["fleet"] = sorted(sea)
    waiting = []
    for b in state.battles:
        if b.undecided:
            written = {k[3] for k in snap.tables["mg_orders"] if k[0] == state.turn and k[1] == b.node and k[2] == b.day}
            waiting.append({"node": b.node, "written": sorted(written),
                            "waiting_for": [s for s in _second_day_sides(state, b) if s not in written]})
    vp = victory_points(state, c.rules)
    return {
        "scenario": board.scenario.name, "title": board.scenario.title, "year": state.year, "turn": state.turn,
        "turns": c.rules.game.turns, "phase": pos.phase, "phasing": None if pos.phase == OVER else phasing,
        "viewer": viewer, "winner": pos.winner,
        "sides": [{"side": s.name, "capital": s.capital, "playing": s.playing, "out": s.out,
                   "victory_points": vp.get(s.name, {}).get("total") if isinstance(vp.get(s.name), Mapping) else vp.get(s.name)}
                  for s in state.sides.values()],
        "alliances": sorted(sorted(p) for p in state.alliances),
        "cities": [{"city": x.name, "ally": x.ally, "holder": x.holder} for x in state.cities.values()],
        "counters": counters, "fleets": fleets,
        "sieges": [asdict(s) for s in state.sieges],
        "battles": [{"node": b.node, "kind": b.kind, "attacker": b.attacker, "defenders": list(b.defenders),
                     "base_edge": b.base_edge, "defence": b.defence, "day": b.day, "undecided": b.undecided,
                     "sally": b.sally}
                    for b in state.battles],
        "second_day": waiting,
        "retreats": [{"command": r.command, "fleet_side": r.fleet_side, "open_paths": list(r.open_paths)}
                     for r in state.retreats],
        "reach": reach,
        "next": next_decision(c, snap),
    }


def view_lines(v: Mapping) -> list[str]:
    """The view in words (``bellica magna-graecia status``)."""
    head = f"{v['title']}: turn {v['turn']} of {v['turns']}, {v['phase']}"
    if v["phasing"]:
        head += f", {v['phasing']} is phasing"
    if v["viewer"]:
        head += f" (view of {v['viewer']})"
    out = [head]
    for s in v["sides"]:
        out.append(f"  {s['side']}: capital {s['capital']}, " + (f"out ({s['out']})" if not s["playing"] else "playing")
                   + (f", {s['victory_points']} VP" if s["victory_points"] is not None else ""))
    by_node: dict[str, list[str]] = {}
    for x in v["counters"]:
        if "id" in x:
            where = " aboard" if x["aboard"] else (" inside" if x["in_city"] else "")
            who = x["side"] or f"{x['city']}'s own ({x['owner'] or 'neutral'})"
            els = ", ".join(f"{n} {k}" for k, n in x["elements"].items())
            by_node.setdefault(x["node"], []).append(f"#{x['id']} {who}{where}: {x['general'] or 'leaderless'}"
                                                     + (f" + {els}" if els else "") + f" [{x['mp_left']} MP]")
        else:
            by_node.setdefault(x["node"], []).append(f"a counter of {x['owner'] or x['city'] + ' (neutral)'}")
    for f in v["fleets"]:
        by_node.setdefault(f["node"], []).append(f"{_poss(f['side'])} fleet" + (f", {f['np']} NP" if "np" in f else ""))
    for node in sorted(by_node):
        out.append(f"  {node}: " + "; ".join(by_node[node]))
    for s in v["sieges"]:
        out.append(f"  siege of {s['node']} by {s['besieger']} since turn {s['started']} ({s['rolls']} fall rolls"
                   + (", disease" if s["disease"] else "") + ")")
    for b in v["battles"]:
        out.append(f"  {b['kind']} battle at {b['node']}: {b['attacker']} against {', '.join(b['defenders'])}"
                   + (f", base edge from {b['base_edge']}" if b["base_edge"] else "")
                   + (f", {b['defence']} defence" if b["defence"] else "") + (f", day {b['day']}" if b["day"] > 1 else "")
                   + (", undecided" if b["undecided"] else ""))
    for w in v["second_day"]:
        out.append(f"  second day at {w['node']}: written by {', '.join(w['written']) or 'nobody'}, waiting for "
                   f"{', '.join(w['waiting_for'])}")
    for r in v["retreats"]:
        out.append("  retreat owed: " + (f"command {r['command']}" if r["command"] else f"{_poss(r['fleet_side'])} fleet"))
    for k, nodes in v["reach"].items():
        out.append(f"  {'the fleet' if k == 'fleet' else 'command ' + k} can reach: {', '.join(nodes)}")
    out.append(f"next: {v['next']}")
    return out
