"""Terrain across resolutions (issue 25): does the same land get the same terrain at every resolution?

Agreement: the embedded Mediterranean is built at res 5 and res 6 (the hex attributes of
:func:`bellica.etl.build.hex_attributes`, no file written), and every res-6 land hex whose res-5
parent (``h3.cell_to_parent``) is a land hex of the res-5 map votes with its area (h3's): the share
of that area whose terrain equals the parent's, with the (parent, child) pairs that disagree most.
Mixed ground disagrees by nature (a res-5 hex is one terrain, its seven children may be two); what
the ground rules remove is the disagreement of the counting rules (hexes to the coast or a river).

Before and after in the same run: "before" is the terrain classification of :data:`BASELINE_REV` (the
last commit whose rules counted hexes: its ``etl/terrain.py`` and ``datasets/terrain_rules.toml`` from
``git show``, loaded as a stand-alone module) on the very frames this tree's build produced (kinds,
elevations and river flags are the same code), "after" is this tree's.  The rows also give the res-5
land hexes whose terrain the new rules changed (the scenarios were designed on res-5 maps), and, for
points well inside six uniform regions, the terrain of their hex on small maps at res 4 to 7.

``run(work_dir, quick=...)`` returns rows {name, value, unit, baseline, ratio, note} for
``benchmarks/run.py``.  Run alone: ``python -m benchmarks.bench_terrain``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import tomllib
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE_REV = "7e3ca08"
"""The last commit before the ground rules (issue 25): hexes to the coast, river or lake hexes next door."""
RESOLUTIONS = (4, 5, 6, 7)
REGIONS = {
    "Nile delta (Tanta)": (30.8, 31.0),
    "Nile valley (Minya)": (28.1, 30.75),
    "Mesaoria, Cyprus": (35.15, 33.5),
    "Po plain (Cremona)": (45.1, 10.0),
    "Sahara's edge (Sirte)": (30.5, 17.5),
    "Alpine valley (the Inn at Innsbruck)": (47.27, 11.39),
}
"""The points of tests/etl/test_terrain_resolutions.py, on maps of the same small bboxes."""
HALF_DEG = {4: 0.5, 5: 0.5, 6: 0.35, 7: 0.35}


def _row(name, value, unit, baseline="", ratio="", note=""):
    return {"name": name, "value": value, "unit": unit, "baseline": baseline, "ratio": ratio, "note": note}


def _git_show(path: str) -> str | None:
    try:
        return subprocess.run(["git", "show", f"{BASELINE_REV}:{path}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def baseline_classifier():
    """``classify(cells, neighbors) -> terrain`` of :data:`BASELINE_REV` with its own rules file, or None
    without git (an exported tree)."""
    source, rules = _git_show("etl/terrain.py"), _git_show("datasets/terrain_rules.toml")
    if source is None or rules is None:
        return None
    module = types.ModuleType("_bench_baseline_terrain")
    module.__file__ = f"{BASELINE_REV}:etl/terrain.py"
    sys.modules[module.__name__] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    old_rules = tomllib.loads(rules)
    return lambda cells, neighbors: module.classify_terrain(cells, neighbors, rules=old_rules)


def _attributes(bbox, res: int):
    from bellica.etl.build import BuildOptions, hex_attributes

    cells, neighbors, _, _ = hex_attributes(BuildOptions(bbox=bbox, res=res, progress=False))
    return cells, neighbors


def agreement(fine, fine_terrain, coarse, coarse_terrain, coarse_res: int) -> tuple[float, list[tuple[str, str, float]], int]:
    """(share of the finer map's land area whose terrain is its parent's, the disagreeing (parent,
    child, share of area) pairs largest first, land hexes counted)."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    from h3ronpy import cells_area_km2, cells_parse, cells_to_string, change_resolution

    land = (fine["kind"] == "land").to_numpy()
    ints = cells_parse(pa.array(fine["cell"].to_numpy(dtype=object)[land], type=pa.large_string()))
    parents = pa.array(cells_to_string(change_resolution(ints, coarse_res))).to_numpy(zero_copy_only=False)
    parent_terrain = pd.Series(np.asarray(coarse_terrain, dtype=object),
                               index=coarse["cell"].to_numpy()).where(coarse["kind"].to_numpy() == "land")
    votes = pd.DataFrame({"parent": parent_terrain.reindex(parents).to_numpy(),
                          "child": np.asarray(fine_terrain, dtype=object)[land], "km2": np.asarray(cells_area_km2(ints))})
    votes = votes[votes["parent"].notna()]
    total = votes["km2"].sum()
    same = votes["parent"] == votes["child"]
    pairs = votes[~same].groupby(["parent", "child"])["km2"].sum().sort_values(ascending=False) / total
    return float(votes.loc[same, "km2"].sum() / total), [(p, c, float(s)) for (p, c), s in pairs.items()], len(votes)


def _pairs(pairs, n=4) -> str:
    return ", ".join(f"{p} -> {c} {100 * s:.1f} %" for p, c, s in pairs[:n])


def mediterranean_rows(old) -> list[dict]:
    from bellica.etl.build import region_bbox

    bbox = region_bbox()
    maps = {res: _attributes(bbox, res) for res in (4, 5, 6)}
    after = {res: cells["terrain"].to_numpy(dtype=object) for res, (cells, _) in maps.items()}
    before = {res: old(cells, neighbors).to_numpy(dtype=object) for res, (cells, neighbors) in maps.items()} if old else {}
    rows = []
    for fine, main in ((6, True), (5, False)):
        name = (f"terrain: res-{fine} land area whose terrain is its res-{fine - 1} parent's (Mediterranean)"
                + ("" if main else "; res-4 relief read at res 5 since issue 25"))
        (cf, _), (cc, _) = maps[fine], maps[fine - 1]
        now, now_pairs, n = agreement(cf, after[fine], cc, after[fine - 1], fine - 1)
        if not before:
            rows.append(_row(name, round(100 * now, 1), "%", "", "", f"{n:,} land hexes; git could not show "
                             f"{BASELINE_REV}: no before; most disagreeing: {_pairs(now_pairs)}"))
            continue
        was, was_pairs, _ = agreement(cf, before[fine], cc, before[fine - 1], fine - 1)
        rows.append(_row(name, round(100 * now, 1), "%", f"{BASELINE_REV} (hex counts): {100 * was:.1f} %",
                         round(now / was, 3), f"{n:,} res-{fine} land hexes, area-weighted; most disagreeing (parent -> "
                         f"child, share of the land): now {_pairs(now_pairs)}; before {_pairs(was_pairs)}"))
    if before:
        rows.append(res5_changes(maps[5][0], before[5], after[5]))
    return rows


def res5_changes(cells, before, after) -> dict:
    land = (cells["kind"] == "land").to_numpy()
    changed = land & (after != before)
    kinds: dict[str, int] = {}
    for b, a in zip(before[changed], after[changed]):
        kinds[f"{b} -> {a}"] = kinds.get(f"{b} -> {a}", 0) + 1
    top = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:5])
    return _row("terrain: res-5 land hexes whose terrain the ground rules changed (Mediterranean)", int(changed.sum()),
                "hexes", f"of {int(land.sum()):,} land hexes", round(changed.sum() / land.sum(), 4),
                f"the scenarios were designed on res-5 maps; {top}")


def region_rows(old) -> list[dict]:
    rows = []
    for name, (lat, lng) in REGIONS.items():
        import h3

        now, was = {}, {}
        for res in RESOLUTIONS:
            half = HALF_DEG[res]
            cells, neighbors = _attributes((lng - half, lat - half, lng + half, lat + half), res)
            at = cells.index[cells["cell"] == h3.latlng_to_cell(lat, lng, res)][0]
            now[res] = cells.loc[at, "terrain"]
            if old is not None:
                was[res] = old(cells, neighbors).loc[at]
        shown = lambda d: " ".join(f"{r}:{t}" for r, t in d.items())  # noqa: E731
        rows.append(_row(f"terrain at res 4-7, {name} ({lat} N, {lng} E): classes seen", len(set(now.values())), "classes",
                         f"{BASELINE_REV}: {len(set(was.values()))}" if was else "", "",
                         f"now {shown(now)}" + (f"; before {shown(was)}" if was else "")))
    return rows


def run(work_dir: Path, *, quick: bool) -> list[dict]:
    old = baseline_classifier()
    return mediterranean_rows(old) + region_rows(old)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-terrain-") as tmp:
        for row in run(Path(tmp), quick="--quick" in sys.argv):
            print(json.dumps(row))
