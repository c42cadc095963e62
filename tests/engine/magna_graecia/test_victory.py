"""Victory points: +1 city now allied, +1 enemy commander destroyed, +1 per 5 NP destroyed, +10 capital."""

from __future__ import annotations

from dataclasses import replace

from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.model import CityState
from bellica.engine.magna_graecia.victory import capture_capital, standings, victory_points
from bellica.engine.magna_graecia import turn

from .tiny import MAP, R, game, scenario


def test_vp_table():
    s = game()
    s = s.with_city("Oppidum", ally="Red")                                     # neutral at the start: +1
    s = replace(s, cities={**s.cities, "Vicus": CityState("Vicus", ally="Red", start_ally="Red")})   # allied already: 0
    s = s.with_side("Red", commanders_destroyed=2, np_destroyed=11)           # +2, +2 (11 // 5)
    vp = victory_points(s, R)["Red"]
    assert vp == {"cities": 1, "commanders": 2, "naval": 2, "capitals": 0, "total": 5}
    s, _ = capture_capital(s, "Blue", "Red", "end")
    assert victory_points(s, R)["Red"]["capitals"] == 10 and victory_points(s, R)["Red"]["total"] == 15
    assert standings(s, R)[0] == ("Red", 15)


def test_capital_rule_continues_when_the_scenario_says_so():
    s, _ = turn.new_game(scenario(capital_rule="continues"), MAP, R)
    s, ev = capture_capital(s, "Blue", "Red", "end")
    assert s.sides["Blue"].playing and any(c.side == "Blue" for c in s.commands)
    assert not any(e.kind == "side_eliminated" for e in ev)


def test_capital_of_strength_zero_has_an_inherent_subgeneral_who_never_leaves():
    s = game()
    sub = [c for c in s.commands if c.inherent]
    assert len(sub) == 1 and sub[0].side == "Red" and sub[0].node == "Portus" and sub[0].general == "Cv(O)"
    # Blue's capital has strength 1: one city command, no sub-general
    assert [c.city for c in s.commands if c.node == "Arx" and not c.side] == ["Arx"]
    assert not any(c.inherent for c in s.commands if c.side == "Blue")


def test_undefended_capital_entered_is_taken():
    s = game()
    s = replace(s, commands=tuple(c for c in s.commands if c.node != "Arx"))     # Arx left empty
    s = s.with_command(replace(s.command(4), node="Arx", moved=True, entered_from="Campus"))
    s, _ = turn.end_movement(s, MAP, R, Dice(1))
    s, ev = turn.end_player_turn(s, MAP, R)
    assert s.phase == "over" and any(e.kind == "capital_taken" for e in ev)
    assert next(e for e in ev if e.kind == "season_over").data["standings"][0] == ["Red", 10]
