"""`bellica export`: the situation now and the player packets, end to end on a small synthetic campaign."""

from __future__ import annotations

import json

import geopandas as gpd
import pandas as pd
import pyogrio
import pytest

from bellica.cli import main
from bellica.engine.vae_victis.orders import parse_orders_text
from tests.engine.boards import sketch
from tests.engine.test_rounds import STRUCTURES, WATER
from tests.engine.test_state import make_campaign
from tests.cli.test_round_cli import bellica


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A campaign after one round (army 9 of roma took Cumae, nobody's at the start), in round 2's
    orders phase with roma's orders in (sealed: carthago has not submitted)."""
    path = tmp_path_factory.mktemp("export") / "c.duckdb"
    m = sketch(radius=4, structures=STRUCTURES, water=WATER)
    c, m = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), m=m)
    c.close()
    capsys = _Capture()
    for step in (["round", "start", path], ["round", "publish", path],
                 ["round", "orders", path, "--faction", "roma", "9=1 1", "10="],
                 ["round", "orders", path, "--faction", "carthago", "1="],
                 ["round", "move", path], ["round", "administer", path], ["round", "victory", path],
                 ["round", "publish", path],
                 ["round", "orders", path, "--faction", "roma", "9=0 0 9", "10="]):
        code, out, err = capsys.run(step)
        assert code == 0, (step, out, err)
    return path


class _Capture:
    """capsys for a module-scoped fixture: main() with stdout/stderr captured."""

    def run(self, args):
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        code = 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main([str(a) for a in args])
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
        return code, out.getvalue(), err.getvalue()


def test_export_writes_the_control_now(played, tmp_path, capsys):
    out = tmp_path / "now"
    code, text, err = bellica(capsys, "export", played, "--out", out)
    assert code == 0, err
    assert text.startswith(f"{out}: round 2, phase orders, as the umpire sees it: 3 armies, 4 control")
    control = gpd.read_file(out / "situation.gpkg", layer="control").set_index("structure")
    assert control.loc["Cumae", "controller"] == "roma"  # the state now ...
    assert pd.isna(control.loc["Cumae", "start_controller"])  # ... not the start
    assert sorted(p.name for p in (out / "geojson").iterdir()) == sorted(
        f"{n}.geojson" for n in ("armies", "control", "sieges", "supply_lines", "supplied_structures", "zoc"))
    assert [n for n, _ in pyogrio.list_layers(out / "situation.gpkg")] == [
        "armies", "control", "sieges", "supply_lines", "supplied_structures", "zoc"]
    # the starting controller is the scenario's, in the structures table
    import duckdb

    with duckdb.connect(str(played), read_only=True) as con:
        assert con.execute("SELECT controller FROM structures WHERE name = 'Cumae'").fetchone() == (None,)


def test_a_faction_export_hides_enemy_strength(played, tmp_path, capsys):
    out = tmp_path / "carthago"
    code, _, err = bellica(capsys, "export", played, "--out", out, "--faction", "Carthago", "--format", "geojson")
    assert code == 0, err
    armies = gpd.read_file(out / "geojson" / "armies.geojson").set_index("id")
    assert armies.loc[1, "strength"] == 1600
    assert armies.loc[[9, 10], "strength"].isna().all()
    lines = gpd.read_file(out / "geojson" / "supply_lines.geojson")
    assert lines.empty or set(lines["faction"]) <= {"carthago"}  # an empty GeoJSON keeps no columns
    assert not (out / "situation.gpkg").exists()
    assert json.loads((out / "export.json").read_text())["viewer"] == "carthago"


def test_packet_per_faction(played, tmp_path, capsys):
    out = tmp_path / "mail"
    code, text, err = bellica(capsys, "export", played, "--out", out, "--packet", "--format", "gpkg")
    assert code == 0, err
    assert f"player packets: {out}/packets/carthago, {out}/packets/roma, {out}/packets/syracusae" in text
    for faction, armies in (("roma", [9, 10]), ("carthago", [1]), ("syracusae", [])):
        here = out / "packets" / faction
        assert sorted(p.name for p in here.iterdir()) == ["log.jsonl", "log.txt", "map.html", "orders-round-2.toml",
                                                          "situation.gpkg", "status.json"]
        template = (here / "orders-round-2.toml").read_text()
        parsed = parse_orders_text(template, "template")
        assert parsed.faction == faction and parsed.round == 2
        assert list(parsed.orders) == armies  # exactly the faction's live armies, each standing in place
        assert all(o.moves == () for o in parsed.orders.values())
        # the log as `bellica log --faction F` prints it
        code, log_text, _ = bellica(capsys, "log", played, "--faction", faction)
        assert (here / "log.txt").read_text() == log_text
        # the faction's map (`bellica render map --faction F`) and its own situation, others' strengths hidden
        assert (here / "map.html").stat().st_size > 0
        own = gpd.read_file(here / "situation.gpkg", layer="armies")
        assert own[own["faction"] != faction]["strength"].isna().all()
    roma = (out / "packets" / "roma" / "orders-round-2.toml").read_text()
    assert "# army 9, 1600 FP: hex " in roma and "at Cumae" in roma
    # roma's round-2 moves ("0 0 9") are in roma's own log only, sealed from every other faction
    assert "0 0 9" in (out / "packets" / "roma" / "log.jsonl").read_text()
    for other in ("carthago", "syracusae"):
        for name in ("log.txt", "log.jsonl", "map.html", "orders-round-2.toml"):
            assert "0 0 9" not in (out / "packets" / other / name).read_text(), (other, name)
        assert "orders received for army 9 from roma, sealed" in (out / "packets" / other / "log.txt").read_text()


def test_a_faction_packet_holds_only_that_faction(played, tmp_path, capsys):
    out = tmp_path / "roma"
    code, text, err = bellica(capsys, "export", played, "--out", out, "--faction", "roma", "--packet")
    assert code == 0, err
    assert [p.name for p in (out / "packets").iterdir()] == ["roma"]
    armies = gpd.read_file(out / "situation.gpkg", layer="armies").set_index("id")
    assert pd.isna(armies.loc[1, "strength"]) and armies.loc[9, "strength"] == 1600


def test_bad_input_is_one_line_and_nothing_is_written(played, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = bellica(capsys, "export", played, "--out", out, "--faction", "gallia", "--packet")
    assert code == 2 and "'gallia' is not a faction of this campaign: use one of carthago, roma, syracusae" in err
    map_db = tmp_path / "map.duckdb"
    from bellica.geo.spatialdb import connect
    from bellica.schema import create_map_tables

    con = connect(map_db)
    create_map_tables(con)
    con.close()
    code, _, err = bellica(capsys, "export", map_db, "--out", out)
    assert code == 1 and err.startswith("error: ") and "is a map (from `bellica map build`), not a campaign" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = bellica(capsys, "export", tmp_path / "none.duckdb", "--out", out)
    assert code == 1 and "does not exist" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
    code, _, err = bellica(capsys, "export", played, "--out", out)
    assert code == 0, err
    code, _, err = bellica(capsys, "export", played, "--out", out, "--packet")
    assert code == 1 and err.strip() == f"error: {out} exists: pass --force to replace it, or choose another --out"
    assert not (out / "packets").exists()
    code, _, err = bellica(capsys, "export", played, "--out", out, "--packet", "--force")
    assert code == 0, err
    assert (out / "packets" / "roma" / "map.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.duckdb", "out"]  # no leftovers
