"""`bellica serve` through Starlette's TestClient: sign-in, the authorisation matrix, the order form, the umpire's steps."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")  # starlette 1.x nudges towards httpx2; httpx is pinned

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import COOKIE, create_app  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402
from tests.cli.test_round_cli import bellica  # noqa: E402

SECRET = "3 3 5 0"  # roma's sealed moves for army 9: no other response may contain them before the reveal


@pytest.fixture
def camp(tmp_path):
    path = tmp_path / "field.duckdb"
    return path, field_campaign(path, players={"Scipio": ("roma", (10,))})


def client(path, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return TestClient(create_app(path), headers=headers)


def test_sign_in_sets_a_strict_http_only_cookie(camp):
    path, tokens = camp
    c = client(path)
    r = c.get("/")
    assert r.status_code == 401 and "sign in with the token" in r.text
    r = c.get("/?token=nope", follow_redirects=False)
    assert r.status_code == 401 and "unknown or revoked" in r.text
    r = c.get(f"/?token={tokens['roma']}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert f"{COOKIE}={tokens['roma']}" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    r = c.get("/")
    assert r.status_code == 200 and "signed in as <b>roma</b>" in r.text and 'id=\"orders-moves-9\"' in r.text
    assert "Secure" not in cookie  # plain HTTP on loopback: `bellica serve --secure-cookies` adds it
    c2 = client(path)
    form = c2.get("/").text  # the sign-in page: its form's check value, the same in a cookie (double submit)
    check = form.split('name="csrf" value="')[1].split('"')[0]
    assert c2.cookies["bellica_signin"] == check
    r = c2.post("/signin", data={"token": tokens["umpire"], "csrf": check})
    assert r.status_code == 200 and ", umpire</title>" in r.text  # the declared steps' page (issue 20)
    signout = r.text.split('action="/signout">')[1].split('value="')[1].split('"')[0]
    r = c2.post("/signout", data={"csrf": signout})
    assert r.status_code == 200 and "signed out" in r.text and c2.get("/").status_code == 401  # after its 303


def _endpoints():
    """(name, method, path, form) of every endpoint; the forms store nothing (bad moves, a refused step)."""
    return [
        ("home", "GET", "/", None),
        ("map", "GET", "/map", None),
        ("check", "POST", "/api/check", {"moves-1": "9 9", "moves-9": "3 3", "moves-10": ""}),
        ("orders", "POST", "/orders", {"moves-1": "x", "moves-9": "x", "moves-10": "x"}),
        ("step", "POST", "/umpire/step", {"step": "move"}),
        ("deadline", "POST", "/umpire/deadline", {"when": "2030-01-01T00:00:00Z"}),  # within ten years
        ("sql", "POST", "/umpire/sql", {"query": "SELECT moves FROM orders"}),
        # events is the log as the umpire reads it (sealed orders as who-submitted stand-ins): it runs.
        ("sql-view", "POST", "/umpire/sql", {"query": "SELECT data FROM events"}),
        ("result", "POST", "/umpire/result", {"engagement": "1", "winner": "9", "casualties-9": "10", "casualties-1": "20"}),
        ("administer", "POST", "/umpire/administer", {"choices": ""}),
        ("retreat", "POST", "/retreat", {"army": "99"}),
        ("commit", "POST", "/commit", {"digest": "a" * 64}),
        ("reveal", "POST", "/reveal-orders", {"orders": "", "secret": "s"}),
    ]


ALL = ["home", "map", "check", "orders", "step", "deadline", "sql", "sql-view", "result", "administer", "retreat", "commit", "reveal"]
EXPECTED = {
    # role: {endpoint: status}
    "none": dict.fromkeys(ALL, 401),
    "wrong": dict.fromkeys(ALL, 401),
    "player": {"home": 200, "map": 200, "check": 200, "orders": 400, "step": 403, "deadline": 403, "sql": 403, "sql-view": 403,
               "result": 403, "administer": 403, "retreat": 400, "commit": 400, "reveal": 400},
    "umpire": {"home": 200, "map": 200, "check": 403, "orders": 403, "step": 409, "deadline": 200, "sql": 400, "sql-view": 200,
               "result": 409, "administer": 409, "retreat": 409, "commit": 403, "reveal": 403},
}


def test_the_authorisation_matrix(camp):
    path, tokens = camp
    roma = client(path, tokens["roma"])
    assert roma.post("/orders", data={"moves-9": SECRET, "moves-10": ""}).status_code == 200
    # A player's form names only its own armies: roma's field for carthago's army 1 is ignored.
    assert roma.post("/orders", data={"moves-1": "9 9", "moves-9": SECRET, "moves-10": ""}).status_code == 200
    who = {"none": None, "wrong": "x" * 43, "carthago": tokens["carthago"], "syracusae": tokens["syracusae"],
           "umpire": tokens["umpire"], "roma": tokens["roma"], "Scipio": tokens["Scipio"]}
    for name, token in who.items():
        role = name if name in EXPECTED else "player"
        c = client(path, token)
        for endpoint, method, url, form in _endpoints():
            r = c.get(url) if method == "GET" else c.post(url, data=form)
            # A commitment is a step of the whole faction (the declared commit and reveal-orders): an
            # army player's token is refused it as another role's step (403).
            want = 403 if name == "Scipio" and endpoint in ("commit", "reveal") else EXPECTED[role][endpoint]
            assert r.status_code == want, (name, endpoint, r.status_code, r.text[:300])
            if name not in ("roma", "Scipio"):  # Scipio commands roma's army 10 and reads what roma reads
                assert SECRET not in r.text, (name, endpoint)
            if r.status_code == 401:
                assert "sign in" in r.text
    # Nothing of the matrix stored an order: carthago's army 1 still has none, roma's army 9 its own.
    umpire = client(path, tokens["umpire"])
    page = umpire.get("/").text
    assert "roma armies 9, 10" in page and "carthago army 1" in page and "token:roma" in page
    out = umpire.post("/umpire/sql", data={"query": "SELECT army FROM round_notes LIMIT 0"}, headers={"Accept": "application/json"})
    assert out.status_code == 400  # a bad query is one message
    r = umpire.post("/umpire/sql", data={"query": "SELECT count(*) AS n FROM armies"}, headers={"Accept": "application/json"})
    assert r.status_code == 200 and r.json() == [[{"n": 3}]]
    for query in ("COPY armies TO '/tmp/x.csv'", "ATTACH '/tmp/y.duckdb'", "SELECT * FROM query('SELECT * FROM orders')"):
        r = umpire.post("/umpire/sql", data={"query": query})
        assert r.status_code == 400 and ("refused" in r.text), query
    # The JSON API answers errors as JSON.
    r = client(path).post("/api/check", data={})
    assert r.status_code == 401 and "error" in r.json()


def test_check_submit_replace_reveal(camp):
    path, tokens = camp
    roma, carthago, umpire = (client(path, tokens[n]) for n in ("roma", "carthago", "umpire"))
    r = roma.post("/api/check", data={"moves-9": "3 3 y", "moves-10": "3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3"})
    problems = r.json()["problems"]
    assert r.status_code == 200 and not r.json()["ok"]
    assert any(p["army"] == 9 and "'y'" in p["message"] for p in problems)
    assert any(p["army"] == 10 for p in problems)  # the army that parses is checked in the position too
    r = roma.post("/orders", data={"moves-9": "3 3 y", "moves-10": ""})
    assert r.status_code == 400 and "nothing stored" in r.text and "3 3 y" in r.text  # the typed values kept
    assert roma.post("/api/check", data={"moves-9": "3 3", "moves-10": ""}).json() == {"ok": True, "problems": [], "warnings": []}
    assert roma.post("/orders", data={"moves-9": "3 3", "moves-10": ""}).status_code == 200
    r = roma.post("/orders", data={"moves-9": "3", "moves-10": ""})  # replaces
    assert r.status_code == 200 and "orders stored (sealed) for armies 9, 10" in r.text
    assert 'value="3"' in roma.get("/").text
    assert carthago.post("/orders", data={"moves-1": "9 9"}, headers={"Accept": "application/json"}).json() == {
        "stored": [1], "revealed": True}
    page = roma.get("/").text
    assert 'id="locked"' in page and "9 9" in page and 'id="form-orders"' not in page  # read-only, everyone's orders
    r = roma.post("/orders", data={"moves-9": "3 3", "moves-10": ""})
    assert r.status_code == 400 and "revealed" in r.text
    assert "initiative strength, moves \"3\"" not in umpire.get("/").text
    r = umpire.post("/umpire/step", data={"step": "move"})
    assert r.status_code == 200
    log = roma.get("/").text
    assert "orders received for army 9 from token:roma" in log
    assert 'id="move-button"' not in umpire.get("/").text  # movement ran: no move button any more


def test_a_declared_step_is_the_whole_factions_or_the_umpires(camp):
    """POST /step/NAME runs a declared step (step_forms) as the token's faction: an army player's token
    (Scipio: roma's army 10) takes no step of the whole faction, and no form names a file on the server."""
    path, tokens = camp
    scipio, roma, umpire = (client(path, tokens[n]) for n in ("Scipio", "roma", "umpire"))
    r = scipio.post("/step/commit", data={"digest": "a" * 64})
    assert r.status_code == 403 and "commands army 10 only" in r.text
    r = scipio.post("/step/orders", data={"moves": "9=3 3\n10="})  # orders are signed: its own armies' only
    assert r.status_code == 400 and "army 9 is not one you command: give orders for your own armies only" in r.text
    r = roma.post("/step/orders", data={"orders_file": "/etc/passwd"}, headers={"Accept": "application/json"})
    assert r.status_code == 400 and "names a file on the server" in r.json()["error"]
    assert roma.post("/step/publish").status_code == 403  # the umpire's step
    page = umpire.get("/").text
    assert 'id="form-deadline"' in page and 'name="when_local"' in page and "--choices" not in page
    r = roma.post("/step/orders", data={"moves": "9=3\n10="}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/turn?said=")
    assert "orders stored (sealed) for armies 9, 10</div>" in roma.get(r.headers["location"]).text  # no next step named
    # The deadline's picker, as the umpire's page posts it: a local time in a zone, given to the step in UTC.
    from datetime import datetime, timezone

    year = datetime.now(timezone.utc).year + 1
    r = umpire.post("/step/deadline", data={"when_local": f"{year}-01-10T12:00", "when_tz": "Europe/Rome",
                                            "when_offset": "60"}, follow_redirects=False)
    assert r.status_code == 303 and f"{year}-01-10T11:00:00Z" in umpire.get(r.headers["location"]).text


def test_initiative_stage_publish_and_bad_step(tmp_path):
    path = tmp_path / "init.duckdb"
    tokens = field_campaign(path, publish=False)
    roma, umpire = client(path, tokens["roma"]), client(path, tokens["umpire"])
    page = umpire.get("/").text
    assert 'id="publish-button"' in page and 'id="move-button"' not in page
    assert 'id="initiative-uses-9"' in roma.get("/").text
    r = roma.post("/check/initiative", data={"uses-9": "Mare Nostrum"})
    assert not r.json()["ok"] and "Mare Nostrum" in r.text
    assert umpire.post("/umpire/step", data={"step": "launch"}).status_code == 400
    assert umpire.post("/umpire/step", data={"step": "reveal"}).status_code == 409  # initiative not published yet
    assert umpire.post("/umpire/step", data={"step": "publish"}).status_code == 200
    assert 'id="initiative-uses-9"' not in roma.get("/").text
    r = umpire.post("/umpire/deadline", data={"when": "tomorrow"})
    assert r.status_code == 400 and "ISO-8601" in r.text


def test_a_busy_file_is_503(camp):
    path, tokens = camp
    holder = subprocess.Popen([sys.executable, "-c", f"import duckdb, time; c = duckdb.connect({str(path)!r}); "
                               "print('held', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        r = client(path, tokens["roma"]).get("/")
        assert r.status_code == 503 and "retry" in r.text and r.headers["retry-after"] == "2"
    finally:
        holder.kill()
        holder.wait()
    assert client(path, tokens["roma"]).get("/").status_code == 200


def test_tokens_command_revokes_and_stores_only_hashes(camp, capsys):
    path, tokens = camp
    code, out, err = bellica(capsys, "serve", "tokens", path, "--url", "http://example.test:9000/")
    assert code == 0, err
    links = dict(line.split() for line in out.splitlines()[1:])
    assert set(links) == {"umpire", "carthago", "roma", "syracusae"}
    assert all(v.startswith("http://example.test:9000/?token=") for v in links.values())
    new = links["roma"].split("token=")[1]
    assert new.encode() not in path.read_bytes()
    assert client(path, tokens["roma"]).get("/").status_code == 401  # revoked
    assert client(path, new).get("/").status_code == 200
    code, _, err = bellica(capsys, "serve", "tokens", path.with_name("missing.duckdb"))
    assert code == 1 and "does not exist" in err


def test_commit_reveal_mode_is_refused_by_the_form(tmp_path):
    path = tmp_path / "cr.duckdb"
    tokens = field_campaign(path, orders_mode="commit-reveal")
    r = client(path, tokens["roma"]).post("/orders", data={"moves-9": "3", "moves-10": ""})
    assert r.status_code == 400 and "commit-reveal" in r.text
