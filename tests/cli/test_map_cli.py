"""`bellica map ...` end to end, through the installed console script."""

import subprocess
import sys
from pathlib import Path

import pytest

BELLICA = [sys.executable, "-m", "bellica.cli"]


def run(*args, cwd=None):
    return subprocess.run([*BELLICA, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


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
        (["--region", "sicily", "--res", "15"], "over the limit of 1,000,000"),  # was a MemoryError
        (["--bbox", "48,31,51.5,33"], "past the edge of the embedded"),  # was land turned into sea
    ],
)
def test_bad_input_is_one_line_and_nonzero(tmp_path, args, message):
    out = tmp_path / "m.duckdb"
    r = run("map", "build", "--out", str(out), "--quiet", *args)
    assert r.returncode != 0
    assert message in r.stderr
    assert len([line for line in r.stderr.strip().splitlines() if line.strip()]) <= 3  # click usage line + error
    assert not out.exists()


# --- issue 8 ------------------------------------------------------------------------------

TINY = "12.2,41.6,12.7,42.0"
ROOT = Path(__file__).resolve().parents[2]


def one_error_line(r) -> str:
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def test_map_build_over_a_started_campaign_is_refused_even_with_force(tmp_path):
    import duckdb

    campaign = tmp_path / "started_campaign.duckdb"
    con = duckdb.connect(str(campaign))
    con.execute("CREATE TABLE events (seq INTEGER, text VARCHAR)")
    con.execute("INSERT INTO events VALUES (1, 'round 1 started')")
    con.close()
    before = campaign.read_bytes()
    for extra in ([], ["--force"]):
        line = one_error_line(run("map", "build", "--bbox", TINY, "--res", "5", "--out", str(campaign), "--quiet", *extra))
        assert "holds a campaign" in line
    assert campaign.read_bytes() == before


def test_map_build_and_export_need_force_to_replace(tmp_path):
    out = tmp_path / "m.duckdb"
    out.write_text("not yet a map")
    assert "exists: pass --force" in one_error_line(run("map", "build", "--bbox", TINY, "--res", "5", "--out", str(out), "--quiet"))
    assert out.read_text() == "not yet a map"
    r = run("map", "build", "--bbox", TINY, "--res", "5", "--out", str(out), "--quiet", "--force")
    assert r.returncode == 0, r.stderr
    gpkg = tmp_path / "m.gpkg"
    gpkg.write_text("mine")
    assert "exists: pass --force" in one_error_line(run("map", "export", str(out), "--out", str(gpkg)))
    assert gpkg.read_text() == "mine"
    assert run("map", "export", str(out), "--out", str(gpkg), "--force").returncode == 0
    assert gpkg.read_bytes()[:16] == b"SQLite format 3\x00"


@pytest.mark.parametrize("content", ["text", "empty", "truncated"])
def test_map_info_and_export_of_a_file_that_is_not_duckdb(tmp_path, content):
    bad = tmp_path / "t.duckdb"
    if content == "truncated":
        import duckdb

        con = duckdb.connect(str(tmp_path / "real.duckdb"))
        con.execute("CREATE TABLE hexes AS SELECT range AS cell, 'land' AS kind FROM range(200000)")
        con.close()
        bad.write_bytes((tmp_path / "real.duckdb").read_bytes()[:20000])
    else:
        bad.write_text("hi\n" if content == "text" else "")
    assert "t.duckdb" in one_error_line(run("map", "info", str(bad)))
    assert "t.duckdb" in one_error_line(run("map", "export", str(bad), "--out", str(tmp_path / "x.gpkg")))
    assert not (tmp_path / "x.gpkg").exists()


@pytest.mark.parametrize("out", ["afile/m.duckdb", "/proc/m.duckdb"])
def test_map_build_to_an_impossible_out(tmp_path, out):
    (tmp_path / "afile").write_text("x")
    line = one_error_line(run("map", "build", "--bbox", TINY, "--res", "5", "--out", out, "--quiet", cwd=tmp_path))
    assert "choose an --out in a writable folder" in line


def test_make_demo_rebuilds_its_map_with_force():
    # `make demo` rebuilds build/mediterranean.duckdb on purpose, so it runs twice in a row
    lines = [line for line in (ROOT / "Makefile").read_text().splitlines() if "map build" in line]
    assert lines and all("--force" in line for line in lines)


@pytest.mark.parametrize("args, hint", [
    (["--res", "٥"], "--res"),                     # Arabic-Indic five: int() would take it as 5
    (["--res", "1_0"], "--res"),
    (["--bbox", "١٢,40.8,13.8,42.3"], "--bbox"),   # float() would take it as 12
    (["--bbox", "nan,40.8,13.8,42.3"], "--bbox"),
    (["--min-river-km", "inf"], "--min-river-km"),
])
def test_numbers_are_ascii_digits_regression(tmp_path, args, hint):
    """click's INT and FLOAT are Python's int()/float(): other scripts' digits, underscores and
    nan/inf passed as numbers. Every number typed at the CLI is ASCII digits now."""
    proc = run("map", "build", "--out", str(tmp_path / "m.duckdb"), *args)
    assert proc.returncode == 2, proc.stderr
    assert hint in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []


# --- issue 19: every file named, Dask paths and logs, no dashboard ----------------------------------


def test_map_export_to_geoparquet_names_every_file_it_wrote(tmp_path):
    out = tmp_path / "m.duckdb"
    assert run("map", "build", "--bbox", TINY, "--res", "5", "--out", str(out), "--quiet").returncode == 0
    r = run("map", "export", str(out), "--out", "x.parquet", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    named = r.stdout.splitlines()
    assert named == ["x.parquet", "x_map_rivers.parquet"]  # the hexes' file first, then one per other layer
    assert all((tmp_path / name).is_file() for name in named)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["m.duckdb", *named])


CLUSTER = """
import sys
from distributed import LocalCluster

if __name__ == "__main__":
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, protocol="tcp", dashboard_address=None)
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()  # until the test closes our stdin
    cluster.close()
"""


@pytest.fixture
def scheduler_elsewhere(tmp_path):
    """The address of a Dask scheduler whose worker process runs in another working folder, as a
    scheduler started in another terminal (or on another machine) does."""
    import select

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "cluster.py").write_text(CLUSTER)
    proc = subprocess.Popen([sys.executable, "cluster.py"], cwd=elsewhere, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        address = proc.stdout.readline().strip() if ready else ""
        assert address.startswith("tcp://"), "the cluster did not start"
        yield address
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.slow  # starts a Dask cluster: make long
def test_dask_build_with_a_relative_dem_on_a_scheduler_started_elsewhere(tmp_path, scheduler_elsewhere):
    # The workers opened "dem.tif" in their own folder: "the file is damaged; re-create it" and a
    # traceback (issue 19).  The client now gives them the absolute path.
    from tests.etl.test_build import write_dem

    data = tmp_path / "data"
    data.mkdir()
    write_dem(data / "dem.tif")
    build = ("map", "build", "--bbox", TINY, "--res", "5", "--quiet")
    r = run(*build, "--dem", "dem.tif", "--scheduler", scheduler_elsewhere, "--out", "dask.duckdb", cwd=data)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    r = run(*build, "--dem", "dem.tif", "--no-dask", "--out", "local.duckdb", cwd=data)
    assert r.returncode == 0, r.stderr
    import duckdb

    def elevations(name):
        with duckdb.connect(str(data / name), read_only=True) as con:
            return con.execute("SELECT cell, elev_mean, elev_samples FROM hexes ORDER BY cell").fetchall()

    assert elevations("dask.duckdb") == elevations("local.duckdb")
    with duckdb.connect(str(data / "dask.duckdb"), read_only=True) as con:
        assert con.execute("SELECT value FROM map_meta WHERE key = 'dem'").fetchone()[0] == str(data / "dem.tif")

    # a missing file: checked here, before anything is submitted, and named as missing
    line = one_error_line(run(*build, "--dem", "nosuch.tif", "--scheduler", scheduler_elsewhere, "--out", "n.duckdb",
                              cwd=data))
    assert line == "error: DEM nosuch.tif does not exist: pass an existing file with --dem"


def test_a_dem_the_workers_cannot_see_is_named_missing_on_the_worker(tmp_path, scheduler_elsewhere):
    # the client sees the file, a worker (another machine, another mount) does not: the worker's
    # error comes back as one line naming the file as missing there, not as damaged
    from distributed import Client

    from bellica.etl.dem import WindowJob, window_partials
    from bellica.geo.errors import MissingInputError

    unseen = tmp_path / "only-here" / "dem.tif"
    job = WindowJob(str(unseen), 1, 0, 0, 16, 16, 5, 1, 2, (0.01, 0.0, 12.0, 0.0, -0.01, 42.0), "EPSG:4326", True)
    with Client(scheduler_elsewhere, set_as_default=False) as client:
        with pytest.raises(MissingInputError) as e:  # the class itself, unpickled from the worker process
            client.submit(window_partials, job, pure=False).result()
    message = str(e.value)
    assert message.startswith(f"DEM {unseen} does not exist on Dask worker tcp://") and "damaged" not in message
    assert "\n" not in message


@pytest.mark.slow  # starts three Dask clusters: make long
def test_dask_build_logs_nothing_below_warning_unless_verbose_and_starts_no_dashboard(tmp_path):
    # -q did not silence distributed's ~33 INFO lines, shown even without -q; among them
    # "dashboard at: http://127.0.0.1:8787/status" though the dashboard was off (issue 19)
    build = ("map", "build", "--bbox", TINY, "--res", "5", "--dask")
    r = run(*build, "--out", str(tmp_path / "a.duckdb"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    r = run("--verbose", *build, "--out", str(tmp_path / "b.duckdb"))
    assert r.returncode == 0, r.stderr
    chatter = [line for line in r.stderr.splitlines() if line.startswith("INFO distributed.")]
    assert len(chatter) > 10, r.stderr  # --verbose shows them
    assert "dashboard" not in r.stderr.lower() and ":8787" not in r.stderr
    r = run("--verbose", *build, "--quiet", "--out", str(tmp_path / "c.duckdb"))
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stderr.splitlines() if "distributed" in line] == [], r.stderr
