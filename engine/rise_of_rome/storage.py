"""Rise of Rome's state in the campaign file: the state tables (:data:`STATE_SQL`), the static
scenario (:data:`SCENARIO_SQL`, :func:`write_scenario` / :func:`read_scenario`), the pure
:class:`~bellica.engine.rise_of_rome.model.TurnState` as rows (:func:`state_rows`) and back
(:func:`state_of`), the turn's attack plan as a round note, and the umpire's views."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from bellica.engine.core.rule_sql import views_installer
from bellica.engine.core.stepped import adjacency_of, border_pairs, create_scenario_tables, scenario_tables, store_rules
from bellica.engine.core.tables import Snapshot
from bellica.engine.rise_of_rome.attacks import Attack, AttackPlan
from bellica.engine.rise_of_rome.model import (ExternalArmy, Power, Province, Ruler, Scenario, TurnState, provinces_of,
                                              status, suzerain)
from bellica.engine.rise_of_rome.rules import Rules
from bellica.geo.errors import InputError

__all__ = ["GAME_STATE_KEYS", "SCENARIO_SQL", "STATE_SQL", "VIEWS_SQL", "install_views", "plan_json", "plan_of",
           "read_scenario", "state_of", "state_rows", "write_scenario"]

#: The umpire's views (ror_attackable, ror_revenue_next, ror_reach; docs/sql.md, "Rise of Rome").
VIEWS_SQL = Path(__file__).with_name("sql") / "views.sql"


#: Creates (or replaces) the Rise of Rome views on ``con`` (a campaign file with its scenario tables).
install_views = views_installer(VIEWS_SQL)

#: The campaign state (the core adds ``campaign``, ``round_notes`` and the ``events`` log).
STATE_SQL = """
-- Who controls each province (an external army's occupation is in ror_externals).
CREATE TABLE ror_control (province VARCHAR PRIMARY KEY, power VARCHAR);
-- The ruler (ruling caste) of each power but Rome: ratings in percent, the turn it took over,
-- the 3D10 as rolled and the characteristics after modifiers and rebalancing (JSON lists).
CREATE TABLE ror_rulers (power VARCHAR PRIMARY KEY, aggressor INTEGER, protector INTEGER, builder INTEGER,
                         since INTEGER, rolled VARCHAR, characteristics VARCHAR);
-- The external armies in Italy: where, their points, the turn they landed, who pays them.
CREATE TABLE ror_externals (power VARCHAR PRIMARY KEY, province VARCHAR, points INTEGER, arrived INTEGER, paymaster VARCHAR);
-- Each of the nine powers: its status in words (active, subject of X, inactive), its suzerain,
-- provinces held, this turn's revenue (and the part only Civic Improvement may take), and
-- whether it won or lost a battle this turn and last turn.
CREATE TABLE ror_powers_state (power VARCHAR PRIMARY KEY, status VARCHAR, suzerain VARCHAR, provinces INTEGER,
                               revenue INTEGER, civic_only INTEGER, won BOOLEAN, lost BOOLEAN,
                               won_last BOOLEAN, lost_last BOOLEAN);
-- Rome's treasury, turn by turn: revenue, its split, and the Civic Development track after the turn.
CREATE TABLE ror_treasury (turn INTEGER PRIMARY KEY, revenue INTEGER, civic_only INTEGER, attack INTEGER,
                           defence INTEGER, civic INTEGER, civic_spent INTEGER, civic_penalty INTEGER,
                           civic_total INTEGER);
-- Results of the battles played on the table, as entered (winner: attacker or defender).
CREATE TABLE ror_battle_results (turn INTEGER, battle INTEGER, winner VARCHAR, major BOOLEAN, PRIMARY KEY (turn, battle));
-- The provinces Rome chose to take, as entered (kind: target, extra or counter), province NULL: by the seed's rule.
CREATE TABLE ror_province_choices (turn INTEGER, battle INTEGER, kind VARCHAR, province VARCHAR,
                                   PRIMARY KEY (turn, battle, kind));
-- The rest of the turn state: turn, civic_spent, civic_penalty, defeated, subjects_created (JSON), verdict.
CREATE TABLE ror_game (key VARCHAR PRIMARY KEY, value VARCHAR);
"""

#: The static scenario in the campaign file (written once by :func:`write_scenario`).
SCENARIO_SQL = """
CREATE TABLE IF NOT EXISTS ror_provinces (name VARCHAR PRIMARY KEY, ord INTEGER, home VARCHAR, resource VARCHAR,
                                          coastal BOOLEAN, revenue INTEGER, capital VARCHAR, lon DOUBLE, lat DOUBLE);
CREATE TABLE IF NOT EXISTS ror_powers (name VARCHAR PRIMARY KEY, ord INTEGER, external BOOLEAN, player BOOLEAN,
                                       ruler_aggressor INTEGER, ruler_protector INTEGER, ruler_builder INTEGER);
CREATE TABLE IF NOT EXISTS ror_borders (a VARCHAR, b VARCHAR, PRIMARY KEY (a, b));
"""


def write_scenario(con, scenario: Scenario, rules: Rules) -> None:
    """Store ``scenario`` and the merged ``rules`` in a campaign file (``con``, outside a transaction)."""
    create_scenario_tables(con, SCENARIO_SQL)
    con.executemany("INSERT INTO ror_provinces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(p.name, i, p.home_of, p.resource, p.coastal, p.revenue, p.capital, p.lon, p.lat)
                     for i, p in enumerate(scenario.provinces.values())])
    con.executemany("INSERT INTO ror_powers VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(w.name, i, w.external, w.player, *(scenario.given_rulers.get(w.name) or (None, None, None)))
                     for i, w in enumerate(scenario.powers.values())])
    con.executemany("INSERT INTO ror_borders VALUES (?, ?)",
                    border_pairs(scenario.adjacency))
    store_rules(con, rules)


def read_scenario(con, name: str = "rise-of-rome") -> Scenario:
    """The :class:`Scenario` a campaign file stores."""
    have = scenario_tables(con)
    if not {"ror_provinces", "ror_powers", "ror_borders"} <= have:
        raise InputError("this campaign file has no Rise of Rome scenario tables (ror_provinces, ror_powers, ror_borders): "
                         "make it with `bellica campaign new --scenario rise-of-rome`")
    rows = con.execute("SELECT name, home, resource, coastal, revenue, capital, lon, lat FROM ror_provinces ORDER BY ord").fetchall()
    provinces = {r[0]: Province(r[0], r[1], r[2], bool(r[3]), int(r[4]), r[5] or "", float(r[6]), float(r[7])) for r in rows}
    powers, given, player = {}, {}, None
    for name_, external, is_player, a, p, b in con.execute(
            "SELECT name, external, player, ruler_aggressor, ruler_protector, ruler_builder FROM ror_powers ORDER BY ord").fetchall():
        homes = tuple(n for n, pr in provinces.items() if pr.home_of == name_)
        powers[name_] = Power(name_, homes, bool(external), bool(is_player))
        if is_player:
            player = name_
        if a is not None:
            given[name_] = (int(a), int(p), int(b))
    if player is None:  # the scenario loader refuses this; a hand-edited file must not fall back to a name
        raise InputError("ror_powers marks no power as the player's (player = true): fix the campaign's scenario tables")
    adjacency = adjacency_of(provinces, con.execute("SELECT a, b FROM ror_borders").fetchall())
    return Scenario(name=name, provinces=provinces, powers=powers,
                    adjacency=adjacency, player=player, given_rulers=given, terrain=_terrain(con, have))


def _terrain(con, have: set[str]) -> dict[str, tuple[str, ...]]:
    """Each province's land terrain types on the map (province_cells over hexes), most hexes first,
    then by name; none when the campaign has no map tables."""
    if not {"province_cells", "hexes"} <= have:
        return {}
    out: dict[str, list[str]] = {}
    for province, terrain, _n in con.execute(
            "SELECT p.province, h.terrain, count(*) AS n FROM province_cells p JOIN hexes h USING (cell) "
            "WHERE h.kind = 'land' AND h.terrain IS NOT NULL GROUP BY ALL ORDER BY 1, n DESC, 2").fetchall():
        out.setdefault(province, []).append(terrain)
    return {p: tuple(t) for p, t in out.items()}


# --- the state as rows, and back ------------------------------------------------------------


def state_rows(scenario: Scenario, state: TurnState) -> dict[str, dict[tuple, dict]]:
    """The TurnState-derived tables as ``{table: {key: row dict}}``."""
    out: dict[str, dict[tuple, dict]] = {}
    out["ror_control"] = {(p,): {"province": p, "power": w} for p, w in state.control.items()}
    out["ror_rulers"] = {(w,): {"power": w, "aggressor": r.aggressor, "protector": r.protector, "builder": r.builder,
                                "since": r.since, "rolled": json.dumps(list(r.rolled)),
                                "characteristics": json.dumps(list(r.characteristics))}
                         for w, r in state.rulers.items()}
    out["ror_externals"] = {(w,): {"power": w, "province": a.province, "points": a.points, "arrived": a.arrived,
                                   "paymaster": a.paymaster} for w, a in state.externals.items()}
    out["ror_powers_state"] = {
        (w,): {"power": w, "status": status(scenario, state, w), "suzerain": suzerain(scenario, state, w),
               "provinces": len(provinces_of(scenario, state, w)), "revenue": state.revenue.get(w),
               "civic_only": state.civic_only.get(w), "won": w in state.won, "lost": w in state.lost,
               "won_last": w in state.won_last, "lost_last": w in state.lost_last}
        for w in scenario.nations}
    game = {"turn": state.turn, "civic_spent": state.civic_spent, "civic_penalty": state.civic_penalty,
            "defeated": int(state.defeated), "subjects_created": json.dumps([list(x) for x in state.subjects_created])}
    out["ror_game"] = {(k,): {"key": k, "value": str(v)} for k, v in game.items()}
    return out


#: The ``ror_game`` keys the pure state owns (``verdict`` is written by the end of the campaign).
GAME_STATE_KEYS = {"turn", "civic_spent", "civic_penalty", "defeated", "subjects_created"}


def state_of(scenario: Scenario, snap: Snapshot) -> TurnState:
    """The :class:`TurnState` the stored tables hold."""
    game = {k[0]: row[1] for k, row in snap.tables["ror_game"].items()}
    rulers = {}
    for w, a, p, b, since, rolled, chars in snap.tables["ror_rulers"].values():
        rulers[w] = Ruler(a, p, b, since, tuple(json.loads(rolled or "[]")), tuple(json.loads(chars or "[]")))
    externals = {w: ExternalArmy(w, prov, pts, arr, pay) for w, prov, pts, arr, pay in snap.tables["ror_externals"].values()}
    revenue, civic_only, won, lost, won_last, lost_last = {}, {}, set(), set(), set(), set()
    for w, _st, _sz, _n, rev, co, wn, ls, wl, ll in snap.tables["ror_powers_state"].values():
        if rev is not None:
            revenue[w] = rev
        if co is not None:
            civic_only[w] = co
        for flag, s in ((wn, won), (ls, lost), (wl, won_last), (ll, lost_last)):
            if flag:
                s.add(w)
    order = list(scenario.provinces)
    control = {p: w for p, w in sorted((row for row in snap.tables["ror_control"].values()),
                                       key=lambda r: order.index(r[0]) if r[0] in order else len(order))}
    return TurnState(turn=int(game.get("turn", 0)), control=control, rulers=rulers, externals=externals,
                     revenue=revenue, civic_only=civic_only, won_last=frozenset(won_last), lost_last=frozenset(lost_last),
                     won=frozenset(won), lost=frozenset(lost),
                     subjects_created=tuple((s, int(n)) for s, n in json.loads(game.get("subjects_created", "[]"))),
                     civic_spent=int(game.get("civic_spent", 0)), civic_penalty=int(game.get("civic_penalty", 0)),
                     defeated=game.get("defeated", "0") == "1")


def plan_json(plan: AttackPlan) -> list[dict]:
    """The attack plan as its round note's value."""
    return [asdict(a) for a in plan.attacks]


def plan_of(data) -> AttackPlan:
    """The attack plan a round note holds."""
    return AttackPlan(tuple(Attack(**a) for a in (data or [])))
