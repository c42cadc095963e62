"""The naval state tables: naval_superiority, sea_links, navy_rest and the orders' sea_links
column, their state kinds, and replay (events -> tables -> the same CampaignState)."""

from __future__ import annotations

import json
from dataclasses import replace

from bellica.engine.vae_victis.model import ArmyOrders, Event
from bellica.engine.vae_victis.rounds.orders_step import orders_data, row_to_orders
from bellica.engine.vae_victis.state import REDUCERS, load_state, replay, save_state
from tests.engine.test_sea_logistics import SARDOUM, TUSCUM, islands
from tests.engine.test_state import make_campaign, table

FACTIONS = ("carthago", "roma", "syracusae")


def started():
    c, m = make_campaign(m=islands(), placements=((1, "carthago", "Carthago"), (2, "carthago", "Olbia")))
    c.start(seed=7)
    return c, m


def test_the_start_holds_the_base_level_everywhere_and_the_default_sea_links():
    c, _m = started()
    base = c.rules.naval.superiority_base
    # Seed, "Naval superiority": "The faction's Naval Superiority level in each sea zone equals 2; plus ..."
    assert base == 2
    assert table(c, "naval_superiority", "zone, faction") == [(z, f, base) for z in (SARDOUM, TUSCUM) for f in FACTIONS]
    # Nobody has written orders: the default rule's links (see test_sea_logistics).
    assert table(c, "sea_links", "faction, zone, rank") == [
        ("carthago", SARDOUM, "Caralis", 1),
        ("carthago", TUSCUM, "Alalia", 1),
    ]
    assert table(c, "navy_rest", "army") == []
    s = load_state(c)
    assert s.superiority == {z: {f: base for f in FACTIONS} for z in (SARDOUM, TUSCUM)}
    assert s.sea_links == {"carthago": {SARDOUM: ("Caralis",), TUSCUM: ("Alalia",)}}
    assert s.navy_rest == {}
    texts = [e.text for e in c.events() if e.kind in ("set_superiority", "set_sea_links")]
    assert "carthago starts with naval superiority 2 in Mare Sardoum" in texts
    assert "carthago's sea-zone logistics across Mare Sardoum start at Caralis" in texts
    c.verify()
    assert replay(c) == s
    # The supplied structures on the campaign database follow the links in force.
    got = {r[0] for r in c.con.execute("SELECT structure FROM supplied_structures WHERE faction = 'carthago'").fetchall()}
    assert got == {"Carthago", "Caralis", "Olbia", "Alalia"}


def test_changes_are_logged_and_replay_to_the_same_tables():
    c, _m = started()
    s = load_state(c)
    new = replace(
        s,
        superiority={SARDOUM: {"carthago": 3, "roma": 1, "syracusae": 0}, TUSCUM: dict(s.superiority[TUSCUM])},
        sea_links={"carthago": {SARDOUM: ("Olbia", "Caralis")}, "roma": {TUSCUM: ("Alalia",)}},
        navy_rest={2: 3},
    )
    with c.transaction():
        snap = save_state(c, new, phase="movement")
    events = [e for e in c.events() if e.phase == "movement"]
    kinds = [(e.kind, e.data) for e in events]
    assert ("set_superiority", {"zone": SARDOUM, "faction": "carthago", "level": 3, "was": 2}) in kinds
    assert ("set_superiority", {"zone": SARDOUM, "faction": "syracusae", "level": 0, "was": 2}) in kinds
    assert ("set_sea_links", {"faction": "carthago", "zone": SARDOUM, "structures": ["Olbia", "Caralis"], "was": ["Caralis"]}) in kinds
    assert ("set_sea_links", {"faction": "carthago", "zone": TUSCUM, "structures": [], "was": ["Alalia"]}) in kinds
    assert ("set_sea_links", {"faction": "roma", "zone": TUSCUM, "structures": ["Alalia"]}) in kinds
    assert ("set_navy_rest", {"army": 2, "until_round": 3}) in kinds
    assert not any(e.kind == "set_superiority" and e.data["zone"] == TUSCUM for e in events)  # unchanged
    assert "army 2 may not act as a navy until after round 3" in [e.text for e in events]
    assert table(c, "sea_links", "faction, zone, rank") == [
        ("carthago", SARDOUM, "Olbia", 1),
        ("carthago", SARDOUM, "Caralis", 2),
        ("roma", TUSCUM, "Alalia", 1),
    ]
    assert table(c, "navy_rest", "army") == [(2, 3)]
    c.verify()
    assert load_state(c) == replay(c) == new
    assert snap.tables["naval_superiority"][(SARDOUM, "carthago")] == (SARDOUM, "carthago", 3)

    # Dropping: a zone read as the base again, links ended, the rest over.
    later = replace(new, superiority={TUSCUM: dict(s.superiority[TUSCUM])}, sea_links={}, navy_rest={})
    with c.transaction():
        save_state(c, later, phase="administration")
    assert table(c, "naval_superiority", "zone, faction") == [(TUSCUM, f, 2) for f in FACTIONS]
    assert table(c, "sea_links", "faction") == [] and table(c, "navy_rest", "army") == []
    dropped = [e for e in c.events() if e.phase == "administration"]
    assert ("set_navy_rest", {"army": 2, "until_round": None, "was": 3}) in [(e.kind, e.data) for e in dropped]
    c.verify()
    assert load_state(c) == replay(c) == later


def test_put_orders_carries_the_sea_links():
    c, _m = started()
    o = ArmyOrders(2, moves=(3,), sea_links=((TUSCUM, "Alalia"), (SARDOUM, "Caralis")))
    data = orders_data(1, o, moves_given=True, source="orders")
    assert data["sea_links"] == [[TUSCUM, "Alalia"], [SARDOUM, "Caralis"]]
    with c.transaction():
        c.append([Event(1, "orders", "put_orders", data)])
    (row,) = table(c, "orders", "army")
    assert json.loads(row[-1]) == [[TUSCUM, "Alalia"], [SARDOUM, "Caralis"]]
    assert row_to_orders(row) == o
    c.verify()
    # Orders without sea links store "[]".
    with c.transaction():
        c.append([Event(1, "orders", "put_orders", orders_data(1, ArmyOrders(1), moves_given=False, source="default"))])
    assert table(c, "orders", "army")[0][-1] == "[]"
    assert row_to_orders(table(c, "orders", "army")[0]).sea_links == ()


def test_set_sea_links_replaces_that_faction_and_zone_only():
    c, _m = started()
    snap = c.snapshot()
    REDUCERS["set_sea_links"](snap, {"faction": "roma", "zone": SARDOUM, "structures": ["Caralis", "Olbia"]})
    REDUCERS["set_sea_links"](snap, {"faction": "carthago", "zone": SARDOUM, "structures": ["Olbia"]})
    assert snap.rows("sea_links") == [
        ("carthago", SARDOUM, "Olbia", 1),
        ("carthago", TUSCUM, "Alalia", 1),
        ("roma", SARDOUM, "Caralis", 1),
        ("roma", SARDOUM, "Olbia", 2),
    ]
    REDUCERS["set_sea_links"](snap, {"faction": "roma", "zone": SARDOUM, "structures": []})
    assert [r[0] for r in snap.rows("sea_links")] == ["carthago", "carthago"]
