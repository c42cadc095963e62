"""The one rule for the MP an army pays to enter a hex (seed, "Movement").

:func:`step_cost` takes primitive facts about the step, so both the Board-based
movement (:func:`engine.vae_victis.movement.entry_cost`) and the graph-based
logistics distances call the same code:

    terrain cost; halved on a road entered through a side the road crosses; then
    ``logistics_road_mp`` (-1) if that road step is on the faction's logistics line;
    ``river_mp`` (+1) on a River hex without a Town/City; ``enemy_navy_zoc_mp`` (+1)
    last if the hex is in another faction's navy ZoC; then clamped to
    ``min_move_mp``..``max_move_mp``.  Hexes that are not land, or whose terrain has
    no MP cost (Peaks), cannot be entered.

The numbers come from ``rules.movement`` (:class:`engine.vae_victis.rules.MovementRules`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bellica.engine.vae_victis.rules import MovementRules

__all__ = ["MoveCost", "step_cost"]


@dataclass(frozen=True)
class MoveCost:
    """MP to enter a hex: ``mp`` clamped to the floor and ceiling, ``raw`` without the floor
    (the seed's contest step 1 compares it), ``why`` the sum in words (empty unless asked)."""

    mp: int
    raw: int
    why: str = ""


def step_cost(
    movement: MovementRules,
    terrain: str | None,
    kind: str = "land",
    *,
    road: bool = False,
    logistics_road: bool = False,
    river_without_structure: bool = False,
    enemy_navy_zoc: bool = False,
    explain: bool = False,
) -> MoveCost | None:
    """MP to enter a hex of ``kind``/``terrain`` (None: it cannot be entered).

    ``road``: the step follows a road (enters through a side the road crosses, or the
    option ``structure_road_any_side`` applies); ``logistics_road``: that road step is on the
    faction's logistics line (only counts with ``road``); ``river_without_structure``: the
    hex is a River hex with no Town/City; ``enemy_navy_zoc``: the hex is in another faction's
    navy ZoC.  ``explain`` fills :attr:`MoveCost.why` (off in graph searches, for speed)."""
    base = movement.terrain_mp.get(terrain) if kind == "land" else None
    if base is None:
        return None
    cost = base
    why = [f"{terrain} {cost}"] if explain else None
    if road:
        cost //= movement.road_divisor  # every terrain cost of the seed is even: halving is exact
        if why is not None:
            why.append(f"road /{movement.road_divisor} = {cost}")
        if logistics_road:
            cost += movement.logistics_road_mp
            if why is not None:
                why.append(f"logistics line {movement.logistics_road_mp:+d} = {cost}")
    if river_without_structure:
        cost += movement.river_mp
        if why is not None:
            why.append(f"river {movement.river_mp:+d} = {cost}")
    if enemy_navy_zoc:
        cost += movement.enemy_navy_zoc_mp
        if why is not None:
            why.append(f"enemy navy ZoC {movement.enemy_navy_zoc_mp:+d} = {cost}")
    raw = min(cost, movement.max_move_mp)
    mp = max(movement.min_move_mp, raw)
    if why is not None and mp != cost:
        why.append(f"clamped to {mp}")
    return MoveCost(mp=mp, raw=raw, why=", ".join(why) if why is not None else "")
