"""Where a Trossian campaign stands: the next decision in words (:func:`next_decision`), whether
a step may be taken now (:func:`_require`), and the status a nation or the umpire may see
(:func:`status_view`, :func:`status_lines`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Mapping

from bellica.engine.core.machine import StepRefused, position_of, require_step
from bellica.engine.core.tables import Snapshot

from . import navies, treasury
from .calendar import label, phase_name
from .couriers import order_words
from .movement import local_command
from .model import GameState
from .orders import ALLY_PHASES, ORDER_KINDS, _orders_of, nation_named
from .storage import state_of

__all__ = ["next_decision", "status_lines", "status_view"]


def _nations(c) -> list[str]:
    return list(c.board.nations)


def next_decision(c, snap: Snapshot) -> tuple[str | None, str]:
    """(the next step or None, in words what to do)."""
    pos = position_of(snap)
    game = {k[0]: row[1] for k, row in snap.tables["tr_game"].items()}
    when = label(c.rules, GameState(int(game["year"]), int(game["phase"]), {}, {}))
    if pos.phase == "begin":
        return "begin", f"begin {when}: `bellica trossian next CAMPAIGN`"
    if pos.phase == "orders":
        ready = {k[1] for k in snap.tables["tr_ready"] if k[0] == pos.round}
        waiting = [n for n in _nations(c) if n not in ready]
        if waiting:
            return "orders", (f"{when}: orders from {', '.join(waiting)} (`bellica trossian march|sail|courier|army CAMPAIGN "
                              f"--nation N ...`, then `bellica trossian done CAMPAIGN --nation N`)")
        return "resolve", f"{when}: every order is in: carry them out with `bellica trossian next CAMPAIGN`"
    if pos.phase == "battles":
        open_ = sorted(snap.tables["tr_battles"].values())
        if open_:
            b = open_[0]
            return "result", (f"{when}: enter the result of battle {b[0]} in {b[1]}: `bellica trossian result CAMPAIGN "
                              f"{b[0]} --winner a|b|draw [--fate UNIT=destroyed|routed ...]`"
                              + (f" ({len(open_) - 1} more)" if len(open_) > 1 else ""))
        return "end", f"{when}: end the phase: `bellica trossian next CAMPAIGN`"
    if pos.phase == "winter":
        return "spring", (f"winter quarters {game['year']}: bank and recruit (`bellica trossian bank|recruit CAMPAIGN "
                          f"--nation N ...`), then leave them: `bellica trossian next CAMPAIGN`")
    return None, f"the campaign stands at phase {pos.phase}, which the rules do not know"


def _require(c, snap: Snapshot, name: str, nation: str | None = None) -> None:
    step = c.ruleset.step(name)
    pos = position_of(snap)
    words = lambda: next_decision(c, snap)[1]  # noqa: E731
    if name == "ally":  # diplomacy: while orders are given, or in winter quarters
        if pos.winner is not None:
            raise StepRefused(f"cannot {step.action}: the campaign is over, {pos.winner} won in round {pos.round}")
        if pos.phase not in ALLY_PHASES:
            raise StepRefused(f"cannot {step.action}: alliances are made and broken while orders are given or in "
                              f"winter quarters, not in the {pos.phase} phase; {words()}")
        return
    if name in ("roll", "ruling"):  # a die rolled at the table, a card ruled: in any phase, until the campaign is over
        if pos.winner is not None:
            raise StepRefused(f"cannot {step.action}: the campaign is over, {pos.winner} won in round {pos.round}")
        return
    require_step(step, pos, words)
    if name in ORDER_KINDS + ("done",) and nation is not None:
        if (pos.round, nation) in snap.tables["tr_ready"]:
            raise StepRefused(f"cannot {step.action}: {nation} has given all its orders for this phase; {words()}")
    if name == "resolve":
        waiting = [n for n in _nations(c) if (pos.round, n) not in snap.tables["tr_ready"]]
        if waiting:
            raise StepRefused(f"cannot carry out the orders: {', '.join(waiting)} still to give theirs; {words()}")
    if name == "end" and snap.tables["tr_battles"]:
        raise StepRefused(f"cannot end the phase: battles are open; {words()}")


def _order_seen(rules, army) -> str | None:
    """The order an army obeys, in words, as its nation reads it: None where orders need no courier;
    "none yet (holds)" before any reached it."""
    if not rules.options.couriers_carry_orders or army.garrison:
        return None
    return order_words(army.order) or "none yet (holds)"


def status_view(c, nation: str | None = None) -> dict:
    """Where the campaign stands, as ``nation`` may see it (its own treasury, couriers, orders
    and armies' units; others' armies without their units).  None: the umpire's view, every
    army's units, no nation's treasury, couriers or orders."""
    snap = c.snapshot()
    scenario, rules = c.board, c.rules
    state = state_of(snap)
    viewer = nation_named(c, nation) if nation else None
    pos = position_of(snap)
    step, words = next_decision(c, snap)
    lanes = {x: navies.lane_open(scenario, rules, x, state.phase) for x in scenario.lanes}
    armies = []
    for a in state.armies:
        own = viewer is None or a.nation == viewer  # the umpire sees every army's strength
        mine = viewer is not None and a.nation == viewer  # the order it obeys: its nation's alone (not the umpire's)
        armies.append({"army": a.id, "nation": a.nation, "province": a.province, "aboard": a.aboard,
                       "name": a.name, "units": [asdict(u) for u in a.units] if own else None,
                       "strength": len(a.units) if own else None, "rest": a.rest, "standing": a.standing,
                       "order": _order_seen(rules, a) if mine else None,
                       "by_courier": (not local_command(scenario, rules, a)) if mine and not a.garrison else None,
                       "order_from": (a.order_from or None) if mine else None})
    out = {
        "round": pos.round, "phase": pos.phase, "date": label(rules, state), "season": phase_name(rules, state.phase),
        "viewer": viewer, "next_step": step, "next": words,
        "ready": sorted(k[1] for k in snap.tables["tr_ready"] if k[0] == pos.round) if pos.phase == "orders" else [],
        "control": dict(state.control),
        "armies": armies,
        "navies": [{"navy": n.id, "nation": n.nation, "lane": n.lane, "berth": n.berth} for n in state.navies],
        "lanes": [{"lane": x, "freezes": scenario.lanes[x].freezes, "open": lanes[x]} for x in scenario.lanes],
        "battles": [{"battle": b.id, "province": b.province, "sides": [list(s) for s in b.sides],
                     "nations": [list(s) for s in b.nations]} for b in state.battles],
        "sieges": [asdict(s) for s in state.sieges],
        "alliances": sorted(sorted(p) for p in state.alliances),
        "offers": [{"nation": a, "to": b} for a, b in sorted(state.offers)],
    }
    if viewer is not None:
        ns = state.nations[viewer]
        out["treasury"] = {"bank": dict(ns.bank), "total": ns.treasury, "income": treasury.income(scenario, state, rules, viewer),
                           "cards_in": [rules.calendar.phases[p] for p in ns.schedule], "intelligence": list(ns.intelligence)}
        out["couriers"] = [{"courier": x.id, "where": x.where, "mode": x.mode, "message": x.message, "to": x.to,
                            "moved": x.moved, "order": order_words(x.order) or None}
                           for x in state.couriers if x.nation == viewer]
        out["orders"] = [{"seq": s, "kind": k, "input": a} for _n, s, k, a in _orders_of(snap, pos.round, viewer)]
    return out


def status_lines(view: Mapping) -> list[str]:
    out = [f"{view['date']} (round {view['round']}, {view['phase']})" + (f", as {view['viewer']}" if view["viewer"] else "")]
    held: dict[str, list[str]] = {}
    for p, n in view["control"].items():
        held.setdefault(n or "neutral", []).append(p)
    for n, ps in held.items():
        out.append(f"  {n}: {len(ps)} provinces")
    for a in view["armies"]:
        where = f"aboard navy {a['aboard']}" if a["aboard"] else f"in {a['province']}"
        strength = f", {a['strength']} units" if a["strength"] is not None else ""
        out.append(f"  army {a['army']} ({a['nation']}{', ' + a['name'] if a['name'] else ''}) {where}{strength}"
                   + (f", rests {a['rest']}" if a["rest"] else "")
                   + (f", obeys: {a['order']}" + (f" (from {a['order_from']})" if a.get("order_from") else "")
                      if a.get("order") else ""))
    for n in view["navies"]:
        out.append(f"  navy {n['navy']} ({n['nation']}) in {n['lane']}" + (f" at {n['berth']}" if n["berth"] else " at sea"))
    for pair in view.get("alliances", ()):
        out.append(f"  alliance: {' & '.join(pair)}")
    for o in view.get("offers", ()):
        out.append(f"  {o['nation']} offers {o['to']} an alliance")
    frozen = [x["lane"] for x in view["lanes"] if not x["open"]]
    out.append(f"  frozen lanes: {', '.join(frozen) or 'none'}")
    for s in view["sieges"]:
        out.append(f"  {s['nation']} pacifies {s['province']}: {s['done']} of {s['needed']} phases")
    for b in view["battles"]:
        out.append(f"  battle {b['battle']} in {b['province']}: {' & '.join(b['nations'][0])} (a) against "
                   f"{' & '.join(b['nations'][1])} (b)")
    if view.get("treasury") is not None:
        t = view["treasury"]
        out.append(f"  treasury: {t['total']} AP banked (" + ", ".join(f"{p} {v}" for p, v in t["bank"].items())
                   + f"); winter income {sum(t['income'].values())} AP")
        for x in view["couriers"]:
            out.append(f"  courier {x['courier']} in {x['where']} ({x['mode']})" + (f": to {x['to']}: {x['message']}" if x["message"] else "")
                       + (f" (order: {x['order']})" if x.get("order") else ""))
        for note in t["intelligence"]:
            out.append(f"  captured message: {note}")
        for o in view["orders"]:
            out.append(f"  order {o['seq']}: {o['kind']} {json.dumps(o['input'])}")
    if view["ready"]:
        out.append(f"  orders in from: {', '.join(view['ready'])}")
    out.append(f"next: {view['next']}")
    return out
