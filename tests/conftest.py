"""Session-wide fixtures.

``mediterranean_map`` builds the embedded default map (res 5, ~5 s) once per test
session for the tests that check real places; everything else uses tiny
synthetic fixtures written in the test itself.
"""

import shutil
from pathlib import Path
from typing import Callable

import pytest

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
