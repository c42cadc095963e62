"""Land battles: when they are due, base edge and defence, the result, recovery, retreats, the second day."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.magna_graecia import battles, movement, retreats, turn
from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.model import Command
from bellica.geo.errors import InputError

from .tiny import MAP, R, game


def blue_at(s, node, cid=None):
    blue = next(c for c in s.commands if c.side == "Blue" and not c.city and (cid is None or c.id == cid))
    return s.with_command(replace(blue, node=node))


def clash():
    """Red's horse (4) enters Campus from Portus, where Blue's foot (6) stands."""
    s = blue_at(game(), "Campus", 6)
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Campus"])
    s, ev = turn.end_movement(s, MAP, R, Dice(1))
    return s, ev


def test_battle_is_due_where_opposing_counters_meet_and_base_edge_is_the_entry_path():
    s, ev = clash()
    b = s.battle_at("Campus")
    assert (b.attacker, b.defenders, b.base_edge, b.day) == ("Red", ("Blue",), "Portus", 1)
    assert any(e.kind == "battle_due" and e.data["base_edge"] == "Portus" for e in ev)


def test_battle_against_a_city_allied_to_the_opposition():
    s = game().with_city("Oppidum", ally="Blue")
    s, _ = movement.move(s, MAP, R, Dice(1), 4, ["Vicus", "Oppidum"])
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    assert s.battle_at("Oppidum").defenders == ("Blue",)


def test_defence_choice_is_recorded():
    s, _ = clash()
    s, ev = battles.choose_defence(s, "Campus", "rear")
    assert s.battle_at("Campus").defence == "rear" and ev[0].data["base_edge"] == "Portus"
    with pytest.raises(InputError, match="give one of forward, central, rear"):
        battles.choose_defence(s, "Campus", "left")


def test_result_recovery_and_retreat():
    s, _ = clash()
    # Blue's foot loses 4 Sp on the table; Red holds the field
    rolls = {f"recovery/1/Campus/6/Sp(O)/{i}": v for i, v in enumerate([5, 4, 1, 6], 1)}
    s, ev = battles.enter_result(s, MAP, R, Dice(1, rolls), "Campus", "Red", {6: {"Sp(O)": 4}})
    rec = next(e for e in ev if e.kind == "recovery")
    assert [r["recovered"] for r in rec.data["rolls"]] == [True, False, False, True]   # 5+ unmodified for the loser
    assert s.command(6).elements["Sp(O)"] == 6
    assert [r.command for r in s.retreats] == [6]
    assert "Portus" not in s.retreats[0].open_paths        # the winner's base edge is closed
    with pytest.raises(InputError, match="retreats are still owed"):
        turn.end_player_turn(s, MAP, R)
    with pytest.raises(InputError, match="the way to Portus is closed"):
        retreats.retreat(s, MAP, R, 6, ["Portus"])
    s, _ = retreats.retreat(s, MAP, R, 6, ["Arx"])
    assert s.command(6).node == "Arx" and not s.retreats


def test_winner_holds_the_field_plus_two():
    s, _ = clash()
    d = Dice(1, {"recovery/1/Campus/4/LH(O)/1": 3})
    s, ev = battles.enter_result(s, MAP, R, d, "Campus", "Red", {4: {"LH(O)": 1}})
    roll = next(e for e in ev if e.kind == "recovery").data["rolls"][0]
    assert roll["modifiers"] == {"held_field": 2} and roll["total"] == 5 and roll["recovered"]


def test_retreat_rules_destroy():
    s, _ = clash()
    s, _ = battles.enter_result(s, MAP, R, Dice(1, {"recovery/1/Campus/6/Sp(O)/1": 1}), "Campus", "Red",
                                {6: {"Sp(O)": 1}}, open_paths=["Vicus", "Arx"])
    # Red's foot at Vicus: while the way to Arx (Blue's own capital) is open, Vicus is refused
    s = s.with_command(replace(s.command(3), node="Vicus"))
    with pytest.raises(InputError, match="may not retreat into enemy-held Vicus while a way is open towards Arx"):
        retreats.retreat(s, MAP, R, 6, ["Vicus"])
    # forced into a node with enemy land counters (only Vicus is open): destroyed, and Red scores its commander
    forced = replace(s, retreats=(replace(s.retreats[0], open_paths=("Vicus",)),))
    s2, ev = retreats.retreat(forced, MAP, R, 6, ["Vicus"])
    assert all(c.id != 6 for c in s2.commands) and s2.sides["Red"].commanders_destroyed == 1
    # a retreat is at least one node, at most its movement points
    with pytest.raises(InputError, match="at most 1 nodes"):
        retreats.retreat(s, MAP, R, 6, ["Arx", "Oppidum"])
    # no way open: destroyed
    s3, _ = retreats.retreat(s, MAP, R, 6, [])
    assert all(c.id != 6 for c in s3.commands)


def test_retreat_into_a_full_node_is_destroyed():
    s, _ = clash()
    s, _ = battles.enter_result(s, MAP, R, Dice(1), "Campus", "Red", {})
    extra = tuple(Command(100 + i, "Blue", "Arx", {"Ps(O)": 1}, general="Cv(O)") for i in range(3))
    s = replace(s, commands=s.commands + extra)       # Arx: Blue's horse (7) + 3 = 4 counters
    s2, ev = retreats.retreat(s, MAP, R, 6, ["Arx"])
    assert all(c.id != 6 for c in s2.commands) and any(e.kind == "retreat_destroyed" for e in ev)


def test_retreat_may_enter_a_node_held_only_by_an_enemy_fleet():
    s, _ = clash()
    s, _ = battles.enter_result(s, MAP, R, Dice(1), "Campus", "Red", {}, open_paths=["Vicus"])
    s = s.with_fleet(replace(s.fleet("Red"), node="Vicus"))
    s2, _ = retreats.retreat(s, MAP, R, 6, ["Vicus"])
    assert s2.command(6).node == "Vicus"


def test_undecided_second_day_sealed_choices():
    s, _ = clash()
    s, ev = battles.enter_result(s, MAP, R, Dice(1), "Campus", None, {})
    assert s.battle_at("Campus").undecided
    with pytest.raises(InputError, match="give stay or retire for each of Blue, Red"):
        battles.second_day(s, MAP, R, "Campus", {"Red": "stay"})
    stay, ev = battles.second_day(s, MAP, R, "Campus", {"Red": "stay", "Blue": "stay"})
    b = stay.battle_at("Campus")
    assert b.day == 2 and not b.undecided and ev[0].data["orders"] == {"Blue": "stay", "Red": "stay"}
    # the defender may shift the field only to his rear
    stay, _ = battles.choose_defence(stay, "Campus", "central")
    s2, _ = battles.choose_defence(replace(stay, battles=(replace(stay.battles[0], day=2, defence="central"),)), "Campus", "rear")
    with pytest.raises(InputError, match="only shift the battle to his rear"):
        battles.choose_defence(s2, "Campus", "forward")
    # one retires: its counters retreat, the non-phasing side first
    part, _ = battles.second_day(s, MAP, R, "Campus", {"Red": "retire", "Blue": "retire"})
    assert [r.command for r in part.retreats] == [6, 4] and not part.battles
    with pytest.raises(InputError, match="the non-phasing side retreats first: move command 6 before Red's"):
        retreats.retreat(part, MAP, R, 4, ["Portus"])
    part, _ = retreats.retreat(part, MAP, R, 6, ["Arx"])
    part, _ = retreats.retreat(part, MAP, R, 4, ["Portus"])
    assert part.command(6).node == "Arx" and part.command(4).node == "Portus" and not part.retreats


def test_commander_lost_elements_join_another_command_or_stay_leaderless():
    s, _ = clash()
    s = blue_at(s, "Campus", 7)
    rolls = {"recovery/1/Campus/6/general/1": 1}
    s2, ev = battles.enter_result(s, MAP, R, Dice(1, rolls), "Campus", "Red", {6: {"general": 1}})
    assert all(c.id != 6 for c in s2.commands) and s2.command(7).elements["Sp(O)"] == 8
    assert s2.sides["Red"].commanders_destroyed == 1
    s, _ = clash()
    s3, _ = battles.enter_result(s, MAP, R, Dice(1, rolls), "Campus", "Red", {6: {"general": 1}})
    assert s3.command(6).leaderless


def test_retreats_owed_are_listed_non_phasing_first():
    from bellica.engine.magna_graecia.model import Retreat
    s, _ = clash()
    s = s.with_retreats([Retreat(command=4), Retreat(command=6)])     # Red (phasing) first as given
    assert [r.command for r in s.retreats] == [6, 4]
