"""A campaign file opens in the stock DuckDB CLI (PyPI ``duckdb-cli``, the pinned duckdb's version).

Regression (#7, stock-tool compatibility): the CLI must print no warning for any
table or view of a campaign, and the geometry columns must carry their CRS, so
that a hex's area is right whatever the ``geometry_always_xy`` setting (before,
``ST_Area_Spheroid`` on a hex read 358 km2 or 259 km2 depending on it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import h3
import pytest

from bellica.geo.spatialdb import connect, spatial_extension_path
from bellica.schema import existing_tables
from tests.etl.test_campaign import build_synthetic_map, write_synthetic_scenario

# The CRS-aware area: the column's own CRS (OGC:CRS84) to an equal-area projection (EPSG:6933,
# WGS 84 / NSIDC EASE-Grid 2.0 Global); always_xy := true says the axes are (x, y) as stored.
CRS_AREA_KM2 = "ST_Area(ST_Transform(geom, 'EPSG:6933', always_xy := true)) / 1e6"


def stock_cli() -> Path:
    cli = Path(sys.executable).with_name("duckdb")
    if not cli.is_file():
        pytest.fail(f"no stock duckdb CLI at {cli}: install the test extra (`pip install -e .[test]`, duckdb-cli)")
    return cli


def run_cli(db: Path, sql: str) -> list[str]:
    """Run ``sql`` read-only on ``db`` in the stock CLI with the pinned spatial extension; CSV lines out."""
    done = subprocess.run(
        [str(stock_cli()), "-init", "/dev/null", "-readonly", "-csv", "-noheader", str(db),
         "-c", f"LOAD '{spatial_extension_path()}'; {sql}"],
        capture_output=True, text=True, timeout=120, cwd=db.parent,
    )
    # The CLI prints DuckDB's warnings on stdout, its errors on stderr.
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "WARNING" not in done.stdout.upper(), done.stdout
    return done.stdout.splitlines()


def test_stock_cli_is_the_pinned_duckdb():
    version = subprocess.run([str(stock_cli()), "--version"], capture_output=True, text=True, timeout=60).stdout
    assert version.split()[0] == f"v{duckdb.__version__}"


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    from bellica.etl.campaign import create_campaign

    root = tmp_path_factory.mktemp("stock")
    out = root / "campaign.duckdb"
    create_campaign(write_synthetic_scenario(root / "scenario"), out, map_path=build_synthetic_map(root / "map.duckdb"))
    return out


def _tables(db: Path) -> list[str]:
    con = connect(db, read_only=True)
    try:
        return sorted(existing_tables(con))
    finally:
        con.close()


def _select_everything(db: Path) -> None:
    tables = _tables(db)
    lines = run_cli(db, " ".join(f'SELECT count(*) FROM "{t}";' for t in tables))
    assert len(lines) == len(tables)


def test_every_table_and_view_reads_without_a_warning(campaign):
    assert {"hexes", "structures", "road_edges", "structure_resilience"} <= set(_tables(campaign))
    _select_everything(campaign)


@pytest.mark.parametrize("setting", [None, "true", "false"])
def test_a_hex_area_is_right_whatever_the_axis_setting(campaign, setting):
    con = connect(campaign, read_only=True)
    cell = con.execute("SELECT cell FROM hexes ORDER BY cell LIMIT 1").fetchone()[0]
    con.close()
    expected = h3.cell_area(cell, "km^2")
    set_axis = f"SET geometry_always_xy = {setting};" if setting else ""
    crs, area = run_cli(campaign, f"{set_axis} SELECT ST_CRS(geom), {CRS_AREA_KM2} FROM hexes WHERE cell = '{cell}';")[0].split(",")
    assert crs == "OGC:CRS84"
    assert float(area) == pytest.approx(expected, rel=0.01)


def test_area_spheroid_is_right_once_the_axes_are_said(campaign):
    # ST_Area_Spheroid ignores the column's CRS in spatial 1.5.5 and warns unless the axis order is set;
    # with lon/lat declared (as the README says) it agrees with H3.
    con = connect(campaign, read_only=True)
    cell = con.execute("SELECT cell FROM hexes ORDER BY cell DESC LIMIT 1").fetchone()[0]
    con.close()
    (area,) = run_cli(campaign, f"SET geometry_always_xy = true; SELECT ST_Area_Spheroid(geom) / 1e6 FROM hexes WHERE cell = '{cell}';")
    assert float(area) == pytest.approx(h3.cell_area(cell, "km^2"), rel=0.01)


def test_a_started_campaign_reads_without_a_warning(campaign, tmp_path):
    """After `bellica round start` (state tables, event log, the logistics views)."""
    started = tmp_path / "started.duckdb"
    started.write_bytes(campaign.read_bytes())
    done = subprocess.run([str(Path(sys.executable).with_name("bellica")), "round", "start", str(started)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {"events", "logistics_lines"} <= set(_tables(started))
    _select_everything(started)
