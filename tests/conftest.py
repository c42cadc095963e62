"""Session-wide fixtures.

``mediterranean_map`` builds the embedded default map (res 5, ~5 s) once per test
session for the tests that check real places; everything else uses tiny
synthetic fixtures written in the test itself.
"""

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mediterranean_map(tmp_path_factory) -> Path:
    from bellica.etl.build import build_map

    path = tmp_path_factory.mktemp("maps") / "mediterranean.duckdb"
    build_map(path, progress=False)
    return path
