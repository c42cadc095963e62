"""What a `bellica round` step loads (issue 11, part 1): no map or GIS stack, no spatial extension.

Each command runs in a fresh interpreter (as the `bellica` script does), which then reports the
modules it imported and whether the campaign's DuckDB database loaded the spatial extension
(``duckdb_extensions()``, read on the step's own connection just before the step closes it).  No timing is asserted: the times are benchmarks/bench_cli.py's.

duckdb's Python client imports pandas (with numpy and pyarrow) the first time a query parameter
is bound, so bellica writes its parameters as SQL literals (geo/spatialdb.py): the steps below
load none of them.  The steps that compute logistics (start, move, administer, and verify, which
replays start) load none of them either: the logistics run on the campaign's own connection, their
graph searches are plain Python (no numpy, scipy or networkx).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.test_round_cli import bellica
# The campaign (synthetic map, not started) and it started with seed 5: files built once a run.
from tests.cli.test_sql_console import campaign, started  # noqa: F401  (fixtures)

#: Never on a round step: the map/GIS stack and the web map's.
NEVER = ("geopandas", "shapely", "folium", "branca", "jinja2", "h3ronpy", "rasterio", "scipy")
#: Not on the steps without logistics either (module doc).
NO_FRAMES = ("pandas", "pyarrow", "numpy")
#: Nor on the steps that compute logistics (module doc).
NO_GRAPH_LIBS = ("networkx", "scipy", "numpy", "pandas", "pyarrow")

PROBE = r"""
import json, sys
from bellica.engine.core.campaign import Campaign

loaded = set()
_close = Campaign.close

def close(self):
    if not self.closed:  # read the step's connection just before the step closes it
        loaded.update(n for (n,) in self.con.execute(
            "SELECT extension_name FROM duckdb_extensions() WHERE loaded").fetchall())
    return _close(self)

Campaign.close = close
from bellica.cli import main

code = 0
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else 1
print("PROBE" + json.dumps({"code": code, "modules": sorted(m for m in sys.modules if "." not in m),
                            "extensions": sorted(loaded)}))
"""


def probe(*args) -> dict:
    """Run ``bellica ARGS`` in a fresh interpreter; its exit code, top-level modules and loaded extensions."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE")), None)
    assert line is not None, proc.stderr[-3000:]
    return json.loads(line[len("PROBE"):])


def test_round_status_loads_no_gis_stack_no_pandas_and_no_spatial(started):
    got = probe("round", "status", started)
    assert got["code"] == 0
    assert not set(got["modules"]) & set(NEVER + NO_FRAMES)
    assert "spatial" not in got["extensions"]


def test_writing_steps_without_logistics_load_no_pandas_numpy_or_spatial(started, capsys):
    # A whole round: the steps with no logistics run in a fresh interpreter, the others in-process.
    for args in (("round", "initiative", started, "--faction", "roma", "9=strength"), ("round", "publish", started),
                 ("round", "orders", started, "--faction", "roma", "9=", "10="),  # no move: no engagement
                 ("round", "orders", started, "--faction", "carthago", "1="),
                 ("round", "show", started), ("log", started), ("round", "status", started)):
        got = probe(*args)
        assert got["code"] == 0, args
        assert not set(got["modules"]) & set(NEVER + NO_FRAMES), args
        assert "spatial" not in got["extensions"], args
    for args in (("round", "move", started), ("round", "administer", started)):
        code, _, err = bellica(capsys, *args)
        assert code == 0, err
    got = probe("round", "victory", started)
    assert got["code"] == 0
    assert not set(got["modules"]) & set(NEVER + NO_FRAMES)
    assert "spatial" not in got["extensions"]
    assert probe("round", "status", started)["code"] == 0


def test_schema_catalog_reads_the_same_without_spatial():
    # schema._catalog reads the schema files on a plain database (no spatial load on every step).
    import duckdb

    from bellica import schema
    from bellica.geo.spatialdb import connect

    assert schema._read_catalog(duckdb.connect()) == schema._read_catalog(connect())


def test_the_probe_sees_spatial_when_a_step_loads_it(started, monkeypatch):
    # The checks above could pass vacuously if the probe could not see a loaded extension: here
    # every campaign connection loads it, as before issue 11.
    code = PROBE.replace("from bellica.cli import main", "import bellica.engine.core.campaign_file as cf\n"
                         "_open = cf.open_connection\n"
                         "cf.open_connection = lambda path, *, read_only: cf.load_spatial(_open(path, read_only=read_only))\n"
                         "from bellica.cli import main")
    proc = subprocess.run([sys.executable, "-c", code, "round", "status", str(started)], capture_output=True, text=True,
                          timeout=300)
    got = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE"))[len("PROBE"):])
    assert got["code"] == 0 and "spatial" in got["extensions"]


def test_steps_with_logistics_load_no_numpy_scipy_networkx_or_pandas(campaign):
    path = campaign
    steps = (("round", "start", path, "--seed", "5"),  # builds the static logistics tables (the block search)
             ("round", "initiative", path, "--faction", "roma", "9=strength"), ("round", "publish", path),
             ("round", "orders", path, "--faction", "roma", "9=", "10="), ("round", "orders", path, "--faction", "carthago", "1="),
             ("round", "move", path), ("round", "administer", path), ("round", "verify", path))
    for args in steps:
        got = probe(*args)
        assert got["code"] == 0, args
        assert not set(got["modules"]) & set(NEVER + NO_GRAPH_LIBS), args
