"""Every view the docs name has a row in benchmarks/bench_views.py (issue 11, part 2).

The views are read from docs/sql.md's catalogue (``#### `name` (view)``); the README names only
views of that catalogue (checked too).  No timing is asserted here: the figures are the
benchmark's.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def doc_views() -> set[str]:
    return set(re.findall(r"^#### `(\w+)` \(view\)", (ROOT / "docs" / "sql.md").read_text(), re.M))


def test_every_view_of_the_catalogue_is_benchmarked():
    from benchmarks.bench_views import VIEWS

    views = doc_views()
    assert len(views) > 20, "docs/sql.md's catalogue headings changed: update doc_views()"
    missing = sorted(views - set(VIEWS))
    assert not missing, f"docs/sql.md names views benchmarks/bench_views.py does not time: add {missing} to VIEWS"
    stale = sorted(set(VIEWS) - views)
    assert not stale, f"benchmarks/bench_views.py times views docs/sql.md does not name: {stale}"


def doc_ror_views() -> set[str]:
    """The Rise of Rome views of docs/sql.md's "Rise of Rome campaigns" section (a Vae Victis
    campaign file does not hold them, so their entries read ``(Rise of Rome view)``)."""
    return set(re.findall(r"^#### `(\w+)` \(Rise of Rome view\)", (ROOT / "docs" / "sql.md").read_text(), re.M))


def test_every_rise_of_rome_view_of_the_catalogue_is_benchmarked():
    from benchmarks.bench_views import ROR_VIEWS

    views = doc_ror_views()
    assert views, "docs/sql.md's Rise of Rome headings changed: update doc_ror_views()"
    assert views == set(ROR_VIEWS), (f"docs/sql.md's Rise of Rome views {sorted(views)} and "
                                     f"benchmarks/bench_views.py's ROR_VIEWS {sorted(ROR_VIEWS)} differ")


def doc_mn_views() -> set[str]:
    """The Mare Nostrum views of docs/sql.md's "Mare Nostrum campaigns" section (``(Mare Nostrum view)``)."""
    return set(re.findall(r"^#### `(\w+)` \(Mare Nostrum view\)", (ROOT / "docs" / "sql.md").read_text(), re.M))


def test_every_mare_nostrum_view_of_the_catalogue_is_benchmarked():
    from benchmarks.bench_views import MN_VIEWS

    views = doc_mn_views()
    assert views, "docs/sql.md's Mare Nostrum headings changed: update doc_mn_views()"
    assert views == set(MN_VIEWS), (f"docs/sql.md's Mare Nostrum views {sorted(views)} and "
                                    f"benchmarks/bench_views.py's MN_VIEWS {sorted(MN_VIEWS)} differ")


def test_the_readme_names_only_catalogued_views():
    views = doc_views() | doc_ror_views() | doc_mn_views()
    named = re.findall(r"\(views? ([^)]*)\)", (ROOT / "README.md").read_text())
    for group in named:
        for name in re.findall(r"`(\w+)`", group):
            assert name in views, f"README.md names view {name!r} that docs/sql.md does not catalogue"


def test_the_rewritten_views_keep_their_old_definition_as_baseline():
    from benchmarks.bench_views import OLD_SQL, VIEWS
    from tests.engine.test_views_speed_rewrite import OLD_SQL as TESTED

    assert set(OLD_SQL) <= set(VIEWS)
    assert {k: " ".join(v.split()) for k, v in OLD_SQL.items()} == {k: " ".join(v.split()) for k, v in TESTED.items()}
