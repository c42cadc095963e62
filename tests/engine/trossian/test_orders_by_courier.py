"""Couriers carry orders in a campaign (the Black Sea, 1806): "Players assume the role of the King
... and shall direct their generals via messages sent by couriers".  The order reaches the Kuban
Corps by courier and is obeyed; the nation's page says which of its armies obey which order; no
other nation (nor the umpire) reads it, save the captor of a courier; the log replays."""

from __future__ import annotations

import json

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.machine import StepRefused
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.sealed import log_view
from bellica.engine.trossian.ruleset import act, engine_step, state_of, status_view
from tests.engine.trossian.campaign_file import fresh_campaign

NATIONS = ("Russia", "Ottoman Porte", "Danubian Principalities", "Crimean Khanate")
SEEN = "courier 74, Early Spring 1806"  # how the order came: in Russia's secret row and its courier's events only


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("trossian-courier-orders")


def _text(lines) -> str:
    return "\n".join(json.dumps(ln.data, sort_keys=True) + " " + ln.text for ln in lines)


def _phase(c, orders):
    for nation in NATIONS:
        for step, arg in orders.get(nation, ()):
            act(c, step, nation, **arg)
        act(c, "done", nation)
    engine_step(c, "resolve")


def test_the_kuban_corps_obeys_the_order_its_courier_brought(base_dir, tmp_path):
    path = fresh_campaign(base_dir, tmp_path / "c.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=148)
        engine_step(c, "begin")
        with pytest.raises(StepRefused, match=r"army 13 \(Russia\) is in Don, away from its king in Yedisan"):
            act(c, "march", "Russia", army=13, path=["Kuban"])
        first = {a["army"]: a for a in status_view(c, "Russia")["armies"]}
        assert first[13]["order"] == "none yet (holds)" and first[13]["by_courier"] is True
        assert first[1]["by_courier"] is False           # the Army of the Dniester stands in Yedisan, with the Tsar
        _phase(c, {"Russia": [
            ("courier", {"courier": 74, "action": "send", "to": "Kuban Corps", "order": "march kuban"}),
            ("courier", {"courier": 74, "action": "move", "path": ["Kherson", "Ekaterinoslav", "Don"]}),
            ("courier", {"courier": 74, "action": "deliver"})]})
        st = state_of(c.snapshot())
        assert st.army(13).province == "Kuban" and st.army(13).order == ("hold",)
        mine = {a["army"]: a for a in status_view(c, "Russia")["armies"]}
        assert mine[13]["order"] == "hold" and mine[13]["order_from"] == SEEN
        for viewer in ("Ottoman Porte", None):
            theirs = {a["army"]: a for a in status_view(c, viewer)["armies"]}
            assert theirs[13]["order"] is None and theirs[13]["order_from"] is None
        page = c.ruleset.player_view(c, "Russia")
        assert ("Army 13 obeys", f"hold (from {SEEN})") in page.panel
        tip = dict(next(f.tooltip for f in page.layer("armies").features if f.properties["army"] == 13))
        assert tip["obeys"] == "hold" and tip["takes orders"] == "by courier only"
        other = c.ruleset.player_view(c, "Ottoman Porte")
        assert "obeys" not in dict(next(f.tooltip for f in other.layer("armies").features if f.properties["army"] == 13))
        assert SEEN in _text(log_view(c, viewer="Russia"))
        for viewer in ("Ottoman Porte", "Crimean Khanate", None):
            text = _text(log_view(c, viewer=viewer))
            assert SEEN not in text and "march Kuban" not in text and '"order"' not in text, viewer
        engine_step(c, "end")
    for viewer, reads in (("Russia", True), ("Ottoman Porte", False), (None, False)):  # the SQL console's copies
        assert (SEEN in _console(path, viewer)) is reads, viewer
    assert readjudicate(path)


def _console(path, viewer) -> str:
    """Every row of tr_game and of the log the viewer's SQL console holds."""
    from bellica.engine.core.console import run_console

    return "\n".join(repr(r.rows) for q in ("SELECT * FROM tr_game", "SELECT * FROM events")
                     for r in run_console(path, q, "QUERY", viewer=viewer))


def test_a_captured_order_goes_to_its_captor_alone(base_dir, tmp_path):
    # the demo's ride (seed 148): courier 74 is caught in the Khan's Budjak, here with an order
    path = fresh_campaign(base_dir, tmp_path / "c.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=148)
        engine_step(c, "begin")
        _phase(c, {"Russia": [
            ("courier", {"courier": 74, "action": "send", "to": "army 13", "order": "march Kuban",
                         "message": "Cross at dawn"}),
            ("courier", {"courier": 74, "action": "move", "path": ["Bessarabia", "Budjak"]})]})
        caught = "Russia to army 13: Cross at dawn (order: march Kuban)"
        assert status_view(c, "Crimean Khanate")["treasury"]["intelligence"] == [caught]
        for viewer in ("Ottoman Porte", "Danubian Principalities"):
            assert "Cross at dawn" not in _text(log_view(c, viewer=viewer))
        assert state_of(c.snapshot()).army(13).order == ()   # lost: the Kuban Corps still holds
