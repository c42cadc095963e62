"""`tabula campaign ...` end to end through the real entry point (tabula.cli.main)."""

from __future__ import annotations

from tabula.geo.spatialdb import connect
from tabula.cli import main
from tests.etl.test_campaign import build_synthetic_map, write_synthetic_scenario


def run(argv, capsys):
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_new_place_structures_on_synthetic(tmp_path, capsys):
    m = build_synthetic_map(tmp_path / "map.duckdb")
    scen = write_synthetic_scenario(tmp_path / "scen")
    out = tmp_path / "c.duckdb"
    code, stdout, err = run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m)], capsys)
    assert code == 0, err
    assert "7 structures" in stdout and "4 armies placed" in stdout and "note: structure Shoretown" in stdout
    code, stdout, err = run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m)], capsys)
    assert code == 1 and "exists" in err and "--force" in err
    p = tmp_path / "p.csv"
    p.write_text("army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Bcapitol\n3,Beta,Btown\n4,Beta,Hilltown\n")
    code, stdout, err = run(["campaign", "place", str(out), str(p)], capsys)
    assert code == 1 and err.strip().startswith("error: p.csv line 3: army 2 of Alpha starts in Bcapitol") and "\n" not in err.strip()
    p.write_text("army,faction,structure\n1,Alpha,Atown\n2,Alpha,Acapitol\n3,Beta,Btown\n4,Beta,Hilltown\n")
    code, stdout, err = run(["campaign", "place", str(out), str(p)], capsys)
    assert code == 0 and "4 armies placed" in stdout
    code, stdout, _ = run(["campaign", "structures", str(out)], capsys)
    assert code == 0 and "Marshtown" in stdout


def test_check_and_list_scenarios(capsys):
    code, stdout, _ = run(["campaign", "scenarios"], capsys)
    assert code == 0 and "first-punic-war" in stdout and "dionysian-sicily" in stdout
    code, stdout, _ = run(["campaign", "check", "--scenario", "first-punic-war"], capsys)
    assert code == 0 and "16 placements: OK" in stdout and "Hipponium" in stdout


def test_second_scenario_builds_its_own_map(tmp_path, capsys):
    """No --map: the map is built for the scenario's own region and resolution (res 6 here)."""
    out = tmp_path / "sicily.duckdb"
    code, stdout, err = run(["campaign", "new", "--scenario", "dionysian-sicily", "--out", str(out), "-q"], capsys)
    assert code == 0, err
    assert "(map built)" in stdout and "15 structures" in stdout
    con = connect(out, read_only=True)
    assert con.execute("SELECT DISTINCT res FROM hexes").fetchall() == [(6,)]
    assert con.execute("SELECT count(*) FROM factions").fetchone()[0] == 3
    assert con.execute("SELECT resilience FROM structure_resilience WHERE structure = 'Syracusae'").fetchone()[0] >= 3 + 2
    assert con.execute("SELECT count(*) FROM hexes WHERE kind = 'ocean'").fetchone()[0] > 0
    con.close()


def test_missing_scenario_is_one_line(tmp_path, capsys):
    code, _, err = run(["campaign", "new", "--scenario", "no-such", "--out", str(tmp_path / "x.duckdb")], capsys)
    assert code == 1 and "no scenario.toml" in err and not (tmp_path / "x.duckdb").exists()
