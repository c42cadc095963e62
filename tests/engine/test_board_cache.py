"""board_cache: the Board's JSON copy in the campaign file is the Board read from the tables, field for field;
a stale or damaged copy is never used; a read-only open reads the tables and writes nothing."""

from __future__ import annotations

import json

import duckdb
import pytest

from bellica.engine.vae_victis import board_cache
from bellica.engine.vae_victis.board import board_from_duckdb
from bellica.geo.spatialdb import connect
from tests.engine.boards import campaign_db, sketch


def fields(board) -> dict:
    """Every field of a Board in its iteration orders and value types (== alone ignores dict order and
    would take 1 for True or 0 for 0.0)."""
    def typed(v):
        return (type(v).__name__, v)

    return {
        "res": typed(board.res),
        "hexes": [(c, [typed(getattr(h, f)) for f in ("cell", "kind", "terrain", "river", "lat", "lng")])
                  for c, h in board.hexes.items()],
        "sides": [(c, [(typed(k), n) for k, n in s.items()]) for c, s in board.sides.items()],
        "road_edges": (type(board.road_edges).__name__, sorted(board.road_edges)),
        "structures": [(n, repr(s), [typed(getattr(s, f)) for f in ("capital", "coastal")])
                       for n, s in board.structures.items()],
        "factions": [(n, repr(f)) for n, f in board.factions.items()],
        "sea_zones": [(c, type(z).__name__, sorted(z)) for c, z in board.sea_zones.items()],
        "rules": board.rules,
    }


def assert_same_board(cached, read):
    assert cached == read
    assert fields(cached) == fields(read)


def stored(con):
    return con.execute("SELECT key, digest, payload FROM board_cache").fetchall()


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory, first_punic_war):
    return first_punic_war(tmp_path_factory.mktemp("board_cache") / "fpw.duckdb")


@pytest.fixture
def demo(demo_file, tmp_path):
    path = tmp_path / "fpw.duckdb"
    path.write_bytes(demo_file.read_bytes())
    return path


def synthetic():
    return sketch(
        radius=3,
        terrain={"3": "hills", "3 3": "forests", "9": "peaks", "5": "marshes"},
        water={"11": "coast", "11 11": "sea", "7 7": "lake"},
        roads=[["9 9", "9 7", "7", "", "3", "3 3"]],
        rivers=["1", "1 1"],
        structures=[("Roma", "city", "", "roma", True), ("Ostia", "town", "1", "roma"), ("Capua", "city", "3 3", None)],
        sea_zones={"11": ["Mare Tyrrhenum", "Mare Tuscum"], "11 11": ["Mare Tyrrhenum"]},
    )


def test_the_cached_board_is_the_read_board_on_the_demo_campaign(demo):
    con = duckdb.connect(str(demo))
    try:
        read = board_from_duckdb(con, use_cache=False)
        assert "board_cache" not in board_cache.object_kinds(con)  # reading never writes by itself
        assert_same_board(board_from_duckdb(con, write_cache=True), read)  # written from the tables
        [(key, digest, payload)] = stored(con)
        assert key == "board" and digest == board_cache.board_digest(con, board_cache.object_kinds(con))
        assert_same_board(board_cache.decode(payload, read.rules), read)
        assert_same_board(board_from_duckdb(con), read)  # read from the copy
        assert read.sea_zones and read.road_edges and read.structures and read.factions  # every part exercised
    finally:
        con.close()


def test_the_cached_board_is_the_read_board_on_a_synthetic_board():
    tm = synthetic()
    con = campaign_db(tm.board)
    read = board_from_duckdb(con, use_cache=False)
    assert_same_board(board_from_duckdb(con, write_cache=True), read)
    assert_same_board(board_from_duckdb(con), read)
    assert fields(read)["hexes"] == fields(tm.board)["hexes"]  # and both are the board the fixture wrote


def test_a_board_without_campaign_tables_round_trips():
    """A bare map: no structures, factions, roads or sea zones; the digest says which tables exist."""
    tm = synthetic()
    con = campaign_db(tm.board)
    for table in ("structures", "factions", "hex_sea_zones", "road_edges", "road_cells", "river_cells"):
        kind = board_cache.object_kinds(con)[table]
        con.execute(f"DROP {'VIEW' if kind == 'view' else 'TABLE'} {table}")
    read = board_from_duckdb(con, use_cache=False)
    assert not read.structures and not read.road_edges
    assert_same_board(board_from_duckdb(con, write_cache=True), read)
    assert_same_board(board_from_duckdb(con), read)


@pytest.mark.parametrize("edit", [
    "UPDATE hexes SET terrain = 'peaks' WHERE cell = (SELECT min(cell) FROM hexes WHERE kind = 'land')",
    "UPDATE hexes SET lat = lat + 1e-9 WHERE cell = (SELECT min(cell) FROM hexes)",
    "DELETE FROM hex_neighbors WHERE rowid = (SELECT min(rowid) FROM hex_neighbors)",
    "INSERT INTO river_cells SELECT 'Tiber', min(cell) FROM hexes WHERE cell NOT IN (SELECT cell FROM river_cells)",
    "DELETE FROM road_cells WHERE seq = 0",
    "UPDATE structures SET kind = 'Town' WHERE name = 'Capua'",
    "UPDATE factions SET colour = '#000000'",
    "DELETE FROM hex_sea_zones WHERE zone = 'Mare Tuscum'",
    "DROP TABLE river_cells",
])
def test_a_map_table_edited_after_the_copy_makes_it_stale(edit):
    tm = synthetic()
    con = campaign_db(tm.board)
    board_from_duckdb(con, write_cache=True)
    [(_, before, payload)] = stored(con)
    con.execute(edit)
    after = board_cache.board_digest(con, board_cache.object_kinds(con))
    assert after != before
    assert board_cache.read_cached(con, board_cache.object_kinds(con), after) is None
    read = board_from_duckdb(con, use_cache=False)
    assert_same_board(board_from_duckdb(con), read)  # the tables, not the stale copy
    assert stored(con) == [("board", before, payload)]  # not written without write_cache
    assert_same_board(board_from_duckdb(con, write_cache=True), read)
    [(_, rewritten, _)] = stored(con)
    assert rewritten == after
    assert_same_board(board_from_duckdb(con), read)


def test_two_equal_rows_do_not_cancel_in_the_digest():
    tm = synthetic()
    con = campaign_db(tm.board)
    kinds = board_cache.object_kinds(con)
    before = board_cache.board_digest(con, kinds)
    con.execute("INSERT INTO river_cells SELECT * FROM river_cells LIMIT 1")
    con.execute("INSERT INTO river_cells SELECT * FROM river_cells LIMIT 1")
    assert board_cache.board_digest(con, kinds) != before


@pytest.mark.parametrize("payload", [
    "",
    "{not json",
    "[]",
    "null",
    '{"format": 999}',
    "NaN",
    "pickled",  # replaced below by a truncated copy of the real payload
    "wrong-shape",  # replaced below by the real payload with the hexes' kinds cut short
    "bad-neighbour",  # replaced below by the real payload with a side leading off the map
])
def test_a_corrupt_copy_falls_back_to_the_tables_and_is_rewritten(payload):
    tm = synthetic()
    con = campaign_db(tm.board)
    read = board_from_duckdb(con, write_cache=True)
    [(_, digest, good)] = stored(con)
    if payload == "pickled":
        payload = good[: len(good) // 2]
    elif payload == "wrong-shape":
        p = json.loads(good)
        p["kind"] = p["kind"][:-1]
        payload = json.dumps(p)
    elif payload == "bad-neighbour":
        p = json.loads(good)
        p["side_neighbours"][0] = "not-a-hex"
        payload = json.dumps(p)
    con.execute("UPDATE board_cache SET payload = ?", [payload])
    with pytest.raises(board_cache.CorruptCache):
        board_cache.decode(payload, read.rules)
    assert_same_board(board_from_duckdb(con), read)  # no crash: the tables
    assert_same_board(board_from_duckdb(con, write_cache=True), read)
    assert stored(con) == [("board", digest, good)]  # rewritten as it was


def test_a_hand_made_board_cache_of_another_shape_is_ignored_and_replaced_inside_a_transaction():
    tm = synthetic()
    con = campaign_db(tm.board)
    con.execute("CREATE TABLE board_cache (x INTEGER)")
    read = board_from_duckdb(con, use_cache=False)
    con.execute("BEGIN TRANSACTION")
    assert_same_board(board_from_duckdb(con, write_cache=True), read)
    con.execute("COMMIT")  # the transaction was not aborted
    assert_same_board(board_from_duckdb(con), read)
    assert len(stored(con)) == 1


def test_a_step_rolled_back_leaves_no_copy():
    tm = synthetic()
    con = campaign_db(tm.board)
    con.execute("BEGIN TRANSACTION")
    board_from_duckdb(con, write_cache=True)
    con.execute("ROLLBACK")
    assert "board_cache" not in board_cache.object_kinds(con)


def test_read_only_opens_read_the_tables_or_a_fresh_copy_and_write_nothing(demo):
    before = demo.read_bytes()
    con = connect(demo, read_only=True)
    try:
        read = board_from_duckdb(con, use_cache=False)
        assert_same_board(board_from_duckdb(con, write_cache=True), read)  # asked to write, but cannot: no error
        assert "board_cache" not in board_cache.object_kinds(con)
    finally:
        con.close()
    assert demo.read_bytes() == before
    con = duckdb.connect(str(demo))
    board_from_duckdb(con, write_cache=True)
    con.close()
    con = connect(demo, read_only=True)
    try:
        [(_, digest, _)] = stored(con)
        assert digest == board_cache.board_digest(con, board_cache.object_kinds(con))
        assert_same_board(board_from_duckdb(con), read)  # the fresh copy
    finally:
        con.close()


def test_the_campaign_writes_its_copy_when_read_write_only(demo):
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(demo, read_only=True) as c:
        read = c.board
        assert "board_cache" not in c.tables()
    with Campaign.open(demo) as c:
        with c.transaction():
            assert_same_board(c.board, read)
        assert "board_cache" in c.tables()
    with Campaign.open(demo, read_only=True) as c:
        assert_same_board(c.board, read)
