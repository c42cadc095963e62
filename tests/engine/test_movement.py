"""Movement built from the seed's own numbers ("Movement", "Zones of Control")."""

from dataclasses import replace

import pytest

from bellica.engine.vae_victis.model import ArmyOrders, Siege
from bellica.engine.vae_victis.movement import entry_cost, resolve_movement
from bellica.engine.vae_victis.rules import default_rules
from bellica.engine.vae_victis.orders import IllegalOrderError
from tests.engine.boards import sketch


def move(tm, state, orders, **kw):
    return resolve_movement(tm.board, state, {a: ArmyOrders(a, tuple(int(x) for x in s.split()))
                                              for a, s in orders.items()}, **kw)


# --- costs -----------------------------------------------------------------------------

TERRAIN_COSTS = [("farmlands", 2), ("desert", 4), ("hills", 6), ("marshes", 8), ("forests", 10), ("mountains", 12)]


@pytest.mark.parametrize("terrain, mp", TERRAIN_COSTS)
def test_seed_terrain_costs(terrain, mp):
    tm = sketch(radius=2, terrain={"3": terrain})
    r = move(tm, tm.state([(9, "roma", "")]), {9: "3"})
    assert r.mp_spent[9] == mp and r.paths[9] == (tm.cell(""), tm.cell("3"))
    assert entry_cost(tm.board, tm.cell(""), tm.cell("3"), "roma").mp == mp


@pytest.mark.parametrize("terrain, mp", TERRAIN_COSTS)
def test_road_halves_through_a_road_side(terrain, mp):
    # The road runs 9 -> centre -> 3.  From the centre, 3 is entered through the side the road crosses.
    tm = sketch(radius=2, terrain={"3": terrain}, roads=[["9", "", "3"]])
    assert entry_cost(tm.board, tm.cell(""), tm.cell("3"), "roma").mp == mp // 2


def test_road_hex_entered_off_the_road_costs_full():
    # Hex 3 holds the road, but from hex 1 the army crosses a side no road crosses.
    tm = sketch(radius=2, terrain={"3": "hills"}, roads=[["9", "", "3"]])
    assert tm.board.sides[tm.cell("1")][5] == tm.cell("3")
    assert entry_cost(tm.board, tm.cell("1"), tm.cell("3"), "roma").mp == 6
    r = move(tm, tm.state([(9, "roma", "1")]), {9: "5"})
    assert r.mp_spent[9] == 6


def test_logistics_line_takes_one_more():
    tm = sketch(radius=2, terrain={"3": "hills"}, roads=[["9", "", "3"]])
    edges = {"roma": {(tm.cell(""), tm.cell("3"))}}
    c = entry_cost(tm.board, tm.cell(""), tm.cell("3"), "roma", logistics_road_edges=edges)
    assert (c.mp, c.raw) == (2, 2)  # hills 6 / 2 - 1
    # the edge is the line's, whichever way it is listed; another faction's line gives nothing
    assert entry_cost(tm.board, tm.cell("3"), tm.cell(""), "roma", logistics_road_edges=edges).mp == 0 + 1
    assert entry_cost(tm.board, tm.cell(""), tm.cell("3"), "carthago", logistics_road_edges=edges).mp == 3
    # not halved -> no -1 even on a line edge (the -1 only follows the halving)
    tm2 = sketch(radius=2, terrain={"3": "hills"})
    assert entry_cost(tm2.board, tm2.cell(""), tm2.cell("3"), "roma", logistics_road_edges=edges).mp == 6


def test_farmland_road_on_logistics_is_zero_raw_clamped_to_one():
    tm = sketch(radius=2, roads=[["", "3"]])
    c = entry_cost(tm.board, tm.cell(""), tm.cell("3"), "roma",
                   logistics_road_edges={"roma": {(tm.cell(""), tm.cell("3"))}})
    assert (c.mp, c.raw) == (1, 0)


def test_river_adds_one_after_the_road_unless_town():
    tm = sketch(radius=2, terrain={"3": "marshes", "9": "marshes"}, rivers=["3", "9"],
                roads=[["9", "", "3"]], structures=[("Ostia", "town", "9", "roma")])
    assert entry_cost(tm.board, tm.cell(""), tm.cell("3"), "roma").mp == 8 // 2 + 1
    assert entry_cost(tm.board, tm.cell(""), tm.cell("9"), "roma").mp == 8 // 2  # town: no river penalty
    assert entry_cost(tm.board, tm.cell("1"), tm.cell("3"), "roma").mp == 9


def test_clamp_to_twelve_and_navy_zoc_last():
    tm = sketch(radius=2, terrain={"3": "mountains", "9": "farmlands"}, rivers=["3"], roads=[["", "9"]])
    assert entry_cost(tm.board, tm.cell(""), tm.cell("3"), "roma").mp == 12  # 12 + 1 clamped
    navy = {"carthago": {tm.cell("3"), tm.cell("9")}}
    assert entry_cost(tm.board, tm.cell(""), tm.cell("3"), "roma", navy_zoc=navy).mp == 12
    logi = {"roma": {(tm.cell(""), tm.cell("9"))}}
    c = entry_cost(tm.board, tm.cell(""), tm.cell("9"), "roma", navy_zoc=navy, logistics_road_edges=logi)
    assert (c.mp, c.raw) == (1, 1)  # 2/2 - 1 = 0, +1 navy = 1
    assert entry_cost(tm.board, tm.cell(""), tm.cell("9"), "carthago", navy_zoc=navy).mp == 1  # own navy
    assert entry_cost(tm.board, tm.cell("1"), tm.cell("9"), "roma", navy_zoc=navy).mp == 3  # 2 + 1


def test_structure_road_option():
    tm = sketch(radius=2, roads=[["9", "", "3"]], structures=[("Ostia", "town", "", "roma")], terrain={"": "hills"})
    assert entry_cost(tm.board, tm.cell("1"), tm.cell(""), "roma").mp == 6
    assert entry_cost(tm.board, tm.cell("1"), tm.cell(""), "roma",
                      options=replace(default_rules().movement, structure_road_any_side=True)).mp == 3


def test_stand_still_costs_one_each():
    tm = sketch(radius=2)
    r = move(tm, tm.state([(9, "roma", "")]), {9: "0 0 0 3"})
    assert r.mp_spent[9] == 3 + 2 and r.paths[9] == (tm.cell(""), tm.cell("3"))


def test_twelve_zeros_then_nothing():
    tm = sketch(radius=2)
    r = move(tm, tm.state([(9, "roma", "")]), {9: " ".join(["0"] * 13)})
    assert r.mp_spent[9] == 12 and r.halted[9].kind == "mp" and r.halted[9].move == 13


def test_unaffordable_move_stops_the_army():
    # forests 10 then hills 6: only 2 MP left, so the army stays in the forest.
    tm = sketch(radius=3, terrain={"3": "forests", "3 3": "hills", "3 3 3": "farmlands"})
    r = move(tm, tm.state([(9, "roma", "")]), {9: "3 3 3"})
    assert r.paths[9] == (tm.cell(""), tm.cell("3")) and r.mp_spent[9] == 10
    h = r.halted[9]
    assert h.kind == "mp" and h.move == 2 and "costs 6 MP" in h.text and "2 MP are left" in h.text


def test_mountains_only_as_a_first_move():
    tm = sketch(radius=2, terrain={"3": "mountains", "9": "mountains"})
    r = move(tm, tm.state([(9, "roma", "")]), {9: "3"})
    assert r.mp_spent[9] == 12
    r = move(tm, tm.state([(9, "roma", "")]), {9: "0 3"})
    assert r.mp_spent[9] == 1 and r.halted[9].kind == "mp"


def test_impassable_orders_are_refused_before_anything_moves():
    tm = sketch(radius=2, terrain={"3": "peaks"}, water={"9": "lake"})
    for s in ("3", "9"):
        with pytest.raises(IllegalOrderError):
            move(tm, tm.state([(9, "roma", "")]), {9: s})


# --- ZoC ---------------------------------------------------------------------------------


def test_halts_on_entering_enemy_army_zoc():
    tm = sketch(radius=4)
    s = tm.state([(9, "roma", ""), (1, "carthago", "3 3 3")])
    r = move(tm, s, {9: "3 3 3 1"})
    assert r.paths[9][-1] == tm.cell("3 3") and r.mp_spent[9] == 4
    assert r.halted[9].kind == "zoc" and "army 1 (carthago)" in r.halted[9].text
    assert any("halted by ZoC of army 1" in e.text and "spent 4 MP" in e.text for e in r.events)


def test_zoc_is_judged_on_current_positions():
    # Army 1 walks away before army 9 gets there: no halt.
    tm = sketch(radius=4)
    s = tm.state([(9, "roma", ""), (1, "carthago", "3 3 3")])
    r = move(tm, s, {9: "3 3", 1: "3"})
    assert r.paths[9][-1] == tm.cell("3 3") and 9 not in r.halted
    # Army 1 comes towards army 9 and stops it on the way.
    r = move(tm, s, {9: "3 3", 1: "9"})
    assert 9 in r.halted and r.halted[9].kind == "zoc"


def test_enemy_city_zoc_halts_one_ring_out_town_only_its_hex():
    tm = sketch(radius=4, structures=[("Capua", "city", "3 3 3", "carthago"), ("Cumae", "town", "9 9", "carthago")])
    s = tm.state([(9, "roma", "")])
    r = move(tm, s, {9: "3 3 3"})
    assert r.paths[9][-1] == tm.cell("3 3") and "Capua (carthago)" in r.halted[9].text
    r = move(tm, s, {9: "9 9 9"})
    assert r.paths[9][-1] == tm.cell("9 9") and "Cumae" in r.halted[9].text


def test_own_sieged_and_unowned_structures_do_not_halt():
    tm = sketch(radius=4, structures=[("Capua", "city", "3 3", "carthago"), ("Cumae", "town", "9 9", None),
                                      ("Roma", "city", "1 1", "roma")])
    sieged = tm.state([(9, "roma", "")], sieges=[Siege("Capua", "syracusae", (), 3, 3, 1)])
    r = move(tm, sieged, {9: "3 3 3"})
    assert r.paths[9][-1] == tm.cell("3 3 3") and 9 not in r.halted
    r = move(tm, tm.state([(9, "roma", "")]), {9: "9 9 9 3 1 1"})
    assert 9 not in r.halted and r.paths[9][-1] == tm.cell("9 9 9 3 1 1")


def test_start_in_structure_zoc_one_hex_then_halt():
    # Army 9 starts in Capua's ZoC (adjacent to the city); 3 1 is still in it.
    tm = sketch(radius=4, structures=[("Capua", "city", "3 3", "carthago")])
    s = tm.state([(9, "roma", "3")])
    r = move(tm, s, {9: "1 1"})
    assert r.paths[9] == (tm.cell("3"), tm.cell("3 1")) and r.halted[9].kind == "zoc" and r.mp_spent[9] == 2
    # leaving the ZoC first is free...
    r = move(tm, s, {9: "9 11 11"})
    assert r.paths[9][-1] == tm.cell("11 11") and 9 not in r.halted
    # ...and coming back in halts again
    r = move(tm, s, {9: "9 3 1"})
    assert r.paths[9] == (tm.cell("3"), tm.cell(""), tm.cell("3")) and r.halted[9].kind == "zoc"


# --- one army per hex ----------------------------------------------------------------------


def test_pass_through_a_friendly_army():
    tm = sketch(radius=3)
    r = move(tm, tm.state([(9, "roma", ""), (10, "roma", "3")]), {9: "3 3"})
    assert r.paths[9] == (tm.cell(""), tm.cell("3"), tm.cell("3 3")) and 9 not in r.halted
    assert r.timeline[2][9] == r.timeline[2][10] == tm.cell("3")  # together while passing


def test_cannot_end_on_a_friendly_army():
    tm = sketch(radius=3)
    r = move(tm, tm.state([(9, "roma", ""), (10, "roma", "3")]), {9: "3"})
    assert r.paths[9] == (tm.cell(""),) and r.halted[9].kind == "friendly" and "army 10" in r.halted[9].text
    # nor stop there for lack of MP: 3 then forests 10 is 12 MP, fine; 3 then mountains 12 is not
    tm = sketch(radius=3, terrain={"3 3": "mountains"})
    r = move(tm, tm.state([(9, "roma", ""), (10, "roma", "3")]), {9: "3 3"})
    assert r.paths[9] == (tm.cell(""),) and r.halted[9].kind == "friendly"


def test_enemy_hex_cannot_be_entered():
    tm = sketch(radius=3)
    r = move(tm, tm.state([(9, "roma", ""), (1, "carthago", "3")]), {9: "3"})
    assert r.paths[9] == (tm.cell(""),) and r.halted[9].kind == "occupied"


def test_enemies_cannot_swap_hexes():
    tm = sketch(radius=3)
    r = move(tm, tm.state([(9, "roma", ""), (1, "carthago", "3")]), {9: "3", 1: "9"})
    assert r.state.army(9).cell == tm.cell("") and r.state.army(1).cell == tm.cell("3")
    assert r.halted[9].kind == r.halted[1].kind == "occupied"


def test_friends_may_swap_and_follow():
    tm = sketch(radius=3)
    s = tm.state([(9, "roma", ""), (10, "roma", "3")])
    r = move(tm, s, {9: "3", 10: "9"})
    assert r.state.army(9).cell == tm.cell("3") and r.state.army(10).cell == tm.cell("")
    r = move(tm, s, {9: "3", 10: "3"})  # a column: 10 steps on, 9 takes its place at the same MP
    assert r.state.army(9).cell == tm.cell("3") and r.state.army(10).cell == tm.cell("3 3")


def test_stuck_on_a_friend_goes_back_to_the_previous_hex():
    # 9 passes through 10 towards a forest; enemy 1 takes the forest first (MP 10), 9's move (MP 12) fails.
    tm = sketch(radius=4, terrain={"3 3": "forests"})
    s = tm.state([(9, "roma", ""), (10, "roma", "3"), (1, "carthago", "3 3 3")])
    r = move(tm, s, {9: "3 3", 1: "9"})
    assert r.state.army(1).cell == tm.cell("3 3")
    assert r.state.army(9).cell == tm.cell("") and r.mp_spent[9] == 0
    assert r.stepped_back[9] == (tm.cell("3"),) and r.halted[9].kind == "friendly"
    cells = [a.cell for a in r.state.armies]
    assert len(cells) == len(set(cells))


def test_two_friends_ending_in_one_hex_at_once():
    tm = sketch(radius=3)
    s = tm.state([(9, "roma", "9"), (10, "roma", "3", 1500)])
    r = move(tm, s, {9: "3", 10: "9"})
    assert r.state.army(9).cell == tm.cell("") and r.state.army(10).cell == tm.cell("3")
    assert r.halted[10].kind == "friendly"


# --- the seven steps -------------------------------------------------------------------


def contest(tm, s, orders, **kw):
    r = move(tm, s, orders, **kw)
    (ev,) = [e for e in r.events if e.kind == "contest"]
    return r, ev


def test_step1_lowest_cost_without_the_floor():
    # Both enter the centre at MP 1: roma 2/2-1 = 0 (floor 1), carthago 2/2 = 1.
    tm = sketch(radius=3, roads=[["9", "", "3"]])
    s = tm.state([(9, "roma", "9"), (1, "carthago", "3", 1600)])
    r, ev = contest(tm, s, {9: "3", 1: "9"}, logistics_road_edges={"roma": {(tm.cell("9"), tm.cell(""))}})
    assert ev.data["winner"] == 9 and ev.data["step"] == 1 and ev.data["tick"] == 1
    assert r.state.army(9).cell == tm.cell("") and r.halted[1].kind == "contest"


def test_step1_the_quicker_move_wins_while_both_are_under_way():
    tm = sketch(radius=3, terrain={"": "hills"}, roads=[["9", ""]])
    s = tm.state([(9, "roma", "9"), (1, "carthago", "3", 1600)])
    r, ev = contest(tm, s, {9: "3", 1: "9"})  # roma 3 MP by road, carthago 6 MP
    assert ev.data["winner"] == 9 and ev.data["step"] == 1 and ev.data["tick"] == 3
    assert r.halted[1].kind == "contest"
    # with the "arrival" window there is no contest: roma is simply there first
    r = move(tm, s, {9: "3", 1: "9"}, options=replace(default_rules().movement, contest_window="arrival"))
    assert not [e for e in r.events if e.kind == "contest"] and r.halted[1].kind == "occupied"


def test_step2_fewest_mp_spent():
    tm = sketch(radius=3)
    s = tm.state([(9, "roma", "9", 1600), (1, "carthago", "3", 1000)])
    r, ev = contest(tm, s, {9: "0 3", 1: "9"})  # same cost 2; roma spent 1 MP standing first
    assert ev.data["winner"] == 1 and ev.data["step"] == 2


def test_step3_highest_strength():
    tm = sketch(radius=3)
    s = tm.state([(9, "roma", "9", 1500), (1, "carthago", "3", 1510)])
    r, ev = contest(tm, s, {9: "3", 1: "9"})
    assert ev.data["winner"] == 1 and ev.data["step"] == 3 and r.state.army(1).cell == tm.cell("")


def test_step4_closest_to_a_controlled_structure():
    tm = sketch(radius=4, structures=[("Ostia", "town", "1 1", "roma"), ("Utica", "town", "5 5 5", "carthago")])
    s = tm.state([(9, "roma", "9"), (1, "carthago", "3")], victory_points={"carthago": 5})
    r, ev = contest(tm, s, {9: "3", 1: "9"})
    assert ev.data["winner"] == 9 and ev.data["step"] == 4


def test_step5_higher_score():
    tm = sketch(radius=3)
    s = tm.state([(9, "roma", "9"), (1, "carthago", "3")], victory_points={"roma": -1, "carthago": 2})
    r, ev = contest(tm, s, {9: "3", 1: "9"})
    assert ev.data["winner"] == 1 and ev.data["step"] == 5


def test_step6_farthest_north():
    tm = sketch(radius=3)
    assert tm.board.hexes[tm.cell("11")].lat > tm.board.hexes[tm.cell("5")].lat
    s = tm.state([(9, "roma", "5"), (1, "carthago", "11")])
    r, ev = contest(tm, s, {9: "11", 1: "5"})
    assert ev.data["winner"] == 1 and ev.data["step"] == 6


def test_step7_farthest_west():
    tm = sketch(radius=3)
    # Put both starting hexes on one parallel (real H3 centres never share one exactly).
    hexes = dict(tm.board.hexes)
    lat = hexes[tm.cell("3")].lat
    hexes[tm.cell("9")] = replace(hexes[tm.cell("9")], lat=lat)
    tm = replace(tm, board=replace(tm.board, hexes=hexes))
    s = tm.state([(9, "roma", "3"), (1, "carthago", "9")])
    r, ev = contest(tm, s, {9: "9", 1: "3"})
    assert ev.data["winner"] == 1 and ev.data["step"] == 7
    assert "farthest west" in ev.text


def test_same_faction_arrivals_do_not_contest():
    tm = sketch(radius=3)
    r = move(tm, tm.state([(9, "roma", "9"), (10, "roma", "3")]), {9: "3 3", 10: "9 9"})
    assert not [e for e in r.events if e.kind == "contest"]
    assert r.paths[9][-1] == tm.cell("3") and r.paths[10][-1] == tm.cell("9")


# --- options, events, purity -----------------------------------------------------------------


def test_halt_when_enemy_arrives_option():
    tm = sketch(radius=4)
    s = tm.state([(9, "roma", ""), (1, "carthago", "3 3")])
    # carthago steps next to roma at MP 2 while roma stands still, then roma walks away north-west
    orders = {9: "0 0 11 11", 1: "9"}
    r = move(tm, s, orders)
    assert 9 not in r.halted and r.paths[9][-1] == tm.cell("11 11")
    r = move(tm, s, orders, options=replace(default_rules().movement, halt_when_enemy_arrives=True))
    assert r.halted[9].kind == "arrival" and r.paths[9] == (tm.cell(""),)


def test_events_tell_the_move_in_words_and_state_is_new():
    tm = sketch(radius=4, structures=[("Capua", "city", "3 3 3", "carthago")])
    s = tm.state([(9, "roma", ""), (10, "roma", "9 9")])
    r = move(tm, s, {9: "3 3 3"})
    (ev9,) = [e for e in r.events if e.data.get("army") == 9]
    assert ev9.kind == "army_moved" and ev9.text.startswith("army 9 (roma) moved ")
    assert "spent 4 MP" in ev9.text and "halted by ZoC of Capua (carthago)" in ev9.text
    assert ev9.data["halt"]["kind"] == "zoc" and ev9.data["path"] == [tm.cell(""), tm.cell("3"), tm.cell("3 3")]
    (ev10,) = [e for e in r.events if e.data.get("army") == 10]
    assert ev10.kind == "army_stayed" and "spent 0 MP" in ev10.text
    assert s.army(9).cell == tm.cell("")  # the input state is untouched
    assert r.state.army(9).cell == tm.cell("3 3")
