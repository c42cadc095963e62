"""The naval rules through the round steps, as the umpire meets them (issue 9, seed sections "Navies",
"Naval superiority", "Naval movement", "Blockades", "Lines of logistics", "Outcomes and effects").

The unit tests of each module are in test_naval*.py, test_straits.py and test_sea_logistics.py; here a
campaign is started from a sketch board and walked through `rounds` (initiative, publish, orders,
movement, results, administration, victory), so what is checked is the wiring: what the steps hand
the naval rules, what they record and what they refuse before anything is written.

The board (:func:`islands`): two land masses of radius 2, Italia around "9 9 9 9" (Roma, with the
coastal towns Ostia on its east corner "9 9", Antium north-east, Cumae south-east) and Sicilia
around "3 3 3 3" (Carthago, the carthaginian town Panormus on its south-west corner), a road from
each capital to its first port (Ostia, Panormus: the logistics lines need one), everything
else water: a Coast hex next to land, a Sea hex elsewhere, all in Mare Tyrrhenum.  "9", "" and "3"
run from Ostia to Sicilia's west corner "3 3": Coast, Sea, Coast.
"""

from __future__ import annotations

import dataclasses

import h3
import pytest

from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.model import ArmyOrders, Phase, Siege
from bellica.engine.vae_victis.orders import IllegalOrderError
from bellica.engine.vae_victis.rules import rules_with
from bellica.engine.vae_victis.state import load_state, save_state
from bellica.engine.vae_victis.zoc import navy_zoc
from bellica.geo.errors import InputError
from bellica.geo.hexgrid import grid_distance
from tests.engine.boards import cell, sketch
from tests.engine.test_state import make_campaign

T = "Mare Tyrrhenum"
ITALIA, SICILIA = "9 9 9 9", "3 3 3 3"

BASE = [
    ("Roma", "city", ITALIA, "roma", True),
    ("Ostia", "town", "9 9", "roma"),
    ("Antium", "town", f"{ITALIA} 1 1", "roma"),
    ("Cumae", "town", f"{ITALIA} 5 5", "roma"),
    ("Carthago", "city", SICILIA, "carthago", True),
    ("Panormus", "town", f"{SICILIA} 7 7", "carthago"),
]
#: Two roman towns on Sicilia, reached from Italia only across Mare Tyrrhenum (sea-zone logistics).
ROMAN_SICILIA = [("Messana", "town", f"{SICILIA} 11 11", "roma"), ("Tyndaris", "town", f"{SICILIA} 1 1", "roma")]

PLACEMENTS = ((1, "carthago", "Carthago"), (2, "carthago", "Panormus"), (9, "roma", "Roma"),
              (10, "roma", "Ostia"), (11, "roma", "Antium"), (12, "roma", "Cumae"))


def islands(structures=BASE, radius=6, options=None):
    """The board of the module doc; ``options``: the rules' [options] overrides (frozen in the campaign)."""
    italia, sicilia = cell(ITALIA), cell(SICILIA)
    land = set(h3.grid_disk(italia, 2)) | set(h3.grid_disk(sicilia, 2))
    water = {c: ("coast" if any(n in land for n in h3.grid_ring(c, 1)) else "sea")
             for c in h3.grid_disk(cell(""), radius) if c not in land}
    roads = [[ITALIA, "9 9 9", "9 9"], [SICILIA, f"{SICILIA} 7", f"{SICILIA} 7 7"]]  # capital to port: on the lines
    m = sketch(radius=radius, water=water, structures=structures, roads=roads)
    if options:
        m = dataclasses.replace(m, board=dataclasses.replace(m.board, rules=rules_with({"options": options})))
    return m


def started(structures=BASE, placements=PLACEMENTS, options=None, path=None):
    c, m = make_campaign(path, placements=placements, m=islands(structures, options=options))
    c.start(seed=11)
    return c, m


def count_events(c) -> int:
    return c.con.execute("SELECT count(*) FROM events").fetchone()[0]


def place(c, m, cells, sieges=None):
    """An earlier round's positions (``{army: ref}``) and sieges, as events like any change."""
    s = load_state(c)
    armies = tuple(dataclasses.replace(a, cell=m.cell(cells[a.id])) if a.id in cells else a for a in s.armies)
    with c.transaction():
        save_state(c, dataclasses.replace(s, armies=armies, sieges=s.sieges if sieges is None else tuple(sieges)))


def give_orders(c, roma=None, carthago=None):
    """Every live army's orders: ``{army: "moves"}`` or ``{army: ArmyOrders}``; armies left out stand still."""
    s = load_state(c)
    given = {**(roma or {}), **(carthago or {})}
    for faction in ("roma", "carthago"):
        orders = {}
        for a in s.armies:
            if a.faction != faction or a.eliminated:
                continue
            o = given.get(a.id, "")
            orders[a.id] = o if isinstance(o, ArmyOrders) else ArmyOrders(a.id, moves=tuple(int(t) for t in o.split()))
        if orders:
            rounds.submit_orders(c, orders, faction=faction)


def texts(events, kind=None):
    return [e.text for e in events if kind is None or e.kind == kind]


# --- 1. embark, sail, debark or stay; lost on a Sea hex -----------------------------------------


def sail_and_debark(path=None, sea_links=()):
    """Round 1: army 10 embarks at Ostia and sails "3 3 3" (Coast, Sea, Coast) next to Sicilia's west
    corner; army 11 embarks at Antium onto the Coast hex "3" of it; army 12 embarks at Cumae and ends
    on the Sea hex "3 3" of it.  Returns the campaign and the events of movement."""
    c, m = started(path=path)
    rounds.publish_initiative(c)
    give_orders(c, roma={9: ArmyOrders(9, sea_links=tuple(sea_links)), 10: "3 3 3", 11: "3", 12: "3 3"})
    return c, m, rounds.run_movement(c)


def test_an_army_embarks_sails_and_debarks_through_the_steps():
    # Seed, "Naval movement": an army in a coastal Town/City becomes a navy by moving into a Coast
    # hex; Coast 1 NMP, Sea 4 NMP; debarking into Farmlands costs 4 NMP; "a navy that does end a
    # round in a Sea hex ... will cause its army to be irrevocably eliminated".
    c, m, moved = sail_and_debark()
    s = load_state(c)
    assert s.army(10).cell == m.cell("3") and s.army(11).cell == m.cell(f"{ITALIA} 1 1 3")
    assert s.army(12).cell == m.cell(f"{ITALIA} 5 5 3 3")
    assert {m.board.hexes[s.army(a).cell].kind for a in (10, 11)} == {"coast"}
    assert m.board.hexes[s.army(12).cell].kind == "sea"
    assert {e.data["army"] for e in moved if e.kind == "navy_moved"} >= {10, 11, 12}
    naval = next(e for e in moved if e.kind == "put_note" and e.data["key"] == "naval").data["value"]
    assert naval["nmp_spent"]["roma"][T] == (1 + 4 + 1) + 1 + (1 + 4)  # 48 NMP at level 2, 12 spent
    assert naval["nmp_left"]["roma"][T] == 2 * 24 - 12
    assert sorted(naval["navies"]) == [10, 11, 12]

    events = rounds.run_administration(c, rounds.AdminChoices(debarks={10: 3}))
    s = load_state(c)
    assert s.army(10).cell == m.cell("3 3") and not s.army(10).eliminated  # an army again, on Sicilia
    assert texts(events, "navy_debarked") == [
        f"navy 10 (roma) debarked from {m.cell('3')} into {m.cell('3 3')} (farmlands), 4 NMP ({T}): it is an army again"
    ]
    assert s.army(11).cell == m.cell(f"{ITALIA} 1 1 3") and not s.army(11).eliminated  # stays at sea, on a Coast hex
    assert s.army(12).eliminated and s.army(12).cell is None
    assert texts(events, "navy_lost_at_sea") == [
        f"navy 12 (roma) ended the round on the Sea hex {m.cell(f'{ITALIA} 5 5 3 3')}: its army (1600 FP) is "
        "irrevocably eliminated (a navy must end its movement on a Coast hex)"
    ]
    assert not any(e.kind == "debark_refused" for e in events)
    rounds.run_victory(c)
    assert load_state(c).round == 2

    # Round 2: navy 11, at sea since round 1, stands still and debarks back into Antium (a Town of its
    # own, 2 NMP): the pools of a round are there for a navy that gave no move.
    rounds.publish_initiative(c)
    give_orders(c)
    rounds.run_movement(c)
    events = rounds.run_administration(c, rounds.AdminChoices(debarks={11: "Antium"}))
    assert texts(events, "navy_debarked") == [
        f"navy 11 (roma) debarked from {m.cell(f'{ITALIA} 1 1 3')} into {m.cell(f'{ITALIA} 1 1')} (town Antium), "
        f"2 NMP ({T}): it is an army again"
    ]
    assert load_state(c).army(11).cell == m.cell(f"{ITALIA} 1 1")
    c.verify()


# --- 2. a debark into a hex turned hostile; debarks refused before anything runs ----------------


def test_a_debark_into_a_hex_turned_hostile_leaves_the_navy_at_sea():
    # The umpire's answer in the seed's thread: a navy that cannot debark "can stay as a navy at sea".
    # Army 1 (carthago) walks next to "3 3" while navy 10 sails to it: "3 3" is in its ZoC by step 3.
    c, m = started()
    rounds.publish_initiative(c)
    give_orders(c, roma={10: "3 3 3"}, carthago={1: "9"})
    rounds.run_movement(c)
    s = load_state(c)
    assert s.army(1).cell == m.cell(f"{SICILIA} 9") and s.army(10).cell == m.cell("3")
    events = rounds.run_administration(c, rounds.AdminChoices(debarks={10: 3}))
    assert texts(events, "debark_refused") == [
        f"navy 10 (roma) cannot debark into {m.cell('3 3')} (farmlands): the hex is in the ZoC of army 1 "
        f"(carthago); it stays at sea in {m.cell('3')}"
    ]
    s = load_state(c)
    assert s.army(10).cell == m.cell("3") and not s.army(10).eliminated  # a Coast hex: it survives step 7
    assert not any(e.kind == "navy_debarked" for e in events)


def test_a_debark_of_a_land_army_or_through_no_side_is_refused_before_anything_runs():
    c, m = started()
    rounds.publish_initiative(c)
    give_orders(c, roma={10: "3 3 3"})
    rounds.run_movement(c)
    n = count_events(c)
    with pytest.raises(InputError) as e:
        rounds.run_administration(c, rounds.AdminChoices(debarks={1: 3, 10: "Roma"}))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("administration choices refused, nothing was run: ")
    assert f"debark: army 1 is not a navy (it is on land at {m.cell(SICILIA)}); only armies at sea debark" in msg
    assert f"debark: 'Roma' is not next to navy 10 at {m.cell('3')}" in msg
    assert count_events(c) == n and load_state(c).phase is Phase.BATTLES
    # A side that leads to water is a mistake the map alone rules out: refused with the other choices.
    with pytest.raises(InputError) as e:
        rounds.run_administration(c, rounds.AdminChoices(debarks={10: 9}))
    assert str(e.value).startswith("administration choices refused, nothing was run: debark: army 10: clock 9 leads to")
    assert "a navy debarks onto a land hex" in str(e.value)
    assert count_events(c) == n and load_state(c).phase is Phase.BATTLES
    rounds.run_administration(c, rounds.AdminChoices(debarks={10: 3}))  # the step is still there
    assert load_state(c).army(10).cell == m.cell("3 3")


# --- 3. the influence cap at `round initiative` -----------------------------------------------

ONE_PORT_EACH = [s for s in BASE if s[0] not in ("Antium", "Cumae")]


def test_a_blockaded_coastal_town_does_not_count_for_the_influence_cap():
    # Seed, "Naval superiority": influence only through controlled structures adjacent to a Coast hex
    # of the zone; "Blockades": a blockaded structure counts for none.  Ostia is roma's only port.
    placements = ((1, "carthago", "Carthago"), (2, "carthago", "Panormus"), (9, "roma", "Roma"), (10, "roma", "Ostia"))
    c, m = started(ONE_PORT_EACH, placements)
    rounds.submit_initiative(c, {10: T}, faction="roma")  # 1 x 1 port
    c, m = started(ONE_PORT_EACH, placements)
    place(c, m, {2: "9"})  # a carthaginian navy next to Ostia at the round's start
    n = count_events(c)
    with pytest.raises(IllegalOrderError) as e:
        rounds.submit_initiative(c, {10: T}, faction="roma")
    assert "roma assigns 1 influence point(s) to Mare Tyrrhenum (armies 10) but may assign at most 0" in str(e.value)
    assert count_events(c) == n


@pytest.mark.parametrize("option, allowed", [("multiplier", True), ("count", False)])
def test_the_influence_cap_option_count_ignores_carthagos_multiplier(option, allowed):
    # Seed: "1x Roma, 2x Carthago" per coastal structure (the rules text, "multiplier"); the umpire's
    # restatement in the thread counts structures alone ("count").  Carthago has one port, Panormus.
    placements = ((1, "carthago", "Carthago"), (2, "carthago", "Panormus"), (9, "roma", "Roma"), (10, "roma", "Ostia"))
    c, _ = started(ONE_PORT_EACH, placements, options={"influence_cap": option})
    if allowed:
        rounds.submit_initiative(c, {1: T, 2: T}, faction="carthago")
        events = rounds.publish_initiative(c)
        assert "naval superiority in Mare Tyrrhenum: carthago 4, roma 0, syracusae 0" in texts(events)
        assert load_state(c).superiority[T] == {"carthago": 4, "roma": 0, "syracusae": 0}
    else:
        n = count_events(c)
        with pytest.raises(IllegalOrderError, match="carthago assigns 2 influence point.*may assign at most 1: its "):
            rounds.submit_initiative(c, {1: T, 2: T}, faction="carthago")
        assert count_events(c) == n
        rounds.submit_initiative(c, {1: T}, faction="carthago")


# --- 4. sea links named in orders -------------------------------------------------------------


def sea_links_after_movement(roma_links=()):
    c, _ = started(BASE + ROMAN_SICILIA)
    rounds.publish_initiative(c)
    give_orders(c, roma={9: ArmyOrders(9, sea_links=tuple((T, s) for s in roma_links))})
    rounds.run_movement(c)
    rows = c.con.execute("SELECT faction, zone, structure, rank FROM sea_links ORDER BY faction, zone, rank").fetchall()
    return load_state(c).sea_links, rows


def test_sea_links_in_orders_replace_the_default_when_movement_runs():
    # Seed, "Lines of logistics" 4: a faction chooses up to its superiority level of linked structures
    # per sea zone.  Named in orders, they replace the default for that faction and zone.
    default, _ = sea_links_after_movement()
    # The default: Messana, whose coast link supplies Tyndaris too (the most structures; ties by name).
    assert default["roma"][T] == ("Messana",)
    chosen, rows = sea_links_after_movement(["Tyndaris"])
    assert chosen["roma"][T] == ("Tyndaris",)
    assert chosen.get("carthago") == default.get("carthago")  # another faction keeps its default
    assert [r for r in rows if r[0] == "roma"] == [("roma", T, "Tyndaris", 1)]


def test_more_sea_links_than_the_level_are_refused_at_submit():
    c, _ = started(BASE + ROMAN_SICILIA)
    rounds.publish_initiative(c)
    n = count_events(c)
    too_many = ArmyOrders(9, sea_links=((T, "Ostia"), (T, "Messana"), (T, "Tyndaris")))
    with pytest.raises(IllegalOrderError) as e:
        rounds.submit_orders(c, {9: too_many}, faction="roma")
    assert ("roma names 3 sea-link target(s) in Mare Tyrrhenum (Ostia, Messana, Tyndaris) but its naval "
            "superiority there is 2, so at most 2 may be linked: drop Tyndaris or a target before it") in str(e.value)
    assert count_events(c) == n
    # Spread over two armies' orders the count is the faction's.
    with pytest.raises(IllegalOrderError, match="names 3 sea-link target"):
        rounds.submit_orders(c, {9: ArmyOrders(9, sea_links=((T, "Ostia"), (T, "Messana"))),
                                 10: ArmyOrders(10, sea_links=((T, "Tyndaris"),))}, faction="roma")
    assert count_events(c) == n


# --- 5. a beaten army's placement across the sea --------------------------------------------

SICILIA_PLACEMENTS = ((1, "carthago", "Carthago"), (2, "carthago", "Panormus"), (9, "roma", "Roma"))


@pytest.mark.parametrize("influence, placed_in_ostia", [((1, 2), False), ((2,), True)])
def test_a_beaten_army_crosses_the_sea_only_with_naval_superiority(influence, placed_in_ostia):
    # Seed, "Outcomes and effects": a beaten army goes to the nearest structure on its lines, but not
    # across a sea zone where its faction's level is 0; then it reappears 2 hexes away.  Army 9 (roma)
    # is beaten on Sicilia; roma's nearest structure on its lines is Ostia, across Mare Tyrrhenum.
    # Two carthaginian influence points leave roma 0 there (2 - 2), one leaves it 1.
    c, m = started(ONE_PORT_EACH, SICILIA_PLACEMENTS)
    place(c, m, {9: f"{SICILIA} 9"})
    rounds.submit_initiative(c, {a: T for a in influence}, faction="carthago")
    rounds.publish_initiative(c)
    assert load_state(c).superiority[T]["roma"] == 2 - len(influence)
    give_orders(c)
    rounds.run_movement(c)
    assert [(a, b) for _e, _b, a, b, _x, _d in rounds.round_status(c).engagements] == [(1, 9)]
    rounds.record_result(c, 1, {1: ("win", 10), 9: ("loss", 30)})
    events = rounds.run_administration(c)
    placed = next(e for e in events if e.kind == "army_placed" and e.data["army"] == 9)
    s = load_state(c)
    if placed_in_ostia:
        assert placed.data["structure"] == "Ostia" and s.army(9).cell == m.cell("9 9")
        assert placed.text.startswith("army 9 (roma) is placed in Ostia, its nearest controlled unsieged structure")
    else:
        assert placed.data["structure"] is None
        assert placed.data["across_sea"] == "Ostia" and placed.text.startswith(
            "army 9 (roma): its nearest structure on its lines, Ostia (")
        assert placed.text.endswith(
            f"lies across a sea zone where it has no naval superiority: it reappears 2 hexes away at {s.army(9).cell}")
        assert grid_distance(s.army(9).cell, m.cell(f"{SICILIA} 9")) == 2
        assert s.army(9).cell in h3.grid_disk(m.cell(SICILIA), 2)  # on Sicilia, where it was beaten
    c.verify()


# --- 6. a drawn army and an enemy navy's ZoC -----------------------------------------------


def drawn_retreat(navy_at=None):
    """Army 1 (carthago) landed on Italia beside army 9 (roma), south of Roma; they draw.  Army 1
    retreats 2 hexes away from army 9, towards its capital (north-east, to Italia's coast).  A roman
    navy (army 10) lies at ``navy_at``, else far away off Sicilia."""
    placements = ((1, "carthago", "Carthago"), (9, "roma", "Roma"), (10, "roma", "Ostia"))
    c, m = started(ONE_PORT_EACH, placements)
    cells = {1: f"{ITALIA} 5", 9: f"{ITALIA} 7", 10: "3" if navy_at is None else navy_at}  # "3": off Sicilia
    place(c, m, cells)
    rounds.publish_initiative(c)
    give_orders(c)
    rounds.run_movement(c)
    assert [(a, b) for _e, _b, a, b, _x, _d in rounds.round_status(c).engagements] == [(1, 9)]
    rounds.record_result(c, 1, {1: ("draw", 10), 9: ("draw", 10)})
    rounds.run_administration(c)
    return m, load_state(c).army(1).cell


def test_a_drawn_army_does_not_retreat_into_an_enemy_navys_zoc():
    # Seed, "Outcomes and effects": an army that has "drawn a battle moves 2 hexes away ... always
    # without moving within the ZoC of any army or navy from another faction"; a navy's ZoC is its
    # hex and every hex around.  Free, army 1 ends next to the coast; a roman navy off that hex
    # sends it elsewhere (or keeps it in place), never into the navy's ZoC.
    m, free = drawn_retreat()
    coast = sorted(n for n in m.board.sides[free].values() if m.board.hexes[n].kind == "coast")
    assert coast, "the free retreat must end next to the coast for this test"
    m, blocked = drawn_retreat(navy_at=coast[0])
    assert free in navy_zoc(m.board, m.cell(coast[0]))
    assert blocked != free and (blocked is None or blocked not in navy_zoc(m.board, m.cell(coast[0])))


# --- 7. a blockaded siege ------------------------------------------------------------------


def siege_of_panormus(blockaded: bool):
    """Army 9 (roma) has besieged Panormus (Resilience 3) since an earlier round; with ``blockaded``
    a roman navy (army 10) lies on a Coast hex next to it."""
    placements = ((1, "carthago", "Carthago"), (9, "roma", "Roma"), (10, "roma", "Ostia"))
    c, m = started(ONE_PORT_EACH, placements)
    cells = {9: f"{SICILIA} 7 7 3", 1: f"{SICILIA} 1"}
    if blockaded:
        cells[10] = f"{SICILIA} 7 7 9"
    place(c, m, cells, sieges=[Siege("Panormus", "roma", (9,), 3, 3, 1)])
    rounds.publish_initiative(c)
    give_orders(c)
    rounds.run_movement(c)
    assert rounds.round_status(c).engagements == ()
    events = rounds.run_administration(c)
    return next(e for e in events if e.kind == "siege_progress")


def test_a_blockade_lowers_the_resilience_of_a_siege_by_one():
    # Seed, "Blockades": a blockaded structure under siege has its Resilience lowered by 1 while the
    # blockade lasts.
    open_ = siege_of_panormus(blockaded=False)
    shut = siege_of_panormus(blockaded=True)
    assert (open_.data["resilience_before"], open_.data["resilience_after"]) == (3, 2)
    assert (shut.data["resilience_before"], shut.data["resilience_after"]) == (2, 1)
    assert shut.text == "Panormus: 1 besieging army (9) bring Resilience from 2 to 1"


def navy_beside_panormus(navy: int, faction_cells):
    """Army ``navy`` at sea next to Panormus (west), the others where ``faction_cells`` puts them; a round
    with no move played up to administration."""
    placements = ((1, "carthago", "Carthago"), (2, "carthago", "Panormus"), (9, "roma", "Roma"), (10, "roma", "Ostia"))
    c, m = started(ONE_PORT_EACH, placements)
    place(c, m, {navy: f"{SICILIA} 7 7 9", **faction_cells})
    rounds.publish_initiative(c)
    give_orders(c)
    rounds.run_movement(c)
    assert rounds.round_status(c).engagements == ()
    return c, m


def test_a_navy_does_not_besiege():
    # Bug: a navy next to a town could start a siege of it in administration (an army's ZoC reaches
    # the land hexes around its hex, and nothing asked whether the army was at sea).  Seed: "Navies
    # can neither gain control over structures nor prevent any other factions' armies from gaining
    # control over structures"; a siege is how control of a controlled structure is gained.
    c, m = navy_beside_panormus(10, {1: f"{SICILIA} 1", 2: f"{SICILIA} 1 1"})
    n = count_events(c)
    with pytest.raises(InputError) as e:
        rounds.run_administration(c, rounds.AdminChoices(siege_starts={10: "Panormus"}))
    assert str(e.value) == (f"army 10 cannot siege Panormus: it is a navy at sea in {m.cell(f'{SICILIA} 7 7 9')} "
                            "(navies neither besiege nor gain control); debark it first")
    assert count_events(c) == n and load_state(c).sieges == ()


def test_a_navy_does_not_prevent_a_siege():
    # Bug: carthago's navy next to Panormus counted as "an army from any other faction" in whose ZoC
    # Panormus was, so roma's army beside it could not start its siege.
    c, m = navy_beside_panormus(2, {1: f"{SICILIA} 1", 9: f"{SICILIA} 7 7 3"})
    events = rounds.run_administration(c, rounds.AdminChoices(siege_starts={9: "Panormus"}))
    assert load_state(c).siege_of("Panormus").armies == (9,)
    assert any(e.kind == "siege_started" for e in events)
    assert load_state(c).army(2).cell == m.cell(f"{SICILIA} 7 7 9")  # the navy is kept, at sea
    c.verify()


# --- a naval battle between the steps ------------------------------------------------------------


def test_a_navy_beaten_in_movement_rests_in_the_next_rounds_orders(tmp_path):
    # Seed, "Naval battles": fought when a navy enters another faction's navy's ZoC, with the round's
    # random numbers from the move strings; "Outcome of naval battle": a minor defeat sends the loser
    # to a port and keeps it from acting as a navy for 1 round.  Navy 12 (roma, from Cumae) sails into
    # the ZoC of navy 2 (carthago, off Panormus).  The first moves 0, 9, 0, 3, 3 (armies 1, 2, 9, 11, 12)
    # count as the seed's 0, 10, 0, 4, 4: 18, number 8; the second and third (armies 1, 9, 12) give 4;
    # navies 2 and 12 take 8 and 4, each plus its level 2: net 4, a minor roman defeat.
    path = tmp_path / "battle.duckdb"
    c, m = started(path=path)
    rounds.publish_initiative(c)
    give_orders(c, roma={9: "0 0 0 0 0", 11: "3", 12: "3 3 3 3 3"}, carthago={1: "0 0 0", 2: "9"})
    moved = rounds.run_movement(c)
    assert texts(moved, "naval_battle") == [
        "naval battle 1: carthago 10 (navy 2: 8+2) against roma 6 (navy 12: 4+2): net 4, minor roma defeat"]
    s = load_state(c)
    assert s.army(12).cell == m.cell(f"{ITALIA} 5 5") and s.navy_rest == {12: 2}  # landed at Cumae, resting
    rounds.run_administration(c)
    rounds.run_victory(c)
    rounds.publish_initiative(c)
    n = count_events(c)
    with pytest.raises(IllegalOrderError, match="army 12.*it lost a naval battle and may not act as a navy until round 3"):
        rounds.submit_orders(c, {12: ArmyOrders(12, moves=(3,))}, faction="roma")
    assert count_events(c) == n
    give_orders(c)
    rounds.run_movement(c)
    rounds.run_administration(c)
    rounds.run_victory(c)
    c.verify()
    c.close()
    from bellica.engine.core.readjudicate import readjudicate

    assert readjudicate(path) > 0  # the battle's numbers come from the recorded orders


# --- 8. re-adjudication of a naval round -------------------------------------------------------


def test_a_naval_round_readjudicates_to_the_same_log(tmp_path):
    from bellica.engine.core.readjudicate import readjudicate

    path = tmp_path / "naval.duckdb"
    c, m, _ = sail_and_debark(path=path, sea_links=[(T, "Ostia")])
    assert load_state(c).sea_links["roma"][T] == ("Ostia",)
    rounds.run_administration(c, rounds.AdminChoices(debarks={10: 3}))
    rounds.run_victory(c)
    c.verify()
    c.close()
    assert readjudicate(path) > 0
