"""The capital rule and the victory points.

A side whose capital is taken leaves the campaign (unless the scenario's ``capital_rule``
is "continues"); the taker scores the capital.  Victory points: +1 for each city allied
now that was neutral or hostile at the start, +1 for each enemy (not allied) commander
destroyed, +1 for every 5 enemy naval points destroyed, +10 for an enemy capital taken.
"""

from __future__ import annotations

from dataclasses import replace

from .model import Event, GameState
from .rules import Rules

__all__ = ["capture_capital", "standings", "victory_points"]


def capture_capital(state: GameState, loser: str, taker: str, phase: str) -> tuple[GameState, list[Event]]:
    """``taker`` takes ``loser``'s capital: the city is the taker's; under the "eliminated"
    capital rule the loser's counters leave the map and its turns are skipped."""
    cap = state.sides[loser].capital
    state = state.with_city(cap, ally=taker, holder=taker, hostile_to=None)
    state = state.with_side(taker, capitals_captured=state.sides[taker].capitals_captured + (cap,))
    gone = [c.id for c in state.commands if (c.city == cap and not c.side) or (c.side == loser and c.node == cap and c.inherent)]
    state = state.without_commands(gone)
    events = [Event(state.turn, phase, "capital_taken", {"capital": cap, "side": loser, "by": taker,
                                                        "rule": state.capital_rule},
                    f"{taker} takes {cap}, {loser}'s capital")]
    if state.capital_rule == "eliminated":
        state = state.with_side(loser, out=f"capital {cap} taken by {taker}")
        state = state.without_commands([c.id for c in state.commands if c.side == loser]).without_fleet(loser)
        alive = {c.id for c in state.commands}
        state = replace(state, retreats=tuple(r for r in state.retreats
                                              if (r.command and r.command in alive) or (r.fleet_side and r.fleet_side != loser)),
                        battles=tuple(b for b in state.battles if b.attacker != loser))
        events.append(Event(state.turn, phase, "side_eliminated", {"side": loser, "capital": cap, "by": taker},
                            f"{loser} is eliminated: its capital {cap} has fallen"))
    return state, events


def victory_points(state: GameState, rules: Rules) -> dict[str, dict[str, int]]:
    """Each side's points by heading, and ``total``."""
    v = rules.victory
    out: dict[str, dict[str, int]] = {}
    for name, s in state.sides.items():
        cities = sum(1 for c in state.cities.values()
                     if c.ally == name and c.start_ally != name and c.name not in s.capitals_captured
                     and state.sides[name].capital != c.name)
        row = {"cities": cities * v.city_allied,
               "commanders": s.commanders_destroyed * v.commander_destroyed,
               "naval": (s.np_destroyed // v.np_per_point),
               "capitals": len(s.capitals_captured) * v.capital_captured}
        row["total"] = sum(row.values())
        out[name] = row
    return out


def standings(state: GameState, rules: Rules) -> list[tuple[str, int]]:
    """Sides by total victory points, best first (ties in move order)."""
    vp = victory_points(state, rules)
    return sorted(((s, vp[s]["total"]) for s in state.order), key=lambda x: (-x[1], state.order.index(x[0])))
