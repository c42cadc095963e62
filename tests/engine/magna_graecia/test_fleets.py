"""Fleets: d6 + NP, the loser loses the difference (spare NPs first, then an element per NP), ties, shelter."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.magna_graecia import fleets, movement, retreats, turn
from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.rules import rules_with
from bellica.geo.errors import InputError

from .tiny import MAP, R, game


def meet(s=None):
    """Red's fleet sails into Arx, where Blue's fleet lies at sea."""
    s = s or game()
    s, _ = movement.move_fleet(s, MAP, R, ["Oppidum"])
    s = s.with_fleet(replace(s.fleet("Blue"), node="Oppidum"))
    s, ev = turn.end_movement(s, MAP, R, Dice(1))
    return s


def test_fleet_fight_due_and_d6_plus_np():
    s = meet()                                        # Red 6 NP, Blue 4 NP
    b = s.battle_at("Oppidum", "naval")
    assert b.attacker == "Red" and b.defenders == ("Blue",)
    d = Dice(1, {"fleet/1/Oppidum/Red/1": 2, "fleet/1/Oppidum/Blue/1": 6, "recovery-np/1/Oppidum/Red/1": 1,
                 "recovery-np/1/Oppidum/Red/2": 5})
    s, ev = fleets.fleet_battle(s, MAP, R, d, "Oppidum")
    fight = next(e for e in ev if e.kind == "fleet_battle")
    assert fight.data["winner"] == "Blue" and fight.data["loss"] == 2        # 2+6=8 against 6+4=10
    assert s.fleet("Red").np == 5                                            # 2 lost, 1 recovered on a 5
    assert s.sides["Blue"].np_destroyed == 1
    assert [r.fleet_side for r in s.retreats] == ["Red"]


def test_spare_nps_are_lost_before_carried_elements():
    s = game()
    s, _ = movement.embark(s, R, [4])             # 6 elements on 6 NP: nothing spare
    s = s.with_fleet(replace(s.fleet("Red"), np=8))   # 8 NP: 2 spare
    s = meet(s)
    rolls = {"fleet/1/Oppidum/Red/1": 1, "fleet/1/Oppidum/Blue/1": 6}
    rolls.update({f"recovery-np/1/Oppidum/Red/{i}": 1 for i in range(1, 6)})
    s2, ev = fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum")     # 1+8=9 v 6+4=10: lose 1 NP
    assert s2.fleet("Red").np == 7 and s2.command(4).element_count() == 6  # a spare NP, no element
    s = s.with_fleet(replace(s.fleet("Blue"), np=7))
    s3, ev = fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum")     # 9 v 13: lose 4 NP
    lost = next(e for e in ev if e.kind == "np_lost").data
    assert (lost["np"], lost["spare"], lost["elements_drowned"]) == (4, 2, 2)
    assert s3.fleet("Red").np == 4 and s3.command(4).element_count() == 4


def test_the_owner_chooses_the_drowned_elements():
    s = game()
    s, _ = movement.embark(s, R, [4])
    s = meet(s).with_fleet(replace(game().fleet("Blue"), node="Oppidum", np=7))
    rolls = {"fleet/1/Oppidum/Red/1": 1, "fleet/1/Oppidum/Blue/1": 1}
    rolls.update({f"recovery-np/1/Oppidum/Red/{i}": 1 for i in range(1, 6)})
    s2, _ = fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum", element_losses={4: {"LH(O)": 1}})
    assert s2.command(4).elements == {"Cv(O)": 3, "LH(O)": 1}
    # The choice is written before the dice: past the loss it is kept (1 NP lost: 1 LH(O) drowns).
    s3, _ = fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum", element_losses={4: {"LH(O)": 2}})
    assert s3.command(4).elements == {"Cv(O)": 3, "LH(O)": 1}
    with pytest.raises(InputError, match="command 4 has 2 LH\\(O\\) aboard: choose at most that many"):
        fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum", element_losses={4: {"LH(O)": 3}})
    with pytest.raises(InputError, match="does not carry command 3"):
        fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum", element_losses={3: {"Sp(O)": 1}})


def test_a_fleet_may_retreat_instead_of_fighting():
    s = meet()
    s, ev = fleets.fleet_battle(s, MAP, R, Dice(1), "Oppidum", retreat="Blue")
    assert [r.fleet_side for r in s.retreats] == ["Blue"] and s.fleet("Blue").np == 4
    s, _ = retreats.retreat_fleet(s, MAP, R, "Blue", ["Arx", "Insula"])
    assert s.fleet("Blue").node == "Insula"


@pytest.mark.parametrize("tie, outcome", [("reroll", "Red"), ("defender_holds", "Blue"), ("both_stay", None)])
def test_tied_fleet_fight(tie, outcome):
    rules = rules_with({"options": {"fleet_tie": tie}})
    s = meet()
    rolls = {"fleet/1/Oppidum/Red/1": 2, "fleet/1/Oppidum/Blue/1": 4,       # 8 = 8
             "fleet/1/Oppidum/Red/2": 5, "fleet/1/Oppidum/Blue/2": 1}      # reroll: 11 v 5
    s, ev = fleets.fleet_battle(s, MAP, rules, Dice(1, rolls), "Oppidum")
    assert next(e for e in ev if e.kind == "fleet_battle").data["winner"] == outcome
    if tie == "defender_holds":
        assert [r.fleet_side for r in s.retreats] == ["Red"] and s.fleet("Red").np == 6
    if tie == "both_stay":
        assert not s.retreats and not s.battles


def test_fleet_with_no_np_left_is_destroyed_with_all_aboard():
    s = game()
    s, _ = movement.embark(s, R, [4])
    s = meet(s).with_fleet(replace(game().fleet("Blue"), node="Oppidum", np=20))
    rolls = {"fleet/1/Oppidum/Red/1": 1, "fleet/1/Oppidum/Blue/1": 6}
    rolls.update({f"recovery-np/1/Oppidum/Red/{i}": 1 for i in range(1, 7)})
    s, ev = fleets.fleet_battle(s, MAP, R, Dice(1, rolls), "Oppidum")
    assert s.fleet("Red") is None and all(c.id != 4 for c in s.commands)
    assert s.sides["Blue"].np_destroyed == 6 and s.sides["Blue"].commanders_destroyed == 1


def test_shelter_in_a_friendly_garrisoned_fortified_coastal_city():
    s = game()
    s, _ = movement.embark(s, R, [4])
    s, ev = movement.shelter(s, MAP, R)              # Portus: Red's capital, its sub-general inside
    f = s.fleet("Red")
    assert f.sheltered and not f.carrying and not s.command(4).aboard    # troops must land
    with pytest.raises(InputError, match="cannot shelter at Oppidum"):
        s2, _ = movement.move_fleet(game(), MAP, R, ["Oppidum"])
        movement.shelter(s2, MAP, R)


def test_one_fleet_counter_per_side_at_most():
    s = game()
    assert len([f for f in s.fleets if f.side == "Red"]) == 1
    assert s.with_fleet(replace(s.fleet("Red"), np=9)).fleets.count(s.fleet("Red")) == 0
    assert len(s.with_fleet(replace(s.fleet("Red"), np=9)).fleets) == 2


def test_a_fleet_retreats_onto_the_enemy_fleet_only_when_forced():
    from bellica.engine.magna_graecia.model import Retreat
    s = game()                                      # Red's fleet at Portus; sea paths to Oppidum and Arx
    s = s.with_fleet(replace(s.fleet("Blue"), node="Oppidum"))
    s = replace(s, phase="retreats", retreats=(Retreat(fleet_side="Red", by="Blue"),))
    with pytest.raises(InputError, match="may not retreat onto the enemy fleet at Oppidum while the sea is open towards Arx"):
        retreats.retreat_fleet(s, MAP, R, "Red", ["Oppidum"])
    # Arx taken by a second Blue fleet counter too (synthetic): every way leads onto an enemy fleet -> destroyed
    from bellica.engine.magna_graecia.model import Fleet
    boxed = replace(s, fleets=s.fleets + (Fleet("Green", "Arx", 2),), order=("Red", "Blue", "Green"),
                    sides={**s.sides, "Green": replace(s.sides["Blue"], name="Green")})
    s2, ev = retreats.retreat_fleet(boxed, MAP, R, "Red", ["Oppidum"])
    assert s2.fleet("Red") is None and any(e.kind == "fleet_destroyed" for e in ev)
    assert s2.sides["Blue"].np_destroyed == 6                     # the fleet it was forced onto scores its 6 NP
    # no way out at all: destroyed, the side it retreated from scoring the NPs
    s3, _ = retreats.retreat_fleet(s, MAP, R, "Red", [])
    assert s3.fleet("Red") is None and s3.sides["Blue"].np_destroyed == 6


def test_commanders_aboard_a_fleet_sunk_in_a_fight_score_for_the_winner():
    s = game()
    s, _ = movement.embark(s, R, [4])                             # Red's horse (6 elements) aboard 6 NP: no spare
    s = s.with_fleet(replace(s.fleet("Red"), np=6))
    s, _ = movement.move_fleet(s, MAP, R, ["Oppidum"])
    s = s.with_fleet(replace(s.fleet("Blue"), node="Oppidum", np=9))
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    d = Dice(1, {"fleet/1/Oppidum/Red/1": 1, "fleet/1/Oppidum/Blue/1": 6,          # 7 against 15: Red loses 8 > 6
                 **{f"recovery-np/1/Oppidum/Red/{i}": 1 for i in range(1, 7)}})
    s, ev = fleets.fleet_battle(s, MAP, R, d, "Oppidum")
    assert s.fleet("Red") is None and all(c.id != 4 for c in s.commands)
    assert s.sides["Blue"].commanders_destroyed == 1 and s.sides["Blue"].np_destroyed == 6


def test_a_sheltered_fleet_is_never_made_to_fight_in_its_own_turn():
    from bellica.engine.magna_graecia.model import Command, Siege
    # Blue besieges Portus (Red's capital; its sub-general inside) with its army and its fleet off the harbour;
    # Red's fleet lies sheltered there; Red ends its movement: no fleet fight is due
    s = game()
    s = s.with_command(replace(s.command(6), node="Portus", moved=False))
    s = s.with_fleet(replace(s.fleet("Blue"), node="Portus")).with_fleet(replace(s.fleet("Red"), sheltered=True))
    s = s.with_commands([replace(c, node="Arx") for c in s.commands if c.side == "Red" and not c.inherent])
    s = replace(s, sieges=(Siege("Portus", "Blue", "Red", started=1),))
    s, ev = turn.end_movement(s, MAP, R, Dice(1))
    assert s.battle_at("Portus", "naval") is None


def test_a_fleet_ends_its_retreat_among_enemy_land_counters_only_when_forced():
    from bellica.engine.magna_graecia.model import Retreat
    s = game()                                      # Red's fleet at Portus; Oppidum holds its neutral city
    s = s.with_city("Oppidum", ally="Blue").without_fleet("Blue")   # Oppidum now Blue's ally: enemy land for Red
    s = replace(s, phase="retreats", retreats=(Retreat(fleet_side="Red", by="Blue"),))
    with pytest.raises(InputError, match=r"may not end its retreat where enemy land counters stand \(Oppidum\)"):
        retreats.retreat_fleet(s, MAP, R, "Red", ["Oppidum"])
    s2, _ = retreats.retreat_fleet(s, MAP, R, "Red", ["Oppidum", "Arx", "Insula"])     # passing is no bar
    assert s2.fleet("Red").node == "Insula"
    # with Insula closed by a Blue fleet every end is enemy-held: forced, the fleet is lost
    boxed = s.with_fleet(replace(game().fleet("Blue"), node="Insula"))
    s3, ev = retreats.retreat_fleet(boxed, MAP, R, "Red", ["Oppidum"])
    assert s3.fleet("Red") is None and s3.sides["Blue"].np_destroyed == 6
