"""board_from_duckdb reads back exactly the board the synthetic builder wrote."""

import pytest

from bellica.engine.vae_victis.board import board_from_duckdb
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import connect
from tests.engine.boards import campaign_db, cell, sketch


@pytest.fixture(scope="module")
def tm():
    return sketch(
        radius=3,
        terrain={"3": "hills", "3 3": "forests", "9": "peaks", "5": "marshes"},
        water={"11": "coast", "11 11": "sea", "7 7": "lake"},
        roads=[["9 9", "9 7", "7", "", "3", "3 3"]],
        rivers=["1", "1 1"],
        structures=[
            ("Roma", "city", "", "roma", True),
            ("Ostia", "town", "1", "roma"),
            ("Capua", "city", "3 3", None),
        ],
        sea_zones={"11": ["Mare Tyrrhenum", "Mare Tuscum"], "11 11": ["Mare Tyrrhenum"]},
    )


def test_paths_are_clock_walks(tm):
    centre = tm.cell("")
    assert tm.board.sides[centre][3] == tm.cell("3")
    assert tm.board.sides[tm.cell("3")][9] == centre  # the opposite side leads back
    assert cell("3 3") == tm.cell("3 3")


def test_round_trip_through_duckdb(tm):
    con = campaign_db(tm.board)
    got = board_from_duckdb(con)
    assert got.res == tm.board.res
    assert got.hexes == tm.board.hexes
    assert {c: dict(s) for c, s in got.sides.items()} == {c: dict(s) for c, s in tm.board.sides.items()}
    assert got.road_edges == tm.board.road_edges
    assert got.structures == tm.board.structures
    assert got.factions == tm.board.factions
    assert got.sea_zones == tm.board.sea_zones


def test_coastal_means_adjacent_to_a_coast_hex(tm):
    b = board_from_duckdb(campaign_db(tm.board))
    # Roma is in the centre, its 11 o'clock neighbour is a coast hex; Capua is two hexes east.
    assert b.structures["Roma"].coastal and b.structures["Roma"].capital
    assert not b.structures["Capua"].coastal
    assert b.structures["Capua"].start_controller is None


def test_roads_cross_sides_both_ways(tm):
    b = board_from_duckdb(campaign_db(tm.board))
    assert (tm.cell(""), tm.cell("3")) in b.road_edges
    assert (tm.cell("3"), tm.cell("")) in b.road_edges
    assert (tm.cell(""), tm.cell("1")) not in b.road_edges


def test_road_cells_without_the_view(tm):
    con = campaign_db(tm.board)
    con.execute("DROP VIEW road_edges")
    assert board_from_duckdb(con).road_edges == tm.board.road_edges


def test_river_cells_override_the_map_flag(tm):
    con = campaign_db(tm.board)
    con.execute("UPDATE hexes SET river = true")  # the map's flag: every hex
    b = board_from_duckdb(con)
    assert {c for c, h in b.hexes.items() if h.river} == {tm.cell("1"), tm.cell("1 1")}
    con.execute("DROP TABLE river_cells")
    assert all(h.river for h in board_from_duckdb(con).hexes.values())


def test_a_bare_map_loads_without_campaign_tables(tm):
    con = campaign_db(tm.board)
    for t in ("structures", "factions", "hex_sea_zones", "river_cells", "road_cells"):
        con.execute(f"DROP {'VIEW' if t == 'road_edges' else 'TABLE'} {t}")
    con.execute("DROP VIEW road_edges")
    b = board_from_duckdb(con)
    assert b.structures == {} and b.factions == {} and b.road_edges == frozenset()


def test_missing_map_tables_are_named():
    with pytest.raises(InputError, match=r"\['hex_neighbors', 'hexes'\]"):
        board_from_duckdb(connect())


def test_structure_off_the_map_is_rejected(tm):
    con = campaign_db(tm.board)
    con.execute("UPDATE structures SET cell = '8f2830828052d25' WHERE name = 'Capua'")
    with pytest.raises(InputError, match="Capua"):
        board_from_duckdb(con)


def test_rules_come_from_the_campaigns_rules_table(tm):
    from bellica.datasets.rules import load_rules, rules_rows

    con = campaign_db(tm.board)
    assert board_from_duckdb(con).rules == tm.board.rules  # the fixture froze the board's (default) rules
    con.execute("DELETE FROM rules")
    con.executemany("INSERT INTO rules VALUES (?, ?)",
                    rules_rows(load_rules(overrides={"movement": {"points_per_round": 10},
                                                     "battles": {"allies": {"ROMA": ["Campanian"]}}})))
    rules = board_from_duckdb(con).rules
    assert rules.movement.points_per_round == 10
    assert rules.battles.allies == {"roma": ("Campanian",)}  # spelled as the board's factions


def test_a_campaign_without_rules_table_is_refused(tm):
    con = campaign_db(tm.board)
    con.execute("DROP TABLE rules")
    assert board_from_duckdb(con).rules == tm.board.rules  # no rules, no scenario_meta: a hand-built board
    con.execute("CREATE TABLE scenario_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    with pytest.raises(InputError, match="no `rules` table .* recreate it with `bellica campaign new`"):
        board_from_duckdb(con)
