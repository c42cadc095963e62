"""Who plays an assaulted garrison, when engagements' results are due and who reports them
(seed, "Assaults" and "Engagements and battles")."""

from __future__ import annotations

from datetime import timedelta

from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.battles import engagement_setup, find_engagements, garrison_player, result_reporter
from bellica.engine.vae_victis.model import ArmyOrders, Siege
from tests.engine.boards import sketch
from tests.engine.test_rounds import _fought, at_war


def test_the_controllers_players_play_the_garrison_or_the_faction_not_assaulting_for_syracusae():
    # Seed: "The players in the faction controlling the structure (or in the case of
    # Syracusan-controlled structures, the faction not assaulting) decide which one of them to
    # play the game."  Roma assaults Carthaginian Panormus: a Carthago player; Roma assaults
    # Syracusan Gela: Carthago again; Carthago assaults Gela: Roma.
    m = sketch(radius=3, structures=[("Gela", "city", "3", "syracusae"), ("Panormus", "city", "9", "carthago")])
    assert garrison_player(m.board, "carthago", "roma") == ("carthago", "the faction controlling the structure")
    assert garrison_player(m.board, "syracusae", "roma") == ("carthago", "the faction not assaulting")
    assert garrison_player(m.board, "syracusae", "carthago") == ("roma", "the faction not assaulting")
    state = m.state([(9, "roma", "3 3")], sieges=[Siege("Gela", "roma", (9,), 2, 2, 1)])
    es = find_engagements(m.board, state, assaults={9: "Gela"})
    setup = engagement_setup(m.board, state, es[0], es, mp_spent={9: 1})
    assert setup.sides[1].played_by == "carthago"
    assert "garrison (syracusae, played by carthago: the faction not assaulting)" in setup.text()
    assert "result within 21 days, reported by the winner, or on a draw the side with fewer casualties" in setup.text()


def test_the_winner_or_the_fewest_casualties_reports():
    # Seed: "The winner, or the player having incurred the fewest casualties, report the results."
    factions = {1: "carthago", 9: "roma"}
    assert result_reporter(factions, {1: ("loss", 48), 9: ("win", 25)}) == (9, "roma", "the winner")
    assert result_reporter(factions, {1: ("draw", 30), 9: ("draw", 35)}) == (1, "carthago", "fewer casualties in the draw")
    assert result_reporter(factions, {1: ("draw", 30), 9: ("draw", 30)})[:2] == (1, "carthago")
    # A failed assault: the garrison's player reports (the garrison records no casualties).
    assert result_reporter({9: "roma"}, {9: ("loss", 40)}, "carthago") == (None, "carthago", "the garrison won the assault")


def _assault_on_cumae():
    """Roman army 9, besieging Carthaginian Cumae from the hex next to it, assaults it."""
    import dataclasses

    from bellica.engine.vae_victis.state import load_state, save_state
    from tests.engine.test_rounds import FIELD, started

    c, m = started(structures=FIELD + [("Cumae", "town", "1 1", "carthago")])
    s = load_state(c)
    beside = tuple(dataclasses.replace(a, cell=m.cell("1")) if a.id == 9 else a for a in s.armies)
    with c.transaction():
        save_state(c, dataclasses.replace(s, armies=beside, sieges=(Siege("Cumae", "roma", (9,), 2, 2, 1),)))
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, assault="Cumae"), 10: ArmyOrders(10)}, faction="roma")
    rounds.submit_orders(c, {1: ArmyOrders(1)}, faction="carthago")
    rounds.run_movement(c)
    return c


def test_the_battle_sheet_names_the_garrison_player_and_a_lost_assault_is_reported_by_it():
    c = _assault_on_cumae()
    sheet = "\n".join(rounds.battle_sheet(c))
    assert "garrison (carthago, played by carthago: the faction controlling the structure)" in sheet
    events = rounds.record_result(c, 1, {9: ("loss", 40)})
    assert events[-1].text == "the result of engagement 1 is reported by carthago (the garrison won the assault)"
    c.verify()


def test_results_deadline_is_three_weeks_from_the_listing_and_the_reporter_is_logged():
    c, _ = at_war()
    _fought(c)
    listed = max(e.at for e in c.events(round=1) if e.kind == "engagement_setup")
    due = listed + timedelta(days=21)
    sheet = rounds.battle_sheet(c)
    assert f"results due by {due:%Y-%m-%d %H:%M} UTC (21 days from the listing of the engagements)" in sheet
    rounds.record_result(c, 1, {1: ("draw", 30), 9: ("draw", 35)})
    reporter = [e for e in c.events(round=1) if e.kind == "result_reporter"]
    assert [e.text for e in reporter] == ["the result of engagement 1 is reported by carthago (army 1, fewer casualties in the draw)"]
    assert reporter[0].data == {"engagement": 1, "army": 1, "faction": "carthago"}
    c.verify()
