"""Rise of Rome as a ruleset plug-in of the campaign core: a playable, logged, re-adjudicable campaign.

The pure rules (the phase functions over :class:`~bellica.engine.rise_of_rome.model.TurnState`)
stay as they are; this module stores their state in the campaign file and runs them as
*steps* of the core's phase machine, one DuckDB transaction each:

=========  ===========  ==========  =======================================================
step       phase        stage       what
=========  ===========  ==========  =======================================================
revenue    revenue                  a new turn; phase 1, every Active power's revenue
rulers     rulers                   phase 2, change of ruler (the engine's powers)
attacks    attacks      engine      phase 3, the external armies' and the powers' attacks
attack     attacks      rome        Rome's decision: its target (or none)
spend      spending                 phase 4, Rome's split (Attack, Defense, Civic); the others'
battles    battles      fight       phase 5, every battle; stops at a table-played battle
                                    whose result is not yet entered (stage ``result``), or
                                    at a province Rome takes and may choose (``province``)
result     battles      result      Rome's input: the result of that battle
province   battles      province    Rome's input: the province it takes (or the seed's rule)
end        end                      phase 6 (externals) and Rome's civic accounting; after
                                    the last turn, or Rome's instant loss: the verdict
=========  ===========  ==========  =======================================================

Every step logs a ``step`` event first (``{"step", "input"}``): re-adjudication reads the
steps back from those and runs them again.  Every die comes from the campaign seed
through :class:`~bellica.engine.rise_of_rome.dice.Roller` (labels carry the turn, so a step
run again draws the same dice and a replay never draws).  The state a step leaves is
written as the core's ``put_row``/``drop_row`` events on the tables of ``STATE_SQL``
(diffed from the new TurnState), so the tables are the log's materialised view; the
turn's attack plan, spending and pending battle are round notes.

The static scenario is stored by :func:`write_scenario` (``ror_provinces``, ``ror_powers``,
``ror_borders`` and the frozen ``rules``), which the campaign creation calls; the
geometry of the provinces (``provinces``/``province_cells``) is the province builder's and
is not read by the rules.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from bellica.engine.core.events import Event
from bellica.engine.core.machine import Step
from bellica.engine.core.ruleset import register
from bellica.engine.core.stepped import (SteppedRuleset, adjacency_of, border_pairs, create_scenario_tables, diff_events,
                                        scenario_tables, store_rules)
from bellica.engine.core.stepped import set_campaign as _position
from bellica.engine.core.stepped import step_event as _marker
from bellica.engine.core.tables import Snapshot
from bellica.engine.rise_of_rome.attacks import Attack, AttackPlan, candidate_targets, declare_player_attack, roll_attacks
from bellica.engine.rise_of_rome.battles import (Battle, BattleResult, ProvinceQuestion, check_defence_split,
                                               fight_battles)
from bellica.engine.rise_of_rome.civic import VERDICTS, civic_end_of_turn, verdict
from bellica.engine.rise_of_rome.dice import Roller
from bellica.engine.rise_of_rome.externals import end_of_turn, external_attacks
from bellica.engine.rise_of_rome.model import (ExternalArmy, Power, Province, Ruler, Scenario, TurnState, provinces_of,
                                              status, suzerain)
from bellica.engine.rise_of_rome.revenue import collect_revenue
from bellica.engine.rise_of_rome.rulers import change_rulers
from bellica.engine.rise_of_rome.rules import RULESET, Rules, default_rules, rules_with
from bellica.engine.rise_of_rome.spending import Spending, divert, spend
from bellica.engine.rise_of_rome.turn import begin_turn, start
from bellica.geo.errors import InputError, BellicaError

__all__ = [
    "RiseOfRome",
    "RISE_OF_ROME",
    "STATE_SQL",
    "SCENARIO_SQL",
    "TurnView",
    "choose_province",
    "enter_result",
    "give_attack",
    "give_spending",
    "next_decision",
    "play_until_decision",
    "run_engine_step",
    "state_of",
    "turn_view",
    "write_scenario",
    "install_views",
]

#: The umpire's views (ror_attackable, ror_revenue_next, ror_reach; docs/sql.md, "Rise of Rome").
VIEWS_SQL = Path(__file__).with_name("sql") / "views.sql"


def install_views(con) -> None:
    """Create (or replace) the Rise of Rome views on ``con`` (a campaign file with its scenario tables)."""
    from bellica.geo.spatialdb import run_sql_file

    run_sql_file(con, VIEWS_SQL)

#: The campaign state (the core adds ``campaign``, ``round_notes`` and the ``events`` log).
STATE_SQL = """
-- Who controls each province (an external army's occupation is in ror_externals).
CREATE TABLE ror_control (province VARCHAR PRIMARY KEY, power VARCHAR);
-- The ruler (ruling caste) of each power but Rome: ratings in percent, the turn it took over,
-- the 3D10 as rolled and the characteristics after modifiers and rebalancing (JSON lists).
CREATE TABLE ror_rulers (power VARCHAR PRIMARY KEY, aggressor INTEGER, protector INTEGER, builder INTEGER,
                         since INTEGER, rolled VARCHAR, characteristics VARCHAR);
-- The external armies in Italy: where, their points, the turn they landed, who pays them.
CREATE TABLE ror_externals (power VARCHAR PRIMARY KEY, province VARCHAR, points INTEGER, arrived INTEGER, paymaster VARCHAR);
-- Each of the nine powers: its status in words (active, subject of X, inactive), its suzerain,
-- provinces held, this turn's revenue (and the part only Civic Improvement may take), and
-- whether it won or lost a battle this turn and last turn.
CREATE TABLE ror_powers_state (power VARCHAR PRIMARY KEY, status VARCHAR, suzerain VARCHAR, provinces INTEGER,
                               revenue INTEGER, civic_only INTEGER, won BOOLEAN, lost BOOLEAN,
                               won_last BOOLEAN, lost_last BOOLEAN);
-- Rome's treasury, turn by turn: revenue, its split, and the Civic Development track after the turn.
CREATE TABLE ror_treasury (turn INTEGER PRIMARY KEY, revenue INTEGER, civic_only INTEGER, attack INTEGER,
                           defence INTEGER, civic INTEGER, civic_spent INTEGER, civic_penalty INTEGER,
                           civic_total INTEGER);
-- Results of the battles played on the table, as entered (winner: attacker or defender).
CREATE TABLE ror_battle_results (turn INTEGER, battle INTEGER, winner VARCHAR, major BOOLEAN, PRIMARY KEY (turn, battle));
-- The provinces Rome chose to take, as entered (kind: target, extra or counter), province NULL: by the seed's rule.
CREATE TABLE ror_province_choices (turn INTEGER, battle INTEGER, kind VARCHAR, province VARCHAR,
                                   PRIMARY KEY (turn, battle, kind));
-- The rest of the turn state: turn, civic_spent, civic_penalty, defeated, subjects_created (JSON), verdict.
CREATE TABLE ror_game (key VARCHAR PRIMARY KEY, value VARCHAR);
"""

#: The static scenario in the campaign file (written once by :func:`write_scenario`).
SCENARIO_SQL = """
CREATE TABLE IF NOT EXISTS ror_provinces (name VARCHAR PRIMARY KEY, ord INTEGER, home VARCHAR, resource VARCHAR,
                                          coastal BOOLEAN, revenue INTEGER, capital VARCHAR, lon DOUBLE, lat DOUBLE);
CREATE TABLE IF NOT EXISTS ror_powers (name VARCHAR PRIMARY KEY, ord INTEGER, external BOOLEAN, player BOOLEAN,
                                       ruler_aggressor INTEGER, ruler_protector INTEGER, ruler_builder INTEGER);
CREATE TABLE IF NOT EXISTS ror_borders (a VARCHAR, b VARCHAR, PRIMARY KEY (a, b));
"""

#: Where Rome decides: (phase, stage) -> the step it gives.
DECISIONS = {("attacks", "rome"): "attack", ("spending", None): "spend", ("battles", "result"): "result",
             ("battles", "province"): "province"}
#: Where the engine runs: (phase, stage) -> its step.
ENGINE_STEPS = {("revenue", None): "revenue", ("rulers", None): "rulers", ("attacks", "engine"): "attacks",
                ("battles", "fight"): "battles", ("end", None): "end"}
OVER = "over"


# --- the static scenario -------------------------------------------------------------------


def write_scenario(con, scenario: Scenario, rules: Rules) -> None:
    """Store ``scenario`` and the merged ``rules`` in a campaign file (``con``, outside a transaction)."""
    create_scenario_tables(con, SCENARIO_SQL)
    con.executemany("INSERT INTO ror_provinces VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(p.name, i, p.home_of, p.resource, p.coastal, p.revenue, p.capital, p.lon, p.lat)
                     for i, p in enumerate(scenario.provinces.values())])
    con.executemany("INSERT INTO ror_powers VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(w.name, i, w.external, w.player, *(scenario.given_rulers.get(w.name) or (None, None, None)))
                     for i, w in enumerate(scenario.powers.values())])
    con.executemany("INSERT INTO ror_borders VALUES (?, ?)",
                    border_pairs(scenario.adjacency))
    store_rules(con, rules)


def read_scenario(con, name: str = "rise-of-rome") -> Scenario:
    """The :class:`Scenario` a campaign file stores."""
    have = scenario_tables(con)
    if not {"ror_provinces", "ror_powers", "ror_borders"} <= have:
        raise InputError("this campaign file has no Rise of Rome scenario tables (ror_provinces, ror_powers, ror_borders): "
                         "make it with `bellica campaign new --scenario rise-of-rome`")
    rows = con.execute("SELECT name, home, resource, coastal, revenue, capital, lon, lat FROM ror_provinces ORDER BY ord").fetchall()
    provinces = {r[0]: Province(r[0], r[1], r[2], bool(r[3]), int(r[4]), r[5] or "", float(r[6]), float(r[7])) for r in rows}
    powers, given, player = {}, {}, None
    for name_, external, is_player, a, p, b in con.execute(
            "SELECT name, external, player, ruler_aggressor, ruler_protector, ruler_builder FROM ror_powers ORDER BY ord").fetchall():
        homes = tuple(n for n, pr in provinces.items() if pr.home_of == name_)
        powers[name_] = Power(name_, homes, bool(external), bool(is_player))
        if is_player:
            player = name_
        if a is not None:
            given[name_] = (int(a), int(p), int(b))
    if player is None:  # the scenario loader refuses this; a hand-edited file must not fall back to a name
        raise InputError("ror_powers marks no power as the player's (player = true): fix the campaign's scenario tables")
    adjacency = adjacency_of(provinces, con.execute("SELECT a, b FROM ror_borders").fetchall())
    return Scenario(name=name, provinces=provinces, powers=powers,
                    adjacency=adjacency, player=player, given_rulers=given)


# --- the state as rows, and back ------------------------------------------------------------


def _state_rows(scenario: Scenario, state: TurnState) -> dict[str, dict[tuple, dict]]:
    """The TurnState-derived tables as ``{table: {key: row dict}}``."""
    out: dict[str, dict[tuple, dict]] = {}
    out["ror_control"] = {(p,): {"province": p, "power": w} for p, w in state.control.items()}
    out["ror_rulers"] = {(w,): {"power": w, "aggressor": r.aggressor, "protector": r.protector, "builder": r.builder,
                                "since": r.since, "rolled": json.dumps(list(r.rolled)),
                                "characteristics": json.dumps(list(r.characteristics))}
                         for w, r in state.rulers.items()}
    out["ror_externals"] = {(w,): {"power": w, "province": a.province, "points": a.points, "arrived": a.arrived,
                                   "paymaster": a.paymaster} for w, a in state.externals.items()}
    out["ror_powers_state"] = {
        (w,): {"power": w, "status": status(scenario, state, w), "suzerain": suzerain(scenario, state, w),
               "provinces": len(provinces_of(scenario, state, w)), "revenue": state.revenue.get(w),
               "civic_only": state.civic_only.get(w), "won": w in state.won, "lost": w in state.lost,
               "won_last": w in state.won_last, "lost_last": w in state.lost_last}
        for w in scenario.nations}
    game = {"turn": state.turn, "civic_spent": state.civic_spent, "civic_penalty": state.civic_penalty,
            "defeated": int(state.defeated), "subjects_created": json.dumps([list(x) for x in state.subjects_created])}
    out["ror_game"] = {(k,): {"key": k, "value": str(v)} for k, v in game.items()}
    return out


def _diff(c, snap: Snapshot, rows: Mapping[str, Mapping[tuple, dict]], rnd: int, phase: str) -> list[Event]:
    """put_row/drop_row events turning ``snap``'s tables into ``rows`` (ror_game: its state keys only)."""
    return diff_events(c, snap, rows, rnd, phase, state_keys={"ror_game": _GAME_STATE_KEYS})


_GAME_STATE_KEYS = {"turn", "civic_spent", "civic_penalty", "defeated", "subjects_created"}


def state_of(scenario: Scenario, snap: Snapshot) -> TurnState:
    """The :class:`TurnState` the stored tables hold."""
    game = {k[0]: row[1] for k, row in snap.tables["ror_game"].items()}
    rulers = {}
    for w, a, p, b, since, rolled, chars in snap.tables["ror_rulers"].values():
        rulers[w] = Ruler(a, p, b, since, tuple(json.loads(rolled or "[]")), tuple(json.loads(chars or "[]")))
    externals = {w: ExternalArmy(w, prov, pts, arr, pay) for w, prov, pts, arr, pay in snap.tables["ror_externals"].values()}
    revenue, civic_only, won, lost, won_last, lost_last = {}, {}, set(), set(), set(), set()
    for w, _st, _sz, _n, rev, co, wn, ls, wl, ll in snap.tables["ror_powers_state"].values():
        if rev is not None:
            revenue[w] = rev
        if co is not None:
            civic_only[w] = co
        for flag, s in ((wn, won), (ls, lost), (wl, won_last), (ll, lost_last)):
            if flag:
                s.add(w)
    order = list(scenario.provinces)
    control = {p: w for p, w in sorted((row for row in snap.tables["ror_control"].values()),
                                       key=lambda r: order.index(r[0]) if r[0] in order else len(order))}
    return TurnState(turn=int(game.get("turn", 0)), control=control, rulers=rulers, externals=externals,
                     revenue=revenue, civic_only=civic_only, won_last=frozenset(won_last), lost_last=frozenset(lost_last),
                     won=frozenset(won), lost=frozenset(lost),
                     subjects_created=tuple((s, int(n)) for s, n in json.loads(game.get("subjects_created", "[]"))),
                     civic_spent=int(game.get("civic_spent", 0)), civic_penalty=int(game.get("civic_penalty", 0)),
                     defeated=game.get("defeated", "0") == "1")


def _plan_json(plan: AttackPlan) -> list[dict]:
    return [asdict(a) for a in plan.attacks]


def _plan_of(data) -> AttackPlan:
    return AttackPlan(tuple(Attack(**a) for a in (data or [])))


# --- the ruleset ---------------------------------------------------------------------------


class RiseOfRome(SteppedRuleset):
    name = RULESET
    play_command = "bellica turn"
    # Its steps (steps.py) make `bellica rise-of-rome ...`, which `bellica turn ...` runs for its campaigns.
    command_group = "rise-of-rome"
    faction_flag = "--power"
    title = "Rise of Rome"
    round_word = "turn"
    status_before_start = False
    status_json_names_file = False  # `status --json` is the web app's status JSON, CAMPAIGN in its words
    example_campaign = "rome.duckdb"
    state_sql = STATE_SQL
    steps = (
        Step("revenue", "open the turn (revenue)", "revenue"),
        Step("rulers", "change rulers", "rulers"),
        Step("attacks", "roll the powers' attacks", "attacks", ("engine",), "Rome's attack is awaited; {next}"),
        Step("attack", "give Rome's attack", "attacks", ("rome",), "the powers have not rolled their attacks yet; {next}"),
        Step("spend", "give Rome's spending", "spending"),
        Step("battles", "fight the battles", "battles", ("fight",), "{next}"),
        Step("result", "enter a battle's result", "battles", ("result",), "no battle awaits its result; {next}"),
        Step("province", "choose Rome's province", "battles", ("province",),
             "no province awaits Rome's choice; {next}"),
        Step("end", "end the turn", "end"),
    )

    scenario_name = "rise-of-rome"
    start_phase = "revenue"
    rules_class = Rules
    read_scenario = staticmethod(read_scenario)
    write_scenario = staticmethod(write_scenario)
    state_rows = staticmethod(_state_rows)
    install_views = staticmethod(install_views)
    default_rules = staticmethod(default_rules)
    rules_with = staticmethod(rules_with)

    def load_folder(self, folder: Path):
        from bellica.engine.rise_of_rome.scenario import _read, load_scenario

        return load_scenario(folder), _read(folder / "provinces.toml").get("rules")

    def folder_summary(self, scenario: Scenario) -> str:
        return (f"{len(scenario.nations)} powers, {len(scenario.externals)} external powers, "
                f"{sum(len(n) for n in scenario.adjacency.values()) // 2} borders")

    def start_state(self, campaign, seed: int):
        return start(campaign.board, campaign.rules, Roller(seed))

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        _state, told = self.start_state(campaign, seed)
        words = [Event(1, "setup", e.kind, e.data, e.text) for e in told]
        return words + super().initial_events(campaign, seed=seed)

    def describe_row(self, t: str, r: Mapping) -> str | None:
        if t == "ror_control":
            return f"{r['province']} is held by {r['power']}"
        if t == "ror_rulers":
            return f"{r['power']}' ruler: Aggressor {r['aggressor']}, Protector {r['protector']}, Builder {r['builder']}"
        if t == "ror_externals":
            return f"the {r['power']} army: {r['points']} points in {r['province']}"
        if t == "ror_powers_state":
            return f"{r['power']}: {r['status']}, {r['provinces']} provinces"
        if t == "ror_game":
            return f"{r['key']} = {r['value']}"
        return None

    def next_step(self, campaign, snap: Snapshot) -> str:
        return next_decision(campaign, snap)[1]

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        if action.name == "next":
            return next_decision(campaign, snap)[0] in ENGINE_STEPS.values()
        return super().may_take(campaign, snap, action, viewer)

    def status_lines(self, status: Mapping) -> list[str]:
        from bellica.engine.rise_of_rome.steps import status_lines

        return status_lines(status)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        if name in ENGINE_STEPS.values():
            return run_engine_step(campaign, name)
        if name == "attack":
            return give_attack(campaign, arg)
        if name == "spend":
            arg = dict(arg)
            split = arg.pop("defence_split", None)
            return give_spending(campaign, Spending(**arg), split)
        if name == "result":
            return enter_result(campaign, arg["battle"], arg["winner"], arg["major"])
        if name == "province":
            return choose_province(campaign, arg["province"], battle=arg["battle"], kind=arg["kind"])
        raise BellicaError(f"ruleset {self.name} has no step {name!r}")


RISE_OF_ROME = register(RiseOfRome())


# --- where the campaign stands ----------------------------------------------------------------


def _pos(snap: Snapshot) -> tuple[str, str | None]:
    return snap.campaign("phase"), snap.campaign("stage")


def next_decision(c, snap: Snapshot) -> tuple[str | None, str]:
    """(the step that comes next, in words what to do): an engine step, Rome's decision, or None at the end."""
    phase, stage = _pos(snap)
    if phase == OVER:
        v = snap.tables["ror_game"].get(("verdict",))
        return None, f"the campaign is over: {VERDICTS.get(v[1], v[1]) if v else 'ended'}"
    step = ENGINE_STEPS.get((phase, stage)) or DECISIONS.get((phase, stage))
    words = {
        "revenue": "run the turn with `bellica turn next CAMPAIGN`",
        "rulers": "run the turn with `bellica turn next CAMPAIGN`",
        "attacks": "run the turn with `bellica turn next CAMPAIGN`",
        "battles": "fight the battles with `bellica turn next CAMPAIGN`",
        "end": "end the turn with `bellica turn next CAMPAIGN`",
        "attack": "give Rome's attack: `bellica turn attack CAMPAIGN --target POWER` (or --none)",
        "spend": "give Rome's spending: `bellica turn spend CAMPAIGN --attack N --defence N --civic N`",
    }
    if step == "province":
        q = snap.note(int(snap.campaign("round")), "pending_province") or {}
        return step, (f"choose the province Rome takes (battle {q.get('battle')}, {q.get('why')}): `bellica turn province "
                      f"CAMPAIGN --choose PROVINCE` (one of {', '.join(q.get('options') or ())}) or --by-rule")
    if step == "result":
        pending = snap.note(int(snap.campaign("round")), "pending_battle") or {}
        return step, (f"enter the result of battle {pending.get('index')}: `bellica turn result CAMPAIGN "
                      f"{pending.get('index')} --winner attacker|defender --margin major|minor`")
    if step is None:
        return None, f"the campaign stands at phase {phase} stage {stage}, which the rules do not know"
    return step, words[step]


# --- the steps ---------------------------------------------------------------------------------


def _move(rnd: int, phase: str, to_phase: str, stage: str | None, snap: Snapshot, *, round_to: int | None = None) -> list[Event]:
    out = []
    if round_to is not None and str(round_to) != snap.campaign("round"):
        out.append(_position(rnd, phase, "round", round_to))
    out.append(_position(rnd, phase, "phase", to_phase))
    if stage != snap.campaign("stage"):
        out.append(_position(rnd, phase, "stage", stage))
    return out


def _begin(c, name: str):
    snap = c.snapshot()
    c.ruleset.require(c, snap, name)
    return snap, c.board, c.rules, state_of(c.board, snap), int(snap.campaign("round"))


def run_engine_step(c, name: str) -> list[Event]:
    """Run the engine's step ``name`` (one transaction); its events."""
    with c.transaction():
        snap, scenario, rules, state, rnd = _begin(c, name)
        roller = Roller(c.seed())
        events: list[Event] = []
        if name == "revenue":
            state = begin_turn(state)
            rnd = state.turn
            y0, y1 = rules.game.years(state.turn)
            events.append(_marker(rnd, "revenue", name, None, f"Turn {state.turn} of {rules.game.turns}: {-y0} to {-y1} BC"))
            state, ev = collect_revenue(scenario, state, rules)
            events += ev
            events += _diff(c, snap, _state_rows(scenario, state), rnd, "revenue")
            events += _move(rnd, "revenue", "rulers", None, snap, round_to=rnd)
        elif name == "rulers":
            events.append(_marker(rnd, "rulers", name, None, f"Turn {rnd}, phase 2: change of rulers"))
            state, ev = change_rulers(scenario, state, rules, roller)
            events += ev + _diff(c, snap, _state_rows(scenario, state), rnd, "rulers")
            events += _move(rnd, "rulers", "attacks", "engine", snap)
        elif name == "attacks":
            events.append(_marker(rnd, "attacks", name, None, f"Turn {rnd}, phase 3: attacks"))
            state, plan, ev = external_attacks(scenario, state, rules, roller)
            events += ev
            plan, ev = roll_attacks(scenario, state, rules, roller, plan)
            events += ev + _diff(c, snap, _state_rows(scenario, state), rnd, "attacks")
            events.append(Event(rnd, "attacks", "put_note", {"round": rnd, "key": "plan", "value": _plan_json(plan)},
                                "the attacks so far: " + (", ".join(f"{a.attacker} on {a.target}" for a in plan.attacks) or "none")))
            events += _move(rnd, "attacks", "attacks", "rome", snap)
        elif name == "battles":
            events += _battles(c, snap, scenario, rules, state, rnd, roller)
        elif name == "end":
            events.append(_marker(rnd, "end", name, None, f"Turn {rnd}, phase 6: end of the turn"))
            if not state.defeated:
                state, ev = end_of_turn(scenario, state, rules, roller)
                events += ev
            state, ev = civic_end_of_turn(scenario, state, rules)
            events += ev + _diff(c, snap, _state_rows(scenario, state), rnd, "end")
            events += _treasury(c, snap, scenario, state, rnd, "end")
            if state.defeated or state.turn >= rules.game.turns:
                v = verdict(state.civic_total, rules, defeated=state.defeated)
                events.append(Event(rnd, "civic", "verdict", {"total": state.civic_total, "verdict": v},
                                    f"Final Civic Development {state.civic_total}: {VERDICTS[v]}"))
                events.append(Event(rnd, "end", "put_row", {"table": "ror_game", "row": {"key": "verdict", "value": v}},
                                    f"verdict: {v}"))
                events += _move(rnd, "end", OVER, None, snap)
            else:
                events += _move(rnd, "end", "revenue", None, snap)
        else:
            raise BellicaError(f"no engine step {name!r}")
        c.append(events, before=snap)
    return events


def _treasury(c, snap: Snapshot, scenario: Scenario, state: TurnState, rnd: int, phase: str,
              spent: Spending | None = None) -> list[Event]:
    player = scenario.player
    old = snap.tables["ror_treasury"].get((rnd,))
    names = c.ruleset.schema.tables["ror_treasury"].column_names
    row = dict(zip(names, old)) if old else {"turn": rnd, "revenue": state.revenue.get(player, 0),
                                               "civic_only": state.civic_only.get(player, 0),
                                               "attack": 0, "defence": 0, "civic": 0}
    if spent is not None:
        row.update(attack=spent.attack, defence=spent.defence, civic=spent.civic)
    row.update(civic_spent=state.civic_spent, civic_penalty=state.civic_penalty, civic_total=state.civic_total)
    return [Event(rnd, phase, "put_row", {"table": "ror_treasury", "row": row},
                  f"Rome's treasury, turn {rnd}: revenue {row['revenue']}, Attack {row['attack']}, Defense {row['defence']}, "
                  f"Civic {row['civic']}; Civic Development {row['civic_total']}")]


def give_attack(c, target: str | None) -> list[Event]:
    """Rome's attack this turn: a power's name (any case), or None for no attack."""
    with c.transaction():
        snap, scenario, rules, state, rnd = _begin(c, "attack")
        if target is not None:
            target = _power_named(scenario, target, candidate_targets(scenario, state, scenario.player), "--target")
        plan = _plan_of(snap.note(rnd, "plan"))
        plan, ev = declare_player_attack(scenario, state, rules, plan, target)
        events = [_marker(rnd, "attacks", "attack", target, f"Turn {rnd}: Rome's decision, attack {target or 'nobody'}")]
        events += ev
        events.append(Event(rnd, "attacks", "put_note", {"round": rnd, "key": "plan", "value": _plan_json(plan)},
                            "the turn's attacks: " + (", ".join(f"{a.attacker} on {a.target}" for a in plan.attacks) or "none")))
        events += _move(rnd, "attacks", "spending", None, snap)
        c.append(events, before=snap)
    return events


def _power_named(scenario: Scenario, name: str, allowed: Sequence[str], where: str) -> str:
    by_lower = {p.lower(): p for p in scenario.nations}
    power = by_lower.get(name.strip().lower())
    if power is None:
        raise InputError(f"{where} {name!r} is no power of this campaign: use one of {', '.join(allowed) or 'none'}")
    return power


def rome_free_revenue(scenario: Scenario, state: TurnState) -> int:
    return state.revenue.get(scenario.player, 0) - state.civic_only.get(scenario.player, 0)


def give_spending(c, given: Spending, defence_split: Mapping[str, int] | None = None) -> list[Event]:
    """Rome's split of its revenue (it must add up to the revenue it may spend freely).
    ``defence_split``: {attacking power: Defense points} for some or all of the attacks on Rome
    (the rest of the Defense is spread evenly over the attacks not named)."""
    with c.transaction():
        snap, scenario, rules, state, rnd = _begin(c, "spend")
        plan = _plan_of(snap.note(rnd, "plan"))
        player = scenario.player
        split: dict[str, int] = {}
        if defence_split:
            on_rome = [a.attacker for a in plan.attacks if a.target == player]
            for name_, n in defence_split.items():
                by_lower = {p.lower(): p for p in scenario.powers}
                who = by_lower.get(str(name_).strip().lower())
                if who is None:
                    raise InputError(f"--defence-split {name_!r} is no power of this campaign: name one of "
                                     f"{', '.join(on_rome) or 'none (nobody attacks Rome this turn)'}")
                split[who] = int(n)
            free = rome_free_revenue(scenario, state)
            if min(given.attack, given.defence, given.civic) >= 0 and given.total == free:
                attacking = any(a.attacker == player for a in plan.attacks)
                check_defence_split(plan, player, divert(given, attacking, bool(on_rome)).defence, split)
        arg = asdict(given) | ({"defence_split": split} if split else {})
        words = "; Defense " + ", ".join(f"{n} against {w}" for w, n in split.items()) if split else ""
        events = [_marker(rnd, "spending", "spend", arg,
                          f"Turn {rnd}: Rome's decision, {given.attack} Attack, {given.defence} Defense, {given.civic} Civic"
                          + words)]
        state, spending, ev = spend(scenario, state, rules, plan, given)
        events += ev + _diff(c, snap, _state_rows(scenario, state), rnd, "spending")
        if split:
            events.append(Event(rnd, "spending", "put_note", {"round": rnd, "key": "defence_split", "value": {player: split}},
                                f"Rome's Defense named for the attacks: {', '.join(f'{w} {n}' for w, n in split.items())}"))
        events += _treasury(c, snap, scenario, state, rnd, "spending", spending.get(scenario.player, Spending()))
        events.append(Event(rnd, "spending", "put_note",
                            {"round": rnd, "key": "spending", "value": {p: asdict(s) for p, s in spending.items()}},
                            "every power's spending noted for the battles"))
        events += _move(rnd, "spending", "battles", "fight", snap)
        c.append(events, before=snap)
    return events


class _NeedResult(Exception):
    def __init__(self, battle: Battle):
        self.battle = battle


class _NeedProvince(Exception):
    def __init__(self, question: ProvinceQuestion):
        self.question = question


@dataclass
class _Chooser:
    entered: Mapping[int, BattleResult]
    generate: bool
    chosen: Mapping[tuple[int, str], str | None] = None

    def province(self, state, options, why):
        return None  # the rule decides (the most revenue, a resource, a die)

    def province_question(self, state, q: ProvinceQuestion):
        """The seed lets Rome choose the provinces it takes: a stored choice, or the campaign stops for one."""
        if len(q.options) < 2:
            return None
        if (q.battle, q.kind) in (self.chosen or {}):
            return self.chosen[(q.battle, q.kind)]  # None: the seed's rule, as Rome asked
        raise _NeedProvince(q)

    def result(self, battle: Battle):
        if battle.index in self.entered:
            return self.entered[battle.index]
        if self.generate:
            return None
        raise _NeedResult(battle)


def _battles(c, snap, scenario, rules, state, rnd, roller) -> list[Event]:
    plan = _plan_of(snap.note(rnd, "plan"))
    spending = {p: Spending(**s) for p, s in (snap.note(rnd, "spending") or {}).items()}
    entered = {b: BattleResult(w, bool(m)) for (t, b), (_t, _b, w, m) in snap.tables["ror_battle_results"].items() if t == rnd}
    chosen = {(b, k): p for (t, b, k), (_t, _b, _k, p) in snap.tables["ror_province_choices"].items() if t == rnd}
    split = snap.note(rnd, "defence_split") or None
    marker = _marker(rnd, "battles", "battles", None, f"Turn {rnd}, phase 5: battles")
    try:
        new, battles, ev = fight_battles(scenario, state, rules, roller, plan, spending,
                                         _Chooser(entered, rules.options.generate_player_battles, chosen), split)
    except _NeedProvince as need:
        q = need.question
        return [marker,
                Event(rnd, "battles", "province_awaited", {"battle": q.battle, "kind": q.kind, "options": list(q.options)},
                      f"Battle {q.battle}: Rome takes a province of {q.power} ({q.why}); choose one of "
                      f"{', '.join(q.options)}"),
                Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_province", "value": asdict(q)},
                      f"battle {q.battle} awaits Rome's choice of province"),
                *_move(rnd, "battles", "battles", "province", snap)]
    except _NeedResult as need:
        b = need.battle
        data = asdict(b)
        return [marker,
                Event(rnd, "battles", "battle_awaited", {"index": b.index},
                      f"Battle {b.index}: {b.text()}; enter its result"),
                Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_battle", "value": data},
                      f"battle {b.index} awaits its result"),
                *_move(rnd, "battles", "battles", "result", snap)]
    events = [marker, *ev, *_diff(c, snap, _state_rows(scenario, new), rnd, "battles")]
    if snap.note(rnd, "pending_battle") is not None:
        events.append(Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_battle", "value": None},
                            "no battle awaits its result"))
    if snap.note(rnd, "pending_province") is not None:
        events.append(Event(rnd, "battles", "put_note", {"round": rnd, "key": "pending_province", "value": None},
                            "no province awaits Rome's choice"))
    events += _move(rnd, "battles", "end", None, snap)
    return events


def enter_result(c, battle: int, winner: str, major: bool) -> list[Event]:
    """The result of table-played battle ``battle``: ``winner`` is "attacker", "defender" or a side's power."""
    with c.transaction():
        snap, scenario, rules, state, rnd = _begin(c, "result")
        pending = snap.note(rnd, "pending_battle") or {}
        if int(battle) != pending.get("index"):
            raise InputError(f"battle {battle} does not await its result: battle {pending.get('index')} does "
                             f"({pending.get('attacker')} against {pending.get('army')} in {pending.get('province')})")
        w = winner.strip().lower()
        sides = {"attacker": "attacker", "defender": "defender",
                 str(pending["attacker"]).lower(): "attacker", str(pending["army"]).lower(): "defender",
                 str(pending["target"]).lower(): "defender"}
        if w not in sides:
            raise InputError(f"--winner {winner!r}: give attacker ({pending['attacker']}) or defender ({pending['army']})")
        side = sides[w]
        result = BattleResult(side, bool(major))
        events = [_marker(rnd, "battles", "result", {"battle": int(battle), "winner": side, "major": bool(major)},
                          f"Turn {rnd}: battle {battle} was played on the table: {result.text()}"),
                  Event(rnd, "battles", "put_row", {"table": "ror_battle_results",
                                                    "row": {"turn": rnd, "battle": int(battle), "winner": side, "major": bool(major)}},
                        f"battle {battle}: {result.text()} (entered)"),
                  *_move(rnd, "battles", "battles", "fight", snap)]
        c.append(events, before=snap)
    return events


def choose_province(c, province: str | None, *, battle: int | None = None, kind: str | None = None) -> list[Event]:
    """The province Rome takes at the choice the battles stopped for (``province`` None: the seed's rule
    picks it: the most revenue next turn, then a resource, then a die).  ``battle``/``kind``, when given,
    must be the pending choice's (re-adjudication passes them)."""
    with c.transaction():
        snap, scenario, rules, state, rnd = _begin(c, "province")
        q = snap.note(rnd, "pending_province") or {}
        if (battle is not None and int(battle) != q.get("battle")) or (kind is not None and kind != q.get("kind")):
            raise InputError(f"battle {battle} ({kind}) does not await Rome's choice: battle {q.get('battle')} "
                             f"({q.get('why')}) does")
        options = list(q.get("options") or ())
        if province is not None:
            by_lower = {p.lower(): p for p in options}
            chosen = by_lower.get(province.strip().lower())
            if chosen is None:
                raise InputError(f"--choose {province!r}: Rome may take one of {', '.join(options)} "
                                 f"(battle {q.get('battle')}, {q.get('why')}), or give --by-rule")
            province = chosen
        words = province if province is not None else "as the seed's rule picks it"
        events = [_marker(rnd, "battles", "province", {"battle": q["battle"], "kind": q["kind"], "province": province},
                          f"Turn {rnd}: Rome's decision, battle {q['battle']}: the province taken, {words}"),
                  Event(rnd, "battles", "put_row", {"table": "ror_province_choices",
                                                    "row": {"turn": rnd, "battle": q["battle"], "kind": q["kind"],
                                                            "province": province}},
                        f"battle {q['battle']}: Rome takes {words} (chosen)"),
                  *_move(rnd, "battles", "battles", "fight", snap)]
        c.append(events, before=snap)
    return events


# --- the player's view --------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnView:
    """What the player sees: where the turn stands, the powers, Rome's options."""

    turn: int
    turns: int
    phase: str
    stage: str | None
    next_step: str | None
    next_words: str
    civic_total: int
    civic_spent: int
    civic_penalty: int
    rome_revenue: int | None
    rome_free: int | None
    targets: tuple[str, ...]
    plan: tuple[Attack, ...]
    pending_battle: dict | None
    pending_province: dict | None
    powers: tuple[dict, ...]
    externals: tuple[dict, ...]
    verdict: str | None

    def lines(self) -> list[str]:
        out = [f"turn {self.turn} of {self.turns}, phase {self.phase}" + (f" ({self.stage})" if self.stage else ""),
               f"Rome's Civic Development: {self.civic_total} ({self.civic_spent} spent - {self.civic_penalty} lost)"]
        if self.rome_revenue is not None:
            out.append(f"Rome's revenue this turn: {self.rome_revenue} ({self.rome_free} may be spent freely)")
        for p in self.powers:
            rev = "" if p["revenue"] is None else f", revenue {p['revenue']}"
            ruler = f", ruler A{p['aggressor']}/P{p['protector']}/B{p['builder']}" if p.get("aggressor") is not None else ""
            out.append(f"  {p['power']}: {p['status']}, {p['provinces']} provinces{rev}{ruler}")
        for e in self.externals:
            out.append(f"  the {e['power']} army: {e['points']} points in {e['province']}")
        if self.plan:
            out.append("attacks: " + ", ".join(f"{a.attacker} on {a.target}" + (f" (roll {a.roll})" if a.roll is not None else "")
                                               for a in self.plan))
        if self.next_step == "attack":
            out.append("Rome may attack: " + (", ".join(self.targets) or "nobody (no Active neighbour)"))
        if self.pending_battle:
            b = self.pending_battle
            out.append(f"battle {b['index']} (on the table): {b['attacker']} ({b['attack_points']} pts, {b['attacker_cards']} cards, "
                       f"up to {b['attacker_generals']} Generals) attack {b['province']}, defended by {b['army']} "
                       f"({b['defence_points']} pts, {b['defender_cards']} cards, up to {b['defender_generals']} Generals)")
        if self.pending_province:
            q = self.pending_province
            out.append(f"battle {q['battle']}: Rome takes a province of {q['power']} ({q['why']}): "
                       f"choose one of {', '.join(q['options'])}")
        if self.verdict:
            out.append(f"verdict: {self.verdict}: {VERDICTS.get(self.verdict, '')}")
        out.append(f"next: {self.next_words}")
        return out

    def as_json(self) -> dict:
        d = asdict(self)
        d["plan"] = [asdict(a) for a in self.plan]
        return d


def turn_view(c) -> TurnView:
    snap = c.snapshot()
    scenario, rules = c.board, c.rules
    state = state_of(scenario, snap)
    rnd = int(snap.campaign("round"))
    phase, stage = _pos(snap)
    step, words = next_decision(c, snap)
    plan = _plan_of(snap.note(rnd, "plan")).attacks if phase in ("attacks", "spending", "battles") else ()
    in_turn = phase not in ("revenue", OVER) and state.turn == rnd
    powers = []
    for row in sorted(snap.tables["ror_powers_state"].values(), key=lambda r: scenario.nations.index(r[0])):
        ruler = state.rulers.get(row[0])
        powers.append({"power": row[0], "status": row[1], "suzerain": row[2], "provinces": row[3],
                       "revenue": row[4] if in_turn else None,
                       "aggressor": ruler.aggressor if ruler else None, "protector": ruler.protector if ruler else None,
                       "builder": ruler.builder if ruler else None})
    v = snap.tables["ror_game"].get(("verdict",))
    player = scenario.player
    return TurnView(
        turn=rnd, turns=rules.game.turns, phase=phase, stage=stage, next_step=step, next_words=words,
        civic_total=state.civic_total, civic_spent=state.civic_spent, civic_penalty=state.civic_penalty,
        rome_revenue=state.revenue.get(player) if in_turn else None,
        rome_free=rome_free_revenue(scenario, state) if in_turn else None,
        targets=candidate_targets(scenario, state, player) if step == "attack" else (),
        plan=plan, pending_battle=snap.note(rnd, "pending_battle") if step == "result" else None,
        pending_province=snap.note(rnd, "pending_province") if step == "province" else None,
        powers=tuple(powers),
        externals=tuple({"power": e.power, "province": e.province, "points": e.points, "paymaster": e.paymaster}
                        for e in state.externals.values()),
        verdict=v[1] if v else None)


def play_until_decision(c, *, auto: bool = True) -> list[Event]:
    """Run the engine's steps until Rome must decide (or the campaign is over).  With ``auto``,
    a decision with nothing to choose is taken at once: no attack when Rome has no Active
    neighbour, and all to Civic Improvement when Rome has nothing to spend freely."""
    events: list[Event] = []
    while True:
        snap = c.snapshot()
        step, _words = next_decision(c, snap)
        if step is None:
            return events
        if step in ENGINE_STEPS.values():
            events += run_engine_step(c, step)
            continue
        if not auto:
            return events
        state = state_of(c.board, snap)
        if step == "attack" and not candidate_targets(c.board, state, c.board.player):
            events += give_attack(c, None)
            continue
        if step == "spend" and rome_free_revenue(c.board, state) <= 0:
            events += give_spending(c, Spending(0, 0, 0))
            continue
        return events


def campaign_over(c) -> bool:
    return c.snapshot().campaign("phase") == OVER

