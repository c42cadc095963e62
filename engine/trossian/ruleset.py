"""Trossian as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (:mod:`~bellica.engine.trossian.turn` and the modules it calls) stay as they
are; this module stores their :class:`~bellica.engine.trossian.model.GameState` in the
campaign file (the ``tr_*`` tables of ``sql/state.sql``) and runs them as *steps* of the
core's phase machine, one DuckDB transaction each.  The core position: ``round`` counts the
campaign's phases (1 = the scenario's first Early Spring; winter quarters are a round of
their own), ``phase`` is where the round stands:

==========  =========  ================================================================
step        phase      what
==========  =========  ================================================================
begin       begin      open the phase: the year's card schedule, the ice, chance cards,
                       headless armies marching home (the umpire: ``next``)
march       orders     a nation's order: an army marches along a path of provinces
sail        orders     ... a navy's actions (sail, put_in, lie_off, put_out, embark, disembark)
courier     orders     ... a courier: send (the king's message, from the capital), move, deliver
army        orders     ... armies in one province merge, an army detaches units, or an army
                       without an HQ is told to hold or march home
done        orders     the nation has given all its orders for the phase
resolve     orders     every nation done: the orders carried out (nations in scenario order,
                       each nation's in the order given), then sea fights and battles opened
result      battles    a table battle's result and each unit's fate: the attrition rolls
end         battles    every battle entered: pacification and sieges, the next phase (or
                       winter quarters with the income)
bank        winter     a nation moves banked AP between two of its cities
recruit     winter     ... buys units, couriers or a navy at one of its cities
spring      winter     leave winter quarters: Early Spring of the next year
ally        orders or  a nation offers an alliance, accepts one offered to it, or breaks
            winter     one (``--break``: at once, on its own word); public, logged
==========  =========  ================================================================

**Sealed orders.** A nation's orders are stored when given (``tr_orders``) and checked then
against the state its earlier orders of the phase leave (an illegal order is refused, exit 3),
but carried out only by ``resolve``, once every nation is ``done``: so no order can be read
or answered before the phase's orders are all in.  The log seals them
(:data:`TROSSIAN_SEAL`): another nation (and the umpire, like any reader of the sealed log)
sees that an order came in and from whom, never what it says, until every nation is done;
a courier's message never opens to another nation, save the one that captures it (its
``courier_check`` event and the captor's ``intelligence``).  A nation's treasury, couriers and
the units of its armies are its own in the log (others read only that a row changed).  An
order the earlier ones made impossible when carried out (an enemy now in the way) fails and
is logged (``order_failed``), the rest go on.

Every die comes from :class:`~bellica.engine.trossian.dice.Dice` keyed by the campaign seed and
a label (or as the umpire entered it: ``result --die LABEL=N``); a step logs every roll it
used (a ``dice`` event), so re-adjudication (``bellica round verify --readjudicate``) running
the step again gets the same faces.  Chance cards are drawn the same way (a die with a face
per card, labelled ``card/YEAR/PHASE/NATION/N``).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.names import matches as _match
from bellica.engine.core.machine import Step, StepRefused, position_of, require_step
from bellica.engine.core.ruleset import register
from bellica.engine.core.sealed import OrderSeal
from bellica.engine.core.stepped import (StepInput, StepOutcome, SteppedRuleset, create_scenario_tables, diff_events, scenario_tables,
                                        store_rules)
from bellica.engine.core.stepped import set_campaign as _set
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.files import whole_number

from . import battles as battles_mod
from . import couriers as couriers_mod
from . import movement, navies, treasury
from .calendar import label, phase_name
from .dice import Dice
from .model import (WINTER, Army, Battle, Courier, GameState, Lane, Nation, NationState, Navy, Province, Scenario,
                    Siege, Town, Unit)
from .rules import RULESET, Rules, default_rules, rules_with
from .turn import begin_phase, contact, diplomacy, end_phase, end_winter, new_game

__all__ = ["ALLY_PHASES", "NATION_STEPS", "ORDER_KINDS", "TROSSIAN", "TROSSIAN_SEAL", "Trossian", "act", "ally",
           "engine_step",
           "enter_result", "install_views", "next_decision", "read_scenario", "state_of", "status_view",
           "write_scenario"]

SQL = Path(__file__).with_name("sql")
STATE_SQL = SQL / "state.sql"
SCENARIO_SQL = (SQL / "scenario.sql").read_text()
VIEWS_SQL = SQL / "views.sql"

#: The orders a nation gives in the orders phase (sealed, carried out by ``resolve``).
ORDER_KINDS = ("march", "sail", "courier", "army")
#: Every step a nation takes (the others are the umpire's).
NATION_STEPS = ORDER_KINDS + ("done", "bank", "recruit")
_GAME_KEYS = ("year", "phase", "scheduled", "next_id", "alliances", "contested", "entries", "offers", "sailed")
#: The phases a nation may offer, accept or break an alliance in (the ``ally`` step).
ALLY_PHASES = ("orders", "winter")
#: Tables whose rows are a nation's own in the log (others see only that a row changed).
_SECRET_TABLES = {"tr_treasury": "nation", "tr_couriers": "nation", "tr_orders": "nation", "tr_armies": "nation"}
#: Rule events a nation keeps to itself (and, for a courier's interception, the captor).
_SECRET_KINDS = {"courier_sent", "courier_check", "courier_moved", "courier_delivered", "income", "ap_moved",
                 "recruited", "bank_captured", "card_schedule", "order_failed"}


def install_views(con) -> None:
    """Create (or replace) the Trossian views (docs/sql.md, "Trossian campaigns")."""
    from bellica.geo.spatialdb import run_sql_file

    run_sql_file(con, VIEWS_SQL)


# --- the static scenario ----------------------------------------------------------------------


def write_scenario(con, scenario: Scenario, rules: Rules) -> None:
    """Store ``scenario`` and the merged ``rules`` in a campaign file."""
    create_scenario_tables(con, SCENARIO_SQL)
    con.executemany("INSERT INTO tr_provinces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(p.name, i, p.seat, p.lon, p.lat, p.home, scenario.holders.get(p.name), p.kind,
                      json.dumps(list(p.coast)), p.note) for i, p in enumerate(scenario.provinces.values())])
    con.executemany("INSERT INTO tr_towns VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(t.name, i, t.province, t.lon, t.lat, t.port, t.lane) for i, t in enumerate(scenario.towns.values())])
    con.executemany("INSERT INTO tr_lanes VALUES (?, ?, ?, ?)",
                    [(x.name, i, x.freezes, x.note) for i, x in enumerate(scenario.lanes.values())])
    con.executemany("INSERT INTO tr_nations VALUES (?, ?, ?, ?, ?)",
                    [(n.name, i, n.capital, n.colour, n.note) for i, n in enumerate(scenario.nations.values())])
    con.executemany("INSERT INTO tr_borders VALUES (?, ?, ?)",
                    [(a, b, frozenset((a, b)) in scenario.roads) for a, b in sorted(tuple(sorted(x)) for x in scenario.borders)])
    con.executemany("INSERT INTO tr_lane_links VALUES (?, ?)", sorted(tuple(sorted(x)) for x in scenario.lane_links))
    meta = {"name": scenario.name, "title": scenario.title, "year": scenario.year,
            "meta": {k: v for k, v in scenario.meta.items()}, "forces": scenario.forces, "cards": list(scenario.cards)}
    con.executemany("INSERT INTO tr_scenario VALUES (?, ?)", [(k, json.dumps(v, sort_keys=True)) for k, v in meta.items()])
    store_rules(con, rules)


def read_scenario(con, name: str = "trossian") -> Scenario:
    """The :class:`Scenario` a campaign file stores."""
    need = {"tr_provinces", "tr_towns", "tr_lanes", "tr_nations", "tr_borders", "tr_lane_links", "tr_scenario"}
    have = scenario_tables(con)
    if not need <= have:
        raise InputError("this campaign file has no Trossian scenario tables (" + ", ".join(sorted(need - have))
                         + "): make it with `bellica campaign new --scenario trossian`")
    meta = {k: json.loads(v) for k, v in con.execute("SELECT key, value FROM tr_scenario").fetchall()}
    towns = {r[0]: Town(r[0], r[1], float(r[2]), float(r[3]), bool(r[4]), r[5] or "")
             for r in con.execute("SELECT name, province, lon, lat, port, lane FROM tr_towns ORDER BY ord").fetchall()}
    provinces, holders = {}, {}
    for name_, seat, lon, lat, home, holder, coast, note in con.execute(
            "SELECT name, seat, lon, lat, home, holder, coast, note FROM tr_provinces ORDER BY ord").fetchall():
        mine = tuple(t.name for t in towns.values() if t.province == name_)
        provinces[name_] = Province(name_, seat, float(lon), float(lat), home, mine,
                                    tuple(t for t in mine if towns[t].port), tuple(json.loads(coast or "[]")), note or "")
        holders[name_] = holder
    lanes = {r[0]: Lane(r[0], bool(r[1]), r[2] or "")
             for r in con.execute("SELECT name, freezes, note FROM tr_lanes ORDER BY ord").fetchall()}
    nations = {r[0]: Nation(r[0], r[1], r[2] or "#808080", r[3] or "")
               for r in con.execute("SELECT name, capital, colour, note FROM tr_nations ORDER BY ord").fetchall()}
    borders = con.execute("SELECT a, b, road FROM tr_borders").fetchall()
    links = con.execute("SELECT a, b FROM tr_lane_links").fetchall()
    return Scenario(name=meta.get("name", name), title=meta.get("title", name), year=int(meta["year"]),
                    provinces=provinces, towns=towns, lanes=lanes, nations=nations,
                    borders=frozenset(frozenset((a, b)) for a, b, _r in borders),
                    roads=frozenset(frozenset((a, b)) for a, b, r in borders if r),
                    lane_links=frozenset(frozenset(x) for x in links), holders=holders,
                    forces=meta.get("forces", {}), cards=tuple(meta.get("cards", [])), meta=meta.get("meta", {}))


# --- the state as rows, and back ----------------------------------------------------------------


def _j(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _rows(scenario: Scenario, state: GameState, rules: Rules | None = None) -> dict[str, dict[tuple, dict]]:
    rules = rules or default_rules()
    out: dict[str, dict[tuple, dict]] = {}
    game = {"year": state.year, "phase": state.phase, "scheduled": state.scheduled, "next_id": state.next_id,
            "alliances": _j(sorted(sorted(p) for p in state.alliances)), "contested": _j(sorted(state.contested)),
            "entries": _j(sorted(list(e) for e in state.entries))}
    if state.offers:  # written only while an offer is open (older campaigns have no row)
        game["offers"] = _j(sorted(list(o) for o in state.offers))
    if state.sailed:  # written only while a navy has sailed this phase (older campaigns have no row)
        game["sailed"] = _j(sorted(state.sailed))
    out["tr_game"] = {(k,): {"key": k, "value": str(v)} for k, v in game.items()}
    out["tr_control"] = {(p,): {"province": p, "nation": state.control.get(p)} for p in scenario.provinces}
    out["tr_treasury"] = {(n,): {"nation": n, "bank": _j(dict(s.bank)), "treasury": s.treasury,
                                 "schedule": _j(list(s.schedule)), "effects": _j([list(e) for e in s.effects]),
                                 "intelligence": _j(list(s.intelligence))} for n, s in state.nations.items()}
    out["tr_armies"] = {(a.id,): {"army": a.id, "nation": a.nation, "province": a.province, "aboard": a.aboard,
                                  "rest": a.rest, "moved": a.moved, "fought": a.fought, "standing": a.standing,
                                  "name": a.name, "units": _j([asdict(u) for u in a.units]), "strength": len(a.units),
                                  "has_hq": a.has_hq, "speed": movement.army_speed(rules, a.units) if a.units else 0}
                        for a in state.armies}
    out["tr_navies"] = {(n.id,): {"navy": n.id, "nation": n.nation, "lane": n.lane, "berth": n.berth,
                                  "actions": n.actions} for n in state.navies}
    out["tr_couriers"] = {(c.id,): {"courier": c.id, "nation": c.nation, "place": c.where, "mode": c.mode,
                                    "message": c.message, "addressee": c.to, "moved": c.moved} for c in state.couriers}
    out["tr_sieges"] = {(s.province,): {"province": s.province, "nation": s.nation, "done": s.done,
                                        "needed": s.needed, "wintered": s.wintered} for s in state.sieges}
    out["tr_battles"] = {(b.id,): {"battle": b.id, "province": b.province, "sides": _j([list(s) for s in b.sides]),
                                   "nations": _j([list(s) for s in b.nations])} for b in state.battles}
    return out


def state_of(snap: Snapshot) -> GameState:
    """The :class:`GameState` the stored tables hold."""
    t = snap.tables
    game = {k[0]: row[1] for k, row in t["tr_game"].items()}
    nations = {}
    for n, bank, _sum, schedule, effects, intel in sorted(t["tr_treasury"].values()):
        nations[n] = NationState(n, dict(json.loads(bank)), tuple(json.loads(schedule)),
                                 tuple(tuple(e) for e in json.loads(effects)), tuple(json.loads(intel)))
    armies = tuple(Army(int(r[0]), r[1], r[2], tuple(Unit(**u) for u in json.loads(r[9])), int(r[3] or 0), int(r[4] or 0),
                        bool(r[5]), bool(r[6]), r[7] or "", r[8] or "")
                   for r in sorted(t["tr_armies"].values()))
    navies_ = tuple(Navy(int(r[0]), r[1], r[2], r[3] or "", int(r[4] or 0)) for r in sorted(t["tr_navies"].values()))
    couriers = tuple(Courier(int(r[0]), r[1], r[2], r[3], r[4] or "", r[5] or "", bool(r[6]))
                     for r in sorted(t["tr_couriers"].values()))
    sieges = tuple(Siege(r[0], r[1], int(r[2]), int(r[3]), bool(r[4])) for r in sorted(t["tr_sieges"].values()))
    battles = tuple(Battle(int(r[0]), r[1], tuple(tuple(s) for s in json.loads(r[2])),
                           tuple(tuple(s) for s in json.loads(r[3]))) for r in sorted(t["tr_battles"].values()))
    return GameState(
        year=int(game["year"]), phase=int(game["phase"]), control={p: n for p, n in t["tr_control"].values()},
        nations=nations, armies=armies, navies=navies_, couriers=couriers, sieges=sieges, battles=battles,
        alliances=frozenset(frozenset(p) for p in json.loads(game["alliances"])),
        contested=frozenset(json.loads(game["contested"])),
        entries=frozenset(tuple(e) for e in json.loads(game["entries"])),
        scheduled=int(game["scheduled"]), next_id=int(game["next_id"]),
        offers=frozenset(tuple(o) for o in json.loads(game.get("offers", "[]"))),
        sailed=frozenset(int(n) for n in json.loads(game.get("sailed", "[]"))))


# --- the seal ----------------------------------------------------------------------------------


def _order_round(data: Mapping) -> int:
    if "table" in data:
        return int((data.get("row") or data.get("key") or {}).get("round", 0) or 0)
    return int(data.get("round", 0) or 0)


def _readers(kind: str, data: Mapping) -> tuple[frozenset[str], bool]:
    """(the nations that may read a secret event, whether it opens to all once its round's
    orders are all in)."""
    if kind == "step":
        arg = data.get("input") or {}
        nation = arg.get("nation")
        # A courier's orders (its message, its road) and a winter's banking and recruiting stay its nation's.
        forever = data.get("step") in ("courier", "bank", "recruit")
        return frozenset({nation} if nation else ()), not forever
    if kind in ("put_row", "drop_row"):
        row = data.get("row") or data.get("key") or {}
        nation = row.get(_SECRET_TABLES[data["table"]])
        opens = data["table"] == "tr_orders" and row.get("kind") != "courier"
        return frozenset({nation} if nation else ()), opens
    who = {data.get("nation")}
    if kind == "courier_check" and data.get("fate") in ("captured", "false_message", "killed"):
        who.add(data.get("enemy"))
    if kind == "bank_captured":
        who.add(data.get("from"))
    return frozenset(w for w in who if w), False


def _is_secret(kind: str, data: Mapping) -> bool:
    if kind == "step":
        return bool((data.get("input") or {}).get("nation")) and data.get("step") not in ("done", "ally")
    if kind in ("put_row", "drop_row"):
        if kind == "drop_row" and data.get("table") == "tr_armies":
            return False  # an army gone is seen by all
        return data.get("table") in _SECRET_TABLES
    if kind == "dice":
        return bool(data.get("nation"))
    return kind in _SECRET_KINDS


def _orders_open(rnd: int, snap: Snapshot) -> bool:
    """Are round ``rnd``'s orders all in (every nation done, or the round past its orders)?"""
    pos = position_of(snap)
    if rnd < pos.round or (rnd == pos.round and pos.phase not in ("orders", "winter")):
        return True
    ready = {k[1] for k in snap.tables["tr_ready"] if k[0] == rnd}
    nations = {k[0] for k in snap.tables["tr_treasury"]}
    return bool(nations) and nations <= ready and pos.phase == "orders"


class TrossianSeal(OrderSeal):
    """The core's :class:`OrderSeal` with Trossian readers: a secret is its nation's (and a
    captor's); an order opens to all once its round's orders are all in, a message never."""

    def hides(self, viewer, kind, data, snap) -> bool:
        if not _is_secret(kind, data):
            return False
        readers, opens = _readers(kind, data)
        if viewer is not None and viewer in readers:
            return False
        if kind == "step" or (kind == "put_row" and data.get("table") == "tr_orders"):
            return not (opens and _orders_open(_order_round(data), snap))
        if kind == "put_row" and data.get("table") == "tr_armies":
            return True  # other nations see where an army is (public stand-in), not its units
        return True


def _public(data: Mapping) -> dict:
    if "table" in data:
        row = data.get("row") or data.get("key") or {}
        keep = {"tr_armies": ("army", "nation", "province", "aboard"), "tr_orders": ("round", "nation", "seq"),
                "tr_treasury": ("nation",), "tr_couriers": ("nation",)}.get(data["table"], ())
        return {"table": data["table"], "row": {k: row[k] for k in keep if k in row}}
    arg = data.get("input") or {}
    return {k: v for k, v in (("step", data.get("step")), ("nation", arg.get("nation") or data.get("nation")),
                              ("round", data.get("round"))) if v is not None}


def _sealed_text(data: Mapping) -> str:
    pub = _public(data)
    row = pub.get("row", {})
    if pub.get("table") == "tr_armies" and "army" in row:
        return f"army {row['army']} ({row.get('nation')}) in {row.get('province')}"
    nation = row.get("nation") or pub.get("nation")
    if pub.get("step"):
        return f"{nation}: a {pub['step']} order (sealed)"
    what = {"tr_couriers": "a courier", "tr_treasury": "its treasury", "tr_orders": "an order",
            "tr_armies": "an army"}.get(pub.get("table"), "a secret")
    return f"{nation}: {what} (sealed)" if nation else f"{what} (sealed)"


TROSSIAN_SEAL = TrossianSeal(
    is_order=_is_secret,
    round=_order_round,
    owner=lambda data, snap: _public(data).get("nation") or (_public(data).get("row") or {}).get("nation"),
    carried=lambda data: frozenset(data),
    opened=lambda rnd, snap: frozenset(),
    public=_public,
    text=_sealed_text,
)


# --- where the campaign stands ------------------------------------------------------------------


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


# --- running a step -------------------------------------------------------------------------------


def _restamp(rnd: int, phase: str, events: Sequence[Event]) -> list[Event]:
    return [Event(rnd, phase, e.kind, e.data, e.text) for e in events]


def _tag_couriers(events: Sequence[Event], owners: Mapping[int, str]) -> list[Event]:
    """Courier events carry their courier's nation (who may read them)."""
    out = []
    for e in events:
        if e.kind.startswith("courier_") and "nation" not in e.data and e.data.get("courier") in owners:
            e = Event(e.round, e.phase, e.kind, {**e.data, "nation": owners[e.data["courier"]]}, e.text)
        out.append(e)
    return out


def _roll_owner(label: tuple, couriers: Mapping[int, str]) -> str | None:
    """The nation a die is a secret of: a courier's interception (its nation), a card schedule
    (the drawing nation); None: a public roll."""
    if label and label[0] == "courier" and len(label) > 3:
        return couriers.get(int(label[3]))
    if label and label[0] == "cards" and len(label) > 2:
        return str(label[2])
    return None


def _dice_events(rnd: int, phase: str, dice: Dice, couriers: Mapping[int, str]) -> list[Event]:
    """The rolls a step used, as ``dice`` events: the public ones, then each nation's secret ones
    (``nation`` set: sealed from the others like the courier or card they decided)."""
    groups: dict[str | None, list[dict]] = {}
    for r in dice.log:
        groups.setdefault(_roll_owner(r.label, couriers), []).append(
            {"label": r.key, "sides": r.sides, "value": r.value, "entered": r.entered})
    out = []
    for owner in sorted(groups, key=lambda o: (o is not None, o or "")):
        rolls = groups[owner]
        data = {"rolls": rolls, **({"nation": owner} if owner else {})}
        out.append(Event(rnd, phase, "dice", data,
                         "dice" + (f" ({owner})" if owner else "") + ": " + "; ".join(
                             f"{r['label']} d{r['sides']} {r['value']}" + (" (entered)" if r["entered"] else "") for r in rolls)))
    return out


def _marker(rnd: int, phase: str, step: str, arg: Any, text: str) -> Event:
    return Event(rnd, phase, "step", {"step": step, "input": arg, "round": rnd}, text)


def _position(c, snap: Snapshot, rnd: int, phase: str, where: str, new_round: int) -> list[Event]:
    out = []
    if str(new_round) != snap.campaign("round"):
        out.append(_set(rnd, phase, "round", new_round))
    if where != snap.campaign("phase"):
        out.append(_set(rnd, phase, "phase", where))
    return out


def _run(c, name: str, body: Callable, *, nation: str | None = None, entered: Mapping[str, int] | None = None) -> list[Event]:
    """One step, run by the core (:meth:`SteppedRuleset.take_step`).  ``body(snap, scenario, rules,
    state, rnd, dice, nation)`` returns ``(marker, new_state or None, rule events, extra events,
    (round, phase) or None)``."""
    if nation is not None:
        nation = nation_named(c, nation)

    def rule(i: StepInput) -> StepOutcome:
        marker, new, told, extra, where = body(i.snap, i.board, i.rules, i.state, i.round, i.dice, i.actor)
        return StepOutcome(marker, new, told, extra, where)

    return c.ruleset.take_step(c, name, rule, actor=nation, entered=entered)


def _refuse(err: InputError, what: str) -> StepRefused:
    return StepRefused(f"{what}: {err}")


# --- names as players type them ------------------------------------------------------------------




def nation_named(c, name: str, where: str = "--nation") -> str:
    found = _match(name, list(c.board.nations))
    if len(found) != 1:
        raise InputError(f"{where} {name!r} is no nation of this campaign: use one of {', '.join(c.board.nations)}")
    return found[0]


def place_named(scenario: Scenario, name: str, where: str, *, lanes: bool = False, provinces: bool = True) -> str:
    options = (list(scenario.provinces) if provinces else []) + (list(scenario.lanes) if lanes else [])
    found = _match(name, options)
    if len(found) != 1:
        what = "a province" + (" or a sea lane" if lanes else "") if provinces else "a sea lane"
        raise InputError(f"{where} {name!r} is not {what} of this campaign: use one of {', '.join(options)}")
    return found[0]


def _town_named(scenario: Scenario, name: str, where: str) -> str:
    found = _match(name, list(scenario.towns))
    if len(found) != 1:
        raise InputError(f"{where} {name!r} is not a town of this campaign: use one of {', '.join(scenario.towns)}")
    return found[0]


def _own(state: GameState, what: str, ident: int, nation: str):
    getter = {"army": state.army, "navy": state.navy, "courier": state.courier}[what]
    try:
        thing = getter(int(ident))
    except KeyError:
        mine = [x.id for x in {"army": state.armies, "navy": state.navies, "courier": state.couriers}[what]
                if x.nation == nation]
        raise InputError(f"--{what} {ident}: no such {what}: {nation}'s are {', '.join(map(str, mine)) or 'none'}") from None
    if thing.nation != nation:
        raise InputError(f"--{what} {ident} is {thing.nation}'s, not {nation}'s")
    return thing


_NAVY_VERBS = ("sail", "put_in", "lie_off", "put_out", "embark", "disembark")


def _resolve_order(scenario: Scenario, state: GameState, kind: str, nation: str, arg: Mapping) -> dict:
    """The order's input with every name spelled as the scenario spells it (what the log records)."""
    if kind == "march":
        army = _own(state, "army", arg["army"], nation)
        path = [place_named(scenario, p, "--to") for p in arg.get("path") or ()]
        if not path:
            raise InputError("march: give the provinces to pass, in order: --to P [--to P ...]")
        return {"nation": nation, "army": army.id, "path": path}
    if kind == "sail":
        navy = _own(state, "navy", arg["navy"], nation)
        actions = []
        for a in arg.get("actions") or ():
            verb, *rest = a if isinstance(a, (list, tuple)) else str(a).split(":", 1)
            verb = str(verb).strip().replace("-", "_")
            if verb not in _NAVY_VERBS:
                raise InputError(f"--do {a!r}: give one of {', '.join(v + (':X' if v != 'put_out' else '') for v in _NAVY_VERBS)}")
            if verb == "put_out":
                actions.append([verb])
                continue
            if not rest or not str(rest[0]).strip():
                raise InputError(f"--do {verb}: give its object ({verb}:NAME)")
            obj = str(rest[0]).strip()
            if verb == "sail":
                obj = place_named(scenario, obj, "--do sail:", lanes=True, provinces=False)
            elif verb == "put_in":
                obj = _town_named(scenario, obj, "--do put_in:")
            elif verb == "lie_off":
                obj = place_named(scenario, obj, "--do lie_off:")
            else:
                if whole_number(obj) is None:  # ASCII digits only: "²".isdigit() is True, int("²") fails
                    raise InputError(f"--do {verb}:{obj}: give an army's number")
                obj = whole_number(obj)
            actions.append([verb, obj])
        if not actions:
            raise InputError("sail: give the navy's actions in order: --do sail:LANE --do put_in:TOWN ...")
        return {"nation": nation, "navy": navy.id, "actions": actions}
    if kind == "courier":
        courier = _own(state, "courier", arg["courier"], nation)
        action = arg.get("action")
        if action == "send":
            if not str(arg.get("message") or "").strip() or not str(arg.get("to") or "").strip():
                raise InputError("courier send: give --message TEXT and --to WHOM")
            return {"nation": nation, "courier": courier.id, "action": "send", "message": str(arg["message"]).strip(),
                    "to": str(arg["to"]).strip()}
        if action == "move":
            path = [place_named(scenario, p, "--via", lanes=True) for p in arg.get("path") or ()]
            if not path:
                raise InputError("courier move: give the provinces and lanes to pass: --via P [--via P ...]")
            return {"nation": nation, "courier": courier.id, "action": "move", "path": path}
        if action == "deliver":
            return {"nation": nation, "courier": courier.id, "action": "deliver"}
        raise InputError(f"courier action {action!r}: give send, move or deliver")
    if kind == "army":
        army = _own(state, "army", arg["army"], nation)
        action = arg.get("action")
        if action == "merge":
            others = [_own(state, "army", x, nation).id for x in arg.get("with") or ()]
            if not others:
                raise InputError("army merge: give the armies joining it: --with ARMY [--with ARMY ...]")
            return {"nation": nation, "army": army.id, "action": "merge", "with": others}
        if action == "detach":
            units = [int(u) for u in arg.get("units") or ()]
            if not units:
                raise InputError("army detach: give the units leaving it: --unit ID [--unit ID ...]")
            return {"nation": nation, "army": army.id, "action": "detach", "units": units,
                    "name": str(arg.get("name") or "")}
        if action in ("hold", "home"):
            return {"nation": nation, "army": army.id, "action": action}
        raise InputError(f"army action {action!r}: give merge, detach, hold or home")
    raise BellicaError(f"no order kind {kind!r}")


def _apply_order(scenario: Scenario, state: GameState, rules: Rules, dice: Dice, kind: str, a: Mapping):
    """Carry out one resolved order (InputError where the rules refuse it)."""
    if kind == "march":
        return movement.move_army(scenario, state, rules, int(a["army"]), list(a["path"]))
    if kind == "sail":
        return navies.navy_actions(scenario, state, rules, int(a["navy"]), [tuple(x) for x in a["actions"]])
    if kind == "army":
        if a["action"] == "merge":
            return movement.merge(state, [int(a["army"]), *(int(x) for x in a["with"])])
        if a["action"] == "detach":
            return movement.detach(state, int(a["army"]), [int(u) for u in a["units"]], a.get("name", ""))
        return movement.set_standing(state, int(a["army"]), a["action"])
    if a["action"] == "send":
        return couriers_mod.send_courier(scenario, state, a["nation"], int(a["courier"]), a["message"], a["to"])
    if a["action"] == "move":
        return couriers_mod.move_courier(scenario, state, rules, int(a["courier"]), list(a["path"]), dice)
    return couriers_mod.deliver(state, int(a["courier"]))


class _SafeRoads(Dice):
    """The dice an order is checked with when given: every courier gets through (the highest
    face), so checking an order neither draws nor reveals a roll the resolution will make."""

    def roll(self, sides: int, *label: object) -> int:
        return sides


def _orders_of(snap: Snapshot, rnd: int, nation: str | None = None) -> list[tuple[str, int, str, dict]]:
    """(nation, seq, kind, input) of round ``rnd``'s stored orders, by nation then seq."""
    return sorted((r[1], int(r[2]), r[3], json.loads(r[4])) for k, r in snap.tables["tr_orders"].items()
                  if k[0] == rnd and (nation is None or k[1] == nation))


# --- the steps ---------------------------------------------------------------------------------------


def act(c, step: str, nation: str, **arg) -> list[Event]:
    """``nation``'s step: an order (``march``: army, path; ``sail``: navy, actions; ``courier``:
    courier, action send|move|deliver, message/to or path), ``done``, or in winter ``bank``
    (source, target, ap) and ``recruit`` (at, kinds, quality)."""
    if step not in NATION_STEPS:
        raise BellicaError(f"no nation step {step!r}")

    def body(snap, scenario, rules, state, rnd, dice, who):
        phase = snap.campaign("phase")
        if step in ORDER_KINDS:
            a = _resolve_order(scenario, state, step, who, arg)
            trial = state
            mine = _orders_of(snap, rnd, who)
            for _n, _s, kind, given in mine:  # the state this nation's earlier orders leave
                try:
                    trial, _ = _apply_order(scenario, trial, rules, _SafeRoads(), kind, given)
                except (InputError, KeyError):
                    pass
            try:
                _apply_order(scenario, trial, rules, _SafeRoads(), step, a)
            except InputError as err:
                raise _refuse(err, f"{who}'s {step} order") from None
            except KeyError:
                raise StepRefused(f"{who}'s {step} order: its {step if step != 'march' else 'army'} is gone "
                                  "by its nation's earlier orders") from None
            seq = len(mine) + 1
            row = {"round": rnd, "nation": who, "seq": seq, "kind": step, "input": _j(a)}
            text = f"{label(rules, state)}: {who} gives a {step} order"
            return (_marker(rnd, phase, step, a, text), None, [],
                    [Event(rnd, phase, "put_row", {"table": "tr_orders", "row": row}, f"{who}'s order {seq}: {step}")],
                    None)
        if step == "done":
            n = len(_orders_of(snap, rnd, who))
            row = {"round": rnd, "nation": who}
            return (_marker(rnd, phase, "done", {"nation": who}, f"{label(rules, state)}: {who} has given its orders"),
                    None, [], [Event(rnd, phase, "put_row", {"table": "tr_ready", "row": row},
                                     f"{who} is ready ({n} order{'s' if n != 1 else ''}, sealed)")], None)
        if step == "bank":
            a = {"nation": who, "source": place_named(scenario, arg["source"], "--from"),
                 "target": place_named(scenario, arg["target"], "--to"), "ap": int(arg["ap"])}
            run = lambda: treasury.transfer(scenario, state, who, a["source"], a["target"], a["ap"])  # noqa: E731
            text = f"winter {state.year}: {who} moves banked AP"
        else:
            kinds = [str(k).strip() for k in arg.get("kinds") or ()]
            if not kinds:
                raise InputError("recruit: give what to buy: --unit KIND [--unit KIND ...] (courier, navy too)")
            for k in kinds:
                if k not in rules.costs:
                    raise InputError(f"--unit {k!r}: use one of {', '.join(rules.costs)}")
            quality = str(arg.get("quality") or "line")
            if quality not in ("line", "guard", "militia"):
                raise InputError(f"--quality {quality!r}: use line, guard or militia")
            a = {"nation": who, "at": place_named(scenario, arg["at"], "--at"), "kinds": kinds, "quality": quality}
            run = lambda: treasury.recruit(scenario, state, rules, who, a["at"], kinds, quality=quality)  # noqa: E731
            text = f"winter {state.year}: {who} recruits"
        try:
            new, told = run()
        except InputError as err:
            raise _refuse(err, f"{who}'s {step}") from None
        return _marker(rnd, phase, step, a, text), new, told, [], None

    return _run(c, step, body, nation=nation)


def ally(c, nation: str, partner: str, *, brk: bool = False) -> list[Event]:
    """``nation`` offers ``partner`` an alliance, or accepts the one ``partner`` offered it (the
    alliance is made); ``brk``: breaks their alliance at once, or takes back its open offer.
    Public and logged; allowed in the orders phase (before or after the nation is done: it
    counts from the next ``resolve``) and in winter quarters."""
    def body(snap, scenario, rules, state, rnd, dice, who):
        other = nation_named(c, partner, "--with")
        a = {"nation": who, "with": other, "break": bool(brk)}
        try:
            new, told = diplomacy(state, who, other, brk=bool(brk))
        except InputError as err:
            raise _refuse(err, f"{who}'s word to {other}") from None
        verb = "breaks with" if brk else "treats with"
        return (_marker(rnd, snap.campaign("phase"), "ally", a, f"{label(rules, state)}: {who} {verb} {other}"),
                new, told, [], None)

    return _run(c, "ally", body, nation=nation)


def engine_step(c, name: str) -> list[Event]:
    """The umpire's step: ``begin``, ``resolve``, ``end`` or ``spring``."""
    def body(snap, scenario, rules, state, rnd, dice, _n):
        phase = snap.campaign("phase")
        when = label(rules, state)
        if name == "begin":
            new, told = begin_phase(scenario, state, rules, dice)
            return _marker(rnd, phase, "begin", None, f"{when} begins"), new, told, [], (rnd, "orders")
        if name == "resolve":
            told = []
            for nation in scenario.nations:
                for _n, seq, kind, a in _orders_of(snap, rnd, nation):
                    try:
                        state, evs = _apply_order(scenario, state, rules, dice, kind, a)
                        told += evs
                    except (InputError, KeyError) as err:
                        why = str(err) if isinstance(err, InputError) else f"{kind} {err} is no more"
                        told.append(Event(rnd, phase, "order_failed", {"nation": nation, "seq": seq, "kind": kind,
                                                                       "why": why},
                                          f"{nation}'s order {seq} ({kind}) fails: {why}"))
            new, evs = contact(scenario, state, rules, dice)
            return (_marker(rnd, phase, "resolve", None, f"{when}: the orders are carried out"),
                    new, told + evs, [], (rnd, "battles"))
        if name == "end":
            new, told = end_phase(scenario, state, rules)
            where = "winter" if new.phase == WINTER else "begin"
            return _marker(rnd, phase, "end", None, f"{when} ends"), new, told, [], (rnd + 1, where)
        if name == "spring":
            new, told = end_winter(scenario, state, rules)
            return _marker(rnd, phase, "spring", None, f"winter quarters {state.year} end"), new, told, [], (rnd + 1, "begin")
        raise BellicaError(f"no engine step {name!r}")

    return _run(c, name, body)


def next_step(c) -> list[Event]:
    """Whatever the umpire does next (begin, resolve, end or spring); refused while orders or results are due."""
    snap = c.snapshot()
    step, words = next_decision(c, snap)
    if step in ("begin", "resolve", "end", "spring"):
        return engine_step(c, step)
    raise StepRefused(f"cannot go on: {words}")


def parse_fates(items: Sequence[str]) -> dict[int, str]:
    out = {}
    for item in items or ():
        unit, sep, fate = str(item).partition("=")
        if not sep or whole_number(unit) is None or fate.strip() not in battles_mod.FATES:
            raise InputError(f"--fate {item!r}: give UNIT=FATE, FATE one of {', '.join(battles_mod.FATES)}")
        out[whole_number(unit)] = fate.strip()
    return out


def parse_dice(items: Sequence[str]) -> dict[str, int]:
    out = {}
    for item in items or ():
        key, sep, value = str(item).rpartition("=")
        if not sep or not key or whole_number(value) is None:
            raise InputError(f"--die {item!r}: give LABEL=FACE, e.g. attrition/1806/0/7/12=4")
        out[key.strip()] = whole_number(value)
    return out


def enter_result(c, battle: int, winner: str, fates: Mapping[int, str] | None = None,
                 retreats: Mapping[int, str] | None = None, dice: Mapping[str, int] | None = None) -> list[Event]:
    """The table battle ``battle``'s result: ``winner`` "a", "b" (or a nation of that side) or
    "draw"; ``fates`` unit id -> destroyed/remaining/routed; ``retreats`` army id -> province;
    ``dice`` the umpire's real attrition dice (label -> face), else drawn from the seed."""
    def body(snap, scenario, rules, state, rnd, d, _n):
        b = next((x for x in state.battles if x.id == int(battle)), None)
        if b is None:
            raise InputError(f"battle {battle}: no such open battle: give one of "
                             f"{', '.join(str(x.id) for x in state.battles) or 'none'}")
        w = str(winner).strip().casefold()
        side = {"a": "a", "b": "b", "draw": "draw"}.get(w)
        if side is None:
            for i, ns in enumerate(b.nations):
                if any(n.casefold() == w for n in ns):
                    side = "ab"[i]
        if side is None:
            raise InputError(f"--winner {winner!r}: give a ({' & '.join(b.nations[0])}), b ({' & '.join(b.nations[1])}) or draw")
        back = {int(k): place_named(scenario, v, "--retreat") for k, v in (retreats or {}).items()}
        f = {int(k): str(v) for k, v in (fates or {}).items()}
        a = {"battle": b.id, "winner": side, "fates": {str(k): v for k, v in sorted(f.items())},
             "retreats": {str(k): v for k, v in sorted(back.items())}, "dice": dict(sorted((dice or {}).items()))}
        try:
            new, told = battles_mod.resolve_battle(scenario, state, rules, b.id, side, f, d, back)
        except InputError as err:
            raise InputError(str(err)) from None
        return (_marker(rnd, snap.campaign("phase"), "result", a, f"{label(rules, state)}: battle {b.id} in {b.province} "
                        f"was fought: " + ("a draw" if side == "draw" else f"side {side} won")), new, told, [], None)

    return _run(c, "result", body, entered=dice)


# --- the ruleset ----------------------------------------------------------------------------------------


class Trossian(SteppedRuleset):
    name = RULESET
    play_command = "bellica trossian"
    command_group = "trossian"
    faction_flag = "--nation"
    title = "Trossian"
    told_tables = frozenset({"tr_orders", "tr_ready"})
    state_sql = STATE_SQL
    order_seal = TROSSIAN_SEAL
    steps = (
        Step("begin", "begin the phase", "begin"),
        Step("march", "order a march", "orders"),
        Step("sail", "order a navy's actions", "orders"),
        Step("courier", "order a courier", "orders"),
        Step("army", "order an army to merge, detach, hold or go home", "orders"),
        Step("done", "finish the nation's orders", "orders"),
        Step("resolve", "carry out the orders", "orders"),
        Step("result", "enter a battle's result", "battles"),
        Step("end", "end the phase", "battles"),
        Step("bank", "move banked AP", "winter"),
        Step("recruit", "recruit", "winter"),
        Step("spring", "leave winter quarters", "winter"),
        Step("ally", "make or break an alliance", "orders"),  # also in winter: ALLY_PHASES
    )

    scenario_name = "trossian"
    start_phase = "begin"
    rules_class = Rules
    read_scenario = staticmethod(read_scenario)
    write_scenario = staticmethod(write_scenario)
    install_views = staticmethod(install_views)
    default_rules = staticmethod(default_rules)
    rules_with = staticmethod(rules_with)

    def state_rows(self, scenario, state):
        return _rows(scenario, state)

    def load_folder(self, folder: Path):
        from .scenario import _read, load_scenario

        rules_over = _read(Path(folder) / "provinces.toml").get("rules")
        rules = rules_with(rules_over, source=f"{Path(folder).name}/provinces.toml [rules]") if rules_over else None
        return load_scenario(folder, rules), rules_over

    def folder_summary(self, scenario: Scenario) -> str:
        return (f"{len(scenario.nations)} nations, {len(scenario.towns)} towns, "
                f"{len(scenario.lanes)} sea lanes ({sum(x.freezes for x in scenario.lanes.values())} freeze)")

    def start_state(self, campaign, seed: int):
        return new_game(campaign.board, campaign.rules), []

    def start_snapshot(self, campaign, *, seed: int) -> Snapshot:
        from bellica.engine.core.stepped import snapshot_of

        state, _ = self.start_state(campaign, seed)
        position = (("round", "1"), ("phase", self.start_phase), ("seed", str(seed)))
        return snapshot_of(self.schema, position, _rows(campaign.board, state, campaign.rules))

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        s = campaign.board
        told = Event(1, "setup", "campaign_start", {"nations": list(s.nations), "seed": seed},
                     f"{s.title}: {', '.join(s.nations)}; {len(s.provinces)} provinces, Early Spring {s.year}")
        return [told] + super().initial_events(campaign, seed=seed)

    def describe_row(self, t: str, r: Mapping) -> str | None:
        if t == "tr_control":
            return f"{r['province']} is held by {r['nation'] or 'nobody'}"
        if t == "tr_armies":
            return f"army {r['army']} ({r['nation']}) in {r['province']}: {r['strength']} units"
        if t == "tr_navies":
            return f"navy {r['navy']} ({r['nation']}) in {r['lane']}" + (f" at {r['berth']}" if r["berth"] else " at sea")
        if t == "tr_couriers":
            return f"courier {r['courier']} ({r['nation']}) in {r['place']} ({r['mode']})"
        if t == "tr_treasury":
            return f"{r['nation']}: {r['treasury']} AP banked"
        if t == "tr_sieges":
            return f"{r['nation']} pacifies {r['province']}: {r['done']} of {r['needed']} phases"
        if t == "tr_battles":
            return f"battle {r['battle']} open in {r['province']}"
        if t == "tr_game":
            return f"{r['key']} = {r['value']}"
        return None

    def describe_drop(self, t: str, k: Mapping) -> str | None:
        words = {"tr_armies": "army {army} is gone", "tr_navies": "navy {navy} is gone",
                 "tr_couriers": "courier {courier} is gone", "tr_battles": "battle {battle} is over",
                 "tr_sieges": "the siege of {province} ends"}
        return words[t].format(**k) if t in words else None

    def require(self, campaign, snap: Snapshot, name: str) -> None:
        _require(campaign, snap, name)

    # --- one step (the core's runner: SteppedRuleset.take_step) ---

    state_keys = {"tr_game": _GAME_KEYS}

    def check_step(self, campaign, snap: Snapshot, name: str, actor: str | None) -> None:
        _require(campaign, snap, name, actor)

    def state_of(self, campaign, snap: Snapshot) -> GameState:
        return state_of(snap)

    def dice_of(self, campaign, snap: Snapshot, entered) -> Dice:
        return Dice(seed=int(snap.campaign("seed")), entered=dict(entered or {}))

    def step_rows(self, campaign, state: GameState):
        return _rows(campaign.board, state, campaign.rules)

    def told_events(self, out, state: GameState, rnd: int, phase: str) -> list[Event]:
        """The rules' events in the step's round and phase, a courier's carrying its nation."""
        return _tag_couriers(_restamp(rnd, phase, out.told), {x.id: x.nation for x in state.couriers})

    def dice_events(self, dice: Dice, state: GameState, rnd: int, phase: str) -> list[Event]:
        return _dice_events(rnd, phase, dice, {x.id: x.nation for x in state.couriers})

    def position_events(self, campaign, snap: Snapshot, out, rnd: int, phase: str) -> list[Event]:
        return [] if out.where is None else _position(campaign, snap, rnd, phase, out.where[1], out.where[0])

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_decision(campaign, snap)[1]

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        if action.name == "next":
            return next_decision(campaign, snap)[0] in ("begin", "resolve", "end", "spring")
        try:
            _require(campaign, snap, action.machine_step, viewer)
        except InputError:
            return False
        return True

    def status_lines(self, status: Mapping) -> list[str]:
        return status_lines(status)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name in ("begin", "resolve", "end", "spring"):
            return engine_step(campaign, name)
        if name == "result":
            return enter_result(campaign, arg["battle"], arg["winner"], {int(k): v for k, v in arg["fates"].items()},
                                {int(k): v for k, v in arg["retreats"].items()}, arg.get("dice") or {})
        if name == "ally":
            return ally(campaign, arg["nation"], arg["with"], brk=bool(arg.get("break")))
        if name in NATION_STEPS:
            a = dict(arg)
            nation = a.pop("nation")
            if name == "bank":
                return act(campaign, name, nation, source=a["source"], target=a["target"], ap=a["ap"])
            return act(campaign, name, nation, **a)
        raise BellicaError(f"ruleset {self.name} has no step {name!r}")


TROSSIAN = register(Trossian())


# --- the status -----------------------------------------------------------------------------------------


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
        armies.append({"army": a.id, "nation": a.nation, "province": a.province, "aboard": a.aboard,
                       "name": a.name, "units": [asdict(u) for u in a.units] if own else None,
                       "strength": len(a.units) if own else None, "rest": a.rest, "standing": a.standing})
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
                            "moved": x.moved} for x in state.couriers if x.nation == viewer]
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
                   + (f", rests {a['rest']}" if a["rest"] else ""))
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
            out.append(f"  courier {x['courier']} in {x['where']} ({x['mode']})" + (f": to {x['to']}: {x['message']}" if x["message"] else ""))
        for note in t["intelligence"]:
            out.append(f"  captured message: {note}")
        for o in view["orders"]:
            out.append(f"  order {o['seq']}: {o['kind']} {json.dumps(o['input'])}")
    if view["ready"]:
        out.append(f"  orders in from: {', '.join(view['ready'])}")
    out.append(f"next: {view['next']}")
    return out
