"""Session-wide fixtures.

``mediterranean_map`` builds the embedded default map (res 5, ~5 s) once per run (the xdist
workers share it: :func:`build_shared`) for the tests that check real places; ``built_once`` does
the same for the campaigns many tests start from; everything else uses tiny synthetic fixtures
written in the test itself.
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable

import pytest

#: DuckDB on one thread per connection in every test process and every `bellica` a test runs (the
#: environment is inherited): the xdist workers already keep every core busy, and the suite's small
#: queries cost 13% less CPU on one thread than on DuckDB's one per core (geo/spatialdb.py).
os.environ.setdefault("BELLICA_DUCKDB_THREADS", "1")

#: Where the suite's files go when the machine has memory to spare: a tmpfs.  Every DuckDB commit
#: and checkpoint syncs its file to disk, and the suite writes thousands of campaign files; on a
#: disk it waits on those syncs (make test 10% faster on this project's machine).  Needs this much free.
TMPFS, TMPFS_FREE_BYTES = Path("/dev/shm"), 6 * 1024**3
#: A run's folder there, and the file in it naming the process that owns it.
TMPFS_PREFIX, RUN_PID_FILE = "bellica-tests-", "run.pid"


def remove_abandoned_runs(tmpfs: Path) -> None:
    """Remove the folders of earlier runs whose process is gone.  A run removes its own folder at
    its end, which a killed run (SIGKILL, an out-of-memory kill, a closed terminal) never reaches;
    on a tmpfs its files then hold the machine's memory until a reboot (22 GB once, and the next
    run thrashed).  A folder without a pid file, or whose process still runs (or whose pid a new
    process has taken), is left alone: removing a live run's files would fail it."""
    for folder in tmpfs.glob(f"{TMPFS_PREFIX}*"):
        try:
            if folder.stat().st_uid != os.getuid():
                continue  # another user's run (its pid may be in another namespace): theirs to remove
            pid = int((folder / RUN_PID_FILE).read_text())
        except (OSError, ValueError):
            continue
        if not _process_exists(pid):
            shutil.rmtree(folder, ignore_errors=True)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def pytest_configure(config) -> None:
    """The test files on :data:`TMPFS` (pytest's base temp folder and ``TMPDIR`` for what the code
    under test writes with ``tempfile``), unless a base temp folder is given, this is an xdist worker
    (it takes its controller's), or the tmpfs is missing or short of room."""
    if config.option.basetemp or os.environ.get("PYTEST_XDIST_WORKER") or not TMPFS.is_dir():
        return
    remove_abandoned_runs(TMPFS)
    if shutil.disk_usage(TMPFS).free < TMPFS_FREE_BYTES:
        return
    root = Path(tempfile.mkdtemp(prefix=TMPFS_PREFIX, dir=TMPFS))
    root.chmod(0o755)  # others may pass through, as through /tmp (the warm server's second-uid test)
    (root / RUN_PID_FILE).write_text(f"{os.getpid()}\n")
    config.option.basetemp = str(root / "pytest")
    os.environ["TMPDIR"] = str(root)
    tempfile.tempdir = None  # read TMPDIR again
    config.add_cleanup(lambda: shutil.rmtree(root, ignore_errors=True))

#: The tests that take a worker a minute or more (a whole README, every viewer of every game, whole
#: turns in browsers): collected first, so two workers start them early and the light tests fill in
#: around them, instead of one of them running alone at the end while the other worker idles.
#: (tests/etl/test_provinces_history.py left the list when its campaigns became built_once copies:
#: at the front it would wait on the locks of the files test_conformance is building.)
HEAVY_FIRST = ("tests/test_readme.py::test_readme_runs_as_written", "tests/test_conformance.py",
               "tests/app/test_app_provinces_browser.py", "tests/app/test_app_nodes_browser.py",
               "tests/app/test_app_axe.py",
               # ~2 minutes each under load (whole seeded Magna Graecia games; a Mare Nostrum turn by clicks)
               "tests/engine/magna_graecia/test_bots.py",
               "tests/app/test_app_steps_by_clicks_browser.py::test_a_mare_nostrum_turn_with_its_attack_clicked_on_the_map")


def pytest_collection_modifyitems(config, items) -> None:
    """:data:`HEAVY_FIRST` at the front, each keeping its order (the sort is stable)."""
    items.sort(key=lambda item: not item.nodeid.startswith(HEAVY_FIRST))


def pytest_sessionfinish(session) -> None:
    """The process's chromium and Playwright driver stopped, if a browser test started them
    (tests/web_maps/browser.py shares them between the browser tests of a process)."""
    browser = sys.modules.get("tests.web_maps.browser")
    if browser is not None:
        browser.stop_shared_session()


#: Files :func:`built_once` has built or fetched in this test process: key -> path.
_BUILT: dict[str, Path] = {}


def _shared_folder(tmp_path_factory) -> Path:
    """Where this run's test processes share the files they build: an xdist worker's base temp
    folder lies in its controller's, which every worker of the run shares (and which is new each
    run); without xdist, this process's own."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-once"
    folder.mkdir(exist_ok=True)
    return folder


def build_shared(folder: Path, key: str, build: Callable[[Path], None], suffix: str) -> Path:
    """``folder/KEY.SUFFIX``, the file ``build(path)`` writes, built by the first process of the run
    that asks for it (under a lock: another asking meanwhile waits for it, rather than building it
    again); never changed after.  Built in a folder of the builder's own and moved in whole, so a
    build that fails leaves nothing and the next process to ask builds it again."""
    import fcntl

    target = folder / f"{key}{suffix}"
    with open(folder / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            work = folder / f"{key}.building-{os.getpid()}"
            work.mkdir()
            build(work / target.name)
            os.replace(work / target.name, target)
    return target


@pytest.fixture(scope="session")
def mediterranean_map(tmp_path_factory) -> Path:
    """The embedded default map (res 5), built once for the run (every worker copies it: each has a
    file of its own)."""
    from bellica.etl.build import build_map

    shared = build_shared(_shared_folder(tmp_path_factory), "mediterranean-map",
                          lambda p: build_map(p, progress=False), ".duckdb")
    path = tmp_path_factory.mktemp("maps") / "mediterranean.duckdb"
    shutil.copyfile(shared, path)
    return path


#: The run's folder for :func:`shared_file` (set by the session fixture :func:`_shared_files`).
_SHARED_FOLDER: list[Path] = []


@pytest.fixture(scope="session", autouse=True)
def _shared_files(tmp_path_factory) -> None:
    """Where :func:`shared_file` keeps this run's files, known before any test or fixture asks."""
    _SHARED_FOLDER[:] = [_shared_folder(tmp_path_factory)]


def shared_file(key: str, build: Callable[[Path], None], dest: Path) -> Path:
    """A copy at ``dest`` of the file ``build(path)`` writes the first time a test process of the run
    asks for ``key`` (:func:`build_shared`: the xdist workers share it).  For the campaigns many tests
    start from (1-2 s to write, seconds with their map; ms to copy), each test still getting a file of
    its own to change.  The key names what ``build`` makes; two builders must never share one, and a
    build must not depend on the process that runs it.  A plain function, so that the helpers the
    test modules share (tests/cli/test_exit_codes.py's small campaigns, the Trossian base campaign)
    build through it too; the fixture :func:`built_once` is this function."""
    source = _BUILT.get(key)
    if source is None:
        source = _BUILT[key] = build_shared(_SHARED_FOLDER[0], key, build, Path(dest).suffix)
    # The folder may be new to this process: a test running first in its worker (or alone) asks for
    # a file under a folder an earlier test would have made (tests/engine/trossian/campaign_file.py).
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, dest)
    return Path(dest)


@pytest.fixture(scope="session")
def built_once() -> Callable[[str, Callable[[Path], None], Path], Path]:
    """``built_once(key, build, dest)``: :func:`shared_file`, as a fixture."""
    return shared_file


def scenario_map_file(scenario: str, dest: Path, res: int | None = None) -> Path:
    """A copy at ``dest`` of the map a shipped scenario (a province or a node one) is played on: the
    default map's data over its bbox at its resolution (or ``res``), as ``bellica campaign new``
    builds it without ``--map``.  Built once a run (:func:`shared_file`): a dozen test modules start
    from the same four maps, and the Mare Nostrum one alone costs 5 s of CPU to build."""
    from bellica.etl.scenario import is_node_scenario, load_node_scenario, load_province_scenario

    s = load_node_scenario(scenario) if is_node_scenario(scenario) else load_province_scenario(scenario)
    res = res or s.resolution

    def build(path: Path) -> None:
        from bellica.etl.build import build_map

        build_map(path, bbox=s.bbox, res=res, progress=False)
    return shared_file(f"scenario-map-{scenario.replace('/', '-')}-res{res}", build, dest)


@pytest.fixture(scope="session")
def scenario_map() -> Callable[..., Path]:
    """``scenario_map(scenario, dest, res=None)``: :func:`scenario_map_file`, as a fixture."""
    return scenario_map_file


#: The shipped scenarios played on hexes: their campaigns are made with a map built for them.
HEX_SCENARIOS = ("first-punic-war",)


def scenario_campaign_file(scenario: str, dest: Path) -> Path:
    """A copy at ``dest`` of a shipped scenario's campaign as ``bellica campaign new --scenario
    SCENARIO`` writes it, not started: a hex scenario's with its map built for it, a province or
    node scenario's on its map of :func:`scenario_map_file` (given as ``--map``: the map the command
    builds without it).  Built once a run: the case catalogue, the exit-code walk, the conformance
    test and the Trossian tests start from the same files instead of building each its own map."""
    def build(path: Path) -> None:
        if scenario in HEX_SCENARIOS:
            from bellica.etl.campaign import create_campaign

            create_campaign(scenario, path, force=True)
            return
        import contextlib
        import io

        from bellica.commands.campaign import new

        map_path = scenario_map_file(scenario, path.with_name("map.duckdb"))
        with contextlib.redirect_stdout(io.StringIO()):
            new.main(["--scenario", scenario, "--map", str(map_path), "--out", str(path), "-q"], standalone_mode=False)
    return shared_file(f"campaign-new-{scenario.replace('/', '-')}", build, dest)


@pytest.fixture(scope="session")
def first_punic_war() -> Callable[[Path], Path]:
    """``first_punic_war(dest)``: a copy at ``dest`` of the shipped First Punic War campaign as
    ``bellica campaign new --scenario first-punic-war`` writes it (its res-5 map built for the
    scenario), not started (:func:`scenario_campaign_file`): seven modules start from it."""
    return lambda dest: scenario_campaign_file("first-punic-war", dest)
