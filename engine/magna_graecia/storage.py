"""The Magna Graecia campaign's tables: the board read from the node tables and the stored
scenario file (:class:`Board`, :func:`node_map_of`, :func:`write_scenario`, :func:`read_board`),
the state as the ``mg_*`` rows of ``sql/state.sql`` and back (:func:`state_rows`,
:func:`state_of`), and the views (``sql/views.sql``: :func:`install_views`)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Mapping

from bellica.engine.core.rule_sql import views_installer
from bellica.engine.core.stepped import create_scenario_tables, scenario_tables, store_rules
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError

from .model import Battle, CityState, Command, Fleet, GameState, Link, NodeMap, Place, Retreat, Salvage, SideState, Siege
from .rules import Rules
from .scenario import Scenario, scenario_from_toml
from .turn import new_game

__all__ = ["Board", "SCENARIO_SQL", "STATE_SQL", "VIEWS_SQL", "install_views", "node_map_of", "read_board", "state_of",
           "state_rows", "write_scenario"]

SQL = Path(__file__).with_name("sql")
STATE_SQL = SQL / "state.sql"
SCENARIO_SQL = SQL / "scenario.sql"
VIEWS_SQL = SQL / "views.sql"
_GAME_KEYS = ("scenario", "year", "turn", "order", "current", "phase", "next_id", "capital_rule", "alliances")


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


#: Creates (or replaces) the Magna Graecia views (mg_reach, mg_fleet_reach, mg_node_counters, ...).
install_views = views_installer(VIEWS_SQL)


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
    from .ruleset import MAGNA_GRAECIA  # the registered plug-in's schema (ruleset.py imports this module)

    names = MAGNA_GRAECIA.schema.tables[table].column_names
    rows = snap.tables[table].values()
    return sorted((dict(zip(names, r)) for r in rows), key=lambda d: d.get("ord", 0))


#: The tables a :class:`GameState` is read from.
_STATE_TABLES = ("mg_game", "mg_sides", "mg_cities", *(table for table, _attr, _cls in _LISTS))
#: The last tables read and the state built from them (one entry).  A position's step checks, offers and
#: player view ask for its state many times (``may_take`` once per declared step: 18 builds where one
#: does); equal rows give an equal state, and a GameState is frozen, so the last one is handed out again.
_last: tuple = ((), None)


def state_of(snap: Snapshot) -> GameState:
    """The :class:`GameState` the stored tables hold."""
    global _last
    key = tuple(tuple(snap.tables[t].items()) for t in _STATE_TABLES)
    kept_key, kept = _last
    if kept is not None and kept_key == key:
        return kept
    state = _read_state(snap)
    _last = (key, state)
    return state


def _read_state(snap: Snapshot) -> GameState:
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
