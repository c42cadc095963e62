"""`tabula map ...` end to end, through the installed console script."""

import subprocess
import sys
from pathlib import Path

import pytest

TABULA = [sys.executable, "-m", "tabula.cli"]


def run(*args, cwd=None):
    return subprocess.run([*TABULA, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_build_info_export(tmp_path):
    out = tmp_path / "sicily.duckdb"
    r = run("map", "build", "--region", "sicily", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    assert "hexes" in r.stdout and out.exists()
    r = run("map", "info", str(out))
    assert r.returncode == 0 and "kind: " in r.stdout
    r = run("map", "export", str(out), "--out", str(tmp_path / "sicily.gpkg"))
    assert r.returncode == 0 and (tmp_path / "sicily.gpkg").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--res", "16"], "resolution 16 is outside 0-15"),
        (["--bbox", "13,41,12,42"], "empty"),
        (["--bbox", "1,2,3"], "west,south,east,north"),
        (["--dem", "no/such.tif"], "does not exist"),
        (["--region", "atlantis"], "unknown region"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(tmp_path, args, message):
    out = tmp_path / "m.duckdb"
    r = run("map", "build", "--out", str(out), "--quiet", *args)
    assert r.returncode != 0
    assert message in r.stderr
    assert len([line for line in r.stderr.strip().splitlines() if line.strip()]) <= 3  # click usage line + error
    assert not out.exists()
