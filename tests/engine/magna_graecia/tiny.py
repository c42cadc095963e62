"""A tiny synthetic Sicily for the Magna Graecia tests (no node tables needed).

    Portus (Red capital, coastal, fortified) -- Vicus -- Oppidum (neutral, 1 command, coastal, fortified)
       |                                         |
    Campus (inland, open) ------------------- Arx (Blue capital, coastal, fortified, strength 1)

Land paths: Portus-Vicus, Vicus-Oppidum, Portus-Campus, Campus-Arx, Oppidum-Arx, Vicus-Campus.
Sea paths: Portus-Oppidum, Oppidum-Arx, Portus-Arx (via the coast), Arx-Insula (coastal, open).
"""

from __future__ import annotations

from bellica.engine.magna_graecia.dice import Dice
from bellica.engine.magna_graecia.model import Link, NodeMap, Place
from bellica.engine.magna_graecia.rules import default_rules
from bellica.engine.magna_graecia.scenario import CommandSpec, Scenario, SideSpec
from bellica.engine.magna_graecia.turn import new_game

R = default_rules()

MAP = NodeMap(
    places={
        "Portus": Place("Portus", coastal=True, fortified=True, commands=0),
        "Vicus": Place("Vicus"),
        "Oppidum": Place("Oppidum", coastal=True, fortified=True, commands=1),
        "Campus": Place("Campus"),
        "Arx": Place("Arx", coastal=True, fortified=True, commands=2),
        "Insula": Place("Insula", coastal=True),
        "Ruina": Place("Ruina", commands=1, last_year=-400),
    },
    links=(
        Link("Portus", "Vicus"), Link("Vicus", "Oppidum"), Link("Portus", "Campus"), Link("Campus", "Arx"),
        Link("Oppidum", "Arx"), Link("Vicus", "Campus"),
        Link("Portus", "Oppidum", "sea"), Link("Oppidum", "Arx", "sea"), Link("Portus", "Arx", "sea"),
        Link("Arx", "Insula", "sea"),
    ),
)

FOOT = CommandSpec("Cv(O)", {"Sp(O)": 8, "Ps(O)": 2})
HORSE = CommandSpec("Cv(O)", {"Cv(O)": 3, "LH(O)": 2})


def scenario(*, red_np: int = 6, blue_np: int = 4, red_army=(FOOT, HORSE), blue_army=(FOOT, HORSE),
             capital_rule: str = "eliminated", three: bool = False) -> Scenario:
    sides = [
        SideSpec("Red", "Portus", 0, "Portus", red_np, "Portus" if red_np else "", (), tuple(red_army)),
        SideSpec("Blue", "Arx", 1, "Arx", blue_np, "Arx" if blue_np else "", (), tuple(blue_army)),
    ]
    if three:
        sides.append(SideSpec("Green", "Insula", 0, "Insula", 0, "", (), (HORSE,)))
    return Scenario("tiny", "Tiny war", -300, tuple(sides), capital_rule=capital_rule)


def game(**kw):
    state, _ = new_game(scenario(**kw), MAP, R)
    return state


def dice(**entered) -> Dice:
    """Dice with rolls entered by label key (``alliance/1/Oppidum/Red=6`` as ``{"alliance/1/Oppidum/Red": 6}``)."""
    return Dice(7, dict(entered.pop("rolls", {})))
