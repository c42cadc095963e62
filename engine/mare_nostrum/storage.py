"""Mare Nostrum's state in the campaign file: the state tables (:data:`STATE_SQL`), the static
scenario (:data:`SCENARIO_SQL`, :func:`write_scenario` / :func:`read_scenario`), the pure
:class:`~bellica.engine.mare_nostrum.model.TurnState` as rows (:func:`state_rows`) and back
(:func:`state_of`), the umpire's views and the campaign's lottery (:func:`lottery_of`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from bellica.engine.core.rule_sql import views_installer
from bellica.engine.core.stepped import adjacency_of, border_pairs, create_scenario_tables, scenario_tables, store_rules
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError

from .lottery import Lottery, lottery_for
from .model import (Attack, Fleet, Invader, Nation, NationState, Province, Scenario, SeaQuadrant, TurnState, Works,
                    provinces_of)
from .rules import Rules

__all__ = ["GAME_KEYS", "SCENARIO_SQL", "STATE_SQL", "VIEWS_SQL", "install_views", "lottery_of", "read_scenario",
           "state_of", "state_rows", "write_scenario"]

#: The campaign state (the core adds ``campaign``, ``round_notes`` and the ``events`` log).
STATE_SQL = """
-- Who holds each province (NULL: independent).
CREATE TABLE mn_control (province VARCHAR PRIMARY KEY, nation VARCHAR);
-- Each nation this turn: stability, treasury, actions allotted and used, its random event and
-- wheel numbers (JSON list), naval bonus, the turn's conditions and open choices (JSON lists),
-- the province of its Defensive Artworks, why and when it left the game, provinces held.
CREATE TABLE mn_nations_state (nation VARCHAR PRIMARY KEY, stability INTEGER, treasury INTEGER, actions INTEGER,
                               used INTEGER, event VARCHAR, draws VARCHAR, naval_bonus INTEGER, effects VARCHAR,
                               pending VARCHAR, artworks VARCHAR, left_game VARCHAR, left_turn INTEGER,
                               provinces INTEGER);
-- What stands in each province (only provinces with a work).
CREATE TABLE mn_works (province VARCHAR PRIMARY KEY, fortifications INTEGER, suburbs INTEGER, temples INTEGER);
-- Fleets at sea (owner: the rules' events.pirates.title, "Pirates", for a pirate fleet).
CREATE TABLE mn_fleets (fleet INTEGER PRIMARY KEY, owner VARCHAR, sea VARCHAR);
-- This turn's declared land battles (invasions included; attacker NULL for invaders).
CREATE TABLE mn_attacks (seq INTEGER PRIMARY KEY, kind VARCHAR, attacker VARCHAR, target VARCHAR, defender VARCHAR,
                         base VARCHAR, sea VARCHAR, army VARCHAR, managed_by VARCHAR);
-- This turn's order of play.
CREATE TABLE mn_order (position INTEGER PRIMARY KEY, nation VARCHAR);
-- Works the acting nation ordered, standing when it finishes.
CREATE TABLE mn_builds (seq INTEGER PRIMARY KEY, work VARCHAR, province VARCHAR, sea VARCHAR);
-- The rest of the turn state: turn, current, phase, next_fleet, winner, extra_turns, peace,
-- fleets_attacked, last_taker (JSON); and verdict (the last verdict in words).
CREATE TABLE mn_game (key VARCHAR PRIMARY KEY, value VARCHAR);
-- Lottery numbers entered by the umpire: a wheel's real draw for a turn, and single labelled numbers.
CREATE TABLE mn_wheels (turn INTEGER, wheel VARCHAR, numbers VARCHAR, PRIMARY KEY (turn, wheel));
CREATE TABLE mn_numbers (label VARCHAR PRIMARY KEY, value INTEGER);
-- Results of the Field of Glory battles, as entered (winner: attacker or defender).
CREATE TABLE mn_results (turn INTEGER, province VARCHAR, winner VARCHAR, PRIMARY KEY (turn, province));
"""

#: The static scenario in the campaign file (written once by :func:`write_scenario`).
SCENARIO_SQL = """
CREATE TABLE IF NOT EXISTS mn_provinces (name VARCHAR PRIMARY KEY, ord INTEGER, nation VARCHAR, role VARCHAR,
                                         city VARCHAR, lon DOUBLE, lat DOUBLE, seas VARCHAR, revenue INTEGER, army VARCHAR);
CREATE TABLE IF NOT EXISTS mn_nations (name VARCHAR PRIMARY KEY, ord INTEGER, capital VARCHAR, wheel VARCHAR,
                                       army VARCHAR, colour VARCHAR);
CREATE TABLE IF NOT EXISTS mn_seas (name VARCHAR PRIMARY KEY, ord INTEGER, lon DOUBLE, lat DOUBLE, note VARCHAR);
CREATE TABLE IF NOT EXISTS mn_borders (a VARCHAR, b VARCHAR, PRIMARY KEY (a, b));
CREATE TABLE IF NOT EXISTS mn_passages (ord INTEGER PRIMARY KEY, from_province VARCHAR, to_province VARCHAR);
CREATE TABLE IF NOT EXISTS mn_invaders (province VARCHAR PRIMARY KEY, ord INTEGER, nation VARCHAR, army VARCHAR,
                                        managed_by VARCHAR);
CREATE TABLE IF NOT EXISTS mn_independent_armies (from_turn INTEGER PRIMARY KEY, army VARCHAR);
"""

#: The umpire's views (mn_attackable, mn_actions, mn_reach, mn_richness; docs/sql.md, "Mare Nostrum campaigns").
VIEWS_SQL = Path(__file__).with_name("sql") / "views.sql"


#: Creates (or replaces) the Mare Nostrum views on ``con`` (a campaign file with its scenario and state tables).
install_views = views_installer(VIEWS_SQL)

#: The ``mn_game`` keys the pure state owns (``verdict`` is written by the end of the turn).
GAME_KEYS = ("turn", "current", "phase", "next_fleet", "winner", "extra_turns", "peace", "fleets_attacked", "last_taker")
#: Derived tables (rewritten from the TurnState by every step); the others are written by their own steps.
_DERIVED = ("mn_control", "mn_nations_state", "mn_works", "mn_fleets", "mn_attacks", "mn_order", "mn_builds", "mn_game")


# --- the static scenario -------------------------------------------------------------------


def write_scenario(con, scenario: Scenario, rules: Rules) -> None:
    """Store ``scenario`` and the merged ``rules`` in a campaign file (``con``, outside a transaction)."""
    create_scenario_tables(con, SCENARIO_SQL)
    con.executemany("INSERT INTO mn_provinces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(p.name, i, p.nation, p.role, p.city, p.lon, p.lat, json.dumps(list(p.seas)), p.revenue, p.army)
                     for i, p in enumerate(scenario.provinces.values())])
    con.executemany("INSERT INTO mn_nations VALUES (?, ?, ?, ?, ?, ?)",
                    [(n.name, i, n.capital, n.wheel, n.army, n.colour) for i, n in enumerate(scenario.nations.values())])
    con.executemany("INSERT INTO mn_seas VALUES (?, ?, ?, ?, ?)",
                    [(s.name, i, s.lon, s.lat, s.note) for i, s in enumerate(scenario.seas.values())])
    con.executemany("INSERT INTO mn_borders VALUES (?, ?)",
                    border_pairs(scenario.adjacency))
    con.executemany("INSERT INTO mn_passages VALUES (?, ?, ?)", [(i, a, b) for i, (a, b) in enumerate(scenario.passages)])
    con.executemany("INSERT INTO mn_invaders VALUES (?, ?, ?, ?, ?)",
                    [(v.province, i, v.nation, v.army, v.managed_by) for i, v in enumerate(scenario.invaders)])
    if scenario.independent_armies:
        con.executemany("INSERT INTO mn_independent_armies VALUES (?, ?)", list(scenario.independent_armies))
    store_rules(con, rules)


def read_scenario(con, name: str = "mare-nostrum") -> Scenario:
    """The :class:`Scenario` a campaign file stores."""
    have = scenario_tables(con)
    need = {"mn_provinces", "mn_nations", "mn_seas", "mn_borders", "mn_passages", "mn_invaders"}
    if not need <= have:
        raise InputError("this campaign file has no Mare Nostrum scenario tables (" + ", ".join(sorted(need - have))
                         + "): make it with `bellica campaign new --scenario mare-nostrum`")
    seas = {r[0]: SeaQuadrant(r[0], float(r[1]), float(r[2]), r[3] or "")
            for r in con.execute("SELECT name, lon, lat, note FROM mn_seas ORDER BY ord").fetchall()}
    nations = {r[0]: Nation(r[0], r[1], r[2], r[3], r[4] or "#808080")
               for r in con.execute("SELECT name, capital, wheel, army, colour FROM mn_nations ORDER BY ord").fetchall()}
    provinces = {r[0]: Province(r[0], r[1], r[2], r[3] or "", float(r[4]), float(r[5]), tuple(json.loads(r[6] or "[]")),
                                int(r[7]), r[8] or "")
                 for r in con.execute("SELECT name, nation, role, city, lon, lat, seas, revenue, army FROM mn_provinces "
                                      "ORDER BY ord").fetchall()}
    adjacency = adjacency_of(provinces, con.execute("SELECT a, b FROM mn_borders ORDER BY a, b").fetchall())
    passages = tuple((a, b) for a, b in con.execute("SELECT from_province, to_province FROM mn_passages ORDER BY ord").fetchall())
    invaders = tuple(Invader(*r) for r in con.execute("SELECT province, nation, army, managed_by FROM mn_invaders "
                                                      "ORDER BY ord").fetchall())
    armies = ()
    if "mn_independent_armies" in have:
        armies = tuple((int(t), a) for t, a in con.execute("SELECT from_turn, army FROM mn_independent_armies "
                                                           "ORDER BY from_turn").fetchall())
    return Scenario(name=name, provinces=provinces, nations=nations, seas=seas,
                    adjacency=adjacency, passages=passages,
                    invaders=invaders, independent_armies=armies)


# --- the state as rows, and back ------------------------------------------------------------


def state_rows(scenario: Scenario, state: TurnState) -> dict[str, dict[tuple, dict]]:
    """The TurnState as ``{table: {key: row dict}}`` for the derived tables."""
    out: dict[str, dict[tuple, dict]] = {}
    out["mn_control"] = {(p,): {"province": p, "nation": state.control.get(p)} for p in scenario.provinces}
    out["mn_nations_state"] = {
        (n,): {"nation": n, "stability": s.stability, "treasury": s.treasury, "actions": s.actions, "used": s.used,
               "event": state.events.get(n), "draws": json.dumps(list(state.draws[n])) if n in state.draws else None,
               "naval_bonus": s.naval_bonus, "effects": json.dumps(sorted(s.effects)), "pending": json.dumps(list(s.pending)),
               "artworks": s.artworks, "left_game": s.out, "left_turn": s.out_turn,
               "provinces": len(provinces_of(scenario, state, n))}
        for n, s in state.nations.items()}
    out["mn_works"] = {(p,): {"province": p, "fortifications": w.fortifications, "suburbs": w.suburbs, "temples": w.temples}
                       for p, w in state.works.items() if w != Works()}
    out["mn_fleets"] = {(f.id,): {"fleet": f.id, "owner": f.owner, "sea": f.sea} for f in state.fleets}
    out["mn_attacks"] = {(a.seq,): asdict(a) for a in state.attacks}
    out["mn_order"] = {(i + 1,): {"position": i + 1, "nation": n} for i, n in enumerate(state.order)}
    out["mn_builds"] = {(i + 1,): {"seq": i + 1, "work": w, "province": p, "sea": s} for i, (w, p, s) in enumerate(state.builds)}
    game = {"turn": state.turn, "current": state.current, "phase": state.phase, "next_fleet": state.next_fleet,
            "winner": state.winner or "", "extra_turns": state.extra_turns,
            "peace": json.dumps(sorted(list(p) for p in state.peace)),
            "fleets_attacked": json.dumps(sorted(state.fleets_attacked)),
            "last_taker": json.dumps(dict(sorted(state.last_taker.items())))}
    out["mn_game"] = {(k,): {"key": k, "value": str(v)} for k, v in game.items()}
    return out


def state_of(scenario: Scenario, snap: Snapshot) -> TurnState:
    """The :class:`TurnState` the stored tables hold."""
    game = {k[0]: row[1] for k, row in snap.tables["mn_game"].items()}
    control = {p: None for p in scenario.provinces}
    for p, n in snap.tables["mn_control"].values():
        control[p] = n
    nations, events, draws = {}, {}, {}
    rows = {r[0]: r for r in snap.tables["mn_nations_state"].values()}
    for n in scenario.nations:
        if n not in rows:
            continue
        (_n, stab, treas, acts, used, event, drawn, naval, effects, pending, artworks, out, out_turn, _prov) = rows[n]
        nations[n] = NationState(n, int(stab), int(treas or 0), int(acts or 0), int(used or 0),
                                 frozenset(json.loads(effects or "[]")), int(naval or 0), tuple(json.loads(pending or "[]")),
                                 artworks or "", out or "", int(out_turn or 0))
        if event:
            events[n] = event
        if drawn is not None:
            draws[n] = tuple(json.loads(drawn))
    works = {p: Works(*(int(x) for x in w)) for (p,), (_p, *w) in
             sorted(snap.tables["mn_works"].items(), key=lambda kv: _order(scenario, kv[0][0]))}
    fleets = tuple(Fleet(int(f), o, s) for f, o, s in sorted(snap.tables["mn_fleets"].values()))
    attacks = tuple(Attack(int(r[0]), *r[1:]) for r in sorted(snap.tables["mn_attacks"].values()))
    order = tuple(n for _pos, n in sorted(snap.tables["mn_order"].values()))
    builds = tuple((w, p, s or "") for _seq, w, p, s in sorted(snap.tables["mn_builds"].values()))
    return TurnState(
        turn=int(game.get("turn", 0)), control=control, nations=nations, works=works, fleets=fleets,
        next_fleet=int(game.get("next_fleet", 1)), order=order, current=int(game.get("current", 0)), draws=draws,
        events=events, attacks=attacks,
        fleets_attacked=frozenset(int(x) for x in json.loads(game.get("fleets_attacked", "[]"))),
        peace=frozenset(tuple(p) for p in json.loads(game.get("peace", "[]"))), builds=builds,
        last_taker=json.loads(game.get("last_taker", "{}")), phase=game.get("phase", "done"),
        winner=game.get("winner") or None, extra_turns=int(game.get("extra_turns", 0)))


def _order(scenario: Scenario, province: str) -> int:
    names = list(scenario.provinces)
    return names.index(province) if province in names else len(names)


def lottery_of(c, snap: Snapshot) -> Lottery:
    """The campaign's lottery: the numbers entered so far, the rest drawn from the seed."""
    wheels: dict[int, dict[str, list[int]]] = {}
    for turn, wheel, numbers in snap.tables["mn_wheels"].values():
        wheels.setdefault(int(turn), {})[wheel] = json.loads(numbers)
    entered = {label: int(v) for label, v in snap.tables["mn_numbers"].values()}
    return lottery_for(c.rules, int(snap.campaign("seed")), wheels=wheels, entered=entered)
