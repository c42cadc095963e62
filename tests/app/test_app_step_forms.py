"""The generic page of a ruleset's declared steps (bellica/app/step_forms.py), on a Trossian campaign.

One form per step the viewer may take now, each field labelled with its parameter's help; a
player cannot act for another nation, even by posting a forged nation field; a bad parameter
answers the one-line error of the declarations' parser with the typed text kept; a step taken
answers Post/Redirect/Get (a reload takes nothing again); no sealed value of another nation's is
in the HTML; JSON on the same route; the page is autoescaped (a typed '<script>' comes back as
text).
"""

from __future__ import annotations

import html
import re
import warnings

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from tests.app.test_app_nodes import JSON, T, _log_len, client, make_tr  # noqa: E402


@pytest.fixture
def tr(capsys, tmp_path):
    return make_tr(capsys, tmp_path)


def _open_orders(path, tokens):
    ump = client(path, tokens["umpire"])
    r = ump.post("/step/next")
    assert r.status_code == 303, r.text[:2000]
    return ump


def _forms(page: str) -> dict[str, str]:
    return dict(re.findall(r'<form method="post" action="/step/([a-z_]+)" id="form-\1" class="box step">(.*?)</form>',
                           page, flags=re.S))


def test_a_form_per_open_step_every_input_labelled(tr):
    from bellica.engine.core.campaign import Campaign

    path, tokens = tr
    ump = client(path, tokens["umpire"])
    # before the phase begins: the umpire's next, and the steps of any phase (a die rolled at the table, a card ruled)
    assert set(_forms(ump.get("/").text)) == {"next", "roll", "ruling"}
    _open_orders(path, tokens)
    page = client(path, tokens["Russia"]).get("/").text
    forms = _forms(page)
    _log_len(path)  # lets the app's hold on the file go
    with Campaign.open(path, read_only=True) as c:
        open_now = [a.name for a in c.ruleset.open_actions(c, "Russia")]
        actions = {a.name: a for a in c.ruleset.actions()}
        offered = {(a.name, p.name): c.ruleset.choices(c, "Russia", a, p) for a in actions.values() for p in a.params}
    assert list(forms) == open_now and {"march", "courier", "done", "ally"} <= set(forms)
    for name, body in forms.items():
        for p in actions[name].params:
            field = f"{name}-{p.name}"
            assert f'<label for="{field}">{p.help}</label>' in html.unescape(body), (name, p.name)
            tag = re.search(rf'<(input|select|textarea)[^>]*\bid="{field}"[^>]*>', body).group(0)
            chosen = offered[(name, p.name)] is not None  # the ruleset offers its values: a select, or suggestions
            want = ("<textarea" if p.many else '<input type="checkbox"' if p.kind == "flag"
                    else '<input type="text"' if p.kind == "text"
                    else "<select" if p.kind in ("choice", "faction") or chosen else '<input type="number"')
            assert tag.startswith(want), (field, tag)
            if chosen and p.kind == "text" and not p.many:
                assert f'list="{field}-list"' in tag and f'<datalist id="{field}-list">' in body, (field, tag)
            if chosen and p.many:
                assert f'<small id="{field}-hint">one a line, from: ' in body, field
            if p.example and p.kind not in ("choice", "faction", "flag") and not tag.startswith("<select"):
                assert f'placeholder="{html.escape(p.example, quote=True)}' in tag, (field, tag)
    assert '<option value="Crimean Khanate">' in forms["ally"]  # a faction parameter: the campaign's factions
    # The nation's own armies, couriers and addressees are offered, no other nation's.
    assert '<option value="1">' in forms["march"] and '<option value="13">' in forms["march"]
    assert '<option value="52">' not in forms["march"]  # the Crimean Khanate's
    assert '<option value="army 1">' in forms["courier"]
    assert 'name="csrf"' not in page  # a Bearer script's page: no cookie session, no check value (csrf.py)


def test_a_player_acts_only_for_its_own_nation(tr):
    path, tokens = tr
    ump = _open_orders(path, tokens)
    rus = client(path, tokens["Russia"])
    n = _log_len(path)
    for forged in ({"nation": "Ottoman Porte"}, {"faction": "ottoman"}, {"side": "Crimean Khanate"}):
        r = rus.post("/step/done", data=forged)
        assert r.status_code == 403 and "acts for Russia only" in T(r), forged
    r = rus.post("/step/march", data={"army": "20", "path": "Thrace"})  # an Ottoman army: the engine says whose
    assert r.status_code == 400 and "Ottoman Porte's, not Russia's" in T(r)
    r = ump.post("/step/done")  # a nation's step: never the umpire's
    assert r.status_code == 403
    r = rus.post("/step/next")  # the umpire's step: never a player's
    assert r.status_code == 403
    assert _log_len(path) == n
    r = rus.post("/step/done", data={"nation": "russia"})  # its own name, any case: taken, as Russia
    assert r.status_code == 303
    assert client(path, tokens["umpire"]).get("/api/status").json()["ready"] == ["Russia"]


def test_a_bad_parameter_is_one_line_with_the_typed_text_kept(tr):
    path, tokens = tr
    _open_orders(path, tokens)
    rus = client(path, tokens["Russia"])
    n = _log_len(path)
    r = rus.post("/step/march", data={"army": "one", "path": "Podolia\n<script>alert(1)</script>"})
    assert r.status_code == 400
    err = re.search(r'<div class="box error" id="error" role="alert">(.*?)</div>', r.text, flags=re.S).group(1)
    assert "\n" not in err and html.unescape(err) == "refused, nothing stored: --army: 'one' is not a whole number: give one such as 1"
    march = _forms(r.text)["march"]
    assert '<option value="one" selected>' in march and 'aria-invalid="true"' in march  # kept, though no army is "one"
    assert "Podolia\n&lt;script&gt;alert(1)&lt;/script&gt;</textarea>" in march and "<script>alert" not in r.text
    r = rus.post("/step/courier", data={"courier": "74", "action": "fly"})
    assert r.status_code == 400 and "ACTION: 'fly' is not one of send, move, deliver" in T(r)
    r = rus.post("/step/march", data={"army": "1"}, headers=JSON)
    assert r.status_code == 400 and r.json()["param"] == "path" and r.json()["error"].startswith("--to: missing")
    assert _log_len(path) == n


def test_post_redirect_get(tr):
    path, tokens = tr
    _open_orders(path, tokens)
    rus = client(path, tokens["Russia"])
    r = rus.post("/step/march", data={"army": "1", "path": "Bessarabia"})
    assert r.status_code == 303 and r.headers["location"].startswith("/turn?said=")
    n = _log_len(path)
    for _ in range(2):  # the page, reloaded: what the step said, nothing taken again
        page = T(rus.get(r.headers["location"]))
        assert "order 1: march" in page and "next: " in page
    assert _log_len(path) == n
    other = client(path, tokens["Ottoman Porte"]).get(r.headers["location"])
    assert other.status_code == 200 and "order 1: march" not in T(other)  # another token's key shows nothing
    js = rus.post("/step/done", json={"nation": "Russia"})  # a JSON body: JSON back, no redirect
    assert js.status_code == 200 and js.json()["step"] == "done" and js.json()["said"] and js.json()["next"]


def test_no_sealed_value_of_another_nation_in_the_html(tr):
    path, tokens = tr
    ump = _open_orders(path, tokens)
    rus = client(path, tokens["Russia"])
    secret = "Sealed-for-Russia-alone"
    r = rus.post("/step/courier", data={"action": "send", "courier": "74", "message": secret, "to": "army 1"})
    assert r.status_code == 303
    assert secret in T(rus.get(r.headers["location"]))
    r = rus.post("/step/march", data={"army": "1", "path": "Bessarabia"})
    assert r.status_code == 303 and "order 2: march" in T(rus.get("/"))
    viewers = [ump] + [client(path, tokens[n]) for n in ("Ottoman Porte", "Danubian Principalities", "Crimean Khanate")]
    for cl in viewers:
        text = T(cl.get("/")) + cl.get("/api/status").text + cl.get("/api/steps").text
        assert secret not in text and "order 1: courier" not in text and "order 2: march" not in text
    for t in tokens.values():
        assert t not in rus.get("/").text
