"""The seam between the core and a ruleset, proven by a second ruleset written only here.

"Race" is a two-faction game on a track of six nodes: each round both factions give,
sealed, how many nodes their runner advances (1-3); the ``run`` step moves both, plus
a seeded draw of 0 or 1 node each (recorded in the log, so a replay never draws), and
the first runner on the last node wins.  It has its own state tables, one reducer of
its own (``advance``) beside the core's generic ``put_row``, its own Board read from
the campaign file, its phases and steps, and sealed orders; it imports nothing of
Vae Victis II, and the core creates, steps, logs, replays, verifies and re-adjudicates
its campaigns.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Mapping, Sequence

import pytest

from bellica.engine.core import rng
from bellica.engine.core import state as st
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.events import Event, StoredEvent
from bellica.engine.core.machine import Step, StepRefused, position_of
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.ruleset import Ruleset, get_ruleset, register
from bellica.engine.core.sealed import ALL, OrderSeal, log_view
from bellica.engine.core.tables import Snapshot
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import connect

FACTIONS = ("blue", "red")


def _advance(snap: Snapshot, d: Mapping[str, Any]) -> None:
    faction, by = d["faction"], int(d["by"])
    _f, position = snap.tables["runners"][(faction,)]
    snap.tables["runners"][(faction,)] = (faction, position + by)


def _orders_of(snap: Snapshot, rnd: int) -> dict[str, int]:
    return {k[1]: row[2] for k, row in snap.tables["race_orders"].items() if k[0] == rnd}


def _opened(rnd: int, snap: Snapshot):
    # A round's orders open once both factions have given theirs.
    return ALL if set(_orders_of(snap, rnd)) == set(FACTIONS) else frozenset()


RACE_SEAL = OrderSeal(
    is_order=lambda kind, d: kind == "put_row" and d["table"] == "race_orders",
    round=lambda d: int(d["row"]["round"]),
    owner=lambda d, snap: d["row"]["faction"],
    carried=lambda d: frozenset({"steps"}),
    opened=lambda rnd, snap: _opened(rnd, snap),
    public=lambda d: {"faction": d["row"]["faction"]},
    text=lambda d: f"{d['row']['faction']} gave its orders (sealed)",
)


class Race(Ruleset):
    name = "race"
    state_sql = """
        CREATE TABLE runners (faction VARCHAR PRIMARY KEY, position INTEGER);
        CREATE TABLE race_orders (round INTEGER, faction VARCHAR, steps INTEGER, PRIMARY KEY (round, faction));
    """
    reducers = {"advance": _advance}
    steps = (
        Step("order", "take orders", "orders"),
        Step("run", "run the race", "orders"),
    )
    order_seal = RACE_SEAL
    closed_boards: list = []

    def load_board(self, campaign):
        return tuple(r[0] for r in campaign.con.execute("SELECT node FROM track ORDER BY node").fetchall())

    def close_board(self, board):
        self.closed_boards.append(board)

    def start_snapshot(self, campaign, *, seed):
        snap = self.schema.empty()
        for key, value in (("round", "1"), ("phase", "orders"), ("seed", str(seed))):
            snap.tables["campaign"][(key,)] = (key, value)
        for f in self.factions(campaign):
            snap.tables["runners"][(f,)] = (f, 0)
        return snap

    def next_step(self, campaign, snap):
        missing = sorted(set(FACTIONS) - set(_orders_of(snap, position_of(snap).round)))
        return f"orders from {', '.join(missing)}" if missing else "run the race"

    def recorded_steps(self, events: Sequence[StoredEvent]):
        steps = []
        for e in events:
            if e.kind == "put_row" and e.data["table"] == "race_orders":
                steps.append(("order", (e.data["row"]["faction"], e.data["row"]["steps"])))
            elif e.kind == "race_run":
                steps.append(("run", None))
        return steps

    def run_step(self, campaign, name, arg):
        return order(campaign, *arg) if name == "order" else run(campaign)


RACE = register(Race())


def order(c: Campaign, faction: str, steps: int) -> list[Event]:
    with c.transaction():
        snap = c.snapshot()
        c.ruleset.require(c, snap, "order")
        if not 1 <= steps <= 3:
            raise InputError(f"{faction}: {steps} nodes; give 1 to 3")
        rnd = position_of(snap).round
        ev = Event(rnd, "orders", "put_row", {"table": "race_orders", "row": {"round": rnd, "faction": faction, "steps": steps}},
                   f"{faction} orders {steps}")
        c.append([ev], before=snap)
    return [ev]


def run(c: Campaign) -> list[Event]:
    with c.transaction():
        snap = c.snapshot()
        c.ruleset.require(c, snap, "run")
        pos = position_of(snap)
        orders = _orders_of(snap, pos.round)
        if set(orders) != set(FACTIONS):
            raise StepRefused(f"cannot run the race: {c.ruleset.next_step(c, snap)}")
        finish = c.board[-1]
        events = [Event(pos.round, "run", "race_run", {"round": pos.round}, f"round {pos.round}: they run")]
        winner = None
        for f in FACTIONS:
            luck = rng.stream(c.seed(), "race", pos.round, f).randint(0, 1)
            events.append(Event(pos.round, "run", "advance", {"faction": f, "by": orders[f] + luck, "luck": luck},
                                f"{f} runs {orders[f]} + {luck}"))
            if snap.tables["runners"][(f,)][1] + orders[f] + luck >= finish and winner is None:
                winner = f
        if winner:
            events.append(Event(pos.round, "run", "set_campaign", {"key": "winner", "value": winner}, f"{winner} wins"))
        else:
            events.append(Event(pos.round, "run", "set_campaign", {"key": "round", "value": pos.round + 1}, "next round"))
        c.append(events, before=snap)
    return events


@pytest.fixture
def race_file(tmp_path):
    """A race campaign file: its track, its factions, and the ruleset it records."""
    path = tmp_path / "race.duckdb"
    con = connect(path)
    con.execute("CREATE TABLE track AS SELECT range AS node FROM range(6)")
    con.execute("CREATE TABLE factions (name VARCHAR)")
    con.executemany("INSERT INTO factions VALUES (?)", [(f,) for f in FACTIONS])
    con.execute("CREATE TABLE scenario_meta (key VARCHAR, value VARCHAR)")
    con.execute("INSERT INTO scenario_meta VALUES ('ruleset', 'race')")
    con.close()
    return path


def test_a_second_ruleset_is_created_stepped_logged_replayed_and_verified(race_file):
    with Campaign.open(race_file) as c:
        assert c.ruleset is RACE and c.board == (0, 1, 2, 3, 4, 5)
        c.start(seed=7)
        assert c.snapshot().rows("runners") == [("blue", 0), ("red", 0)]
        with pytest.raises(StepRefused, match="cannot run the race: orders from blue, red"):
            run(c)
        order(c, "blue", 3)
        # Sealed: neither red nor the umpire reads blue's orders until both have given theirs; blue does.
        red_view = [line for line in log_view(c, viewer="red") if line.event.kind == "put_row"]
        assert red_view[-1].sealed and red_view[-1].text == "blue gave its orders (sealed)" and "steps" not in str(red_view[-1].data)
        assert [line for line in log_view(c, viewer=None) if line.sealed]
        assert not [line for line in log_view(c, viewer="blue") if line.sealed]
        order(c, "red", 2)
        assert not [line for line in log_view(c, viewer="red") if line.sealed]
        assert not [line for line in log_view(c, viewer=None) if line.sealed]
        rounds = 0
        while position_of(c.snapshot()).winner is None:
            if rounds:
                order(c, "blue", 3)
                order(c, "red", 2)
            run(c)
            rounds += 1
        snap = c.snapshot()
        winner = position_of(snap).winner
        assert winner == "blue" and rounds == 2  # 3 + 3 + luck >= 5 before red's 2 + 2 + luck
        with pytest.raises(StepRefused, match="cannot take orders: the campaign is over, blue won in round 2"):
            order(c, "red", 1)
        # The log is the truth: replaying it gives every table, and the draws are in it.
        assert c.verify().rows("runners") == snap.rows("runners")
        lucks = [e.data["luck"] for e in c.events() if e.kind == "advance"]
        assert lucks == [rng.stream(7, "race", r, f).randint(0, 1) for r in (1, 2) for f in FACTIONS]
        n_events = len(c.events())
    assert RACE.closed_boards[-1] == (0, 1, 2, 3, 4, 5)  # the Campaign closed its Board
    # Re-adjudication re-runs the 6 recorded steps from the start and gets the same log.
    assert readjudicate(race_file) == 6
    with Campaign.open(race_file) as c:
        assert len(c.events()) == n_events
        c.con.execute("UPDATE runners SET position = 1 WHERE faction = 'red'")
        with pytest.raises(st.ReplayMismatch, match=r"runners \('red',\): replayed log has \('red', \d+\), stored tables has \('red', 1\)"):
            c.verify()


def test_an_unknown_ruleset_is_named(race_file):
    con = connect(race_file)
    con.execute("UPDATE scenario_meta SET value = 'chess' WHERE key = 'ruleset'")
    con.close()
    with pytest.raises(InputError, match="unknown ruleset 'chess' in scenario_meta: use one of .*race.*vae-victis-ii"):
        Campaign.open(race_file)
    assert get_ruleset(None).name == "vae-victis-ii"  # a file that records none is Vae Victis II


def test_the_core_imports_no_ruleset():
    # The core alone (a fresh interpreter): nothing of Vae Victis II is loaded by it.
    code = (
        "import sys, bellica.engine.core.campaign, bellica.engine.core.readjudicate, bellica.engine.core.sealed; "
        "print(sorted(m for m in sys.modules if m.startswith('bellica.engine.vae_victis')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_state_table_names_its_key():
    from bellica.engine.core.tables import tables_from_sql
    from bellica.geo.errors import BellicaError

    (runners,) = tables_from_sql("CREATE TABLE runners (faction VARCHAR PRIMARY KEY, position INTEGER);")
    assert (runners.columns, runners.key) == ((("faction", "VARCHAR"), ("position", "INTEGER")), ("faction",))
    assert runners.create.startswith('CREATE TABLE IF NOT EXISTS "runners"')
    with pytest.raises(BellicaError, match="state table runners has no PRIMARY KEY: name the columns that key its rows"):
        tables_from_sql("CREATE TABLE runners (faction VARCHAR, position INTEGER);")
