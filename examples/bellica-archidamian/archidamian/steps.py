"""The Archidamian War's steps as data: `bellica archidamian <step>` and the web forms follow from them.

``start`` and ``status`` every declared ruleset gets from the core; these are the game's own.
Each :class:`~bellica.engine.core.steps.Action` names who takes it (a side, or the umpire), its
typed parameters (one parser for every front end) and the function that plays it.
"""

from __future__ import annotations

from bellica.engine.core.steps import SIDE, UMPIRE, Action, Param

__all__ = ["ACTIONS"]


def _march(c, side, *, target, dispatch):
    from .ruleset import march

    return march(c, side, target=target, dispatch=dispatch)


def _resolve(c, _umpire):
    from .ruleset import resolve

    return resolve(c)


ACTIONS = (
    Action("march", "Give the side's march of the year: stay, or cross one border (sealed until the year is resolved).",
           _march, SIDE, (
               Param("target", "The province the army ends the year in: its own, or one across a border.",
                     flag="--to", required=True, metavar="PROVINCE", example="Megaris"),
               Param("dispatch", "The general's words with the march (sealed with it).", flag="--dispatch", default="",
                     example="Ravage the Megarid"),
           ), details="Given again, it replaces the side's earlier march of the year.",
           example='bellica archidamian march war.duckdb --side Athens --to Megaris --dispatch "Ravage the Megarid"'),
    Action("resolve", "The umpire resolves the year: both marches at once, a battle where the armies meet "
                      "(a die each from the campaign's seed), the verdict.", _resolve, UMPIRE,
           example="bellica archidamian resolve war.duckdb"),
)
