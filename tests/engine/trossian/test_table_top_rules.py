"""Issue 22's missing table-top rules of the Trossian seed, on the tiny world (tiny.py):

* "Players assume the role of the King ... assumed to remain inside their capital city, and shall
  direct their generals via messages sent by couriers" (Messengers): an army obeys the last order
  a courier brought it; with none it holds; one in the king's capital takes his word at once
  (options.local_command); a captured courier's order is lost and read by its captor.
* "Every city possesses a garrison of troops that will defend the city from invasion" (Siege
  Works): the garrison turns out as an army of the city's holder when an enemy stands in it.
* "the blockade must be lifted as the navy returns to port of the winter" (Siege Works): every
  navy out of port goes back to a friendly port as Late Autumn ends.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.trossian import battles, couriers, movement, navies, sieges, turn
from bellica.engine.trossian.model import WINTER, Courier, Navy, Siege
from bellica.engine.trossian.orders import _apply_order, _order_for
from bellica.engine.trossian.rules import default_rules, rules_with
from bellica.geo.errors import InputError

from .tiny import Scripted, army, tiny_scenario, tiny_state

R = default_rules()
S = tiny_scenario()
#: Twenty AP and more of foot (pacifies a province), with an HQ.
FOOT = ("hq",) + ("line_infantry",) * 10


def _march(st, army_id, path, rules=R):
    return _apply_order(S, st, rules, Scripted(), "march", {"nation": st.army(army_id).nation, "army": army_id,
                                                             "path": path})


# --- couriers carry orders ---------------------------------------------------------------------


def test_the_seed_reading_is_the_default():
    o = R.options
    assert o.couriers_carry_orders is True and o.local_command == "capital"
    assert o.navies_winter_in_port is True and o.garrison_fights == "alone"
    # the seed's "Couriers move four provinces per phase" carries the orders
    assert R.movement.courier == 4


def test_an_army_away_from_its_king_obeys_only_orders_a_courier_brought():
    st = tiny_state([army(1, "Red", "B", *FOOT)])
    with pytest.raises(InputError, match=r"away from its king in A: it obeys only orders a courier brings"):
        _march(st, 1, ["E"])
    # orders as given (the engine's play before issue 22): the same march is carried out
    off = rules_with({"options": {"couriers_carry_orders": False}})
    st2, ev = _march(st, 1, ["E"], off)
    assert st2.army(1).province == "E" and ev[0].kind == "army_moved"
    # with no order yet it holds: the resolution moves nothing
    st3, ev = movement.follow_orders(S, st, R)
    assert st3 == st and ev == []


def test_an_army_in_the_kings_capital_obeys_at_once_unless_the_option_says_otherwise():
    st = tiny_state([army(1, "Red", "A", *FOOT)])
    st2, _ = _march(st, 1, ["B"])
    a = st2.army(1)
    assert a.province == "B" and a.order == ("hold",) and a.order_from == "the king in A, Mid Spring 1801"
    strict = rules_with({"options": {"local_command": "none"}})
    with pytest.raises(InputError, match="obeys only orders a courier brings"):
        _march(st, 1, ["B"], strict)


def test_the_last_order_a_courier_delivered_is_obeyed_over_the_phases():
    # Red's army 1 (foot: one province a phase) in E; the king in A sends: march B, A
    st = tiny_state([army(1, "Red", "E", *FOOT)]).with_couriers(Courier(80, "Red", "A"))
    to, order = _order_for(S, st, R, "Red", "army 1", "march B, A")
    assert (to, order) == ("army 1", ["march", "B", "A"])
    st, ev = couriers.send_courier(S, st, "Red", 80, "march B, A", to, order)
    st, _ = couriers.move_courier(S, st, R, 80, ["B", "E"], Scripted())   # its own provinces: no die
    st, ev = couriers.deliver(st, 80, "Mid Spring 1801")
    assert ev[0].data["order"] == ["march", "B", "A"] and st.courier(80).order == ()
    assert st.army(1).order == ("march", "B", "A") and st.army(1).order_from == "courier 80, Mid Spring 1801"
    st, ev = movement.follow_orders(S, st, R)                             # E-B is no road: one province
    assert st.army(1).province == "B" and st.army(1).order == ("march", "A")
    st, _ = turn.end_phase(S, st, R)
    st, ev = movement.follow_orders(S, st, R)                             # the next phase: on to A
    assert st.army(1).province == "A" and st.army(1).order == ("hold",)
    # a later order replaces it: the army obeys the last one that reached it
    st = st.with_couriers(replace(st.courier(80), where="A", moved=False))
    st, _ = couriers.send_courier(S, st, "Red", 80, "hold", "army 1", ("hold",))
    st, _ = couriers.deliver(st, 80, "Late Spring 1801")
    assert st.army(1).order == ("hold",) and st.army(1).order_from == "courier 80, Late Spring 1801"


def test_an_order_must_find_its_army_and_is_for_an_army():
    st = tiny_state([army(1, "Red", "E", *FOOT)]).with_couriers(Courier(80, "Red", "A"))
    st, _ = couriers.send_courier(S, st, "Red", 80, "march B", "army 1", ("march", "B"))
    with pytest.raises(InputError, match="courier 80 is in A, army 1 in E: move the courier there first"):
        couriers.deliver(st, 80)
    with pytest.raises(InputError, match="--order is for an army"):
        _order_for(S, st, R, "Red", "Aport", "march B")
    with pytest.raises(InputError, match="C does not border A"):
        _order_for(S, st, R, "Red", "army 1", "march A, C")
    off = rules_with({"options": {"couriers_carry_orders": False}})
    with pytest.raises(InputError, match="couriers_carry_orders is off"):
        _order_for(S, st, off, "Red", "army 1", "march B")


def test_a_captured_couriers_order_is_lost_and_read_by_its_captor():
    # "1: Captured! Messages/plans fall into the hands of the controlling player."
    st = tiny_state([army(1, "Red", "D", *FOOT)]).with_couriers(Courier(80, "Red", "A"))
    st, _ = couriers.send_courier(S, st, "Red", 80, "Take Dport", "army 1", ("march", "C"))
    st, ev = couriers.move_courier(S, st, R, 80, ["B", "C"], Scripted(faces=[1, 1]))  # C is Blue's: 1, then 1
    assert ev[-1].data["fate"] == "captured" and not st.couriers
    assert st.army(1).order == ()                                         # lost: the army never had it
    assert st.nations["Blue"].intelligence == ("Red to army 1: Take Dport (order: march C)",)
    assert st.nations["Red"].intelligence == ()


def test_a_detachment_has_no_order_yet():
    st = tiny_state([army(1, "Red", "B", "hq", "hq", "line_infantry", "line_infantry",
                          order=("march", "C"), order_from="courier 80")])
    st, _ = movement.detach(st, 1, [12, 14])
    new = max(a.id for a in st.armies)
    assert st.army(new).order == () and st.army(1).order == ("march", "C")


def test_a_march_by_order_stops_at_the_enemy_and_the_battle_follows():
    st = tiny_state([army(1, "Red", "A", "hq", "light_cavalry", order=("march", "B", "C", "D")),
                     army(2, "Blue", "C", "hq", "line_infantry")])
    st, ev = movement.follow_orders(S, st, R)        # mounted 2, roads A-B-C: +1, but Blue stands in C
    assert st.army(1).province == "C" and st.army(1).order == ("hold",)


# --- city garrisons ---------------------------------------------------------------------------


def test_every_city_possesses_a_garrison_that_defends_it():
    st = tiny_state([army(1, "Red", "C", *FOOT)])
    st, ev = turn.contact(S, st, R, Scripted())
    g = next(a for a in st.armies if a.garrison)
    assert g.nation == "Blue" and g.province == "C" and [u.kind for u in g.units] == list(R.pacification.garrison_port)
    assert [e.kind for e in ev] == ["garrison_stands", "battle"] and st.battles[0].sides == ((1,), (g.id,))
    with pytest.raises(InputError, match="a garrison never leaves its city"):
        movement.move_army(S, st, R, g.id, ["D"])
    # the garrison is beaten: it is gone (no retreat) and the city is open; no new one turns out
    st, ev = battles.resolve_battle(S, st, R, st.battles[0].id, "a", {}, Scripted(faces=[6] * 30))
    assert not any(a.garrison for a in st.armies) and st.ungarrisoned == {"C"}
    assert any(e.kind == "garrison_overcome" for e in ev)
    st, _ = turn.end_phase(S, st, R)
    st, ev = turn.contact(S, st, R, Scripted())
    assert ev == [] and not st.battles
    st, ev = turn.end_phase(S, st, R)                 # a full phase of 20 AP: the siege can go on
    assert any(e.kind in ("pacification", "siege_unblockaded") for e in ev)


def test_a_garrison_that_holds_stays_and_the_beaten_army_retreats():
    st = tiny_state([army(1, "Red", "C", *FOOT)])
    st, _ = turn.contact(S, st, R, Scripted())
    gid = next(a.id for a in st.armies if a.garrison)
    st, _ = battles.resolve_battle(S, st, R, st.battles[0].id, "b", {}, Scripted(faces=[6] * 30))
    assert st.army(1).province == "B" and st.army(gid).province == "C"
    st, _ = turn.contact(S, replace(st, armies=st.armies + (army(3, "Red", "C", *FOOT),)), R, Scripted())
    assert st.battles[0].sides == ((gid,), (3,))      # the same garrison, not a fresh one


def test_a_garrison_fights_alone_or_beside_its_army_and_only_in_a_held_city():
    st = tiny_state([army(1, "Red", "C", *FOOT), army(2, "Blue", "C", "hq", "line_infantry")])
    alone, _ = turn.contact(S, st, R, Scripted())
    assert not any(a.garrison for a in alone.armies)
    beside, _ = turn.contact(S, st, rules_with({"options": {"garrison_fights": "with_army"}}), Scripted())
    g = next(a for a in beside.armies if a.garrison)
    assert set(beside.battles[0].sides[1]) == {2, g.id} or set(beside.battles[0].sides[0]) == {2, g.id}
    # a land province has no city, so no garrison; a draw leaves the garrison on its walls
    st, ev = turn.contact(S, tiny_state([army(5, "Blue", "B", *FOOT)]), R, Scripted())
    assert not any(a.garrison for a in st.armies)
    st, _ = turn.contact(S, tiny_state([army(1, "Red", "C", *FOOT)]), R, Scripted())
    gid = next(a.id for a in st.armies if a.garrison)
    st, _ = battles.resolve_battle(S, st, R, st.battles[0].id, "draw", {}, Scripted(faces=[6] * 30))
    assert st.army(gid).province == "C" and st.army(1).province == "B"


def test_garrisons_go_back_within_their_walls_in_winter_and_are_raised_again():
    st = tiny_state([army(1, "Red", "C", *FOOT)], phase=8)
    st, _ = turn.contact(S, st, R, Scripted())
    st, _ = battles.resolve_battle(S, st, R, st.battles[0].id, "b", {}, Scripted(faces=[6] * 30))
    st = replace(st, ungarrisoned=frozenset({"D", "C"}), sieges=(Siege("D", "Red", 0, 1),))
    st, ev = sieges.winter_garrisons(S, replace(st, phase=WINTER))
    assert not any(a.garrison for a in st.armies) and st.ungarrisoned == {"D"}   # D is still besieged
    assert ev[0].text == "winter quarters: the garrisons of C are raised again"


# --- navies in winter -------------------------------------------------------------------------


def test_navies_return_to_port_for_the_winter():
    st = tiny_state(navies=[Navy(70, "Blue", "South"), Navy(71, "Blue", "South", "coast:C"),
                            Navy(72, "Blue", "South", "port:Cport"), Navy(73, "Red", "South")], phase=8)
    st, ev = turn.end_phase(S, st, R)
    assert st.phase == WINTER
    where = {n.id: n.berth for n in st.navies}
    # Cport held one: 70 takes its second berth, 71 goes on to Dport; Red has no port open to it (North is iced)
    assert where == {70: "port:Cport", 71: "port:Dport", 72: "port:Cport"}
    assert [e.text for e in ev if e.kind in ("navy_winters", "navy_lost")] == [
        "navy 70 (Blue) returns to port for the winter: Cport", "navy 71 (Blue) returns to port for the winter: Dport",
        "navy 73 (Red) is lost in South (no friendly port for the winter)"]
    at_sea = rules_with({"options": {"winter_without_berth": "at_sea"}})
    st2, _ = turn.end_phase(S, tiny_state(navies=[Navy(73, "Red", "South")], phase=8), at_sea)
    assert st2.navy(73).berth == ""
    off = rules_with({"options": {"navies_winter_in_port": False}})
    st3, _ = turn.end_phase(S, tiny_state(navies=[Navy(70, "Blue", "South")], phase=8), off)
    assert st3.navy(70).berth == ""


def test_a_wintered_port_siege_is_not_undone_when_the_blockade_sails_back():
    # "the limited shipping during winter months increases the siege cost by one phase": the
    # navy that wintered in port puts out in Early Spring; that phase is not counted, nothing undone
    st = tiny_state([army(1, "Red", "C", *FOOT)], navies=[Navy(70, "Red", "South")], phase=0)
    st = replace(st, sieges=(Siege("C", "Red", 1, 3, wintered=True),), sailed=frozenset({70}),
                 ungarrisoned=frozenset({"C"}))
    st2, ev = sieges.pacification(S, st, R)
    assert st2.siege("C").done == 1 and ev[0].kind == "siege_unblockaded"
    st3, _ = turn.end_phase(S, st, R)
    assert st3.siege("C").wintered is False          # marked again only by the next winter
    old = rules_with({"options": {"navies_winter_in_port": False}})
    st4, _ = sieges.pacification(S, st, old)
    assert st4.siege("C").done == 0                  # the engine's play before: the siege starts again


def test_a_city_nobody_holds_defends_itself_too():
    # "Every city possesses a garrison": C held by nobody turns out its own, an enemy of every nation
    st = replace(tiny_state([army(1, "Red", "C", *FOOT)]), control={**tiny_state().control, "C": None})
    st, ev = turn.contact(S, st, R, Scripted())
    g = next(a for a in st.armies if a.garrison)
    assert g.nation == "neutral C" and st.battles[0].nations == (("Red",), ("neutral C",))
    st, _ = battles.resolve_battle(S, st, R, st.battles[0].id, "a", {}, Scripted(faces=[6] * 30))
    st, _ = turn.end_phase(S, st, R)
    assert st.ungarrisoned == {"C"} and not st.battles
    off = rules_with({"options": {"neutral_garrisons": False}})
    st2, ev = turn.contact(S, replace(tiny_state([army(1, "Red", "C", *FOOT)]),
                                      control={**tiny_state().control, "C": None}), off, Scripted())
    assert ev == [] and not st2.battles


def test_a_navy_embarks_an_army_away_from_its_king_only_on_a_couriers_order():
    # "Couriers can travel by horse or by ship": the order to board rides with them, else an
    # admiral's order would carry the general off without his king's word
    troops = ("hq", "line_infantry", "line_infantry")
    st = tiny_state([army(1, "Red", "B", *troops)], navies=[Navy(70, "Red", "North", "coast:B")])
    with pytest.raises(InputError, match=r"army 1 obeys only orders a courier brings: .*--order embark"):
        navies.navy_actions(S, st, R, 70, [("embark", 1)])
    st = st.with_armies(replace(st.army(1), order=("embark",)))
    st2, _ = navies.navy_actions(S, st, R, 70, [("embark", 1)])
    assert st2.army(1).aboard == 70 and st2.army(1).order == ("hold",)   # boarded: the order is done
    # with the king in A (Aport): at once
    st3 = tiny_state([army(1, "Red", "A", *troops)], navies=[Navy(70, "Red", "North", "port:Aport")])
    st3, _ = navies.navy_actions(S, st3, R, 70, [("embark", 1)])
    assert st3.army(1).aboard == 70
    assert _order_for(S, st, R, "Red", "army 1", "embark") == ("army 1", ["embark"])
