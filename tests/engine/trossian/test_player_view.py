"""The Trossian player view (engine/trossian/player_view.py): provinces by holder, towns and ports,
lanes with their ice, navies, armies (own strength only), couriers for their owner only, all from
:func:`~bellica.engine.trossian.ruleset.status_view`; a nation's view holds nothing of another
nation's couriers or orders."""

from __future__ import annotations

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.trossian.ruleset import act, engine_step, status_view
from tests.engine.trossian.campaign_file import fresh_campaign

SECRET = "Cross the Kuban at dawn"
ADDRESSEE = "General Rtishchev"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trossian-view")
    path = fresh_campaign(folder, folder / "c.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=148)
        engine_step(c, "begin")
        act(c, "courier", "Russia", courier=75, action="send", message=SECRET, to=ADDRESSEE)
        act(c, "courier", "Russia", courier=75, action="move", path=["Kherson"])
        for n in c.board.nations:
            act(c, "done", n)
        engine_step(c, "resolve")
        engine_step(c, "end")
        engine_step(c, "begin")
        # Mid Spring's orders, given but not carried out: nothing of them on the others' pages.
        act(c, "march", "Russia", army=1, path=["Bessarabia"])  # in the Tsar's capital: no courier needed
    return path


@pytest.fixture(scope="module")
def early_spring(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trossian-view-ice")
    path = fresh_campaign(folder, folder / "c.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=148)
        engine_step(c, "begin")
    return path


def _view(path, viewer):
    with Campaign.open(path, read_only=True) as c:
        return c.ruleset.player_view(c, c.faction(viewer)), (status_view(c, c.faction(viewer)) if c.has_state() else None)


def _drawn(view, name):
    return [f for f in view.layer(name).features if f.style]


def test_umpire_view(early_spring, campaign):
    view, status = _view(early_spring, None)
    assert view.status == status  # the status view, as `trossian status --json` prints it
    assert len(view.layer("provinces").features) == 32
    for name in ("capitals", "towns", "navies", "armies", "ice"):
        assert _drawn(view, name), name
    assert {f.style for f in view.layer("towns").features} == {"town", "port"}
    assert not view.layer("couriers").features  # the umpire reads no nation's couriers
    assert {f.properties["lane"] for f in view.layer("ice").features} == {
        "Odessa Shelf", "Dnieper-Bug Liman", "Kerch Strait", "Sea of Azov"}
    ice = [dict(f.tooltip)["ice"] for f in view.layer("lanes").features]
    assert ice.count("frozen this phase") == 4
    assert all(f.text.isdigit() for f in view.layer("armies").features)  # every army's strength
    later, _ = _view(campaign, None)  # Mid Spring: the ice is gone
    assert not later.layer("ice").features
    assert [dict(f.tooltip)["ice"] for f in later.layer("lanes").features].count("freezes in winter") == 4


def test_a_nation_sees_its_own_couriers_and_strengths_only(campaign):
    (russia, rs), (porte, ps) = _view(campaign, "Russia"), _view(campaign, "ottoman porte")
    assert russia.status == rs and porte.status == ps
    couriers = russia.layer("couriers").features
    assert {f.properties["courier"] for f in couriers} == {x["courier"] for x in rs["couriers"]}
    assert [dict(f.tooltip)["message"] for f in couriers if f.properties["message"]] == [SECRET]
    assert all(x["courier"] not in {f.properties["courier"] for f in couriers} for x in ps["couriers"])
    assert SECRET not in repr(porte) and ADDRESSEE not in repr(porte)
    own = [f for f in porte.layer("armies").features if f.properties["nation"] == "Ottoman Porte"]
    other = [f for f in porte.layer("armies").features if f.properties["nation"] != "Ottoman Porte"]
    assert all(f.text.isdigit() for f in own) and all(f.text == "?" for f in other)
    assert all("units" not in dict(f.tooltip) and f.properties["units"] is None for f in other)
    assert porte.hidden and dict(porte.panel)["Your orders this phase"] == "0"
    assert dict(russia.panel)["Your orders this phase"] == "1"
    assert {f.properties["province"] for f in russia.layer("reach").features} and not russia.layer("reach").show


def test_the_reach_outline_counts_only_armies_that_take_orders_at_once(campaign):
    """An army that obeys only what a courier brings cannot be sent this phase: its marches are
    not outlined (Russia's army 1 stands in the Tsar's capital and takes orders at once)."""
    view, status = _view(campaign, "Russia")
    at_once = {a["army"] for a in status["armies"] if a["nation"] == "Russia" and a["by_courier"] is False}
    by_courier = {a["army"] for a in status["armies"] if a["nation"] == "Russia" and a["by_courier"]}
    assert at_once and by_courier
    with Campaign.open(campaign, read_only=True) as c:
        rows = c.con.execute('SELECT army, "to" FROM tr_march WHERE nation = ?', ["Russia"]).fetchall()
    expected = {to for army, to in rows if army in at_once}
    assert {f.properties["province"] for f in view.layer("reach").features} == expected
    assert {to for army, to in rows if army in by_courier} - expected  # the couriers' armies would add provinces


def test_a_campaign_not_started_is_its_board_alone(tmp_path):
    path = fresh_campaign(tmp_path, tmp_path / "new.duckdb")
    view, _ = _view(path, "Russia")
    assert len(view.layer("provinces").features) == 32 and view.layer("towns").features
    assert not any(view.layer(n).features for n in ("armies", "navies", "couriers", "ice"))
    assert dict(view.panel)["Date"] == "not started"


def test_alliances_and_offers_are_public_on_every_page(tmp_path):
    from bellica.engine.trossian.ruleset import ally

    path = fresh_campaign(tmp_path, tmp_path / "ally.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=148)
        engine_step(c, "begin")
    assert dict(_view(path, None)[0].panel)["Alliances"] == "none: every nation at war"
    with Campaign.open(path) as c:
        ally(c, "Russia", "Danubian")
    for viewer in (None, "Ottoman Porte", "Russia"):
        panel = dict(_view(path, viewer)[0].panel)
        assert panel["Offers of alliance"] == "Russia to Danubian Principalities"
    with Campaign.open(path) as c:
        ally(c, "Danubian", "Russia")
    for viewer in (None, "Crimean Khanate"):
        panel = dict(_view(path, viewer)[0].panel)
        assert panel["Alliances"] == "Danubian Principalities & Russia" and "Offers of alliance" not in panel
