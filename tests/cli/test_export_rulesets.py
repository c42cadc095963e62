"""`bellica export` on a started campaign of every ruleset: the umpire's and a faction's
situation as GeoPackage and GeoJSON, written from the ruleset's one player view.

For the four rulesets with a player view (:meth:`Ruleset.player_view`), a faction's
``status.json`` is exactly what that ruleset's ``status --json`` prints for the same viewer, and
a layer that differs per viewer holds only what the view lets that faction read."""

from __future__ import annotations

import json

import geopandas as gpd
import pytest

from tests.cli.test_rise_of_rome_cli import bellica
from tests.engine.trossian.campaign_file import fresh_campaign


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("export-rulesets")


def _ok(capsys, *args) -> str:
    code, out, err = bellica(capsys, *args)
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def magna_graecia(folder, scenario_map):
    """The scenario's map (built once a run: tests/conftest.py scenario_map)."""
    return scenario_map("magna-graecia/dionysian", folder / "sicily.duckdb")


def _made(capsys, path, *steps):
    for step in steps:
        _ok(capsys, *[str(path) if a == "@" else a for a in step])
    return path


@pytest.fixture
def mg_campaign(magna_graecia, tmp_path, capsys):
    return _made(capsys, tmp_path / "mg.duckdb",
                 ["campaign", "new", "--scenario", "magna-graecia/dionysian", "--map", str(magna_graecia), "--out", "@", "-q"],
                 ["magna-graecia", "start", "@", "--seed", "397"])


@pytest.fixture
def trossian_campaign(folder, tmp_path, capsys):
    path = fresh_campaign(folder, tmp_path / "tr.duckdb")
    return _made(capsys, path, ["trossian", "start", "@", "--seed", "148"], ["trossian", "next", "@"])


@pytest.fixture
def ror_campaign(tmp_path, capsys, built_once):
    """`campaign new --scenario rise-of-rome` (the exit-code walk's file, built once a run:
    tests/cli/test_exit_codes.py), then `turn start`."""
    from tests.cli.test_exit_codes import _made as new_campaign

    path = built_once("made-rise-of-rome", lambda p: new_campaign("rise-of-rome", p), tmp_path / "ror.duckdb")
    return _made(capsys, path, ["turn", "start", "@"])


def _export(capsys, campaign, out, *more) -> dict:
    text = _ok(capsys, "export", campaign, "--out", out, *more)
    assert str(out) in text
    return json.loads((out / "export.json").read_text())


def _layer(out, name) -> gpd.GeoDataFrame:
    gpkg = gpd.read_file(out / "situation.gpkg", layer=name)
    geojson = gpd.read_file(out / "geojson" / f"{name}.geojson")
    assert len(gpkg) == len(geojson)
    return gpkg


def _same_status(out, printed: str) -> bool:
    """The export's status.json is the status command's JSON (whose `next` names the file, where
    the view says CAMPAIGN)."""
    exported, shown = json.loads((out / "status.json").read_text()), json.loads(printed)
    for words in ("next", "next_words"):
        exported.pop(words, None), shown.pop(words, None)
    return exported == shown


def test_magna_graecia_exports_what_each_side_may_see(mg_campaign, tmp_path, capsys):
    umpire = _export(capsys, mg_campaign, tmp_path / "u")
    assert umpire["viewer"] == "umpire" and umpire["hidden"] == []
    assert umpire["layers"]["places"] > 20 and umpire["layers"]["counters"] > 10
    side = _export(capsys, mg_campaign, tmp_path / "c", "--faction", "carthage")
    assert side["viewer"] == "Carthage" and "counters" in side["per_viewer_layers"]
    counters = _layer(tmp_path / "c", "counters")
    # Carthage reads its own commands' elements, of the others only where counters stand.
    assert counters["elements"].notna().sum() > 0
    assert set(counters.loc[counters["elements"].notna(), "side"]) == {"Carthage"}
    fleets = _layer(tmp_path / "c", "fleets")
    assert fleets.loc[fleets["side"] != "Carthage", "np"].isna().all()
    code, status, err = bellica(capsys, "magna-graecia", "status", mg_campaign, "--side", "Carthage", "--json")
    assert code == 0, err
    assert _same_status(tmp_path / "c", status)
    places = _layer(tmp_path / "u", "places")
    assert places.geometry.geom_type.eq("Point").all()
    assert places.total_bounds[0] > 12 and places.total_bounds[2] < 16  # Sicily


def test_trossian_exports_a_nation_its_own_couriers_and_strengths(trossian_campaign, tmp_path, capsys):
    out = tmp_path / "r"
    manifest = _export(capsys, trossian_campaign, out, "--faction", "russia", "--packet")
    assert manifest["viewer"] == "Russia" and manifest["layers"]["provinces"] == 32
    armies = _layer(out, "armies")
    assert armies.loc[armies["nation"] != "Russia", "units"].isna().all()
    assert armies.loc[armies["nation"] == "Russia", "units"].notna().all()
    assert set(_layer(out, "couriers").get("courier", [])) == {
        c["courier"] for c in json.loads((out / "status.json").read_text())["couriers"]}
    code, status, err = bellica(capsys, "trossian", "status", trossian_campaign, "--nation", "Russia", "--json")
    assert code == 0, err
    assert _same_status(out, status)
    packet = out / "packets" / "Russia"
    assert {p.name for p in packet.iterdir()} >= {"map.html", "log.txt", "situation.gpkg", "status.json"}
    assert not list(packet.glob("orders-round-*.toml"))  # Trossian orders are given by `bellica trossian` commands
    umpire = _export(capsys, trossian_campaign, tmp_path / "u")
    assert umpire["layers"]["couriers"] == 0  # the umpire's map reads no nation's couriers
    assert _layer(tmp_path / "u", "armies")["units"].notna().all()


def test_rise_of_rome_exports_the_whole_board(ror_campaign, tmp_path, capsys):
    manifest = _export(capsys, ror_campaign, tmp_path / "o", "--faction", "Romans", "--format", "gpkg")
    provinces = gpd.read_file(tmp_path / "o" / "situation.gpkg", layer="provinces")
    assert len(provinces) == 19 and manifest["hidden"] == []
    assert provinces.set_index("province").loc["Latium", "holder"] == "Romans"
    assert provinces.geometry.is_valid.all() and set(provinces.geometry.geom_type) == {"MultiPolygon"}
    assert not (tmp_path / "o" / "geojson").exists()


def test_an_unknown_faction_is_a_usage_error(ror_campaign, tmp_path, capsys):
    code, out, err = bellica(capsys, "export", ror_campaign, "--out", tmp_path / "x", "--faction", "Atlantis")
    assert code == 2 and "'Atlantis' is not a faction of this campaign" in err
    assert not (tmp_path / "x").exists()


def test_mare_nostrum_exports_provinces_works_and_fleets(folder, tmp_path, capsys, scenario_map):
    map_path = scenario_map("mare-nostrum", folder / "mn4.duckdb", res=4)
    campaign = _made(capsys, tmp_path / "mn.duckdb",
                     ["campaign", "new", "--scenario", "mare-nostrum", "--map", str(map_path), "--out", "@", "-q"],
                     ["turn", "start", "@"])
    manifest = _export(capsys, campaign, tmp_path / "o", "--faction", "romans")
    assert manifest["viewer"] == "Romans" and manifest["layers"]["provinces"] == 38
    provinces = _layer(tmp_path / "o", "provinces")
    assert provinces["holder"].notna().sum() >= 6
    code, status, err = bellica(capsys, "turn", "status", campaign, "--json")
    assert code == 0, err
    assert _same_status(tmp_path / "o", status)
