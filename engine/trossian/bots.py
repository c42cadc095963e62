"""The Trossian campaign's engine players (:mod:`bellica.engine.core.players`): a nation's seat played by a bot.

Both read only their seat: the nation's player view (:func:`~.status.status_view` for the nation:
its own armies with their units, its couriers, treasury and the orders it gave this phase; of
the others only where their armies stand; who holds each province, the alliances) and the seat's
aid (:func:`bot_aid`: the scenario's map and the rules, public as the printed map and rule book).
Each answer is one step a person types (``march``, ``courier``, ``done``, ``recruit``); the umpire
keeps ``next``, the table battles' results and the dice entered at the table.

* **random**: :class:`~bellica.engine.core.players.RandomSteps` without ``ally`` and ``bank``: neither
  ends a nation's say nor uses anything up (an offer taken back, AP moved back), so a random
  player drawing them would treat or move its AP for ever; it leaves both to persons.
* **heuristic**, one step a call with its reason, in the orders phase:

  1. *march on the enemy capital*: every army with an HQ that may move marches on the nearest
     enemy capital (the capital province of a nation not allied to it) by the fewest provinces,
     as far as its slowest arm allows this phase (the road bonus when every step is a road), and
     stops where an enemy army stands (the battle);
  2. *keep couriers flowing*: a courier waiting in the capital is sent to the army farthest
     from it that no courier is riding to, with the king's order to march on that capital (and, where couriers carry the
     orders, the order itself); a courier on its way rides towards its army (its places this
     phase); one in its army's province delivers;
  3. then ``done``.

  In winter quarters a nation with no courier left recruits one in its capital.
"""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.players import Answer, BoardAid, RandomSteps, Ranked, Seat, board_aid
from bellica.engine.core.walks import fewest_steps

__all__ = ["BOTS", "Heuristic", "bot_aid"]


#: The seat's aid: the board and the rules (engine.core.players.board_aid).
Aid = BoardAid
bot_aid = board_aid


def _route(scenario, start: str, goal: str) -> list[str] | None:
    """The fewest provinces from ``start`` to ``goal`` (the provinces entered, in order)."""
    return fewest_steps(start, goal, scenario.neighbours)


class _Reading:
    """What the heuristic reads of its seat's view, once per decision."""

    def __init__(self, seat: Seat) -> None:
        v, self.me, self.aid = seat.view.status, seat.faction, seat.aid
        self.v = v
        allies = {a for pair in v.get("alliances", ()) if self.me in pair for a in pair}
        scenario = self.aid.scenario
        self.capital = scenario.nations[self.me].capital
        self.enemy_capitals = {n.capital: name for name, n in scenario.nations.items() if name != self.me and name not in allies}
        self.mine = [a for a in v.get("armies", ()) if a["nation"] == self.me]
        self.enemy_at = {a["province"] for a in v.get("armies", ()) if a["nation"] != self.me and a["nation"] not in allies
                         and not a.get("aboard")}
        given = v.get("orders", ())
        self.ordered_armies = {o["input"].get("army") for o in given if o["kind"] in ("march", "army")}
        self.ordered_couriers = {o["input"].get("courier") for o in given if o["kind"] == "courier"}

    def target(self, here: str) -> tuple[str, list[str]] | None:
        """The nearest enemy capital from ``here`` and the route to it."""
        routes = [(len(r), cap, r) for cap in sorted(self.enemy_capitals) if (r := _route(self.aid.scenario, here, cap))]
        return (min(routes)[1], min(routes)[2]) if routes else None


def _speed(r: _Reading, army: Mapping, path: list[str]) -> int:
    from .model import Unit
    from .movement import army_speed, path_speed

    units = [Unit(u["id"], u["kind"], u.get("quality", "line")) for u in army["units"] or ()]
    return path_speed(r.aid.scenario, r.aid.rules, army_speed(r.aid.rules, units), army["province"], path)


def _marches(r: _Reading) -> list[list[Answer]]:
    out = []
    for a in sorted(r.mine, key=lambda a: a["army"]):
        units = a.get("units") or ()
        if (a["army"] in r.ordered_armies or a.get("aboard") or a.get("rest") or a.get("standing")
                or not any(u["kind"] == "hq" for u in units)):
            continue
        found = r.target(a["province"])
        if found is None or not found[1]:
            continue
        capital, route = found
        stop = next((i for i, p in enumerate(route) if p in r.enemy_at), None)
        route = route[:stop + 1] if stop is not None else route
        for n in range(len(route), 0, -1):  # as far as its arms (and the roads) allow
            if n <= _speed(r, a, route[:n]):
                path = route[:n]
                out.append([Answer("march", {"army": str(a["army"]), "path": path}, (
                    f"army {a['army']} marches on {capital}, the nearest enemy capital ({r.enemy_capitals[capital]}'s), "
                    f"to {path[-1]}" + (" where an enemy army stands: a battle" if path[-1] in r.enemy_at else ""),))])
                break
    return out


def _couriers(r: _Reading) -> list[list[Answer]]:
    out = []
    armies = {f"army {a['army']}": a for a in r.mine}
    scenario, rules = r.aid.scenario, r.aid.rules
    addressed = {c.get("to") for c in r.v.get("couriers", ()) if c.get("message")}
    addressed |= {o["input"].get("to") for o in r.v.get("orders", ()) if o["kind"] == "courier"}  # sent this phase
    for c in sorted(r.v.get("couriers", ()), key=lambda c: c["courier"]):
        if c["courier"] in r.ordered_couriers or c.get("moved") or c["where"] not in scenario.provinces:
            continue
        if not c.get("message"):
            waiting = [a for name, a in armies.items() if name not in addressed]  # one courier on the way per army
            if c["where"] != r.capital or not waiting:
                continue
            far = max(waiting, key=lambda a: (len(_route(scenario, r.capital, a["province"]) or ()), -a["army"]))
            addressed.add(f"army {far['army']}")
            found = r.target(far["province"])
            goal = found[0] if found else r.capital
            given = {"action": "send", "courier": str(c["courier"]), "to": f"army {far['army']}",
                     "message": f"March on {goal}"}
            if getattr(rules.options, "couriers_carry_orders", False) and found and found[1]:
                given["order"] = "march " + ", ".join(found[1])
            out.append([Answer("courier", given, (f"courier {c['courier']} leaves the capital for army {far['army']}, "
                                                   f"the farthest still without one, with the order to march on {goal}",))])
            continue
        army = armies.get(c.get("to") or "")
        if army is None:
            continue
        if c["where"] == army["province"]:
            out.append([Answer("courier", {"action": "deliver", "courier": str(c["courier"])}, (
                f"courier {c['courier']} delivers its order to {c['to']}",))])
            continue
        route = _route(scenario, c["where"], army["province"]) or []
        limit = rules.movement.courier + (rules.movement.road_bonus if route and all(
            scenario.road(a, b) for a, b in zip([c["where"], *route[:-1]], route)) else 0)
        if route:
            path = route[:limit]
            out.append([Answer("courier", {"action": "move", "courier": str(c["courier"]), "path": path}, (
                f"courier {c['courier']} rides on towards {c['to']} in {army['province']}, to {path[-1]}",))])
    return out


class Heuristic(Ranked):
    """The Trossian heuristic nation (module doc)."""

    tries = 40

    def candidates(self, seat: Seat) -> list[list[Answer]]:
        r = _Reading(seat)
        phase = r.v.get("phase")
        if phase == "orders" and seat.action("done"):
            return [*_marches(r), *_couriers(r), [Answer("done", {}, ("has given every order it wants this phase",))]]
        if phase == "winter" and seat.action("recruit") and not r.v.get("couriers"):
            return [[Answer("recruit", {"at": r.capital, "kinds": ["courier"]}, (
                f"recruits a courier in {r.capital}: none is left to carry the king's orders",))]]
        return []


class RandomNation(RandomSteps):
    """:class:`RandomSteps` that never treats nor moves AP (module doc)."""

    skip = frozenset({"ally", "bank"})


BOTS = {"random": RandomNation, "heuristic": Heuristic}
