"""Crossing straits (the seed's "Crossing straits"), on land: geometry, the conditions, movement, orders.

The board: a channel of Coast hexes runs north-south just east of the centre ("3" and the hexes
above and below it).  The centre and "3 3" face each other across the strait hex "3"; "3" lies in
Mare Tyrrhenum and Mare Ionium (a zone border, like the strait between Corsica and Sardinia).  West
of "9", the Coast hex "9 9" touches only two land hexes next to each other: it is no strait.
"""

from dataclasses import replace

import pytest

from bellica.engine.vae_victis.model import ArmyOrders, Siege
from bellica.engine.vae_victis.movement import resolve_movement
from bellica.engine.vae_victis.orders import IllegalOrderError, validate_orders, walk_moves
from bellica.engine.vae_victis.straits import crossing_problem, lands_across, strait_cells, strait_crossings_from
from tests.engine.boards import campaign_db, sketch

CHANNEL = ["3 1 11", "3 1", "3", "3 5", "3 5 7"]
WEST = {"9 9": "coast", "9 9 5": "sea", "9 9 7": "sea", "9 9 9": "sea", "9 9 11": "sea"}


def _board(terrain=None, structures=()):
    water = {r: "coast" for r in CHANNEL}
    water.update(WEST)
    zones = {r: ["Mare Tyrrhenum"] for r in water}
    zones["3"] = ["Mare Tyrrhenum", "Mare Ionium"]
    return sketch(radius=4, water=water, sea_zones=zones, terrain=terrain or {}, structures=structures)


TM = _board(terrain={"3 3": "hills"})


def move(tm, state, orders, **kw):
    return resolve_movement(tm.board, state, {a: ArmyOrders(a, tuple(int(x) for x in s.split()))
                                              for a, s in orders.items()}, **kw)


def with_superiority(state, levels):
    return replace(state, superiority=levels)


# --- geometry ---------------------------------------------------------------------------


def test_a_strait_is_a_coast_hex_between_two_land_hexes_not_adjacent_to_each_other():
    st = strait_cells(TM.board)
    c, s3, e = TM.cell(""), TM.cell("3"), TM.cell("3 3")
    assert (min(c, e), max(c, e)) in st[s3]
    assert e in lands_across(TM.board, s3, c) and c in lands_across(TM.board, s3, e)
    # "9 9" touches only "9" and "9 9 1", which are next to each other: no strait.
    assert TM.cell("9 9") not in st
    assert strait_cells(TM.board) is st  # computed once per board (board.derived)
    assert (3, s3, 3, e) in strait_crossings_from(TM.board, c)


def test_python_straits_equal_the_map_view():
    con = campaign_db(TM.board)
    rows = con.execute("SELECT cell, land_a, land_b FROM straits").fetchall()
    sql = {}
    for cell, a, b in rows:
        sql.setdefault(cell, set()).add((a, b))
    assert {c: frozenset(p) for c, p in sql.items()} == strait_cells(TM.board)


# --- the seed's conditions ----------------------------------------------------------------


def test_strait_costs_no_mp_beyond_the_land_hex_and_the_army_stops():
    # Seed: "Crossing a strait in itself costs no MP but once having crossed the strait and moved
    # into the adjacent land hex (at the MP cost attached to its terrain), the army will be
    # considered to have completed its movement in that land hex and will make no further movement".
    r = move(TM, TM.state([(9, "roma", "")]), {9: "3 3 3"})
    assert r.paths[9] == (TM.cell(""), TM.cell("3 3"))
    assert r.mp_spent[9] == 6  # hills, and nothing for the strait
    assert r.halted[9].kind == "strait" and TM.cell("3") in r.halted[9].text and "stops" in r.halted[9].text
    (ev,) = [e for e in r.events if e.data.get("army") == 9]
    assert ev.data["straits"] == [TM.cell("3")] and f"crossed the strait at {TM.cell('3')}" in ev.text
    assert r.state.armies[0].cell == TM.cell("3 3")


def test_a_crossing_after_land_moves_pays_each_hex_and_needs_the_mp():
    tm = _board(terrain={"3 3": "mountains"})
    r = move(tm, tm.state([(9, "roma", "9")]), {9: "3 3 3"})  # 2 MP to the centre, then 12 > 10 left
    assert r.paths[9] == (tm.cell("9"), tm.cell("")) and r.halted[9].kind == "mp"
    assert "across the strait" in r.halted[9].text and "costs 12 MP" in r.halted[9].text
    r = move(TM, TM.state([(9, "roma", "9")]), {9: "3 3 3"})
    assert r.paths[9][-1] == TM.cell("3 3") and r.mp_spent[9] == 2 + 6


@pytest.mark.parametrize("enemy", ["1", "3 1", "3 3"])
def test_refused_when_an_enemy_army_is_next_to_the_strait(enemy):
    # Seed: "if the strait being crossed is not within the ZoC of another faction's army"; an army
    # within 1 hex of the strait hex, on land ("1", "3 3") or at sea ("3 1", a navy).
    s = TM.state([(9, "roma", ""), (1, "carthago", enemy)])
    r = move(TM, s, {9: "3 3"}, naval={1} if enemy == "3 1" else ())
    assert r.paths[9] == (TM.cell(""),)
    assert r.halted[9].kind == "strait_closed" and "army 1 (carthago)" in r.halted[9].text
    assert crossing_problem(TM.board, s, "roma", TM.cell("3"), TM.cell("3 3")).startswith("army 1 (carthago)")
    alone = TM.state([(1, "carthago", enemy)])  # its own army does not close the strait to its faction
    assert crossing_problem(TM.board, alone, "carthago", TM.cell("3"), TM.cell("3 3")) is None


def test_an_enemy_army_that_moved_away_first_no_longer_closes_the_strait():
    # Evaluated when the crossing starts, with the armies where they stand then: army 1 leaves "1"
    # at MP 2 (farmlands), army 9 first stands still twice and starts the crossing at MP 3.
    s = TM.state([(9, "roma", ""), (1, "carthago", "1")])
    r = move(TM, s, {9: "0 0 3 3", 1: "11"})
    assert r.paths[9][-1] == TM.cell("3 3") and r.halted[9].kind == "strait"


@pytest.mark.parametrize("kind, controller, sieged, closed", [
    ("city", "carthago", False, True),
    ("city", "carthago", True, False),  # sieged structures have no ZoC
    ("city", "roma", False, False),
    ("city", None, False, False),  # nobody's structures have no ZoC
    ("town", "carthago", False, False),  # the seed names Cities only (and a Town reaches 1 Coast hex)
])
def test_refused_in_the_zoc_of_an_enemy_city(kind, controller, sieged, closed):
    # A City 2 hexes east of the strait covers it (2 Coast hexes around).
    tm = _board(structures=[("Rhegium", kind, "3 3 3", controller)])
    sieges = [Siege("Rhegium", "roma", (8,), 3, 3, 1)] if sieged else []
    s = tm.state([(9, "roma", "")], sieges=sieges)
    problem = crossing_problem(tm.board, s, "roma", tm.cell("3"), tm.cell("3 3"))
    if closed:
        assert "ZoC of the City of Rhegium (carthago)" in problem
        r = move(tm, s, {9: "3 3"})
        assert r.paths[9] == (tm.cell(""),) and r.halted[9].kind == "strait_closed"
    else:
        assert problem is None


def test_refused_when_superiority_is_0_in_every_zone_of_the_strait():
    s = with_superiority(TM.state([(9, "roma", "")]), {"Mare Tyrrhenum": {"roma": 0}, "Mare Ionium": {"roma": 0}})
    problem = crossing_problem(TM.board, s, "roma", TM.cell("3"), TM.cell("3 3"))
    assert "0 in Mare Ionium, 0 in Mare Tyrrhenum" in problem and "at least 1" in problem
    r = move(TM, s, {9: "3 3"})
    assert r.paths[9] == (TM.cell(""),) and r.halted[9].kind == "strait_closed"


@pytest.mark.parametrize("ionium, tyrrhenum", [(1, 0), (0, 1), (3, 3)])
def test_allowed_with_superiority_1_in_one_of_two_zones(ionium, tyrrhenum):
    # Seed: "at least 1 ... (or in at least one of the sea zones, if the strait to be crossed is
    # located in several sea zones)".
    s = with_superiority(TM.state([(9, "roma", "")]),
                         {"Mare Tyrrhenum": {"roma": tyrrhenum}, "Mare Ionium": {"roma": ionium}})
    assert crossing_problem(TM.board, s, "roma", TM.cell("3"), TM.cell("3 3")) is None
    assert move(TM, s, {9: "3 3"}).paths[9][-1] == TM.cell("3 3")


def test_the_base_level_counts_where_nothing_was_published():
    # No superiority published: every faction has the rules' base level (2) everywhere.
    assert crossing_problem(TM.board, TM.state([(9, "roma", "")]), "roma", TM.cell("3"), TM.cell("3 3")) is None


def test_two_armies_crossing_a_strait_towards_each_other_do_not_pass():
    # Both start next to the strait, each is within 1 hex of it: neither may cross.
    s = TM.state([(9, "roma", ""), (1, "carthago", "3 3")])
    r = move(TM, s, {9: "3 3", 1: "9 9"})
    assert r.halted[9].kind == r.halted[1].kind == "strait_closed"


def test_a_friendly_army_does_not_pass_through_the_landing_hex():
    # The crossing ends the movement: it cannot pass through a friendly army standing across.
    s = TM.state([(9, "roma", ""), (10, "roma", "3 3")])
    r = move(TM, s, {9: "3 3 3"})
    assert r.paths[9] == (TM.cell(""),) and r.halted[9].kind == "friendly"


# --- orders -----------------------------------------------------------------------------


def test_a_crossing_is_two_moves_into_the_strait_and_onto_the_land_across():
    s = TM.state([(9, "roma", "9")])
    validate_orders(TM.board, s, "roma", {9: ArmyOrders(9, (3, 3, 3))})
    assert walk_moves(TM.board, TM.cell("9"), (3, 3, 3)) == [TM.cell("9"), TM.cell(""), TM.cell("3"), TM.cell("3 3")]


@pytest.mark.parametrize("moves, index, words", [
    ((3, 1), 1, "does not land on the hex across it"),  # strait, then up the channel
    ((3, 0, 3), 1, "does not land on the hex across it"),  # a "0" on the strait hex
    ((3,), 1, "no further move"),
    ((9, 9), 2, "no strait can be crossed from hex"),  # "9 9" is no strait
])
def test_illegal_crossings_name_the_crossings_open(moves, index, words):
    with pytest.raises(IllegalOrderError) as e:
        validate_orders(TM.board, TM.state([(9, "roma", "")]), "roma", {9: ArmyOrders(9, moves)})
    (p,) = e.value.problems
    assert p.index == index and words in p.message
    if index == 1:
        assert f"clock 3 then 3 (strait {TM.cell('3')} to hex {TM.cell('3 3')})" in p.message


def test_a_crossing_counts_as_one_move_against_the_cap():
    s = TM.state([(9, "roma", "")])
    validate_orders(TM.board, s, "roma", {9: ArmyOrders(9, (0,) * 11 + (3, 3))})  # 12 moves as the rules count
    with pytest.raises(IllegalOrderError, match="at most 12 moves"):
        validate_orders(TM.board, s, "roma", {9: ArmyOrders(9, (0,) * 12 + (3, 3))})


# --- the shipped First Punic War map ---------------------------------------------------------


@pytest.fixture(scope="module")
def punic(tmp_path_factory, first_punic_war):
    """The shipped scenario, started: (board, state at round 1)."""
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis.board import board_from_duckdb
    from bellica.engine.vae_victis.state import load_state

    path = first_punic_war(tmp_path_factory.mktemp("straits") / "fpw.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=1)
        sql = {r[0] for r in c.con.execute("SELECT cell FROM straits").fetchall()}
        board = board_from_duckdb(c.con)
        state = load_state(c)
    return board, state, sql


def _land_masses(board):
    mass = {}
    for start, h in board.hexes.items():
        if h.kind != "land" or start in mass:
            continue
        mass[start] = start
        stack = [start]
        while stack:
            x = stack.pop()
            for n in board.sides.get(x, {}).values():
                if board.hexes[n].kind == "land" and n not in mass:
                    mass[n] = start
                    stack.append(n)
    return mass


@pytest.mark.parametrize("a, b, lat, lng, faction", [
    ("Messana", "Rhegium", 38.2, 15.6, "Roma"),  # Sicilia and the Italian toe
    ("Olbia", "Alalia", 41.3, 9.2, "Carthago"),  # Sardinia and Corsica
])
def test_the_seed_straits_are_crossable_on_the_shipped_map(punic, a, b, lat, lng, faction):
    board, state, sql = punic
    assert set(strait_cells(board)) == sql
    mass = _land_masses(board)
    side_a, side_b = mass[board.structures[a].cell], mass[board.structures[b].cell]
    assert side_a != side_b  # two islands / island and mainland, not joined by land
    found = [(s, p) for s, pairs in strait_cells(board).items() for p in pairs
             if {mass[p[0]], mass[p[1]]} == {side_a, side_b}]
    assert found, f"no strait hex between {a} and {b}"
    for s, (x, y) in found:
        h = board.hexes[s]
        assert abs(h.lat - lat) < 0.35 and abs(h.lng - lng) < 0.35
        assert crossing_problem(board, state, faction, s, y) is None
        assert crossing_problem(board, state, faction, s, x) is None


def test_an_army_crosses_the_strait_of_messina_on_the_shipped_map(punic):
    board, state, _ = punic
    messana, rhegium = board.structures["Messana"].cell, board.structures["Rhegium"].cell
    army = next(x for x in state.armies if x.cell == messana)
    strait = next(s for s, pairs in strait_cells(board).items() if (min(messana, rhegium), max(messana, rhegium)) in pairs)
    c1 = next(k for k, n in board.sides[messana].items() if n == strait)
    c2 = next(k for k, n in board.sides[strait].items() if n == rhegium)
    # The Roman army in Rhegium marches out of the way; it has left (at most 6 MP) when army 14 lands.
    other = next(x for x in state.armies if x.cell == rhegium)
    away = next(k for k, n in sorted(board.sides[rhegium].items()) if board.hexes[n].kind == "land"
                and n not in lands_across(board, strait, messana) and board.hexes[n].terrain in ("farmlands", "hills"))
    orders = {army.id: ArmyOrders(army.id, (c1, c2)), other.id: ArmyOrders(other.id, (away,))}
    validate_orders(board, state, None, orders)
    r = resolve_movement(board, state, orders)
    assert r.paths[army.id][-1] == rhegium and r.halted[army.id].kind == "strait"
