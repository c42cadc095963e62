"""Magna Graecia's engine players (:mod:`bellica.engine.core.players`): a side's seat played by a bot.

Both read only their seat: the side's player view (:func:`~.status.view` redacted for the side: its
own commands with their strength and the nodes each may reach now, of the others only that
counters stand in a node; the cities' allies, the sieges, the battles due) and the seat's aid
(:func:`bot_aid`: the node map and the stacking limit, public as the printed map and rule book).
Each answer is one step a person types (``move``, ``end-movement``, ``siege``, ``defence``,
``second-day``, ``retreat``, ``retreat-fleet``, ``end-turn``); the umpire keeps the table battles'
results, the fleet fights and the dice entered at the table.

* **random**: :class:`~bellica.engine.core.players.RandomSteps`.
* **heuristic**, one step a call with its reason, in this order:

  1. a second day: *stay* when its estimated strength there is at least the enemy's, else *retire*;
  2. a battle it defends: *central* defence (it never goes inside the walls: a siege it does not
     choose);
  3. a battle it attacks at a walled place: *besiege when the ratio allows*: a siege when its
     strength there is at least twice the defenders' estimate (the fall rolls' ratio bonus
     starts at 2:1), else the field battle;
  4. a retreat owed: the first open path to a place of its own or an ally's, else the first open;
  5. the movement: *take neutral cities*: each command (lowest number first) marches on the
     nearest neutral city no other command of the side has claimed and stops there, where the
     end of the movement rolls for the city's alliance (a 6); with no neutral city left it marches
     on the nearest enemy walled city, to besiege it.  The last command in the capital stays.  A
     command moves to the node of its reach nearest its target, by the fewest nodes;
  6. then ``end-movement``, and ``end-turn`` once the battles and retreats are done.

  An enemy counter's strength is hidden: it is estimated at the mean strength of the side's own
  commands (one guess, said in the reason).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from bellica.engine.core.players import Answer, RandomSteps, Ranked, Seat
from bellica.engine.core.walks import fewest_steps, steps_from

__all__ = ["BOTS", "Heuristic", "bot_aid"]

#: The ratio of strengths at which the heuristic besieges (the fall rolls' first ratio bonus: 2:1).
SIEGE_RATIO = 2.0


@dataclass(frozen=True)
class Aid:
    """The public board: the node map (places, walls, paths) and the land stacking limit."""

    nmap: Any
    stacking: int


def bot_aid(campaign, viewer: str) -> Aid:
    return Aid(campaign.board.nmap, int(campaign.rules.stacking.land_counters))


def _distances(nmap, target: str) -> dict[str, int]:
    return steps_from(target, lambda n: nmap.neighbours(n, "land"))


def _path(nmap, start: str, end: str, allowed: set[str]) -> list[str] | None:
    """The fewest nodes from ``start`` to ``end`` through ``allowed`` (the nodes entered, in order)."""
    return fewest_steps(start, end, lambda n: [m for m in nmap.neighbours(n, "land") if m in allowed])


class _Reading:
    """What the heuristic reads of its seat's view, once per decision."""

    def __init__(self, seat: Seat) -> None:
        v = seat.view.status
        self.me, self.v = seat.faction, v
        self.friends = {self.me} | {a for pair in v.get("alliances", ()) if self.me in pair for a in pair}
        self.mine = [x for x in v.get("counters", ()) if x.get("side") == self.me]
        own = [x["strength"] for x in self.mine if x.get("strength")]
        self.guess = sum(own) / len(own) if own else 1.0  # an enemy counter's strength, hidden: our mean
        self.capital = next((s["capital"] for s in v.get("sides", ()) if s["side"] == self.me), None)

    def strength_at(self, node: str) -> float:
        return float(sum(x.get("strength") or 0 for x in self.mine if x["node"] == node and not x.get("aboard")))

    def enemies_at(self, node: str) -> int:
        return sum(1 for x in self.v.get("counters", ()) if x["node"] == node and "id" not in x
                   and (x.get("owner") or "") not in self.friends)

    def city_owner(self, node: str) -> str | None:
        city = next((c for c in self.v.get("cities", ()) if c["city"] == node), None)
        return None if city is None else (city["holder"] or city["ally"])


def _battle_answers(seat: Seat, r: _Reading) -> list[list[Answer]]:
    """Second days, defences, sieges and retreats owed, best first."""
    out: list[list[Answer]] = []
    for w in r.v.get("second_day", ()):
        if seat.action("second-day") and r.me in w["waiting_for"]:
            ours, theirs = r.strength_at(w["node"]), r.enemies_at(w["node"]) * r.guess
            choice = "stay" if ours >= theirs else "retire"
            out.append([Answer("second-day", {"node": w["node"], "choice": choice}, (
                f"{choice}s at {w['node']} on the second day: our {ours:g} against about {theirs:g} (each enemy counter "
                f"guessed at our mean {r.guess:.1f})",))])
    for b in r.v.get("battles", ()):
        if b["kind"] != "land" or b["defence"] or b["undecided"]:
            continue
        ours, theirs = r.strength_at(b["node"]), r.enemies_at(b["node"]) * r.guess
        if b["attacker"] == r.me and seat.action("siege") and seat.aid.nmap.places[b["node"]].fortified:
            if theirs and ours >= SIEGE_RATIO * theirs:
                out.append([Answer("siege", {"node": b["node"]}, (
                    f"besieges {b['node']}: the ratio allows it, our {ours:g} against about {theirs:g} inside "
                    f"(at least {SIEGE_RATIO:g}:1 gives the fall rolls their bonus)",))])
        elif r.me in b["defenders"] and seat.action("defence"):
            out.append([Answer("defence", {"node": b["node"], "defence": "central"}, (
                f"defends {b['node']} in the centre (our {ours:g} against about {theirs:g})",))])
    for x in r.v.get("retreats", ()):
        answer = _retreat(seat, r, x)
        if answer:
            out.append([answer])
    return out


def _retreat(seat: Seat, r: _Reading, owed: Mapping) -> Answer | None:
    nmap = seat.aid.nmap
    if owed.get("command") and seat.action("retreat"):
        cmd = next((x for x in r.mine if x.get("id") == owed["command"]), None)
        if cmd is None:
            return None
        ways = [n for n in (owed.get("open_paths") or nmap.neighbours(cmd["node"], "land")) if not r.enemies_at(n)]
        ways.sort(key=lambda n: (r.city_owner(n) not in r.friends, n))
        path = ways[:1]
        return Answer("retreat", {"command": str(owed["command"]), "path": path}, (
            f"command {owed['command']} retreats to {path[0] if path else 'nowhere open (it stays and is lost)'}"
            + (", a friendly place" if path and r.city_owner(path[0]) in r.friends else ""),))
    if owed.get("fleet_side") == r.me and seat.action("retreat-fleet"):
        fleet = next((f for f in r.v.get("fleets", ()) if f["side"] == r.me), None)
        ways = [n for n in nmap.neighbours(fleet["node"], "sea") if not r.enemies_at(n)] if fleet else []
        ways.sort(key=lambda n: (r.city_owner(n) not in r.friends, n))
        return Answer("retreat-fleet", {"path": ways[:1]}, (f"the fleet retreats to {ways[0] if ways else 'nowhere open'}",))
    return None


def _targets(seat: Seat, r: _Reading) -> tuple[list[str], str]:
    """The places the side's commands march on, and why: the neutral cities, else the enemy walled cities."""
    neutral = sorted(c["city"] for c in r.v.get("cities", ()) if not c["ally"] and not c["holder"])
    if neutral:
        return neutral, "neutral city"
    places = seat.aid.nmap.places
    enemy = sorted(c["city"] for c in r.v.get("cities", ()) if (c["holder"] or c["ally"]) not in r.friends
                   and c["city"] in places and places[c["city"]].fortified)
    return enemy, "enemy walled city"


def _moves(seat: Seat, r: _Reading) -> list[list[Answer]]:
    """Each movable command's march on its claimed target (module doc), best first."""
    nmap, reach = seat.aid.nmap, r.v.get("reach", {})
    targets, what = _targets(seat, r)
    dist = {t: _distances(nmap, t) for t in targets}
    stacks: dict[str, int] = {}
    for x in r.mine:
        if not x.get("aboard"):
            stacks[x["node"]] = stacks.get(x["node"], 0) + 1
    besieging = {s["node"] for s in r.v.get("sieges", ()) if s.get("besieger") == r.me}
    claimed = {x["node"] for x in r.mine if x["node"] in targets}  # a command on a target stays to roll there
    out: list[list[Answer]] = []
    for cmd in sorted(r.mine, key=lambda x: x["id"]):
        here = cmd["node"]
        if cmd.get("aboard") or cmd.get("inherent") or str(cmd["id"]) not in reach or here in targets:
            continue
        if here in besieging:
            continue  # a besieger stays: the siege rolls for the fall each turn
        if here == r.capital and stacks.get(here, 0) <= 1:
            continue  # the last command in the capital holds it
        free = [t for t in targets if t not in claimed and here in dist[t]]
        if not free:
            continue
        goal = min(free, key=lambda t: (dist[t][here], t))
        options = sorted((dist[goal].get(n, 99), n) for n in reach[str(cmd["id"])]
                         if dist[goal].get(n, 99) < dist[goal][here] and stacks.get(n, 0) < seat.aid.stacking)
        for _d, node in options[:3]:
            path = _path(nmap, here, node, set(reach[str(cmd["id"])]))
            if path:
                out.append([Answer("move", {"command": str(cmd["id"]), "path": path}, (
                    f"command {cmd['id']} marches on {goal}, the nearest {what} unclaimed ({dist[goal][here]} paths "
                    f"away), to {node}" + (": take it by the alliance roll" if what == "neutral city" else ": besiege it"),))])
        claimed.add(goal)
    return out


class Heuristic(Ranked):
    """Magna Graecia's heuristic side (module doc)."""

    tries = 40

    def candidates(self, seat: Seat) -> list[list[Answer]]:
        r = _Reading(seat)
        out = _battle_answers(seat, r)
        if r.v.get("phase") == "movement" and r.v.get("phasing") == r.me:
            out += _moves(seat, r)
            if seat.action("end-movement"):
                out.append([Answer("end-movement", {}, ("ends its movement: no command has a nearer place to reach",))])
        if seat.action("end-turn"):
            out.append([Answer("end-turn", {}, ("ends its turn: its battles and retreats are done",))])
        return out


BOTS = {"random": RandomSteps, "heuristic": Heuristic}
