"""The web app serves a ruleset from outside the repository with no edit of bellica/app (issue 20, parts 4 and 6).

The example distribution ``examples/bellica-archidamian`` is imported in-process from its folder
(its module registers the ruleset, as its entry point does once installed:
tests/cli/test_installed_ruleset.py installs it in a venv and plays its command line); a campaign
of its scenario is made and started through the command line, and the generic page of declared
steps (bellica/app/step_forms.py) plays a year: each side's march form, the umpire's resolve once
both marched, Post/Redirect/Get, and Athens' sealed dispatch on no page or JSON of Sparta's or the
umpire's until the year is resolved.  The registry and the imported modules are put back after.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from tests.app.test_app_nodes import T, _log_len, _tokens, client  # noqa: E402
from tests.cli.test_rise_of_rome_cli import bellica  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bellica-archidamian"
SECRET = "Ravage-the-Megarid-at-dawn"


@pytest.fixture
def war(capsys, tmp_path, monkeypatch):
    from bellica.engine.core import ruleset as registry

    if not (EXAMPLE / "archidamian" / "ruleset.py").is_file():
        pytest.skip("the example ruleset is not in this tree")
    monkeypatch.syspath_prepend(str(EXAMPLE))
    try:
        import archidamian.ruleset  # noqa: F401  (registers the ruleset, as its entry point does)

        path = tmp_path / "war.duckdb"
        code, _o, err = bellica(capsys, "campaign", "new", "--scenario", "archidamian-war", "--out", path)
        assert code == 0, err
        code, _o, err = bellica(capsys, "archidamian", "start", path, "--seed", "431")
        assert code == 0, err
        yield path, _tokens(path)
    finally:
        # Only the example's ruleset leaves the registry: the in-tree ones registered meanwhile stay
        # (their modules stay imported, so they would not register again).
        for name, ruleset in list(registry._REGISTRY.items()):
            if type(ruleset).__module__.split(".")[0] == "archidamian":
                del registry._REGISTRY[name]
        for name in [m for m in sys.modules if m == "archidamian" or m.startswith("archidamian.")]:
            del sys.modules[name]


def test_an_installed_rulesets_year_played_on_the_generic_page(war):
    path, tokens = war
    ath, spa, ump = client(path, tokens["Athens"]), client(path, tokens["Sparta"]), client(path, tokens["umpire"])
    page = T(ath.get("/"))
    assert 'id="form-march"' in page and '<label for="march-target">' in page and 'placeholder="Megaris"' in page
    assert 'id="form-resolve"' not in T(ump.get("/"))  # no side has marched yet
    r = ath.post("/step/march", data={"target": "Megaris", "dispatch": SECRET})
    assert r.status_code == 303 and SECRET in T(ath.get(r.headers["location"]))
    n = _log_len(path)
    ath.get(r.headers["location"])
    assert _log_len(path) == n  # the reload takes nothing again
    r = spa.post("/step/march", data={"target": "Megaris", "side": "Athens"})  # Sparta posing as Athens
    assert r.status_code == 403 and _log_len(path) == n
    r = spa.post("/step/march", data={"target": "Atlantis"})
    assert r.status_code in (400, 409) and 'value="Atlantis"' in r.text and "refused, nothing stored" in T(r)
    for cl in (spa, ump):
        assert SECRET not in T(cl.get("/")) + cl.get("/api/status").text + cl.get("/api/steps").text
    assert _post_ok(spa, "/step/march", {"target": "Arcadia"})
    assert 'id="form-resolve"' in T(ump.get("/"))
    said = _post_ok(ump, "/step/resolve", {})
    assert re.search(r"431 BC", said)
    assert SECRET in T(spa.get("/"))  # resolved: the dispatch is no longer sealed


def _post_ok(cl, url: str, data: dict) -> str:
    r = cl.post(url, data=data)
    assert r.status_code == 303, (url, r.status_code, r.text[:2000])
    return T(cl.get(r.headers["location"]))
