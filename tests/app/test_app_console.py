"""The umpire's SQL console in the app runs ``bellica sql``'s splitting and checks and shows every
statement's result (issue 19, item 2)."""

from __future__ import annotations

import html
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")  # starlette 1.x nudges towards httpx2; httpx is pinned

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.server import create_app  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402

REFUSED = "bellica sql is read-only and reads only the campaign"


@pytest.fixture(scope="module")
def umpire(tmp_path_factory):
    path = tmp_path_factory.mktemp("console") / "field.duckdb"
    tokens = field_campaign(path)
    return TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['umpire']}"})


def post(client, query, as_json=False):
    headers = {"Accept": "application/json"} if as_json else {}
    return client.post("/umpire/sql", data={"query": query}, headers=headers)


def test_the_console_shows_every_statements_result(umpire):
    r = post(umpire, "SELECT 1 AS a; SELECT 'x;y' AS b -- a comment; still statement 2", as_json=True)
    assert r.status_code == 200 and r.json() == [[{"a": 1}], [{"b": "x;y"}]]
    r = post(umpire, "SELECT 41 AS first_answer;\nSELECT count(*) AS armies_n FROM armies")
    assert r.status_code == 200
    shown = r.text.split('id="sql-result"')[1]
    assert "first_answer" in shown and "41" in shown and "armies_n" in shown
    assert shown.count("(1 row)") == 2


def test_the_console_refuses_a_list_holding_a_refused_statement(umpire):
    for query, op in (("SELECT 1 AS a; COPY armies TO '/tmp/x.csv'", "COPY"), ("SELECT 1 AS a; PRAGMA version", "PRAGMA")):
        r = post(umpire, query)
        assert r.status_code == 400, query
        assert f"statement 2 of the query: {op} is refused: {REFUSED}" in html.unescape(r.text)
        assert 'id="sql-result"' not in r.text


def test_the_console_keeps_the_seal_on_a_pivot(umpire):
    r = post(umpire, "PIVOT orders ON army USING count(*)")
    assert r.status_code == 400 and "reading orders is refused" in html.unescape(r.text)
