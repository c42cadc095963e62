"""The distribution as users install it: one ``bellica`` namespace, every source file inside, layers kept.

The wheel is built once per session from the working tree (offline: setuptools from the
test extra, no build isolation), unpacked, and checked the way a user's environment
would see it.  The layering contracts live in pyproject.toml ``[tool.importlinter]`` and
are checked by import-linter on the unpacked wheel, so what is checked is what ships.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Source folder -> import name, as setup.py maps them.
FOLDERS = {
    "bellica": "bellica",
    "geo": "bellica/geo",
    "schema": "bellica/schema",
    "etl": "bellica/etl",
    "engine": "bellica/engine",
    "web_maps": "bellica/web_maps",
    "datasets": "bellica/datasets",
}
SHIPPED_SUFFIXES = {".py", ".sql", ".toml", ".csv", ".geojson", ".tif", ".parquet", ".md", ".html"}


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Build from a copy of the tracked tree, so build/ leftovers never leak into the check.
    src = out / "src"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    for name in files:
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(src)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (found,) = out.glob("bellica-*.whl")
    return found


@pytest.fixture(scope="session")
def unpacked(wheel, tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(dest)
    return dest


def test_wheel_installs_one_top_level_name(wheel):
    with zipfile.ZipFile(wheel) as z:
        tops = {name.split("/")[0] for name in z.namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"bellica"}


def test_wheel_holds_every_source_file(wheel):
    """Every tracked .py/.sql/.toml/... under a mapped folder is in the wheel at its mapped path."""
    with zipfile.ZipFile(wheel) as z:
        shipped = set(z.namelist())
    tracked = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", *FOLDERS], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    expected = {
        FOLDERS[name.split("/", 1)[0]] + "/" + name.split("/", 1)[1]
        for name in tracked
        if Path(name).suffix in SHIPPED_SUFFIXES and (ROOT / name).is_file()
    }
    assert expected, "no source files found"
    assert sorted(expected - shipped) == []


def _python(site: Path, code: str) -> subprocess.CompletedProcess:
    # Only the unpacked wheel on the path, run from an empty directory: the source tree and
    # its editable install must not be what answers the imports.
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1"}
    return subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); {code}"],
                          cwd=site, env=env, capture_output=True, text=True)


def test_wheel_does_not_shadow_same_named_distributions(unpacked, tmp_path):
    """A user's own ``datasets`` or ``geo`` package (HuggingFace, PyPI geo) still imports beside ours."""
    for name in ("datasets", "geo", "engine", "etl", "web_maps"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"WHO = 'theirs-{name}'\n")
    code = (
        f"sys.path.insert(0, {str(tmp_path)!r}); "
        "import datasets, geo, bellica.datasets, bellica.geo.hexgrid, bellica.engine.core.state; "
        "print(datasets.WHO, geo.WHO, bellica.datasets.__file__.startswith(sys.path[1]))"
    )
    proc = _python(unpacked, code)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["theirs-datasets", "theirs-geo", "True"]


def _lint(site: Path, *contracts: str) -> subprocess.CompletedProcess:
    lint = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(site)}
    only = [arg for c in contracts for arg in ("--contract", c)]
    return subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo", *only],
                          cwd=site, env=env, capture_output=True, text=True)


def test_layers_hold(unpacked):
    proc = _lint(unpacked)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("bellica/etl/build.py", "import bellica.engine.core.state", "layers"),
        ("bellica/web_maps/encode.py", "from bellica.engine.vae_victis import model", "layers"),
        ("bellica/geo/hexgrid.py", "import bellica.etl.build", "layers"),
        ("bellica/engine/core/rng.py", "import bellica.engine.vae_victis.model", "core"),
        ("bellica/engine/vae_victis/zoc.py", "import geo.hexgrid", "namespace"),
    ],
)
def test_layer_check_catches_an_upward_import(unpacked, tmp_path, module, line, contract):
    """The contracts are not vacuous: one bad import in a copy of the wheel fails them."""
    site = tmp_path / "site"
    shutil.copytree(unpacked, site)
    target = site / module
    target.write_text(target.read_text() + f"\n{line}\n")
    assert _lint(unpacked, contract).returncode == 0, f"contract {contract} is broken before the bad import"
    proc = _lint(site, contract)
    assert proc.returncode != 0
    assert line.split()[-1].replace("from ", "") in proc.stdout or module.replace("/", ".")[:-3] in proc.stdout


def test_wheel_installs_beside_tabula_py(wheel, unpacked):
    """tabula-py (a PDF-table library) installs a top-level ``tabula``: no file of ours may be one of
    its files, and with both on the path each import answers from its own distribution."""
    from importlib.metadata import distribution

    theirs = {str(f) for f in distribution("tabula-py").files}
    with zipfile.ZipFile(wheel) as z:
        ours = set(z.namelist())
    assert any(f.startswith("tabula/") for f in theirs), "tabula-py no longer installs tabula/: rewrite this test"
    assert ours & theirs == set()
    site_packages = str(Path(distribution("tabula-py").locate_file("")))
    proc = _python(unpacked, f"sys.path.append({site_packages!r}); import tabula, bellica.cli; "
                             "print(callable(tabula.read_pdf), bellica.cli.__file__.startswith(sys.path[0]))")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["True", "True"]


def test_wheel_carries_licence_and_project_urls(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = z.read(meta).decode()
        licences = [n for n in names if n.endswith("/LICENSE") and ".dist-info/" in n]
        assert licences, names[-10:]
        assert "MIT License" in z.read(licences[0]).decode()
    assert "Name: bellica" in metadata
    assert "License-Expression: MIT" in metadata
    urls = [line for line in metadata.splitlines() if line.startswith("Project-URL:")]
    assert {u.split(":", 1)[1].split(",")[0].strip() for u in urls} >= {"Homepage", "Source", "Issues"}
