"""The round machine: steps in the seed's order, refusals out of order, sealed orders, one transaction per step."""

from __future__ import annotations

import pytest

from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.model import ArmyOrders, Phase
from bellica.engine.vae_victis.state import load_state, save_state
from bellica.engine.vae_victis.orders import IllegalOrderError
from bellica.geo.errors import InputError
from tests.engine.test_state import make_campaign
from tests.engine.boards import sketch

# Roma at the centre; Ostia (roma) on the coast to the west; Capua (carthago) three hexes east.
STRUCTURES = [
    ("Roma", "city", "", "roma", True),
    ("Ostia", "town", "9 9", "roma"),
    ("Capua", "city", "3 3 3", "carthago", True),
    ("Cumae", "town", "1 1", None),
]
WATER = {"9 9 9": "coast", "9 9 9 9": "coast"}


def started(placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), structures=STRUCTURES, water=WATER, path=None):
    m = sketch(radius=4, structures=structures, water=water)
    c, m = make_campaign(path, placements=placements, m=m)
    c.start(seed=11)
    return c, m


def count_events(c):
    return c.con.execute("SELECT count(*) FROM events").fetchone()[0]


def test_status_at_the_start_names_the_next_step():
    c, _ = started()
    s = rounds.round_status(c)
    assert (s.round, s.phase, s.stage) == (1, "orders", "initiative")
    assert s.missing_initiative == {"carthago": (1,), "roma": (9, 10)}
    assert "bellica round initiative" in s.next_step
    assert s.lines()[0] == "round 1, phase orders (initiative)"


def test_initiative_is_sealed_then_published_with_naval_superiority():
    c, _ = started()
    rounds.submit_initiative(c, {9: "Mare Tyrrhenum"}, faction="roma")
    # Sealed: carthago sees nothing of roma's initiative yet; roma sees its own.
    view = {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}
    assert view[9] is None
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="roma")}[9].initiative == "Mare Tyrrhenum"
    events = rounds.publish_initiative(c)
    texts = [e.text for e in events]
    assert "army 1 (carthago) gave no initiative use: +40 FP in its engagements (the default)" in texts
    assert "army 9 (roma) initiative: influence in Mare Tyrrhenum" in texts
    # 2 + 1 own - 0 others = 3 for roma; 2 + 0 - 1 = 1 for the others.
    assert "naval superiority in Mare Tyrrhenum: carthago 1, roma 3, syracusae 1" in texts
    s = rounds.round_status(c)
    assert s.stage == "moves" and s.missing_orders == {"carthago": (1,), "roma": (9, 10)}
    # Published uses are public; moves are not.
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}[9] == ArmyOrders(9, initiative="Mare Tyrrhenum")
    c.verify()


def test_influence_cap_counts_the_whole_faction():
    # Roma controls one coastal town (Ostia): at most 1 Influence point in Mare Tyrrhenum.
    c, _ = started()
    rounds.submit_initiative(c, {9: "Mare Tyrrhenum"}, faction="roma")
    n = count_events(c)
    with pytest.raises(IllegalOrderError, match="roma assigns 2 influence point"):
        rounds.submit_initiative(c, {10: "Mare Tyrrhenum"}, faction="roma")
    assert count_events(c) == n


def test_initiative_after_publication_is_refused():
    c, _ = started()
    rounds.publish_initiative(c)
    with pytest.raises(rounds.StepRefused, match="initiative was published"):
        rounds.submit_initiative(c, {9: "strength"})
    with pytest.raises(rounds.StepRefused, match="already published"):
        rounds.publish_initiative(c)


def test_movement_refused_until_every_army_has_orders():
    c, _ = started()
    with pytest.raises(rounds.StepRefused, match="initiative uses are not published yet; run `bellica round publish`"):
        rounds.run_movement(c)
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,))}, faction="roma")
    n = count_events(c)
    with pytest.raises(
        rounds.StepRefused,
        match="cannot run movement: orders phase incomplete, missing orders from carthago army 1; roma army 10",
    ):
        rounds.run_movement(c)
    assert count_events(c) == n


def test_bad_orders_store_nothing():
    c, _ = started()
    rounds.publish_initiative(c)
    n = count_events(c)
    with pytest.raises(IllegalOrderError) as e:
        rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,)), 1: ArmyOrders(1, moves=(9,))}, faction="roma")
    assert "army 1: army 1 is not in roma (it belongs to carthago)" in str(e.value)
    assert count_events(c) == n
    assert rounds.round_status(c).missing_orders == {"carthago": (1,), "roma": (9, 10)}


def test_published_initiative_cannot_change_with_the_orders():
    c, _ = started()
    rounds.submit_initiative(c, {9: "Mare Tyrrhenum"})
    rounds.publish_initiative(c)
    with pytest.raises(IllegalOrderError, match="published as 'Mare Tyrrhenum'"):
        rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,), initiative="Mare Sardoum")})
    # Leaving it out (the default) keeps the published use.
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,))})
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="roma")}[9].initiative == "Mare Tyrrhenum"  # the umpire reads it only at the reveal


def test_orders_for_the_wrong_round_are_refused():
    c, _ = started()
    rounds.publish_initiative(c)
    with pytest.raises(InputError, match="is for round 2 but the campaign is in round 1"):
        rounds.submit_orders(c, {9: ArmyOrders(9)}, round=2)


def test_moves_stay_sealed_until_all_are_in():
    c, _ = started()
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 0)), 10: ArmyOrders(10)}, faction="roma")
    seen = {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}
    assert seen[9] == ArmyOrders(9)  # the published initiative only, no moves
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=(0,))}, faction="carthago")
    seen = {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}
    assert seen[9].moves == (3, 0)


def test_steps_out_of_order_are_refused():
    c, _ = started()
    with pytest.raises(rounds.StepRefused, match="cannot record a result: round 1 is in the orders phase"):
        rounds.record_result(c, 1, {9: ("win", 10)})
    with pytest.raises(rounds.StepRefused, match="cannot run administration: round 1 is in the orders phase"):
        rounds.run_administration(c)
    with pytest.raises(rounds.StepRefused, match="cannot check victory: round 1 is in the orders phase"):
        rounds.run_victory(c)


# --- movement and battles ---------------------------------------------------------------

# Roma and Capua four hexes apart on farmland; "3 3" is the hex between them.
FIELD = [
    ("Roma", "city", "", "roma", True),
    ("Ostia", "town", "9 9", "roma"),
    ("Capua", "city", "3 3 3 3", "carthago", True),
]


def at_war(**kw):
    c, m = started(placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), structures=FIELD, **kw)
    rounds.publish_initiative(c)
    return c, m


def test_movement_collision_then_engagement_listed():
    c, m = at_war()
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10, moves=())}, faction="roma")
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=(9, 9))}, faction="carthago")
    events = rounds.run_movement(c)
    kinds = [e.kind for e in events]
    assert "army_moved" in kinds and "put_engagement" in kinds
    s = load_state(c)
    # Both armies wanted "3 3" at MP 4: one got it, the other stopped next to it.
    cells = {a.id: a.cell for a in s.armies}
    assert m.cell("3 3") in (cells[1], cells[9])
    assert {cells[1], cells[9]} in ({m.cell("3 3"), m.cell("3")}, {m.cell("3 3"), m.cell("3 3 3")})
    contest = [e.text for e in events if e.kind == "army_moved" and "lost the hex" in e.text]
    assert len(contest) == 1
    assert s.phase is Phase.BATTLES
    status = rounds.round_status(c)
    assert status.engagements == ((1, 1, 1, 9, None, False),)
    assert "record results (`bellica round result`) of engagement 1" in status.next_step
    sheet = rounds.battle_sheet(c)
    assert sheet[0] == "battle 1"
    assert sheet[1].startswith("  engagement 1: Open Battle, Large (40 x 32), no map re-rolls, map Mediterranean Agricultural")
    assert sheet[2] == "    result: awaiting (`bellica round result`)"
    # Orders are open to everyone now.
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}[9].moves == (3, 3)
    c.verify()


def _fought(c):
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10, moves=())}, faction="roma")
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=(9, 9))}, faction="carthago")
    rounds.run_movement(c)


def test_results_are_checked_and_recorded():
    c, _ = at_war()
    _fought(c)
    n = count_events(c)
    with pytest.raises(InputError, match="round 1 has no engagement 2: its engagements are 1"):
        rounds.record_result(c, 2, {1: ("win", 10), 9: ("loss", 30)})
    with pytest.raises(InputError, match="give a result for exactly those armies"):
        rounds.record_result(c, 1, {1: ("win", 10)})
    with pytest.raises(InputError, match="disagree"):
        rounds.record_result(c, 1, {1: ("win", 10), 9: ("win", 30)})
    with pytest.raises(InputError, match="casualties 130 must be a whole percentage"):
        rounds.record_result(c, 1, {1: ("win", 10), 9: ("loss", 130)})
    assert count_events(c) == n
    events = rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    assert [e.text for e in events] == [
        "army 1 (carthago) loses engagement 1, 48% casualties",
        "army 9 (roma) wins engagement 1, 25% casualties",
        "the result of engagement 1 is reported by roma (army 9, the winner)",
    ]
    assert rounds.round_status(c).engagements == ((1, 1, 1, 9, None, True),)
    assert rounds.battle_sheet(c)[2] == "    result: army 1 loss, 48% casualties; army 9 win, 25% casualties"
    c.verify()


def test_orders_and_movement_refused_after_movement():
    c, _ = at_war()
    _fought(c)
    with pytest.raises(rounds.StepRefused, match="cannot take orders: round 1 is in the battles phase; record results"):
        rounds.submit_orders(c, {9: ArmyOrders(9)})
    with pytest.raises(rounds.StepRefused, match="cannot run movement: round 1 is in the battles phase"):
        rounds.run_movement(c)


def test_retreat_before_the_fight_relists_the_engagements():
    c, _ = at_war()
    _fought(c)
    with pytest.raises(InputError, match="army 10 fights no engagement this round: armies in engagements are 1, 9"):
        rounds.declare_retreat(c, 10)
    events = rounds.declare_retreat(c, 1)
    assert events[0].text == "army 1 (carthago) retreats rather than fight army 9"
    status = rounds.round_status(c)
    assert status.engagements == ()
    assert "bellica round administer" in status.next_step
    c.verify()


def test_retreat_after_a_result_is_refused():
    c, _ = at_war()
    _fought(c)
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    with pytest.raises(rounds.StepRefused, match="retreats are declared before any engagement is fought"):
        rounds.declare_retreat(c, 1)


def test_administration_refused_until_every_engagement_has_a_result():
    c, _ = at_war()
    _fought(c)
    n = count_events(c)
    with pytest.raises(rounds.StepRefused, match="cannot run administration: engagement 1 has no result; record it with `bellica round result`"):
        rounds.run_administration(c)
    assert count_events(c) == n


def test_administration_then_victory_starts_the_next_round():
    c, m = at_war()
    _fought(c)
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    events = rounds.run_administration(c)
    texts = [e.text for e in events]
    assert "army 1 (carthago) lost its battle and is removed from the map" in texts
    s = load_state(c)
    assert s.phase is Phase.VICTORY
    # Seed: 1 FP per casualty % for the winner, 2 for the loser.
    assert s.army(9).strength == 1600 - 25 and s.army(1).strength == 1600 - 2 * 48
    # Placed again by administration's step 6 (here 2 hexes away: the test factions' capital
    # "Carthago" is not on this map, so carthago has no logistics lines to go back along).
    assert s.army(1).cell not in (None, m.cell("3 3"))
    assert any(e.kind == "army_placed" and e.data.get("army", 1) == 1 for e in events)
    with pytest.raises(rounds.StepRefused, match="cannot run administration: round 1 is in the victory phase"):
        rounds.run_administration(c)
    events = rounds.run_victory(c)
    texts = [e.text for e in events]
    assert "roma +4 VP: engagement 1 fought (+1) and won (+3)" in texts
    assert "carthago -2 VP: engagement 1 fought (+1) and lost (-3)" in texts
    s = load_state(c)
    assert (s.round, s.phase, s.victory_points["roma"], s.victory_points["carthago"]) == (2, Phase.ORDERS, 4, -2)
    assert rounds.round_status(c).stage == "initiative"
    c.verify()


def test_administration_choices_start_a_siege():
    # Roma's army 9 walks next to Capua's neighbour town Cumae (carthago) and besieges it.
    c, m = _beside_cumae()
    assert rounds.round_status(c).engagements == ()
    choices = rounds.parse_choices_text('[siege]\nstart = { 9 = "Cumae" }\n')
    events = rounds.run_administration(c, choices)
    s = load_state(c)
    siege = s.siege_of("Cumae")
    assert siege is not None and siege.armies == (9,) and siege.faction == "roma"
    assert any("Cumae" in e.text for e in events)
    rounds.run_victory(c)
    c.verify()


def test_bad_choices_are_named():
    with pytest.raises(InputError, match="unknown section 'advances'; sections are"):
        rounds.parse_choices_text("[advances]\n9 = 3\n")
    with pytest.raises(InputError, match=r"\[siege\] start 9 = 3: give the structure's name"):
        rounds.parse_choices_text("[siege]\nstart = { 9 = 3 }\n")


def test_orders_without_initiative_keep_the_use_given_before():
    c, _ = started()
    rounds.submit_initiative(c, {9: "Mare Tyrrhenum"}, faction="roma")
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3,))}, faction="roma")  # initiative left out
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="roma")}[9].initiative == "Mare Tyrrhenum"  # the umpire reads it only at the reveal


def test_unknown_faction_is_named():
    c, _ = started()
    with pytest.raises(InputError, match="unknown faction 'gallia': use one of carthago, roma, syracusae"):
        rounds.submit_initiative(c, {9: "strength"}, faction="gallia")


def test_a_won_campaign_refuses_further_steps():
    import dataclasses

    c, _ = at_war()
    s = load_state(c)
    with c.transaction():  # an earlier history worth 48 VP to roma, as events like any change
        save_state(c, dataclasses.replace(s, victory_points={**s.victory_points, "roma": 48}))
    _fought(c)
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    rounds.run_administration(c)
    events = rounds.run_victory(c)
    assert events[-1].text.startswith("roma wins the campaign: 52 VP (at least +50)")
    s = load_state(c)
    assert s.winner == "roma" and s.round == 1
    status = rounds.round_status(c)
    assert status.lines()[0] == "round 1, phase victory; campaign won by roma" and status.next_step == "none: the campaign is over"
    with pytest.raises(rounds.StepRefused, match="cannot check victory: the campaign is over, roma won in round 1"):
        rounds.run_victory(c)
    c.verify()


def test_round_start_installs_the_logistics_views_and_the_campaign_keeps_its_board(tmp_path):
    from bellica.engine.core.campaign import Campaign

    path = tmp_path / "c.duckdb"
    c, m = started(structures=FIELD, path=path)
    assert c.con.execute("SELECT count(*) FROM supplied_structures WHERE faction = 'roma'").fetchone()[0] >= 1
    board = c.board
    assert board is c.board and board.hexes.keys() == m.board.hexes.keys()
    rounds.publish_initiative(c)
    _fought(c)
    assert c.board is board and "logistics" in board.derived  # every step used the one Board
    c.close()
    assert "logistics" not in board.derived  # its logistics databases closed with the campaign
    with Campaign.open(path, read_only=True) as again:
        # Nothing outlives a Campaign: another one reads its own Board.
        assert again.board is not board and again.board.hexes.keys() == board.hexes.keys()


def _besieging_cumae(moves):
    """Roman army 9 besieges carthaginian Cumae from the hex next to it, orders an assault and
    ``moves``; the other armies stand still.  Returns the engagements listed by movement."""
    import dataclasses

    from bellica.engine.vae_victis.model import Siege

    structures = FIELD + [("Cumae", "town", "1 1", "carthago")]
    c, m = started(structures=structures)
    s = load_state(c)
    beside = tuple(dataclasses.replace(a, cell=m.cell("1")) if a.id == 9 else a for a in s.armies)
    with c.transaction():  # an earlier round's siege, as events like any change
        save_state(c, dataclasses.replace(s, armies=beside, sieges=(Siege("Cumae", "roma", (9,), 2, 2, 1),)))
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=moves, assault="Cumae"), 10: ArmyOrders(10)}, faction="roma")
    rounds.submit_orders(c, {1: ArmyOrders(1)}, faction="carthago")
    rounds.run_movement(c)
    c.verify()
    return rounds.round_status(c).engagements


def test_an_army_that_moved_away_cannot_assault():
    # Seed ("Assaults", "Progress of sieges"): only sieging armies assault, and leaving the
    # structure's ZoC lifts the siege.  Staying, army 9 assaults; two hexes off, it does not;
    # nor does it after stepping out of the ZoC and back beside Cumae (its path left the siege).
    assert [(a, b, assault) for _e, _b, a, b, assault, _done in _besieging_cumae(())] == [(9, None, "Cumae")]
    assert _besieging_cumae((7, 7)) == ()
    assert _besieging_cumae((7, 1)) == ()


def test_the_log_and_the_orders_view_open_orders_together():
    # Regression: `bellica log --faction` kept others' moves sealed until movement ran while
    # `bellica round show` opened them once every army had submitted; one rule now says both.
    from bellica.engine.core.sealed import log_view

    c, _ = at_war()
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10)}, faction="roma")
    assert [line.sealed for line in log_view(c, viewer="carthago") if line.event.kind == "put_orders" and line.event.data["army"] == 9][-1]
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}[9] == ArmyOrders(9)  # the published use only
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=(9,))}, faction="carthago")
    assert not [line for line in log_view(c, viewer="carthago") if line.sealed]
    assert {a: o for a, _f, o in rounds.orders_view(c, faction="carthago")}[9].moves == (3, 3)


# --- issue 8: every input of a step checked before it runs -----------------------------------


def _beside_cumae():
    """Army 9 (roma) next to the carthago town Cumae after a round without battles."""
    structures = FIELD + [("Cumae", "town", "1 1", "carthago")]
    c, m = started(placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), structures=structures)
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(1,)), 10: ArmyOrders(10, moves=())}, faction="roma")
    rounds.submit_orders(c, {1: ArmyOrders(1, moves=())}, faction="carthago")
    rounds.run_movement(c)
    return c, m


def test_a_take_over_typo_does_not_use_up_the_administration_step():
    # Bug: `round administer --take-over Atlantis` ran the whole administration and moved to the
    # victory phase, so the intended `--siege` was then refused.
    c, _ = _beside_cumae()
    n = count_events(c)
    with pytest.raises(InputError) as e:
        rounds.run_administration(c, rounds.AdminChoices(take_overs=frozenset({"Atlantis"})))
    assert str(e.value) == "administration choices refused, nothing was run: take-over: there is no structure 'Atlantis'"
    assert count_events(c) == n and load_state(c).phase is Phase.BATTLES
    rounds.run_administration(c, rounds.AdminChoices(siege_starts={9: "Cumae"}))  # the step is still there
    assert load_state(c).siege_of("Cumae").armies == (9,)
    c.verify()


def test_every_name_in_the_choices_is_checked_and_all_are_named():
    c, _ = _beside_cumae()
    n = count_events(c)
    bad = rounds.AdminChoices(
        advances={9: "Atlantis"},
        siege_starts={9: "Cumea", 99: "Cumae"},
        take_overs=frozenset({"Capua"}),
        surrenders=frozenset({"Roma", "Syracusae"}),
    )
    with pytest.raises(InputError) as e:
        rounds.run_administration(c, bad)
    msg = str(e.value)
    assert "\n" not in msg
    for part in (
        "advance: 'Atlantis' (army 9) is neither a clock position, a structure nor a hex of the map",
        "siege by army 9: there is no structure 'Cumea' (did you mean 'Cumae'?)",
        "siege: there is no army 99 (armies: 1, 9, 10)",  # was a KeyError traceback
        "take-over: Capua is not besieged, there is no siege to take over",
        "surrender: Roma is not besieged (nor named in a siege start), so it cannot surrender",
        "surrender: there is no structure 'Syracusae'",
    ):
        assert part in msg
    assert count_events(c) == n
    # A structure that a siege in the same choices starts may surrender at once (step 4 follows 3).
    rounds.run_administration(c, rounds.AdminChoices(siege_starts={9: "Cumae"}, surrenders=frozenset({"Cumae"})))
    assert load_state(c).control["Cumae"] == "roma"


def test_non_ascii_clock_position_is_not_an_advance():
    from bellica.engine.vae_victis.rounds.administration_step import resolve_advance

    c, m = _beside_cumae()
    s = load_state(c)
    with pytest.raises(InputError, match="'٣' \\(army 9\\) is neither a clock position"):
        resolve_advance(c.board, s, 9, "٣")
    assert resolve_advance(c.board, s, 9, " 3 ") == c.board.sides[s.army(9).cell][3]


def test_a_second_result_for_an_engagement_is_refused_without_replace():
    # Bug: `round result` recorded twice with the winner flipped replaced the first silently.
    c, _ = at_war()
    _fought(c)
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    n = count_events(c)
    with pytest.raises(InputError) as e:
        rounds.record_result(c, 1, {1: ("win", 25), 9: ("loss", 48)})
    assert str(e.value) == (
        "engagement 1 already has a result (army 1 loss, 48% casualties; army 9 win, 25% casualties): "
        "to correct it, give the whole result again with --replace (the log keeps both)"
    )
    assert count_events(c) == n
    events = rounds.record_result(c, 1, {1: ("win", 25), 9: ("loss", 48)}, correction=True)
    assert events[0].kind == "result_corrected"
    assert events[0].text == "the umpire corrects the result of engagement 1 (was: army 1 loss, 48% casualties; army 9 win, 25% casualties)"
    assert rounds.battle_sheet(c)[2] == "    result: army 1 win, 25% casualties; army 9 loss, 48% casualties"
    c.verify()


def test_replace_with_nothing_recorded_is_refused():
    c, _ = at_war()
    _fought(c)
    with pytest.raises(InputError, match="engagement 1 has no result yet, there is nothing to replace: leave out --replace"):
        rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)}, correction=True)


def test_a_corrected_result_readjudicates(tmp_path):
    from bellica.engine.core.readjudicate import readjudicate

    c, _ = at_war(path=tmp_path / "c.duckdb")
    _fought(c)
    rounds.record_result(c, 1, {1: ("loss", 48), 9: ("win", 25)})
    rounds.record_result(c, 1, {1: ("draw", 30), 9: ("draw", 35)}, correction=True)
    rounds.run_administration(c)
    c.close()
    assert readjudicate(tmp_path / "c.duckdb") > 0


def test_bad_choices_files_are_one_line(tmp_path):
    # Bug: UnicodeDecodeError and RecursionError tracebacks; a non-table [siege] start was an AttributeError.
    f = tmp_path / "choices.toml"
    f.write_bytes(b'[siege]\nstart = { 4 = "G\xe9la" }\n')
    with pytest.raises(InputError, match=r"choices file .*choices.toml is not UTF-8 text: byte 24 \(0xe9\)"):
        rounds.load_choices(f)
    f.write_text("[advance]\n14 = " + "[" * 50_000 + "\n")
    with pytest.raises(InputError, match="choices.toml is nested too deeply to be read"):
        rounds.load_choices(f)
    with pytest.raises(InputError, match=r"\[siege\] start must be a table, like start = \{ 4 = \"Gela\" \}; got \['Gela'\]"):
        rounds.parse_choices_text('[siege]\nstart = ["Gela"]\n')
    with pytest.raises(InputError, match=r"\[advance\] must be a table"):
        rounds.parse_choices_text("advance = 3\n")
    with pytest.raises(InputError, match=r"\[advance\] key '٩' must be an army number in digits 0-9"):
        rounds.parse_choices_text('[advance]\n"٩" = 3\n')
