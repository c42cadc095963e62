"""Issue 21 item 5, forms behave: Post/Redirect/Get on every form POST (a reload never resends), a
refused form kept with its error beside it, the log in pages ("older entries", its size said), a
label on every input, the map skippable by keyboard, and no page naming a command line (item 3)."""

from __future__ import annotations

import re
import warnings
from datetime import datetime, timezone
from html.parser import HTMLParser

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from starlette.testclient import TestClient  # noqa: E402

from bellica.app.logpage import page_of  # noqa: E402
from bellica.app.server import create_app  # noqa: E402
from bellica.app.web_words import web_words  # noqa: E402
from tests.app.fixtures import field_campaign  # noqa: E402


def client(path, token):
    return TestClient(create_app(path), headers={"Authorization": f"Bearer {token}"}, follow_redirects=False)


@pytest.fixture
def camp(tmp_path):
    path = tmp_path / "field.duckdb"
    return path, field_campaign(path)


class _Fields(HTMLParser):
    """Every input, select and textarea of a page, and the ids its labels name."""

    def __init__(self):
        super().__init__()
        self.fields, self.labelled, self.depth = [], set(), 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "label":
            self.depth += 1
            if a.get("for"):
                self.labelled.add(a["for"])
        elif tag in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit"):
            self.fields.append((a, self.depth > 0))

    def handle_endtag(self, tag):
        if tag == "label":
            self.depth -= 1


def unlabelled(page: str) -> list[dict]:
    p = _Fields()
    p.feed(page)
    return [a for a, inside in p.fields
            if not inside and a.get("id") not in p.labelled and not a.get("aria-label")]


def test_a_post_redirects_and_a_reload_sends_nothing_again(camp):
    path, tokens = camp
    roma, umpire = client(path, tokens["roma"]), client(path, tokens["umpire"])
    r = roma.post("/orders", data={"moves-9": "3", "moves-10": ""})
    assert r.status_code == 303 and r.headers["location"].startswith("/?said=")
    assert "3" not in r.headers["location"].split("said=")[1][:0]  # the URL carries a key only
    page = roma.get(r.headers["location"]).text
    assert "orders stored (sealed) for armies 9, 10" in page
    # the key is the token's: another viewer's reading of it shows no message
    assert "orders stored" not in client(path, tokens["carthago"]).get(r.headers["location"]).text
    r = umpire.post("/umpire/sql", data={"query": "SELECT 40 + 2 AS answer"})
    assert r.status_code == 303
    page = umpire.get(r.headers["location"]).text
    assert 'id="sql-result"' in page and "42" in page and "SELECT 40 + 2 AS answer" in page
    r = umpire.post("/umpire/sql", data={"query": "SELECT * FROM no_such_table"})
    assert r.status_code == 400 and 'id="sql-error"' in r.text and "no_such_table" in r.text


def test_a_refused_form_keeps_what_was_typed_beside_its_error(camp):
    path, tokens = camp
    umpire = client(path, tokens["umpire"])
    r = umpire.post("/umpire/deadline", data={"when_local": "1999-01-01T10:00", "tz": "UTC"})
    # The deadline is the declared step's form (step_forms): the error at the page's top, the picker refilled.
    assert r.status_code == 400 and 'id="error"' in r.text and 'id="deadline-when" value="1999-01-01T10:00"' in r.text
    assert umpire.post("/umpire/step", data={"step": "launch"}).status_code == 400
    year = datetime.now(timezone.utc).year + 1
    r = umpire.post("/umpire/deadline", data={"when_local": f"{year}-06-01T18:30", "tz": "Europe/Rome"})
    assert r.status_code == 303, r.text[-3000:]
    page = umpire.get(r.headers["location"]).text
    assert f"{year}-06-01T16:30:00Z" in page and 'id="deadline-local"' in page  # Rome in summer is UTC+2
    r = umpire.post("/umpire/deadline", data={"when_local": f"{year}-06-01T18:30", "tz": "browser", "offset": "-300"})
    assert r.status_code == 303 and f"{year}-06-01T23:30:00Z" in umpire.get(r.headers["location"]).text
    r = umpire.post("/umpire/deadline", data={"when_local": f"{year}-06-01T18:30", "tz": "Mars/Olympus"})
    assert r.status_code == 400 and "Mars/Olympus" in r.text


def test_every_field_is_labelled_and_the_map_can_be_skipped(camp):
    path, tokens = camp
    for who in ("roma", "umpire"):
        page = client(path, tokens[who]).get("/").text
        assert unlabelled(page) == [], who
        if who == "roma":
            assert page.index('id="skip-map"') < page.index('<iframe') and 'href="#log-heading"' in page
            assert re.search(r'<iframe[^>]*title="', page)


def test_the_log_comes_in_pages(camp):
    path, tokens = camp
    roma = client(path, tokens["roma"])
    page = roma.get("/").text
    assert re.search(r"\d+ of \d+ entries shown, newest first \(50 a page\)", page)
    lines = [(n, f"line {n}") for n in range(1, 121)]
    first = page_of(lines, None)
    assert first.entries[0] == "line 120" and len(first.entries) == 50 and first.older == 71
    second = page_of(lines, first.older)
    assert second.entries[0] == "line 70" and second.older == 21 and second.paged
    assert page_of(lines, 21).older is None and page_of(lines, 21).entries[-1] == "line 1"
    shown = roma.get("/?before=3").text
    # the entries before the third (the steps page leaves bookkeeping out: one or two of them)
    assert re.search(r"[12] of \d+ entries shown", shown) and 'id="log-newest"' in shown


def test_no_page_names_a_command_line(camp):
    path, tokens = camp
    assert web_words("run movement (`bellica round move`)") == "run movement (the “move” step)"
    assert web_words("begin: `bellica trossian next CAMPAIGN`") == "begin: the “next” step"
    for who in ("roma", "umpire"):
        page = client(path, tokens[who]).get("/").text
        assert not re.search(r"`?\b(bellica|tabula) (round|turn|trossian|magna-graecia|rise-of-rome|mare-nostrum)\b", page)


def test_a_refused_commitment_keeps_its_digest(tmp_path):
    path = tmp_path / "commit.duckdb"
    tokens = field_campaign(path, orders_mode="commit-reveal")
    roma = client(path, tokens["roma"])
    r = roma.post("/commit", data={"digest": "not-a-digest"})
    assert r.status_code == 400 and 'value="not-a-digest"' in r.text and 'id="error"' in r.text
    r = roma.post("/commit", data={"digest": "a" * 64})
    assert r.status_code == 303 and "committed" in roma.get(r.headers["location"]).text
