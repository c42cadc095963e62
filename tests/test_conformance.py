"""The conformance test of the player view (issue 20 part 2): for every ruleset (the Archidamian War,
which lives outside the repository in examples/bellica-archidamian, included), a script plants a
secret of one viewer's, and every interface is read as every other viewer (the umpire included
where the ruleset seals it from the umpire too): the planted text must not be in any of it.  The
interfaces: the ruleset's status (text and JSON), `bellica log` (text and JSON), `bellica render
map`, `bellica export` (every file, GeoPackage bytes included), the SQL console (every table of the
viewer's database) and the web app (every page and JSON answer the viewer's link opens, the
umpire's console on the secret's table, and the error message of every declared step posted
empty).  The owner must find it somewhere, so the test can fail.

The province and node games (Rise of Rome, Mare Nostrum, Magna Graecia) keep no secret between
their players in the open (the engine plays Rome's rivals in the open; Mare Nostrum's map is
posted after every turn), but the campaign's seed is the umpire's: every die and lottery number
not yet drawn follows from it.  Their short scripted games are read at every step, by every
faction of the campaign (before the last step, the interfaces that copy the campaign per viewer by
two factions in `make test`: :data:`COSTLY`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_rise_of_rome_cli import bellica

#: ruleset -> (the status command, its viewer option)
STATUS = {"vae-victis-ii": (["round", "status"], None), "trossian": (["trossian", "status"], "--nation"),
          "archidamian-war": (["archidamian", "status"], "--side"), "rise-of-rome": (["rise-of-rome", "status"], "--power"),
          "mare-nostrum": (["mare-nostrum", "status"], "--nation"), "magna-graecia": (["magna-graecia", "status"], "--side")}

VV_SECRET = "0 0 0 0 0 0 0"  # Roma's sealed orders for army 9, before the reveal
TR_SECRET = "Bring-the-guns-to-Ismail"  # Russia's courier's message: Russia's alone, for ever
AR_SECRET = "Ravage-the-Megarid-by-night"  # Athens' dispatch: Athens' alone until the year is resolved
SEED = 918273645  # the province and node games' campaign seed: the umpire's (every die not yet drawn follows from it)
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


def _scripted(tmp_path_factory, built_once, ruleset: str, script) -> dict:
    """``script(path)``: (label, [argv, ...]) pairs played in turn on the ruleset's small campaign
    (tests/cli/test_exit_codes.py's, built once per process), the file copied after each: the
    states read at every step.  The secret is the seed: the umpire's, from every faction."""
    import shutil

    from bellica.engine.core.campaign import Campaign
    from tests.cli.test_exit_codes import _made

    folder = tmp_path_factory.mktemp(f"conf-{ruleset}")
    path = built_once(f"made-{ruleset}", lambda p: _made(ruleset, p), folder / "c.duckdb")
    cap, states = _Capture(), []
    for label, steps in script(path):
        for argv in (steps() if callable(steps) else steps):
            assert bellica(cap, *argv)[0] == 0, argv
        states.append((label, shutil.copyfile(path, folder / f"{len(states)}-{label}.duckdb")))
    with Campaign.open(path, read_only=True) as c:
        factions = list(c.ruleset.factions(c))
    return {"path": path, "ruleset": ruleset, "states": states, "secrets": [(str(SEED), None, factions)],
            "owner": None}


def _umpire_status(path) -> dict:
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(path, read_only=True) as c:
        return c.ruleset.player_view(c, None).status


@pytest.fixture(scope="module")
def rise_of_rome(tmp_path_factory, built_once):
    def script(path):
        return [("started", [["rise-of-rome", "start", path, "--seed", str(SEED)]]),
                ("rome-decides", [["rise-of-rome", "next", path]]),
                ("battles", [["rise-of-rome", "attack", path, "--none"], ["rise-of-rome", "spend", path],
                             ["rise-of-rome", "next", path]])]
    return _scripted(tmp_path_factory, built_once, "rise-of-rome", script)


@pytest.fixture(scope="module")
def mare_nostrum(tmp_path_factory, built_once):
    def first_acts(path):
        acting = _umpire_status(path)["acting"]
        return [["mare-nostrum", "grain", path, "--nation", acting], ["mare-nostrum", "done", path, "--nation", acting]]

    def the_others(path):
        return [["mare-nostrum", "done", path, "--nation", o["nation"]] for o in _umpire_status(path)["order"][1:]]

    def script(path):
        return [("begun", [["mare-nostrum", "start", path, "--seed", str(SEED)], ["mare-nostrum", "begin", path]]),
                ("first-acted", lambda: first_acts(path)),
                ("battles", lambda: the_others(path))]
    return _scripted(tmp_path_factory, built_once, "mare-nostrum", script)


@pytest.fixture(scope="module")
def magna_graecia(tmp_path_factory, built_once):
    def script(path):
        return [("started", [["magna-graecia", "start", path, "--seed", str(SEED)]]),
                ("moved", [["magna-graecia", "end-movement", path, "--side", "Syracuse"]]),
                ("turn-ended", [["magna-graecia", "next", path, "--side", "Syracuse"]])]
    return _scripted(tmp_path_factory, built_once, "magna-graecia", script)


def _states(game) -> list[tuple[str, Path]]:
    """The campaign's states read, each with its label: a scripted game's every step, else its end."""
    return game.get("states") or [("the end", game["path"])]


def _secrets(game) -> list[tuple[str, str | None, list]]:
    """(the planted text, its owner, the viewers who may not read it)."""
    return game.get("secrets") or [(game["secret"], game["owner"], game["others"])]


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


#: A state's file -> (its copy with the app's links issued, {name: token}, the ruleset's step names).
_WEB_COPIES: dict[Path, tuple[Path, dict[str, str], list[str]]] = {}


def _web(capsys, game, viewer, tmp_path) -> str:
    """Every page the viewer's link opens in the web app (HTML and JSON: the home page, the turn
    page, the status and open steps as JSON, the map, the umpire's console on every table), on a
    copy of the campaign with links issued (each viewer its own copy, as its posts may change it)."""
    import shutil
    import warnings

    from bellica.app.server import create_app
    from bellica.app.tokens import issue_tokens
    from bellica.engine.core.campaign import Campaign

    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

    state = Path(game["path"])
    if state not in _WEB_COPIES:  # the links issued once a state, on a copy each viewer's copy is made from
        first = shutil.copyfile(state, state.with_name(f"{state.stem}-web.duckdb"))
        with Campaign.open(first) as c:
            _WEB_COPIES[state] = first, {i.name: i.token for i in issue_tokens(c)}, [a.name for a in c.ruleset.actions()]
    first, tokens, steps = _WEB_COPIES[state]
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = shutil.copyfile(first, tmp_path / "web.duckdb")
    who = next(n for n in tokens if n == (viewer or "umpire") or (viewer and n.startswith(viewer)))  # "Danubian" ...
    web = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens[who]}"},
                     follow_redirects=False)
    pages = [web.get(p) for p in ("/", "/turn", "/api/status", "/api/steps", "/map")]
    if viewer is None:  # the umpire's console: every table, as the page shows it
        for table in ("orders", "events", "tr_couriers", "tr_orders", "ar_orders", "campaign"):
            said = web.post("/umpire/sql", data={"query": f"SELECT * FROM {table}"})
            # an answered query redirects to the page that shows it (post-redirect-get): read that page
            pages.append(web.get(said.headers["location"]) if said.status_code == 303 else said)
    for name in steps:  # the error messages: every declared step posted empty (on this copy)
        pages.append(web.post(f"/step/{name}", json={}, headers={"Accept": "application/json"}))
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


@pytest.fixture(params=["vae_victis", "trossian", "archidamian", "rise_of_rome", "mare_nostrum", "magna_graecia"])
def game(request):
    return request.getfixturevalue(request.param)


#: The interfaces that read a copy of the campaign per viewer (5-10 s each on the province maps):
#: before a scripted game's last step `make test` reads them as two factions, `make long` as every one.
COSTLY = {"sql", "web", "map", "export"}


def _viewers_at(interface: str, viewers: list, last: bool) -> list:
    from tests.bounds import SCALE

    return viewers if last or interface not in COSTLY or SCALE >= 1 else viewers[:2]


@pytest.mark.parametrize("interface", sorted(INTERFACES))
def test_no_viewer_reads_another_viewers_secret(game, interface, capsys, tmp_path):
    secrets = _secrets(game)
    viewers = list(dict.fromkeys(v for _text, _owner, others in secrets for v in others))
    states = _states(game)
    for i, (label, path) in enumerate(states):
        for viewer in _viewers_at(interface, viewers, i == len(states) - 1):
            text = INTERFACES[interface](capsys, {**game, "path": path}, viewer, tmp_path / label / str(viewer))
            for secret, owner, others in secrets:
                assert viewer not in others or secret not in text, \
                    f"{interface} shows {owner or 'the umpire'}'s secret to {viewer or 'the umpire'} ({label})"


def test_the_owner_reads_its_secret(game, capsys, tmp_path):
    label, path = _states(game)[-1]
    for secret, owner, _others in _secrets(game):
        shown = [name for name in ("status", "log", "sql", "web")
                 if STATUS[game["ruleset"]][1] or name != "status"
                 if secret in INTERFACES[name](capsys, {**game, "path": path}, owner, tmp_path / name / str(owner))]
        assert shown, f"{owner or 'the umpire'}'s own secret is in none of its interfaces: the test could not fail"
