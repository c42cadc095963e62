"""The administration steps, with the seed's numbers (1480 - 70 = 1410, +32/+16 reinforcement...)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.vae_victis.administration import AdminInputs, administer, casualty_loss, retreat_destination
from bellica.engine.vae_victis.battles import Engagement, EngagementResult, find_engagements
from bellica.engine.vae_victis.model import Siege, Transfer
from bellica.engine.vae_victis.zoc import army_zoc
from bellica.geo.errors import InputError
from bellica.geo.hexgrid import grid_distance
from tests.engine.boards import cell, sketch


@pytest.fixture(scope="module")
def m():
    return sketch(
        radius=6,
        terrain={"1 1 1 1 1": "peaks"},
        roads=[["", "3", "3 3", "3 3 3"]],
        structures=[
            ("Roma", "city", "", "roma", True),
            ("Capua", "town", "3 3 3", "roma"),
            ("Carthago", "city", "9 9 9 9", "carthago", True),
            ("Veii", "town", "11 11 11", None),
            ("Cumae", "town", "5 5 5 5", "carthago"),
        ],
    )


def result(e, army, outcome, cas):
    return EngagementResult(e, army, outcome, cas)


def test_casualty_loss():
    assert casualty_loss("win", 30) == 30 and casualty_loss("draw", 30) == 60 and casualty_loss("loss", 30) == 60


def test_seed_strength_example_and_loser_placement(m):
    # Army 9 (1480 FP) fights carthaginian armies 1 and 2 and wins both, with 30% and 40%
    # casualties: 1480 - (30 + 40) = 1410 (seed, "Reduction of army strength", example 2).
    start = m.state([(9, "roma", "1 1", 1480), (1, "carthago", "1 1 11", 1600), (2, "carthago", "1 1 3", 1600)])
    es = find_engagements(m.board, start)
    assert [(e.army_a, e.army_b, e.battle) for e in es] == [(1, 9, 1), (2, 9, 1)]
    res = (result(1, 9, "win", 30), result(1, 1, "loss", 50), result(2, 9, "win", 40), result(2, 2, "loss", 10))
    out = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=res))
    s = out.state
    assert s.army(9).strength == 1410 and s.army(9).cell == m.cell("1 1")
    assert s.army(1).strength == 1600 - 100 and s.army(2).strength == 1600 - 20
    # both losers go to the nearest controlled unsieged structure on Carthago's lines: Carthago
    # (Cumae is not on the lines: no road or coast links it), the second one finding it taken
    # reappears 2 hexes away from the enemy instead.
    assert s.army(1).cell == m.cell("9 9 9 9")
    assert s.army(2).cell is not None and grid_distance(s.army(2).cell, m.cell("1 1 3")) == 2
    kinds = [e.kind for e in out.events]
    assert kinds.index("army_removed") < kinds.index("army_placed") < kinds.index("strength_changed")


def test_draw_retreats_two_hexes_towards_capital(m):
    start = m.state([(9, "roma", "3 3 1 1"), (1, "carthago", "3 3 1 1 1")])
    es = find_engagements(m.board, start)
    res = (result(1, 1, "draw", 10), result(1, 9, "draw", 10))
    s = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=res)).state
    roman, punic = s.army(9).cell, s.army(1).cell
    assert grid_distance(roman, m.cell("3 3 1 1")) == 2 and grid_distance(punic, m.cell("3 3 1 1 1")) == 2
    assert grid_distance(roman, m.cell("")) < grid_distance(m.cell("3 3 1 1"), m.cell(""))  # towards Roma
    assert roman not in army_zoc(m.board, punic) and punic not in army_zoc(m.board, roman)
    assert s.army(9).strength == 1600 - 20


def test_besieger_that_draws_stays(m):
    start = m.state([(9, "roma", "5 5 5"), (1, "carthago", "5 5 5 3")], sieges=[Siege("Cumae", "roma", (9,), 2, 2, 0)])
    es = find_engagements(m.board, start)
    res = (result(1, 1, "draw", 10), result(1, 9, "draw", 10))
    out = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=res))
    assert out.state.army(9).cell == m.cell("5 5 5")
    assert out.state.siege_of("Cumae").resilience == 1  # besieged the full round: 2 -> 1


def test_winners_advance_with_tie_rules(m):
    start = m.state([(9, "roma", "1"), (10, "roma", "1 3 5"), (1, "carthago", "1 3")])
    es = find_engagements(m.board, start)
    target = m.cell("1 3")
    res = (result(1, 1, "loss", 30), result(1, 9, "win", 20), result(2, 1, "loss", 30), result(2, 10, "win", 10))
    out = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=res,
                                                 advances={9: target, 10: target}))
    assert out.state.army(10).cell == target and out.state.army(9).cell == m.cell("1")  # 10 took fewer casualties
    tie = (result(1, 1, "loss", 30), result(1, 9, "win", 10), result(2, 1, "loss", 30), result(2, 10, "win", 10))
    out = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=tie,
                                                 advances={9: target, 10: target}))
    assert "advance_tied" in [e.kind for e in out.events]  # same casualties taken and inflicted: nobody moves
    assert out.state.army(9).cell == m.cell("1") and out.state.army(10).cell == m.cell("1 3 5")
    with pytest.raises(InputError):
        administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=res, advances={9: m.cell("11")}))


def test_reinforcement(m):
    start = m.state([(9, "roma", "", 1500), (10, "roma", "3", 1500), (11, "roma", "3 3 3", 1590), (12, "roma", "1 1 1", 1500)])
    s = administer(m.board, start, AdminInputs(start_state=start)).state
    assert s.army(9).strength == 1532  # in Roma (city, on its lines): +32
    assert s.army(10).strength == 1516  # 1 hex from Roma: +16
    assert s.army(11).strength == 1600  # Capua (town, on the road line): +16, capped at 1600
    assert s.army(12).strength == 1500  # no structure's ZoC
    moved = administer(m.board, start, AdminInputs(start_state=replace(start, armies=(
        replace(start.army(9), cell=m.cell("1")),) + start.armies[1:]))).state
    assert moved.army(9).strength == 1500  # moved during the round
    # cut off from the capital: Capua's line runs along the road, an enemy army sits next to it
    cut = m.state([(11, "roma", "3 3 3", 1500), (1, "carthago", "3 1")])
    assert administer(m.board, cut, AdminInputs(start_state=cut)).state.army(11).strength == 1508


def test_transfers(m):
    start = m.state([(9, "roma", "", 1550), (10, "roma", "3 3 3", 1580), (11, "roma", "1 1 1", 1500)])
    out = administer(m.board, start, AdminInputs(start_state=start, transfers={9: (Transfer(10, 60),)}))
    s = out.state
    # Roma +32 reinforcement, -60 sent; Capua's army takes 20 (1600 cap) after its +16 -> 1596 + 4
    assert s.army(10).strength == 1600
    assert s.army(9).strength == 1550 + 32 - 60 + (60 - 4)
    with pytest.raises(InputError, match="not linked"):
        administer(m.board, start, AdminInputs(start_state=start, transfers={9: (Transfer(11, 50),)}))
    with pytest.raises(InputError, match="aggregate"):
        administer(m.board, start, AdminInputs(start_state=start, transfers={9: (Transfer(10, 60), Transfer(10, 50))}))
    lost = administer(m.board, start, AdminInputs(start_state=start, transfers={9: (Transfer(10, 60),)}),
                      replace(m.board.rules.administration, transfer_excess="lost")).state
    assert lost.army(9).strength == 1550 + 32 - 60


def test_unowned_structure_control(m):
    start = m.state([(9, "roma", "11 11 11 11")])
    out = administer(m.board, start, AdminInputs(start_state=start))
    assert out.state.control["Veii"] == "roma"
    change = out.control_events[0]
    assert change.data["from"] is None and change.data["how"] == "zoc"
    contested = m.state([(9, "roma", "11 11 11 11"), (1, "carthago", "11 11 11 9")])
    assert administer(m.board, contested, AdminInputs(start_state=contested)).state.control["Veii"] is None


def test_lost_assault_moves_away_and_lifts(m):
    start = m.state([(9, "roma", "5 5 5")], sieges=[Siege("Cumae", "roma", (9,), 3, 3, 0)])
    es = (Engagement(1, 1, 9, None, "Cumae"),)
    out = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=(result(1, 9, "loss", 30),)))
    s = out.state
    assert grid_distance(s.army(9).cell, m.cell("5 5 5")) == 2 and s.army(9).strength == 1600 - 60
    assert s.siege_of("Cumae") is None and s.control["Cumae"] == "carthago"
    won = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=(result(1, 9, "win", 30),)))
    assert won.state.control["Cumae"] == "roma" and won.state.army(9).strength == 1570


def test_loser_without_structure_reappears_two_hexes_away(m):
    # Roma and Capua are Carthaginian: Roma has no line at all, so its loser reappears 2 hexes away
    # from where it lost, away from the army it lost to.
    start = m.state([(9, "roma", "7 7"), (1, "carthago", "7 7 9")], control={"Roma": "carthago", "Capua": "carthago"})
    es = find_engagements(m.board, start)
    res = (result(1, 1, "win", 5), result(1, 9, "loss", 40))
    s = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=res)).state
    assert s.army(9).cell is not None and grid_distance(s.army(9).cell, m.cell("7 7")) == 2
    assert grid_distance(s.army(9).cell, m.cell("7 7 9")) >= 2


def test_retreat_destination_respects_enemy_zoc(m):
    b = m.board
    cell = m.cell("")
    blocked = set(b.sides[cell].values()) - {m.cell("3")}
    dest = retreat_destination(b, cell, [], blocked, set())
    assert dest is not None and m.cell("3") in b.sides[dest].values()


def test_loser_with_no_hex_at_all_is_eliminated():
    # A two-hex island (the rest is coast): Roma has no structure, no land hex lies 2 away.
    m = sketch(radius=2, water={r: "coast" for r in ["1", "5", "7", "9", "11", "1 1", "1 3", "3 3", "3 5", "5 5",
                                                     "5 7", "7 7", "7 9", "9 9", "9 11", "11 11", "11 1"]},
               structures=[("Carthago", "city", "3", "carthago", True)])
    start = m.state([(9, "roma", ""), (1, "carthago", "3")])
    es = find_engagements(m.board, start)
    assert [(e.army_a, e.army_b) for e in es] == [(1, 9)]
    res = (result(1, 1, "win", 5), result(1, 9, "loss", 40))
    out = administer(m.board, start, AdminInputs(start_state=start, engagements=es, results=res))
    assert out.state.army(9).eliminated and out.state.army(9).cell is None
    assert "army_eliminated" in [e.kind for e in out.events]


def test_reinforcement_needs_the_structure_controlled_the_entire_round(m):
    # Seed: an army recovers strength "if located the entire round within the ZoC of a
    # controlled structure".  Army 9 stands in Veii, controlled by nobody at the round's start:
    # Roma gains Veii at the round's end (step 5), but army 9 was not the whole round in a
    # controlled structure's ZoC, so it gets nothing this round (it used to get +8).
    start = m.state([(9, "roma", "11 11 11", 1500)])
    out = administer(m.board, start, AdminInputs(start_state=start))
    assert out.state.control["Veii"] == "roma" and out.state.army(9).strength == 1500
    # the next round Veii is Roma's from the start: a town cut off from the lines gives +8
    nxt = replace(out.state, round=2)
    assert administer(m.board, nxt, AdminInputs(start_state=nxt)).state.army(9).strength == 1508


def test_reinforcement_seed_table_on_and_off_the_lines():
    # On the lines (Roma's road reaches Antium and Arretium): Town +16, City +32 / +16 one hex away.
    # Off the lines (Roma besieged: no line starts there): Town +8, City +16 / +8 one hex away.
    m = sketch(radius=6, roads=[["", "3", "3 3", "3 3 3"], ["", "9", "9 9", "9 9 9"]],
               structures=[("Roma", "city", "", "roma", True), ("Antium", "town", "3 3 3", "roma"),
                           ("Arretium", "city", "9 9 9", "roma"), ("Cumae", "town", "5 5 5 5", "carthago")])
    armies = [(9, "roma", "3 3 3", 1500), (10, "roma", "9 9 9", 1500), (11, "roma", "9 9 9 7", 1500),
              (12, "roma", "9 9 9 9 9", 1500)]
    start = m.state(armies)
    s = administer(m.board, start, AdminInputs(start_state=start)).state
    assert [s.army(i).strength for i in (9, 10, 11, 12)] == [1516, 1532, 1516, 1500]
    cut = m.state(armies + [(1, "carthago", "1")], sieges=[Siege("Roma", "carthago", (1,), 4, 4, 1)])
    s = administer(m.board, cut, AdminInputs(start_state=cut)).state
    assert [s.army(i).strength for i in (9, 10, 11, 12)] == [1508, 1516, 1508, 1500]


def test_navies_neither_gain_nor_prevent_control():
    # Seed: "Navies can neither gain control over structures nor prevent any other factions'
    # armies from gaining control".  Carthaginian army 1 is at sea (a navy) next to unowned Mylae.
    m = sketch(radius=2, water={"3": "coast"}, structures=[("Mylae", "town", "", None)])
    navy_only = m.state([(1, "carthago", "3")])
    assert administer(m.board, navy_only, AdminInputs(start_state=navy_only)).state.control["Mylae"] is None
    both = m.state([(1, "carthago", "3"), (9, "roma", "9")])
    assert administer(m.board, both, AdminInputs(start_state=both)).state.control["Mylae"] == "roma"


def test_a_loser_whose_nearest_structure_lies_across_a_sea_without_superiority_reappears():
    """Issue 22, deviation 1.  Seed ("Outcomes and effects"): a beaten army goes to the controlled,
    unsieged, unblockaded structure on its lines closest to where it lost; "if it would need to
    cross a sea zone in which its faction has a Naval Superiority level of 0 in order to do so, it
    will instead reappear 2 hexes away from where it lost the battle".  The position: Roman army 13
    beaten on the toe of Italy; Messana (2 hexes) across the Strait, Hipponium (3 hexes) on Italy.
    Before, the engine placed it in Hipponium, calling it "its nearest ... structure"."""
    import h3

    toe, sicily = cell(""), cell("9 9 9")               # the Strait: the ring of water 2 around Sicily's centre
    strait = set(h3.grid_ring(sicily, 2))
    hipponium = min(c for c in h3.grid_ring(sicily, 3) if grid_distance(c, toe) == 3)   # on the Italian shore
    m = sketch(radius=6, water={c: "coast" for c in strait}, sea_zones={c: ["Fretum Siculum"] for c in strait},
               structures=[("Roma", "city", "9 9 9 9 9 9", "roma", True), ("Messana", "town", "9 9", "roma"),
                           ("Hipponium", "town", hipponium, "roma"), ("Carthago", "city", "3 3 3 3 3", "carthago", True)])
    start = m.state([(13, "roma", ""), (1, "carthago", "3")])
    res = (result(1, 13, "loss", 30), result(1, 1, "win", 10))
    placed = {}
    for level in (0, 1):
        s = replace(start, superiority={"Fretum Siculum": {"roma": level, "carthago": 2}})
        out = administer(m.board, s, AdminInputs(start_state=s, engagements=find_engagements(m.board, s), results=res))
        placed[level] = (out.state.army(13).cell, next(e for e in out.events if e.kind == "army_placed"))
    cell0, ev0 = placed[0]
    assert cell0 not in (hipponium, m.cell("9 9")) and grid_distance(cell0, toe) == 2
    assert grid_distance(cell0, m.cell("3")) > grid_distance(toe, m.cell("3"))       # away from the victor
    assert ev0.data["structure"] is None and ev0.data["across_sea"] == "Messana"
    assert ev0.text.startswith("army 13 (roma): its nearest structure on its lines, Messana (2 hexes), lies across "
                               "a sea zone where it has no naval superiority: it reappears 2 hexes away")
    cell1, ev1 = placed[1]                               # superiority 1: it crosses to Messana
    assert cell1 == m.cell("9 9") and ev1.data["structure"] == "Messana"
