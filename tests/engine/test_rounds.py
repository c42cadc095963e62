"""The round machine: steps in the seed's order, refusals out of order, sealed orders, one transaction per step."""

from __future__ import annotations

import pytest

from tabula.engine.vae_victis import rounds
from tabula.engine.core import state as st
from tabula.engine.vae_victis.model import ArmyOrders, Phase
from tabula.engine.vae_victis.orders import IllegalOrderError
from tabula.geo.errors import InputError
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
    con, m = make_campaign(path, placements=placements, m=m)
    st.init_campaign(con, seed=11)
    return con, m


def count_events(con):
    return con.execute("SELECT count(*) FROM events").fetchone()[0]


def test_status_at_the_start_names_the_next_step():
    con, _ = started()
    s = rounds.round_status(con)
    assert (s.round, s.phase, s.stage) == (1, "orders", "initiative")
    assert s.missing_initiative == {"carthago": (1,), "roma": (9, 10)}
    assert "tabula round initiative" in s.next_step
    assert s.lines()[0] == "round 1, phase orders (initiative)"


def test_initiative_is_sealed_then_published_with_naval_superiority():
    con, _ = started()
    rounds.submit_initiative(con, {9: "Mare Tyrrhenum"}, faction="roma")
    # Sealed: carthago sees nothing of roma's initiative yet; roma sees its own.
    view = {a: o for a, _f, o in rounds.orders_view(con, faction="carthago")}
    assert view[9] is None
    assert {a: o for a, _f, o in rounds.orders_view(con, faction="roma")}[9].initiative == "Mare Tyrrhenum"
    events = rounds.publish_initiative(con)
    texts = [e.text for e in events]
    assert "army 1 (carthago) gave no initiative use: +40 FP in its engagements (the default)" in texts
    assert "army 9 (roma) initiative: influence in Mare Tyrrhenum" in texts
    # 2 + 1 own - 0 others = 3 for roma; 2 + 0 - 1 = 1 for the others.
    assert "naval superiority in Mare Tyrrhenum: carthago 1, roma 3, syracusae 1" in texts
    s = rounds.round_status(con)
    assert s.stage == "moves" and s.missing_orders == {"carthago": (1,), "roma": (9, 10)}
    # Published uses are public; moves are not.
    assert {a: o for a, _f, o in rounds.orders_view(con, faction="carthago")}[9] == ArmyOrders(9, initiative="Mare Tyrrhenum")
    st.verify_replay(con)


def test_influence_cap_counts_the_whole_faction():
    # Roma controls one coastal town (Ostia): at most 1 Influence point in Mare Tyrrhenum.
    con, _ = started()
    rounds.submit_initiative(con, {9: "Mare Tyrrhenum"}, faction="roma")
    n = count_events(con)
    with pytest.raises(IllegalOrderError, match="roma assigns 2 influence point"):
        rounds.submit_initiative(con, {10: "Mare Tyrrhenum"}, faction="roma")
    assert count_events(con) == n


def test_initiative_after_publication_is_refused():
    con, _ = started()
    rounds.publish_initiative(con)
    with pytest.raises(rounds.StepRefused, match="initiative was published"):
        rounds.submit_initiative(con, {9: "strength"})
    with pytest.raises(rounds.StepRefused, match="already published"):
        rounds.publish_initiative(con)


def test_movement_refused_until_every_army_has_orders():
    con, _ = started()
    with pytest.raises(rounds.StepRefused, match="initiative uses are not published yet; run `tabula round publish`"):
        rounds.run_movement(con)
    rounds.publish_initiative(con)
    rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3,))}, faction="roma")
    n = count_events(con)
    with pytest.raises(
        rounds.StepRefused,
        match="cannot run movement: orders phase incomplete, missing orders from carthago army 1; roma army 10",
    ):
        rounds.run_movement(con)
    assert count_events(con) == n


def test_bad_orders_store_nothing():
    con, _ = started()
    rounds.publish_initiative(con)
    n = count_events(con)
    with pytest.raises(IllegalOrderError) as e:
        rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3,)), 1: ArmyOrders(1, moves=(9,))}, faction="roma")
    assert "army 1: army 1 is not in roma (it belongs to carthago)" in str(e.value)
    assert count_events(con) == n
    assert rounds.round_status(con).missing_orders == {"carthago": (1,), "roma": (9, 10)}


def test_published_initiative_cannot_change_with_the_orders():
    con, _ = started()
    rounds.submit_initiative(con, {9: "Mare Tyrrhenum"})
    rounds.publish_initiative(con)
    with pytest.raises(IllegalOrderError, match="published as 'Mare Tyrrhenum'"):
        rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3,), initiative="Mare Sardoum")})
    # Leaving it out (the default) keeps the published use.
    rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3,))})
    assert {a: o for a, _f, o in rounds.orders_view(con)}[9].initiative == "Mare Tyrrhenum"


def test_orders_for_the_wrong_round_are_refused():
    con, _ = started()
    rounds.publish_initiative(con)
    with pytest.raises(InputError, match="is for round 2 but the campaign is in round 1"):
        rounds.submit_orders(con, {9: ArmyOrders(9)}, round=2)


def test_moves_stay_sealed_until_all_are_in():
    con, _ = started()
    rounds.publish_initiative(con)
    rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3, 0)), 10: ArmyOrders(10)}, faction="roma")
    seen = {a: o for a, _f, o in rounds.orders_view(con, faction="carthago")}
    assert seen[9] == ArmyOrders(9)  # the published initiative only, no moves
    rounds.submit_orders(con, {1: ArmyOrders(1, moves=(0,))}, faction="carthago")
    seen = {a: o for a, _f, o in rounds.orders_view(con, faction="carthago")}
    assert seen[9].moves == (3, 0)


def test_steps_out_of_order_are_refused():
    con, _ = started()
    with pytest.raises(rounds.StepRefused, match="cannot record a result: round 1 is in the orders phase"):
        rounds.record_result(con, 1, {9: ("win", 10)})
    with pytest.raises(rounds.StepRefused, match="cannot run administration: round 1 is in the orders phase"):
        rounds.run_administration(con)
    with pytest.raises(rounds.StepRefused, match="cannot check victory: round 1 is in the orders phase"):
        rounds.run_victory(con)


# --- movement and battles ---------------------------------------------------------------

# Roma and Capua four hexes apart on farmland; "3 3" is the hex between them.
FIELD = [
    ("Roma", "city", "", "roma", True),
    ("Ostia", "town", "9 9", "roma"),
    ("Capua", "city", "3 3 3 3", "carthago", True),
]


def at_war(**kw):
    con, m = started(placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), structures=FIELD, **kw)
    rounds.publish_initiative(con)
    return con, m


def test_movement_collision_then_engagement_listed():
    con, m = at_war()
    rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10, moves=())}, faction="roma")
    rounds.submit_orders(con, {1: ArmyOrders(1, moves=(9, 9))}, faction="carthago")
    events = rounds.run_movement(con)
    kinds = [e.kind for e in events]
    assert "army_moved" in kinds and "put_engagement" in kinds
    s = st.load_state(con)
    # Both armies wanted "3 3" at MP 4: one got it, the other stopped next to it.
    cells = {a.id: a.cell for a in s.armies}
    assert m.cell("3 3") in (cells[1], cells[9])
    assert {cells[1], cells[9]} in ({m.cell("3 3"), m.cell("3")}, {m.cell("3 3"), m.cell("3 3 3")})
    contest = [e.text for e in events if e.kind == "army_moved" and "lost the hex" in e.text]
    assert len(contest) == 1
    assert s.phase is Phase.BATTLES
    status = rounds.round_status(con)
    assert status.engagements == ((1, 1, 1, 9, None, False),)
    assert "record results (`tabula round result`) of engagement 1" in status.next_step
    sheet = rounds.battle_sheet(con)
    assert sheet[0] == "battle 1"
    assert sheet[1].startswith("  engagement 1: Open Battle, Large (40 x 32), no map re-rolls, map Mediterranean Agricultural")
    assert sheet[2] == "    result: awaiting (`tabula round result`)"
    # Orders are open to everyone now.
    assert {a: o for a, _f, o in rounds.orders_view(con, faction="carthago")}[9].moves == (3, 3)
    st.verify_replay(con)


def _fought(con):
    rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3, 3)), 10: ArmyOrders(10, moves=())}, faction="roma")
    rounds.submit_orders(con, {1: ArmyOrders(1, moves=(9, 9))}, faction="carthago")
    rounds.run_movement(con)


def test_results_are_checked_and_recorded():
    con, _ = at_war()
    _fought(con)
    n = count_events(con)
    with pytest.raises(InputError, match="round 1 has no engagement 2: its engagements are 1"):
        rounds.record_result(con, 2, {1: ("win", 10), 9: ("loss", 30)})
    with pytest.raises(InputError, match="give a result for exactly those armies"):
        rounds.record_result(con, 1, {1: ("win", 10)})
    with pytest.raises(InputError, match="disagree"):
        rounds.record_result(con, 1, {1: ("win", 10), 9: ("win", 30)})
    with pytest.raises(InputError, match="casualties 130 must be a whole percentage"):
        rounds.record_result(con, 1, {1: ("win", 10), 9: ("loss", 130)})
    assert count_events(con) == n
    events = rounds.record_result(con, 1, {1: ("loss", 48), 9: ("win", 25)})
    assert [e.text for e in events] == [
        "army 1 (carthago) loses engagement 1, 48% casualties",
        "army 9 (roma) wins engagement 1, 25% casualties",
    ]
    assert rounds.round_status(con).engagements == ((1, 1, 1, 9, None, True),)
    assert rounds.battle_sheet(con)[2] == "    result: army 1 loss, 48% casualties; army 9 win, 25% casualties"
    st.verify_replay(con)


def test_orders_and_movement_refused_after_movement():
    con, _ = at_war()
    _fought(con)
    with pytest.raises(rounds.StepRefused, match="cannot take orders: round 1 is in the battles phase; record results"):
        rounds.submit_orders(con, {9: ArmyOrders(9)})
    with pytest.raises(rounds.StepRefused, match="cannot run movement: round 1 is in the battles phase"):
        rounds.run_movement(con)


def test_retreat_before_the_fight_relists_the_engagements():
    con, _ = at_war()
    _fought(con)
    with pytest.raises(InputError, match="army 10 fights no engagement this round: armies in engagements are 1, 9"):
        rounds.declare_retreat(con, 10)
    events = rounds.declare_retreat(con, 1)
    assert events[0].text == "army 1 (carthago) retreats rather than fight army 9"
    status = rounds.round_status(con)
    assert status.engagements == ()
    assert "tabula round administer" in status.next_step
    st.verify_replay(con)


def test_retreat_after_a_result_is_refused():
    con, _ = at_war()
    _fought(con)
    rounds.record_result(con, 1, {1: ("loss", 48), 9: ("win", 25)})
    with pytest.raises(rounds.StepRefused, match="retreats are declared before any engagement is fought"):
        rounds.declare_retreat(con, 1)


def test_administration_refused_until_every_engagement_has_a_result():
    con, _ = at_war()
    _fought(con)
    n = count_events(con)
    with pytest.raises(rounds.StepRefused, match="cannot run administration: engagement 1 has no result; record it with `tabula round result`"):
        rounds.run_administration(con)
    assert count_events(con) == n


def test_administration_then_victory_starts_the_next_round():
    con, m = at_war()
    _fought(con)
    rounds.record_result(con, 1, {1: ("loss", 48), 9: ("win", 25)})
    events = rounds.run_administration(con)
    texts = [e.text for e in events]
    assert "army 1 (carthago) lost its battle and is removed from the map" in texts
    s = st.load_state(con)
    assert s.phase is Phase.VICTORY
    # Seed: 1 FP per casualty % for the winner, 2 for the loser.
    assert s.army(9).strength == 1600 - 25 and s.army(1).strength == 1600 - 2 * 48
    # Placed again by administration's step 6 (here 2 hexes away: the test factions' capital
    # "Carthago" is not on this map, so carthago has no logistics lines to go back along).
    assert s.army(1).cell not in (None, m.cell("3 3"))
    assert any(e.kind == "army_placed" and e.data.get("army", 1) == 1 for e in events)
    with pytest.raises(rounds.StepRefused, match="cannot run administration: round 1 is in the victory phase"):
        rounds.run_administration(con)
    events = rounds.run_victory(con)
    texts = [e.text for e in events]
    assert "roma +4 VP: engagement 1 fought (+1) and won (+3)" in texts
    assert "carthago -2 VP: engagement 1 fought (+1) and lost (-3)" in texts
    s = st.load_state(con)
    assert (s.round, s.phase, s.victory_points["roma"], s.victory_points["carthago"]) == (2, Phase.ORDERS, 4, -2)
    assert rounds.round_status(con).stage == "initiative"
    st.verify_replay(con)


def test_administration_choices_start_a_siege():
    # Roma's army 10 walks next to Capua's neighbour town Cumae (carthago) and besieges it.
    structures = FIELD + [("Cumae", "town", "1 1", "carthago")]
    con, m = started(placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), structures=structures)
    rounds.publish_initiative(con)
    rounds.submit_orders(con, {9: ArmyOrders(9, moves=(1,)), 10: ArmyOrders(10, moves=())}, faction="roma")
    rounds.submit_orders(con, {1: ArmyOrders(1, moves=())}, faction="carthago")
    rounds.run_movement(con)
    assert rounds.round_status(con).engagements == ()
    choices = rounds.parse_choices_text('[siege]\nstart = { 9 = "Cumae" }\n')
    events = rounds.run_administration(con, choices)
    s = st.load_state(con)
    siege = s.siege_of("Cumae")
    assert siege is not None and siege.armies == (9,) and siege.faction == "roma"
    assert any("Cumae" in e.text for e in events)
    rounds.run_victory(con)
    st.verify_replay(con)


def test_bad_choices_are_named():
    with pytest.raises(InputError, match="unknown section 'advances'; sections are"):
        rounds.parse_choices_text("[advances]\n9 = 3\n")
    with pytest.raises(InputError, match=r"\[siege\] start 9 = 3: give the structure's name"):
        rounds.parse_choices_text("[siege]\nstart = { 9 = 3 }\n")


def test_orders_without_initiative_keep_the_use_given_before():
    con, _ = started()
    rounds.submit_initiative(con, {9: "Mare Tyrrhenum"}, faction="roma")
    rounds.submit_orders(con, {9: ArmyOrders(9, moves=(3,))}, faction="roma")  # initiative left out
    assert {a: o for a, _f, o in rounds.orders_view(con)}[9].initiative == "Mare Tyrrhenum"


def test_unknown_faction_is_named():
    con, _ = started()
    with pytest.raises(InputError, match="unknown faction 'gallia': use one of carthago, roma, syracusae"):
        rounds.submit_initiative(con, {9: "strength"}, faction="gallia")


def test_a_won_campaign_refuses_further_steps():
    import dataclasses

    con, _ = at_war()
    s = st.load_state(con)
    with st.transaction(con):  # an earlier history worth 48 VP to roma, as events like any change
        st.save_state(con, dataclasses.replace(s, victory_points={**s.victory_points, "roma": 48}))
    _fought(con)
    rounds.record_result(con, 1, {1: ("loss", 48), 9: ("win", 25)})
    rounds.run_administration(con)
    events = rounds.run_victory(con)
    assert events[-1].text.startswith("roma wins the campaign: 52 VP (at least +50)")
    s = st.load_state(con)
    assert s.winner == "roma" and s.round == 1
    status = rounds.round_status(con)
    assert status.lines()[0] == "round 1, phase victory; campaign won by roma" and status.next_step == "none: the campaign is over"
    with pytest.raises(rounds.StepRefused, match="cannot check victory: the campaign is over, roma won in round 1"):
        rounds.run_victory(con)
    st.verify_replay(con)


def test_round_start_installs_the_logistics_views_and_steps_reuse_the_board():
    con, m = started()
    assert con.execute("SELECT count(*) FROM supplied_structures WHERE faction = 'roma'").fetchone()[0] >= 1
    assert rounds._board(con) is rounds._board(con)
    rounds.clear_caches()
    b1 = rounds._board(con)
    assert b1 == m.board or b1.hexes.keys() == m.board.hexes.keys()
    assert rounds._board(con) is b1
