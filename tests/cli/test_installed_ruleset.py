"""A sixth ruleset that lives outside the repository (issue 20, part 6): installed, then played.

The example distribution ``examples/bellica-archidamian`` (the Archidamian War: two sides, nine
provinces of Greece, a sealed march per side a year, the umpire's resolve with a die each from the
campaign seed) is copied into the test's temporary folder and installed offline into a throw-away
venv that sees this project's environment (``pip install --no-index --no-build-isolation
--no-deps``); nothing of bellica is edited.  Then it is played through that venv's ``bellica`` as a
user types it: ``campaign scenarios`` and ``campaign new`` by the scenario's name, the group built
from its declared steps, ``status`` (text and JSON), ``render map``, ``export``, ``log`` and ``sql``
as each viewer, and ``round verify --readjudicate``; then the web app's pages (bellica/app/step_forms.py)
on a copy of the started campaign: the form of each open step, posted.  The first commands
(``campaign scenarios``, ``new``, ``check``, ``start``) each run as a process of its own through
the venv's ``bellica`` script, so the installed entry point is found by a fresh interpreter; the
rest, and the console and web probes, run in one process of the venv (:data:`DRIVER`), each
command through the same entry function, ``bellica.launch.main``, with its own captured streams
and exit status: a fresh interpreter per command cost 0.5 s of CPU in imports, 30 s in all.  The conformance check of
tests/test_conformance.py is made here for it (that test runs in-process, where the ruleset is not
installed): a side's dispatch, sealed until the year is resolved, is in no interface of the other
side or the umpire, and in its own side's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bellica-archidamian"
SECRET = "Ravage-the-Megarid-at-dawn"  # Athens' dispatch of 431 BC: Athens' alone until the year is resolved
SPARTA_SECRET = "Hold-the-Isthmus"

#: Every table and view of a viewer's SQL console, read through the console's own checks (one
#: subprocess for all of them: the ruleset is importable only in the venv).
CONSOLE_DUMP = """
import sys
from bellica.engine.core.console import open_console, run_checked
from bellica.geo.errors import InputError
con, sealed = open_console(sys.argv[1], sys.argv[2] or None)
names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
for name in names:
    try:
        print(name, [r.rows for r in run_checked(con, f'SELECT * FROM "{name}"', "QUERY", sealed)])
    except InputError as e:
        print(name, "refused:", e)
"""


#: The web app (bellica serve's, through Starlette's TestClient) on a started campaign: each side's
#: page offers the form of its open step, Athens posts its march (signed in with a Bearer token),
#: a march the rules refuse is 409, the umpire's page offers resolve once both have marched.
WEB_PROBE = """
import sys, json, warnings
warnings.filterwarnings("ignore")
from starlette.testclient import TestClient
from bellica.app.server import create_app
from bellica.app.tokens import issue_tokens
from bellica.engine.core.campaign import Campaign
path, secret = sys.argv[1], sys.argv[2]
with Campaign.open(path) as c:
    tokens = {i.name: i.token for i in issue_tokens(c)}
def client(who):
    return TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens[who]}"}, follow_redirects=False)
out = {}
ath, spa, ump = client("Athens"), client("Sparta"), client("umpire")
out["athens_page"] = ath.get("/").text
out["umpire_before"] = ump.get("/").text
r = ath.post("/step/march", data={"target": "Megaris", "dispatch": secret})
out["post"] = [r.status_code, r.headers.get("location")]
out["athens_after"] = ath.get(r.headers["location"]).text if r.status_code == 303 else r.text
r = ath.post("/step/march", data={"target": "Laconia"})
out["refused"] = [r.status_code, r.text]
out["sparta_page"] = spa.get("/").text
out["sparta_json"] = spa.get("/api/status").text
out["sparta_map"] = spa.get("/map").text
out["umpire_page"] = ump.get("/").text
r = spa.post("/step/march", data={"target": "Arcadia"})
out["sparta_post"] = r.status_code
out["umpire_after"] = ump.get("/").text
r = ump.post("/step/resolve", data={})
out["resolve"] = [r.status_code, r.headers.get("location")]
out["sparta_end"] = spa.get("/").text
print(json.dumps(out))
"""


#: One process of the venv running many commands: a line of JSON in (["bellica", args...] for
#: ``bellica.launch.main(args)``, or ["script", source, args...] for a script run as ``python -c``
#: runs it), a line of JSON out: [exit status, stdout, stderr], each command's streams its own.
DRIVER = """
import io, json, sys
real_stdout, real_stderr = sys.stdout, sys.stderr
for line in sys.stdin:
    kind, *argv = json.loads(line)
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True) for _ in range(2))
    sys.stdout, sys.stderr = out, err
    status = 0
    try:
        if kind == "bellica":
            from bellica.launch import main
            main(argv)
        else:
            sys.argv = ["-c", *argv[1:]]
            exec(compile(argv[0], "<string>", "exec"), {"__name__": "__main__"})
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
        status = 1
    finally:
        sys.stdout, sys.stderr = real_stdout, real_stderr
    text = [b.buffer.getvalue().decode("utf-8", "replace") for b in (out, err)]
    real_stdout.write(json.dumps([status, *text]) + "\\n")
    real_stdout.flush()
"""


class Venv:
    def __init__(self, root: Path, cwd: Path):
        self.python = root / "bin" / "python"
        self.bellica = root / "bin" / "bellica"
        self.cwd = cwd
        self.env = {**os.environ, "BELLICA_WARM": "0"}  # a warm server would run the command without the venv
        self.driver: subprocess.Popen | None = None

    def fresh(self, *args, code: int = 0) -> str:
        """``bellica ARGS`` in a process of its own, through the venv's script."""
        done = subprocess.run([str(self.bellica), *map(str, args)], cwd=self.cwd, env=self.env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
        return done.stdout + done.stderr

    def _drive(self, *request: str) -> tuple[int, str, str]:
        if self.driver is None:
            self.driver = subprocess.Popen([str(self.python), "-c", DRIVER], cwd=self.cwd, env=self.env, text=True,
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.driver.stdin.write(json.dumps(request) + "\n")
        self.driver.stdin.flush()
        line = self.driver.stdout.readline()
        assert line, f"the venv's driver process died (status {self.driver.poll()})"
        status, out, err = json.loads(line)
        return status, out, err

    def close(self) -> None:
        if self.driver is not None:
            self.driver.stdin.close()
            self.driver.wait(timeout=60)
            self.driver = None

    def run(self, *args, code: int = 0) -> str:
        """``bellica ARGS`` as the venv's script runs it (``bellica.launch.main``), in the driver process."""
        status, out, err = self._drive("bellica", *map(str, args))
        assert status == code, (args, status, out, err)
        return out + err

    def web(self, campaign: Path, secret: str) -> dict:
        status, out, err = self._drive("script", WEB_PROBE, str(campaign), secret)
        assert status == 0, err
        return json.loads(out)

    def console(self, campaign: Path, viewer: str | None) -> str:
        status, out, err = self._drive("script", CONSOLE_DUMP, str(campaign), viewer or "")
        assert status == 0, err
        return out


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Venv:
    """The example distribution copied here and installed offline into a venv of its own."""
    tmp = tmp_path_factory.mktemp("installed-ruleset")
    source = tmp / "bellica-archidamian"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    root = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    site = subprocess.run([str(root / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    # The venv sees this project's environment (bellica, setuptools, pip) as its system site-packages.
    Path(site, "_bellica_project.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    subprocess.run([str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                    "--no-deps", "--disable-pip-version-check", str(source)],
                   check=True, capture_output=True, timeout=300, cwd=tmp, env={**os.environ, "PIP_NO_INPUT": "1"})
    (root / "bin" / "bellica").write_text(f"#!{root / 'bin' / 'python'}\nimport sys\nfrom bellica.launch import main\n"
                                          "sys.exit(main())\n")
    (root / "bin" / "bellica").chmod(0o755)
    play = tmp / "play"
    play.mkdir()
    venv = Venv(root, play)
    yield venv
    venv.close()


@pytest.fixture(scope="module")
def sealed(venv) -> Path:
    """A campaign made from the installed scenario by name, started, both marches of 431 BC given."""
    listed = venv.fresh("campaign", "scenarios")
    assert "archidamian-war: The Archidamian War, 431 BC" in listed
    out = venv.fresh("campaign", "new", "--scenario", "archidamian-war", "--out", "war.duckdb")
    assert "scenario archidamian-war (ruleset archidamian-war)" in out and "9 provinces" in out
    assert "2 sides, 9 provinces, 13 places: OK" in venv.fresh("campaign", "check", "--scenario", "archidamian-war")
    assert "campaign started, year 1, seed 431" in venv.fresh("archidamian", "start", "war.duckdb", "--seed", "431")
    shutil.copy(venv.cwd / "war.duckdb", venv.cwd / "web.duckdb")  # the web pages' own copy of the started campaign
    out = venv.run("archidamian", "march", "war.duckdb", "--side", "athens", "--to", "megar", "--dispatch", SECRET)
    assert f"Athens marches to Megaris: '{SECRET}'" in out
    venv.run("archidamian", "march", "war.duckdb", "--side", "Sparta", "--to", "Arcadia", "--dispatch", SPARTA_SECRET)
    return venv.cwd / "war.duckdb"


def _interfaces(venv: Venv, path: Path, viewer: str | None, tmp: Path, *, files: bool = True) -> dict[str, str]:
    """Every interface's text as ``viewer`` reads it (``files``: the map page and the export too)."""
    who = ["--faction", viewer] if viewer else []
    side = ["--side", viewer] if viewer else []
    out = {
        "status": venv.run("archidamian", "status", path, *side) + venv.run("archidamian", "status", path, *side, "--json"),
        "log": venv.run("log", path, *who) + venv.run("log", path, *who, "--json"),
        "sql": venv.console(path, viewer),
    }
    if files:
        tmp.mkdir(parents=True, exist_ok=True)
        venv.run("render", "map", path, "--out", tmp / "map.html", "--force", *who)
        venv.run("export", path, "--out", tmp / "export", "--force", *who)
        out["map"] = (tmp / "map.html").read_text(encoding="utf-8")
        out["export"] = "".join(p.read_bytes().decode("utf-8", "replace") for p in sorted((tmp / "export").rglob("*"))
                                if p.is_file())
        assert "Attica" in out["map"] and (tmp / "export" / "geojson" / "provinces.geojson").is_file()
    return out


def test_installed_ruleset_played_through_the_command_line(venv, sealed, tmp_path):
    """One test, so the one install and the one campaign are made once (a worker of their own)."""
    _no_viewer_reads_another_sides_sealed_march(venv, sealed, tmp_path)
    _sql_refuses_the_sealed_table_before_it_opens(venv, sealed)
    _played_to_the_verdict_and_readjudicated(venv, sealed)
    _played_in_the_browser(venv, sealed.with_name("web.duckdb"))


def _played_in_the_browser(venv, path):
    secret = "Sail-round-the-Peloponnese"
    out = venv.web(path, secret)
    assert 'id="form-march"' in out["athens_page"] and 'name="dispatch"' in out["athens_page"]
    assert 'id="form-march"' not in out["umpire_before"] and 'id="form-resolve"' not in out["umpire_before"]
    assert out["post"][0] == 303 and out["post"][1].startswith("/turn?said=")
    assert secret in out["athens_after"] and "Athens marches to Megaris" in out["athens_after"]
    assert out["refused"][0] == 409 and "not Laconia" in out["refused"][1]
    for name in ("sparta_page", "sparta_json", "sparta_map", "umpire_page", "umpire_after"):
        assert secret not in out[name], f"the web {name} shows Athens' sealed dispatch"
    assert out["sparta_post"] == 303 and 'id="form-resolve"' in out["umpire_after"]
    assert out["resolve"][0] == 303 and secret in out["sparta_end"], "resolved: Athens' dispatch is everyone's"


def _no_viewer_reads_another_sides_sealed_march(venv, sealed, tmp_path):
    for viewer in (None, "Sparta"):
        for interface, text in _interfaces(venv, sealed, viewer, tmp_path / str(viewer)).items():
            assert SECRET not in text, f"{interface} shows Athens' sealed dispatch to {viewer or 'the umpire'}"
    mine = _interfaces(venv, sealed, "Athens", tmp_path / "Athens", files=False)
    assert all(SECRET in mine[name] for name in ("status", "log", "sql")), "Athens' own dispatch: the test could not fail"
    assert SPARTA_SECRET not in "".join(mine.values())


def _sql_refuses_the_sealed_table_before_it_opens(venv, sealed):
    out = venv.run("sql", sealed, "SELECT * FROM ar_orders", code=1)
    assert "reading ar_orders is refused" in out and "it opens when the umpire resolves the year" in out
    rows = json.loads(venv.run("sql", sealed, "SELECT side, dispatch FROM ar_orders", "--faction", "Sparta", "--json"))
    assert rows == [{"side": "Sparta", "dispatch": SPARTA_SECRET}]


def _played_to_the_verdict_and_readjudicated(venv, sealed):
    status = json.loads(venv.run("archidamian", "status", sealed, "--json"))
    assert status["marched"] == ["Athens", "Sparta"] and status["my_march"] is None and status["year"] == "431 BC"
    # Out of order, unknown names, another game's command: the project's exit codes.
    venv.run("archidamian", "march", sealed, "--side", "Persia", "--to", "Attica", code=2)
    venv.run("archidamian", "march", sealed, "--side", "Sparta", "--to", "Attica", code=3)  # not across one border
    # Its play_command follows from its command group: the distribution does not set it.
    assert venv.run("trossian", "status", sealed, code=1).strip().endswith("play it with `bellica archidamian`")
    out = venv.run("archidamian", "resolve", sealed)
    assert "Athens marches to Megaris" in out and "next: each side marches" in out
    log = venv.run("log", sealed, "--faction", "Sparta")
    assert SECRET in log, "the year resolved, Athens' dispatch is everyone's"
    assert SECRET in venv.run("sql", sealed, "SELECT dispatch FROM ar_marches", "--faction", "Sparta")
    # Both armies into Corinthia: a battle, one die each from the campaign's seed.
    venv.run("archidamian", "march", sealed, "--side", "Athens", "--to", "Corinthia")
    venv.run("archidamian", "resolve", sealed, code=3)  # Sparta has not marched
    venv.run("archidamian", "march", sealed, "--side", "Sparta", "--to", "Corinthia")
    assert "battle in Corinthia" in venv.run("archidamian", "resolve", sealed)
    for _year in range(5):
        status = json.loads(venv.run("archidamian", "status", sealed, "--json"))
        if status["winner"]:
            break
        for army in status["armies"]:
            venv.run("archidamian", "march", sealed, "--side", army["side"], "--to", army["province"])
        venv.run("archidamian", "resolve", sealed)
    status = json.loads(venv.run("archidamian", "status", sealed, "--json"))
    assert status["winner"] and status["phase"] == "over" and len(status["battles"]) == 1
    venv.run("archidamian", "resolve", sealed, code=3)  # the war is over
    out = venv.run("round", "verify", sealed, "--readjudicate")
    assert "re-adjudicated from the scenario give the same" in out
