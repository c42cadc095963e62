"""The Mare Nostrum views (engine/mare_nostrum/sql/views.sql) against the Python rules.

Each view restates a rule in SQL; here its rows are compared with the rule's own functions
(battles.land_targets and reaches, actions.treasury and action_count, victory.standings) on the
states of whole campaigns played by a random player with the pure turn functions: every state
after each action (attacks declared, bases assailed, peace imposed, works ordered and standing,
fleets at sea), at the end of each turn, under the default rules and under the other options the
views read (one-way diagonals, one attack per base, the capital rule counting enemy-held homes,
the action floor on the treasury count only).  The views read the state tables only, so a state is
written as the rows the ruleset stores (storage.state_rows) in an in-memory campaign file.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import duckdb
import pytest

from bellica.engine.core.state import create_state_tables
from bellica.engine.mare_nostrum import battles, building, diplomacy
from bellica.engine.mare_nostrum.actions import action_count, treasury
from bellica.engine.mare_nostrum.lottery import lottery_for
from bellica.engine.mare_nostrum.model import provinces_of
from bellica.engine.mare_nostrum.rules import default_rules, rules_with
from bellica.engine.mare_nostrum.ruleset import MARE_NOSTRUM, install_views, state_rows, write_scenario
from bellica.engine.mare_nostrum.scenario import default_scenario
from bellica.engine.mare_nostrum.turn import begin_turn, end_turn, finish_actions, new_game
from bellica.geo.errors import InputError
from tests.bounds import stride

S = default_scenario()
R = default_rules()
VARIANT = rules_with({"options": {"diagonals": "as_written", "one_attack_per_base": True,
                                  "capital_rule_counts": "enemy_held", "action_floor": "treasury"}})


def campaign_db(rules) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    create_state_tables(con, MARE_NOSTRUM.schema)
    write_scenario(con, S, rules)
    install_views(con)
    return con


def put_state(con, state) -> None:
    """Write ``state`` as the ruleset stores it (one multi-row INSERT a table: fast enough for ~1,300 states)."""
    for table, rows in state_rows(S, state).items():
        con.execute(f"DELETE FROM {table}")
        if rows:
            cols = list(next(iter(rows.values())))
            one = "(" + ", ".join("?" * len(cols)) + ")"
            con.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES " + ", ".join([one] * len(rows)),
                        [r[c] for r in rows.values() for c in cols])


def play(rules, seed: int, turns: int = 15) -> list:
    """Every state of a campaign a random player plays: after each action, and each turn's end."""
    rnd, lot = random.Random(seed), lottery_for(rules, seed)
    state, out = new_game(S, rules), []
    out.append(state)
    for _ in range(turns):
        if state.winner:
            break
        state, _ = begin_turn(S, state, rules, lot)
        out.append(state)
        while state.phase == "actions":
            who = state.acting
            for _try in range(12):
                if state.nations[who].actions_left <= 0:
                    break
                kind = rnd.choice(("attack", "attack", "attack", "build", "build", "peace", "grain"))
                try:
                    if kind == "attack":
                        options = battles.land_targets(S, state, rules, who)
                        if not options:
                            continue
                        state, _ = battles.land_attack(S, state, rules, who, *rnd.choice(options))
                    elif kind == "build":
                        mine = provinces_of(S, state, who)
                        work = rnd.choice(("fortification", "suburbs", "temple", "fleet"))
                        p = rnd.choice(mine)
                        sea = rnd.choice(S.provinces[p].seas) if work == "fleet" and S.provinces[p].seas else ""
                        state, _ = building.build(S, state, rules, who, work, p, sea)
                    elif kind == "peace":
                        later = [n for n in state.order[state.current + 1:] if state.nations[n].playing]
                        if not later:
                            continue
                        state, _ = diplomacy.impose_peace(S, state, rules, lot, who, rnd.choice(later))
                    else:
                        state, _ = diplomacy.distribute_grain(S, state, rules, who)
                except InputError:
                    continue
                out.append(state)
            state, _ = finish_actions(S, state, rules, who)
            out.append(state)
        results = {a.target: rnd.choice(("attacker", "attacker", "defender")) for a in state.attacks}
        state, _v, _ = end_turn(S, state, rules, lot, results)
        out.append(state)
    return out


STATES = [s for seed in (1, 290, 31) for s in play(R, seed)]
VARIANT_STATES = [s for seed in (5, 77) for s in play(VARIANT, seed, turns=10)]


def python_attackable(state, rules):
    rows: dict[tuple[str, str], list[str]] = {}
    for nation in state.playing():
        for base, target in battles.land_targets(S, state, rules, nation):
            rows.setdefault((nation, target), []).append(base)
    return {(n, t, tuple(sorted(b))) for (n, t), b in rows.items()}


def python_actions(state, rules):
    out = []
    for n in S.nations:
        ns = state.nations[n]
        if not ns.playing:
            continue
        points = treasury(S, state, rules, n)
        key = state.events.get(n)
        ev = rules.event_by_key(key).actions if key else 0
        out.append((n, len(provinces_of(S, state, n)), points, action_count(points, ev, ns.stability, rules),
                    ns.actions, ns.used))
    return out


def python_reach(state, rules):
    rows = set()
    for nation in state.playing():
        mine = provinces_of(S, state, nation)
        for p in S.provinces:
            if state.control.get(p) == nation:
                continue
            near = sorted(q for q in mine if q != p and battles.reaches(S, rules, q, p))
            if near:
                rows.add((p, nation, tuple(near), tuple(q for q in near if p in S.adjacency[q])))
    return rows


def python_richness(state, rules):
    from bellica.engine.mare_nostrum.victory import standings

    return [(s.nation, s.provinces, s.richness, i + 1) for i, s in enumerate(standings(S, state, rules))]


def test_the_played_states_cover_the_hard_cases():
    every = STATES + VARIANT_STATES
    assert len(STATES) > 300
    assert any(s.peace for s in every), "no peace was imposed"
    assert any(a.kind == "invasion" for s in every for a in s.attacks), "no invasion"
    assert any(s.nations[n].stability <= R.stability.penalty_at for s in every for n in s.nations if s.nations[n].playing)
    assert any(not s.nations[n].playing for s in every for n in s.nations), "no nation left the game"
    assert any(s.works_of(p).temples for s in every for p in S.provinces), "no temple stood"
    assert any(s.fleets for s in every), "no fleet at sea"
    assert any(s.control.get(p) != S.provinces[p].nation for s in every for p in S.provinces if S.provinces[p].capital)
    # a capital became attackable once two other homes were lost
    assert any(S.provinces[t].capital for s in every for n in s.playing() for _b, t in battles.land_targets(S, s, R, n))


@pytest.mark.parametrize("rules,states", [(R, STATES), (VARIANT, VARIANT_STATES)], ids=["default", "variant"])
def test_the_views_are_the_rules_on_played_states(rules, states):
    """A stride of the played states (about 650 in all: every tenth in make test, all in make
    fuzz; tests/bounds.py), each view against its rule."""
    con = campaign_db(rules)
    for state in states[::stride()]:
        put_state(con, state)
        where = (state.turn, state.phase, state.acting)
        got = {(a, p, tuple(f)) for a, p, f in
               con.execute("SELECT attacker, province, from_provinces FROM mn_attackable").fetchall()}
        attackable = python_attackable(state, rules)
        assert got == attackable, where
        got = con.execute("SELECT nation, provinces, treasury, actions, allotted, used FROM mn_actions").fetchall()
        assert got == python_actions(state, rules), where
        if state.phase == "actions" and state.current == 0 and not state.nations[state.acting].used:
            assert all(a == al for _n, _p, _t, a, al, _u in got), where  # at the turn's start: counted = allotted
        got = {(p, n, tuple(f), tuple(b)) for p, n, f, b in
               con.execute("SELECT province, nation, from_provinces, borders FROM mn_reach").fetchall()}
        assert got == python_reach(state, rules), where
        assert {(n, p) for n, p, _f in attackable} <= {(n, p) for p, n, *_ in got}  # who may attack can reach
        got = con.execute("SELECT nation, provinces, richness, place FROM mn_richness").fetchall()
        assert got == python_richness(state, rules), where


def test_mn_attackable_says_who_acts_and_what_holds_it():
    con = campaign_db(R)
    state = next(s for s in STATES if s.phase == "actions" and s.turn == 2)
    put_state(con, state)
    rows = con.execute("SELECT attacker, province, held_by, acting, actions_left, fortified FROM mn_attackable").fetchall()
    assert rows
    for a, p, held, acting, left, fortified in rows:
        assert held == state.control[p] and acting == (a == state.acting)
        assert left == state.nations[a].actions_left and fortified == (state.works_of(p).fortifications > 0)


def test_mn_actions_from_the_seed_numbers():
    """One action per 3 points, at least one; -1 at stability 3 or less; the event's change."""
    con = campaign_db(R)
    base = STATES[1]  # turn 1 begun
    state = base.with_nation("Romans", stability=3)
    put_state(con, state)
    row = con.execute("SELECT treasury, from_treasury, stability_penalty, actions FROM mn_actions "
                      "WHERE nation = 'Romans'").fetchone()
    ev = R.event_by_key(state.events["Romans"]).actions
    assert row == (6, 2, 1, max(1, 2 + ev - 1))
    assert R.treasury.points_per_action == 3 and R.stability.penalty_at == 3


def test_who_can_reach_baetica_by_land():
    con = campaign_db(R)
    put_state(con, STATES[0])
    rows = con.execute("SELECT nation, from_provinces, borders, passages FROM mn_reach WHERE province = 'Baetica'").fetchall()
    # Carthage holds Baetica; Celtiberia (Gallic) reaches it by the seed's passage.
    assert rows == [("Gauls", ["Celtiberia"], [], ["Celtiberia"])]
    con.execute("UPDATE rules SET value = '\"as_written\"' WHERE key = 'options.diagonals'")
    assert con.execute("SELECT nation FROM mn_reach WHERE province = 'Celtiberia'").fetchall() == [("Carthaginians",)]
    # as written, Baetica is reached from Celtiberia (the seed names it), Celtiberia from Baetica too
    assert [r[0] for r in con.execute("SELECT nation FROM mn_reach WHERE province = 'Baetica'").fetchall()] == ["Gauls"]


def test_richness_counts_the_seed_points():
    """2 a temple, 1 a suburb, a fleet, a fortification, a stability level."""
    from dataclasses import replace

    from bellica.engine.mare_nostrum.model import Fleet, Works

    con = campaign_db(R)
    state = replace(STATES[0], works={"Latium": Works(1, 1, 1), "Etruria": Works(0, 1, 0)},
                    fleets=(Fleet(1, "Romans", "Mare Tyrrhenum"),))
    put_state(con, state)
    row = con.execute("SELECT richness, temples, suburbs, fortifications, fleets, stability FROM mn_richness "
                      "WHERE nation = 'Romans'").fetchone()
    assert row == (2 + 2 + 1 + 1 + 5, 1, 2, 1, 1, 5)


@pytest.mark.parametrize("view", ["mn_attackable", "mn_actions", "mn_reach", "mn_richness"])
def test_the_views_answer_on_an_empty_state(view):
    con = campaign_db(R)
    assert con.execute(f"SELECT count(*) FROM {view}").fetchone()[0] == 0


def test_a_started_campaign_file_has_the_views(tmp_path, scenario_map):
    """`bellica campaign new` + `bellica turn start`: the ruleset's after_start installs them; the
    campaign's sea_areas are the scenario's quadrants."""
    from bellica.cli import main

    map_path, out = scenario_map("mare-nostrum", tmp_path / "med.duckdb", res=4), tmp_path / "mn.duckdb"
    for args in (["campaign", "new", "--scenario", "mare-nostrum", "--map", map_path, "--out", out, "-q"],
                 ["turn", "start", out, "--seed", "3"]):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            assert not e.code
    con = duckdb.connect(str(out), read_only=True)
    try:
        views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
        assert {"mn_attackable", "mn_actions", "mn_reach", "mn_richness"} <= views
        assert con.execute("SELECT count(*) FROM mn_richness").fetchone()[0] == 6
        seas = {r[0] for r in con.execute("SELECT name FROM sea_areas").fetchall()}
        assert seas and seas <= set(S.seas)
    finally:
        con.close()


def doc_queries() -> dict[str, str]:
    text = (Path(__file__).resolve().parents[2] / "docs" / "sql.md").read_text()
    return dict(re.findall(r"^```sql mn=(\w+)\n(.*?)^```", text, re.S | re.M))


def test_the_queries_of_docs_sql_md_answer_what_the_page_says():
    queries = doc_queries()
    assert set(queries) == {"romans_attack", "actions", "reach_baetica", "richness"}
    con = campaign_db(R)
    put_state(con, STATES[0])
    rows = con.execute(queries["romans_attack"]).fetchall()
    assert {r[0] for r in rows} == {t for b, t in battles.land_targets(S, STATES[0], R, "Romans")}
    assert "Latium" not in {r[0] for r in rows}
    put_state(con, STATES[1])
    rows = con.execute(queries["actions"]).fetchall()
    assert {r[0]: r[-1] for r in rows} == {n: a for n, _p, _t, a, _al, _u in python_actions(STATES[1], R)}
    put_state(con, STATES[0])
    assert con.execute(queries["reach_baetica"]).fetchall()[0][0] == "Gauls"
    rows = con.execute(queries["richness"]).fetchall()
    assert len(rows) == 6 and all(r[2] == 6 and r[3] == 5 and r[4] for r in rows)
    for state in STATES[2:40:5]:  # they run on any state
        put_state(con, state)
        for q in queries.values():
            con.execute(q).fetchall()
