"""The Trossian map: provinces by holder, towns and ports, lanes with their ice, navies, armies
(own strength only), couriers for their owner only; a nation's page holds nothing of another
nation's couriers or orders."""

from __future__ import annotations

import duckdb
import pytest

import bellica.cli as cli
from bellica.engine.core.campaign import Campaign
from bellica.engine.trossian.ruleset import act, engine_step
from bellica.web_maps.province_layers import trossian
from tests.engine.trossian.campaign_file import fresh_campaign

SECRET = "Cross the Kuban at dawn"
ADDRESSEE = "General Rtishchev"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trossian-map")
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
        act(c, "march", "Russia", army=13, path=["Kuban"])
    return path


@pytest.fixture(scope="module")
def early_spring(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trossian-map-ice")
    path = fresh_campaign(folder, folder / "c.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=148)
        engine_step(c, "begin")
    return path


def _read(path, faction):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return trossian(con, faction)
    finally:
        con.close()


def test_umpire_map(early_spring, campaign):
    pm = _read(early_spring, None)
    assert len(pm.provinces) == 32
    kinds = {m.kind for m in pm.markers}
    assert {"seat", "town", "port", "navy", "army", "ice"} <= kinds and "courier" not in kinds
    ice = {m.sea for m in pm.markers if m.kind == "ice"}
    assert ice == {"Odessa Shelf", "Dnieper-Bug Liman", "Kerch Strait", "Sea of Azov"}
    assert sum(dict(s.rows)["ice"] == "frozen this phase" for s in pm.seas) == 4
    later = _read(campaign, None)  # Mid Spring: the ice is gone
    assert not [m for m in later.markers if m.kind == "ice"]
    assert sum(dict(s.rows)["ice"] == "freezes in winter" for s in later.seas) == 4


def test_a_nation_sees_its_own_couriers_and_strengths_only(campaign):
    russia, porte = _read(campaign, "Russia"), _read(campaign, "ottoman porte")
    couriers = [m for m in russia.markers if m.kind == "courier"]
    assert len(couriers) == 1 and dict(couriers[0].rows)["message"] == SECRET
    assert not [m for m in porte.markers if m.kind == "courier"]
    assert SECRET not in repr(porte)
    own = [m for m in porte.markers if m.kind == "army" and m.owner == "Ottoman Porte"]
    other = [m for m in porte.markers if m.kind == "army" and m.owner != "Ottoman Porte"]
    assert all(m.text.isdigit() for m in own) and all(m.text == "?" for m in other)
    assert porte.hidden and dict(porte.panel)["Your orders this phase"] == "0"
    assert dict(russia.panel)["Your orders this phase"] == "1"


def test_rendered_pages(campaign, tmp_path, capsys):
    pages = {}
    for faction in ("Russia", "Ottoman Porte", None):
        out = tmp_path / f"{faction or 'umpire'}.html"
        args = ["render", "map", str(campaign), "--out", str(out)] + (["--faction", faction] if faction else [])
        try:
            cli.main(args)
        except SystemExit as e:
            assert not e.code, capsys.readouterr().err
        pages[faction] = out.read_text()
    assert SECRET in pages["Russia"]
    assert SECRET not in pages["Ottoman Porte"] and SECRET not in pages[None]
    assert ADDRESSEE not in pages["Ottoman Porte"] and ADDRESSEE in pages["Russia"]
    with pytest.raises(SystemExit) as e:
        cli.main(["render", "map", str(campaign), "--out", str(tmp_path / "x.html"), "--faction", "Prussia"])
    assert e.value.code == 1


def test_alliances_and_offers_are_public_on_every_page(tmp_path):
    from bellica.engine.trossian.ruleset import ally

    path = fresh_campaign(tmp_path, tmp_path / "ally.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=148)
        engine_step(c, "begin")
    assert dict(_read(path, None).panel)["Alliances"] == "none: every nation at war"
    with Campaign.open(path) as c:
        ally(c, "Russia", "Danubian")
    for viewer in (None, "Ottoman Porte", "Russia"):
        panel = dict(_read(path, viewer).panel)
        assert panel["Offers of alliance"] == "Russia to Danubian Principalities"
    with Campaign.open(path) as c:
        ally(c, "Danubian", "Russia")
    for viewer in (None, "Crimean Khanate"):
        panel = dict(_read(path, viewer).panel)
        assert panel["Alliances"] == "Danubian Principalities & Russia" and "Offers of alliance" not in panel
