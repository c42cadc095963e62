"""The Trossian map, drawn from the ruleset's player view (engine/trossian/player_view.py over
:func:`~bellica.engine.trossian.ruleset.status_view`): a nation's page holds nothing of another
nation's army units, couriers or orders, the umpire's holds every army's strength and no
courier, and every page holds exactly what `bellica trossian status --json` says to its viewer."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

import bellica.cli as cli
from bellica.engine.core.campaign import Campaign
from bellica.engine.trossian.ruleset import act, engine_step
from tests.engine.trossian.campaign_file import fresh_campaign
from tests.web_maps.synthetic import layer_payloads

SECRET = "Cross the Kuban at dawn"
ADDRESSEE = "General Rtishchev"
NATIONS = ("Russia", "Ottoman Porte", "Danubian Principalities", "Crimean Khanate")


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
        act(c, "march", "Russia", army=1, path=["Bessarabia"])  # in the Tsar's capital: no courier needed
    return path


def _run(*args) -> str:
    with redirect_stdout(buf := io.StringIO()):
        try:
            cli.main([str(a) for a in args])
        except SystemExit as e:
            assert not e.code, args
    return buf.getvalue()


def _page(campaign, tmp_path, nation) -> str:
    out = tmp_path / f"{nation or 'umpire'}.html"
    _run("render", "map", campaign, "--out", out, "--force", *(["--faction", nation] if nation else []))
    return out.read_text(encoding="utf-8")


def _status(campaign, nation) -> dict:
    return json.loads(_run("trossian", "status", campaign, "--json", *(["--nation", nation] if nation else [])))


def _counters(page: str) -> list[dict]:
    return [p for payload in layer_payloads(page, "point_layer") for p in payload if p.get("shape") in ("army", "navy")]


def test_rendered_pages(campaign, tmp_path, capsys):
    pages = {n: _page(campaign, tmp_path, n) for n in ("Russia", "Ottoman Porte", None)}
    assert SECRET in pages["Russia"]
    assert SECRET not in pages["Ottoman Porte"] and SECRET not in pages[None]
    assert ADDRESSEE not in pages["Ottoman Porte"] and ADDRESSEE in pages["Russia"]
    with pytest.raises(SystemExit) as e:
        cli.main(["render", "map", str(campaign), "--out", str(tmp_path / "x.html"), "--faction", "Prussia"])
    assert e.value.code == 2  # a usage error, naming the nations
    err = capsys.readouterr().err
    assert "'Prussia' is not a faction of this campaign" in err and "Ottoman Porte" in err


def test_each_page_holds_exactly_its_status_and_no_other_nations_secret(campaign, tmp_path):
    """Each army's counter shows its units where the status gives them and "?" elsewhere; the
    couriers drawn are the viewer's own, with their messages; the umpire's page shows every army's
    strength and no courier; another nation's treasury and orders are on no page but its own."""
    umpire = _status(campaign, None)
    messages = {x["courier"]: (x["message"], x["to"]) for n in NATIONS for x in _status(campaign, n)["couriers"]}
    for viewer in (None, *NATIONS):
        status, page = _status(campaign, viewer), _page(campaign, tmp_path, viewer)
        armies = {int(p["tip"][0][1].split()[0]): p for p in _counters(page) if p["tip"][0][0] == "army"}
        assert set(armies) == {a["army"] for a in status["armies"]}
        for a in status["armies"]:
            shown = armies[a["army"]]
            assert shown["text"] == (str(a["strength"]) if a["strength"] is not None else "?"), (viewer, a["army"])
            assert ("units" in dict(map(tuple, shown["tip"]))) == (a["strength"] is not None)
        couriers = {int(p["tip"][0][1]) for p in _counters(page) if p["tip"][0][0] == "courier"}
        assert couriers == {x["courier"] for x in status.get("couriers", ())}
        for courier, (message, to) in messages.items():
            if message and courier not in couriers:
                assert message not in page and to not in page, (viewer, courier)
        for n in NATIONS:
            bank = _status(campaign, n)["treasury"]["bank"]
            held = ", ".join(f"{k} {v}" for k, v in bank.items())
            assert (f"AP ({held})" in page) == (n == viewer), (viewer, n)
    assert all(a["strength"] is not None for a in umpire["armies"]) and "couriers" not in umpire
