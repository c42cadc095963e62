"""The app's guard against cross-site requests (issue 23, item 4) and blanks around a token (item
10), through Starlette's TestClient (its origin is http://testserver); real Chromium from another
port and another host name: tests/app/test_app_csrf_browser.py."""

from __future__ import annotations

import re
import warnings
from urllib.parse import quote

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import COOKIE, create_app  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402
from tests.app.test_app import _endpoints  # noqa: E402
from tests.cli.test_round_cli import bellica  # noqa: E402

OWN = "http://testserver"
REFUSED = "refused, nothing done"


@pytest.fixture
def camp(tmp_path):
    path = tmp_path / "field.duckdb"
    return path, field_campaign(path)


def _check(page: str, action: str = "/orders") -> str:
    """The csrf value the page's form posting to ``action`` carries."""
    return re.search(rf'action="{re.escape(action)}"[^>]*><input type="hidden" name="csrf" value="([^"]+)"', page).group(1)


def signed_in(path, token: str, **options) -> tuple[TestClient, str]:
    """A browser-like client signed in by the cookie, and its session's csrf value."""
    c = TestClient(create_app(path, **options))
    assert c.get(f"/?token={token}").status_code == 200
    return c, _check(c.get("/").text, "/signout")


def _army_9(path, tokens) -> str:
    page = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['roma']}"}).get("/").text
    return page.split('<label for="orders-moves-9">')[1].split("</label>")[0].removesuffix(")")


def test_every_post_form_carries_the_sessions_check_value(camp):
    path, tokens = camp
    for who in ("roma", "umpire"):
        c, check = signed_in(path, tokens[who])
        page = c.get("/").text
        forms = re.findall(r'<form\b[^>]*method="post"[^>]*>(<input type="hidden" name="csrf" value="[^"]*">)?', page)
        assert len(forms) >= 2 and all(f == f'<input type="hidden" name="csrf" value="{check}">' for f in forms), who
    _, other = signed_in(path, tokens["carthago"])
    assert other != check  # bound to the session


def test_a_cookie_post_needs_its_sessions_check_value(camp):
    path, tokens = camp
    roma, check = signed_in(path, tokens["roma"])
    _, carthagos = signed_in(path, tokens["carthago"])
    for given in ({}, {"csrf": ""}, {"csrf": "x" * 64}, {"csrf": "é" * 64}, {"csrf": carthagos}):
        r = roma.post("/orders", data={"moves-9": "3 3", **given})
        assert r.status_code == 403 and REFUSED in r.text and "reload the page" in r.text, given
    r = roma.post("/api/check", data={"moves-9": "3 3"})
    assert r.status_code == 403 and REFUSED in r.json()["error"]  # JSON asked, JSON answered
    assert _army_9(path, tokens).endswith("no orders yet")
    assert roma.post("/api/check", data={"moves-9": "3 3"}, headers={"X-CSRF-Token": check}).json()["ok"]
    r = roma.post("/orders", data={"moves-9": "3 3", "moves-10": "", "csrf": check})
    assert r.status_code == 200 and "orders stored (sealed)" in r.text
    assert _army_9(path, tokens).endswith("(sealed)")
    # A script's Authorization header is no cookie a forged page could ride on: no check value needed.
    script = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['roma']}"})
    assert script.post("/orders", data={"moves-9": "3", "moves-10": ""}).status_code == 200


@pytest.mark.parametrize("headers", [
    {"Origin": "http://127.0.0.1:9999"}, {"Origin": "http://testserver:8080"}, {"Origin": "https://testserver"},
    {"Origin": "null"}, {"Referer": "http://evil.test/page"}, {"Sec-Fetch-Site": "same-site"},
    {"Sec-Fetch-Site": "cross-site", "Origin": OWN}])
def test_a_post_from_elsewhere_is_refused_on_every_path(camp, headers):
    path, tokens = camp
    roma, check = signed_in(path, tokens["roma"])
    umpire = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['umpire']}"})
    for c in (roma, umpire):
        for _name, method, url, form in _endpoints() + [("in", "POST", "/signin", {}), ("out", "POST", "/signout", {})]:
            if method == "POST":
                r = c.post(url, data={**(form or {}), "csrf": check}, headers=headers)
                assert r.status_code == 403 and "cross-site" in r.text, (url, headers, r.status_code)
    assert _army_9(path, tokens).endswith("no orders yet")


def test_a_post_from_the_apps_own_pages_passes(camp):
    path, tokens = camp
    roma, check = signed_in(path, tokens["roma"])
    for headers in ({"Origin": OWN}, {"Origin": "HTTP://TESTSERVER:80"}, {"Referer": f"{OWN}/?x=1"},
                    {"Origin": OWN, "Sec-Fetch-Site": "same-origin"}):
        r = roma.post("/orders", data={"moves-9": "3", "moves-10": "", "csrf": check}, headers=headers)
        assert r.status_code == 200, headers


def test_sign_in_needs_the_sign_in_forms_value(camp):
    path, tokens = camp
    c = TestClient(create_app(path))
    r = c.post("/signin", data={"token": tokens["carthago"]}, follow_redirects=False)
    assert r.status_code == 403 and "sign-in form" in r.text
    page = c.get("/").text  # the 401 sign-in page draws the value and sets its cookie
    value = _check(page, "/signin")
    assert c.cookies["bellica_signin"] == value
    for forged in ("", "abc", "abc.def", "é.é", value + "x"):
        r = c.post("/signin", data={"token": tokens["carthago"], "csrf": forged}, follow_redirects=False)
        assert r.status_code == 403, forged
    # A value planted in both the cookie and the field must still be one this server signed.
    planted = TestClient(create_app(path), headers={"Cookie": "bellica_signin=abc.def"})
    r = planted.post("/signin", data={"token": tokens["carthago"], "csrf": "abc.def"}, follow_redirects=False)
    assert r.status_code == 403
    r = c.post("/signin", data={"token": tokens["carthago"], "csrf": value}, follow_redirects=False)
    assert r.status_code == 303 and f"{COOKIE}={tokens['carthago']}" in r.headers["set-cookie"]


def test_a_sign_in_link_from_another_site_asks_first(camp):
    path, tokens = camp
    roma, _ = signed_in(path, tokens["roma"])
    for site in ("cross-site", "same-site"):
        r = roma.get(f"/?token={tokens['carthago']}", headers={"Sec-Fetch-Site": site}, follow_redirects=False)
        assert r.status_code == 200 and f"{COOKIE}=" not in r.headers.get("set-cookie", "")
        assert "sign in as <b>carthago</b>?" in r.text and "signed in as <b>roma</b> now" in r.text
        assert r.headers["cache-control"] == "no-store"
    assert "signed in as <b>roma</b>" in roma.get("/").text
    r = roma.get("/?token=nope", headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 401
    r = roma.get(f"/?token={tokens['carthago']}", headers={"Sec-Fetch-Site": "none"}, follow_redirects=False)
    assert r.status_code == 303  # typed, pasted or opened from a bookmark or another program


def test_cookies_are_secure_when_the_operator_says_so(camp):
    path, tokens = camp
    link = f"/?token={tokens['roma']}"
    plain = TestClient(create_app(path))
    assert "Secure" not in plain.get(link, follow_redirects=False).headers["set-cookie"]
    # Without --behind-proxy a client's X-Forwarded-Proto is just a header.
    r = plain.get(link, headers={"X-Forwarded-Proto": "https"}, follow_redirects=False)
    assert "Secure" not in r.headers["set-cookie"]
    secure = TestClient(create_app(path, secure_cookies=True))
    assert "Secure" in secure.get(link, follow_redirects=False).headers["set-cookie"]
    assert "Secure" in secure.get("/").headers["set-cookie"]  # the sign-in form's cookie too
    proxied = TestClient(create_app(path, behind_proxy=True))
    assert "Secure" not in proxied.get(link, headers={"X-Forwarded-Proto": "http"}, follow_redirects=False).headers["set-cookie"]
    r = proxied.get(link, headers={"X-Forwarded-Proto": "https"}, follow_redirects=False)
    assert "Secure" in r.headers["set-cookie"]


def test_behind_a_proxy_the_origin_is_the_proxys(camp):
    path, tokens = camp
    roma, check = signed_in(path, tokens["roma"], behind_proxy=True)
    via = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "game.example.org"}
    post = lambda headers: roma.post("/orders", data={"moves-9": "3", "moves-10": "", "csrf": check},  # noqa: E731
                                     headers=headers).status_code
    assert post({**via, "Origin": "https://game.example.org"}) == 200
    assert post({**via, "Origin": "https://game.example.org:443"}) == 200
    assert post({**via, "Origin": OWN}) == 403
    assert post({"X-Forwarded-Proto": "https", "Origin": "https://testserver"}) == 200  # the proxy passed Host on


@pytest.mark.parametrize("blank", [" ", "\t", "\n", "\r\n", "\u00a0"])
def test_blanks_around_a_token_are_dropped(camp, blank):
    path, tokens = camp
    token = tokens["roma"]
    c = TestClient(create_app(path))
    r = c.get(f"/?token={quote(token + blank)}", follow_redirects=False)
    assert r.status_code == 303 and f"{COOKIE}={token};" in r.headers["set-cookie"]
    c = TestClient(create_app(path))
    value = _check(c.get("/").text, "/signin")
    r = c.post("/signin", data={"token": blank + token + blank, "csrf": value}, follow_redirects=False)
    assert r.status_code == 303 and f"{COOKIE}={token};" in r.headers["set-cookie"]
    if blank in (" ", "\t"):  # what an HTTP header may hold
        bearer = TestClient(create_app(path), headers={"Authorization": f"Bearer {token}{blank}"})
        assert bearer.get("/").status_code == 200


def test_a_blank_inside_a_token_is_refused(camp):
    path, tokens = camp
    token = tokens["roma"]
    for typed in (token[:10] + " " + token[10:], token[:-1] + " " + token[-1]):
        assert TestClient(create_app(path)).get(f"/?token={quote(typed)}").status_code == 401


def test_serve_passes_the_cookie_and_proxy_switches(camp, capsys, monkeypatch):
    import bellica.app.background as background

    path, _ = camp
    seen = {}
    monkeypatch.setattr(background, "serve", lambda campaign, **kw: seen.update(kw, campaign=campaign))
    code, out, err = bellica(capsys, "serve", path, "--port", "8123", "--secure-cookies", "--behind-proxy")
    assert code == 0, err
    assert seen == {"campaign": path, "host": "127.0.0.1", "port": 8123, "secure_cookies": True, "behind_proxy": True}
    code, _, err = bellica(capsys, "serve", path)
    assert code == 0 and seen["secure_cookies"] is False and seen["behind_proxy"] is False
