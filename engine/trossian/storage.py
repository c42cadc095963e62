"""The Trossian campaign's tables: the static scenario (``sql/scenario.sql``: :func:`write_scenario`,
:func:`read_scenario`), the state as the ``tr_*`` rows of ``sql/state.sql`` and back
(:func:`_rows`, :func:`state_of`), and the views (``sql/views.sql``: :func:`install_views`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from bellica.engine.core.rule_sql import views_installer
from bellica.engine.core.stepped import create_scenario_tables, scenario_tables, store_rules
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError

from . import movement
from .model import Army, Battle, Courier, GameState, Lane, Nation, NationState, Navy, Province, Scenario, Siege, Town, Unit
from .rules import Rules, default_rules

__all__ = ["SCENARIO_SQL", "STATE_SQL", "VIEWS_SQL", "install_views", "read_scenario", "state_of", "write_scenario"]

SQL = Path(__file__).with_name("sql")
STATE_SQL = SQL / "state.sql"
SCENARIO_SQL = (SQL / "scenario.sql").read_text()
VIEWS_SQL = SQL / "views.sql"
_GAME_KEYS = ("year", "phase", "scheduled", "next_id", "alliances", "contested", "entries", "offers", "sailed",
              "ungarrisoned")
#: ``tr_game``'s key of a nation's orders in force and its couriers' carried orders (JSON, its nation's
#: secret: seal.py, secrets.py).  Kept in the key/value table so that campaign files made before
#: issue 22 read as they are; written for every nation from the start when
#: ``options.couriers_carry_orders`` is on (never dropped), never when it is off.
ORDERS_KEY = "orders/"


#: Creates (or replaces) the Trossian views (docs/sql.md, "Trossian campaigns").
install_views = views_installer(VIEWS_SQL)


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
    if state.ungarrisoned:  # written only while a garrison is beaten (older campaigns have no row)
        game["ungarrisoned"] = _j(sorted(state.ungarrisoned))
    if rules.options.couriers_carry_orders:
        for n in state.nations:
            game[ORDERS_KEY + n] = _j(_orders_in_force(state, n))
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


def _orders_in_force(state: GameState, nation: str) -> dict:
    """``nation``'s armies' orders in force and its couriers' carried orders, as stored."""
    return {"armies": {str(a.id): [list(a.order), a.order_from] for a in state.armies
                       if a.nation == nation and (a.order or a.order_from)},
            "couriers": {str(c.id): list(c.order) for c in state.couriers if c.nation == nation and c.order}}


def _with_orders(game: dict, armies: tuple, couriers: tuple) -> tuple[tuple, tuple]:
    """The armies and couriers with the orders ``tr_game``'s ``orders/NATION`` rows hold."""
    from dataclasses import replace

    held, carried = {}, {}
    for key, value in game.items():
        if key.startswith(ORDERS_KEY):
            data = json.loads(value)
            held.update({int(k): v for k, v in data.get("armies", {}).items()})
            carried.update({int(k): v for k, v in data.get("couriers", {}).items()})
    armies = tuple(replace(a, order=tuple(held[a.id][0]), order_from=held[a.id][1]) if a.id in held else a
                   for a in armies)
    couriers = tuple(replace(c, order=tuple(carried[c.id])) if c.id in carried else c for c in couriers)
    return armies, couriers


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
    armies, couriers = _with_orders(game, armies, couriers)
    return GameState(
        year=int(game["year"]), phase=int(game["phase"]), control={p: n for p, n in t["tr_control"].values()},
        nations=nations, armies=armies, navies=navies_, couriers=couriers, sieges=sieges, battles=battles,
        alliances=frozenset(frozenset(p) for p in json.loads(game["alliances"])),
        contested=frozenset(json.loads(game["contested"])),
        entries=frozenset(tuple(e) for e in json.loads(game["entries"])),
        scheduled=int(game["scheduled"]), next_id=int(game["next_id"]),
        offers=frozenset(tuple(o) for o in json.loads(game.get("offers", "[]"))),
        sailed=frozenset(int(n) for n in json.loads(game.get("sailed", "[]"))),
        ungarrisoned=frozenset(json.loads(game.get("ungarrisoned", "[]"))))
