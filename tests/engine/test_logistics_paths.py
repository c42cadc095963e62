"""The logistics graph searches in plain Python give what scipy's csgraph gave, and the block search
that replaced networkx's finds networkx's blocks (issue 11: the same results, without importing
numpy, scipy.sparse.csgraph and networkx in a CLI step).

The reference is the former scipy code, kept in tests/engine/scipy_paths_reference.py; the boards
are the worked example of test_logistics.py and the First Punic War campaign on its res-5 map with
the demo's placements, after ``round start`` (the demo board the CLI benchmark plays).
"""

from __future__ import annotations

import math
import random

import pytest

from bellica.engine.vae_victis.logistics import compute_logistics, ensure_logistics, paths
from bellica.engine.vae_victis.logistics.sql import _biconnected_components, _core_cells, _query_lines
from tests.engine import scipy_paths_reference as ref


@pytest.fixture(scope="module")
def punic(tmp_path_factory, first_punic_war):
    """(campaign connection, its Board) of a started First Punic War campaign with the demo's armies."""
    from bellica import demo
    from bellica.engine.core.campaign import Campaign

    path = first_punic_war(tmp_path_factory.mktemp("punic-paths") / "c.duckdb")
    demo._place(path)
    with Campaign.open(path) as c:
        c.start(seed=demo.DEMO_SEED)
    c = Campaign.open(path)
    yield c.con, c.board
    c.close()


@pytest.fixture(scope="module")
def example_con():
    from tests.engine.boards import campaign_db
    from tests.engine.test_logistics import at, worked_example

    m = worked_example()
    state = m.state([(1, "etruria", at(1, 6)), (9, "roma", at(0, 4)), (10, "roma", at(9, 0)), (11, "roma", at(0, 8))])
    con = campaign_db(m.board, state)
    ensure_logistics(con)
    return con, m.board


def _both(request, name):
    return request.getfixturevalue(name)


@pytest.mark.parametrize("board_name", ["example_con", "punic"])
def test_terrain_graph_and_mp_distances_equal_the_scipy_ones(request, board_name):
    con, board = _both(request, board_name)
    new, old = paths.TerrainGraph.from_con(con, board.rules.movement), ref.TerrainGraph.from_con(con, board.rules.movement)
    assert new.cells == old.cells and new._step_at == old._step_at
    assert (new._rows.tolist(), new._cols.tolist()) == (old._rows.tolist(), old._cols.tolist())
    mine = paths.TerrainGraph.from_board(board)  # what a campaign's logistics search (LogisticsCache.terrain)
    assert (mine.cells, mine._rows, mine._cols, mine._weight, mine._line_weight, mine._step_at) == (
        new.cells, new._rows, new._cols, new._weight, new._line_weight, new._step_at)
    assert [mine.fact(c) for c in mine.cells] == [new.fact(c) for c in new.cells]
    lg = compute_logistics(con, board=board)
    assert lg.line_cells and any(lg.road_edges.values())  # line roads' -1 MP exercised
    starts = new.cells[::5]
    for faction, targets in sorted(lg.line_cells.items()):
        roads = lg.road_edges.get(faction, frozenset())
        assert new.matrix(roads).data.tolist() == old.matrix(roads).data.tolist()
        for cutoff in (24, 7, math.inf):
            assert new.distances_to(targets, roads, cutoff) == old.distances_to(targets, roads, cutoff).tolist()
            assert paths.mp_distances_to(new, targets, roads, cutoff) == ref.mp_distances_to(old, targets, roads, cutoff)
            assert new.distances_from(starts, targets, roads, cutoff) == old.distances_from(starts, targets, roads, cutoff)


@pytest.mark.parametrize("board_name", ["example_con", "punic"])
def test_line_paths_equal_the_scipy_ones(request, board_name):
    con, _board = _both(request, board_name)
    supplied, lines = _query_lines(con)
    assert any(ln.link_type == "road" for ln in lines)
    new = paths.line_paths(con, lines, supplied, paths.LinkGraphs.from_con(con))
    old = ref.line_paths(con, lines, supplied, ref.LinkGraphs.from_con(con))
    assert (dict(new[0]), dict(new[1])) == (dict(old[0]), dict(old[1]))
    assert any(new[1].values())


def _nx_blocks(adj):
    import networkx as nx

    graph = nx.Graph()
    graph.add_edges_from((v, w) for v in sorted(adj) for w in sorted(adj[v]) if v != w)
    return sorted(sorted(b) for b in nx.biconnected_components(graph))


def test_blocks_equal_networkx_on_random_graphs():
    rng = random.Random(11)
    for trial in range(200):
        n = rng.randint(1, 30)
        adj: dict[str, set[str]] = {str(v): set() for v in range(n)}
        for _ in range(rng.randint(0, 2 * n)):
            a, b = str(rng.randrange(n)), str(rng.randrange(n))
            adj[a].add(b)  # one direction only, or a self-loop, sometimes: both are read as networkx does
        assert sorted(sorted(b) for b in _biconnected_components(adj)) == _nx_blocks(adj), trial


def test_core_cells_and_blocks_equal_networkx_on_the_demo_board(punic, monkeypatch):
    con, _ = punic
    adj: dict[str, dict[str, set[str]]] = {}
    for t, c, n in con.execute("SELECT link_type, cell, neighbor FROM logistics_edges").fetchall():
        adj.setdefault(t, {}).setdefault(c, set()).add(n)
        adj[t].setdefault(n, set()).add(c)
    terminals: dict[str, set[str]] = {}
    for t, c in con.execute("SELECT link_type, cell FROM logistics_attachments").fetchall():
        terminals.setdefault(t, set()).add(c)
    assert set(adj) == {"road", "coast", "river"}
    for t, graph in adj.items():
        assert sorted(sorted(b) for b in _biconnected_components(graph)) == _nx_blocks(graph)
    # and the hexes kept are those the pruning keeps on networkx's blocks (the code before issue 11)
    from bellica.engine.vae_victis.logistics import sql

    for t, graph in adj.items():
        ours = _core_cells(graph, terminals.get(t, set()))
        monkeypatch.setattr(sql, "_biconnected_components", lambda g: [set(b) for b in _nx_blocks(g)])
        theirs = _core_cells(graph, terminals.get(t, set()))
        monkeypatch.undo()
        assert ours == theirs and 0 < len(ours) < len(graph)
