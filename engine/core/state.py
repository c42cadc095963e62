"""Campaign state in the DuckDB file: state tables, the append-only event log, transactions, replay.

The event log is the truth; the state tables are its materialised view.  Every
change to a state table is an :class:`~engine.model.Event` of one of the
*state kinds* below, appended to ``events`` and applied to the tables by the
same reducer (:func:`apply_event`) that :func:`replay` folds over the whole log.
So "the tables equal the replayed log" is one function applied twice, and a
table can never change without a log line saying so.

Events of any other kind are *explanations* emitted by the rules modules
("army 3 halted entering the ZoC of army 9"): they are stored and shown by
``tabula log`` but change no table.

State kinds (``data`` fields; ``was`` holds the previous value for the log):

* ``set_campaign``: key, value (round, phase, stage, seed, winner)
* ``set_army``: army, faction, cell, strength, eliminated
* ``set_control``: structure, controller
* ``set_siege``: structure, faction, resilience, start_resilience, started_round, armies
* ``drop_siege``: structure
* ``set_vp``: faction, vp
* ``put_orders``: round, army, moves, initiative, lift_siege, assault, transfers
* ``put_engagement``: round, battle, engagement, army_a, army_b, assault
* ``drop_engagement``: round, engagement (a retreat re-lists the round's engagements)
* ``put_result``: round, engagement, army, outcome, casualties
* ``put_note``: round, key, value (facts later steps of a round need)

Each CLI step runs inside :func:`transaction`: one DuckDB ``BEGIN ... COMMIT``,
so a crash or ``kill -9`` leaves the database at the last completed step.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Mapping

import duckdb

from tabula.engine.vae_victis.board import existing_tables
from tabula.engine.vae_victis.model import Army, CampaignState, Event, Phase, Siege
from tabula.engine.core import rng
from tabula.geo.errors import InputError, TabulaError
from tabula.geo.spatialdb import run_sql

__all__ = [
    "STATE_TABLES",
    "STATE_KINDS",
    "START_FP",
    "PAUSE_ENV",
    "ReplayMismatch",
    "Snapshot",
    "StoredEvent",
    "transaction",
    "create_state_tables",
    "has_state",
    "initial_events",
    "init_campaign",
    "install_rules_views",
    "read_snapshot",
    "apply_event",
    "append_events",
    "state_events",
    "save_state",
    "load_state",
    "snapshot_state",
    "load_events",
    "replay_snapshot",
    "replay",
    "verify_replay",
    "scenario_snapshot",
]

#: Rules: "Every individual army starts with a strength of 1600 FP."
START_FP = 1600

#: Test hook (see :func:`_pause_inside_transaction`): a file path.  When set, a
#: step that has written everything but not yet committed creates this file and
#: sleeps, so the kill test can ``kill -9`` it at the worst moment.
PAUSE_ENV = "TABULA_TEST_PAUSE_IN_TRANSACTION"

# Column lists in the order of engine/README.md, and the columns that key a row.
STATE_TABLES: dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = {
    "campaign": ((("key", "VARCHAR"), ("value", "VARCHAR")), ("key",)),
    "armies": (
        (("id", "INTEGER"), ("faction", "VARCHAR"), ("cell", "VARCHAR"), ("strength", "INTEGER"), ("eliminated", "BOOLEAN")),
        ("id",),
    ),
    "control": ((("structure", "VARCHAR"), ("controller", "VARCHAR")), ("structure",)),
    "sieges": (
        (
            ("structure", "VARCHAR"),
            ("faction", "VARCHAR"),
            ("resilience", "INTEGER"),
            ("start_resilience", "INTEGER"),
            ("started_round", "INTEGER"),
        ),
        ("structure",),
    ),
    "siege_armies": ((("structure", "VARCHAR"), ("army", "INTEGER")), ("structure", "army")),
    "victory_points": ((("faction", "VARCHAR"), ("vp", "INTEGER")), ("faction",)),
    "orders": (
        (
            ("round", "INTEGER"),
            ("army", "INTEGER"),
            ("moves", "VARCHAR"),
            ("initiative", "VARCHAR"),
            ("lift_siege", "BOOLEAN"),
            ("assault", "VARCHAR"),
            ("transfers", "VARCHAR"),
        ),
        ("round", "army"),
    ),
    "engagements": (
        (
            ("round", "INTEGER"),
            ("battle", "INTEGER"),
            ("engagement", "INTEGER"),
            ("army_a", "INTEGER"),
            ("army_b", "INTEGER"),
            ("assault", "VARCHAR"),
        ),
        ("round", "engagement"),
    ),
    "engagement_results": (
        (
            ("round", "INTEGER"),
            ("engagement", "INTEGER"),
            ("army", "INTEGER"),
            ("outcome", "VARCHAR"),
            ("casualties", "INTEGER"),
        ),
        ("round", "engagement", "army"),
    ),
    # Not in the README's list: per-round facts a later step needs and the
    # value objects do not carry (positions at the start of the round, MP
    # spent in movement, naval superiority, umpire choices).  JSON values.
    "round_notes": ((("round", "INTEGER"), ("key", "VARCHAR"), ("value", "VARCHAR")), ("round", "key")),
}

EVENTS_DDL = (
    "CREATE TABLE IF NOT EXISTS events (seq INTEGER, round INTEGER, phase VARCHAR, kind VARCHAR, "
    "data JSON, text VARCHAR, \"at\" TIMESTAMP)"
)

STATE_KINDS = frozenset(
    {
        "set_campaign",
        "set_army",
        "set_control",
        "set_siege",
        "drop_siege",
        "set_vp",
        "put_orders",
        "put_engagement",
        "drop_engagement",
        "put_result",
        "put_note",
    }
)


class ReplayMismatch(TabulaError):
    """The state tables differ from the state the event log replays to."""


# --- transactions -------------------------------------------------------------


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """One DuckDB transaction: commit on success, roll back on any exception.

    A process killed inside the block leaves nothing of it on disk: DuckDB
    writes a transaction to its WAL only at COMMIT.
    """
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        _pause_inside_transaction()
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _pause_inside_transaction() -> None:
    """Kill-test hook, inert unless ``TABULA_TEST_PAUSE_IN_TRANSACTION`` names a file.

    Called after a step has written all its rows and before COMMIT: it touches
    the file (so the test knows the writes are done) and sleeps 60 s for the
    test's ``kill -9``.  Never set this variable outside tests.
    """
    marker = os.environ.get(PAUSE_ENV)
    if marker:
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(60)


# --- the state tables -----------------------------------------------------------


def create_state_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Create the (empty) state tables and the event log if they do not exist."""
    for table, (columns, _key) in STATE_TABLES.items():
        cols = ", ".join(f"{name} {typ}" for name, typ in columns)
        run_sql(con, f"CREATE TABLE IF NOT EXISTS {table} ({cols})", name=f"state.create.{table}")
    run_sql(con, EVENTS_DDL, name="state.create.events")


def has_state(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the campaign has been started (state tables exist and the log is not empty)."""
    if "events" not in existing_tables(con):
        return False
    return con.execute("SELECT count(*) FROM events").fetchone()[0] > 0


def _require_state(con) -> None:
    if not has_state(con):
        raise InputError("the campaign has not been started: run `tabula round start CAMPAIGN.duckdb` first")


@dataclass
class Snapshot:
    """Every state table as ``{table: {key tuple: row tuple}}`` (rows in README column order)."""

    tables: dict[str, dict[tuple, tuple]] = field(default_factory=lambda: {t: {} for t in STATE_TABLES})

    def rows(self, table: str) -> list[tuple]:
        """The table's rows sorted by key: the canonical form compared by replay."""
        return [self.tables[table][k] for k in sorted(self.tables[table], key=_sort_key)]

    def campaign(self, key: str, default: str | None = None) -> str | None:
        row = self.tables["campaign"].get((key,))
        return row[1] if row else default

    def copy(self) -> "Snapshot":
        return Snapshot({t: dict(rows) for t, rows in self.tables.items()})


def _sort_key(key: tuple) -> tuple:
    # None sorts first; mixed types never share a column.
    return tuple((v is not None, v) for v in key)


def _key_of(table: str, row: tuple) -> tuple:
    columns, key = STATE_TABLES[table]
    names = [c for c, _ in columns]
    return tuple(row[names.index(k)] for k in key)


def read_snapshot(con: duckdb.DuckDBPyConnection) -> Snapshot:
    """Read every state table into a :class:`Snapshot`."""
    snap = Snapshot()
    for table, (columns, _key) in STATE_TABLES.items():
        cols = ", ".join(c for c, _ in columns)
        for row in run_sql(con, f"SELECT {cols} FROM {table}", name=f"state.read.{table}").fetchall():
            row = tuple(row)
            snap.tables[table][_key_of(table, row)] = row
    return snap


def _write_changed(con, before: Snapshot, after: Snapshot) -> None:
    """Rewrite the tables whose rows changed (they hold tens of rows, so a rewrite is cheap)."""
    for table, (columns, _key) in STATE_TABLES.items():
        if before.tables[table] == after.tables[table]:
            continue
        run_sql(con, f"DELETE FROM {table}", name=f"state.clear.{table}")
        rows = after.rows(table)
        if not rows:
            continue
        width = len(columns)
        placeholders = ", ".join(["(" + ", ".join(["?"] * width) + ")"] * len(rows))
        params = [v for row in rows for v in row]
        run_sql(con, f"INSERT INTO {table} VALUES {placeholders}", params, name=f"state.write.{table}")


# --- the reducer ------------------------------------------------------------------


def apply_event(snap: Snapshot, kind: str, data: Mapping[str, Any]) -> None:
    """Apply one event to ``snap`` in place; explanation kinds change nothing."""
    t = snap.tables
    if kind == "set_campaign":
        key = data["key"]
        if data["value"] is None:
            t["campaign"].pop((key,), None)
        else:
            t["campaign"][(key,)] = (key, str(data["value"]))
    elif kind == "set_army":
        army = int(data["army"])
        t["armies"][(army,)] = (army, data["faction"], data["cell"], int(data["strength"]), bool(data["eliminated"]))
    elif kind == "set_control":
        t["control"][(data["structure"],)] = (data["structure"], data["controller"])
    elif kind == "set_siege":
        s = data["structure"]
        t["sieges"][(s,)] = (s, data["faction"], int(data["resilience"]), int(data["start_resilience"]), int(data["started_round"]))
        for k in [k for k in t["siege_armies"] if k[0] == s]:
            del t["siege_armies"][k]
        for army in data["armies"]:
            t["siege_armies"][(s, int(army))] = (s, int(army))
    elif kind == "drop_siege":
        s = data["structure"]
        t["sieges"].pop((s,), None)
        for k in [k for k in t["siege_armies"] if k[0] == s]:
            del t["siege_armies"][k]
    elif kind == "set_vp":
        t["victory_points"][(data["faction"],)] = (data["faction"], int(data["vp"]))
    elif kind == "put_orders":
        r, army = int(data["round"]), int(data["army"])
        t["orders"][(r, army)] = (
            r,
            army,
            data.get("moves"),
            data.get("initiative"),
            bool(data.get("lift_siege", False)),
            data.get("assault"),
            json.dumps(data.get("transfers") or [], sort_keys=True),
        )
    elif kind == "put_engagement":
        r, e = int(data["round"]), int(data["engagement"])
        t["engagements"][(r, e)] = (
            r,
            int(data["battle"]),
            e,
            _int_or_none(data.get("army_a")),
            _int_or_none(data.get("army_b")),
            data.get("assault"),
        )
    elif kind == "drop_engagement":
        r, e = int(data["round"]), int(data["engagement"])
        t["engagements"].pop((r, e), None)
        for k in [k for k in t["engagement_results"] if k[0] == r and k[1] == e]:
            del t["engagement_results"][k]
    elif kind == "put_result":
        r, e, army = int(data["round"]), int(data["engagement"]), int(data["army"])
        t["engagement_results"][(r, e, army)] = (r, e, army, data["outcome"], int(data["casualties"]))
    elif kind == "put_note":
        r, key = int(data["round"]), data["key"]
        if data["value"] is None:
            t["round_notes"].pop((r, key), None)
        else:
            t["round_notes"][(r, key)] = (r, key, json.dumps(data["value"], sort_keys=True))


def _int_or_none(v):
    return None if v is None else int(v)


# --- the event log ----------------------------------------------------------------


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    round: int
    phase: str
    kind: str
    data: Mapping[str, Any]
    text: str
    at: datetime | None = None


def _json(data: Mapping[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, default=_json_default)


def _json_default(obj):
    if isinstance(obj, (set, frozenset)):
        return sorted(obj)
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(obj)
    if hasattr(obj, "value"):  # enums
        return obj.value
    raise TypeError(f"{type(obj).__name__} is not JSON-serialisable")


def append_events(con: duckdb.DuckDBPyConnection, events: Iterable[Event], *, before: Snapshot | None = None) -> Snapshot:
    """Append ``events`` to the log and apply the state kinds to the tables; return the new snapshot.

    Call inside :func:`transaction`.  This is the only writer of the state
    tables and of ``events`` (insert only: the log is append-only).  ``before``:
    the stored tables, when the caller has just read them.
    """
    events = list(events)
    if before is None:
        before = read_snapshot(con)
    after = before.copy()
    start = con.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]
    at = datetime.now(timezone.utc).replace(tzinfo=None)
    rows = []
    for i, ev in enumerate(events):
        # Round-trip through JSON so the live path applies exactly what replay will read.
        data = json.loads(_json(ev.data))
        apply_event(after, ev.kind, data)
        rows.append((start + i + 1, int(ev.round), str(ev.phase), ev.kind, _json(data), ev.text, at))
    if rows:
        placeholders = ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * len(rows))
        run_sql(con, f"INSERT INTO events VALUES {placeholders}", [v for r in rows for v in r], name="state.append_events")
    _write_changed(con, before, after)
    return after


def load_events(con: duckdb.DuckDBPyConnection, *, round: int | None = None) -> list[StoredEvent]:
    """The event log in order, optionally one round's events only."""
    sql = "SELECT seq, round, phase, kind, data, text, \"at\" FROM events"
    params = None
    if round is not None:
        sql += " WHERE round = ?"
        params = [round]
    rows = run_sql(con, sql + " ORDER BY seq", params, name="state.load_events").fetchall()
    return [StoredEvent(seq, r, phase, kind, json.loads(data), text or "", at) for seq, r, phase, kind, data, text, at in rows]


# --- CampaignState <-> tables ----------------------------------------------------


def snapshot_state(snap: Snapshot) -> CampaignState:
    """The :class:`CampaignState` the snapshot's tables hold."""
    if snap.campaign("round") is None:
        raise InputError("the campaign has not been started: run `tabula round start CAMPAIGN.duckdb` first")
    armies = tuple(
        Army(id=i, faction=f, cell=c, strength=s, eliminated=bool(e)) for (i, f, c, s, e) in snap.rows("armies")
    )
    members: dict[str, list[int]] = {}
    for s, a in snap.rows("siege_armies"):
        members.setdefault(s, []).append(a)
    sieges = tuple(
        Siege(structure=s, faction=f, armies=tuple(sorted(members.get(s, []))), resilience=r, start_resilience=sr, started_round=sround)
        for (s, f, r, sr, sround) in snap.rows("sieges")
    )
    return CampaignState(
        round=int(snap.campaign("round")),
        phase=Phase(snap.campaign("phase")),
        armies=armies,
        control={s: c for s, c in snap.rows("control")},
        sieges=sieges,
        victory_points={f: v for f, v in snap.rows("victory_points")},
        seed=int(snap.campaign("seed", "0")),
        winner=snap.campaign("winner"),
    )


def load_state(con: duckdb.DuckDBPyConnection) -> CampaignState:
    """Read the current :class:`CampaignState` from the state tables."""
    _require_state(con)
    return snapshot_state(read_snapshot(con))


def state_events(before: Snapshot, state: CampaignState, *, round: int, phase: str, names=None) -> list[Event]:
    """The state-kind events that turn ``before`` into ``state`` (armies, control, sieges, VP, campaign keys).

    ``names`` (cell -> structure name) only improves the words of the log.
    """
    from tabula.engine.vae_victis.explain import describe

    out: list[Event] = []

    def emit(kind, data):
        ev = Event(round=round, phase=phase, kind=kind, data=data)
        out.append(Event(round=round, phase=phase, kind=kind, data=data, text=describe(ev, names)))

    old = snapshot_state(before) if before.campaign("round") is not None else None
    old_armies = {a.id: a for a in old.armies} if old else {}
    for a in sorted(state.armies, key=lambda a: a.id):
        prev = old_armies.get(a.id)
        if prev == a:
            continue
        data = {"army": a.id, "faction": a.faction, "cell": a.cell, "strength": int(a.strength), "eliminated": bool(a.eliminated)}
        if prev is not None:
            data["was"] = {"cell": prev.cell, "strength": int(prev.strength), "eliminated": bool(prev.eliminated)}
        emit("set_army", data)
    if old and {a.id for a in state.armies} < set(old_armies):
        missing = sorted(set(old_armies) - {a.id for a in state.armies})
        raise TabulaError(f"a rules step dropped armies {missing} from the state: armies are eliminated, never deleted")
    old_control = dict(old.control) if old else {}
    for s in sorted(state.control):
        if s not in old_control or old_control[s] != state.control[s]:
            data = {"structure": s, "controller": state.control[s]}
            if s in old_control:
                data["was"] = old_control[s]
            emit("set_control", data)
    old_sieges = {s.structure: s for s in old.sieges} if old else {}
    new_sieges = {s.structure: s for s in state.sieges}
    for s in sorted(old_sieges.keys() - new_sieges.keys()):
        emit("drop_siege", {"structure": s, "was": _siege_data(old_sieges[s])})
    for s in sorted(new_sieges):
        if _siege_data(new_sieges[s]) != (_siege_data(old_sieges[s]) if s in old_sieges else None):
            data = _siege_data(new_sieges[s])
            if s in old_sieges:
                data["was"] = _siege_data(old_sieges[s])
            emit("set_siege", data)
    old_vp = dict(old.victory_points) if old else {}
    for f in sorted(state.victory_points):
        if old_vp.get(f) != state.victory_points[f]:
            data = {"faction": f, "vp": int(state.victory_points[f])}
            if f in old_vp:
                data["was"] = int(old_vp[f])
            emit("set_vp", data)
    phase_value = state.phase.value if isinstance(state.phase, Phase) else str(state.phase)
    for key, value in (("round", str(state.round)), ("phase", phase_value), ("seed", str(state.seed)), ("winner", state.winner)):
        if before.campaign(key) != value:
            emit("set_campaign", {"key": key, "value": value, "was": before.campaign(key)})
    return out


def _siege_data(s: Siege) -> dict:
    return {
        "structure": s.structure,
        "faction": s.faction,
        "resilience": int(s.resilience),
        "start_resilience": int(s.start_resilience),
        "started_round": int(s.started_round),
        "armies": sorted(int(a) for a in s.armies),
    }


def save_state(con: duckdb.DuckDBPyConnection, state: CampaignState, *, events: Iterable[Event] = (), phase: str | None = None, names=None) -> Snapshot:
    """Record ``events`` (the rules' explanations) and the changes that lead to ``state``.

    The changes are derived by diffing the stored tables with ``state`` and are
    appended as state-kind events, so the tables only ever change through the log.
    Call inside :func:`transaction`.
    """
    events = list(events)
    for ev in events:
        if ev.kind in STATE_KINDS:
            raise TabulaError(f"a rules module emitted an event of the reserved kind {ev.kind!r}")
    before = read_snapshot(con)
    rnd = int(before.campaign("round") or state.round)
    ph = phase or before.campaign("phase") or state.phase
    ph = ph.value if isinstance(ph, Phase) else str(ph)
    return append_events(con, events + state_events(before, state, round=rnd, phase=ph, names=names), before=before)


# --- starting a campaign from its scenario ---------------------------------------------


def _scenario_start_fp(con, tables: set[str]) -> int:
    if "scenario_meta" not in tables:
        return START_FP
    rows = dict(con.execute("SELECT lower(key), value FROM scenario_meta").fetchall())
    for key in ("start_fp", "start fp", "start_strength", "strength"):
        if rows.get(key) not in (None, ""):
            try:
                return int(rows[key])
            except ValueError:
                raise InputError(f"scenario_meta {key} = {rows[key]!r} is not a whole number of FP: fix the scenario") from None
    return START_FP


def scenario_snapshot(con: duckdb.DuckDBPyConnection, *, seed: int) -> Snapshot:
    """The state at the start of the campaign, straight from the scenario tables.

    Placements give the armies (all at the scenario's start FP, 1600 by the
    rules); ``structures.controller`` gives control; every faction starts at 0 VP;
    round 1, phase orders, stage initiative.  Placement rules are checked: an
    army starts in one of its faction's controlled towns/cities, at most one
    army of a faction per structure.
    """
    tables = existing_tables(con)
    for needed in ("placements", "structures", "factions"):
        if needed not in tables:
            raise InputError(
                f"the campaign database has no `{needed}` table: create it with `tabula campaign new` before starting"
            )
    start_fp = _scenario_start_fp(con, tables)
    structures = {
        name: (cell, controller)
        for name, cell, controller in con.execute("SELECT name, cell, controller FROM structures").fetchall()
    }
    factions = [r[0] for r in con.execute("SELECT name FROM factions ORDER BY name").fetchall()]
    snap = Snapshot()
    seen: set[tuple[str, str]] = set()
    placements = con.execute("SELECT army, faction, structure, cell FROM placements ORDER BY army").fetchall()
    if not placements:
        raise InputError("the `placements` table is empty: place every army in a controlled town or city first")
    for army, faction, structure, cell in placements:
        if army is None:
            raise InputError(f"a placement at {structure!r} has no army number: number every army")
        if (int(army),) in snap.tables["armies"]:
            raise InputError(f"army {army} is placed twice in `placements`: keep one row per army")
        if faction not in factions:
            raise InputError(f"army {army} belongs to unknown faction {faction!r}: use one of {', '.join(factions)}")
        if structure is not None:
            if structure not in structures:
                raise InputError(f"army {army} is placed in unknown structure {structure!r}: name a town or city of `structures`")
            s_cell, controller = structures[structure]
            if controller != faction:
                raise InputError(
                    f"army {army} ({faction}) is placed in {structure}, controlled by {controller or 'nobody'}: "
                    f"place it in a town or city {faction} controls"
                )
            if (faction, structure) in seen:
                raise InputError(f"army {army} is a second {faction} army in {structure}: one army per faction per starting point")
            seen.add((faction, structure))
            cell = cell or s_cell
            if cell != s_cell:
                raise InputError(f"army {army} is placed in {structure} but at cell {cell}, not the structure's cell {s_cell}: fix `placements`")
        if cell is None:
            raise InputError(f"army {army} has neither a structure nor a cell in `placements`: give one")
        snap.tables["armies"][(int(army),)] = (int(army), faction, cell, start_fp, False)
    for name in structures:
        snap.tables["control"][(name,)] = (name, structures[name][1])
    for f in factions:
        snap.tables["victory_points"][(f,)] = (f, 0)
    for key, value in (("round", "1"), ("phase", Phase.ORDERS.value), ("stage", "initiative"), ("seed", str(int(seed)))):
        snap.tables["campaign"][(key,)] = (key, value)
    return snap


def initial_events(con: duckdb.DuckDBPyConnection, *, seed: int, names=None) -> list[Event]:
    """The events that set up the campaign: the placements, starting control and VP, round 1."""
    from tabula.engine.vae_victis.explain import describe

    snap = scenario_snapshot(con, seed=seed)
    events: list[Event] = []

    def emit(kind, data):
        ev = Event(round=1, phase="setup", kind=kind, data=data)
        events.append(Event(round=1, phase="setup", kind=kind, data=data, text=describe(ev, names)))

    emit("campaign_started", {"seed": int(seed), "armies": len(snap.tables["armies"])})
    for key in ("seed", "round", "phase", "stage"):
        emit("set_campaign", {"key": key, "value": snap.campaign(key)})
    for army, faction, cell, strength, eliminated in snap.rows("armies"):
        emit("set_army", {"army": army, "faction": faction, "cell": cell, "strength": strength, "eliminated": eliminated})
    for structure, controller in snap.rows("control"):
        emit("set_control", {"structure": structure, "controller": controller})
    for faction, vp in snap.rows("victory_points"):
        emit("set_vp", {"faction": faction, "vp": vp})
    return events


def structure_names(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """cell -> structure name, for the words of the log (empty when there are no structures)."""
    if "structures" not in existing_tables(con):
        return {}
    return {cell: name for name, cell in con.execute("SELECT name, cell FROM structures").fetchall()}


def init_campaign(con: duckdb.DuckDBPyConnection, *, seed: int | None = None) -> CampaignState:
    """Create the state tables and record the starting state from the scenario, in one transaction.

    Refuses a campaign that has already started (its log would be rewritten).
    ``seed`` defaults to :data:`engine.rng.DEFAULT_SEED`.
    """
    if has_state(con):
        raise InputError("the campaign has already started: its event log is kept; use `tabula round status`")
    seed = rng.DEFAULT_SEED if seed is None else int(seed)
    with transaction(con):
        create_state_tables(con)
        append_events(con, initial_events(con, seed=seed, names=structure_names(con)))
        install_rules_views(con)
    return load_state(con)


#: The map and scenario tables the logistics SQL is built from (engine/sql/logistics/).
LOGISTICS_INPUTS = frozenset({"hexes", "hex_neighbors", "road_edges", "river_cells", "structures", "factions"})


def install_rules_views(con: duckdb.DuckDBPyConnection) -> bool:
    """Build the rules views in the campaign database (once: they are kept): the zones of
    control (``zoc``, ``army_zoc``, ``structure_zoc``) and the logistics tables and views,
    so the umpire can query them by name and every step reuses them.

    Skipped (returns False) for a database without the map and scenario tables they need.
    """
    if not LOGISTICS_INPUTS <= existing_tables(con):
        return False
    from tabula.engine.vae_victis.logistics import compute_logistics, ensure_logistics
    from tabula.engine.vae_victis.zoc import install_zoc_views

    install_zoc_views(con)
    ensure_logistics(con)
    compute_logistics(con)  # writes army_logistics_distance for the starting positions
    return True


# --- replay -------------------------------------------------------------------------


def replay_snapshot(con: duckdb.DuckDBPyConnection, events: Iterable[StoredEvent] | None = None) -> Snapshot:
    """Fold the whole event log (``events`` when already loaded) over empty tables."""
    snap = Snapshot()
    for ev in load_events(con) if events is None else events:
        apply_event(snap, ev.kind, ev.data)
    return snap


def replay(con: duckdb.DuckDBPyConnection) -> CampaignState:
    """The :class:`CampaignState` the event log replays to (checked by :func:`verify_replay`)."""
    _require_state(con)
    return snapshot_state(replay_snapshot(con))


def verify_replay(con: duckdb.DuckDBPyConnection) -> Snapshot:
    """Raise :class:`ReplayMismatch` unless replaying the log reproduces every state table exactly.

    Also checks that the log is gap-free (seq 1..n), and that its set-up events
    reproduce the scenario (placements, starting control), so the replay really
    starts from the scenario and not from whatever the first events say.
    """
    _require_state(con)
    events = load_events(con)
    if [ev.seq for ev in events] != list(range(1, len(events) + 1)):
        raise ReplayMismatch("the event log has gaps or duplicates in seq: it has been edited, not appended to")
    setup = Snapshot()
    for ev in events:
        if ev.phase != "setup":
            break
        apply_event(setup, ev.kind, ev.data)
    seed = int(setup.campaign("seed", str(rng.DEFAULT_SEED)))
    expected_setup = scenario_snapshot(con, seed=seed)
    problems = _diff_snapshots(expected_setup, setup, left="scenario", right="set-up events")
    replayed = replay_snapshot(con, events)
    stored = read_snapshot(con)
    problems += _diff_snapshots(replayed, stored, left="replayed log", right="stored tables")
    if problems:
        raise ReplayMismatch("; ".join(problems[:10]) + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""))
    return replayed


def _diff_snapshots(a: Snapshot, b: Snapshot, *, left: str, right: str) -> list[str]:
    problems = []
    for table in STATE_TABLES:
        ra, rb = a.tables[table], b.tables[table]
        if ra == rb:
            continue
        for key in sorted(ra.keys() | rb.keys(), key=_sort_key):
            if ra.get(key) != rb.get(key):
                problems.append(f"{table} {key}: {left} has {ra.get(key)}, {right} has {rb.get(key)}")
    return problems
