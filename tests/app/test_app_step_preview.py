"""Orders by clicking the map on a stepped game's page (bellica/app/step_preview.py): what a click
may take comes from the viewer's player view and the values the ruleset offers; each click is
checked by the step itself (a dry run: nothing written), refused in the engine's words, and the
answers carry nothing of another side's hidden forces."""

from __future__ import annotations

import json
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from tests.app.test_app_nodes import _log_len, _mg_secrets, client, make_mg, sicily  # noqa: E402,F401
from tests.app.test_app_provinces import _campaign, maps  # noqa: E402,F401


@pytest.fixture
def mg(capsys, sicily, tmp_path):  # noqa: F811
    return make_mg(capsys, sicily, tmp_path)


def _get(cl, url, status=200) -> dict:
    r = cl.get(url)
    assert r.status_code == status, (url, r.status_code, r.text[:2000])
    return r.json()


def test_a_magna_graecia_move_is_plotted_click_by_click_and_nothing_is_written(mg):
    path, tokens = mg
    syr = client(path, tokens["Syracuse"])
    n = _log_len(path)
    m = _get(syr, "/api/step-map?step=move")
    params = {p["name"]: p for p in m["params"]}
    assert [t["value"] for t in params["command"]["targets"]] == ["36", "37", "38", "39"]  # Syracuse's own only
    assert params["path"]["layer"] == "places" and params["path"]["many"]
    assert {t["value"] for t in params["path"]["targets"]} >= {"Leontini", "Catana", "Motya"}
    # The force first: the next click's places are where it may go, each tried by the step itself.
    j = _get(syr, "/api/step-preview?step=move&click=command&value=38")
    assert j["fields"]["command"] == "38" and j["next"]["param"] == "path" and j["next"]["start"] == "Syracuse"
    assert "Leontini" in j["next"]["reach"]
    assert "no path from Syracuse to Catana" in j["next"]["refused"]["Catana"]  # a sea path, not a land one
    j = _get(syr, "/api/step-preview?step=move&command=38&click=path&value=Leontini")
    assert j["fields"]["path"] == ["Leontini"] and j["verdict"] == {"ok": True} and j["starts"] == {"path": "Syracuse"}
    assert set(j["next"]["reach"]) == {"Catana", "Morgantina", "Syracuse"}
    # A click the rules refuse is refused at that click, in the engine's words; the fields stay.
    j = _get(syr, "/api/step-preview?step=move&command=38&path=Leontini&click=path&value=Gela")
    assert j["click"]["refused"].endswith("no path from Leontini to Gela: follow the map's paths")
    assert j["fields"]["path"] == ["Leontini"]
    # Past the command's movement points: every next place refused, saying so.
    j = _get(syr, "/api/step-preview?step=move&command=38&path=Leontini&click=path&value=Catana")
    assert j["next"]["reach"] == [] and "but it has 2 left: move fewer" in j["next"]["refused"]["Syracuse"]
    # Typed fields are previewed the same way (the page keeps both in step).
    j = _get(syr, "/api/step-preview?step=move&command=38&path=Leontini&path=Catana")
    assert j["verdict"] == {"ok": True} and j["fields"]["path"] == ["Leontini", "Catana"]
    assert _log_len(path) == n  # dry runs only: nothing logged


def test_the_preview_answers_only_the_viewers_steps_and_leaks_no_hidden_force(mg):
    path, tokens = mg
    syr, car = client(path, tokens["Syracuse"]), client(path, tokens["Carthage"])
    j = _get(car, "/api/step-preview?step=move&command=40&click=path&value=Segesta", status=409)
    assert "not a step you may take now" in j["error"]  # not Carthage's turn: no probing the position
    assert "missing" not in _get(syr, "/api/step-preview?step=moev", status=400)["error"]
    assert "click=FIELD" in _get(syr, "/api/step-preview?step=move&click=general&value=x", status=400)["error"]
    # Syracuse naming Carthage's command (its number is hidden from Syracuse): refused before the step runs.
    answers = [_get(syr, "/api/step-preview?step=move&command=40&path=Panormus"),
               _get(syr, "/api/step-map?step=move"), _get(syr, "/api/step-map?step=sail"),
               _get(syr, "/api/step-preview?step=sail&click=path&value=Catana"),
               _get(syr, "/api/step-preview?step=move&command=38&path=Leontini&path=Morgantina&path=Henna")]
    refused = answers[0]["verdict"]["refused"]  # not the engine's "command 40 is Carthage's": whose it is stays hidden
    assert refused.startswith("COMMAND: 40 is not one the page offers you now (") and "36, 37, 38, 39" in refused
    assert "Carthage" not in refused
    text = json.dumps(answers)
    for secret in _mg_secrets(path)["Carthage"]:
        assert secret not in text
    assert "Sp(I)" not in text and "NP" not in text


def test_rise_of_rome_clicks_the_power_it_attacks_by_any_of_its_provinces(capsys, maps, tmp_path):  # noqa: F811
    from tests.cli.test_rise_of_rome_cli import bellica

    path, tokens = _campaign(capsys, maps, tmp_path, "rise-of-rome", 10)
    assert bellica(capsys, "turn", "next", path)[0] == 0
    rome = client(path, tokens["Romans"])
    m = _get(rome, "/api/step-map?step=attack")
    target = m["params"][0]
    assert target["name"] == "target" and target["layer"] == "provinces"
    by_label = {t["label"]: t["value"] for t in target["targets"]}
    assert by_label["Etruria"] == "Etruscans" and all(t["rings"] for t in target["targets"])
    j = _get(rome, "/api/step-preview?step=attack&click=target&value=Samnites")
    assert j["fields"]["target"] == "Samnites" and j["verdict"] == {"ok": True}
    j = _get(rome, "/api/step-preview?step=attack&click=target&value=Gauls")
    assert "'Gauls' is not a power of this campaign" in j["click"]["refused"] and j["fields"]["target"] == ""


def test_mare_nostrum_attacks_from_one_of_its_provinces_into_one_bordering_it(capsys, maps, tmp_path):  # noqa: F811
    from tests.cli.test_rise_of_rome_cli import bellica

    path2, tokens2 = _campaign(capsys, maps, tmp_path, "mare-nostrum", 290)
    assert bellica(capsys, "turn", "begin", path2)[0] == 0
    acting = _get(client(path2, tokens2["umpire"]), "/api/status")["acting"]
    assert acting == "Gauls"  # with this seed the Gauls act first
    gauls = client(path2, tokens2[acting])
    m = _get(gauls, "/api/step-map?step=attack")
    names = [p["name"] for p in m["params"]]
    assert names[:2] == ["base", "into"] and m["params"][0]["layer"] == "provinces"
    j = _get(gauls, "/api/step-preview?step=attack&focus=base")
    assert j["next"]["param"] == "base" and "Gallia Cisalpina" in j["next"]["reach"]
    j = _get(gauls, "/api/step-preview?step=attack&click=base&value=Gallia Cisalpina")
    assert j["next"]["param"] == "into" and "Etruria" in j["next"]["reach"], j  # the provinces bordering it
    assert all(r.endswith("choose another") or "border" in r or "face" in r for r in j["next"]["refused"].values()), j
    j = _get(gauls, "/api/step-preview?step=attack&base=Gallia Cisalpina&click=into&value=Etruria")
    assert j["fields"]["into"] == "Etruria" and j["verdict"] == {"ok": True}, j


def test_a_dry_run_runs_the_rule_and_writes_nothing(mg):
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.core.stepped import dry_run
    from bellica.geo.errors import InputError

    path, _tokens = mg
    with Campaign.open(path) as c:
        head, snap = c.log_head(), c.snapshot()
        move = c.ruleset.action("move")
        assert dry_run(move.run, c, "Syracuse", command=38, path=["Leontini"]) is True
        with pytest.raises(InputError, match="no path from Syracuse to Gela"):
            dry_run(move.run, c, "Syracuse", command=38, path=["Gela"])
        assert dry_run(lambda *a: [], c) is False  # a run that takes no step: nothing to accept
        assert c.log_head() == head and c.snapshot().tables == snap.tables
        # and the step itself still runs for real afterwards (the dry runs left nothing set)
        c.ruleset.action("move").run(c, "Syracuse", command=38, path=["Leontini"])
        assert c.log_head() != head


def test_a_trossian_march_plotted_and_another_nations_army_never_named(capsys, tmp_path):
    from tests.app.test_app_nodes import make_tr

    path, tokens = make_tr(capsys, tmp_path)
    assert client(path, tokens["umpire"]).post("/step/next").status_code == 303  # the phase begins
    ott = client(path, tokens["Ottoman Porte"])
    m = _get(ott, "/api/step-map?step=march")
    params = {p["name"]: p for p in m["params"]}
    assert [t["value"] for t in params["army"]["targets"]] == ["20", "30"]  # its own armies only
    assert params["path"]["layer"] == "provinces" and all(t["rings"] for t in params["path"]["targets"])
    j = _get(ott, "/api/step-preview?step=march&army=20&focus=path")
    assert j["next"]["start"] == "Constantinople" and "Thrace" in j["next"]["reach"]  # where it stands, the borders
    k = _get(ott, "/api/step-preview?step=march&army=30&focus=path")  # away from its king: no march order
    assert k["next"]["reach"] == [] and "it obeys only orders a courier brings" in k["next"]["refused"]["Varna"]
    refused = _get(ott, "/api/step-preview?step=march&army=1&path=Bessarabia")["verdict"]["refused"]
    assert refused.startswith("--army: 1 is not one the page offers you now (20, 30)") and "Russia" not in refused
    hidden = _get(client(path, tokens["umpire"]), "/api/status")["armies"]  # the umpire reads every army's units
    units = [a["units"] for a in hidden if a["nation"] == "Russia" and a.get("units")]
    assert units and not any(json.dumps(u) in json.dumps([m, j, k]) for u in units)  # Russia's units: never here
