"""A Trossian campaign file for the campaign, CLI and map tests: the shipped scenario made the
way `bellica campaign new --scenario trossian` makes it (its map built at resolution 4 once per
run, a second or two), copied fresh for each test."""

from __future__ import annotations

import shutil
from pathlib import Path

_BUILT: dict[str, Path] = {}


def base_campaign(folder: Path) -> Path:
    """The campaign made once a run (tests/conftest.py, scenario_campaign_file), copied under
    ``folder`` once per test process, not started."""
    if "base" not in _BUILT or not _BUILT["base"].is_file():
        from tests.conftest import scenario_campaign_file

        _BUILT["base"] = scenario_campaign_file("trossian", folder / "trossian-base.duckdb")
    return _BUILT["base"]


def fresh_campaign(base_folder: Path, to: Path) -> Path:
    """A copy of the base campaign at ``to``."""
    shutil.copyfile(base_campaign(base_folder), to)
    return to
