"""The Rise of Rome views (engine/rise_of_rome/sql/views.sql) against the Python rules.

Each view restates a rule in SQL; here its rows are compared with the rule's own functions
(attacks.candidate_targets/border_provinces, revenue.power_revenue, model.provinces_of) on
every end-of-turn state of whole campaigns played by the engine (three policies, several
seeds: subjects, occupied provinces, lost home provinces and resource pairs all occur), and on
states built by hand for the cases campaigns rarely reach (a monopoly, the "replaces" option,
a penalty eating a civic-only yield).  The views read the state tables only, so a state is
written as rows of ``ror_control`` and ``ror_externals`` of an in-memory campaign file.
"""

from __future__ import annotations

import duckdb
import pytest

from bellica.engine.rise_of_rome.attacks import border_provinces, candidate_targets
from bellica.engine.rise_of_rome.dice import Roller
from bellica.engine.rise_of_rome.model import ExternalArmy, TurnState, is_active, provinces_of
from bellica.engine.rise_of_rome.policies import make_policy, simulation_rules
from bellica.engine.rise_of_rome.revenue import power_revenue
from bellica.engine.rise_of_rome.rules import rules_with
from bellica.engine.rise_of_rome.ruleset import STATE_SQL, install_views, write_scenario
from bellica.engine.rise_of_rome.scenario import load_scenario
from bellica.engine.rise_of_rome.turn import play_turn, start

SCENARIO = load_scenario()


def campaign_db(rules) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for statement in STATE_SQL.split(";"):
        if statement.strip():
            con.execute(statement)
    write_scenario(con, SCENARIO, rules)
    install_views(con)
    return con


def put_state(con, state: TurnState) -> None:
    con.execute("DELETE FROM ror_control")
    con.execute("DELETE FROM ror_externals")
    con.executemany("INSERT INTO ror_control VALUES (?, ?)", sorted(state.control.items()))
    for a in state.externals.values():
        con.execute("INSERT INTO ror_externals VALUES (?, ?, ?, ?, ?)", [a.power, a.province, a.points, a.arrived, a.paymaster])


def played_states(rules, seeds=(1, 7, 348), policies=("conqueror", "builder", "random")):
    """The start and every end-of-turn state of whole campaigns."""
    out = []
    for policy in policies:
        for seed in seeds:
            roller, player = Roller(seed), make_policy(policy, seed)
            state, _ = start(SCENARIO, rules, roller)
            out.append(state)
            while state.turn < rules.game.turns and not state.defeated:
                state, _, _ = play_turn(SCENARIO, state, rules, roller, player)
                out.append(state)
    return out


RULES = simulation_rules()
STATES = played_states(RULES)


def python_attackable(state):
    rows = set()
    for attacker in SCENARIO.nations:
        if not is_active(SCENARIO, state, attacker):
            continue
        mine = provinces_of(SCENARIO, state, attacker)
        for target in candidate_targets(SCENARIO, state, attacker):
            for p in border_provinces(SCENARIO, state, mine, target):
                near = sorted(q for q in mine if p in SCENARIO.neighbours(q))
                rows.add((attacker, target, p, tuple(near)))
    return rows


def python_reach(state):
    """(province, power, from_provinces, march) per the view's definition, by breadth-first search."""
    rows = set()
    for power in SCENARIO.nations:
        if not is_active(SCENARIO, state, power):
            continue
        mine = set(provinces_of(SCENARIO, state, power))
        dist = {h: 0 for h in SCENARIO.homes(power) if h in mine}
        frontier = list(dist)
        while frontier:
            nxt = []
            for p in frontier:
                for q in SCENARIO.neighbours(p):
                    if q in mine and q not in dist:
                        dist[q] = dist[p] + 1
                        nxt.append(q)
            frontier = nxt
        for p in SCENARIO.provinces:
            if p in mine:
                continue
            near = sorted(q for q in mine if p in SCENARIO.neighbours(q))
            if near:
                steps = [dist[q] + 1 for q in near if q in dist]
                rows.add((p, power, tuple(near), min(steps) if steps else None))
    return rows


def python_revenue(state, rules):
    out = []
    for w in SCENARIO.nations:
        r = power_revenue(SCENARIO, state, rules, w)
        out.append((w, is_active(SCENARIO, state, w), r.provinces, r.subjects, r.resources, r.penalty, r.total, r.civic_only))
    return out


def test_the_played_states_cover_the_hard_cases():
    assert len(STATES) > 60
    assert any(s.externals for s in STATES), "no external army occupied a province"
    assert any(not is_active(SCENARIO, s, w) for s in STATES for w in SCENARIO.nations), "no power fell"
    assert any(power_revenue(SCENARIO, s, RULES, w).civic_only for s in STATES for w in SCENARIO.nations)
    assert any(power_revenue(SCENARIO, s, RULES, w).resources for s in STATES for w in SCENARIO.nations)
    assert any(power_revenue(SCENARIO, s, RULES, w).penalty for s in STATES for w in SCENARIO.nations)


def test_ror_held_and_ror_active_are_the_rules_words():
    """The words the other views are written in: model.provinces_of and model.is_active, and the
    scenario's land borders both ways."""
    con = campaign_db(RULES)
    for state in STATES:
        put_state(con, state)
        held = set(con.execute("SELECT province, power FROM ror_held").fetchall())
        assert held == {(p, w) for w in SCENARIO.powers for p in provinces_of(SCENARIO, state, w)}, state.turn
        active = {w for (w,) in con.execute("SELECT power FROM ror_active").fetchall()}
        assert active == {w for w in SCENARIO.powers if is_active(SCENARIO, state, w)}, state.turn
    neighbours = set(con.execute("SELECT a, b FROM ror_neighbours").fetchall())
    assert neighbours == {(p, q) for p in SCENARIO.provinces for q in SCENARIO.neighbours(p)}


def test_ror_attackable_is_the_attack_rule():
    con = campaign_db(RULES)
    for state in STATES:
        put_state(con, state)
        got = {(a, t, p, tuple(f)) for a, t, p, f in
               con.execute("SELECT attacker, target, province, from_provinces FROM ror_attackable").fetchall()}
        assert got == python_attackable(state), state.turn


def test_which_provinces_rome_can_attack_at_the_start():
    con = campaign_db(RULES)
    put_state(con, STATES[0])
    rows = con.execute("SELECT target, province, province_revenue, resource FROM ror_attackable "
                       "WHERE attacker = 'Romans' ORDER BY province").fetchall()
    targets = {t for t, *_ in rows}
    assert targets == set(candidate_targets(SCENARIO, STATES[0], "Romans"))
    assert {p for _, p, *_ in rows} == {p for t in targets for p in border_provinces(
        SCENARIO, STATES[0], provinces_of(SCENARIO, STATES[0], "Romans"), t)}
    assert all(rev == SCENARIO.provinces[p].revenue and res == SCENARIO.provinces[p].resource for _, p, rev, res in rows)


def test_ror_revenue_next_is_power_revenue():
    con = campaign_db(RULES)
    for state in STATES:
        put_state(con, state)
        got = con.execute("SELECT power, active, provinces, subjects, resources, penalty, total, civic_only "
                          "FROM ror_revenue_next").fetchall()
        assert got == python_revenue(state, RULES), state.turn


def test_ror_revenue_next_with_the_subject_yield_replacing_provinces():
    rules = rules_with({"options": {"subject_yield": "replaces"}})
    assert rules.options.subject_yield == "replaces"
    con = campaign_db(rules)
    for state in STATES[::3]:
        put_state(con, state)
        got = con.execute("SELECT power, active, provinces, subjects, resources, penalty, total, civic_only "
                          "FROM ror_revenue_next").fetchall()
        assert got == python_revenue(state, rules), state.turn


def test_revenue_cases_built_by_hand():
    """A quarry monopoly (the seed's 20), a pair (10), a 1-province subject's civic-only 5, a
    3-province subject's 20, the -5 per home province lost, floored at 0 with the penalty left
    eating the civic-only part, and an occupied home counted lost."""
    con = campaign_db(RULES)
    quarries = [p for p, v in SCENARIO.provinces.items() if v.resource == "quarry"]
    samnites = list(SCENARIO.homes("Samnites"))
    bruttii = list(SCENARIO.homes("Bruttians and Lucanians"))
    cases = [
        TurnState(turn=3, control={**SCENARIO.start_control(), **{p: "Romans" for p in quarries}}),
        TurnState(turn=3, control={**SCENARIO.start_control(), **{p: "Romans" for p in quarries[:2]}}),
        TurnState(turn=3, control={**SCENARIO.start_control(), **{p: "Campanians" for p in bruttii}}),
        TurnState(turn=3, control={**SCENARIO.start_control(), **{p: "Romans" for p in samnites}}),
        # The Syracusans keep one home, lose two (-10 from 15+...), and hold the Bruttians' home as a subject.
        TurnState(turn=3, control={**SCENARIO.start_control(),
                                   **{p: "Romans" for p in SCENARIO.homes("Syracusan Greeks")[:2]},
                                   **{p: "Syracusan Greeks" for p in bruttii}}),
        TurnState(turn=3, control=SCENARIO.start_control(),
                  externals={"Carthage": ExternalArmy("Carthage", "Latium", 60, 3)}),
    ]
    found = []
    for state in cases:
        put_state(con, state)
        got = con.execute("SELECT power, active, provinces, subjects, resources, penalty, total, civic_only "
                          "FROM ror_revenue_next").fetchall()
        assert got == python_revenue(state, RULES)
        found.append({w: row for w, *row in got})
    assert found[0]["Romans"][3] == 20 and found[1]["Romans"][3] == 10  # monopoly, pair
    assert found[2]["Campanians"][2] == 5 and found[2]["Campanians"][6] == 5  # a 1-province subject: civic only
    assert found[3]["Romans"][2] == 20  # a 3-province subject
    assert found[4]["Syracusan Greeks"][4] == 10  # two homes lost
    assert found[5]["Romans"][4] == 5  # Latium occupied: a home not held


def test_ror_reach_is_land_adjacency_through_held_provinces():
    con = campaign_db(RULES)
    for state in STATES:
        put_state(con, state)
        got = {(p, w, tuple(f), m) for p, w, f, m in
               con.execute("SELECT province, power, from_provinces, march FROM ror_reach").fetchall()}
        assert got == python_reach(state), state.turn
        # Whoever may attack a province can reach it.
        reach = {(p, w) for p, w, *_ in got}
        assert {(p, a) for a, _t, p, _f in python_attackable(state)} <= reach


def test_ror_reach_says_who_holds_and_who_occupies():
    con = campaign_db(RULES)
    state = TurnState(turn=2, control=SCENARIO.start_control(),
                      externals={"Carthage": ExternalArmy("Carthage", "Campania", 60, 2)})
    put_state(con, state)
    rows = con.execute("SELECT power, held_by, occupied_by, march FROM ror_reach WHERE province = 'Campania'").fetchall()
    assert rows and all(h is None and o == "Carthage" for _w, h, o, _m in rows)
    assert "Campanians" in {w for w, *_ in rows}  # their own province, occupied: not held, reachable
    rows = con.execute("SELECT power, held_by, march FROM ror_reach WHERE province = 'Latium'").fetchall()
    assert rows and all(h == "Romans" and m == 1 for _w, h, m in rows)


@pytest.mark.parametrize("view", ["ror_attackable", "ror_revenue_next", "ror_reach", "ror_held", "ror_active"])
def test_the_views_answer_on_an_empty_state(view):
    con = campaign_db(RULES)
    assert con.execute(f"SELECT count(*) FROM {view}").fetchone()[0] == (9 if view == "ror_revenue_next" else 0)


def test_a_started_campaign_file_has_the_views(tmp_path, scenario_map):
    """`bellica campaign new` + `bellica turn start`: the ruleset's after_start installs them."""
    from bellica.cli import main

    map_path, out = scenario_map("rise-of-rome", tmp_path / "italy.duckdb"), tmp_path / "rome.duckdb"
    for args in (["campaign", "new", "--scenario", "rise-of-rome", "--map", map_path, "--out", out, "-q"],
                 ["turn", "start", out, "--seed", "3"]):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            assert not e.code
    con = duckdb.connect(str(out), read_only=True)
    try:
        views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
        assert {"ror_held", "ror_active", "ror_neighbours", "ror_attackable", "ror_revenue_next", "ror_reach"} <= views
        stored = dict(con.execute("SELECT power, revenue FROM ror_powers_state").fetchall())
        nxt = dict(con.execute("SELECT power, total FROM ror_revenue_next").fetchall())
        # Nothing has changed hands before the first revenue phase: next turn's revenue is the first turn's.
        assert nxt["Romans"] == sum(SCENARIO.provinces[p].revenue for p in SCENARIO.homes("Romans"))
        assert set(stored) == set(nxt)
    finally:
        con.close()


def doc_queries() -> dict[str, str]:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "sql.md").read_text()
    return dict(re.findall(r"^```sql ror=(\w+)\n(.*?)^```", text, re.S | re.M))


def test_the_queries_of_docs_sql_md_answer_what_the_page_says():
    queries = doc_queries()
    assert set(queries) == {"rome_attacks", "revenue_next", "reach_campania"}
    con = campaign_db(RULES)
    put_state(con, STATES[0])
    rows = con.execute(queries["rome_attacks"]).fetchall()
    assert {r[0] for r in rows} == {"Etruscans", "Samnites", "Campanians", "Senon Celts"}
    rows = con.execute(queries["revenue_next"]).fetchall()
    assert {r[0]: r[1] for r in rows} == {w: t for w, a, *_x, t, _c in python_revenue(STATES[0], RULES) if a}
    rows = con.execute(queries["reach_campania"]).fetchall()
    assert rows[0][0] == "Romans" and list(rows[0][1]) == ["Volsci"] and rows[0][2] == 1
    assert {r[0] for r in rows} == {"Romans", "Samnites"}
    for state in STATES[1:12]:  # they run on any state
        put_state(con, state)
        for q in queries.values():
            con.execute(q).fetchall()
