"""What a `tabula round` step loads (issue 11, part 1): no map or GIS stack, no spatial extension.

Each command runs in a fresh interpreter (as the `tabula` script does), which then reports the
modules it imported and whether the campaign's DuckDB database loaded the spatial extension
(``duckdb_extensions()``, read on the step's own connection just before the step closes it).  No timing is asserted: the times are benchmarks/bench_cli.py's.

`round orders` binds query parameters, and duckdb's Python client imports pandas (with numpy
and pyarrow) to check every non-NULL parameter against ``pandas.NA``: that import is DuckDB's,
not tabula's, so for a writing step only the rest of the list is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.test_round_cli import tabula
from tests.engine.boards import sketch
from tests.engine.test_rounds import STRUCTURES, WATER
from tests.engine.test_state import make_campaign

#: Never on a round step: the map/GIS stack and the web map's.
NEVER = ("geopandas", "shapely", "folium", "branca", "jinja2", "h3ronpy", "rasterio", "scipy")
#: Not on a read-only step either: what only a parameterized DuckDB query brings in (module doc).
NOT_READ_ONLY = ("pandas", "pyarrow", "numpy")

PROBE = r"""
import json, sys
from tabula.engine.core.campaign import Campaign

loaded = set()
_close = Campaign.close

def close(self):
    if not self.closed:  # read the step's connection just before the step closes it
        loaded.update(n for (n,) in self.con.execute(
            "SELECT extension_name FROM duckdb_extensions() WHERE loaded").fetchall())
    return _close(self)

Campaign.close = close
from tabula.cli import main

code = 0
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else 1
print("PROBE" + json.dumps({"code": code, "modules": sorted(m for m in sys.modules if "." not in m),
                            "extensions": sorted(loaded)}))
"""


def probe(*args) -> dict:
    """Run ``tabula ARGS`` in a fresh interpreter; its exit code, top-level modules and loaded extensions."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE")), None)
    assert line is not None, proc.stderr[-3000:]
    return json.loads(line[len("PROBE"):])


@pytest.fixture
def started(tmp_path, capsys):
    path = tmp_path / "c.duckdb"
    con, _ = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")),
                           m=sketch(radius=4, structures=STRUCTURES, water=WATER))
    con.close()
    code, _, err = tabula(capsys, "round", "start", path, "--seed", "5")
    assert code == 0, err
    return path


def test_round_status_loads_no_gis_stack_no_pandas_and_no_spatial(started):
    got = probe("round", "status", started)
    assert got["code"] == 0
    assert not set(got["modules"]) & set(NEVER + NOT_READ_ONLY)
    assert "spatial" not in got["extensions"]


def test_round_orders_loads_no_gis_stack_and_no_spatial(started):
    got = probe("round", "orders", started, "--faction", "roma", "9=3 3", "10=")
    assert got["code"] == 0
    assert not set(got["modules"]) & set(NEVER)
    assert "spatial" not in got["extensions"]


def test_the_probe_sees_spatial_when_a_step_loads_it(started, monkeypatch):
    # The checks above could pass vacuously if the probe could not see a loaded extension: here
    # every campaign connection loads it, as before issue 11.
    code = PROBE.replace("from tabula.cli import main", "import tabula.engine.core.campaign_file as cf\n"
                         "_open = cf.open_connection\n"
                         "cf.open_connection = lambda path, *, read_only: cf.load_spatial(_open(path, read_only=read_only))\n"
                         "from tabula.cli import main")
    proc = subprocess.run([sys.executable, "-c", code, "round", "status", str(started)], capture_output=True, text=True,
                          timeout=300)
    got = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE"))[len("PROBE"):])
    assert got["code"] == 0 and "spatial" in got["extensions"]
