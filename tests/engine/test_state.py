"""State tables, the append-only event log, transactions and replay, on synthetic campaigns."""

from __future__ import annotations

import dataclasses

import pytest

from bellica.engine.core import state as st
from bellica.engine.core.campaign import Campaign
from bellica.engine.core.ruleset import get_ruleset
from bellica.engine.vae_victis.model import Event, Phase, Siege
from bellica.engine.vae_victis.state import load_state, replay, save_state
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import connect
from tests.engine.boards import sketch, write_campaign_tables

STRUCTURES = [
    ("Roma", "city", "", "roma", True),
    ("Ostia", "town", "9 9", "roma"),
    ("Capua", "city", "3 3", "carthago"),
    ("Neapolis", "town", "5 5", "syracusae"),
    ("Cumae", "town", "1 1", None),
]


def campaign_map():
    return sketch(radius=4, structures=STRUCTURES)


def make_campaign(path=None, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), m=None):
    """A Vae Victis II campaign (map + scenario tables + placements, in memory unless ``path``),
    not yet started, as a Campaign owning its connection."""
    m = m or campaign_map()
    con = connect(path)
    write_campaign_tables(con, m.board)
    con.execute("CREATE TABLE placements (army INTEGER, faction VARCHAR, structure VARCHAR, cell VARCHAR)")
    for army, faction, structure in placements:
        cell = m.board.structures[structure].cell if structure in m.board.structures else None
        con.execute("INSERT INTO placements VALUES (?, ?, ?, ?)", [army, faction, structure, cell])
    return Campaign(con, get_ruleset("vae-victis-ii")), m


def table(c, name, order):
    return c.con.execute(f"SELECT * FROM {name} ORDER BY {order}").fetchall()


def test_start_from_scenario():
    c, m = make_campaign()
    c.start(seed=42)
    s = load_state(c)
    assert s.round == 1 and s.phase is Phase.ORDERS and s.seed == 42
    assert [(a.id, a.faction, a.cell, a.strength, a.eliminated) for a in s.armies] == [
        (1, "carthago", m.cell("3 3"), 1600, False),
        (9, "roma", m.cell(""), 1600, False),
        (10, "roma", m.cell("9 9"), 1600, False),
    ]
    assert s.control == {"Roma": "roma", "Ostia": "roma", "Capua": "carthago", "Neapolis": "syracusae", "Cumae": None}
    assert s.victory_points == {"carthago": 0, "roma": 0, "syracusae": 0}
    assert dict(table(c, "campaign", "key"))["stage"] == "initiative"
    c.verify()
    # The placements are in the log in words.
    texts = [e.text for e in c.events()]
    assert "army 1 (carthago) placed at Capua with 1600 FP" in texts
    assert load_state(c) == replay(c) == s


def test_start_refuses_a_started_campaign():
    c, _ = make_campaign()
    c.start()
    n = c.con.execute("SELECT count(*) FROM events").fetchone()[0]
    with pytest.raises(InputError, match="already started"):
        c.start()
    assert c.con.execute("SELECT count(*) FROM events").fetchone()[0] == n


@pytest.mark.parametrize(
    "placements, message",
    [
        (((1, "carthago", "Roma"),), "controlled by roma: place it in a town or city carthago controls"),
        (((9, "roma", "Roma"), (10, "roma", "Roma")), "second roma army in Roma"),
        (((9, "roma", "Roma"), (9, "roma", "Ostia")), "army 9 is placed twice"),
        (((9, "gallia", "Roma"),), "unknown faction 'gallia'"),
        (((9, "roma", "Veii"),), "unknown structure 'Veii'"),
        ((), "`placements` table is empty"),
    ],
)
def test_bad_placements_write_nothing(placements, message):
    c, _ = make_campaign(placements=placements)
    with pytest.raises(InputError, match=message):
        c.start()
    assert not c.has_state()


def test_save_state_records_every_change_as_events_and_replays():
    c, m = make_campaign()
    c.start(seed=7)
    s = load_state(c)
    moved = tuple(
        dataclasses.replace(a, cell=m.cell("3 3 3"), strength=1530) if a.id == 1 else a for a in s.armies
    )
    new = dataclasses.replace(
        s,
        phase=Phase.BATTLES,
        armies=moved,
        control={**s.control, "Cumae": "roma"},
        sieges=(Siege("Neapolis", "roma", (9, 10), 2, 3, 1),),  # armies sorted: the tables keep no order
        victory_points={**s.victory_points, "roma": 3},
    )
    rules_event = Event(1, "movement", "halted", {"army": 1}, "army 1 halts entering the ZoC of army 9")
    with c.transaction():
        save_state(c, new, events=[rules_event], names={m.cell("3 3"): "Capua"})
    assert load_state(c) == new
    assert table(c, "siege_armies", "army") == [("Neapolis", 9), ("Neapolis", 10)]
    assert table(c, "sieges", "structure") == [("Neapolis", "roma", 2, 3, 1)]
    texts = [e.text for e in c.events()]
    assert "army 1 halts entering the ZoC of army 9" in texts
    assert f"army 1 (carthago) moves from Capua to {m.cell('3 3 3')}; army 1 (carthago) strength 1600 - 70 = 1530 FP" in texts
    assert "Cumae passes from nobody to roma" in texts
    assert "roma +3 VP, now 3" in texts
    c.verify()
    # Lifting the siege is an event too.
    with c.transaction():
        save_state(c, dataclasses.replace(new, sieges=()))
    assert table(c, "siege_armies", "army") == []
    c.verify()
    assert replay(c) == dataclasses.replace(new, sieges=())


def test_rules_events_may_not_use_state_kinds():
    c, _ = make_campaign()
    c.start()
    s = load_state(c)
    n = c.con.execute("SELECT count(*) FROM events").fetchone()[0]
    with pytest.raises(st.BellicaError, match="reserved kind 'set_army'"):
        with c.transaction():
            save_state(c, s, events=[Event(1, "movement", "set_army", {"army": 1})])
    assert c.con.execute("SELECT count(*) FROM events").fetchone()[0] == n


def test_dropping_an_army_is_refused():
    c, _ = make_campaign()
    c.start()
    s = load_state(c)
    with pytest.raises(st.BellicaError, match="dropped armies"):
        with c.transaction():
            save_state(c, dataclasses.replace(s, armies=s.armies[1:]))
    assert len(load_state(c).armies) == 3


def test_transaction_rolls_back_everything_on_error():
    c, m = make_campaign()
    c.start()
    before = c.snapshot()
    n = c.con.execute("SELECT count(*) FROM events").fetchone()[0]
    s = load_state(c)
    with pytest.raises(RuntimeError):
        with c.transaction():
            save_state(c, dataclasses.replace(s, armies=tuple(dataclasses.replace(a, strength=1) for a in s.armies)))
            raise RuntimeError("crash half-way")
    assert c.snapshot() == before
    assert c.con.execute("SELECT count(*) FROM events").fetchone()[0] == n


def test_tampered_tables_fail_the_replay():
    c, _ = make_campaign()
    c.start()
    c.con.execute("UPDATE armies SET strength = 1400 WHERE id = 9")
    with pytest.raises(st.ReplayMismatch, match=r"armies \(9,\): replayed log has \(9, 'roma', '.*', 1600, False\), stored tables has \(9, 'roma', '.*', 1400, False\)"):
        c.verify()


def test_edited_log_fails_the_replay():
    c, _ = make_campaign()
    c.start()
    c.con.execute("DELETE FROM events WHERE seq = 3")
    with pytest.raises(st.ReplayMismatch, match="gaps"):
        c.verify()


def test_setup_events_must_match_the_scenario():
    c, _ = make_campaign()
    c.start()
    # Someone edits the scenario after the start: the log no longer replays *from the scenario*.
    c.con.execute("UPDATE structures SET controller = 'roma' WHERE name = 'Cumae'")
    with pytest.raises(st.ReplayMismatch, match=r"control \('Cumae',\): scenario has \('Cumae', 'roma'\)"):
        c.verify()


def test_orders_engagements_results_notes_replay():
    c, _ = make_campaign()
    c.start()
    events = [
        Event(1, "orders", "put_orders", {"round": 1, "army": 9, "moves": "3 3 0", "initiative": "strength", "lift_siege": False, "assault": None, "transfers": [{"to_army": 10, "fp": 50}]}),
        Event(1, "movement", "put_engagement", {"round": 1, "battle": 1, "engagement": 1, "army_a": 1, "army_b": 9, "assault": None}),
        Event(1, "battles", "put_result", {"round": 1, "engagement": 1, "army": 9, "outcome": "win", "casualties": 30}),
        Event(1, "movement", "put_note", {"round": 1, "key": "mp_spent", "value": {"1": 6, "9": 12}}),
    ]
    with c.transaction():
        c.append(events)
    assert table(c, "orders", "army") == [(1, 9, "3 3 0", "strength", False, None, '[{"fp": 50, "to_army": 10}]', "[]")]
    assert table(c, "engagements", "engagement") == [(1, 1, 1, 1, 9, None)]
    assert table(c, "engagement_results", "army") == [(1, 1, 9, "win", 30)]
    assert table(c, "round_notes", "key") == [(1, "mp_spent", '{"1": 6, "9": 12}')]
    c.verify()


def test_state_survives_reopening_the_file(tmp_path):
    path = tmp_path / "c.duckdb"
    c, _ = make_campaign(path)
    c.start(seed=5)
    expected = load_state(c)
    c.close()
    c = Campaign.open(path)
    assert load_state(c) == expected
    c.verify()


# --- property: whatever the rules do to the state, the tables equal the replayed log -------------

from hypothesis import HealthCheck, given, settings, strategies as hs  # noqa: E402


@pytest.fixture(scope="module")
def property_campaign():
    c, m = make_campaign()
    c.start(seed=1)
    cells = sorted(m.board.hexes)
    return c, cells


_change = hs.tuples(
    hs.sampled_from([1, 9, 10]),  # army
    hs.integers(0, 60),  # cell index
    hs.integers(-200, 1600),  # strength
    hs.booleans(),  # eliminated
    hs.sampled_from(["Roma", "Ostia", "Capua", "Neapolis", "Cumae"]),
    hs.sampled_from([None, "roma", "carthago", "syracusae"]),
    hs.booleans(),  # a siege of the structure
    hs.integers(-5, 50),  # VP
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=hs.lists(_change, min_size=1, max_size=4))
def test_any_sequence_of_saved_states_replays_exactly(property_campaign, changes):
    c, cells = property_campaign
    for army, cell_i, strength, eliminated, structure, controller, siege, vp in changes:
        s = load_state(c)
        armies = tuple(
            dataclasses.replace(a, cell=None if eliminated else cells[cell_i % len(cells)], strength=strength, eliminated=eliminated)
            if a.id == army else a
            for a in s.armies
        )
        sieges = tuple(x for x in s.sieges if x.structure != structure)
        if siege:
            sieges += (Siege(structure, "roma", (9, 10), 2, 3, s.round),)
        new = dataclasses.replace(
            # The tables keep sieges in structure order (and armies in id order, as the model says).
            s, armies=armies, control={**s.control, structure: controller}, sieges=tuple(sorted(sieges, key=lambda x: x.structure)),
            victory_points={**s.victory_points, "roma": vp},
        )
        with c.transaction():
            save_state(c, new)
        assert load_state(c) == new
    c.verify()
