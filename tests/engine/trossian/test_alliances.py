"""Trossian alliances (docs/rules/trossian.md, "Alliances"): an offer and its acceptance make
one, one word breaks it; allies march through and stand in each other's provinces and never
battle each other; an alliance broken where both stand is a battle.  The seed: allied forces
march and arrive to battle together, and treachery is on the table."""

from __future__ import annotations

import pytest

from bellica.engine.trossian import battles, movement
from bellica.engine.trossian.model import state_from_dict, state_to_dict
from bellica.engine.trossian.rules import default_rules
from bellica.engine.trossian.turn import diplomacy
from bellica.geo.errors import InputError

from .tiny import army, tiny_scenario, tiny_state

S, R = tiny_scenario(), default_rules()


def _allied(st):
    st, ev = diplomacy(st, "Red", "Blue")
    assert ev[0].kind == "alliance_offered" and st.offers == {("Red", "Blue")} and not st.alliances
    st, ev = diplomacy(st, "Blue", "Red")
    assert ev[0].kind == "alliance" and ev[0].data == {"nations": ["Blue", "Red"], "allied": True, "by": "Blue"}
    assert st.alliances == {frozenset({"Red", "Blue"})} and not st.offers
    return st


def test_an_offer_and_its_acceptance_make_an_alliance_one_word_breaks_it():
    st = _allied(tiny_state())
    assert not st.hostile("Red", "Blue")
    with pytest.raises(InputError, match="allied already"):
        diplomacy(st, "Red", "Blue")
    st, ev = diplomacy(st, "Blue", "Red", brk=True)  # treachery needs no consent
    assert ev[0].kind == "alliance" and ev[0].data["allied"] is False and ev[0].data["by"] == "Blue"
    assert st.hostile("Red", "Blue") and not st.alliances


def test_an_offer_can_be_taken_back_and_is_not_made_twice():
    st, _ = diplomacy(tiny_state(), "Red", "Blue")
    with pytest.raises(InputError, match="Blue must answer"):
        diplomacy(st, "Red", "Blue")
    st, ev = diplomacy(st, "Red", "Blue", brk=True)
    assert ev[0].kind == "alliance_withdrawn" and not st.offers and not st.alliances
    with pytest.raises(InputError, match="nothing to break"):
        diplomacy(st, "Red", "Blue", brk=True)
    with pytest.raises(InputError, match="two different nations"):
        diplomacy(st, "Red", "Red")
    with pytest.raises(InputError, match="two different nations"):
        diplomacy(st, "Red", "Green")


def test_offers_survive_the_json_round_trip():
    st, _ = diplomacy(tiny_state(), "Red", "Blue")
    assert state_from_dict(state_to_dict(st)).offers == {("Red", "Blue")}


def test_allies_march_through_each_other_and_never_battle():
    st = tiny_state([army(1, "Red", "A", "hq", "light_cavalry"), army(2, "Blue", "B", "hq", "line_infantry")])
    with pytest.raises(InputError, match="stop the move"):
        movement.move_army(S, st, R, 1, ["B", "C"])
    st = _allied(st)
    st2, _ = movement.move_army(S, st, R, 1, ["B", "C"])  # through an ally's army, into an ally's province
    assert st2.army(1).province == "C"
    st3, _ = movement.move_army(S, st, R, 1, ["B"])       # and standing with it is no battle
    _, found = battles.find_battles(S, st3)
    assert found == []
    # a headless army may go where only allies stand (no contact)
    headless = _allied(tiny_state([army(1, "Red", "A", "light_cavalry"), army(2, "Blue", "B", "hq", "line_infantry")]))
    assert movement.move_army(S, headless, R, 1, ["B"])[0].army(1).province == "B"
    # an ally's province is a safe line of retreat
    assert "C" in movement.retreat_options(S, st3, R, st3.army(1))


def test_an_alliance_broken_where_both_stand_is_a_battle():
    st = _allied(tiny_state([army(1, "Red", "B", "hq", "line_infantry"), army(2, "Blue", "B", "hq", "line_infantry")]))
    assert battles.find_battles(S, st)[1] == []
    st, _ = diplomacy(st, "Red", "Blue", brk=True)
    st, found = battles.find_battles(S, st)
    assert [e.data["nations"] for e in found] == [[["Red"], ["Blue"]]]


# --- as a campaign: the `ally` step, the tr_march view, the log, re-adjudication ----------------------


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("trossian-ally-base")


def _march_contact(c, army_id: int, to: str):
    row = c.con.execute(f"SELECT contact FROM tr_march WHERE army = {army_id} AND \"to\" = '{to}'").fetchone()
    return None if row is None else bool(row[0])


def test_allies_in_a_campaign_march_together_and_treachery_is_a_battle(base_dir, tmp_path):
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.core.machine import StepRefused
    from bellica.engine.core.readjudicate import readjudicate
    from bellica.engine.core.sealed import log_view
    from bellica.engine.trossian.ruleset import act, ally, engine_step, enter_result, state_of, status_view
    from tests.engine.trossian.campaign_file import fresh_campaign

    path = fresh_campaign(base_dir, tmp_path / "c.duckdb")
    nations = ("Russia", "Ottoman Porte", "Danubian Principalities", "Crimean Khanate")
    with Campaign.open(path) as c:
        c.start(seed=7)
        with pytest.raises(StepRefused, match="not in the begin phase"):
            ally(c, "Russia", "Danubian")
        engine_step(c, "begin")
        # Russia's army 1 in Yedisan: the Danubian army in Moldavia stops a march there
        assert _march_contact(c, 1, "Moldavia") is True
        ally(c, "Russia", "Danubian")
        assert _march_contact(c, 1, "Moldavia") is True  # an offer is no alliance
        assert status_view(c)["offers"] == [{"nation": "Russia", "to": "Danubian Principalities"}]
        ally(c, "danub", "russia")
        assert status_view(c, "Crimean")["alliances"] == [["Danubian Principalities", "Russia"]]
        assert _march_contact(c, 1, "Moldavia") is False  # the view reads the alliance
        assert _march_contact(c, 47, "Yedisan") is False and _march_contact(c, 47, "Budjak") is True
        # public: another nation reads the offer and the alliance in the log
        words = " ".join(e.text for e in log_view(c, viewer="Ottoman Porte"))
        assert "Russia offers Danubian Principalities an alliance" in words and "are allies" in words
        act(c, "march", "Russia", army=1, path=["Bessarabia", "Moldavia"])
        for n in nations:
            act(c, "done", n)
        engine_step(c, "resolve")
        state = state_of(c.snapshot())
        assert state.army(1).province == "Moldavia" and not any(b.province == "Moldavia" for b in state.battles)
        with pytest.raises(StepRefused, match="not in the battles phase"):
            ally(c, "Russia", "Danubian", brk=True)
        for b in state.battles:
            enter_result(c, b.id, "a", {})
        engine_step(c, "end")
        engine_step(c, "begin")
        # treachery: Russia breaks the alliance while its army stands in Moldavia with the Danubians'
        ally(c, "Russia", "Danubian", brk=True)
        assert _march_contact(c, 38, "Moldavia") is True
        for n in nations:
            act(c, "done", n)
        engine_step(c, "resolve")
        moldavia = [b for b in state_of(c.snapshot()).battles if b.province == "Moldavia"]
        assert len(moldavia) == 1 and {n for side in moldavia[0].nations for n in side} == {
            "Russia", "Danubian Principalities"}
        c.verify()
    assert readjudicate(path) > 10
