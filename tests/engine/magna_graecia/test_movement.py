"""Movement: points by make-up, paths, the halt, passing neutral or besieged nodes, costs, stacking."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.magna_graecia import movement, turn
from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.forces import movement_points
from bellica.engine.magna_graecia.model import Command, Siege
from bellica.geo.errors import InputError

from .tiny import MAP, R, game


def cmd(elements, general="Cv(O)", **kw):
    return Command(99, "Red", "Portus", elements, general=general, **kw)


@pytest.mark.parametrize("elements, general, mp", [
    ({"Cv(O)": 3, "LH(O)": 2}, "Cv(O)", 2),       # mounted only: 2
    ({"LH(O)": 2, "Ps(O)": 4}, "LH(O)", 2),       # mounted and psiloi: 2
    ({"Ps(O)": 4}, "Cv(O)", 2),
    ({"Cv(O)": 3, "El(O)": 1}, "Cv(O)", 1),       # elephants: 1
    ({"Cv(O)": 3, "Exp(O)": 1}, "Cv(O)", 1),      # expendables: 1
    ({"Sp(O)": 8, "Ps(O)": 2}, "Cv(O)", 1),       # foot: 1
    ({"Cv(O)": 3}, "El(O)", 1),                   # a general on an elephant: 1
])
def test_movement_points(elements, general, mp):
    assert movement_points(cmd(elements, general), R) == mp


def test_leaderless_and_capital_subgeneral_do_not_move():
    assert movement_points(cmd({"Sp(O)": 4}, general=""), R) == 0
    assert movement_points(cmd({}, inherent=True), R) == 0


def test_move_costs_one_point_a_node():
    s = game()
    d = Dice(1)
    s, ev = movement.move(s, MAP, R, d, 4, ["Vicus", "Campus"])       # horse: 2 MP
    c = s.command(4)
    assert (c.node, c.mp_left, c.entered_from, c.moved) == ("Campus", 0, "Vicus", True)
    with pytest.raises(InputError, match="cost 2 movement points but it has 1 left"):
        movement.move(s, MAP, R, d, 3, ["Vicus", "Oppidum"])           # foot: 1 MP
    with pytest.raises(InputError, match="no path from Portus to Arx"):
        movement.move(s, MAP, R, d, 3, ["Arx"])


def test_halt_on_entering_enemy_land_counters():
    s = game()
    blue = next(c for c in s.commands if c.side == "Blue" and not c.city)
    s = s.with_command(replace(blue, node="Campus"))
    with pytest.raises(InputError, match="must halt at Campus"):
        movement.move(s, MAP, R, Dice(1), 4, ["Campus", "Arx"])
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Campus"])
    assert s.command(4).node == "Campus"


def test_pass_through_a_neutral_city_and_a_besieged_enemy():
    s = game()
    # Oppidum's neutral forces do not stop the march
    s2, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    assert s2.command(4).node == "Oppidum"
    s2, _ = movement.move(replace(s, commands=tuple(replace(c, mp_left=3) if c.id == 4 else c for c in s.commands)),
                          MAP, R, Dice(1), 4, ["Vicus", "Oppidum", "Arx"])
    assert s2.command(4).node == "Arx"
    # enemies wholly inside a besieged city do not stop it either
    blue = next(c for c in s.commands if c.side == "Blue" and not c.city)
    s = s.with_command(replace(blue, node="Campus", in_city=True))
    s = replace(s, sieges=(Siege("Campus", "Red", "Blue", started=1),))
    s3, _ = movement.move(s, MAP, R, Dice(1), 4, ["Campus", "Arx"])
    assert s3.command(4).node == "Arx"


def test_disease_strikes_passers_by_but_not_fleets():
    s = game()
    s = replace(s, sieges=(Siege("Vicus", "Blue", "Red", started=1, disease=1),))
    d = Dice(1, {"disease-passing/1/Red/4/Vicus": 1})
    s2, ev = movement.move(s, MAP, R, d, 4, ["Vicus", "Campus"])
    assert sum(s2.command(4).elements.values()) == 4                 # 10% of 6 effective elements, rounded up: 1
    assert any(e.kind == "disease_struck" for e in ev)
    d = Dice(1, {"disease-passing/1/Red/4/Vicus": 2})
    s3, ev = movement.move(s, MAP, R, d, 4, ["Vicus", "Campus"])
    assert sum(s3.command(4).elements.values()) == 5


def test_exchange_costs_a_point_each():
    s = game()
    s, _ = movement.exchange(s, R, 3, 4, {"Ps(O)": 2})
    assert s.command(4).elements["Ps(O)"] == 2 and s.command(3).mp_left == 0 and s.command(4).mp_left == 1
    with pytest.raises(InputError, match="has 0 movement points; an exchange costs 1"):
        movement.exchange(s, R, 3, 4, {"Sp(O)": 1})


def test_embark_costs_one_disembark_none_and_capacity_is_np():
    s = game()                                   # Red fleet: 6 NP at Portus
    with pytest.raises(InputError, match="carries 6 elements; 11 would be aboard"):
        movement.embark(s, R, [3])
    s, _ = movement.embark(s, R, [4])            # 6 elements fit 6 NP
    assert s.command(4).aboard and s.command(4).mp_left == 1 and s.fleet("Red").mp_left == 2
    s, _ = movement.move_fleet(s, MAP, R, ["Oppidum"])
    assert s.command(4).node == "Oppidum" and s.fleet("Red").mp_left == 1
    s, _ = movement.disembark(s, R, [4])
    assert not s.command(4).aboard and s.command(4).mp_left == 1   # landing costs nothing


def test_fleets_coastal_only_pass_but_not_stop_by_enemy_land_and_halt_on_enemy_fleet():
    s = game()
    with pytest.raises(InputError, match="not a coastal node"):
        movement.move_fleet(s, MAP, R, ["Vicus"])
    # Arx holds Blue's army and fleet: the Red fleet must halt there to fight, and may not end
    # its move by enemy land counters; with Blue's fleet sheltered it may sail past
    with pytest.raises(InputError, match="must halt at Arx"):
        movement.move_fleet(s, MAP, R, ["Arx", "Insula"])
    s2 = s.with_fleet(replace(s.fleet("Blue"), sheltered=True))
    s3, _ = movement.move_fleet(s2, MAP, R, ["Arx", "Insula"])
    assert s3.fleet("Red").node == "Insula"
    with pytest.raises(InputError, match="may pass Arx but not stop"):
        movement.move_fleet(s2, MAP, R, ["Arx"])


def test_stacking_is_checked_at_the_end_of_movement():
    s = game()
    extra = tuple(Command(100 + i, "Red", "Portus", {"Ps(O)": 2}, general="Cv(O)", mp_left=2) for i in range(3))
    s = replace(s, commands=s.commands + extra)           # five Red counters (the capital's sub-general is none)
    assert movement.stacking_problems(s, R, "Red") == ["Portus"]
    with pytest.raises(InputError, match="more than 4 counters at Portus"):
        turn.end_movement(s, MAP, R, Dice(1))
    s, _ = movement.embark(s, R, [100])                   # aboard the fleet it no longer counts
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    assert s.phase == "battles"


def test_the_map_as_it_stands_in_the_scenarios_year():
    assert "Ruina" in MAP.places and "Ruina" not in MAP.for_year(-300).places
    assert "Ruina" in MAP.for_year(-450).places
    assert not any(c.node == "Ruina" for c in game().commands)
    assert MAP.neighbours("Vicus") == ("Campus", "Oppidum", "Portus") and MAP.neighbours("Arx", "sea") == ("Insula", "Oppidum", "Portus")


def test_reachable_nodes_respect_points_and_halts():
    s = game()
    assert movement.reachable(s, MAP, R, 3) == {"Vicus": ["Vicus"], "Campus": ["Campus"]}           # foot: 1 MP
    horse = movement.reachable(s, MAP, R, 4)                                                      # horse: 2 MP
    assert set(horse) == {"Vicus", "Campus", "Oppidum", "Arx"} and len(horse["Arx"]) == 2
    blue = next(c for c in s.commands if c.side == "Blue" and not c.city)
    s = s.with_command(replace(blue, node="Campus"))
    horse = movement.reachable(s, MAP, R, 4)
    assert horse["Campus"] == ["Campus"] and "Arx" not in horse      # halted at Campus; round by Oppidum is 3 nodes
    sea = movement.reachable_by_sea(s, MAP, R, "Red")
    assert set(sea) == {"Oppidum"}      # Arx: enemy land counters (and its fleet halts the Red fleet there)


def test_a_halt_ends_the_counters_movement_for_the_turn():
    s = game()
    s = s.with_command(replace(s.command(6), node="Campus"))           # Blue's foot at Campus
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Campus"])             # Red's horse (2 MP) halts there
    assert s.command(4).mp_left == 1 and movement.reachable(s, MAP, R, 4) == {}
    with pytest.raises(InputError, match="halted at Campus on entering it"):
        movement.move(s, MAP, R, Dice(1), 4, ["Arx"])


def test_a_fleet_halted_by_the_enemy_fleet_sails_no_further():
    s = game()
    s = s.with_fleet(replace(s.fleet("Blue"), node="Oppidum"))
    s, _ = movement.move_fleet(s, MAP, R, ["Oppidum"])                  # Red's fleet (3 MP) halts to meet it
    assert movement.reachable_by_sea(s, MAP, R, "Red") == {}
    with pytest.raises(InputError, match="halted at Oppidum to meet Blue's fleet"):
        movement.move_fleet(s, MAP, R, ["Arx"])


def test_a_land_counter_marches_through_a_node_held_only_by_an_enemy_fleet():
    s = game()
    s = s.with_fleet(replace(s.fleet("Blue"), node="Oppidum"))           # Blue's fleet alone off Oppidum (neutral)
    assert not movement.halts_at(s, "Oppidum", "Red")
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    assert s.command(4).node == "Oppidum"
    s, ev = turn.end_movement(s, MAP, R, Dice(1, {"alliance/1/Oppidum/Red": 2}))
    assert s.battle_at("Oppidum") is None                                # no land battle against a fleet
