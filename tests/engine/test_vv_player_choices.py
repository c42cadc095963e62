"""Issue 21, item 2: a faction gives its own administration choices (engine/vae_victis/rounds/player_choices.py).

Checked by the umpire's own checks, for the faction's own armies only; sealed from everyone else,
the umpire included, until administration; administration takes them in place of the umpire's for
that faction's armies; and re-adjudication replays them."""

from __future__ import annotations

import pytest

from bellica.engine.core.machine import StepRefused
from bellica.engine.core.sealed import log_view
from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.model import ArmyOrders
from bellica.engine.vae_victis.rounds.choices import AdminChoices
from bellica.engine.vae_victis.rounds.player_choices import merged_choices
from bellica.geo.errors import InputError
from tests.engine.boards import sketch
from tests.engine.test_rounds import FIELD
from tests.engine.test_state import make_campaign

#: Ostia ("9 9" from Roma) looks out on a Coast hex; a second Coast hex beyond it, Sea past that.
COAST = {"9 9 9": "coast", "9 9 9 11": "coast", "9 9 9 9": "sea"}
PLACEMENTS = ((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia"))


def fought(path):
    """Round 1 after movement: army 9 met army 1 (engagement 1, army 9 won), navy 10 sailed from
    Ostia to the second Coast hex, where it is at sea."""
    c, _m = make_campaign(path, placements=PLACEMENTS, m=sketch(radius=4, structures=FIELD, water=COAST))
    c.start(seed=11)
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10, moves=(9, 11))}, faction="roma")
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=(9, 9))}, faction="carthago")
    rounds.run_movement(c)
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    return c


def test_a_factions_debark_is_sealed_then_runs_in_place_of_the_umpires(tmp_path):
    c = fought(tmp_path / "c.duckdb")
    navy = c.snapshot().tables["armies"][(10,)][2]
    land = c.board.sides[navy][3]
    events = rounds.submit_choices(c, "roma", AdminChoices(debarks={10: 1}))
    events = rounds.submit_choices(c, "roma", AdminChoices(debarks={10: 3}))  # the last given counts
    assert events[0].text == "administration choices given by roma"
    assert rounds.choosers(c) == {"roma": "roma"}  # who, never what
    for viewer in (None, "carthago"):  # the umpire too reads only that roma has chosen
        lines = [ln for ln in log_view(c, viewer=viewer) if ln.event.kind == "choices_given"]
        assert lines and all(ln.sealed and "debarks" not in str(ln.data) for ln in lines)
        assert lines[-1].text == "administration choices given by roma, sealed until administration"
    own = [ln for ln in log_view(c, viewer="roma") if ln.event.kind == "choices_given"]
    assert not own[-1].sealed and own[-1].data["choices"]["debarks"] == {"10": 3}
    assert rounds.orders_view(c, faction="carthago")[1][2].moves == (3, 3)  # the orders stay public
    # The umpire's box names navy 10 too: roma's own choice stands.
    done = rounds.run_administration(c, AdminChoices(debarks={10: 1}))
    debarked = [e.data for e in done if e.kind == "navy_debarked"]
    assert [(d["army"], d["clock"], d["to"]) for d in debarked] == [(10, 3, land)]
    assert c.snapshot().tables["armies"][(10,)][2] == land
    note = c.snapshot().note(1, "administration_choices")
    assert note["debarks"] == {"10": 3}
    lines = [ln for ln in log_view(c, viewer="carthago") if ln.event.kind == "choices_given"]
    assert lines and not any(ln.sealed for ln in lines)  # open once administration ran
    c.close()
    from bellica.engine.core.readjudicate import readjudicate

    assert readjudicate(tmp_path / "c.duckdb") > 0  # the choices replay, then administration as it ran


def test_a_faction_chooses_for_its_own_armies_and_structures_only(tmp_path):
    c = fought(tmp_path / "c.duckdb")
    with pytest.raises(InputError, match="debark: army 10 is roma's, not carthago's: choose for your own armies only"):
        rounds.submit_choices(c, "carthago", AdminChoices(debarks={10: 3}))
    with pytest.raises(InputError, match="surrender: Roma is not carthago's to surrender"):
        rounds.submit_choices(c, "carthago", AdminChoices(surrenders=frozenset({"Roma"})))
    with pytest.raises(InputError, match="has no side at clock 4"):  # the umpire's own check, its words
        rounds.submit_choices(c, "roma", AdminChoices(debarks={10: 4}))
    with pytest.raises(InputError, match="debark: army 9 is not a navy"):
        rounds.submit_choices(c, "roma", AdminChoices(debarks={9: 3}))
    with pytest.raises(InputError, match="unknown faction 'gallia'"):
        rounds.submit_choices(c, "gallia", AdminChoices())
    assert rounds.choosers(c) == {}  # nothing stored
    rounds.run_administration(c)
    with pytest.raises(StepRefused, match="cannot take a faction's administration choices"):
        rounds.submit_choices(c, "roma", AdminChoices())  # administration ran: too late
    c.close()


def test_merging_the_factions_choices_twice_changes_nothing():
    umpire = AdminChoices(advances={9: 5, 1: 3}, debarks={10: 1}, surrenders=frozenset({"Roma", "Capua"}))
    own = {"roma": AdminChoices(debarks={10: 3}, siege_starts={9: "Capua"})}
    factions = {1: "carthago", 9: "roma", 10: "roma"}
    control = {"Roma": "roma", "Capua": "carthago"}
    once = merged_choices(umpire, own, factions, control=control)
    assert once.advances == {1: 3} and once.debarks == {10: 3} and once.siege_starts == {9: "Capua"}
    assert once.surrenders == {"Capua"}  # Roma is roma's to surrender, and roma chose not to
    assert merged_choices(once, own, factions, control=control) == once


def test_a_choice_the_results_rule_out_is_refused_and_never_stops_administration(tmp_path):
    """A faction's choice stands over the umpire's, so one administration would refuse must not
    be stored (the umpire could not set it aside): advance only into a beaten loser's hex, no
    siege by an army administration removes; a result corrected after the choice sets it aside."""
    c = fought(tmp_path / "c.duckdb")
    with pytest.raises(InputError, match="advance: army 9 advances only into the hex of a loser it beat"):
        rounds.submit_choices(c, "roma", AdminChoices(advances={9: 1}))
    with pytest.raises(InputError, match="siege: army 1 cannot siege Roma: it lost its engagement"):
        rounds.submit_choices(c, "carthago", AdminChoices(siege_starts={1: "Roma"}))
    rounds.submit_choices(c, "roma", AdminChoices(advances={9: 3}, debarks={10: 3}))  # into army 1's hex
    rounds.record_result(c, 1, {1: ("draw", 30), 9: ("draw", 35)}, correction=True)
    events = rounds.run_administration(c, AdminChoices(debarks={10: 1}))
    aside = [e for e in events if e.kind == "choices_set_aside"]
    assert len(aside) == 1 and "roma's own administration choices are set aside" in aside[0].text
    assert "army 9 has no win recorded" in aside[0].text
    assert c.snapshot().note(1, "administration_choices")["debarks"] == {"10": 1}  # the umpire's stood
    c.close()
    from bellica.engine.core.readjudicate import readjudicate

    assert readjudicate(tmp_path / "c.duckdb") > 0


def test_a_factions_choice_administration_refuses_midway_is_set_aside(tmp_path, monkeypatch):
    """Should a faction's choice pass every check when given and still be refused by a later step
    of administration (the position moved on in its earlier steps), administration sets the
    factions' choices aside with the refusal and runs the umpire's; re-adjudication agrees."""
    from bellica.engine.vae_victis.rounds import player_choices

    monkeypatch.setattr(player_choices, "outcome_problems", lambda board, r, choices: [])  # let a bad advance in
    c = fought(tmp_path / "c.duckdb")
    rounds.submit_choices(c, "roma", AdminChoices(advances={9: 1}, debarks={10: 3}))
    events = rounds.run_administration(c, AdminChoices(debarks={10: 1}))
    aside = [e.text for e in events if e.kind == "choices_set_aside"]
    assert aside == ["roma's own administration choices are set aside (administration refused them: army 9 cannot "
                     f"advance into {c.board.sides[c.snapshot().tables['armies'][(9,)][2]][1]}: only into an adjacent "
                     "hex vacated by a loser it fought): the umpire's stand for its armies"]
    assert c.snapshot().note(1, "administration_choices")["debarks"] == {"10": 1}
    c.close()
    from bellica.engine.core.readjudicate import readjudicate

    assert readjudicate(tmp_path / "c.duckdb") > 0
