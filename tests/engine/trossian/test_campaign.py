"""Trossian as a campaign: made through the province path, played step by step, sealed, replayed.

The campaign is the shipped Black Sea scenario made as `bellica campaign new --scenario trossian`
makes it (tests/engine/trossian/campaign_file.py).  A scripted year (the demo's Early Spring,
eight more phases, winter quarters with banking and recruiting, the next Early Spring) is
verified and re-adjudicated from the scenario by the core (`bellica round verify --readjudicate`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.machine import StepRefused
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.sealed import log_view
from bellica.engine.trossian.ruleset import (act, engine_step, enter_result, next_decision, next_step, state_of,
                                            status_view)
from bellica.geo.errors import InputError
from bellica.demo_trossian import DEMO_SEED, ORDERS
from tests.engine.trossian.campaign_file import fresh_campaign

MESSAGE = ORDERS["Russia"][1][1]["message"]
NATIONS = ("Russia", "Ottoman Porte", "Danubian Principalities", "Crimean Khanate")


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("trossian-base")


@pytest.fixture
def campaign(base_dir, tmp_path) -> Path:
    return fresh_campaign(base_dir, tmp_path / "c.duckdb")


def _orders_phase(c, orders=ORDERS):
    for nation in NATIONS:
        for step, arg in orders.get(nation, ()):
            act(c, step, nation, **arg)
        act(c, "done", nation)


def _battles(c, winner="a"):
    for battle in state_of(c.snapshot()).battles:
        enter_result(c, battle.id, winner, {})


def _text(lines) -> str:
    return "\n".join(json.dumps(ln.data, sort_keys=True) + " " + ln.text for ln in lines)


def test_campaign_new_writes_the_scenario(campaign):
    import duckdb

    con = duckdb.connect(str(campaign), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM provinces").fetchone()[0] == 32
        assert con.execute("SELECT count(*) FROM tr_provinces").fetchone()[0] == 32
        assert con.execute("SELECT count(*) FROM tr_lanes WHERE freezes").fetchone()[0] == 4
        assert {r[0] for r in con.execute("SELECT name FROM sea_areas").fetchall()} == {
            r[0] for r in con.execute("SELECT name FROM tr_lanes").fetchall()}
        meta = dict(con.execute("SELECT key, value FROM scenario_meta").fetchall())
    finally:
        con.close()
    assert meta["ruleset"] == "trossian" and meta["resolution"] == "4"


def test_a_year_with_winter_is_replayed(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=DEMO_SEED)
        engine_step(c, "begin")
        _orders_phase(c)
        engine_step(c, "resolve")
        _battles(c)
        engine_step(c, "end")
        for _ in range(8):  # Mid Spring .. Late Autumn: the umpire moves on; results where battles open
            next_step(c)
            _orders_phase(c, {})
            next_step(c)
            _battles(c, "draw")
            next_step(c)
        snap = c.snapshot()
        assert snap.campaign("phase") == "winter" and state_of(snap).phase == -1
        kinds = [e.kind for e in c.events()]
        assert "winter_quarters" in kinds and "income" in kinds
        # issue 22's rules are in the year the re-adjudication below replays: Moldavia's garrison
        # turns out against the Army of the Dniester, the Porte's navy goes back to port for the winter
        assert "garrison_stands" in kinds and "navy_winters" in kinds
        bank = state_of(snap).nations["Russia"].bank
        assert sum(bank.values()) > 10  # the income is banked
        act(c, "recruit", "Russia", at="Yedisan", kinds=["hq", "line_infantry", "courier"])
        with pytest.raises(StepRefused):  # more AP than banked there
            act(c, "bank", "Russia", source="Yedisan", target="Kherson", ap=10_000)
        act(c, "bank", "Russia", source="Yedisan", target="Kherson", ap=1)
        next_step(c)  # spring
        moved = "Russia moves 1 AP from Yedisan to Kherson"
        assert moved in _text(log_view(c, viewer="Russia"))
        assert moved not in _text(log_view(c, viewer="Ottoman Porte"))
        assert '"source": "Yedisan"' not in _text(log_view(c, viewer="Ottoman Porte"))
        snap = c.snapshot()
        assert snap.campaign("phase") == "begin" and state_of(snap).year == 1807
        assert next_decision(c, snap)[0] == "begin"
        c.verify()
    steps = readjudicate(campaign)
    assert steps  # every step re-run from the scenario gives the same log


def test_orders_are_sealed_and_messages_never_open(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=DEMO_SEED)
        engine_step(c, "begin")
        for step, arg in ORDERS["Russia"]:
            act(c, step, "Russia", **arg)
        # Before every order is in: nobody else (the umpire neither) reads what Russia ordered.
        for viewer in ("Ottoman Porte", None):
            text = _text(log_view(c, viewer=viewer))
            assert "Moldavia" not in text.split("Early Spring 1806 begins")[-1] and MESSAGE not in text
        assert MESSAGE in _text(log_view(c, viewer="Russia"))
        for nation in NATIONS:
            for step, arg in ORDERS.get(nation, ()) if nation != "Russia" else ():
                act(c, step, nation, **arg)
            act(c, "done", nation)
        # Every order in: the march opens to all; the courier's orders never do.
        text = _text(log_view(c, viewer="Ottoman Porte"))
        assert '"path": ["Bessarabia", "Moldavia"]' in text and MESSAGE not in text
        engine_step(c, "resolve")
        for viewer in ("Ottoman Porte", "Danubian Principalities", None):
            assert MESSAGE not in _text(log_view(c, viewer=viewer)), viewer
            assert "courier/1806" not in _text(log_view(c, viewer=viewer))
        # The Khan's men caught the courier in Budjak: the message is the Khan's now.
        assert MESSAGE in _text(log_view(c, viewer="Crimean Khanate"))
        khan = status_view(c, "Crimean Khanate")
        assert any(MESSAGE in note for note in khan["treasury"]["intelligence"])
        assert "couriers" not in status_view(c)
        assert {x["courier"] for x in status_view(c, "Ottoman Porte")["couriers"]} == {
            x.id for x in state_of(c.snapshot()).couriers if x.nation == "Ottoman Porte"}
        porte = status_view(c, "Ottoman Porte")
        assert all(a["units"] is None for a in porte["armies"] if a["nation"] != "Ottoman Porte")


def test_refusals_and_bad_input(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=DEMO_SEED)
        with pytest.raises(StepRefused, match="begin"):
            act(c, "march", "Russia", army=1, path=["Bessarabia"])  # the phase has not begun
        engine_step(c, "begin")
        with pytest.raises(StepRefused, match="still to give"):
            engine_step(c, "resolve")
        with pytest.raises(StepRefused, match="beyond"):
            act(c, "march", "Russia", army=1, path=["Bessarabia", "Moldavia", "Wallachia"])
        act(c, "march", "Russia", army=1, path=["Bessarabia"])
        with pytest.raises(StepRefused, match="already moved"):  # its own earlier order stands
            act(c, "march", "Russia", army=1, path=["Kherson"])
        with pytest.raises(StepRefused, match="frozen"):  # the Liman is iced in Early Spring
            act(c, "sail", "Russia", navy=68, actions=[["put_out"]])
        with pytest.raises(InputError, match="no such army"):
            act(c, "march", "Russia", army=999, path=["Bessarabia"])
        with pytest.raises(InputError, match="is Ottoman Porte's"):
            act(c, "march", "Russia", army=20, path=["Thrace"])
        with pytest.raises(InputError, match="no nation"):
            act(c, "done", "Prussia")
        with pytest.raises(InputError, match="not a province"):
            act(c, "march", "Russia", army=13, path=["Atlantis"])
        act(c, "done", "Russia")
        with pytest.raises(StepRefused, match="has given all its orders"):
            act(c, "march", "Russia", army=13, path=["Kuban"])
        with pytest.raises(StepRefused):
            act(c, "recruit", "Russia", at="Yedisan", kinds=["line_infantry"])  # winter only


def test_views(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=DEMO_SEED)
        engine_step(c, "begin")
        act(c, "courier", "Russia", courier=75, action="send", message="secret", to="Kuban Corps")
        con = c.con
        march = {r[0]: r[1:] for r in con.execute(
            'SELECT "to", provinces, needs_road_bonus, contact FROM tr_march WHERE army = 1').fetchall()}
        assert march["Bessarabia"] == (1, False, False)
        assert march["Moldavia"] == (2, True, True)  # infantry 1 + the road bonus, into the enemy
        assert "Wallachia" not in march
        frozen = {r[0] for r in con.execute("SELECT lane FROM tr_lanes_now WHERE frozen").fetchall()}
        assert frozen == {"Odessa Shelf", "Dnieper-Bug Liman", "Kerch Strait", "Sea of Azov"}
        ap = {r[0]: r[1:] for r in con.execute("SELECT nation, banked, provinces, income FROM tr_ap").fetchall()}
        assert ap["Russia"][0] == 10 and ap["Russia"][2] > 0
        # The order is stored, not carried out: no courier is in transit yet.
        assert con.execute("SELECT count(*) FROM tr_couriers_in_transit").fetchone()[0] == 0
        for nation in NATIONS:
            act(c, "done", nation) if nation != "Russia" else None
        act(c, "done", "Russia")
        engine_step(c, "resolve")
        assert con.execute("SELECT addressee, message FROM tr_couriers_of('Russia')").fetchall() == [("Kuban Corps", "secret")]
        assert con.execute("SELECT count(*) FROM tr_couriers_of('Ottoman Porte')").fetchone()[0] == 0
        # Army 1 (10 AP of line troops and more) stands in Russian Yedisan: nothing to pacify yet.
        assert con.execute("SELECT count(*) FROM tr_pacification WHERE nation = 'Russia'").fetchone()[0] == 0
        # The worked queries of docs/sql.md's Trossian section run.
        doc = (Path(__file__).resolve().parents[3] / "docs" / "sql.md").read_text()
        queries = dict(re.findall(r"^```sql tr=(\w+)\n(.*?)^```", doc, re.S | re.M))
        assert len(queries) >= 4
        for name, sql in queries.items():
            con.execute(sql).fetchall()


def test_checking_an_order_reveals_no_roll(campaign):
    """A courier's later order is accepted when given (every courier is assumed through), and
    fails only when the orders are carried out and the courier turns out caught."""
    with Campaign.open(campaign) as c:
        c.start(seed=DEMO_SEED)
        engine_step(c, "begin")
        for step, arg in ORDERS["Russia"][1:]:
            act(c, step, "Russia", **arg)
        act(c, "courier", "Russia", courier=74, action="deliver")  # accepted: no die is rolled now
        assert not [e for e in c.events() if e.kind == "dice" and "courier/" in e.text]
        for nation in NATIONS:
            act(c, "done", nation)
        engine_step(c, "resolve")
        failed = [e for e in c.events() if e.kind == "order_failed"]
        assert len(failed) == 1 and failed[0].data["nation"] == "Russia" and "74" in failed[0].data["why"]
        assert "order 3 (courier) fails" not in _text(log_view(c, viewer="Ottoman Porte"))
        assert "order 3 (courier) fails" in _text(log_view(c, viewer="Russia"))
        c.verify()
    readjudicate(campaign)


def test_army_orders(campaign):
    with Campaign.open(campaign) as c:
        c.start(seed=DEMO_SEED)
        engine_step(c, "begin")
        units = [u.id for u in state_of(c.snapshot()).army(13).units if u.kind == "militia_cavalry"]
        with pytest.raises(StepRefused, match="a detachment needs an HQ"):   # issue 22: one HQ, no detachment
            act(c, "army", "Russia", army=13, action="detach", units=units, name="Cossacks")
        act(c, "march", "Russia", army=1, path=["Bessarabia", "Moldavia"])
        with pytest.raises(StepRefused, match="has an HQ"):
            act(c, "army", "Russia", army=1, action="hold")
        with pytest.raises(InputError, match="merge, detach"):
            act(c, "army", "Russia", army=1, action="scatter")
        for nation in NATIONS:
            act(c, "done", nation)
        engine_step(c, "resolve")
        st = state_of(c.snapshot())
        assert not [a for a in st.armies if a.name == "Cossacks"]
        pac = c.con.execute("SELECT province, nation, ap, needed_ap FROM tr_pacification "
                            "WHERE nation = 'Russia'").fetchall()
        assert [(p, n) for p, n, _ap, _need in pac] == [("Moldavia", "Russia")] and pac[0][3] == 20
