"""A Trossian campaign file for the campaign, CLI and map tests: the shipped scenario made the
way `bellica campaign new --scenario trossian` makes it (its map built at resolution 4 once per
test session, a second or two), copied fresh for each test."""

from __future__ import annotations

import shutil
from pathlib import Path

_BUILT: dict[str, Path] = {}


def base_campaign(folder: Path) -> Path:
    """The campaign made once (under ``folder``), not started."""
    if "base" not in _BUILT or not _BUILT["base"].is_file():
        from bellica.engine.core.ruleset import get_ruleset
        from bellica.etl.campaign import create_province_campaign
        from bellica.etl.scenario import load_province_scenario

        scenario = load_province_scenario("trossian")
        writer = get_ruleset(scenario.ruleset).write_scenario_folder
        from bellica.etl.build import build_map

        map_path = folder / "trossian-map.duckdb"
        build_map(map_path, bbox=scenario.bbox, res=scenario.resolution, force=True, progress=False)
        out = folder / "trossian-base.duckdb"
        create_province_campaign(scenario, out, fill=lambda con: writer(con, scenario.directory), map_path=map_path)
        _BUILT["base"] = out
    return _BUILT["base"]


def fresh_campaign(base_folder: Path, to: Path) -> Path:
    """A copy of the base campaign at ``to``."""
    shutil.copyfile(base_campaign(base_folder), to)
    return to
