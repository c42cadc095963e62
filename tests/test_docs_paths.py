"""The docs name files that exist (issue 19, item 6).

Every backticked token in README.md, docs/**/*.md and the READMEs under engine/ that looks like a
path (it holds a ``/`` and ends in a file suffix of :data:`SUFFIXES`, or in ``/`` for a folder)
must exist in the repository, relative to its root or to the document's folder.  A path with a
placeholder (``datasets/rules/<ruleset>.toml``) must have its folder up to the placeholder; one
with a glob or braces (``schema/*.sql``, ``{dionysian,pyrrhic}.toml``) must match a file for each
alternative.  Only :data:`NOT_IN_THE_REPOSITORY` is left out.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "engine").rglob("README.md"))]
SUFFIXES = (".py", ".sql", ".toml", ".md", ".csv", ".geojson", ".json", ".txt", ".tif", ".html", ".yml", ".yaml")
#: Paths the docs name that are not files of this repository, each for a reason (a prefix of the token).
NOT_IN_THE_REPOSITORY = {
    "build/": "where the examples write their maps and campaigns",
    "geojson/": "inside the folder `bellica export` writes",
    "packets/": "inside the folder `bellica export --packet` writes",
    "shared/seeds/": "the seed rule sets, kept beside the repository (../shared/seeds/), not in it",
    "../shared/seeds/": "the same, from docs/rules/",
    "tabula/": "another distribution's package folder, named where the README explains the name bellica",
}
TOKEN = re.compile(r"`([^`\n]+)`")


def doc_paths(doc: Path) -> list[str]:
    """The path-looking backticked tokens of ``doc``, in order."""
    found = []
    for token in TOKEN.findall(doc.read_text(encoding="utf-8")):
        token = token.strip()
        if " " in token or "/" not in token or "://" in token or not token.endswith((*SUFFIXES, "/")):
            continue
        if not token.startswith(tuple(NOT_IN_THE_REPOSITORY)):
            found.append(token)
    return found


def _alternatives(token: str) -> list[str]:
    """``a/{b,c}.toml`` -> ``a/b.toml``, ``a/c.toml`` (one level of braces, as the docs write them)."""
    m = re.search(r"\{([^{}]*)\}", token)
    return [token[:m.start()] + part + token[m.end():] for part in m[1].split(",")] if m else [token]


def exists(token: str, doc: Path) -> bool:
    for base in (ROOT, doc.parent):
        for one in _alternatives(token):
            fixed = one.split("<", 1)[0]
            if "<" in one:  # a placeholder: its folder must be there
                ok = (base / fixed).is_dir() if fixed.endswith("/") else (base / fixed).parent.is_dir()
            elif "*" in one:
                ok = any(base.glob(one))
            else:
                ok = (base / one).exists()
            if not ok:
                break
        else:
            return True
    return False


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_every_path_a_doc_names_exists(doc):
    missing = [token for token in doc_paths(doc) if not exists(token, doc)]
    assert not missing, f"{doc.relative_to(ROOT)} names paths that do not exist: {missing}"


def test_the_check_sees_paths_and_misses_none():
    readme = doc_paths(ROOT / "README.md")
    assert "datasets/terrain_rules.toml" in readme and "tests/test_stock_cli.py" in readme
    doc = ROOT / "docs" / "architecture.md"
    assert not exists("engine/rng.py", doc) and exists("engine/core/rng.py", doc)
    assert exists("datasets/rules/<ruleset>.toml", doc) and not exists("datasets/nowhere/<ruleset>.toml", doc)
    assert exists("datasets/scenarios/magna-graecia/{dionysian,pyrrhic}.toml", doc)
    assert not exists("datasets/scenarios/magna-graecia/{dionysian,atlantis}.toml", doc)
