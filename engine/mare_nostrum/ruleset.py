"""Mare Nostrum as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (:mod:`~bellica.engine.mare_nostrum.turn` and the modules it calls) stay as
they are; this module stores their :class:`~bellica.engine.mare_nostrum.model.TurnState` in the
campaign file and runs them as *steps* of the core's phase machine, one DuckDB transaction
each.  The campaign's position (the core ``campaign`` table) is ``round`` = the turn,
``phase`` one of ``begin`` / ``actions`` / ``battles`` / ``over`` and, in ``actions``,
``stage`` = the nation whose turn it is to act.

==========  =============  ==========================================================
step        phase          what
==========  =============  ==========================================================
lottery     any but over   the umpire enters a wheel's real numbers for a turn, or one
                           labelled number (``siege/3/Apulia``); kept in ``mn_wheels`` /
                           ``mn_numbers`` and read by every later step
begin       begin          a new turn: order of play, pirate raids, random events, actions
build       actions        the acting nation orders a fortification, suburbs, temple or fleet
peace       actions        ... imposes peace on a nation later in the order
alliance    actions        ... allies with the invaders of an enemy province
grain       actions        ... distributes grain
attack      actions        ... declares a land attack
amphibious  actions        ... declares an amphibious attack (the defender's fleets fight first)
naval       actions        ... attacks an enemy's (or the pirates') fleets
destroy     actions        ... uses its Earthquake / Great Blaze on a work it does not hold
artworks    actions        a nation with Defensive Artworks names its province (no action;
                           until the battles, or only in its own turn: option artworks_until)
done        actions        the acting nation finishes: its works stand, the next one acts
result      battles        a declared battle's Field of Glory result (attacker / defender)
end         battles        every battle is applied (sieges drawn), the verdict; next turn
==========  =============  ==========================================================

A nation acts only in its own turn: any other is refused (:class:`StepRefused`, exit 3).
Every step logs a ``step`` event first (``{"step", "input"}``, the input as resolved);
re-adjudication reads the steps back from those and runs them again.  Every lottery number
a step needs is read from what was entered or drawn from the campaign seed under its label
(:mod:`~bellica.engine.mare_nostrum.lottery`), and the step logs them all (a ``numbers``
event), so a step run again gets the same numbers and a replay never draws.  The state a
step leaves is written as the core's ``put_row``/``drop_row`` events on the tables of
:data:`STATE_SQL` (diffed from the new TurnState): the tables are the log's materialised view.

The static scenario is stored by :func:`write_scenario` (``mn_provinces``, ``mn_nations``,
``mn_seas``, ``mn_borders``, ``mn_passages``, ``mn_invaders``, ``mn_independent_armies`` and
the frozen ``rules``) when ``bellica campaign new`` makes the campaign; the provinces'
geometry (``provinces``/``province_cells``) is the province builder's and the rules do not
read it (the land adjacency is the scenario's ``[[border]]`` list).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.names import matches as _match
from bellica.engine.core.machine import Step, StepRefused, position_of, require_step
from bellica.engine.core.ruleset import register
from bellica.engine.core.stepped import (SteppedRuleset, adjacency_of, border_pairs, create_scenario_tables, diff_events,
                                        scenario_tables, store_rules)
from bellica.engine.core.stepped import set_campaign as _set
from bellica.engine.core.stepped import step_event as _marker
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError, BellicaError

from . import battles as battles_mod
from . import building, diplomacy
from .lottery import Lottery, WheelDraw, label_key, lottery_for
from .model import (Attack, Fleet, Invader, Nation, NationState, Province, Scenario, SeaQuadrant, TurnState,
                    Works, pirates_name, provinces_of)
from .rules import RULESET, Rules, default_rules, rules_with
from .turn import begin_turn, end_turn, finish_actions, new_game
from .victory import standings

__all__ = [
    "ACTION_STEPS",
    "MARE_NOSTRUM",
    "MareNostrum",
    "SCENARIO_SQL",
    "STATE_SQL",
    "TurnView",
    "act",
    "enter_number",
    "enter_result",
    "enter_wheel",
    "install_views",
    "next_decision",
    "read_scenario",
    "run_engine_step",
    "state_of",
    "turn_view",
    "write_scenario",
]

#: The campaign state (the core adds ``campaign``, ``round_notes`` and the ``events`` log).
STATE_SQL = """
-- Who holds each province (NULL: independent).
CREATE TABLE mn_control (province VARCHAR PRIMARY KEY, nation VARCHAR);
-- Each nation this turn: stability, treasury, actions allotted and used, its random event and
-- wheel numbers (JSON list), naval bonus, the turn's conditions and open choices (JSON lists),
-- the province of its Defensive Artworks, why and when it left the game, provinces held.
CREATE TABLE mn_nations_state (nation VARCHAR PRIMARY KEY, stability INTEGER, treasury INTEGER, actions INTEGER,
                               used INTEGER, event VARCHAR, draws VARCHAR, naval_bonus INTEGER, effects VARCHAR,
                               pending VARCHAR, artworks VARCHAR, left_game VARCHAR, left_turn INTEGER,
                               provinces INTEGER);
-- What stands in each province (only provinces with a work).
CREATE TABLE mn_works (province VARCHAR PRIMARY KEY, fortifications INTEGER, suburbs INTEGER, temples INTEGER);
-- Fleets at sea (owner: the rules' events.pirates.title, "Pirates", for a pirate fleet).
CREATE TABLE mn_fleets (fleet INTEGER PRIMARY KEY, owner VARCHAR, sea VARCHAR);
-- This turn's declared land battles (invasions included; attacker NULL for invaders).
CREATE TABLE mn_attacks (seq INTEGER PRIMARY KEY, kind VARCHAR, attacker VARCHAR, target VARCHAR, defender VARCHAR,
                         base VARCHAR, sea VARCHAR, army VARCHAR, managed_by VARCHAR);
-- This turn's order of play.
CREATE TABLE mn_order (position INTEGER PRIMARY KEY, nation VARCHAR);
-- Works the acting nation ordered, standing when it finishes.
CREATE TABLE mn_builds (seq INTEGER PRIMARY KEY, work VARCHAR, province VARCHAR, sea VARCHAR);
-- The rest of the turn state: turn, current, phase, next_fleet, winner, extra_turns, peace,
-- fleets_attacked, last_taker (JSON); and verdict (the last verdict in words).
CREATE TABLE mn_game (key VARCHAR PRIMARY KEY, value VARCHAR);
-- Lottery numbers entered by the umpire: a wheel's real draw for a turn, and single labelled numbers.
CREATE TABLE mn_wheels (turn INTEGER, wheel VARCHAR, numbers VARCHAR, PRIMARY KEY (turn, wheel));
CREATE TABLE mn_numbers (label VARCHAR PRIMARY KEY, value INTEGER);
-- Results of the Field of Glory battles, as entered (winner: attacker or defender).
CREATE TABLE mn_results (turn INTEGER, province VARCHAR, winner VARCHAR, PRIMARY KEY (turn, province));
"""

#: The static scenario in the campaign file (written once by :func:`write_scenario`).
SCENARIO_SQL = """
CREATE TABLE IF NOT EXISTS mn_provinces (name VARCHAR PRIMARY KEY, ord INTEGER, nation VARCHAR, role VARCHAR,
                                         city VARCHAR, lon DOUBLE, lat DOUBLE, seas VARCHAR, revenue INTEGER, army VARCHAR);
CREATE TABLE IF NOT EXISTS mn_nations (name VARCHAR PRIMARY KEY, ord INTEGER, capital VARCHAR, wheel VARCHAR,
                                       army VARCHAR, colour VARCHAR);
CREATE TABLE IF NOT EXISTS mn_seas (name VARCHAR PRIMARY KEY, ord INTEGER, lon DOUBLE, lat DOUBLE, note VARCHAR);
CREATE TABLE IF NOT EXISTS mn_borders (a VARCHAR, b VARCHAR, PRIMARY KEY (a, b));
CREATE TABLE IF NOT EXISTS mn_passages (ord INTEGER PRIMARY KEY, from_province VARCHAR, to_province VARCHAR);
CREATE TABLE IF NOT EXISTS mn_invaders (province VARCHAR PRIMARY KEY, ord INTEGER, nation VARCHAR, army VARCHAR,
                                        managed_by VARCHAR);
CREATE TABLE IF NOT EXISTS mn_independent_armies (from_turn INTEGER PRIMARY KEY, army VARCHAR);
"""

#: The umpire's views (mn_attackable, mn_actions, mn_reach, mn_richness; docs/sql.md, "Mare Nostrum campaigns").
VIEWS_SQL = Path(__file__).with_name("sql") / "views.sql"


def install_views(con) -> None:
    """Create (or replace) the Mare Nostrum views on ``con`` (a campaign file with its scenario and state tables)."""
    from bellica.geo.spatialdb import run_sql_file

    run_sql_file(con, VIEWS_SQL)


OVER = "over"
#: The steps a nation takes in its own turn (input ``nation`` must be the acting one).
ACTION_STEPS = ("build", "peace", "alliance", "grain", "attack", "amphibious", "naval", "destroy", "done")
#: Wheel codes and the Lotto cities they stand for (the seed's wheels).
WHEEL_CITIES = {"BA": "Bari", "CA": "Cagliari", "FI": "Firenze", "GE": "Genova", "MI": "Milano", "NA": "Napoli",
                "PA": "Palermo", "RM": "Roma", "TO": "Torino", "VE": "Venezia"}
_GAME_KEYS = ("turn", "current", "phase", "next_fleet", "winner", "extra_turns", "peace", "fleets_attacked", "last_taker")
#: Derived tables (rewritten from the TurnState by every step); the others are written by their own steps.
_DERIVED = ("mn_control", "mn_nations_state", "mn_works", "mn_fleets", "mn_attacks", "mn_order", "mn_builds", "mn_game")


# --- the static scenario -------------------------------------------------------------------


def write_scenario(con, scenario: Scenario, rules: Rules) -> None:
    """Store ``scenario`` and the merged ``rules`` in a campaign file (``con``, outside a transaction)."""
    create_scenario_tables(con, SCENARIO_SQL)
    con.executemany("INSERT INTO mn_provinces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(p.name, i, p.nation, p.role, p.city, p.lon, p.lat, json.dumps(list(p.seas)), p.revenue, p.army)
                     for i, p in enumerate(scenario.provinces.values())])
    con.executemany("INSERT INTO mn_nations VALUES (?, ?, ?, ?, ?, ?)",
                    [(n.name, i, n.capital, n.wheel, n.army, n.colour) for i, n in enumerate(scenario.nations.values())])
    con.executemany("INSERT INTO mn_seas VALUES (?, ?, ?, ?, ?)",
                    [(s.name, i, s.lon, s.lat, s.note) for i, s in enumerate(scenario.seas.values())])
    con.executemany("INSERT INTO mn_borders VALUES (?, ?)",
                    border_pairs(scenario.adjacency))
    con.executemany("INSERT INTO mn_passages VALUES (?, ?, ?)", [(i, a, b) for i, (a, b) in enumerate(scenario.passages)])
    con.executemany("INSERT INTO mn_invaders VALUES (?, ?, ?, ?, ?)",
                    [(v.province, i, v.nation, v.army, v.managed_by) for i, v in enumerate(scenario.invaders)])
    if scenario.independent_armies:
        con.executemany("INSERT INTO mn_independent_armies VALUES (?, ?)", list(scenario.independent_armies))
    store_rules(con, rules)


def read_scenario(con, name: str = "mare-nostrum") -> Scenario:
    """The :class:`Scenario` a campaign file stores."""
    have = scenario_tables(con)
    need = {"mn_provinces", "mn_nations", "mn_seas", "mn_borders", "mn_passages", "mn_invaders"}
    if not need <= have:
        raise InputError("this campaign file has no Mare Nostrum scenario tables (" + ", ".join(sorted(need - have))
                         + "): make it with `bellica campaign new --scenario mare-nostrum`")
    seas = {r[0]: SeaQuadrant(r[0], float(r[1]), float(r[2]), r[3] or "")
            for r in con.execute("SELECT name, lon, lat, note FROM mn_seas ORDER BY ord").fetchall()}
    nations = {r[0]: Nation(r[0], r[1], r[2], r[3], r[4] or "#808080")
               for r in con.execute("SELECT name, capital, wheel, army, colour FROM mn_nations ORDER BY ord").fetchall()}
    provinces = {r[0]: Province(r[0], r[1], r[2], r[3] or "", float(r[4]), float(r[5]), tuple(json.loads(r[6] or "[]")),
                                int(r[7]), r[8] or "")
                 for r in con.execute("SELECT name, nation, role, city, lon, lat, seas, revenue, army FROM mn_provinces "
                                      "ORDER BY ord").fetchall()}
    adjacency = adjacency_of(provinces, con.execute("SELECT a, b FROM mn_borders ORDER BY a, b").fetchall())
    passages = tuple((a, b) for a, b in con.execute("SELECT from_province, to_province FROM mn_passages ORDER BY ord").fetchall())
    invaders = tuple(Invader(*r) for r in con.execute("SELECT province, nation, army, managed_by FROM mn_invaders "
                                                      "ORDER BY ord").fetchall())
    armies = ()
    if "mn_independent_armies" in have:
        armies = tuple((int(t), a) for t, a in con.execute("SELECT from_turn, army FROM mn_independent_armies "
                                                           "ORDER BY from_turn").fetchall())
    return Scenario(name=name, provinces=provinces, nations=nations, seas=seas,
                    adjacency=adjacency, passages=passages,
                    invaders=invaders, independent_armies=armies)


# --- the state as rows, and back ------------------------------------------------------------


def _rows(scenario: Scenario, state: TurnState) -> dict[str, dict[tuple, dict]]:
    """The TurnState as ``{table: {key: row dict}}`` for the derived tables."""
    out: dict[str, dict[tuple, dict]] = {}
    out["mn_control"] = {(p,): {"province": p, "nation": state.control.get(p)} for p in scenario.provinces}
    out["mn_nations_state"] = {
        (n,): {"nation": n, "stability": s.stability, "treasury": s.treasury, "actions": s.actions, "used": s.used,
               "event": state.events.get(n), "draws": json.dumps(list(state.draws[n])) if n in state.draws else None,
               "naval_bonus": s.naval_bonus, "effects": json.dumps(sorted(s.effects)), "pending": json.dumps(list(s.pending)),
               "artworks": s.artworks, "left_game": s.out, "left_turn": s.out_turn,
               "provinces": len(provinces_of(scenario, state, n))}
        for n, s in state.nations.items()}
    out["mn_works"] = {(p,): {"province": p, "fortifications": w.fortifications, "suburbs": w.suburbs, "temples": w.temples}
                       for p, w in state.works.items() if w != Works()}
    out["mn_fleets"] = {(f.id,): {"fleet": f.id, "owner": f.owner, "sea": f.sea} for f in state.fleets}
    out["mn_attacks"] = {(a.seq,): asdict(a) for a in state.attacks}
    out["mn_order"] = {(i + 1,): {"position": i + 1, "nation": n} for i, n in enumerate(state.order)}
    out["mn_builds"] = {(i + 1,): {"seq": i + 1, "work": w, "province": p, "sea": s} for i, (w, p, s) in enumerate(state.builds)}
    game = {"turn": state.turn, "current": state.current, "phase": state.phase, "next_fleet": state.next_fleet,
            "winner": state.winner or "", "extra_turns": state.extra_turns,
            "peace": json.dumps(sorted(list(p) for p in state.peace)),
            "fleets_attacked": json.dumps(sorted(state.fleets_attacked)),
            "last_taker": json.dumps(dict(sorted(state.last_taker.items())))}
    out["mn_game"] = {(k,): {"key": k, "value": str(v)} for k, v in game.items()}
    return out


def state_of(scenario: Scenario, snap: Snapshot) -> TurnState:
    """The :class:`TurnState` the stored tables hold."""
    game = {k[0]: row[1] for k, row in snap.tables["mn_game"].items()}
    control = {p: None for p in scenario.provinces}
    for p, n in snap.tables["mn_control"].values():
        control[p] = n
    nations, events, draws = {}, {}, {}
    rows = {r[0]: r for r in snap.tables["mn_nations_state"].values()}
    for n in scenario.nations:
        if n not in rows:
            continue
        (_n, stab, treas, acts, used, event, drawn, naval, effects, pending, artworks, out, out_turn, _prov) = rows[n]
        nations[n] = NationState(n, int(stab), int(treas or 0), int(acts or 0), int(used or 0),
                                 frozenset(json.loads(effects or "[]")), int(naval or 0), tuple(json.loads(pending or "[]")),
                                 artworks or "", out or "", int(out_turn or 0))
        if event:
            events[n] = event
        if drawn is not None:
            draws[n] = tuple(json.loads(drawn))
    works = {p: Works(*(int(x) for x in w)) for (p,), (_p, *w) in
             sorted(snap.tables["mn_works"].items(), key=lambda kv: _order(scenario, kv[0][0]))}
    fleets = tuple(Fleet(int(f), o, s) for f, o, s in sorted(snap.tables["mn_fleets"].values()))
    attacks = tuple(Attack(int(r[0]), *r[1:]) for r in sorted(snap.tables["mn_attacks"].values()))
    order = tuple(n for _pos, n in sorted(snap.tables["mn_order"].values()))
    builds = tuple((w, p, s or "") for _seq, w, p, s in sorted(snap.tables["mn_builds"].values()))
    return TurnState(
        turn=int(game.get("turn", 0)), control=control, nations=nations, works=works, fleets=fleets,
        next_fleet=int(game.get("next_fleet", 1)), order=order, current=int(game.get("current", 0)), draws=draws,
        events=events, attacks=attacks,
        fleets_attacked=frozenset(int(x) for x in json.loads(game.get("fleets_attacked", "[]"))),
        peace=frozenset(tuple(p) for p in json.loads(game.get("peace", "[]"))), builds=builds,
        last_taker=json.loads(game.get("last_taker", "{}")), phase=game.get("phase", "done"),
        winner=game.get("winner") or None, extra_turns=int(game.get("extra_turns", 0)))


def _order(scenario: Scenario, province: str) -> int:
    names = list(scenario.provinces)
    return names.index(province) if province in names else len(names)


def _diff(c, snap: Snapshot, rows: Mapping[str, Mapping[tuple, dict]], rnd: int, phase: str) -> list[Event]:
    """put_row/drop_row events turning ``snap``'s derived tables into ``rows`` (mn_game: its state keys only)."""
    return diff_events(c, snap, rows, rnd, phase, state_keys={"mn_game": _GAME_KEYS})


# --- the ruleset ---------------------------------------------------------------------------


class MareNostrum(SteppedRuleset):
    name = RULESET
    play_command = "bellica turn"
    # Its steps (steps.py) make `bellica mare-nostrum ...`, which `bellica turn ...` runs for its campaigns.
    command_group = "mare-nostrum"
    faction_flag = "--nation"
    title = "Mare Nostrum"
    round_word = "turn"
    status_before_start = False
    status_json_names_file = False  # `status --json` is the web app's status JSON, CAMPAIGN in its words
    example_campaign = "mare.duckdb"
    state_sql = STATE_SQL
    steps = (
        Step("lottery", "enter lottery numbers", "begin"),
        Step("begin", "begin the turn", "begin"),
        Step("build", "build", "actions"),
        Step("peace", "impose peace", "actions"),
        Step("alliance", "ally with invaders", "actions"),
        Step("grain", "distribute grain", "actions"),
        Step("attack", "declare a land attack", "actions"),
        Step("amphibious", "declare an amphibious attack", "actions"),
        Step("naval", "attack fleets", "actions"),
        Step("destroy", "destroy an enemy work", "actions"),
        Step("artworks", "place defensive artworks", "actions"),
        Step("done", "finish the nation's actions", "actions"),
        Step("result", "enter a battle's result", "battles"),
        Step("end", "end the turn", "battles"),
    )

    scenario_name = "mare-nostrum"
    start_phase = "begin"
    rules_class = Rules
    read_scenario = staticmethod(read_scenario)
    write_scenario = staticmethod(write_scenario)
    state_rows = staticmethod(_rows)
    install_views = staticmethod(install_views)
    default_rules = staticmethod(default_rules)
    rules_with = staticmethod(rules_with)

    def load_folder(self, folder: Path):
        from .scenario import _read, load_scenario

        return load_scenario(folder), _read(folder / "provinces.toml").get("rules")

    def folder_summary(self, scenario: Scenario) -> str:
        return (f"{len(scenario.nations)} nations, {len(scenario.seas)} sea quadrants, "
                f"{sum(len(n) for n in scenario.adjacency.values()) // 2} borders, {len(scenario.invaders)} invaders")

    def start_state(self, campaign, seed: int):
        return new_game(campaign.board, campaign.rules), []

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        scenario, rules = campaign.board, campaign.rules
        y0 = rules.game.first_year
        told = Event(1, "setup", "campaign_start", {"nations": list(scenario.nations), "seed": seed},
                     f"Mare Nostrum, {-y0} BC: {', '.join(scenario.nations)}, {len(scenario.provinces)} provinces, "
                     f"{rules.game.turns} turns; every nation at stability {rules.stability.start}")
        return [told] + super().initial_events(campaign, seed=seed)

    def describe_row(self, t: str, r: Mapping) -> str | None:
        if t == "mn_control":
            return f"{r['province']} is held by {r['nation'] or 'nobody (independent)'}"
        if t == "mn_nations_state":
            return (f"{r['nation']}: stability {r['stability']}, {r['provinces']} provinces, "
                    f"{r['used']} of {r['actions']} actions used" + (f", out ({r['left_game']})" if r["left_game"] else ""))
        if t == "mn_works":
            return (f"{r['province']}: {r['fortifications']} fortification, {r['suburbs']} suburbs, "
                    f"{r['temples']} temple")
        if t == "mn_fleets":
            return f"fleet {r['fleet']} ({r['owner']}) in {r['sea']}"
        if t == "mn_attacks":
            return f"battle {r['seq']}: {r['attacker'] or 'invaders'} against {r['target']} ({r['kind']})"
        if t == "mn_order":
            return f"order of play {r['position']}: {r['nation']}"
        if t == "mn_builds":
            return f"ordered: {r['work']} in {r['province']}"
        if t == "mn_game":
            return f"{r['key']} = {r['value']}"
        return None

    def describe_drop(self, t: str, k: Mapping) -> str | None:
        if t == "mn_fleets":
            return f"fleet {k['fleet']} is gone"
        if t == "mn_works":
            return f"{k['province']}: nothing stands"
        return None

    def require(self, campaign, snap: Snapshot, name: str) -> None:
        _require(campaign, snap, name)

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_decision(campaign, snap)[1]

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        if action.name == "next":
            return next_decision(campaign, snap)[0] in ("begin", "end")
        try:
            _require(campaign, snap, action.machine_step, viewer)
        except InputError:
            return False
        return True

    def status_lines(self, status: Mapping) -> list[str]:
        from .steps import status_lines

        return status_lines(status)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name in ("begin", "end"):
            return run_engine_step(campaign, name)
        if name == "lottery":
            if "wheel" in arg:
                return enter_wheel(campaign, arg["wheel"], arg["numbers"], turn=arg["turn"])
            return enter_number(campaign, arg["label"], arg["value"])
        if name == "result":
            return enter_result(campaign, arg["province"], arg["winner"])
        if name in ACTION_STEPS or name == "artworks":
            arg = dict(arg)
            return act(campaign, name, arg.pop("nation"), **arg)
        raise BellicaError(f"ruleset {self.name} has no step {name!r}")


MARE_NOSTRUM = register(MareNostrum())


# --- where the campaign stands ----------------------------------------------------------------


def _require(c, snap: Snapshot, name: str, nation: str | None = None) -> None:
    """Refuse step ``name`` (exit 3) unless the campaign's position allows it (and, for a
    nation's action, unless it is ``nation``'s turn to act)."""
    step = c.ruleset.step(name)
    pos = position_of(snap)
    words = lambda: next_decision(c, snap)[1]  # noqa: E731
    if name == "lottery":
        if pos.winner is not None or pos.phase == OVER:
            raise StepRefused(f"cannot {step.action}: the campaign is over")
        return
    own_turn = name == "artworks" and c.rules.options.artworks_until == "own_turn"
    if name == "artworks" and not own_turn and pos.phase == "battles" and pos.winner is None:
        return
    require_step(step, pos, words)
    if nation is not None and (name in ACTION_STEPS or own_turn) and pos.stage != nation:
        raise StepRefused(f"cannot {step.action}: it is {_poss(pos.stage)} turn to act, not {_poss(nation)}; {words()}")


def next_decision(c, snap: Snapshot) -> tuple[str | None, str]:
    """(what comes next: "begin", "actions", "result", "end" or None at the end; in words what to do)."""
    phase, stage = snap.campaign("phase"), snap.campaign("stage")
    rnd = int(snap.campaign("round"))
    if phase == OVER:
        v = snap.tables["mn_game"].get(("verdict",))
        return None, f"the campaign is over: {v[1] if v else 'ended'}"
    if phase == "begin":
        turn = int(dict((k[0], r[1]) for k, r in snap.tables["mn_game"].items()).get("turn", 0)) + 1
        return "begin", (f"begin turn {turn}: `bellica turn begin CAMPAIGN` (enter the real draw first, if any: "
                         "`bellica turn lottery CAMPAIGN --wheel BA N N N N N`)")
    if phase == "actions":
        row = snap.tables["mn_nations_state"].get((stage,))
        left = (int(row[3]) - int(row[4])) if row else 0
        return "actions", (f"{stage} acts ({left} action{'s' if left != 1 else ''} left): `bellica turn build|attack|"
                           f"peace|ally|grain|naval CAMPAIGN --nation {stage} ...`, then "
                           f"`bellica turn done CAMPAIGN --nation {stage}`")
    if phase == "battles":
        entered = {k[1] for k in snap.tables["mn_results"] if k[0] == rnd}
        waiting = [r[3] for r in sorted(snap.tables["mn_attacks"].values()) if r[3] not in entered]
        if waiting:
            return "result", (f"enter the Field of Glory result of the battle for {waiting[0]}: "
                              f"`bellica turn result CAMPAIGN {waiting[0]} --winner attacker|defender`"
                              + (f" ({len(waiting) - 1} more to enter)" if len(waiting) > 1 else ""))
        return "end", "end the turn: `bellica turn end CAMPAIGN`"
    return None, f"the campaign stands at phase {phase}, which the rules do not know"


# --- the steps ---------------------------------------------------------------------------------


def _position(rnd: int, phase: str, state: TurnState, snap: Snapshot, *, verdict_text: str | None = None) -> list[Event]:
    """set_campaign events moving the core position to where ``state`` stands."""
    if state.winner is not None:
        where, stage = OVER, None
    elif state.phase == "done":
        where, stage = "begin", None
    elif state.phase == "actions":
        where, stage = "actions", state.acting
    else:
        where, stage = state.phase, None
    out = []
    if state.turn >= 1 and str(state.turn) != snap.campaign("round"):
        out.append(_set(rnd, phase, "round", state.turn))
    if where != snap.campaign("phase"):
        out.append(_set(rnd, phase, "phase", where))
    if stage != snap.campaign("stage"):
        out.append(_set(rnd, phase, "stage", stage))
    if state.winner is not None and snap.campaign("winner") != state.winner:
        out.append(_set(rnd, phase, "winner", state.winner))
    return out


def _lottery(c, snap: Snapshot) -> Lottery:
    """The campaign's lottery: the numbers entered so far, the rest drawn from the seed."""
    wheels: dict[int, dict[str, list[int]]] = {}
    for turn, wheel, numbers in snap.tables["mn_wheels"].values():
        wheels.setdefault(int(turn), {})[wheel] = json.loads(numbers)
    entered = {label: int(v) for label, v in snap.tables["mn_numbers"].values()}
    return lottery_for(c.rules, int(snap.campaign("seed")), wheels=wheels, entered=entered)


def _numbers(rnd: int, phase: str, lot: Lottery) -> list[Event]:
    """One event listing every lottery number the step used, entered or drawn."""
    if not lot.log:
        return []
    items, words = [], []
    for d in lot.log:
        if isinstance(d, WheelDraw):
            key, value = label_key(("wheel", d.turn, d.wheel)), list(d.numbers)
            words.append(f"{key} {' '.join(map(str, d.numbers))}")
        else:
            key, value = d.key, d.value
            words.append(f"{key} {d.value}")
        words[-1] += " (entered)" if d.entered else " (drawn)"
        items.append({"label": key, "value": value, "entered": d.entered})
    return [Event(rnd, phase, "numbers", {"numbers": items}, "lottery numbers: " + "; ".join(words))]


def _run(c, name: str, body: Callable, *, nation: str | None = None) -> list[Event]:
    """One step in one transaction: ``body(snap, scenario, rules, state, rnd, lot)`` returns
    ``(marker, new_state, rule events, extra events)``; the diff and position follow."""
    with c.transaction():
        snap = c.snapshot()
        _require(c, snap, name)
        scenario, rules = c.board, c.rules
        if nation is not None:
            nation = nation_named(c, nation)
            _require(c, snap, name, nation)
        state = state_of(scenario, snap)
        rnd = int(snap.campaign("round"))
        lot = _lottery(c, snap)
        marker, new, told, extra = body(snap, scenario, rules, state, rnd, lot, nation)
        phase = marker.phase
        r = marker.round
        events = [marker, *told, *_numbers(r, phase, lot), *extra]
        if new is not None:
            events += _diff(c, snap, _rows(scenario, new), r, phase)
            events += _position(r, phase, new, snap)
        c.append(events, before=snap)
    return events


def run_engine_step(c, name: str) -> list[Event]:
    """Run ``begin`` (open the next turn) or ``end`` (fight the battles, the verdict)."""
    if name == "begin":
        def body(snap, scenario, rules, state, rnd, lot, _n):
            new, told = begin_turn(scenario, state, rules, lot)
            y0, y1 = rules.game.years(new.turn)
            return (_marker(new.turn, "begin", "begin", None,
                            f"Turn {new.turn} of {rules.game.turns}: {-y0} to {-y1} BC"), new, told, [])
        return _run(c, "begin", body)
    if name == "end":
        def body(snap, scenario, rules, state, rnd, lot, _n):
            results = {p: w for (t, p), (_t, _p, w) in snap.tables["mn_results"].items() if t == state.turn}
            missing = [a.target for a in state.attacks if a.target not in results]
            if missing:  # allowed only where the battle never takes place (its attacker was knocked out first)
                trial = {**results, **{t: "defender" for t in missing}}
                _s, evs = battles_mod.resolve_battles(scenario, state, rules, _lottery(c, snap), trial)
                fought = [t for t in missing if any(e.kind == "battle" and e.data.get("target") == t for e in evs)]
                if fought:
                    raise StepRefused(f"cannot end the turn: the battle for {fought[0]} awaits its result; "
                                      + next_decision(c, snap)[1])
                results = trial
            new, v, told = end_turn(scenario, state, rules, lot, results)
            extra = [Event(rnd, "end", "put_row", {"table": "mn_game", "row": {"key": "verdict",
                                                                               "value": _verdict_words(v)}},
                           f"verdict: {_verdict_words(v)}")]
            return (_marker(rnd, "battles", "end", None, f"Turn {rnd}: the battles and the end of the turn"),
                    new, told, extra)
        return _run(c, "end", body)
    raise BellicaError(f"no engine step {name!r}")


def _verdict_words(v) -> str:
    return f"{v.winner} wins: {v.reason}" if v.winner else v.reason


def enter_wheel(c, wheel: str, numbers: Sequence[int], *, turn: int | None = None) -> list[Event]:
    """The real draw of ``wheel`` (a code such as BA, its city, or a nation's name) for ``turn``
    (default: the next turn to begin)."""
    def body(snap, scenario, rules, state, rnd, lot, _n):
        code = wheel_named(scenario, wheel)
        first = state.turn + 1  # the turn being played (if any) has drawn its wheels
        t = first if turn is None else int(turn)
        if t < first:
            raise InputError(f"--turn {t}: turn {t} has begun, its wheels are drawn; enter the draw of turn {first} or later")
        nums = [int(n) for n in numbers]
        lot.wheels = {t: {code: nums}}
        lot.wheel(t, code)  # checks the numbers (1-90, different, at most five)
        lot.log.clear()
        who = next((n.name for n in scenario.nations.values() if n.wheel == code), "")
        arg = {"turn": t, "wheel": code, "numbers": nums}
        text = f"the umpire enters the draw of {WHEEL_CITIES.get(code, code)} ({code}) for turn {t}: {' '.join(map(str, nums))}"
        row = Event(rnd, snap.campaign("phase"), "put_row",
                    {"table": "mn_wheels", "row": {"turn": t, "wheel": code, "numbers": json.dumps(nums)}},
                    f"turn {t}, wheel {code}" + (f" ({who})" if who else "") + f": {' '.join(map(str, nums))}")
        return _marker(rnd, snap.campaign("phase"), "lottery", arg, text), None, [], [row]
    return _run(c, "lottery", body)


def enter_number(c, label: str, value: int) -> list[Event]:
    """One number for a labelled test (``siege/3/Apulia``, ``peace/2/Romans/Seleucids``, ...)."""
    def body(snap, scenario, rules, state, rnd, lot, _n):
        key = _check_label(rules, state, label)
        lot.entered = {key: value}
        lot.number(*key.split("/"))  # checks the value
        lot.log.clear()
        arg = {"label": key, "value": int(value)}
        row = Event(rnd, snap.campaign("phase"), "put_row", {"table": "mn_numbers", "row": {"label": key, "value": int(value)}},
                    f"number {key} = {value}")
        return (_marker(rnd, snap.campaign("phase"), "lottery", arg, f"the umpire enters the number for {key}: {value}"),
                None, [], [row])
    return _run(c, "lottery", body)


_LABEL_KINDS = ("siege", "peace", "alliance", "naval")


def _check_label(rules: Rules, state: TurnState, label: str) -> str:
    parts = [p.strip() for p in str(label).strip().strip("/").split("/")]
    kinds = _LABEL_KINDS + tuple(b.key for b in rules.events)
    if len(parts) < 3 or parts[0] not in kinds or not parts[1].isdigit():
        raise InputError(f"--number {label!r}: give a label KIND/TURN/... such as siege/3/Apulia or "
                         f"peace/2/Romans/Seleucids (KIND one of {', '.join(_LABEL_KINDS)} or an event key)")
    first = state.turn + 1 if state.phase == "done" else state.turn
    if int(parts[1]) < first:
        raise InputError(f"--number {label!r}: turn {parts[1]} is over; enter numbers for turn {first} or later")
    return "/".join([parts[0], str(int(parts[1])), *parts[2:]])


def act(c, step: str, nation: str, **arg) -> list[Event]:
    """``nation``'s action ``step`` (one of :data:`ACTION_STEPS` or "artworks") with its input:
    build(work, province, sea=""), peace(target), alliance(province), grain(), attack(base, target),
    amphibious(base, sea, target), naval(sea, enemy), destroy(work, province), artworks(province), done()."""
    if step not in ACTION_STEPS and step != "artworks":
        raise BellicaError(f"no action step {step!r}")

    def body(snap, scenario, rules, state, rnd, lot, who):
        a = _resolve(c, scenario, step, arg)
        if step == "build":
            new, told = building.build(scenario, state, rules, who, a["work"], a["province"], a.get("sea", ""))
            text = f"{who} builds a {a['work']} in {a['province']}" + (f" ({a['sea']})" if a.get("sea") else "")
        elif step == "peace":
            new, told = diplomacy.impose_peace(scenario, state, rules, lot, who, a["target"])
            text = f"{who} would impose peace on {a['target']}"
        elif step == "alliance":
            new, told = diplomacy.ally_with_invaders(scenario, state, rules, lot, who, a["province"])
            text = f"{who} seeks an alliance with the invaders of {a['province']}"
        elif step == "grain":
            new, told = diplomacy.distribute_grain(scenario, state, rules, who)
            text = f"{who} distributes grain"
        elif step == "attack":
            new, told = battles_mod.land_attack(scenario, state, rules, who, a["base"], a["target"])
            text = f"{who} attacks {a['target']} from {a['base']}"
        elif step == "amphibious":
            new, told = battles_mod.amphibious_attack(scenario, state, rules, lot, who, a["base"], a["sea"], a["target"])
            text = f"{who} attacks {a['target']} from {a['base']} across {a['sea']}"
        elif step == "naval":
            new, told = battles_mod.attack_fleets(scenario, state, rules, lot, who, a["sea"], a["enemy"])
            text = f"{who} attacks the {a['enemy']}' fleets in {a['sea']}"
        elif step == "destroy":
            new, told = building.destroy_enemy_work(scenario, state, rules, who, a["province"], a["work"])
            text = f"{who} destroys a {a['work']} in {a['province']}"
        elif step == "artworks":
            new, told = building.place_artworks(scenario, state, rules, who, a["province"])
            text = f"{who} raises defensive artworks in {a['province']}"
        else:  # done
            new, told = finish_actions(scenario, state, rules, who)
            text = f"{who} has finished its actions"
        phase = snap.campaign("phase")
        return _marker(rnd, phase, step, {"nation": who, **a}, f"Turn {rnd}: {text}"), new, told, []

    return _run(c, step, body, nation=nation)


def enter_result(c, province: str, winner: str) -> list[Event]:
    """The Field of Glory result of the battle for ``province``: ``winner`` is "attacker",
    "defender", or the winning side's nation ("invaders" / "independent" for those sides)."""
    def body(snap, scenario, rules, state, rnd, lot, _n):
        target = province_named(scenario, province, "battle")
        attack = next((a for a in state.attacks if a.target == target), None)
        if attack is None:
            declared = ", ".join(a.target for a in state.attacks) or "none"
            raise InputError(f"no battle for {target} was declared this turn: give one of {declared}")
        side = _side(attack, winner)
        row = {"turn": state.turn, "province": target, "winner": side}
        who = attack.attacker or f"the invaders ({attack.army})" if side == "attacker" else (attack.defender or "the independents")
        return (_marker(rnd, "battles", "result", {"province": target, "winner": side},
                        f"Turn {rnd}: the battle for {target} was played: {who} won ({side})"),
                None, [], [Event(rnd, "battles", "put_row", {"table": "mn_results", "row": row},
                                 f"battle for {target}: the {side} won (entered)")])
    return _run(c, "result", body)


def _side(attack: Attack, winner: str) -> str:
    w = str(winner).strip().casefold()
    sides = {"attacker": "attacker", "defender": "defender"}
    if attack.attacker:
        sides[attack.attacker.casefold()] = "attacker"
    else:
        sides["invaders"] = "attacker"
        if attack.managed_by:
            sides.setdefault(attack.managed_by.casefold(), "attacker")
    if attack.defender:
        sides.setdefault(attack.defender.casefold(), "defender")
    else:
        sides["independent"] = "defender"
    if w not in sides:
        raise InputError(f"--winner {winner!r}: give attacker ({attack.attacker or 'the invaders'}) or defender "
                         f"({attack.defender or 'independent'})")
    return sides[w]


# --- names as players type them ------------------------------------------------------------------




def nation_named(c, name: str, where: str = "--nation") -> str:
    """The nation ``name`` means: its name in any case, or the unique nation it begins ("Roma", "carth")."""
    options = list(c.board.nations)
    found = _match(name, options)
    if len(found) != 1:
        raise InputError(f"{where} {name!r} is no nation of this campaign: use one of {', '.join(options)}")
    return found[0]


def province_named(scenario: Scenario, name: str, what: str = "province") -> str:
    found = _match(name, list(scenario.provinces))
    if len(found) != 1:
        raise InputError(f"{what} {name!r} is not a province of this campaign: use one of {', '.join(scenario.provinces)}")
    return found[0]


def sea_named(scenario: Scenario, name: str) -> str:
    options = list(scenario.seas)
    found = _match(name, options) or [s for s in options if s.casefold().endswith(" " + str(name).strip().casefold())]
    if len(found) != 1:
        raise InputError(f"--sea {name!r} is not a sea quadrant of this campaign: use one of {', '.join(options)}")
    return found[0]


def wheel_named(scenario: Scenario, name: str) -> str:
    """A wheel code from a code (BA), a city (Bari) or a nation's name (Carthaginians)."""
    n = str(name).strip().casefold()
    codes = [w.wheel for w in scenario.nations.values()]
    for code in codes:
        if n in (code.casefold(), WHEEL_CITIES.get(code, code).casefold()):
            return code
    nations = _match(name, list(scenario.nations))
    if len(nations) == 1:
        return scenario.nations[nations[0]].wheel
    raise InputError(f"--wheel {name!r}: give one of the wheels " + ", ".join(f"{c} ({WHEEL_CITIES.get(c, c)})" for c in codes)
                     + " or a nation's name")


def _resolve(c, scenario: Scenario, step: str, arg: Mapping) -> dict:
    """The action's input with every name spelled as the scenario spells it (what the log records)."""
    out = {}
    for k, v in arg.items():
        if v is None or v == "":
            if k == "sea":
                out[k] = ""
            continue
        if k in ("province", "base", "target") and not (step == "peace" and k == "target"):
            out[k] = province_named(scenario, v, {"base": "--from", "target": "--into"}.get(k, "province"))
        elif k == "target":
            out[k] = nation_named(c, v, "--with")
        elif k == "sea":
            out[k] = sea_named(scenario, v)
        elif k == "enemy":
            pirates = pirates_name(c.rules)
            out[k] = pirates if str(v).strip().casefold() == pirates.casefold() else nation_named(c, v, "--enemy")
        elif k == "work":
            works = tuple(building.WORKS)
            found = _match(v, works) or ([w for w in works if w + "s" == str(v).strip().casefold()])
            if len(found) != 1:
                raise InputError(f"work {v!r}: build one of {', '.join(works)}")
            out[k] = found[0]
        else:
            out[k] = v
    need = {"build": ("work", "province"), "peace": ("target",), "alliance": ("province",), "attack": ("base", "target"),
            "amphibious": ("base", "sea", "target"), "naval": ("sea", "enemy"), "destroy": ("work", "province"),
            "artworks": ("province",)}.get(step, ())
    for k in need:
        if k not in out:
            flag = {"base": "--from", "target": "--into" if step != "peace" else "--with", "enemy": "--enemy",
                    "sea": "--sea"}.get(k, k.upper())
            raise InputError(f"{step}: give {flag}")
    if step == "build":
        out.setdefault("sea", "")
    return out


# --- the player's view --------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnView:
    """What the umpire and the players see: where the turn stands, the nations, the battles."""

    turn: int
    turns: int
    years: tuple[int, int] | None
    phase: str
    acting: str | None
    next_step: str | None
    next_words: str
    order: tuple[dict, ...]
    nations: tuple[dict, ...]
    attacks: tuple[dict, ...]
    fleets: tuple[dict, ...]
    works: tuple[dict, ...]
    options: dict | None
    winner: str | None
    verdict: str | None

    def lines(self) -> list[str]:
        y = f" ({-self.years[0]}-{-self.years[1]} BC)" if self.years else ""
        out = [f"turn {self.turn} of {self.turns}{y}, phase {self.phase}" + (f": {self.acting} acts" if self.acting else "")]
        if self.order:
            out.append("order of play: " + ", ".join(f"{o['nation']} ({o['wheel']} {o['first']})" for o in self.order))
        for n in self.nations:
            if n["out"]:
                out.append(f"  {n['nation']}: out of the game ({n['out']})")
                continue
            ev = f", event {n['event']}" if n["event"] else ""
            pend = f", may still: {', '.join(n['pending'])}" if n["pending"] else ""
            out.append(f"  {n['nation']}: {n['provinces']} provinces, stability {n['stability']}, treasury {n['treasury']}, "
                       f"{n['used']} of {n['actions']} actions used{ev}{pend}")
        for w in self.works:
            out.append(f"  works in {w['province']} ({w['holder'] or 'independent'}): " + ", ".join(
                f"{w[k]} {k}" for k in ("fortifications", "suburbs", "temples") if w[k]))
        for f in self.fleets:
            out.append(f"  fleet {f['fleet']} ({f['owner']}) in {f['sea']}")
        for a in self.attacks:
            by = a["attacker"] or f"invaders ({a['army']}, played by {a['terms']['attacker_played_by']})"
            how = f" from {a['base']}" if a["base"] else ""
            how += f" across {a['sea']}" if a["sea"] else ""
            res = f": {a['result']} won" if a["result"] else ""
            out.append(f"  battle for {a['target']}: {by}{how} against {a['defender'] or 'the independents'} "
                       f"({a['attacker_army']} vs {a['defender_army']}){res}")
        if self.options:
            o = self.options
            out.append(f"{self.acting} may attack by land: " + (", ".join(f"{t} (from {', '.join(b)})"
                                                                         for t, b in o["land"].items()) or "nothing"))
            if o["peace"]:
                out.append(f"{self.acting} may impose peace on: {', '.join(o['peace'])}")
        if self.verdict:
            out.append(f"verdict: {self.verdict}")
        out.append(f"next: {self.next_words}")
        return out

    def as_json(self) -> dict:
        return asdict(self)


def turn_view(c) -> TurnView:
    snap = c.snapshot()
    scenario, rules = c.board, c.rules
    state = state_of(scenario, snap)
    phase = snap.campaign("phase")
    step, words = next_decision(c, snap)
    rnd = int(snap.campaign("round"))
    results = {p: w for (t, p), (_t, _p, w) in snap.tables["mn_results"].items() if t == state.turn}
    first = rules.lottery.order_number
    order = tuple({"nation": n, "wheel": scenario.nations[n].wheel, "first": state.draws.get(n, (None,))[first - 1]
                   if len(state.draws.get(n, ())) >= first else None} for n in state.order)
    nations = []
    for n, s in state.nations.items():
        key = state.events.get(n)
        nations.append({"nation": n, "provinces": len(provinces_of(scenario, state, n)), "stability": s.stability,
                        "treasury": s.treasury, "actions": s.actions, "used": s.used,
                        "event": rules.event_by_key(key).title if key and phase != "begin" else None,
                        "pending": list(s.pending) if phase != "begin" else [], "out": s.out,
                        "draws": list(state.draws.get(n, ()))})
    attacks = []
    for a in state.attacks:
        terms = battles_mod.battle_terms(scenario, state, rules, a)
        attacks.append({**asdict(a), "attacker_army": terms["attacker_army"], "defender_army": terms["defender_army"],
                        "terms": terms, "result": results.get(a.target)})
    options = None
    acting = state.acting if phase == "actions" else None
    if acting:
        land: dict[str, list[str]] = {}
        for b, t in battles_mod.land_targets(scenario, state, rules, acting):
            land.setdefault(t, []).append(b)
        peace = [n for n in state.order[state.current + 1:] if state.nations[n].playing]
        options = {"land": land, "peace": peace, "actions_left": state.nations[acting].actions_left}
    v = snap.tables["mn_game"].get(("verdict",))
    shown = state.turn + 1 if phase == "begin" else state.turn or rnd
    return TurnView(
        turn=shown, turns=rules.game.turns, years=rules.game.years(shown), phase=phase, acting=acting,
        next_step=step, next_words=words, order=order, nations=tuple(nations), attacks=tuple(attacks),
        fleets=tuple({"fleet": f.id, "owner": f.owner, "sea": f.sea} for f in state.fleets),
        works=tuple({"province": p, "holder": state.control.get(p), "fortifications": w.fortifications,
                     "suburbs": w.suburbs, "temples": w.temples} for p, w in state.works.items() if w != Works()),
        options=options, winner=state.winner, verdict=v[1] if v else None)


def standings_now(c) -> list[dict]:
    """Provinces and richness of every nation still playing, best first."""
    state = state_of(c.board, c.snapshot())
    return [asdict(s) for s in standings(c.board, state, c.rules)]


def _poss(name: str | None) -> str:
    """``Romans'``, ``Roma's``."""
    name = name or "nobody"
    return name + ("'" if name.endswith("s") else "'s")
