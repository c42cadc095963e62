"""`bellica export`'s tables: the situation now as a Vae Victis II viewer may see it (the ruleset's
player view, engine/vae_victis/player_view.py, read by bellica/services/situation.py and written by
etl/situation.py), read back with GeoPandas/pyogrio."""

from __future__ import annotations

import json
from pathlib import Path

import geopandas as gpd
import pandas as pd
import pyogrio
import pytest

from bellica.engine.core.events import Event
from bellica.etl.situation import MANIFEST, UnknownFactionError
from bellica.services.situation import export_campaign as export_situation
from bellica.services.situation import read_situation
from bellica.geo.errors import InputError, BellicaError
from bellica.geo.spatialdb import connect
from bellica.schema import create_map_tables
from tests.engine.boards import sketch
from tests.engine.test_rounds import STRUCTURES, WATER
from tests.engine.test_state import make_campaign

LAYERS = ("armies", "control", "sieges", "supply_lines", "supplied_structures", "zoc")
DEMO = Path(__file__).resolve().parents[2] / "build" / "first-punic-war.duckdb"


def _put(table: str, **row) -> Event:
    return Event(1, "orders", "put_row", {"table": table, "row": row}, f"test: {table} {row}")


@pytest.fixture(scope="module")
def situation_campaign(tmp_path_factory):
    """A started campaign whose state the log moved on from the start: Cumae (nobody's at the
    start) is Roma's, army 9 (roma) besieges Capua (carthago) from the next hex, army 10 (roma)
    is a navy on the coast, army 1 (carthago) lost 100 FP."""
    path = tmp_path_factory.mktemp("situation") / "c.duckdb"
    m = sketch(radius=4, structures=STRUCTURES, water=WATER, roads=[["9 9", "9", ""], ["", "1", "1 1"]])
    c, m = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), m=m)
    c.start(seed=3)
    with c.transaction():
        snap = c.snapshot()
        c.append([
            _put("control", structure="Cumae", controller="roma"),
            _put("armies", id=9, faction="roma", cell=m.cell("3 3"), strength=1600, eliminated=False),
            _put("armies", id=10, faction="roma", cell=m.cell("9 9 9"), strength=1500, eliminated=False),
            _put("armies", id=1, faction="carthago", cell=m.cell("3 3 3"), strength=1500, eliminated=False),
            _put("sieges", structure="Capua", faction="roma", resilience=3, start_resilience=4, started_round=1),
            _put("siege_armies", structure="Capua", army=9),
        ], before=snap)
    c.close()
    return path, m


def test_umpire_situation_is_the_state_now_not_the_start(situation_campaign):
    path, m = situation_campaign
    s = read_situation(path)
    assert s.viewer is None and s.round == 1 and s.phase == "orders"
    control = s.layers["control"].set_index("structure")
    assert control.loc["Cumae", "controller"] == "roma" and pd.isna(control.loc["Cumae", "start_controller"])
    assert control.loc["Capua", "controller"] == "carthago" and control.loc["Capua", "besieged_by"] == "roma"
    armies = s.layers["armies"].set_index("id")
    assert list(armies["strength"]) == [1500, 1600, 1500]  # the umpire reads every strength
    assert armies.loc[10, "navy"] and armies.loc[10, "kind"] == "coast" and not armies.loc[9, "navy"]
    assert armies.loc[1, "structure"] == "Capua"
    # points at hex centres
    assert (armies.loc[9, "geometry"].x, armies.loc[9, "geometry"].y) == pytest.approx(
        tuple(reversed(__import__("h3").cell_to_latlng(m.cell("3 3")))))
    sieges = s.layers["sieges"]
    assert sieges[["structure", "faction", "controller", "resilience", "start_resilience", "armies"]].values.tolist() == [
        ["Capua", "roma", "carthago", 3, 4, "9"]]
    zoc = s.layers["zoc"]
    assert set(zoc["faction"]) == {"carthago", "roma"}
    # a besieged structure exercises no ZoC; army 9's own hex is in its ZoC
    assert not zoc["structures"].str.contains("Capua").any()
    here = zoc[(zoc["faction"] == "roma") & (zoc["cell"] == m.cell("3 3"))]
    assert here["armies"].tolist() == ["9"]
    assert zoc.geometry.geom_type.eq("Polygon").all()
    assert set(s.layers["supply_lines"]["faction"]) <= {"carthago", "roma", "syracusae"}
    assert "roma" in set(s.layers["supplied_structures"]["faction"])


def test_a_faction_sees_enemy_strength_hidden_and_only_its_own_lines(situation_campaign):
    path, _ = situation_campaign
    umpire = read_situation(path)
    s = read_situation(path, faction="CARTHAGO")  # any case, as everywhere a faction is typed
    assert s.viewer == "carthago"
    armies = s.layers["armies"].set_index("id")
    assert armies.loc[1, "strength"] == 1500
    assert armies.loc[[9, 10], "strength"].isna().all()  # hidden, as the faction map hides it
    assert len(armies) == len(umpire.layers["armies"])  # every counter is on the board
    assert "roma" in set(umpire.layers["supply_lines"]["faction"])
    for layer in ("supply_lines", "supplied_structures"):
        assert set(s.layers[layer]["faction"]) <= {"carthago"}
    roma = read_situation(path, faction="roma")
    assert set(roma.layers["supply_lines"]["faction"]) == {"roma"}
    assert set(roma.layers["supplied_structures"]["structure"]) >= {"Roma", "Ostia", "Cumae"}
    assert pd.isna(roma.layers["armies"].set_index("id").loc[1, "strength"])
    for layer in ("control", "sieges", "zoc"):  # public
        assert len(s.layers[layer]) == len(umpire.layers[layer])


def test_layers_read_back_from_geopackage_and_geojson(situation_campaign, tmp_path):
    path, _ = situation_campaign
    out, s = export_situation(path, tmp_path / "now", faction="roma")
    layers = dict(pyogrio.list_layers(out / "situation.gpkg"))
    assert list(layers) == list(LAYERS)
    assert layers["supply_lines"] == "LineString" and layers["zoc"] == "Polygon" and layers["armies"] == "Point"
    for name in LAYERS:
        for source in (dict(filename=out / "situation.gpkg", layer=name), dict(filename=out / "geojson" / f"{name}.geojson")):
            gdf = gpd.read_file(**source)
            assert gdf.crs.to_epsg() == 4326, (name, source)
            assert len(gdf) == len(s.layers[name]), (name, source)
    armies = gpd.read_file(out / "situation.gpkg", layer="armies").set_index("id")
    assert pd.isna(armies.loc[1, "strength"])
    assert armies.loc[10, "strength"] == 1500
    lines = gpd.read_file(out / "geojson" / "supply_lines.geojson")
    control = gpd.read_file(out / "geojson" / "control.geojson").set_index("structure")
    first = lines.iloc[0]
    assert first.geometry.coords[0] == pytest.approx(control.loc[first["from_structure"]].geometry.coords[0])
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["viewer"] == "roma" and manifest["round"] == 1 and manifest["layers"]["armies"] == 3
    assert manifest["per_viewer_layers"] == ["armies", "supply_lines", "supplied_structures"]


def test_one_format_only(situation_campaign, tmp_path):
    path, _ = situation_campaign
    out, _ = export_situation(path, tmp_path / "a", formats=("geojson",))
    assert sorted(p.name for p in out.iterdir()) == ["export.json", "geojson", "status.json"]
    out, _ = export_situation(path, tmp_path / "b", formats=("gpkg",))
    assert sorted(p.name for p in out.iterdir()) == ["export.json", "situation.gpkg", "status.json"]


def test_bad_input_is_one_line_and_writes_nothing(situation_campaign, tmp_path):
    path, _ = situation_campaign
    out = tmp_path / "out"
    with pytest.raises(UnknownFactionError, match="'gallia' is not a faction of this campaign: use one of carthago, roma"):
        export_situation(path, out, faction="gallia")
    map_db = tmp_path / "map.duckdb"
    con = connect(map_db)
    create_map_tables(con)
    con.close()
    with pytest.raises(InputError, match="is a map \\(from `bellica map build`\\), not a campaign"):
        export_situation(map_db, out)
    with pytest.raises(BellicaError, match="does not exist"):
        export_situation(tmp_path / "none.duckdb", out)
    text = tmp_path / "notes.duckdb"
    text.write_text("not a database\n")
    with pytest.raises(InputError, match="is not a DuckDB database"):
        export_situation(text, out)
    not_started = tmp_path / "new.duckdb"
    c, _ = make_campaign(not_started, m=sketch(radius=2, structures=STRUCTURES[:2]), placements=((9, "roma", "Roma"),))
    c.close()
    with pytest.raises(InputError, match="has not been started.*bellica round start"):
        export_situation(not_started, out)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers


def test_existing_output_needs_force_and_only_an_export_is_replaced(situation_campaign, tmp_path):
    path, _ = situation_campaign
    out, _ = export_situation(path, tmp_path / "now")
    with pytest.raises(InputError, match="exists: pass --force"):
        export_situation(path, out, faction="roma")
    assert json.loads((out / MANIFEST).read_text())["viewer"] == "umpire"  # kept
    export_situation(path, out, faction="roma", force=True)
    assert json.loads((out / MANIFEST).read_text())["viewer"] == "roma"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.txt").write_text("years of work")
    with pytest.raises(InputError, match="holds no earlier export.*even with --force"):
        export_situation(path, mine, force=True)
    assert (mine / "thesis.txt").read_text() == "years of work"
    with pytest.raises(InputError, match="is a file: an export is a folder"):
        export_situation(path, path, force=True)  # never the campaign itself
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "now"]


def test_a_failure_while_writing_keeps_the_earlier_export(situation_campaign, tmp_path):
    path, _ = situation_campaign
    out, _ = export_situation(path, tmp_path / "now")

    def broken(situation, folder):
        (folder / "half").write_text("x")
        raise InputError("the packet failed")

    with pytest.raises(InputError, match="the packet failed"):
        export_situation(path, out, force=True, extra=broken)
    assert not (out / "half").exists() and (out / "situation.gpkg").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["now"]


@pytest.mark.skipif(not DEMO.exists(), reason="the demo campaign (make demo) is not built")
def test_demo_campaign_exports_the_control_now(tmp_path):
    from bellica.etl.files import open_duckdb

    s = read_situation(DEMO, faction="Roma")
    con = open_duckdb(DEMO, what="campaign", fix="make demo")
    try:
        now = dict(con.execute("SELECT structure, controller FROM control").fetchall())
        start = dict(con.execute("SELECT name, controller FROM structures").fetchall())
        strengths = dict(con.execute("SELECT id, strength FROM armies WHERE faction = 'Roma'").fetchall())
    finally:
        con.close()
    control = s.layers["control"].set_index("structure")["controller"]
    assert {k: (None if v != v else v) for k, v in control.items()} == {k: now.get(k, start[k]) for k in start}
    armies = s.layers["armies"]
    assert armies[armies["faction"] != "Roma"]["strength"].isna().all()
    assert dict(zip(armies[armies["faction"] == "Roma"]["id"], armies[armies["faction"] == "Roma"]["strength"])) == strengths


def test_map_export_of_a_campaign_with_a_sea_zone_drawn_by_no_polygon(situation_campaign, tmp_path):
    # Bug: `bellica map export` failed with a TypeError on a sea zone whose geometry is NULL (the
    # synthetic boards write their zones so); the zone is now a row with an empty geometry.
    from bellica.etl.export import layers_from_map

    path, _ = situation_campaign
    layers = layers_from_map(path)
    assert "sea_zones" in layers and layers["sea_zones"].geometry.isna().all()
