"""Zones of Control per the seed, in Python and in the SQL views, and their agreement."""

import pytest

from bellica.engine.vae_victis.model import Siege
from bellica.engine.vae_victis.zoc import (
    army_zoc,
    enemy_army_zoc,
    enemy_navy_zoc,
    enemy_structure_zoc,
    enemy_zoc,
    install_zoc_views,
    kept_within_army_zoc,
    structure_zoc,
    zoc_sources,
)
from tests.engine.boards import campaign_db, sketch

# West of the centre is sea: the 9-column is coast, 9 9 is open sea.
TM = sketch(
    radius=4,
    water={"9": "coast", "9 9": "sea", "9 7": "coast", "9 11": "coast", "7 9": "coast", "11 9": "coast",
           "5 5": "lake"},
    terrain={"1 1": "peaks"},
    structures=[
        ("Ostia", "town", "", "roma"),          # coastal town on the shore
        ("Capua", "city", "3 3", "roma"),       # inland city
        ("Antium", "town", "5 5 3", "carthago"),
        ("Neapolis", "city", "7", "syracusae"),  # coastal city
        ("Cumae", "town", "3 3 3", None),        # controlled by nobody
    ],
)


def c(ref):
    return TM.cell(ref)


def test_army_zoc_is_own_hex_and_land_around():
    z = army_zoc(TM.board, c(""))
    assert c("") in z and c("3") in z and c("1") in z
    assert c("9") not in z  # coast hex: armies project ZoC only onto land
    assert len(z) == 1 + sum(TM.board.hexes[n].kind == "land" for n in TM.board.sides[c("")].values())


def test_town_is_own_hex_plus_adjacent_coast():
    z = structure_zoc(TM.board, TM.board.structures["Ostia"])
    adjacent_coast = {n for n in TM.board.sides[c("")].values() if TM.board.hexes[n].kind == "coast"}
    assert z == frozenset({c("")} | adjacent_coast)
    assert c("3") not in z  # no land ZoC beyond its own hex (Antium in the seed's example)


def test_inland_city_is_one_ring_of_land():
    z = structure_zoc(TM.board, TM.board.structures["Capua"])
    assert z == frozenset({c("3 3")} | set(TM.board.sides[c("3 3")].values()))


def test_coastal_city_reaches_two_hexes_on_coast():
    z = structure_zoc(TM.board, TM.board.structures["Neapolis"])
    assert c("9 7") in z  # coast hex two steps away (Tarquinii's 2-hex naval ZoC in the seed)
    assert c("9 9") not in z  # open sea is not a Coast hex
    assert set(TM.board.sides[c("7")].values()) - {x for x in TM.board.hexes if TM.board.hexes[x].kind != "land"} <= z
    two_away_land = [x for x, h in TM.board.hexes.items()
                     if h.kind == "land" and x in z and x != c("7") and x not in TM.board.sides[c("7")].values()]
    assert two_away_land == []


def test_sieged_and_unowned_structures_have_no_zoc():
    s0 = TM.state()
    names = {z.source for z in zoc_sources(TM.board, s0) if z.kind == "structure"}
    assert "Cumae" not in names and {"Ostia", "Capua", "Antium", "Neapolis"} <= names
    s1 = TM.state(sieges=[Siege("Capua", "carthago", (1,), 2, 2, 1)])
    assert "Capua" not in {z.source for z in zoc_sources(TM.board, s1) if z.kind == "structure"}
    assert c("3 3 1") not in enemy_structure_zoc(TM.board, s1, "carthago")
    assert c("3 3 1") in enemy_structure_zoc(TM.board, s0, "carthago")


def test_enemy_zoc_excludes_own_faction():
    s = TM.state([(1, "carthago", "1 3"), (9, "roma", "5")])
    assert c("1 3 3") in enemy_army_zoc(TM.board, s, "roma")
    assert c("1 3 3") not in enemy_army_zoc(TM.board, s, "carthago")
    ez = enemy_zoc(TM.board, s, "carthago")
    assert {src.source for src in ez[c("3 3")]} == {"Capua"}
    assert all(src.faction != "carthago" for srcs in ez.values() for src in srcs)


def test_navy_zoc_is_one_ring_of_any_hex():
    z = enemy_navy_zoc(TM.board, {"carthago": [c("9 9")]}, "roma")
    assert z == frozenset({c("9 9")} | set(TM.board.sides[c("9 9")].values()))
    assert enemy_navy_zoc(TM.board, {"carthago": [c("9 9")]}, "carthago") == frozenset()


def test_besieger_keeps_structure_in_zoc():
    assert kept_within_army_zoc(TM.board, [c("3 3 1"), c("3 3 3"), c("3 3 5")], c("3 3"))
    assert not kept_within_army_zoc(TM.board, [c("3 3 1"), c("3 3 1 1")], c("3 3"))


@pytest.mark.parametrize("sieges", [(), (Siege("Neapolis", "roma", (9,), 3, 3, 1),)])
def test_sql_views_agree_with_python(sieges):
    state = TM.state(
        [(1, "carthago", "1 3"), (2, "carthago", "5 3"), (9, "roma", "7 7")],
        control={"Antium": "roma", "Cumae": None},
        sieges=sieges,
    )
    con = campaign_db(TM.board, state)
    # an extra eliminated army and a structure missing from `control` (keeps its start controller)
    con.execute("INSERT INTO armies VALUES (16, 'roma', NULL, 0, true)")
    con.execute("DELETE FROM control WHERE structure = 'Capua'")
    install_zoc_views(con)

    py = {(int(s.source), s.faction, x) for s in zoc_sources(TM.board, state) if s.kind == "army" for x in s.cells}
    assert set(con.execute("SELECT army, faction, cell FROM army_zoc").fetchall()) == py

    py = {(s.source, s.faction, x) for s in zoc_sources(TM.board, state) if s.kind == "structure" for x in s.cells}
    assert set(con.execute("SELECT structure, controller, cell FROM structure_zoc").fetchall()) == py

    py = {(s.faction, x, s.kind, s.source) for s in zoc_sources(TM.board, state) for x in s.cells}
    assert set(con.execute("SELECT faction, cell, source_kind, source FROM zoc").fetchall()) == py


def test_structure_zoc_reaches_are_rules_data_in_python_and_sql():
    """The reaches come from the campaign's rules in both the rule and its SQL view: a scenario
    that widens a Town's land reach to 1 and a City's coast reach to 3 changes both alike."""
    from dataclasses import replace

    from bellica.engine.vae_victis.rules import rules_with

    wide = replace(TM.board, rules=rules_with({"zoc": {"town_land_hexes": 1, "city_coast_hexes": 3}}))
    state = TM.state([], control={})
    ostia = wide.structures["Ostia"]
    default = structure_zoc(TM.board, ostia)
    widened = structure_zoc(wide, ostia)
    assert default < widened  # the land hexes around the town join its ZoC
    assert {wide.hexes[x].kind for x in widened - default} == {"land"}

    con = campaign_db(wide, state)
    install_zoc_views(con)
    py = {(s.source, s.faction, x) for s in zoc_sources(wide, state) if s.kind == "structure" for x in s.cells}
    assert set(con.execute("SELECT structure, controller, cell FROM structure_zoc").fetchall()) == py
    assert {x for s, _, x in py if s == "Ostia"} == widened
