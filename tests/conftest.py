"""Session-wide fixtures.

``mediterranean_map`` builds the embedded default map (res 5, ~5 s) once per test
session for the tests that check real places; everything else uses tiny
synthetic fixtures written in the test itself.
"""

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import pytest

#: Where the suite's files go when the machine has memory to spare: a tmpfs.  Every DuckDB commit
#: and checkpoint syncs its file to disk, and the suite writes thousands of campaign files; on a
#: disk it waits on those syncs (make test 10% faster on this project's machine).  Needs this much free.
TMPFS, TMPFS_FREE_BYTES = Path("/dev/shm"), 6 * 1024**3


def pytest_configure(config) -> None:
    """The test files on :data:`TMPFS` (pytest's base temp folder and ``TMPDIR`` for what the code
    under test writes with ``tempfile``), unless a base temp folder is given, this is an xdist worker
    (it takes its controller's), or the tmpfs is missing or short of room."""
    if config.option.basetemp or os.environ.get("PYTEST_XDIST_WORKER") or not TMPFS.is_dir():
        return
    if shutil.disk_usage(TMPFS).free < TMPFS_FREE_BYTES:
        return
    root = Path(tempfile.mkdtemp(prefix="bellica-tests-", dir=TMPFS))
    root.chmod(0o755)  # others may pass through, as through /tmp (the warm server's second-uid test)
    config.option.basetemp = str(root / "pytest")
    os.environ["TMPDIR"] = str(root)
    tempfile.tempdir = None  # read TMPDIR again
    config.add_cleanup(lambda: shutil.rmtree(root, ignore_errors=True))

#: The tests that take a worker a minute or more (a whole README, every viewer of every game, whole
#: turns in browsers): collected first, so two workers start them early and the light tests fill in
#: around them, instead of one of them running alone at the end while the other worker idles.
HEAVY_FIRST = ("tests/test_readme.py::test_readme_runs_as_written", "tests/test_conformance.py",
               "tests/etl/test_provinces_history.py", "tests/app/test_app_provinces_browser.py",
               "tests/app/test_app_nodes_browser.py", "tests/app/test_app_axe.py")


def pytest_collection_modifyitems(config, items) -> None:
    """:data:`HEAVY_FIRST` at the front, each keeping its order (the sort is stable)."""
    items.sort(key=lambda item: not item.nodeid.startswith(HEAVY_FIRST))


#: Files :func:`built_once` has built in this test process: key -> path.
_BUILT: dict[str, Path] = {}


@pytest.fixture(scope="session")
def mediterranean_map(tmp_path_factory) -> Path:
    from bellica.etl.build import build_map

    path = tmp_path_factory.mktemp("maps") / "mediterranean.duckdb"
    build_map(path, progress=False)
    return path


@pytest.fixture(scope="session")
def built_once(tmp_path_factory) -> Callable[[str, Callable[[Path], None], Path], Path]:
    """``built_once(key, build, dest)``: a copy at ``dest`` of the file ``build(path)`` writes the
    first time this test process asks for ``key``.  For the synthetic campaigns many tests start
    from (1-2 s to write, ms to copy), each test still getting a file of its own to change.  The
    key names what ``build`` makes; two builders must never share one."""
    root = tmp_path_factory.mktemp("built-once")

    def copy(key: str, build: Callable[[Path], None], dest: Path) -> Path:
        source = _BUILT.get(key)
        if source is None:
            source = root / f"{key}{Path(dest).suffix}"
            build(source)
            _BUILT[key] = source
        shutil.copyfile(source, dest)
        return dest
    return copy
