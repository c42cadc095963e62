"""The names a Vae Victis order types (an initiative's sea zone, an assaulted structure, a sea
link's zone and structure) spelled as the board spells them, by the one matcher of every ruleset
(:mod:`engine.core.names`: any case, a unique beginning, "did you mean").  A name that fits
several is refused with them; a name that fits none is left as typed, for the legality check's
own refusal (with its nearest spelling)."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from bellica.engine.core.names import matches, refusal

from .model import ArmyOrders

__all__ = ["spelled_orders"]


def spelled_orders(board, orders: Mapping[int, ArmyOrders]) -> tuple[dict[int, ArmyOrders], list]:
    """(``orders`` with every name the board's spelling, the problems of names that fit several)."""
    from .order_errors import OrderProblem

    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    structures = sorted(board.structures)
    problems: list = []

    def spell(army: int, field: str, name, options, what: str):
        if not isinstance(name, str):
            return name
        found = matches(name, options)
        if len(found) == 1:
            return found[0]
        if found:
            problems.append(OrderProblem(army, field, refusal(name, found, options, what)))
        return name

    out = {}
    for army, o in orders.items():
        use = spell(army, "initiative", o.initiative, ["strength", *zones], "sea zone")
        assault = spell(army, "assault", o.assault, structures, "structure") if o.assault else o.assault
        links = tuple((spell(army, "sea_links", z, zones, "sea zone"), spell(army, "sea_links", s, structures, "structure"))
                      for z, s in o.sea_links)
        out[army] = replace(o, initiative=use, assault=assault, sea_links=links)
    return out, problems
