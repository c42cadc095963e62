"""The table-top rules as campaign steps (issue 22): the fleet fight's drowned elements chosen by the
player, a city's reorganisation and an allied command's surrender, through the ruleset's steps on
the real Dionysian campaign; their inputs sealed from the other side; `verify --readjudicate` replays."""

from __future__ import annotations

import shutil

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.cases import position_events
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.magna_graecia.ruleset import play, state_of
from bellica.engine.magna_graecia.seal import SEAL


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    from tests.conftest import scenario_campaign_file

    return scenario_campaign_file("magna-graecia/dionysian", tmp_path_factory.mktemp("mg-table") / "dionysian.duckdb")


@pytest.fixture
def campaign(fresh, tmp_path):
    out = tmp_path / "c.duckdb"
    shutil.copy(fresh, out)
    return out


def _step_event(c, step):
    return next(e for e in reversed(c.events()) if e.kind == "step" and e.data.get("step") == step)


def test_a_players_drowned_elements_go_first_and_stay_sealed(campaign):
    # Seed: "The controlling player chooses which elements to lose."  Syracuse (20 NP, command 36's
    # 12 elements aboard) rolls 1 against Carthage's 6 with 30 NP: 21 against 36, 15 NP lost, 8
    # spare, 7 elements drown: Art(O) and one Ps(O) as chosen, the engine's pick for the other five.
    with Campaign.open(campaign) as c:
        c.start(seed=5)
        play(c, "embark", {"side": "Syracuse", "commands": [36]})
        play(c, "sail", {"side": "Syracuse", "path": ["Helorus"]})
        with c.transaction():  # Carthage's fleet lies off Helorus, 30 NP strong (logged, as a case's position)
            c.append(position_events(c, ["mg_fleets side=Carthage node=Helorus np=30"]), before=c.snapshot())
        play(c, "end_movement", {"side": "Syracuse"})
        play(c, "roll", {"label": "fleet/1/Helorus/Syracuse/1", "value": 1})
        play(c, "roll", {"label": "fleet/1/Helorus/Carthage/1", "value": 6})
        play(c, "fleet_battle", {"node": "Helorus", "element_losses": [[36, "Art(O)", 1], [36, "Ps(O)", 1]]})
        assert state_of(c.snapshot()).command(36).elements == {"Sp(O)": 3, "Ps(O)": 1}
        e = _step_event(c, "fleet_battle")
        snap = c.snapshot()
        assert SEAL.hides("Carthage", e.kind, e.data, snap) and SEAL.hides("Syracuse", e.kind, e.data, snap)
        assert not SEAL.hides(None, e.kind, e.data, snap)
        c.verify()


def test_a_surrender_replays(campaign):
    # Seed: an allied command whose city the enemy occupies "will surrender immediately. Next campaign
    # turn it becomes an ally of the side that holds the city".  Syracuse attacks Acrae, which joins
    # Carthage; Acrae's command 1 surrenders on the table and is Syracuse's ally from turn 2.
    with Campaign.open(campaign) as c:
        c.start(seed=5)
        play(c, "move", {"side": "Syracuse", "command": 36, "path": ["Acrae"]})
        play(c, "roll", {"label": "alliance/1/Acrae/Syracuse", "value": 2})
        play(c, "end_movement", {"side": "Syracuse"})
        play(c, "attack_city", {"side": "Syracuse", "node": "Acrae"})
        play(c, "defence", {"side": "Carthage", "node": "Acrae", "defence": "central"})
        play(c, "result", {"node": "Acrae", "winner": "Syracuse", "losses": {}, "surrendered": [1]})
        state = state_of(c.snapshot())
        assert (state.command(1).ally, state.command(1).ally_from) == ("Syracuse", 2)
        assert state.owner(state.command(1)) == ""
        c.verify()
    assert readjudicate(campaign) > 0


def test_a_reorganisation_is_sealed_from_the_other_side(campaign):
    # Seed: "If a city has two or three commands, the controlling player may reorganize the commands
    # before a battle."  Agyrion's two commands (3, 4), attacked by Syracuse, are Carthage's allies.
    with Campaign.open(campaign) as c:
        c.start(seed=5)
        with c.transaction():
            c.append(position_events(c, ["mg_commands id=38 node=Centuripa"]), before=c.snapshot())
        play(c, "move", {"side": "Syracuse", "command": 38, "path": ["Agyrion"]})
        play(c, "roll", {"label": "alliance/1/Agyrion/Syracuse", "value": 2})
        play(c, "end_movement", {"side": "Syracuse"})
        play(c, "attack_city", {"side": "Syracuse", "node": "Agyrion"})
        from bellica.engine.core.machine import StepRefused

        with pytest.raises(StepRefused, match="command 3 fights for Carthage, not Syracuse"):
            play(c, "reorganise", {"side": "Syracuse", "node": "Agyrion", "from": 3, "to": 4, "elements": {"Sp(I)": 2}})
        play(c, "reorganise", {"side": "Carthage", "node": "Agyrion", "from": 3, "to": 4, "elements": {"Sp(I)": 2}})
        e = _step_event(c, "reorganise")
        snap = c.snapshot()
        assert SEAL.hides("Syracuse", e.kind, e.data, snap) and not SEAL.hides("Carthage", e.kind, e.data, snap)
        assert state_of(snap).command(4).elements["Sp(I)"] == 8
        c.verify()


def test_the_next_step_offers_the_base_edge_when_commands_came_by_two_paths(campaign):
    from bellica.engine.magna_graecia.status import next_decision

    with Campaign.open(campaign) as c:
        c.start(seed=5)
        with c.transaction():
            c.append(position_events(c, ["mg_commands id=38 node=Kamarina"]), before=c.snapshot())
        play(c, "move", {"side": "Syracuse", "command": 38, "path": ["Acrae"]})
        play(c, "move", {"side": "Syracuse", "command": 36, "path": ["Acrae"]})
        play(c, "roll", {"label": "alliance/1/Acrae/Syracuse", "value": 2})
        play(c, "end_movement", {"side": "Syracuse"})
        play(c, "attack_city", {"side": "Syracuse", "node": "Acrae"})
        said = next_decision(c, c.snapshot())
        assert "Syracuse may first name its base edge (`bellica magna-graecia base-edge CAMPAIGN Acrae " \
               "Syracuse|Kamarina --side Syracuse`, now Syracuse)" in said
        play(c, "base_edge", {"side": "Syracuse", "node": "Acrae", "edge": "Kamarina"})
        assert state_of(c.snapshot()).battle_at("Acrae").base_edge == "Kamarina"
        c.verify()


def test_a_recovery_die_is_entered_under_its_graded_element(campaign):
    # issue 22's friction list: the recovery dice are labelled by the element as the losses name it,
    # grade included (recovery/TURN/NODE/COMMAND/Sp(I)/N), and roll refused the brackets.
    from bellica.engine.core.machine import StepRefused
    from bellica.geo.errors import InputError

    with Campaign.open(campaign) as c:
        c.start(seed=5)
        play(c, "roll", {"label": "recovery/1/Gela/36/Sp(I)/1", "value": 4})
        assert ("recovery/1/Gela/36/Sp(I)/1",) in {k[:1] for k in c.snapshot().tables["mg_rolls"]}
        with pytest.raises((InputError, StepRefused), match="is not an element"):
            play(c, "roll", {"label": "recovery/1/Gela/36/Sp(I/1", "value": 4})
