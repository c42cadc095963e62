"""Orders at sea: embarking, navies' paths, sea links, the influence cap (seed, "Navies", "Lines of logistics").

The board: the sea lies west of the centre.  Coast hexes "9", "11", "9 11" and "7 9", Sea "9 9",
Ocean "9 9 9".  "7 9" is Mare Sardoum, the rest Mare Tyrrhenum.  Roma holds Ostia (the centre,
on the coast of Mare Tyrrhenum), Antium ("7", on both zones' coasts) and Lanuvium ("3", inland);
Carthago holds Capua ("3 3", inland) and Caere ("11 11", on the coast of Mare Tyrrhenum).
"""

from dataclasses import replace

import pytest

from bellica.engine.vae_victis.model import ArmyOrders, Siege
from bellica.engine.vae_victis.movement import resolve_movement
from bellica.engine.vae_victis.orders import (
    IllegalOrderError,
    OrderSyntaxError,
    army_orders_from_cli,
    check_orders,
    influence_cap,
    moves_by_sea,
    parse_orders_text,
    sea_movers,
    validate_orders,
)
from tests.engine.boards import sketch

T, S = "Mare Tyrrhenum", "Mare Sardoum"
WATER = {"9": "coast", "11": "coast", "9 11": "coast", "9 9": "sea", "7 9": "coast", "9 9 9": "ocean", "5 5": "lake"}
TM = sketch(
    radius=4,
    water=WATER,
    sea_zones={**{r: [T] for r in WATER if r not in ("7 9", "5 5")}, "7 9": [S]},
    structures=[
        ("Ostia", "town", "", "roma"),
        ("Antium", "town", "7", "roma"),
        ("Lanuvium", "town", "3", "roma"),
        ("Capua", "city", "3 3", "carthago"),
        ("Caere", "town", "11 11", "carthago"),
    ],
)
ARMIES = [(9, "roma", ""), (10, "roma", "3"), (11, "roma", "7"), (1, "carthago", "3 3"), (2, "carthago", "11 11")]


def state(armies=ARMIES, **kw):
    extra = {k: kw.pop(k) for k in ("superiority", "navy_rest") if k in kw}
    return replace(TM.state(armies, **kw), **extra)


def orders(**moves):
    return {int(k[1:]): ArmyOrders(int(k[1:]), tuple(int(x) for x in v.split())) for k, v in moves.items()}


def problems(s, o, faction="roma", **kw):
    return check_orders(TM.board, s, faction, o, **kw)


# --- embarking and navies' paths -----------------------------------------------------------------


def test_an_army_in_a_coastal_town_embarks_and_moves_over_coast_and_sea():
    # Seed: "the army 'becoming' a navy once it enters its first non-land (Coast or Sea) hex".
    s = state()
    for moves in ("9 11 3", "9 9", "0 9 0 11", "11 9"):
        o = orders(a9=moves)
        assert problems(s, o) == [], moves
        assert moves_by_sea(TM.board, s, s.armies[2], o[9].moves)  # army 9 (sorted: 1, 2, 9, ...)


@pytest.mark.parametrize("moves, index, words", [
    ("9 9 9", 3, "ocean hex: a navy moves only over Coast and Sea hexes"),
    ("9 3", 2, "land hex: a navy moves only over Coast and Sea hexes; it debarks by the administration's"),
    ("9 1 1", 3, "land hex"),  # "9" -> "11" -> "11 1", land
])
def test_a_naval_path_never_enters_ocean_lake_or_land(moves, index, words):
    (p,) = problems(state(), orders(a9=moves))
    assert p.index == index and words in p.message


def test_lakes_are_no_navys_water():
    from bellica.engine.vae_victis.orders import naval_impassable_reason

    assert naval_impassable_reason(TM.board, TM.cell("5 5")) == "lake hex: a navy moves only over Coast and Sea hexes"
    assert naval_impassable_reason(TM.board, TM.cell("9 9")) is None


@pytest.mark.parametrize("why, kw", [
    ("Ostia is besieged", {"sieges": [Siege("Ostia", "carthago", (1,), 3, 3, 1)]}),
    ("it lost a naval battle and may not act as a navy until round 2", {"navy_rest": {9: 1}}),
])
def test_a_besieged_or_resting_army_cannot_embark(why, kw):
    (p,) = problems(state(**kw), orders(a9="9 11"))
    assert p.index == 1 and "(coast): it cannot embark here: " + why in p.message


def test_a_blockaded_port_cannot_embark_blockade_read_from_the_state_by_default():
    # Carthaginian army 2 at sea on "11", next to Ostia: Ostia is blockaded (seed, "Blockades").
    s = state([(9, "roma", ""), (2, "carthago", "11")])
    (p,) = problems(s, orders(a9="9 9"))
    assert "it cannot embark here: Ostia is blockaded" in p.message
    # The caller may pass the blockades it computed (here: none).
    assert problems(s, orders(a9="9 9"), blockaded=frozenset()) == []
    assert sea_movers(TM.board, s, orders(a9="9 9")) == {2}  # army 9 stays on land; army 2 is at sea


def test_a_land_army_next_to_the_coast_but_not_in_a_port_cannot_enter_the_water():
    # "9 9 11" is land on the far shore, next to the Sea hex "9 9".
    (p,) = problems(state([(12, "roma", "9 9 11")]), orders(a12="5"))
    assert p.index == 1 and "(sea): it cannot embark here: it is not in a Town or City" in p.message


def test_a_port_on_a_strait_crosses_it_or_embarks():
    # Ostia touches the strait "11": "11 1" crosses it (a land move), "11 9" embarks, and when
    # army 9 may not embark the problem says both.
    s = state()
    assert problems(s, orders(a9="11 1")) == [] and not moves_by_sea(TM.board, s, s.armies[2], (11, 1))
    assert problems(s, orders(a9="11 9")) == [] and moves_by_sea(TM.board, s, s.armies[2], (11, 9))
    (p,) = problems(state(navy_rest={9: 1}), orders(a9="11 9"))
    assert "does not land on the hex across it" in p.message and "nor can it embark here: it lost a naval" in p.message


def test_a_land_army_cannot_mix_land_and_sea_moves():
    # Army 10 marches from Lanuvium into Ostia, then on into the water: it embarks only from where it
    # ended the last round, with its first move.
    s = state()
    o = orders(a10="9 9")
    (p,) = problems(s, o)
    assert p.index == 2 and "coast hex (water: armies on land cannot enter it" in p.message
    assert "cannot embark" not in p.message
    assert not moves_by_sea(TM.board, s, next(a for a in s.armies if a.id == 10), o[10].moves)


def test_a_navy_at_sea_walks_naval_moves():
    s = state([(12, "roma", "9 11")])
    assert problems(s, orders(a12="5 9 3")) == []  # "9", "9 9", "9"
    (p,) = problems(s, orders(a12="1"))  # "11 11": Caere, land
    assert p.index == 1 and "land hex" in p.message and "debark" in p.message
    assert sea_movers(TM.board, s, {}) == {12}  # at sea, with orders or not


def test_naval_strings_may_be_longer_than_the_land_cap():
    # Roma has level 1 in Mare Tyrrhenum and 0 in Mare Sardoum: 24 NMP, a Coast move costs 1 NMP.
    s = state(superiority={T: {"roma": 1}, S: {"roma": 0}})
    back_and_forth = " ".join(["9"] + ["11", "5"] * 11 + ["11"])  # 24 moves between "9" and "9 11"
    assert problems(s, orders(a9=back_and_forth)) == []
    (p,) = problems(s, orders(a9=back_and_forth + " 5"))
    assert "25 moves, but roma's navies have 24 NMP this round over all sea zones" in p.message
    assert "at most 24 moves" in p.message
    # A land army keeps the land cap.
    (p,) = problems(s, orders(a10=" ".join(["0"] * 13)))
    assert "at most 12 moves" in p.message


def test_resolve_movement_leaves_armies_moving_by_sea_to_the_naval_simulation():
    s = state([(9, "roma", ""), (12, "roma", "9 11"), (1, "carthago", "1 1")])
    o = orders(a9="9 9", a12="5", a1="7 3")  # army 1: "1 1" -> "1" (next to Ostia) -> "1 3"
    naval = sea_movers(TM.board, s, o)
    assert naval == {9, 12}
    r = resolve_movement(TM.board, s, o, naval=naval)
    assert set(r.paths) == {1} and set(r.mp_spent) == {1}
    assert {e.data["army"] for e in r.events if e.kind in ("army_moved", "army_stayed")} == {1}
    cells = {a.id: a.cell for a in r.state.armies}
    assert cells[9] == TM.cell("") and cells[12] == TM.cell("9 11")  # the naval simulation moves them
    # Army 9, embarking, exerts no army ZoC: army 1 passes next to Ostia.
    assert r.paths[1] == (TM.cell("1 1"), TM.cell("1"), TM.cell("1 3")) and 1 not in r.halted
    # Standing in Ostia as a land army, army 9 would halt it there.
    r = resolve_movement(TM.board, s, orders(a1="7 3"), naval={12})
    assert r.paths[1][-1] == TM.cell("1") and r.halted[1].kind == "zoc" and "army 9 (roma)" in r.halted[1].text


def test_an_embarking_army_still_holds_its_port_on_land():
    s = state([(9, "roma", ""), (1, "carthago", "3")])
    o = orders(a9="9 9", a1="9")  # carthago walks into Ostia while army 9 embarks
    r = resolve_movement(TM.board, s, o, naval={9})
    assert r.paths[1] == (TM.cell("3"),) and r.halted[1].kind == "occupied" and "army 9" in r.halted[1].text


# --- sea links ----------------------------------------------------------------------------------


def test_sea_links_syntax_in_orders_files_and_on_the_command_line():
    f = parse_orders_text('faction = "roma"\n[armies.9]\nmoves = ""\n'
                          'sea_links = { "Mare Tyrrhenum" = ["Antium", "Ostia"], "Mare Sardoum" = ["Antium"] }\n')
    assert f.orders[9].sea_links == ((T, "Antium"), (T, "Ostia"), (S, "Antium"))
    assert army_orders_from_cli(9, "", sea_links=["Mare Tyrrhenum:Antium", "Mare Sardoum:Antium"]).sea_links == (
        (T, "Antium"), (S, "Antium"))
    for bad in ('sea_links = ["Antium"]', 'sea_links = { "Mare Tyrrhenum" = "Antium" }',
                'sea_links = { "Mare Tyrrhenum" = [3] }'):
        with pytest.raises(OrderSyntaxError, match="sea_links"):
            parse_orders_text(f'[armies.9]\nmoves = ""\n{bad}\n')
    with pytest.raises(OrderSyntaxError, match="is not ZONE:STRUCTURE"):
        army_orders_from_cli(9, "", sea_links=["Antium"])
    with pytest.raises(OrderSyntaxError, match="did you mean 'sea_links'"):
        parse_orders_text('[armies.9]\nmoves = ""\nsea_link = {}\n')


def links(army, *pairs):
    return ArmyOrders(army, sea_links=tuple(pairs))


@pytest.mark.parametrize("pair, words", [
    (("Mare Tyrhenum", "Antium"), "'Mare Tyrhenum' is not a sea zone (did you mean 'Mare Tyrrhenum'?)"),
    ((T, "Antum"), "no structure named 'Antum' (did you mean 'Antium'?)"),
    ((T, "Caere"), "Caere is controlled by carthago, not roma"),
    ((T, "Lanuvium"), "Lanuvium is not adjacent to a Coast hex of Mare Tyrrhenum"),
    ((S, "Ostia"), "Ostia is not adjacent to a Coast hex of Mare Sardoum"),
])
def test_sea_link_targets_are_the_factions_coastal_structures(pair, words):
    (p,) = problems(state(), {9: links(9, pair)})
    assert p.field == "sea_links" and words in p.message


def test_sea_link_targets_must_be_unsieged_and_unblockaded():
    besieged = state(sieges=[Siege("Antium", "carthago", (1,), 3, 3, 1)])
    (p,) = problems(besieged, {9: links(9, (T, "Antium"))})
    assert "Antium is besieged" in p.message
    blockaded = state([(9, "roma", "3"), (2, "carthago", "11")])  # a Carthaginian navy next to Ostia
    (p,) = problems(blockaded, {9: links(9, (T, "Ostia"))})
    assert "Ostia is blockaded" in p.message
    assert problems(blockaded, {9: links(9, (T, "Antium"))}) == []


def test_at_most_the_superiority_level_of_targets_per_zone_over_all_the_factions_orders():
    # Seed: "extending to not more of such other Towns and Cities ... than the faction's Naval
    # superiority level in that sea zone (i.e., with a Naval Superiority level of zero, a
    # logistics line can not extend across that sea zone at all)".
    one = state(superiority={T: {"roma": 1}})
    both = {9: links(9, (T, "Antium")), 10: links(10, (T, "Ostia"))}
    (p,) = problems(one, both)
    assert p.army == 10 and "names 2 sea-link target(s) in Mare Tyrrhenum (Antium, Ostia)" in p.message
    assert "its naval superiority there is 1, so at most 1" in p.message
    assert problems(state(), both) == []  # base level 2
    # A target named twice counts once.
    assert problems(one, {9: links(9, (T, "Antium"), (T, "Antium")), 10: links(10, (T, "Antium"))}) == []
    # Zones count separately.
    assert problems(one, {9: links(9, (T, "Antium"), (S, "Antium"))}) == []
    zero = state(superiority={T: {"roma": 0}})
    (p,) = problems(zero, {9: links(9, (T, "Antium"))})
    assert "superiority there is 0, so at most 0" in p.message


# --- the influence cap ---------------------------------------------------------------------------


def with_cap_option(option):
    rules = TM.board.rules
    return replace(TM.board, rules=replace(rules, naval=replace(rules.naval, influence_cap=option)))


def test_influence_cap_multiplier_and_count():
    # Carthago holds one coastal structure on Mare Tyrrhenum (Caere).  "multiplier": 2 x 1 (the
    # rules text: "2 times (for Carthago...)"); "count": 1 (the umpire's restatement).
    s = state()
    two = {1: ArmyOrders(1, initiative=T), 2: ArmyOrders(2, initiative=T)}
    assert influence_cap(TM.board, s, "carthago", T) == 2
    assert check_orders(TM.board, s, "carthago", two) == []
    counted = with_cap_option("count")
    assert influence_cap(counted, s, "carthago", T) == 1
    (p,) = check_orders(counted, s, "carthago", two)
    assert "may assign at most 1: its controlled unbesieged" in p.message  # no "x" multiplier in the words
    # Roma: multiplier 1 either way; Ostia and Antium on Mare Tyrrhenum.
    assert influence_cap(TM.board, s, "roma", T) == influence_cap(counted, s, "roma", T) == 2


def test_blockaded_structures_never_count_for_the_influence_cap():
    # A Roman navy on "9 11", next to Caere: Caere is blockaded, so Carthago may assign nothing there.
    s = state([(1, "carthago", "3 3"), (2, "carthago", "11 11"), (12, "roma", "9 11")])
    assert influence_cap(TM.board, s, "carthago", T) == 0  # blockades read from the state by default
    assert influence_cap(TM.board, s, "carthago", T, blockaded=frozenset()) == 2
    with pytest.raises(IllegalOrderError, match="at most 0"):
        validate_orders(TM.board, s, "carthago", {1: ArmyOrders(1, initiative=T)})
