"""A keyed parameter's fields on a page (bellica/app/step_forms.py, issue 20): one select per key the
ruleset offers, named NAME-KEY; a list parameter's offered items as boxes; a refused form refilled."""

from __future__ import annotations

from bellica.app.step_forms import offered_fields, signer_of
from bellica.app.tokens import Identity
from bellica.engine.core.steps import FieldOffer, Param

USES = Param("uses", "ARMY=USE items.", keyed="army")
SURRENDERS = Param("surrenders", "STRUCTURE items.", flag="--surrender", many=True)
OFFERS = (FieldOffer("9", "army 9", (("strength", "strength"), ("Mare", "influence in Mare")), "strength"),
          FieldOffer("10", "army 10", (("3", "clock 3: Ostia"),), none="stays at sea"))


def test_one_select_per_key_its_value_now():
    nine, ten = offered_fields("initiative", USES, OFFERS, None)
    assert (nine.id, nine.name, nine.widget, nine.value) == ("initiative-uses-9", "uses-9", "select", "strength")
    assert nine.choices == (("strength", "strength"), ("Mare", "influence in Mare"))  # no blank: a value is needed
    assert ten.choices[0] == ("", "stays at sea") and ten.value == ""


def test_a_refused_form_keeps_what_was_typed_but_offers_no_more():
    nine, ten = offered_fields("initiative", USES, OFFERS, {"uses-9": "Mare", "uses-10": "4"}, invalid="uses")
    assert nine.value == "Mare" and ten.value == "4" and nine.invalid and ten.invalid
    assert "4" not in [v for v, _w in ten.choices]


def test_a_list_offered_item_by_item_is_a_box_each():
    offers = (FieldOffer("Gela", "surrender Gela"), FieldOffer("Enna", "surrender Enna", value="on"))
    gela, enna = offered_fields("choose", SURRENDERS, offers, None)
    assert (gela.widget, gela.name, gela.sends, gela.value, enna.value) == ("checkbox", "surrenders", "Gela", "", "on")
    gela, enna = offered_fields("choose", SURRENDERS, offers, {"surrenders": "Gela"})
    assert gela.value == "on" and enna.value == ""


def test_the_signer_is_the_token():
    s = signer_of(Identity("admiral", "player", "roma", (10,)))
    assert (s.role, s.faction, s.armies, s.by) == ("player", "roma", (10,), "token:admiral")
    assert s.commands("roma", 10) and not s.commands("roma", 9)


def test_an_army_players_token_gives_initiative_for_its_armies_only(tmp_path):
    """The initiative step is signed: an army player's token sees a field for its own army only, and
    the step (not the page) refuses another army of its faction; what it gives is recorded as its
    token's (issue 20)."""
    import warnings

    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

    from bellica.app.server import create_app
    from tests.app.fixtures import field_campaign

    path = tmp_path / "init.duckdb"
    tokens = field_campaign(path, publish=False, players={"admiral": ("roma", (10,))})
    admiral = TestClient(create_app(path), headers={"Authorization": f"Bearer {tokens['admiral']}"})
    page = admiral.get("/").text
    assert 'id="initiative-uses-10"' in page and 'id="initiative-uses-9"' not in page
    r = admiral.post("/step/initiative", data={"uses-9": "strength"})
    assert r.status_code == 400 and "army 9 is not one you command: give initiative for your own armies only" in r.text
    check = admiral.post("/check/initiative", data={"uses-9": "strength"}).json()
    assert not check["ok"] and "army 9 is not one you command" in check["problems"][0]["text"]
    r = admiral.post("/step/initiative", data={"uses-10": "strength"})
    assert r.status_code == 200 and "initiative stored (sealed) for army 10" in r.text
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(path) as c:  # the mode the app holds it in
        by = [e.data.get("submitted_by") for e in c.events() if e.kind == "put_orders"]
    assert by == ["token:admiral"]
