"""`bellica campaign ...` end to end through the real entry point (bellica.cli.main)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bellica.geo.spatialdb import connect
from bellica.cli import main
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


# --- issue 8: non-DuckDB map arguments, a map given as a campaign, killed runs -----------


def one_error(code, err) -> str:
    assert code == 1 and "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.mark.parametrize("content", ["text", "empty", "truncated"])
def test_campaign_new_map_that_is_not_duckdb(tmp_path, capsys, content):
    m = build_synthetic_map(tmp_path / "real.duckdb")
    bad = tmp_path / "t.duckdb"
    if content == "truncated":
        bad.write_bytes(m.read_bytes()[:300000])
    else:
        bad.write_text("hi\n" if content == "text" else "")
    scen = write_synthetic_scenario(tmp_path / "scen")
    out = tmp_path / "c.duckdb"
    line = one_error(*run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(bad)], capsys)[::2])
    assert "t.duckdb" in line and not out.exists()


def test_campaign_structures_on_a_map_file(tmp_path, capsys):
    m = build_synthetic_map(tmp_path / "map.duckdb")
    line = one_error(*run(["campaign", "structures", str(m)], capsys)[::2])
    assert "is a map, not a campaign" in line
    text = tmp_path / "t.duckdb"
    text.write_text("hi\n")
    assert "not a readable DuckDB database" in one_error(*run(["campaign", "structures", str(text)], capsys)[::2])
    assert "not a readable DuckDB database" in one_error(*run(["campaign", "place", str(text), str(text)], capsys)[::2])


def test_campaign_new_to_an_impossible_out(tmp_path, capsys):
    m = build_synthetic_map(tmp_path / "map.duckdb")
    scen = write_synthetic_scenario(tmp_path / "scen")
    (tmp_path / "afile").write_text("x")
    for out in (tmp_path / "afile" / "c.duckdb", Path("/proc/c.duckdb")):
        line = one_error(*run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m)], capsys)[::2])
        assert "choose an --out in a writable folder" in line


def test_killed_campaign_new_leaves_nothing_after_the_next_run(tmp_path, capsys):
    """kill -9 during `campaign new` leaves its work folder; the next run for that --out removes it."""
    m = build_synthetic_map(tmp_path / "map.duckdb")
    scen = write_synthetic_scenario(tmp_path / "scen")
    out = tmp_path / "c.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "bellica.cli", "campaign", "new", "--scenario", str(scen), "--out", str(out),
                             "--map", str(m)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pattern = f".c.duckdb.{proc.pid}.tmpdir"
    deadline = time.monotonic() + 60
    while not (tmp_path / pattern).exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if not (tmp_path / pattern).exists():
        pytest.skip("the run finished before it could be killed")
    assert not out.exists()
    code, _, err = run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m), "-q"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.duckdb", "map.duckdb", "scen"]
