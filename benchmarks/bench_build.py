"""Map build scaling (issue 11, item 5): per-stage seconds of a build of Italy at res 4, 5, 6 and 7.

Each resolution builds the named region ``italy`` (the Vae Victis map; res 7 is about 240k
hexes and 15-60 s) through :func:`bellica.etl.build.build_map`, and takes each stage's time
from its report (cells, neighbours, water fractions, elevation, rivers, classification,
write; total is their sum).  A stage is linear when its seconds per 1000 hexes stay flat, so
each row's value is that cost and its ratio is the cost over the same stage's cost at res 5
(the first resolution where fixed costs stop dominating): about 1 at res 6 and res 7 means
linear; the issue measured about 9x for 7x the hexes (ratio ~1.3) in the neighbour table
and the classification.

Old code in the same run: the neighbour table and the classification of
:data:`BASELINE_REV` (``geo/hexgrid.py`` and ``etl/terrain.py`` from ``git show``, loaded as
stand-alone modules; they import only ``bellica.geo.errors`` and ``bellica.datasets``) are timed
on the very inputs this tree's build used (the cells; the classification's input frames,
captured while the build runs), alternating with this tree's functions, median of the
repeats, and their output is compared row for row.  Without git (an exported tree) those rows
fall back to the issue's figures, named as such.  The classification compared is
classify_kinds + classify_terrain; the build's "classification" stage also holds the small-
island elevation fill (etl.dem, unchanged here).

Repeats: 3 builds per resolution up to res 6, 1 at res 7; ``quick`` skips res 7 and repeats once.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE_REV = "7e53d2a"
REGION = "italy"
STAGES = ("cells", "neighbours", "water fractions", "elevation", "rivers", "classification", "write")
ISSUE_FIGURES = {("neighbours", 6): 0.43, ("neighbours", 7): 3.98, ("classification", 6): 0.39, ("classification", 7): 3.64}
"""Old-code stage seconds from issue 11 (Italy, res 6 and 7), the fallback baseline without git."""


def _old_module(path: str, name: str) -> types.ModuleType | None:
    """``path`` of :data:`BASELINE_REV` as a module, or None when git cannot show it."""
    try:
        source = subprocess.run(["git", "show", f"{BASELINE_REV}:{path}"], cwd=ROOT, check=True, capture_output=True,
                                text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    module = types.ModuleType(name)
    module.__file__ = f"{BASELINE_REV}:{path}"
    sys.modules[name] = module  # dataclasses look their module up while the source runs
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def _old_rules() -> dict | None:
    """:data:`BASELINE_REV`'s datasets/terrain_rules.toml, or None when git cannot show it."""
    import tomllib

    try:
        return tomllib.loads(subprocess.run(["git", "show", f"{BASELINE_REV}:datasets/terrain_rules.toml"], cwd=ROOT,
                                            check=True, capture_output=True, text=True).stdout)
    except (OSError, subprocess.CalledProcessError):
        return None


@contextlib.contextmanager
def _capturing_classification(store: dict):
    """Record the input frames of classify_kinds and classify_terrain while a build runs."""
    from bellica.etl import terrain

    kinds, terr = terrain.classify_kinds, terrain.classify_terrain

    # The build's own frames: a build coarser than the terrain's ground resolution (res 4) also
    # classifies a res-5 map for its relief (issue 25), after its own kinds and before its terrain.
    def classify_kinds(cells, neighbors, *, rules, ocean=None):
        store.setdefault("kinds", (cells.copy(), neighbors, rules, ocean))
        return kinds(cells, neighbors, rules=rules, ocean=ocean)

    def classify_terrain(cells, neighbors, *, rules):
        if "terrain" not in store and cells["cell"].equals(store["kinds"][0]["cell"]):
            store["terrain"] = cells.copy()
        return terr(cells, neighbors, rules=rules)

    terrain.classify_kinds, terrain.classify_terrain = classify_kinds, classify_terrain
    try:
        yield store
    finally:
        terrain.classify_kinds, terrain.classify_terrain = kinds, terr


def _seconds(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def old_vs_new(captured: dict, old_hexgrid, old_terrain, repeat: int) -> dict[str, tuple[float, float, bool]]:
    """{stage: (new seconds, old seconds, identical output)} on one build's inputs, runs alternating."""
    import pandas as pd

    from bellica.etl import terrain
    from bellica.geo import hexgrid

    cells, neighbors, rules, ocean = captured["kinds"]
    terrain_in = captured["terrain"]
    ids = cells["cell"].tolist()

    def nb_new():
        return hexgrid.neighbor_frame(ids)

    def nb_old():
        return pd.DataFrame(old_hexgrid.neighbor_table(ids), columns=["cell", "neighbor", "clock", "bearing"])

    def classes(module, rules=rules):
        return lambda: (module.classify_kinds(cells, neighbors, rules=rules, ocean=ocean),
                        module.classify_terrain(terrain_in, neighbors, rules=rules))

    # The old code reads the rules file of its time (issue 25 replaced hex counts by km), so its
    # terrain differs from this tree's by design: only the kinds are compared.
    old_rules = _old_rules() or rules

    out = {}
    for stage, new, old in (("neighbours", nb_new, nb_old), ("classification", classes(terrain), classes(old_terrain, old_rules))):
        new_t, old_t, same = [], [], True
        for _ in range(repeat):
            t, got = _seconds(new)
            new_t.append(t)
            t, want = _seconds(old)
            old_t.append(t)
            if stage == "neighbours":
                same &= got.equals(want)
            else:
                same &= got[0].equals(want[0])
        out[stage] = (statistics.median(new_t), statistics.median(old_t), same)
    return out


def run(work_dir: Path, *, quick: bool) -> list[dict]:
    from bellica.etl.build import build_map

    work_dir = Path(work_dir)
    old_hexgrid = _old_module("geo/hexgrid.py", "_bench_old_hexgrid")
    old_terrain = _old_module("etl/terrain.py", "_bench_old_terrain")
    have_old = old_hexgrid is not None and old_terrain is not None
    resolutions = (4, 5, 6) if quick else (4, 5, 6, 7)
    per_res: dict[int, dict] = {}
    for res in resolutions:
        repeat = 1 if quick or res >= 7 else 3
        runs, captured = [], {}
        for _ in range(repeat):
            with _capturing_classification(captured):
                report = build_map(work_dir / f"build-{REGION}-{res}.duckdb", region=REGION, res=res, progress=False,
                                   force=True)
            runs.append({**report.seconds, "total": sum(report.seconds.values())})
        seconds = {stage: statistics.median(r[stage] for r in runs) for stage in (*STAGES, "total")}
        compared = old_vs_new(captured, old_hexgrid, old_terrain, 1 if quick else 3) if have_old else {}
        per_res[res] = {"cells": report.cells, "seconds": seconds, "repeat": repeat, "compared": compared,
                        "load": os.getloadavg()[0]}
        (work_dir / f"build-{REGION}-{res}.duckdb").unlink(missing_ok=True)

    def per_k(res: int, stage: str) -> float:
        return per_res[res]["seconds"][stage] / per_res[res]["cells"] * 1000.0

    rows = []
    for stage in (*STAGES, "total"):
        for res in resolutions:
            r = per_res[res]
            cost, base = per_k(res, stage), per_k(5, stage)
            rows.append({
                "name": f"map build scaling ({REGION}), {stage}, res {res}",
                "value": round(cost, 4),
                "unit": "s/1k hexes",
                "baseline": f"res 5: {base:.4f} s/1k hexes",
                "ratio": round(cost / base, 2) if base else None,
                "note": f"{r['seconds'][stage]:.3f} s for {r['cells']:,} hexes; median of {r['repeat']} builds; "
                        f"1-min load {r['load']:.1f}",
            })
    for stage in ("neighbours", "classification"):
        for res in resolutions:
            r = per_res[res]
            if have_old:
                new, old, same = r["compared"][stage]
                new5, old5, _ = per_res[5]["compared"][stage]
                growth = (f"per-hex cost vs res 5: {new / r['cells'] / (new5 / per_res[5]['cells']):.2f} now, "
                          f"{old / r['cells'] / (old5 / per_res[5]['cells']):.2f} before")
                rows.append({
                    "name": f"map build {stage}, res {res}: this tree vs {BASELINE_REV}",
                    "value": round(new, 3), "unit": "s",
                    "baseline": f"{BASELINE_REV}: {old:.3f} s", "ratio": round(new / old, 2),
                    "note": f"{r['cells']:,} hexes; {growth}; "
                            f"{'identical output' if same else 'OUTPUT DIFFERS'}"
                            f"{' (kinds; the terrain rules changed in issue 25)' if stage == 'classification' else ''}; "
                            f"median of {1 if quick else 3}, "
                            "alternating; "
                            + ("classify_kinds + classify_terrain" if stage == "classification" else "neighbor table"),
                })
            elif (stage, res) in ISSUE_FIGURES:
                value = r["seconds"][stage]
                old = ISSUE_FIGURES[(stage, res)]
                rows.append({
                    "name": f"map build {stage}, res {res}: this tree vs issue 11's figure",
                    "value": round(value, 3), "unit": "s",
                    "baseline": f"issue 11 (old code, another run): {old} s", "ratio": round(value / old, 2),
                    "note": f"{r['cells']:,} hexes; git could not show {BASELINE_REV}, so the old code was not run",
                })
    return rows


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        for row in run(Path(os.environ.get("BELLICA_BENCH_WORK", tmp)), quick="--quick" in sys.argv):
            print(json.dumps(row))
