"""Naval movement, debarking, loss at sea and battle grouping (seed, "Navies", "Naval movement").

The seed's own numbers are the tests: 24 NMP per Naval Superiority point (the base level 2 gives
a 48 NMP pool), "to be shared by all navies of a faction moving in that sea zone"; Coast 1 NMP,
Sea 4 NMP; debarking into a Town or City 2, Farmlands or Desert 4, Hills 8; a navy halts on
entering the ZoC of another faction's controlled structure or navy (and fights in the latter);
a navy ending the round in a Sea hex is irrevocably eliminated; the #1/#9/#10/#2 battle chain.
"""

from __future__ import annotations

import dataclasses

import h3
import pytest

from bellica.engine.vae_victis.model import Siege
from bellica.engine.vae_victis.naval import (
    can_embark,
    debark,
    lost_at_sea,
    naval_step_cost,
    nmp_pools,
    resolve_naval_movement,
)
from bellica.engine.vae_victis.naval_battles import battle_groups
from bellica.engine.vae_victis.orders import IllegalOrderError, sea_movers
from bellica.engine.vae_victis.rules import rules_with
from bellica.geo.errors import InputError
from tests.engine.boards import cell, move_orders, sketch

T, A = "Mare Tyrrhenum", "Mare Africum"


def open_sea(radius=3, land=(), sea=(), water=None, zones=None, structures=(), terrain=None, options=None):
    """Coast hexes everywhere but ``land`` (refs), the structures' hexes and ``water`` (ref: kind);
    ``sea``: refs of Sea hexes; ``zones``: {ref: [zones]} (every other water hex in Mare Tyrrhenum);
    ``options``: naval options of the rules file."""
    land_cells = {cell(r) for r in land} | {cell(s[2]) for s in structures} | {cell(r) for r in (terrain or {})}
    kinds = {cell(r): "sea" for r in sea} | {cell(r): k for r, k in (water or {}).items()}
    all_water = {c: kinds.get(c, "coast") for c in h3.grid_disk(cell(""), radius) if c not in land_cells}
    named = {cell(r): z for r, z in (zones or {}).items()}
    sea_zones = {c: named.get(c, [T]) for c, k in all_water.items() if k in ("coast", "sea", "ocean")}
    m = sketch(radius=radius, water=all_water, structures=structures, terrain=terrain, sea_zones=sea_zones)
    if options:
        m = dataclasses.replace(m, board=dataclasses.replace(m.board, rules=rules_with({"options": options})))
    return m


def sail(m, state, moves, movers=None, **kw):
    orders = move_orders(moves)
    return resolve_naval_movement(m.board, state, orders, movers=set(moves) if movers is None else movers, **kw)


def path(m, *refs):
    return tuple(m.cell(r) for r in refs)


# --- pools and costs ------------------------------------------------------------------------


def test_superiority_two_gives_48_nmp_a_zone():
    m = open_sea(zones={"3": [A]})
    s = m.state()
    assert nmp_pools(m.board, s, "roma") == {A: 48, T: 48}  # 2 x 24
    s = dataclasses.replace(s, superiority={T: {"roma": 3, "carthago": 0}})
    assert nmp_pools(m.board, s, "roma") == {A: 48, T: 72}
    assert nmp_pools(m.board, s, "carthago") == {A: 48, T: 0}


def test_coast_1_sea_4_and_no_ocean_lake_or_land():
    m = open_sea(land=["1"], sea=["3"], water={"9": "ocean", "5": "lake"})
    b = m.board
    assert naval_step_cost(b, m.cell("")) == 1
    assert naval_step_cost(b, m.cell("3")) == 4
    assert [naval_step_cost(b, m.cell(r)) for r in ("9", "5", "1")] == [None, None, None]


def test_a_sea_and_a_coast_move_cost_5_nmp():
    m = open_sea(sea=["3"])
    r = sail(m, m.state([(6, "roma", "")]), {6: "3 3"})
    assert r.paths[6] == path(m, "", "3", "3 3")
    assert r.nmp_spent == {"roma": {T: 5}}
    assert r.nmp_left["roma"][T] == 43 and r.nmp_left["carthago"][T] == 48
    assert r.state.army(6).cell == m.cell("3 3")
    e = r.events[0]
    assert e.kind == "navy_moved" and e.data["nmp_spent"] == 5 and e.data["nmp_by_zone"] == {T: 5}
    assert e.data["halt"] is None
    assert e.text == f"navy 6 (roma) sailed {m.cell('')} → {m.cell('3')} → {m.cell('3 3')}, 5 NMP (Mare Tyrrhenum 5)"


def test_the_48_nmp_pool_pays_12_sea_moves_and_the_13th_stops_the_navy():
    m = open_sea(sea=["", "3"])
    r = sail(m, m.state([(6, "roma", "")]), {6: " ".join(["3", "9"] * 7)})
    assert len(r.paths[6]) == 13  # start + 12 moves of 4 NMP
    assert r.nmp_spent == {"roma": {T: 48}} and r.nmp_left["roma"][T] == 0
    h = r.halted[6]
    assert h.kind == "nmp" and h.move == 13 and "costs 4 NMP" in h.text


def test_a_move_through_two_zones_is_paid_by_each_zone():
    m = open_sea(sea=["3", "3 3"], zones={"3": [A], "3 3": [A], "3 3 3": [A]})
    r = sail(m, m.state([(6, "carthago", "9")]), {6: "3 3 3 3"})
    assert r.paths[6] == path(m, "9", "", "3", "3 3", "3 3 3")
    assert r.nmp_spent == {"carthago": {A: 9, T: 1}}
    assert r.events[0].data["nmp_by_zone"] == {A: 9, T: 1}
    assert "10 NMP (Mare Africum 9, Mare Tyrrhenum 1)" in r.events[0].text


def test_in_a_zone_with_0_nmp_the_navy_cannot_move_and_stays_without_loss():
    # The thread: "If a navy is in a sea zone where it's faction has 0 movement points available,
    # I assume it cannot move or debark. Does is suffer any negative consequences?"  It stays.
    m = open_sea(land=["1"])
    s = dataclasses.replace(m.state([(6, "roma", "")]), superiority={T: {"roma": 0}})
    r = sail(m, s, {6: "3"})
    assert r.paths[6] == path(m, "") and r.state.army(6).cell == m.cell("")
    assert r.halted[6].kind == "nmp" and r.nmp_spent == {}
    assert r.events[0].kind == "navy_stayed" and "stayed in" in r.events[0].text
    after, events = lost_at_sea(m.board, r.state)
    assert after.army(6).cell == m.cell("") and events == ()
    d = debark(m.board, r.state, 6, 1, r.nmp_left)
    assert not d.landed and d.event.kind == "debark_refused" and "NMP" in d.event.text


# --- sharing a pool ---------------------------------------------------------------------------

def _two_navies(option):
    # Navy 1 orders five Sea moves (20 NMP), navy 2 two (8 NMP); roma has 1 point: 24 NMP.
    m = open_sea(radius=3, sea=["9 9", "9", "", "3", "3 3", "7", "5"], options={"nmp_sharing": option})
    s = dataclasses.replace(m.state([(1, "roma", "9 9 9"), (2, "roma", "7 9")]), superiority={T: {"roma": 1}})
    return m, sail(m, s, {1: "3 3 3 3 3", 2: "3 3"})


def test_first_come_pool_is_spent_move_by_move_lower_army_first():
    m, r = _two_navies("first_come")
    assert r.paths[1] == path(m, "9 9 9", "9 9", "9", "", "3")  # 16 NMP
    assert r.paths[2] == path(m, "7 9", "7", "5")  # 8 NMP
    assert r.nmp_spent == {"roma": {T: 24}} and r.halted[1].kind == "nmp" and 2 not in r.halted


def test_equal_sharing_gives_each_navy_half_the_pool():
    m, r = _two_navies("equal")
    assert r.paths[1] == path(m, "9 9 9", "9 9", "9", "")  # 12 NMP of its 12
    assert r.paths[2] == path(m, "7 9", "7", "5")  # 8 of its 12
    assert r.nmp_spent == {"roma": {T: 20}} and r.nmp_left["roma"][T] == 4
    assert "its share of" in r.halted[1].text


# --- border hexes ----------------------------------------------------------------------------

def _border(option, levels):
    m = open_sea(zones={"3": [T, A], "3 3": [A]}, options={"border_pool": option})
    s = dataclasses.replace(m.state([(6, "roma", "")]), superiority={T: {"roma": levels[0]}, A: {"roma": levels[1]}})
    return sail(m, s, {6: "3 3"})


def test_border_hex_paid_by_the_richest_zone():
    r = _border("richest", (1, 3))  # Tyrrhenum 24, Africum 72
    assert r.nmp_spent == {"roma": {A: 2}}
    r = _border("richest", (3, 1))
    assert r.nmp_spent == {"roma": {T: 1, A: 1}}


def test_border_hex_paid_by_the_zone_it_came_from():
    r = _border("came_from", (1, 3))  # came from a Tyrrhenum hex: Tyrrhenum pays the border hex
    assert r.nmp_spent == {"roma": {T: 1, A: 1}}
    r = _border("came_from", (0, 3))  # nothing left there: the hex's other zone pays
    assert r.nmp_spent == {"roma": {A: 2}}


# --- halts ------------------------------------------------------------------------------------

def test_halts_on_entering_an_enemy_town_coast_zoc():
    m = open_sea(structures=[("Panormus", "town", "1 3", "carthago")])
    r = sail(m, m.state([(6, "roma", "9 9")]), {6: "3 3 3 3"})
    assert r.paths[6] == path(m, "9 9", "9", "", "3")  # "3" is a Coast hex next to the town
    h = r.halted[6]
    assert h.kind == "zoc" and h.by == ("Panormus (carthago)",) and h.move == 3
    assert r.engaged == frozenset() and r.nmp_left["roma"][T] == 45
    assert r.events[0].text.endswith("halted by ZoC of Panormus (carthago)")


def test_city_coast_zoc_reaches_two_hexes():
    m = open_sea(structures=[("Lilybaeum", "city", "1 3 3", "carthago")])
    r = sail(m, m.state([(6, "roma", "9 9")]), {6: "3 3 3 3"})
    assert r.paths[6][-1] == m.cell("3")  # two hexes from the city


@pytest.mark.parametrize("controller, siege", [(None, False), ("carthago", True), ("roma", False)])
def test_no_halt_at_an_own_uncontrolled_or_besieged_structure(controller, siege):
    m = open_sea(structures=[("Panormus", "town", "1 3", controller)])
    sieges = [Siege("Panormus", "roma", (7,), 5, 5, 1)] if siege else []
    s = m.state([(6, "roma", "9 9")], sieges=sieges)
    r = sail(m, s, {6: "3 3 3 3"})
    assert r.paths[6][-1] == m.cell("3 3") and 6 not in r.halted


def test_halts_and_fights_on_entering_an_enemy_navy_zoc():
    m = open_sea(zones={"3 3": [A], "3 3 3": [A], "3": [A]})
    s = m.state([(6, "carthago", "9 9"), (12, "roma", "3 3 3")])
    r = sail(m, s, {6: "3 3 3 3"})
    assert r.paths[6] == path(m, "9 9", "9", "", "3", "3 3")
    assert r.halted[6].kind == "zoc" and r.halted[6].by == ("navy 12 (roma)",)
    assert r.engaged == {6}
    a, b, c, d, e = (m.cell(x) for x in ("9 9", "9", "", "3", "3 3"))
    assert r.events[0].text == (f"navy 6 (carthago) sailed {a} → {b} → {c} → {d} → {e}, 4 NMP "
                                "(Mare Africum 2, Mare Tyrrhenum 2), halted by ZoC of navy 12 (roma)")
    assert battle_groups(m.board, r.state) == ((6, 12),)


def test_navies_sailing_at_each_other_both_halt_in_each_others_zoc():
    m = open_sea()
    r = sail(m, m.state([(6, "roma", "9 9 9"), (12, "carthago", "3 3")]), {6: "3 3 3 3", 12: "9 9 9"})
    assert r.paths[6][-1] == m.cell("9") and r.paths[12][-1] == m.cell("")
    assert r.engaged == {6, 12}


def test_enemy_navies_entering_one_hex_at_once_both_stop_before_it():
    m = open_sea()
    r = sail(m, m.state([(6, "roma", "9"), (12, "carthago", "3")]), {6: "3 3", 12: "9 9"})
    assert r.paths[6] == path(m, "9") and r.paths[12] == path(m, "3")
    assert r.halted[6].kind == r.halted[12].kind == "contest" and r.engaged == frozenset()


def test_a_hex_held_by_an_enemy_navy_is_not_entered_and_they_do_not_pass():
    m = open_sea()
    r = sail(m, m.state([(6, "roma", "9"), (12, "carthago", "")]), {6: "3 3"})
    assert r.paths[6] == path(m, "9") and r.halted[6].kind == "occupied" and "held by navy 12" in r.halted[6].text
    r = sail(m, m.state([(6, "roma", ""), (12, "carthago", "3")]), {6: "3", 12: "9"})
    assert r.paths[6] == path(m, "") and r.paths[12] == path(m, "3")
    assert "cannot pass each other" in r.halted[6].text


def test_a_zero_waits_a_step_for_free():
    # Carthaginian navy 12 leaves hex "" at move 1; roma's navy 6 waits one move, then sails in behind.
    m = open_sea()
    s = m.state([(6, "roma", "9 9 9"), (12, "carthago", "")])
    r = sail(m, s, {6: "0 3", 12: "3 3 3"})
    assert r.paths[6] == path(m, "9 9 9", "9 9") and r.paths[12] == path(m, "", "3", "3 3", "3 3 3")
    assert r.nmp_spent["roma"] == {T: 1} and r.events[0].data["waits"] == [1]
    assert "waited at move 1" in r.events[0].text


def test_friendly_navies_pass_through_but_never_end_in_one_hex():
    m = open_sea()
    s = m.state([(6, "roma", "9 9"), (7, "roma", "")])
    r = sail(m, s, {6: "3 3 3"})
    assert r.paths[6][-1] == m.cell("3") and 6 not in r.halted
    r = sail(m, s, {6: "3 3"})
    assert r.paths[6] == path(m, "9 9", "9") and r.stepped_back == {6: (m.cell(""),)}
    assert r.halted[6].kind == "friendly" and r.nmp_spent == {"roma": {T: 1}}


# --- illegal orders ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind, words", [("ocean", "never enter Ocean"), ("lake", "Coast and Sea hexes only")])
def test_ocean_and_lake_are_refused(kind, words):
    m = open_sea(water={"3": kind})
    with pytest.raises(IllegalOrderError, match=words):
        sail(m, m.state([(6, "roma", "")]), {6: "3"})


def test_a_navy_cannot_sail_onto_land():
    m = open_sea(land=["3"])
    with pytest.raises(IllegalOrderError, match="land hex .*debarking"):
        sail(m, m.state([(6, "roma", "9")]), {6: "3 3"})


# --- embarking --------------------------------------------------------------------------------

def _port(**state_kw):
    m = open_sea(structures=[("Ostia", "town", "1", "roma")])
    return m, m.state([(9, "roma", "1")], **state_kw)


def test_an_army_embarks_from_its_coastal_town():
    m, s = _port()
    orders = move_orders({9: "7 9"})
    assert sea_movers(m.board, s, orders) == {9}
    r = resolve_naval_movement(m.board, s, orders, movers={9})
    assert r.paths[9] == path(m, "1", "", "9") and r.nmp_spent == {"roma": {T: 2}}
    assert r.events[0].data["embarked"] and r.events[0].text.startswith(f"army 9 (roma) embarked at {m.cell('1')} (Ostia)")


def test_an_embarking_army_sails_only():
    m, s = _port()
    with pytest.raises(IllegalOrderError, match="land hex"):
        sail(m, s, {9: "7 1"})


@pytest.mark.parametrize("why", ["blockaded", "besieged", "resting"])
def test_embarking_refused_when_blockaded_besieged_or_resting(why):
    m, s = _port()
    if why == "blockaded":
        s = m.state([(9, "roma", "1"), (12, "carthago", "3")])
    elif why == "besieged":
        s = dataclasses.replace(s, sieges=(Siege("Ostia", "carthago", (12,), 5, 5, 1),))
    else:
        s = dataclasses.replace(s, navy_rest={9: 1})
    reason = can_embark(m.board, s, s.army(9))
    assert reason is not None and (why in reason or "naval battle" in reason)
    assert sea_movers(m.board, s, move_orders({9: "7"})) == ({12} if why == "blockaded" else set())
    with pytest.raises(IllegalOrderError, match="cannot move by sea"):
        sail(m, s, {9: "7"}, movers={9})


def test_sea_movers_are_navies_at_sea_and_embarking_armies():
    m = open_sea(land=["9 9"], structures=[("Ostia", "town", "1", "roma")])
    s = m.state([(9, "roma", "1"), (10, "roma", "9 9"), (6, "carthago", "3 3"), (7, "carthago", "5 5")])
    assert sea_movers(m.board, s, move_orders({9: "0 7", 10: "3", 6: "3"})) == {9, 6, 7}
    assert sea_movers(m.board, s, {}) == {6, 7}  # navies at sea sail (or stay) without orders


# --- debarking --------------------------------------------------------------------------------

def _shore(terrain="farmlands", structures=(), armies=()):
    m = open_sea(terrain={"1": terrain} if not structures else None, land=["1", "1 1"], structures=structures)
    s = m.state([(6, "roma", "")] + list(armies))
    return m, s, {"roma": nmp_pools(m.board, s, "roma")}


@pytest.mark.parametrize("terrain, nmp", [("farmlands", 4), ("desert", 4), ("hills", 8)])
def test_debark_costs_by_terrain(terrain, nmp):
    m, s, left = _shore(terrain)
    d = debark(m.board, s, 6, 1, left)
    assert d.landed and d.nmp == nmp and d.zone == T and d.state.army(6).cell == m.cell("1")
    assert d.event.kind == "navy_debarked"


@pytest.mark.parametrize("kind, controller", [("town", "roma"), ("city", None)])
def test_debark_into_own_or_uncontrolled_town_or_city_costs_2(kind, controller):
    m, s, left = _shore(structures=[("Ostia", kind, "1", controller)])
    d = debark(m.board, s, 6, 1, left)
    assert d.landed and d.nmp == 2


@pytest.mark.parametrize("terrain", ["mountains", "forests", "marshes", "peaks"])
def test_debark_onto_other_terrain_is_an_error(terrain):
    m, s, left = _shore(terrain)
    with pytest.raises(InputError, match=f"is {terrain}: a navy debarks only onto farmlands, desert, hills"):
        debark(m.board, s, 6, 1, left)


def test_debark_static_mistakes_are_errors():
    m, s, left = _shore(structures=[("Panormus", "town", "1", "carthago")])
    with pytest.raises(InputError, match="controlled by carthago"):
        debark(m.board, s, 6, 1, left)
    with pytest.raises(InputError, match="coast hex"):
        debark(m.board, s, 6, 3, left)
    s2 = m.state([(6, "roma", "1 1")])
    with pytest.raises(InputError, match="not a navy"):
        debark(m.board, s2, 6, 1, left)


def test_debark_into_enemy_zoc_stays_at_sea():
    # The thread: "in case an enemy army has the town within its ZoC, you can not debark there ...
    # you can stay as a navy at sea".
    m, s, left = _shore(structures=[("Ostia", "town", "1", "roma")], armies=[(12, "carthago", "1 1")])
    d = debark(m.board, s, 6, 1, left)
    assert not d.landed and d.nmp == 0 and d.state is s
    assert d.event.kind == "debark_refused" and "ZoC of army 12 (carthago)" in d.event.text
    assert "stays at sea" in d.event.text


def test_debark_refused_in_enemy_city_zoc_or_onto_an_army():
    m, s, left = _shore(structures=[("Lilybaeum", "city", "1 1", "carthago")])
    d = debark(m.board, s, 6, 1, left)
    assert not d.landed and "Lilybaeum (carthago)" in d.event.data["reason"]
    m, s, left = _shore(armies=[(7, "roma", "1")])
    d = debark(m.board, s, 6, 1, left)
    assert not d.landed and "army 7 (roma) is in that hex" in d.event.text
    d = debark(m.board, m.state([(6, "roma", "")]), 6, 1, {"roma": {T: 3}})
    assert not d.landed and "costs 4 NMP" in d.event.text


# --- the round's end and naval battles --------------------------------------------------------

def test_lost_at_sea_on_a_sea_hex_but_not_on_a_coast_hex():
    m = open_sea(sea=["3"], land=["1"])
    s = m.state([(6, "roma", "3", 700), (7, "roma", ""), (8, "carthago", "1")])
    after, events = lost_at_sea(m.board, s)
    assert after.army(6).eliminated and after.army(6).cell is None
    assert not after.army(7).eliminated and not after.army(8).eliminated
    assert [e.kind for e in events] == ["navy_lost_at_sea"] and "irrevocably eliminated" in events[0].text


def test_a_navy_ending_on_a_sea_hex_is_warned():
    m = open_sea(sea=["3"])
    r = sail(m, m.state([(6, "roma", "")]), {6: "3"})
    assert "lost at the round's end unless it debarks" in r.events[0].text


def test_naval_superiority_with_the_seeds_example():
    # Seed, "Naval superiority": "For Mare Tyrrhenum, Carthago has assigned 3 Influence points, Roma 2, and
    # Syracusae 0. Carthage's Naval Superiority level in Mare Tyrrhenum is thus 3 (2 + (3 - 2) = 3), Roma's 1
    # (2 + (2 - 3) = 1), and Syracusae's 0 (2 + (0 - 3) = -1 but subject to floor of zero = 0)."
    from bellica.engine.vae_victis.rounds.initiative_step import naval_superiority

    m = sketch(radius=1, water={"3": "coast"}, sea_zones={"3": ["Mare Tyrrhenum"]})
    uses = {1: "Mare Tyrrhenum", 2: "Mare Tyrrhenum", 3: "Mare Tyrrhenum", 9: "Mare Tyrrhenum", 10: "Mare Tyrrhenum",
            20: "strength"}
    factions = {1: "carthago", 2: "carthago", 3: "carthago", 9: "roma", 10: "roma", 20: "syracusae"}
    levels = naval_superiority(m.board, uses, factions)
    assert levels == {"Mare Tyrrhenum": {"carthago": 3, "roma": 1, "syracusae": 0}}
    # 24 NMP per point, shared by the faction's navies in that zone (seed, "Naval movement").
    state = dataclasses.replace(m.state([]), superiority=levels)
    assert nmp_pools(m.board, state, "carthago") == {"Mare Tyrrhenum": 72}
