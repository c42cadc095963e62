"""The conformance test of the player view (issue 20 part 2): for every ruleset with secrets (the
Archidamian War, which lives outside the repository in examples/bellica-archidamian, included), a
script plants a secret of one viewer's, and every interface is read as every other viewer (the
umpire included where the ruleset seals it from the umpire too): the planted text must not be in
any of it.  The interfaces: the ruleset's status (text and JSON), `bellica log` (text and JSON),
`bellica render map`, `bellica export` (every file, GeoPackage bytes included), the SQL console
(every table of the viewer's database) and the web app (every page and JSON answer the viewer's
link opens, the umpire's console on the secret's table).  The owner must find it somewhere, so the test can fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_rise_of_rome_cli import bellica

#: ruleset -> (the status command, its viewer option)
STATUS = {"vae-victis-ii": (["round", "status"], None), "trossian": (["trossian", "status"], "--nation"),
          "archidamian-war": (["archidamian", "status"], "--side")}

VV_SECRET = "0 0 0 0 0 0 0"  # Roma's sealed orders for army 9, before the reveal
TR_SECRET = "Bring-the-guns-to-Ismail"  # Russia's courier's message: Russia's alone, for ever
AR_SECRET = "Ravage-the-Megarid-by-night"  # Athens' dispatch: Athens' alone until the year is resolved
#: The ruleset that lives outside the repository (docs/writing-a-ruleset.md), imported from its folder
#: as its entry point imports it once installed (tests/cli/test_installed_ruleset.py installs it).
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "bellica-archidamian"


class _Capture:
    def readouterr(self):
        return "", ""


def _run(capsys, *args) -> str:
    code, out, err = bellica(capsys, *args)
    assert code == 0, (args, err)
    return out


@pytest.fixture(scope="module")
def vae_victis(tmp_path_factory):
    from tests.engine.boards import sketch
    from tests.engine.test_rounds import STRUCTURES, WATER
    from tests.engine.test_state import make_campaign

    path = tmp_path_factory.mktemp("conf-vv") / "c.duckdb"
    c, _m = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")),
                          m=sketch(radius=4, structures=STRUCTURES, water=WATER))
    c.close()
    cap = _Capture()
    for step in (["round", "start", path, "--seed", "5"], ["round", "publish", path],
                 ["round", "orders", path, "--faction", "roma", f"9={VV_SECRET}", "10="]):
        assert bellica(cap, *step)[0] == 0, step
    return {"path": path, "ruleset": "vae-victis-ii", "secret": VV_SECRET, "owner": "roma",
            "others": [None, "carthago"]}


@pytest.fixture(scope="module")
def trossian(tmp_path_factory):
    from tests.engine.trossian.campaign_file import fresh_campaign

    folder = tmp_path_factory.mktemp("conf-tr")
    path = fresh_campaign(folder, folder / "c.duckdb")
    cap = _Capture()
    for step in (["trossian", "start", path, "--seed", "148"], ["trossian", "next", path],
                 ["trossian", "courier", path, "send", "--nation", "Russia", "--courier", "74", "--message", TR_SECRET,
                  "--to", "Kuban Corps"],
                 *(["trossian", "done", path, "--nation", n] for n in ("Russia", "Ottoman Porte", "Danubian", "Crimean")),
                 ["trossian", "next", path]):  # carried out: the message is in the courier's row, and in the orders
        assert bellica(cap, *step)[0] == 0, step
    return {"path": path, "ruleset": "trossian", "secret": TR_SECRET, "owner": "Russia",
            "others": [None, "Ottoman Porte", "Danubian"]}


@pytest.fixture(scope="module")
def archidamian(tmp_path_factory):
    import sys

    from bellica.engine.core import ruleset as registry

    before = dict(registry._REGISTRY)
    sys.path.insert(0, str(EXAMPLE))
    try:
        import archidamian.ruleset  # noqa: F401  (registers it, as its entry point does)

        path = tmp_path_factory.mktemp("conf-ar") / "war.duckdb"
        cap = _Capture()
        for step in (["campaign", "new", "--scenario", "archidamian-war", "--out", path, "-q"],
                     ["archidamian", "start", path, "--seed", "431"],
                     ["archidamian", "march", path, "--side", "Athens", "--to", "Megaris", "--dispatch", AR_SECRET],
                     ["archidamian", "march", path, "--side", "Sparta", "--to", "Arcadia"]):
            assert bellica(cap, *step)[0] == 0, step
        yield {"path": path, "ruleset": "archidamian-war", "secret": AR_SECRET, "owner": "Athens",
               "others": [None, "Sparta"]}
    finally:
        sys.path.remove(str(EXAMPLE))
        registry._REGISTRY.clear()
        registry._REGISTRY.update(before)
        for name in [m for m in sys.modules if m == "archidamian" or m.startswith("archidamian.")]:
            del sys.modules[name]


def _status(capsys, game, viewer) -> str:
    command, option = STATUS[game["ruleset"]]
    who = [option, viewer] if option and viewer else []
    return _run(capsys, *command, game["path"], *who) + _run(capsys, *command, game["path"], *who, "--json")


def _log(capsys, game, viewer) -> str:
    who = ["--faction", viewer] if viewer else []
    return _run(capsys, "log", game["path"], *who) + _run(capsys, "log", game["path"], *who, "--json")


def _map(capsys, game, viewer, tmp_path) -> str:
    out = tmp_path / "map.html"
    _run(capsys, "render", "map", game["path"], "--out", out, "--force", *(["--faction", viewer] if viewer else []))
    return out.read_text(encoding="utf-8")


def _export(capsys, game, viewer, tmp_path) -> str:
    out = tmp_path / "export"
    _run(capsys, "export", game["path"], "--out", out, "--force", *(["--faction", viewer] if viewer else []))
    return "".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(out.rglob("*")) if p.is_file())


def _console(capsys, game, viewer) -> str:
    """Every table and view of the viewer's console, read through the console's own checks (a
    table it refuses adds its one-line refusal)."""
    from bellica.engine.core.console import open_console, run_checked
    from bellica.geo.errors import InputError

    con, sealed = open_console(game["path"], viewer)
    try:
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
        out = []
        for name in names:
            try:
                out += [repr(r.rows) for r in run_checked(con, f'SELECT * FROM "{name}"', "QUERY", sealed)]
            except InputError as e:
                out.append(str(e))
        return "\n".join(out)
    finally:
        con.close()


def _web(capsys, game, viewer, tmp_path) -> str:
    """Every page the viewer's link opens in the web app (HTML and JSON: the home page, the turn
    page, the status and open steps as JSON, the map, the umpire's console on every table), on a
    copy of the campaign with links issued."""
    import shutil
    import warnings

    from bellica.app.server import create_app
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign

    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

    tmp_path.mkdir(parents=True, exist_ok=True)
    path = shutil.copyfile(game["path"], tmp_path / "web.duckdb")
    with Campaign.open(path) as c:
        tokens = {i.name: i.token for i in issue_tokens(c)}
    who = next(n for n in tokens if n == (viewer or "umpire") or (viewer and n.startswith(viewer)))  # "Danubian" ...
    web = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens[who]}"},
                     follow_redirects=False)
    pages = [web.get(p) for p in ("/", "/turn", "/api/status", "/api/steps", "/map")]
    if viewer is None:  # the umpire's console: every table, as the page shows it
        for table in ("orders", "events", "tr_couriers", "tr_orders", "ar_orders"):
            pages.append(web.post("/umpire/sql", data={"query": f"SELECT * FROM {table}"}))
    assert all(r.status_code < 500 for r in pages), [(r.request.url, r.status_code) for r in pages]
    return "\n".join(r.text for r in pages)


INTERFACES = {
    "web": lambda capsys, game, viewer, tmp: _web(capsys, game, viewer, tmp),
    "status": lambda capsys, game, viewer, tmp: _status(capsys, game, viewer),
    "log": lambda capsys, game, viewer, tmp: _log(capsys, game, viewer),
    "map": lambda capsys, game, viewer, tmp: _map(capsys, game, viewer, tmp),
    "export": lambda capsys, game, viewer, tmp: _export(capsys, game, viewer, tmp),
    "sql": lambda capsys, game, viewer, tmp: _console(capsys, game, viewer),
}


@pytest.fixture(params=["vae_victis", "trossian", "archidamian"])
def game(request):
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("interface", sorted(INTERFACES))
def test_no_viewer_reads_another_viewers_secret(game, interface, capsys, tmp_path):
    for viewer in game["others"]:
        text = INTERFACES[interface](capsys, game, viewer, tmp_path / str(viewer))
        assert game["secret"] not in text, f"{interface} shows {game['owner']}'s secret to {viewer or 'the umpire'}"


def test_the_owner_reads_its_secret(game, capsys, tmp_path):
    owner = game["owner"]
    shown = [name for name in ("status", "log", "sql", "web")
             if STATUS[game["ruleset"]][1] or name != "status"
             if game["secret"] in INTERFACES[name](capsys, game, owner, tmp_path / name)]
    assert shown, f"{owner}'s own secret is in none of its interfaces: the test could not fail"
