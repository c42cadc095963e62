"""A scripted opening of Magna Graecia's Dionysian scenario, for a ``make demo``-style run.

:func:`build_demo_campaign` makes the campaign exactly as ``bellica campaign new --scenario
magna-graecia/dionysian`` does (the hex map of Sicily at res 6 built from the embedded data,
the node map of 397 BC routed over it: a few seconds).  :func:`run_demo` then plays through
the functions the ``bellica magna-graecia`` commands call (:func:`~bellica.engine.magna_graecia.ruleset.play`,
one step, one transaction each) with a scripted policy (:func:`play_turn`): every side marches
its commands on a target (Syracuse on Motya, Carthage on Syracuse), as far as their movement
points and the halts allow, without overstacking, and its fleet along the coast when the target is
a port; a neutral city entered is swayed by the
alliance roll (the first one entered by the umpire as a 6, rolled at the table); every battle
due is besieged where the walls and the numbers allow, else fought with a central defence and
its result entered (the side with more elements wins, losing one element; every sixth battle
undecided, and both sides' sealed second-day orders written); the beaten retreat by the first
open path; the fleets fight where they meet.  It plays until all sides have moved, a battle's
result, a siege's fall roll and an alliance roll are in the log (``DEMO_TURNS`` turns at most),
then verifies the log against the tables and re-adjudicates every step from the scenario.

:func:`play_first_turn` then plays one whole campaign turn of each other scenario (Pyrrhic, First and
Second Punic: every side's player-turn in the scenario's order, the three-sided ones included) by the
same policy with that scenario's targets (:data:`SCENARIO_TARGETS`), each on its own campaign file
beside the Dionysian one (``magna-graecia-pyrrhic.duckdb``, ...), each verified and re-adjudicated.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from pathlib import Path
from typing import Mapping

from bellica.demo_common import demo_main, told_lines, with_next
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.machine import StepRefused
from bellica.engine.magna_graecia.battles import camps
from bellica.engine.magna_graecia.movement import reachable, reachable_by_sea
from bellica.engine.magna_graecia.ruleset import next_decision, play, state_of
from bellica.geo.errors import InputError

__all__ = ["DEMO_SEED", "SCENARIOS", "SCENARIO_TARGETS", "TARGETS", "build_demo_campaign", "march", "play_first_turn",
           "play_turn", "resolve_battles", "run_demo"]

DEMO_SEED = 397
SCENARIO = "magna-graecia/dionysian"
#: Where each side marches.
TARGETS = {"Syracuse": "Motya", "Carthage": "Syracuse", "Pyrrhus": "Lilybaeum", "Mamertines": "Syracuse",
           "Rome": "Syracuse"}
DEMO_TURNS = 6
#: The four scenarios, in the seed's order.
SCENARIOS = ("dionysian", "pyrrhic", "first-punic", "second-punic")
#: Where each side marches, by scenario (the season's historical objectives).
SCENARIO_TARGETS = {
    "dionysian": {"Syracuse": "Motya", "Carthage": "Syracuse"},
    # Pyrrhus against Lilybaeum; Carthage back on Syracuse; the Mamertines on Pyrrhus' Tauromenium
    "pyrrhic": {"Pyrrhus": "Lilybaeum", "Carthage": "Syracuse", "Mamertines": "Tauromenium"},
    # Appius Claudius on Syracuse; Hanno and Hiero both on Messana
    "first-punic": {"Rome": "Syracuse", "Carthage": "Messana", "Syracuse": "Messana"},
    # Marcellus on Syracuse; Himilco on Akragas; Hippocrates on Marcellus' Leontini
    "second-punic": {"Rome": "Syracuse", "Carthage": "Akragas", "Syracuse": "Leontini"},
}


def build_demo_campaign(out: str | Path, *, scenario: str = SCENARIO, map_path: str | Path | None = None,
                        force: bool = True) -> Path:
    """A fresh campaign of ``scenario`` at ``out`` (the map built for its bbox unless ``map_path``)."""
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.etl.campaign import create_node_campaign
    from bellica.etl.scenario import load_node_scenario

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    s = load_node_scenario(scenario)
    writer = get_ruleset(s.ruleset).write_scenario_file
    create_node_campaign(s, out, fill=lambda con: writer(con, s.path), map_path=map_path, force=force)
    return out


def _distances(nmap, target: str, kind: str = "land") -> dict[str, int]:
    dist = {target: 0}
    todo = deque([target])
    while todo:
        n = todo.popleft()
        for m in nmap.neighbours(n, kind):
            if m not in dist:
                dist[m] = dist[n] + 1
                todo.append(m)
    return dist


def _try(c, step: str, arg: Mapping) -> bool:
    try:
        play(c, step, arg)
        return True
    except StepRefused:
        return False


def play_turn(c, targets: Mapping[str, str] = TARGETS) -> None:
    """The phasing side's whole player-turn by the scripted policy (see the module doc)."""
    side = march(c, targets)
    play(c, "end_movement", {"side": side})
    resolve_battles(c)
    play(c, "end_turn", {"side": side})


def march(c, targets: Mapping[str, str] = TARGETS) -> str:
    """The phasing side's commands march on its target (movement only); returns the side."""
    state = state_of(c.snapshot())
    side = state.phasing
    nmap, rules = c.board.nmap, c.rules
    target = targets.get(side)
    if target in nmap.places:
        dist = _distances(nmap, target)
        for cmd in [x for x in state.commands if x.side == side and x.mp_left and not x.inherent and not x.aboard]:
            state = state_of(c.snapshot())
            here = dist.get(cmd.node, 99)
            counts = {}
            for x in state.commands:
                if x.side == side and not x.inherent and not x.aboard:
                    counts[x.node] = counts.get(x.node, 0) + 1
            options = [(dist.get(n, 99), n, p) for n, p in reachable(state, nmap, rules, cmd.id).items()
                       if dist.get(n, 99) < here and counts.get(n, 0) < rules.stacking.land_counters]
            if options:
                _d, _n, path = min(options)
                _try(c, "move", {"side": side, "command": cmd.id, "path": path})
        # the fleet sails along the coast towards the target too, when the target is a port
        fleet = state_of(c.snapshot()).fleet(side)
        if fleet is not None and fleet.mp_left and nmap.places[target].coastal and fleet.node != target:
            sea = _distances(nmap, target, "sea")
            state = state_of(c.snapshot())
            here = sea.get(fleet.node, 99)
            options = [(sea.get(n, 99), n, p) for n, p in reachable_by_sea(state, nmap, rules, side).items()
                       if sea.get(n, 99) < here]
            if options:
                _try(c, "sail", {"side": side, "path": min(options)[2]})
    return side


def resolve_battles(c, *, orders: bool = True) -> None:
    """Every battle, fleet fight and retreat due, by the scripted policy (``orders`` False: stop at
    the first undecided battle, its second-day orders unwritten)."""
    nmap = c.board.nmap
    tried_siege: set[str] = set()
    fought = 0
    for _ in range(200):
        state = state_of(c.snapshot())
        if state.battles:
            b = state.battles[0]
            if b.kind == "naval":
                play(c, "fleet_battle", {"node": b.node})
            elif b.undecided:
                if not orders:
                    return
                snap = c.snapshot()
                written = {k[3] for k in snap.tables["mg_orders"]}
                att, dfn = camps(state, b)
                need = sorted({b.attacker} | {state.owner(x) for x in dfn if x.side})
                for s in need:
                    if s not in written:
                        play(c, "second_day", {"side": s, "node": b.node,
                                               "choice": "retire" if s != b.attacker else "stay"})
                        break
            elif not b.defence:
                if b.node not in tried_siege and nmap.places[b.node].fortified and b.attacker == state.phasing:
                    tried_siege.add(b.node)
                    if _try(c, "siege", {"side": state.phasing, "node": b.node}):
                        continue
                play(c, "defence", {"node": b.node, "defence": "central"})
            else:
                att, dfn = camps(state, b)
                fought += 1
                a_n = sum(x.element_count() for x in att)
                d_n = sum(x.element_count() for x in dfn)
                sides = [state.owner(x) for x in dfn if state.owner(x)]
                if fought % 6 == 0 and sides:
                    winner = None
                elif a_n >= d_n or not sides:
                    winner = b.attacker
                else:
                    winner = sides[0]
                losers = [x for x in (dfn if winner == b.attacker else att) if x.elements]
                losses = {}
                if losers and winner is not None:
                    k = next(iter(e for e, n in losers[0].elements.items() if n))
                    losses = {str(losers[0].id): {k: 1}}
                play(c, "result", {"node": b.node, "winner": winner, "losses": losses})
            continue
        if state.retreats:
            r = state.retreats[0]
            if r.command:
                cmd = state.command(r.command)
                ways = [n for n in (r.open_paths or nmap.neighbours(cmd.node, "land"))
                        if not state.enemy_land(n, state.owner(cmd))]
                if not (ways and _try(c, "retreat", {"command": r.command, "path": [ways[0]]})):
                    play(c, "retreat", {"command": r.command, "path": []})
            else:
                f = state.fleet(r.fleet_side)
                ways = [n for n in nmap.neighbours(f.node, "sea") if not state.enemy_land(n, r.fleet_side)]
                if not any(_try(c, "retreat_fleet", {"side": r.fleet_side, "path": [w]}) for w in ways):
                    play(c, "retreat_fleet", {"side": r.fleet_side, "path": []})
            continue
        return
    raise InputError("the scripted policy could not settle the battles")


def _seen(c) -> set[str]:
    kinds = {e.kind for e in c.events()}
    out = set()
    if "battle_result" in kinds:
        out.add("battle")
    if kinds & {"siege_roll", "fall_roll", "siege_fall_roll"} or any(
            e.kind == "dice" and any(r["label"].startswith("siege/") for r in e.data["rolls"]) for e in c.events()):
        out.add("siege roll")
    if "alliance_roll" in kinds:
        out.add("alliance roll")
    return out


def run_demo(campaign_path: str | Path, *, seed: int = DEMO_SEED, turns: int = DEMO_TURNS) -> list[str]:
    """Start a fresh campaign and play it by the scripted policy until a battle, a siege roll and an
    alliance roll are in the log (``turns`` turns at most); verify and re-adjudicate it.  Returns the
    log in words (bookkeeping left out) and what comes next."""
    campaign = Path(campaign_path)
    with Campaign.open(campaign) as c:
        if c.has_state():
            raise InputError(f"{campaign} has already started: run the demo on a fresh `bellica campaign new` database")
        c.start(seed=seed)
        # the umpire enters one die rolled at the table: Morgantina's alliance roll for Syracuse
        play(c, "roll", {"label": "alliance/1/Morgantina/Syracuse", "value": 6})
        while True:
            state = state_of(c.snapshot())
            if state.phase == "over" or (state.turn > turns) or (
                    state.current == 0 and state.turn > 1 and _seen(c) >= {"battle", "siege roll", "alliance roll"}):
                break
            play_turn(c)
        words = next_decision(c, c.snapshot())
        lines = told_lines(c) + ["seen: " + ", ".join(sorted(_seen(c)))]
    return with_next(campaign, lines, words)


def play_first_turn(campaign_path: str | Path, scenario: str, *, seed: int = DEMO_SEED) -> list[str]:
    """Start the fresh campaign at ``campaign_path`` (of ``magna-graecia/<scenario>``) and play its whole
    first campaign turn by the scripted policy: every side's player-turn in the scenario's order.  Then
    verify the log and re-adjudicate every step.  Returns the log in words and what comes next; raises
    :class:`InputError` if a side did not play its turn."""
    campaign = Path(campaign_path)
    targets = SCENARIO_TARGETS.get(scenario, TARGETS)
    with Campaign.open(campaign) as c:
        if c.has_state():
            raise InputError(f"{campaign} has already started: run the demo on a fresh `bellica campaign new` database")
        c.start(seed=seed)
        order = state_of(c.snapshot()).order
        while True:
            state = state_of(c.snapshot())
            if state.phase == "over" or state.turn > 1:
                break
            play_turn(c, targets)
        played = [e.data["side"] for e in c.events() if e.kind == "player_turn_ended"]
        skipped = [s for s in order if s not in played and state.sides[s].playing]  # only the eliminated may miss it
        if played != [s for s in order if s in played] or skipped:
            raise InputError(f"{scenario}: turn 1 was played by {played}, not by {list(order)} in order")
        words = next_decision(c, c.snapshot())
        lines = told_lines(c)
    return with_next(campaign, lines, words)


def scenario_path(target: str | Path, scenario: str) -> Path:
    """The campaign file of ``scenario`` beside the Dionysian demo's ``target``: ``<stem>-<scenario><suffix>``."""
    target = Path(target)
    return target.with_name(f"{target.stem}-{scenario}{target.suffix}")


if __name__ == "__main__":  # python -m bellica.demo_magna_graecia build/magna-graecia.duckdb [MAP]
    target, t0 = demo_main("build/magna-graecia.duckdb", build_demo_campaign, run_demo,
                           "the Dionysian scenario played by both sides")
    for name in SCENARIOS[1:]:
        t1 = time.perf_counter()
        other = scenario_path(target, name)
        build_demo_campaign(other, scenario=f"magna-graecia/{name}",
                            map_path=sys.argv[2] if len(sys.argv) > 2 else None)
        lines = play_first_turn(other, name)
        for line in lines:
            print(line)
        print(f"{other}: turn 1 of the {name} scenario played by every side, verified and re-adjudicated in "
              f"{time.perf_counter() - t1:.1f} s")
    print(f"the four Magna Graecia scenarios in {time.perf_counter() - t0:.1f} s")
