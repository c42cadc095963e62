"""The Archidamian War as a bellica ruleset: two sides, one army each, sealed marches, one die per side.

Each year (a round) both sides give a sealed march (``bellica archidamian march``): their army
stays or crosses one border, with a dispatch in the general's words.  Nobody else reads it, the
umpire included, until the umpire resolves the year (``resolve``): both marches at once; armies
that end the year in the same province fight (a die each from the campaign's seed, plus the
army's strength, plus ``home_bonus`` for the province's holder; a tie is rolled again), the
beaten army loses ``loss`` strength and falls back to its capital; an army takes the province it
ends the year in unless beaten there.  A side holding the other's capital at a year's end wins, as
does the side whose enemy's army is gone; after ``years`` years with neither, the Peace of Nicias
(a draw).  The constants are ``rules.toml``, a scenario may override them.

The core gives the rest: the campaign file, the hash-chained log, transactions, replay and
re-adjudication, the command group built from ``steps.py``, exports, maps, the SQL console.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from bellica.datasets.rules import register_rules_file
from bellica.engine.core import rng
from bellica.engine.core.events import Event
from bellica.engine.core.machine import Step, StepRefused, position_of
from bellica.engine.core.names import matches
from bellica.engine.core.ruleset import register
from bellica.engine.core.rules import RuleSet
from bellica.engine.core.rules_loaders import rules_loaders
from bellica.engine.core.sealed import OrderSeal
from bellica.engine.core.stepped import (SteppedRuleset, create_scenario_tables, diff_events, scenario_tables,
                                        set_campaign, store_rules)
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError

HERE = Path(__file__).parent
NAME = "archidamian-war"
#: The year before Christ the campaign's first round is.
FIRST_YEAR = 431


# --- the rules constants (rules.toml, with a scenario's [rules] over them) ----------------------------

# bellica reads and checks this ruleset's rules file as it reads its own rulesets' (datasets/rules/):
# unknown keys, wrong types and values below [validation] are one line naming the key.
register_rules_file(NAME, HERE / "rules.toml")


@dataclass(frozen=True)
class Rules(RuleSet):
    """The merged rule constants: ``rules.years``, ``rules.die``, ``rules.home_bonus``, ``rules.loss``."""

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], name: str = NAME) -> "Rules":
        return cls(name, dict(values))

    def __getattr__(self, key: str) -> int:
        values = self.__dict__.get("values", {})
        if key.startswith("_") or key not in values:
            raise AttributeError(key)
        return values[key]


default_rules, rules_with, rules_from_file = rules_loaders(NAME, Rules.from_mapping)


# --- the scenario (a folder: provinces.toml, places.geojson) -------------------------------------------


@dataclass(frozen=True)
class Side:
    name: str
    capital: str
    army: str
    strength: int
    colour: str


@dataclass(frozen=True)
class Board:
    """The static scenario: sides, provinces (holder, town, note), borders, places."""

    name: str
    title: str
    sides: dict[str, Side]
    provinces: dict[str, dict]
    borders: dict[str, frozenset[str]]
    places: list[dict] = field(default_factory=list)

    @property
    def nations(self) -> dict[str, Side]:
        return self.sides


def _load_folder(folder: Path) -> tuple[Board, Mapping | None]:
    where = f"{folder.name}/provinces.toml"
    try:
        data = tomllib.loads((folder / "provinces.toml").read_text(encoding="utf-8"))
        places = json.loads((folder / "places.geojson").read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(f"{folder}: {e.strerror}: a scenario folder holds provinces.toml and places.geojson") from None
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{folder}: {e}: fix the file") from None
    head = data.get("scenario", {})
    provinces = {p["name"]: {"holder": p.get("holder"), "lon": float(p["lon"]), "lat": float(p["lat"]),
                             "note": p.get("note", "")} for p in data.get("province", [])}
    sides = {s["name"]: Side(s["name"], s["capital"], s["army"], int(s["strength"]), s.get("colour", "#808080"))
             for s in data.get("side", [])}
    if len(sides) != 2:
        raise InputError(f"{where}: give two [[side]] tables, not {len(sides)}")
    for s in sides.values():
        if s.capital not in provinces:
            raise InputError(f"{where} side {s.name}: capital {s.capital!r} is no [[province]]")
    for name, p in provinces.items():
        if p["holder"] is not None and p["holder"] not in sides:
            raise InputError(f"{where} province {name}: holder {p['holder']!r} is no [[side]]")
    adjacency: dict[str, set[str]] = {p: set() for p in provinces}
    for b in data.get("border", []):
        pair = b.get("between", [])
        if len(pair) != 2 or not set(pair) <= set(provinces) or pair[0] == pair[1]:
            raise InputError(f"{where} border {pair!r}: name two different provinces")
        adjacency[pair[0]].add(pair[1])
        adjacency[pair[1]].add(pair[0])
    towns = []
    for f in places.get("features", []):
        props, geom = f.get("properties", {}), f.get("geometry") or {}
        if geom.get("type") != "Point" or props.get("province") not in provinces:
            raise InputError(f"{folder.name}/places.geojson {props.get('name')!r}: give a Point in one of the provinces")
        lon, lat = geom["coordinates"][:2]
        towns.append({"name": props["name"], "province": props["province"], "kind": props.get("kind", "polis"),
                      "lon": float(lon), "lat": float(lat), "note": props.get("note", "")})
    board = Board(head.get("name", folder.name), head.get("title", folder.name), sides, provinces,
                  {p: frozenset(n) for p, n in adjacency.items()}, towns)
    return board, data.get("rules")


def write_scenario(con, board: Board, rules: Rules) -> None:
    create_scenario_tables(con, (HERE / "sql" / "scenario.sql").read_text())
    con.executemany("INSERT INTO ar_sides VALUES (?, ?, ?, ?, ?, ?)",
                    [(s.name, i, s.capital, s.army, s.strength, s.colour) for i, s in enumerate(board.sides.values())])
    con.executemany("INSERT INTO ar_provinces VALUES (?, ?, ?, ?, ?, ?)",
                    [(n, i, p["holder"], p["lon"], p["lat"], p["note"]) for i, (n, p) in enumerate(board.provinces.items())])
    con.executemany("INSERT INTO ar_borders VALUES (?, ?)",
                    sorted({tuple(sorted((a, b))) for a, ns in board.borders.items() for b in ns}))
    con.executemany("INSERT INTO ar_places VALUES (?, ?, ?, ?, ?, ?)",
                    [(t["name"], t["province"], t["kind"], t["lon"], t["lat"], t["note"]) for t in board.places])
    con.executemany("INSERT INTO ar_scenario VALUES (?, ?)", [("name", board.name), ("title", board.title)])
    store_rules(con, rules)


def read_scenario(con, name: str = NAME) -> Board:
    if not {"ar_sides", "ar_provinces", "ar_borders", "ar_places", "ar_scenario"} <= scenario_tables(con):
        raise InputError("this campaign file has no Archidamian War tables: make it with "
                         "`bellica campaign new --scenario archidamian-war`")
    meta = dict(con.execute("SELECT key, value FROM ar_scenario").fetchall())
    sides = {r[0]: Side(*r) for r in con.execute(
        "SELECT name, capital, army, strength, colour FROM ar_sides ORDER BY ord").fetchall()}
    provinces = {r[0]: {"holder": r[1], "lon": r[2], "lat": r[3], "note": r[4]} for r in con.execute(
        "SELECT name, holder, lon, lat, note FROM ar_provinces ORDER BY ord").fetchall()}
    adjacency: dict[str, set[str]] = {p: set() for p in provinces}
    for a, b in con.execute("SELECT a, b FROM ar_borders").fetchall():
        adjacency[a].add(b)
        adjacency[b].add(a)
    places = [dict(zip(("name", "province", "kind", "lon", "lat", "note"), r)) for r in con.execute(
        "SELECT name, province, kind, lon, lat, note FROM ar_places ORDER BY name").fetchall()]
    return Board(meta.get("name", name), meta.get("title", name), sides, provinces,
                 {p: frozenset(n) for p, n in adjacency.items()}, places)


# --- the state: rows of ar_armies and ar_control ------------------------------------------------------


def state_rows(board: Board, state: Mapping) -> dict:
    return {"ar_armies": {(s,): {"side": s, "province": p, "strength": n} for s, (p, n) in state["armies"].items()},
            "ar_control": {(p,): {"province": p, "side": state["control"].get(p)} for p in board.provinces}}


def state_of(snap: Snapshot) -> dict:
    return {"armies": {r[0]: (r[1], r[2]) for r in snap.tables["ar_armies"].values()},
            "control": {r[0]: r[1] for r in snap.tables["ar_control"].values()}}


def of(name: str) -> str:
    """``Athens'``, ``Sparta's``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def year_of(rnd: int) -> str:
    return f"{FIRST_YEAR - rnd + 1} BC"


# --- the seal: a side's march is its own until the year is resolved ----------------------------------


def _is_order(kind: str, data: Mapping) -> bool:
    return (kind == "step" and data.get("step") == "march") or \
        (kind == "put_row" and data.get("table") == "ar_orders")


def _order_round(data: Mapping) -> int:
    return int(data.get("round") or (data.get("row") or data.get("key") or {}).get("round") or 0)


def _owner(data: Mapping, snap=None) -> str | None:
    return (data.get("input") or data.get("row") or data.get("key") or {}).get("side")


def _opened(rnd: int, snap: Snapshot):
    pos = position_of(snap)
    return None if rnd < pos.round or pos.phase != "orders" else frozenset()


SEAL = OrderSeal(
    is_order=_is_order, round=_order_round, owner=_owner, carried=lambda data: frozenset(data), opened=_opened,
    public=lambda data: {"side": _owner(data), "round": _order_round(data)},
    text=lambda data: f"{_owner(data)}: a march for {year_of(_order_round(data))} (sealed until the year is resolved)")


# --- the steps ---------------------------------------------------------------------------------------------


def side_named(c, name: str) -> str:
    found = matches(name, list(c.board.sides))
    if len(found) != 1:
        raise InputError(f"no side {name!r}: the sides are {', '.join(c.board.sides)}")
    return found[0]


def march(c, side: str, *, target: str, dispatch: str = "") -> list[Event]:
    """``side``'s sealed march of the year: its army stays (``target`` its own province) or crosses one border."""
    with c.transaction():
        snap = c.snapshot()
        side = side_named(c, side)
        c.ruleset.require(c, snap, "march")
        rnd = int(snap.campaign("round"))
        where = state_of(snap)["armies"][side][0]
        found = matches(target, list(c.board.provinces))
        if len(found) != 1:
            raise InputError(f"--to {target!r}: no such province: the provinces are {', '.join(c.board.provinces)}")
        target = found[0]
        if target != where and target not in c.board.borders[where]:
            raise StepRefused(f"{of(side)} army is in {where}: it may stay there or march to "
                              f"{', '.join(sorted(c.board.borders[where]))}, not {target}")
        arg = {"side": side, "target": target, "dispatch": dispatch}
        events = [Event(rnd, "orders", "step", {"step": "march", "input": arg, "round": rnd},
                        f"{year_of(rnd)}: {side} gives its march"),
                  Event(rnd, "orders", "put_row", {"table": "ar_orders", "row": {"round": rnd, **arg}},
                        f"{side} marches to {target}" + (f": {dispatch!r}" if dispatch else ""))]
        c.append(events, before=snap)
    return events


def resolve(c) -> list[Event]:
    """The umpire resolves the year: both marches at once, a battle where the armies meet, the verdict."""
    with c.transaction():
        snap = c.snapshot()
        c.ruleset.require(c, snap, "resolve")
        rnd, seed, rules, board = int(snap.campaign("round")), int(snap.campaign("seed")), c.rules, c.board
        orders = {r[1]: r[2] for r in snap.tables["ar_orders"].values() if r[0] == rnd}
        missing = [s for s in board.sides if s not in orders]
        if missing:
            raise StepRefused(f"{year_of(rnd)}: no march yet from {', '.join(missing)}: each side gives one "
                              f"(`bellica archidamian march CAMPAIGN --side {missing[0]} --to PROVINCE`)")
        state = state_of(snap)
        armies = {s: [orders[s], n] for s, (_p, n) in state["armies"].items()}
        control = dict(state["control"])
        told = [Event(rnd, "orders", "step", {"step": "resolve", "input": {}, "round": rnd},
                      f"{year_of(rnd)}: the umpire resolves the year")]
        told += [Event(rnd, "orders", "marched", {"side": s, "to": orders[s]}, f"{s} marches to {orders[s]}")
                 for s in board.sides]
        beaten = None
        a, b = list(board.sides)
        rows = None
        if armies[a][0] == armies[b][0]:
            where = armies[a][0]
            holder = control.get(where)
            rolls, n = {}, 0
            while True:  # a tie is rolled again, each roll under its own label
                faces = {s: rng.stream(seed, NAME, "battle", rnd, s, n).randint(1, rules.die) for s in (a, b)}
                total = {s: faces[s] + armies[s][1] + (rules.home_bonus if holder == s else 0) for s in (a, b)}
                rolls[n] = {"faces": faces, "totals": total}
                if total[a] != total[b]:
                    break
                n += 1
            winner = a if total[a] > total[b] else b
            beaten = b if winner == a else a
            armies[beaten] = [board.sides[beaten].capital, armies[beaten][1] - rules.loss]
            rows = {"round": rnd, "province": where, "rolls": json.dumps(rolls, sort_keys=True), "winner": winner}
            told.append(Event(rnd, "orders", "battle", {"province": where, "rolls": rolls, "winner": winner},
                              f"battle in {where}: " + ", ".join(f"{s} d{rules.die} {faces[s]} = {total[s]}" for s in (a, b))
                              + f"; {winner} wins, {beaten} falls back to {board.sides[beaten].capital}"))
        for s, (where, strength) in armies.items():
            if s != beaten and strength > 0:
                control[where] = s
        alive = {s: v for s, v in armies.items() if v[1] > 0}
        new = {"armies": {s: tuple(v) for s, v in alive.items()}, "control": control}
        events = told + ([Event(rnd, "orders", "put_row", {"table": "ar_battles", "row": rows})] if rows else [])
        for r in sorted(snap.tables["ar_orders"].values()):  # the year's marches, now public
            row = dict(zip(("round", "side", "target", "dispatch"), r))
            events += [Event(rnd, "orders", "drop_row", {"table": "ar_orders", "key": {"round": r[0], "side": r[1]}}),
                       Event(rnd, "orders", "put_row", {"table": "ar_marches", "row": row})]
        events += diff_events(c, snap, state_rows(board, new), rnd, "orders")
        winner = verdict(board, rules, new, rnd)
        if winner is None:
            events.append(set_campaign(rnd, "orders", "round", rnd + 1))
        else:
            events += [set_campaign(rnd, "orders", "winner", winner), set_campaign(rnd, "orders", "phase", "over"),
                       Event(rnd, "over", "verdict", {"winner": winner},
                             "the Peace of Nicias: a draw" if winner == "draw" else f"{winner} wins the war")]
        events = [Event(e.round, e.phase, e.kind, e.data, c.ruleset.describe(e, c)) for e in events]
        c.append(events, before=snap)
    return events


def verdict(board: Board, rules: Rules, state: Mapping, rnd: int) -> str | None:
    """The winner at the end of year ``rnd`` (``draw``: the Peace of Nicias), None while the war goes on."""
    a, b = list(board.sides)
    gone = [s for s in (a, b) if s not in state["armies"]]
    if len(gone) == 1:
        return b if gone[0] == a else a
    took = [s for s in (a, b) if state["control"].get(board.sides[b if s == a else a].capital) == s]
    if len(took) == 1:
        return took[0]
    return "draw" if rnd >= rules.years or gone or took else None


def next_words(c, snap: Snapshot) -> str:
    pos = position_of(snap)
    winner = snap.campaign("winner")
    if winner:
        return "the war is over: " + ("the Peace of Nicias, a draw" if winner == "draw" else f"{winner} has won")
    given = {r[1] for r in snap.tables["ar_orders"].values() if r[0] == pos.round}
    missing = [s for s in c.board.sides if s not in given]
    if missing:
        return f"each side marches: `bellica archidamian march CAMPAIGN --side {missing[0]} --to PROVINCE`"
    return "the umpire resolves the year: `bellica archidamian resolve CAMPAIGN`"


class Archidamian(SteppedRuleset):
    name = NAME
    title = "Peloponnesian War"
    command_group = "archidamian"
    faction_flag = "--side"
    round_word = "year"
    state_sql = HERE / "sql" / "state.sql"
    order_seal = SEAL
    told_tables = frozenset({"ar_orders"})
    #: The scenario folders this distribution ships (`bellica campaign new --scenario archidamian-war`).
    scenarios = HERE / "scenarios"
    steps = (Step("march", "give the year's march", "orders"),
             Step("resolve", "resolve the year", "orders"))
    #: The log's words for the sides' tables (SteppedRuleset.describe_row / describe_drop).
    row_words = {
        "ar_armies": lambda r: f"{of(r['side'])} army in {r['province']}, strength {r['strength']}",
        "ar_control": lambda r: f"{r['province']} is held by {r['side'] or 'nobody'}",
        "ar_marches": lambda r: (f"{of(r['side'])} march of {year_of(r['round'])}: to {r['target']} "
                                 f"({r['dispatch'] or 'no dispatch'})"),
        "ar_battles": lambda r: f"battle of {year_of(r['round'])} in {r['province']}: {r['winner']} wins",
    }
    drop_words = {
        "ar_orders": lambda k: f"{of(k['side'])} sealed march of {year_of(k['round'])} is opened",
        "ar_armies": lambda k: f"{of(k['side'])} army is gone",
    }

    scenario_name = NAME
    start_phase = "orders"
    rules_class = Rules
    read_scenario = staticmethod(read_scenario)
    write_scenario = staticmethod(write_scenario)
    default_rules = staticmethod(default_rules)
    rules_with = staticmethod(rules_with)
    install_views = staticmethod(lambda con: None)

    def factions(self, campaign) -> list[str]:
        return sorted(campaign.board.sides)

    def load_folder(self, folder: Path):
        return _load_folder(Path(folder))

    def folder_summary(self, board: Board) -> str:
        return f"{len(board.sides)} sides, {len(board.provinces)} provinces, {len(board.places)} places"

    def state_rows(self, board: Board, state: Mapping) -> dict:
        return state_rows(board, state)

    def start_state(self, campaign, seed: int):
        board = campaign.board
        armies = {s.name: (s.capital, s.strength) for s in board.sides.values()}
        return {"armies": armies, "control": {p: v["holder"] for p, v in board.provinces.items()}}, []

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        board = campaign.board
        told = Event(1, "setup", "campaign_start", {"sides": list(board.sides), "seed": seed},
                     f"{board.title}: {' against '.join(board.sides)}, {len(board.provinces)} provinces")
        return [told] + super().initial_events(campaign, seed=seed)

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_words(campaign, snap)

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        if not super().may_take(campaign, snap, action, viewer):
            return False
        if action.name == "resolve":  # only once both marches are in
            rnd = int(snap.campaign("round"))
            return len({r[1] for r in snap.tables["ar_orders"].values() if r[0] == rnd}) == len(campaign.board.sides)
        return True

    def status_lines(self, status: Mapping) -> list[str]:
        from .player_view import status_lines

        return status_lines(status)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name == "march":
            return march(campaign, arg["side"], target=arg["target"], dispatch=arg["dispatch"])
        if name == "resolve":
            return resolve(campaign)
        return super().run_step(campaign, name, arg)


ARCHIDAMIAN = register(Archidamian())
