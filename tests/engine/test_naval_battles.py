"""Naval battles (seed, "Naval battles"): random numbers, grouping, strengths, outcomes, retreats.

The seed's own numbers and wording are the tests where it gives them: the random-number example
"2+4+2+2+0+2+8+0+8+0+6+0+6+0+2+12 = 54 = (5)4 = 4", and the worked battle netting -4 to a minor
Carthaginian defeat (navies #1 and #2 retreat at least 9 Coastal or Sea hexes, 1 round inactive).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

import h3
import pytest

from bellica.engine.vae_victis.model import Siege
from bellica.engine.vae_victis.naval_battles import (
    OUR_SIDES,
    battle_groups,
    move_strings,
    random_numbers,
    resolve_naval_battles,
    seed_value,
)
from bellica.engine.vae_victis.rules import default_rules, rules_with
from tests.engine.boards import cell, move_orders, sketch

NAVAL = default_rules().naval
SEED_SIDES = (0, 2, 4, 6, 8, 10, 12)


def open_sea(radius: int, land=(), sea=(), structures=(), sea_zones=None, rules=None):
    """A board of Coast hexes everywhere but ``land`` (refs), the structures' hexes (land) and
    ``sea`` (refs of Sea hexes): water paths are then plain grid distances."""
    origin = cell("")
    land_cells = {cell(r) for r in land} | {cell(s[2]) for s in structures}
    sea_cells = {cell(r) for r in sea}
    water = {c: ("sea" if c in sea_cells else "coast") for c in h3.grid_disk(origin, radius) if c not in land_cells}
    zones = None
    if sea_zones is not None:
        zones = {c: sea_zones(c) for c in water}
    m = sketch(radius=radius, water=water, structures=structures, sea_zones=zones)
    if rules is not None:
        m = dataclasses.replace(m, board=dataclasses.replace(m.board, rules=rules))
    return m


def kinds(result):
    return [e.kind for e in result.events]


def event(result, kind, **match):
    for e in result.events:
        if e.kind == kind and all(e.data.get(k) == v for k, v in match.items()):
            return e
    raise AssertionError(f"no {kind} event with {match} in {[(e.kind, e.data) for e in result.events]}")


# --- random numbers --------------------------------------------------------------

def test_seed_value_maps_our_odd_sides_onto_the_seeds_even_ones():
    assert [seed_value(s) for s in OUR_SIDES] == list(SEED_SIDES)
    # Flat-topped cells (res 6 around the Mediterranean) have the seed's even sides: they count as they are.
    assert [seed_value(s) for s in SEED_SIDES] == list(SEED_SIDES)
    with pytest.raises(ValueError, match="not a clock side"):
        seed_value(13)


def test_random_numbers_on_flat_topped_hexes():
    # Bug: every res-6 round failed in movement ("move 4 is not a clock side"): around the Mediterranean
    # res-6 cells are flat-topped, their sides the seed's own even numbers, which count as they are.
    m = sketch(res=6, radius=1)
    assert sorted(m.board.sides[m.cell("")]) == [2, 4, 6, 8, 10, 12]
    assert random_numbers([(2, 0), (4, 6), (12, 6)], NAVAL) == ((2 + 4 + 12) % 10, (0 + 6 + 6) % 10)


# The seed's 16 first moves, "2+4+2+2+0+2+8+0+8+0+6+0+6+0+2+12", written in our sides (s -> s-1).
SEED_FIRST_MOVES = [2, 4, 2, 2, 0, 2, 8, 0, 8, 0, 6, 0, 6, 0, 2, 12]
OUR_FIRST_MOVES = [s - 1 if s else 0 for s in SEED_FIRST_MOVES]


def test_the_seeds_example_gives_4():
    assert OUR_FIRST_MOVES == [1, 3, 1, 1, 0, 1, 7, 0, 7, 0, 5, 0, 5, 0, 1, 11]
    assert sum(SEED_FIRST_MOVES) == 54
    assert random_numbers([(m,) for m in OUR_FIRST_MOVES], NAVAL) == (4,)
    assert random_numbers([(m,) for m in OUR_FIRST_MOVES], default_rules()) == (4,)  # board.rules works too


def test_the_nth_number_needs_three_armies_with_an_nth_move():
    strings = [(1, 3, 5, 7), (1, 3, 5), (1, 3, 5), (11,)]
    # 1st: 2+2+2+12 = 18 -> 8; 2nd: 4+4+4 = 12 -> 2; 3rd: 6+6+6 = 18 -> 8; 4th: one army only.
    assert random_numbers(strings, NAVAL) == (8, 2, 8)
    assert random_numbers([(1, 1), (1, 1)], NAVAL) == ()  # two armies: no number at all
    assert random_numbers([(0,), (0,), (0,)], NAVAL) == (0,)  # standing still is a move


def test_the_distribution_is_the_seeds():
    def histogram(alphabet, value):
        return Counter(sum(value(s) for s in combo) % NAVAL.random_modulus
                       for combo in itertools.product(alphabet, repeat=3))

    seed = histogram(SEED_SIDES, lambda s: s)
    ours = histogram(OUR_SIDES, seed_value)
    assert ours == seed
    assert set(ours) == {0, 2, 4, 6, 8}  # every number even, 0..8
    # The same through random_numbers, three armies' first moves at a time.
    via = Counter(random_numbers([(a,), (b,), (c,)], NAVAL)[0] for a, b, c in itertools.product(OUR_SIDES, repeat=3))
    assert via == seed
    # Summing our sides as written would not keep it: odd numbers appear, the odds change.
    raw = histogram(OUR_SIDES, lambda s: s)
    assert raw != seed
    assert any(n % 2 for n in raw)
    assert raw[1] > 0 and seed[1] == 0


def test_move_strings_skip_eliminated_armies():
    m = sketch(radius=1)
    state = m.state([(1, "roma", ""), (2, "roma", "3"), (3, "carthago", "9", 1600, True)])
    orders = move_orders({1: "3 3", 3: "1 1 1"})
    assert move_strings(state, orders) == [(3, 3)]


# --- battle groups ---------------------------------------------------------------

def seed_board(radius: int = 11, **kw):
    """#1 (carthago) at the centre next to Roman #9 (1) and #10 (5); #10 next to Carthaginian #2 (5 5).
    Carthaginian ports: Lilybaeum too close (2 hexes from both), Panormus 9 hexes from #1 (11 from #2),
    Drepana 10 from #1 (12 from #2)."""
    structures = [
        ("Lilybaeum", "town", "7 7 7", "carthago"),
        ("Panormus", "town", " ".join(["9"] * 10), "carthago"),
        ("Drepana", "town", " ".join(["11"] * 11), "carthago"),
        ("Ostia", "town", " ".join(["3"] * 11), "roma"),
    ]
    return open_sea(radius, structures=structures, **kw)


SEED_NAVIES = [(1, "carthago", ""), (2, "carthago", "5 5"), (9, "roma", "1"), (10, "roma", "5")]


def test_navies_linked_through_enemy_zoc_fight_one_battle():
    m = seed_board()
    state = m.state(SEED_NAVIES + [(3, "carthago", "9 9 9 9 9"), (11, "roma", "9 9 9 9 9 9")])
    # #3 and #11 are adjacent to each other only: a second battle.  Land armies never count.
    assert battle_groups(m.board, state) == ((1, 2, 9, 10), (3, 11))
    alone = m.state([(1, "carthago", ""), (2, "carthago", "3"), (9, "roma", "9 9 9")])
    assert battle_groups(m.board, alone) == ()  # own navies are no enemies; #9 is 3 hexes away


# --- the seed's worked example ---------------------------------------------------

def test_the_seeds_worked_battle():
    m = seed_board()
    state = m.state(SEED_NAVIES)
    groups = battle_groups(m.board, state)
    assert groups == ((1, 2, 9, 10),)
    # Numbers 4, 2, 8, 2 from 16 armies' moves: the seed's first moves, then one army's 1, 7, 1 (-> 2, 8, 2).
    strings = [(m0,) for m0 in OUR_FIRST_MOVES]
    strings[0] = (OUR_FIRST_MOVES[0], 0, 0, 0)
    strings[1] = (OUR_FIRST_MOVES[1], 1, 7, 1)
    strings[2] = (OUR_FIRST_MOVES[2], 0, 0, 0)
    numbers = random_numbers(strings, m.board.rules)
    assert numbers == (4, 2, 8, 2)

    r = resolve_naval_battles(m.board, state, groups, numbers)
    (b,) = r.battles
    assert {n.army: (n.number, n.superiority, n.strength) for n in b.navies} == {
        1: (4, 2, 6), 2: (2, 2, 4), 9: (8, 2, 10), 10: (2, 2, 4)}
    assert b.strengths == {"carthago": 10, "roma": 14}
    assert b.net == {"carthago": -4, "roma": 4}
    assert b.outcome == "minor carthago defeat"
    assert b.losers == ("carthago",) and b.winners == ("roma",)
    ev = event(r, "naval_battle", battle=1)
    assert ev.phase == "battles"
    assert ev.text == ("naval battle 1: carthago 10 (navy 1: 4+2, navy 2: 2+2) against "
                       "roma 14 (navy 9: 8+2, navy 10: 2+2): net -4, minor carthago defeat")
    assert ev.data["net"] == -4 and ev.data["loser"] == "carthago" and ev.data["outcome"] == "minor carthago defeat"

    # "#1 and #2 retreat at least 9 Coastal or Sea hexes away, plus ... inactive for 1 round as navy".
    # Lilybaeum is too close; #1 takes Panormus (9 hexes); #2 wants Panormus too, the lower number has it,
    # so #2 takes its next closest, Drepana.
    assert r.retreats == {1: "Panormus", 2: "Drepana"}
    one, two = event(r, "navy_retreated", army=1), event(r, "navy_retreated", army=2)
    assert one.data["distance"] == 9 and one.data["required"] == 9
    assert two.data["distance"] == 12  # Panormus would be 11
    assert "at least 9" in one.text and "Panormus" in one.text and "until round 3" in one.text
    s = r.state
    assert s.army(1).cell == m.board.structures["Panormus"].cell
    assert s.army(2).cell == m.board.structures["Drepana"].cell
    assert s.navy_rest == {1: 2, 2: 2}  # round 1 + 1 inactive round
    # The winners advance: the lowest-numbered winner next to each vacated hex.
    assert s.army(9).cell == m.cell("") and s.army(10).cell == m.cell("5 5")
    assert event(r, "navy_advanced", army=9).data["vacated_by"] == 1
    assert event(r, "navy_advanced", army=10).data["vacated_by"] == 2


def test_ports_that_do_not_qualify_are_skipped():
    """Besieged, blockaded, occupied and low-superiority ports are passed over for the next one."""
    west = lambda n: " ".join(["9"] * n)  # noqa: E731
    structures = [
        ("Besieged", "town", west(10), "carthago"),
        ("Occupied", "town", " ".join(["11"] * 10), "carthago"),
        ("Blockaded", "town", " ".join(["7"] * 10), "carthago"),
        ("Lowzone", "town", " ".join(["1"] * 10), "carthago"),
        ("Fine", "town", " ".join(["9"] * 11), "carthago"),
        ("Foreign", "town", " ".join(["5"] * 10), "roma"),
    ]
    low = {cell(" ".join(["1"] * 9))}

    def zones(c):
        near = any(h3.grid_distance(c, x) <= 1 for x in low | {cell(" ".join(["1"] * 10))})
        return frozenset({"Mare Low"}) if near else frozenset({"Mare Tyrrhenum"})

    m = open_sea(12, structures=structures, sea_zones=zones)
    state = m.state([(1, "carthago", ""), (9, "roma", "3"), (10, "roma", " ".join(["7"] * 9)),
                     (3, "carthago", " ".join(["11"] * 10))],
                    sieges=[Siege("Besieged", "roma", (), 2, 2, 1)])
    state = dataclasses.replace(state, superiority={"Mare Low": {"carthago": 0}})
    r = resolve_naval_battles(m.board, state, [(1, 9)], (0, 8))
    assert r.battles[0].outcome == "major carthago defeat"  # 2 - 10 = -8
    # Major defeat: 18 hexes; none is that far on this board, so the nearest qualifying port (option "nearest").
    assert r.retreats == {1: "Fine"}
    ev = event(r, "navy_retreated", army=1)
    assert ev.data["nearest_fallback"] is True and ev.data["required"] == 18
    assert r.state.navy_rest == {1: 3}


# --- outcomes --------------------------------------------------------------------

def test_draw_each_navy_falls_back_one_hex():
    m = open_sea(4)
    state = m.state([(1, "carthago", ""), (9, "roma", "3")])
    r = resolve_naval_battles(m.board, state, battle_groups(m.board, state), (4, 6))
    (b,) = r.battles
    assert b.net == {"carthago": -2, "roma": 2} and b.outcome == "draw"
    assert b.text.endswith("net -2, draw")
    a, c = r.state.army(1).cell, r.state.army(9).cell
    for army, start, now in ((1, m.cell(""), a), (9, m.cell("3"), c)):
        assert h3.grid_distance(start, now) == 1  # one hex
        assert event(r, "navy_retreated", army=army).data["reason"] == "draw"
    # Each fell back from where the other fought, out of its ZoC.
    assert h3.grid_distance(a, m.cell("3")) == 2 and h3.grid_distance(c, m.cell("")) == 2
    assert h3.grid_distance(a, c) >= 3
    assert r.retreats == {} and r.state.navy_rest == {}
    assert "falls back one hex" in event(r, "navy_retreated", army=1).text


def test_a_drawn_navy_with_no_coast_hex_to_fall_back_to_stays():
    # #1 is ringed by Sea hexes (it would sink there) except towards the enemy.
    ring = ["1", "5", "7", "9", "11"]
    m = open_sea(3, sea=ring)
    state = m.state([(1, "carthago", ""), (9, "roma", "3")])
    r = resolve_naval_battles(m.board, state, [(1, 9)], (4, 4))
    assert r.state.army(1).cell == m.cell("")
    stay = event(r, "navy_stayed", army=1)
    assert "stays" in stay.text
    assert r.state.army(9).cell != m.cell("3")  # the other one can


def test_total_defeat_27_hexes_and_3_rounds():
    east, west = (lambda n: " ".join(["3"] * n)), (lambda n: " ".join(["9"] * n))
    structures = [("Antium", "town", west(6), "roma"), ("Ostia", "town", west(14), "roma")]
    m = open_sea(14, structures=structures)
    state = m.state([(1, "carthago", east(12)), (2, "carthago", east(14)), (9, "roma", east(13))], round=4)
    r = resolve_naval_battles(m.board, state, battle_groups(m.board, state), (8, 8, 0))
    (b,) = r.battles
    assert b.strengths == {"carthago": 20, "roma": 2} and b.net["carthago"] == 18
    assert b.outcome == "total roma defeat"
    # Antium is 18 hexes away: too close for a total defeat; Ostia 27.
    assert r.retreats == {9: "Ostia"}
    ev = event(r, "navy_retreated", army=9)
    assert ev.data["distance"] == 27 and ev.data["required"] == 27
    assert r.state.navy_rest == {9: 7}  # round 4 + 3
    assert "until round 8" in ev.text
    assert r.state.army(1).cell == m.cell(east(13))  # #1, the lower number, advances


def test_no_port_far_enough_nearest_or_eliminate():
    structures = [("Hadrumetum", "town", "9 9 9", "carthago")]
    nearest = open_sea(5, structures=structures)
    state = nearest.state([(1, "carthago", ""), (9, "roma", "3")])
    r = resolve_naval_battles(nearest.board, state, [(1, 9)], (0, 4))
    assert r.retreats == {1: "Hadrumetum"} and r.state.army(1).cell == nearest.cell("9 9 9")
    assert "no port lies 9 hexes away, so it takes the nearest, Hadrumetum, 2 hexes away" in \
        event(r, "navy_retreated", army=1).text

    eliminate = open_sea(5, structures=structures, rules=rules_with({"options": {"no_port": "eliminate"}}))
    r = resolve_naval_battles(eliminate.board, state, [(1, 9)], (0, 4))
    assert r.eliminated == (1,) and r.retreats == {}
    assert r.state.army(1).eliminated and r.state.army(1).cell is None
    assert event(r, "navy_eliminated", army=1).data["reason"] == "no_port_far_enough"
    assert r.state.army(9).cell == nearest.cell("")  # the winner still advances into the vacated hex


def test_no_port_at_all_eliminates_with_either_option():
    m = open_sea(4, structures=[("Utica", "town", "9 9 9", "roma")])  # not carthago's
    state = m.state([(1, "carthago", ""), (9, "roma", "3")])
    r = resolve_naval_battles(m.board, state, [(1, 9)], (0, 4))
    assert r.eliminated == (1,)
    e = event(r, "navy_eliminated", army=1)
    assert e.data["reason"] == "no_port" and "irrevocably eliminated" in e.text


def test_the_winner_never_advances_onto_a_sea_hex():
    rules = rules_with({"naval": {"outcomes": {"minor": {"net": 3, "retreat_hexes": 2, "inactive_rounds": 1}}}})
    m = open_sea(4, sea=[""], structures=[("Caralis", "town", "9 9 9", "carthago")], rules=rules)
    state = m.state([(1, "carthago", ""), (9, "roma", "3")])
    r = resolve_naval_battles(m.board, state, [(1, 9)], (0, 4))
    assert r.retreats == {1: "Caralis"}
    assert event(r, "navy_retreated", army=1).data["required"] == 2
    assert r.state.army(9).cell == m.cell("3")
    assert "navy_advanced" not in kinds(r)


# --- numbers running out ---------------------------------------------------------

def four_navies():
    m = seed_board()
    return m, m.state(SEED_NAVIES)


def test_numbers_cycle_from_the_first():
    m, state = four_navies()
    r = resolve_naval_battles(m.board, state, [(1, 2, 9, 10)], (4, 2))
    got = {n.army: (n.number, n.number_source) for n in r.battles[0].navies}
    assert got == {1: (4, "sequence"), 2: (2, "sequence"), 9: (4, "cycle"), 10: (2, "cycle")}
    assert "from navy 9 on they start again from the first" in r.battles[0].text


def test_numbers_from_the_campaigns_seeded_source():
    m, state = four_navies()
    board = dataclasses.replace(m.board, rules=rules_with({"options": {"numbers_exhausted": "rng"}}))
    r1 = resolve_naval_battles(board, state, [(1, 2, 9, 10)], (4,), rng=random.Random(7))
    r2 = resolve_naval_battles(board, state, [(1, 2, 9, 10)], (4,), rng=random.Random(7))
    n1 = {n.army: (n.number, n.number_source) for n in r1.battles[0].navies}
    assert n1 == {n.army: (n.number, n.number_source) for n in r2.battles[0].navies}  # reproducible
    assert n1[1] == (4, "sequence")
    assert all(src == "rng" and num in (0, 2, 4, 6, 8) for a, (num, src) in n1.items() if a != 1)
    with pytest.raises(ValueError, match="rng"):
        resolve_naval_battles(board, state, [(1, 2, 9, 10)], (4,))
    # Enough numbers: no source needed.
    resolve_naval_battles(board, state, [(1, 2, 9, 10)], (4, 2, 8, 2))


def test_no_numbers_at_all_count_zero():
    m, state = four_navies()
    r = resolve_naval_battles(m.board, state, [(1, 2, 9, 10)], ())
    (b,) = r.battles
    assert all(n.number == 0 for n in b.navies) and b.outcome == "draw"
    assert "no random numbers this round (fewer than 3 armies moved): every number counts 0" in b.text


def test_numbers_run_across_all_the_rounds_battles_in_army_order():
    m = seed_board()
    state = m.state(SEED_NAVIES + [(3, "carthago", "9 9 9 9 9"), (11, "roma", "9 9 9 9 9 9")])
    r = resolve_naval_battles(m.board, state, battle_groups(m.board, state), (0, 2, 4, 6, 8, 0))
    # Army order 1, 2, 3, 9, 10, 11 across both battles.
    numbers = {n.army: n.number for b in r.battles for n in b.navies}
    assert numbers == {1: 0, 2: 2, 3: 4, 9: 6, 10: 8, 11: 0}
    assert [b.number for b in r.battles] == [1, 2]


# --- more than two factions, border hexes, bad input -----------------------------

def test_three_factions_each_against_the_strongest_other():
    structures = [("Carthago", "city", " ".join(["9"] * 10), "carthago"),
                  ("Syracusae", "city", " ".join(["11"] * 10), "syracusae")]
    m = open_sea(11, structures=structures)
    # carthago #1 next to roma #9, roma #9 next to syracusae #20.
    state = m.state([(1, "carthago", ""), (9, "roma", "3"), (20, "syracusae", "3 3")])
    r = resolve_naval_battles(m.board, state, battle_groups(m.board, state), (8, 8, 0))
    (b,) = r.battles
    assert b.factions == ("carthago", "roma", "syracusae")
    assert b.strengths == {"carthago": 10, "roma": 10, "syracusae": 2}
    assert b.net == {"carthago": 0, "roma": 0, "syracusae": -8}
    assert b.outcomes == {"carthago": "draw", "roma": "draw", "syracusae": "major"}
    assert b.outcome == "major syracusae defeat; carthago and roma draw"
    assert "net against the strongest other: carthago 0, roma 0, syracusae -8" in b.text
    assert r.retreats == {20: "Syracusae"}
    assert "navy_advanced" not in kinds(r)  # nobody won
    assert event(r, "navy_retreated", army=1).data["reason"] == "draw"

    r = resolve_naval_battles(m.board, state, [(1, 9, 20)], (8, 2, 0))
    b = r.battles[0]
    assert b.net == {"carthago": 6, "roma": -6, "syracusae": -8}
    assert b.outcomes == {"carthago": "win", "roma": "major", "syracusae": "major"}
    assert b.outcome == "major roma defeat, major syracusae defeat"
    assert r.eliminated == (9,)  # roma has no port on this board
    assert r.state.army(1).cell == m.cell("3")  # the winner advances into #9's hex


def test_border_hex_takes_the_higher_level_and_says_so():
    centre = cell("")
    m = open_sea(3, sea_zones=lambda c: frozenset({"Mare A", "Mare B"}) if c == centre else frozenset({"Mare A"}))
    state = dataclasses.replace(m.state([(1, "carthago", ""), (9, "roma", "3")]),
                                superiority={"Mare A": {"carthago": 1, "roma": 2}, "Mare B": {"carthago": 3}})
    r = resolve_naval_battles(m.board, state, [(1, 9)], (2, 2))
    one = r.battles[0].navies[0]
    assert (one.superiority, one.zone, dict(one.zone_levels)) == (3, "Mare B", {"Mare A": 1, "Mare B": 3})
    assert "navy 1: 2+3 (border hex (Mare A 1, Mare B 3): the higher level counts)" in r.battles[0].text


def test_bad_groups_are_refused():
    m = open_sea(3)
    state = m.state([(1, "carthago", ""), (2, "carthago", "3"), (9, "roma", "9")])
    land = sketch(radius=2)
    with pytest.raises(ValueError, match="all of one faction"):
        resolve_naval_battles(m.board, state, [(1, 2)], (0, 0))
    with pytest.raises(ValueError, match="already in another battle"):
        resolve_naval_battles(m.board, state, [(1, 9), (2, 9)], (0, 0))
    with pytest.raises(ValueError, match="army 7 does not exist"):
        resolve_naval_battles(m.board, state, [(1, 7)], (0, 0))
    on_land = land.state([(1, "carthago", ""), (9, "roma", "3")])
    with pytest.raises(ValueError, match="army 1 is not a navy"):
        resolve_naval_battles(land.board, on_land, [(1, 9)], (0, 0))
