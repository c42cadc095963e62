"""Lines of logistics: the seed's worked example on a hand-made board, plus the rules around it.

The board (hexes named by offset (x, row): row 0 runs west-east through Roma,
row -1 is a one-hex-wide band of Coast hexes, rows below are sea):

    row 8          Volsinii (0, 8)
    row 6             road  [army 1, Etruscan, at (1, 6): cuts Sutrium -> Volsinii]
    row 4          Sutrium (0, 4)      road (2, 4) Narnia (3, 4)   Lanuvium (6.5, 3)
    row 1   Tarquinii (-4.5, 1) city   Antium (6.5, 1) town, Etruscan, one hex inland
    row 0   Cosae (-8, 0)   Roma (0, 0)   Lavinium (3, 0)   Tarracina (9, 0)
    row -1  coast coast coast ... coast
"""

from __future__ import annotations

import math

import h3
import pytest

from bellica.engine.vae_victis.logistics import LogisticsOptions, compute_logistics, logistics_for, logistics_road_edges
from bellica.engine.vae_victis.model import FactionInfo, Siege
from tests.engine.boards import DEFAULT_CENTER, DEFAULT_RES, campaign_db, cell, sketch

RADIUS = 12

FACTIONS = {
    "roma": FactionInfo("roma", capitals=("Roma",)),
    "etruria": FactionInfo("etruria", capitals=()),
}


def at(x: float, row: int) -> str:
    """Clock path to offset (x, row): rows by zig-zagging north (1, 11) or south (5, 7), then east/west."""
    if row >= 0:
        moves = [1 if i % 2 == 0 else 11 for i in range(row)]
        x0 = 0.5 if row % 2 else 0.0
    else:
        moves = [5 if i % 2 == 0 else 7 for i in range(-row)]
        x0 = 0.5 if row % 2 else 0.0
    cols = x - x0
    assert cols == int(cols), (x, row)
    moves += [3 if cols > 0 else 9] * abs(int(cols))
    return " ".join(map(str, moves))


def trail(*points: tuple[float, int]) -> list[str]:
    return [at(x, r) for x, r in points]


def worked_example(antium_kind: str = "town", **extra):
    origin = h3.latlng_to_cell(*DEFAULT_CENTER, DEFAULT_RES)
    water = {}
    for x2 in range(-23, 24, 2):  # row -1: x = -11.5 .. 11.5
        water[at(x2 / 2, -1)] = "coast"
    for row in range(-2, -11, -1):
        for xi in range(-12, 13):
            x = xi + (0.5 if row % 2 else 0.0)
            water[at(x, row)] = "sea"
    water = {ref: kind for ref, kind in water.items() if h3.grid_distance(origin, cell(ref)) <= RADIUS}
    roads = [
        trail((0, 0), (-0.5, 1), (0, 2), (-0.5, 3), (0, 4)),  # Roma - Sutrium
        trail((0, 4), (-0.5, 5), (0, 6), (-0.5, 7), (0, 8)),  # Sutrium - Volsinii
        trail((0, 0), (0.5, 1), (1, 2), (1.5, 3), (2, 4), (3, 4)),  # Roma - Narnia
        trail((9, 0), (8, 0), (7.5, 1), (7, 2), (6.5, 3)),  # Tarracina - Lanuvium, past Antium
    ]
    rivers = trail((0, 0), (1, 0), (1.5, 1), (2, 2), (2.5, 3), (3, 4))  # the Tiber: Roma - Narnia
    structures = [
        ("Roma", "city", at(0, 0), "roma", True),
        ("Sutrium", "town", at(0, 4), "roma"),
        ("Volsinii", "town", at(0, 8), "roma"),
        ("Narnia", "town", at(3, 4), "roma"),
        ("Lavinium", "town", at(3, 0), "roma"),
        ("Tarracina", "town", at(9, 0), "roma"),
        ("Lanuvium", "town", at(6.5, 3), "roma"),
        ("Cosae", "town", at(-8, 0), "roma"),
        ("Tarquinii", "city", at(-4.5, 1), "etruria"),
        ("Antium", antium_kind, at(6.5, 1), "etruria"),
    ]
    m = sketch(
        radius=RADIUS, water=water, roads=roads, rivers=rivers, structures=structures, factions=FACTIONS, **extra
    )
    return m


@pytest.fixture(scope="module")
def example():
    m = worked_example()
    state = m.state([(1, "etruria", at(1, 6)), (9, "roma", at(0, 4)), (10, "roma", at(9, 0)), (11, "roma", at(0, 8))])
    return m, state, logistics_for(m.board, state)


def lines_of(lg, faction="roma"):
    return {(ln.from_structure, ln.to_structure, ln.link_type) for ln in lg.lines if ln.faction == faction}


def test_worked_example_network(example):
    _, _, lg = example
    assert lines_of(lg) == {
        ("Roma", "Sutrium", "road"),
        ("Roma", "Narnia", "road"),
        ("Roma", "Narnia", "river"),  # Narnia linked by road and by river: parallel lines
        ("Roma", "Lavinium", "coast"),
        ("Lavinium", "Tarracina", "coast"),  # Antium (town: 1-hex coast ZoC, one hex inland) fails to cut
        ("Tarracina", "Lanuvium", "road"),  # Antium (town: no land ZoC beyond its hex) fails to cut
    }
    assert lg.supplied["roma"] == {"Roma", "Sutrium", "Narnia", "Lavinium", "Tarracina", "Lanuvium"}
    # Volsinii: road beyond Sutrium cut by Etruscan army 1; Cosae: coast cut by Tarquinii's 2-hex coast ZoC.
    assert not lg.is_supplied("roma", "Volsinii")
    assert not lg.is_supplied("roma", "Cosae")
    assert "etruria" not in lg.supplied  # no capital, no lines


def test_antium_as_a_city_would_cut_both(example):
    m = worked_example(antium_kind="city")
    _, state, _ = example
    lg = logistics_for(m.board, state)
    assert lg.supplied["roma"] == {"Roma", "Sutrium", "Narnia", "Lavinium"}


def test_without_the_army_volsinii_is_reached():
    m = worked_example()
    lg = logistics_for(m.board, m.state([]))
    assert ("Sutrium", "Volsinii", "road") in lines_of(lg)


def test_a_sieged_capital_originates_nothing(example):
    m, state, _ = example
    sieged = m.state([(1, "etruria", at(0.5, 1))], sieges=[Siege("Roma", "etruria", (1,), 4, 4, 1)])
    assert logistics_for(m.board, sieged).supplied.get("roma", frozenset()) == frozenset()
    uncontrolled = m.state([], control={"Roma": "etruria"})
    assert logistics_for(m.board, uncontrolled).supplied.get("roma", frozenset()) == frozenset()


def test_sieged_structure_is_no_endpoint_but_its_line_beyond_may_pass():
    m = worked_example()
    # Lavinium sieged by an Etruscan army on land: the siege removes Lavinium as an endpoint; the
    # coast past it is not in an army's ZoC (armies' ZoC is land only), so Tarracina stays linked
    # by coast, the one link running past Lavinium.
    state = m.state([(1, "etruria", at(3.5, 1))], sieges=[Siege("Lavinium", "etruria", (1,), 0, 0, 1)])
    lg = logistics_for(m.board, state)
    assert not lg.is_supplied("roma", "Lavinium")
    assert lg.is_supplied("roma", "Tarracina")
    line = next(ln for ln in lg.lines if ln.to_structure == "Tarracina")
    assert (line.from_structure, line.link_type) == ("Roma", "coast")


def test_road_edges_cells_and_distances(example):
    m, _, lg = example
    edges = lg.road_edges["roma"]
    c = m.cell
    assert (c(at(0, 0)), c(at(-0.5, 1))) in edges and (c(at(-0.5, 1)), c(at(0, 0))) in edges
    assert (c(at(9, 0)), c(at(8, 0))) in edges
    assert (c(at(0, 4)), c(at(-0.5, 5))) not in edges  # the cut road to Volsinii
    assert c(at(2, 4)) in lg.line_cells["roma"]
    assert lg.army_distance[9] == 0  # at Sutrium
    assert lg.army_distance[10] == 0  # at Tarracina
    assert lg.army_distance[11] == 4  # Volsinii: four road hexes of farmlands (2 / 2 = 1 MP each) to Sutrium
    assert math.isinf(lg.army_distance[1])  # etruria has no lines
    assert lg.linked(9, 10) and not lg.linked(9, 11)


def test_sql_views_on_a_campaign_database(example):
    m, state, lg = example
    con = campaign_db(m.board, state)
    got = compute_logistics(con)
    assert got.supplied == lg.supplied and set(got.lines) == set(lg.lines)
    assert got.road_edges == lg.road_edges
    rows = con.execute("SELECT army, mp_distance FROM army_logistics_distance ORDER BY army").fetchall()
    assert rows == [(1, None), (9, 0.0), (10, 0.0), (11, 4.0)]
    assert con.execute(
        "SELECT count(*) FROM logistics_lines WHERE faction = 'roma' AND to_structure = 'Narnia'"
    ).fetchone() == (2,)
    assert logistics_road_edges(con) == lg.road_edges


def test_river_access_option():
    m = worked_example()
    lg = logistics_for(m.board, m.state([]), options=LogisticsOptions(river_access="adjacent"))
    # Lavinium's neighbours are no River hexes, Sutrium's neither: the river network is unchanged.
    assert {x for x in lines_of(lg) if x[2] == "river"} == {("Roma", "Narnia", "river")}
    with pytest.raises(ValueError):
        LogisticsOptions(river_access="bridge")


# --- the SQL against a brute-force reading of the rules on random small boards -----------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from bellica.engine.vae_victis.zoc import controller_of, zoc_sources  # noqa: E402

ORIGIN = h3.latlng_to_cell(*DEFAULT_CENTER, DEFAULT_RES)
DISK = sorted(h3.grid_disk(ORIGIN, 3))


def brute_force_supplied(board, state) -> dict[str, set[str]]:
    """Supplied structures by components of uninterrupted hexes per link type (independent of the SQL)."""
    sources = zoc_sources(board, state)
    hexes = board.hexes
    out = {}
    for f in board.factions.values():
        land_cut = {c for s in sources if s.faction != f.name for c in s.cells if hexes[c].kind == "land"}
        coast_cut = {c for s in sources if s.kind == "structure" and s.faction != f.name
                     for c in s.cells if hexes[c].kind == "coast"}
        road_cells = {a for a, _ in board.road_edges}
        graphs = {
            "road": (road_cells - land_cut, lambda a, b: (a, b) in board.road_edges),
            "coast": ({c for c, h in hexes.items() if h.kind == "coast"} - coast_cut, lambda a, b: True),
            "river": ({c for c, h in hexes.items() if h.river} - land_cut, lambda a, b: True),
        }
        ends = [s for s in board.structures.values()
                if controller_of(state, s) == f.name and state.siege_of(s.name) is None]
        parent = {s.name: s.name for s in ends}

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x

        for t, (cells, ok) in graphs.items():
            comp = {}
            for c in sorted(cells):
                if c in comp:
                    continue
                comp[c] = c
                stack = [c]
                while stack:
                    x = stack.pop()
                    for n in board.sides[x].values():
                        if n in cells and n not in comp and ok(x, n):
                            comp[n] = c
                            stack.append(n)
            touch = {}
            for s in ends:
                if t == "coast":
                    att = [n for n in board.sides[s.cell].values() if n in cells]
                else:
                    att = [s.cell] if s.cell in cells else []
                for a in att:
                    touch.setdefault(comp[a], []).append(s.name)
            for names in touch.values():
                for other in names[1:]:
                    parent[find(other)] = find(names[0])
        caps = [c for c in f.capitals if c in parent]
        roots = {find(c) for c in caps}
        supplied = {s for s in parent if find(s) in roots}
        if supplied:
            out[f.name] = supplied
    return out


@st.composite
def random_board(draw):
    """A southern coast band, structures joined by random roads and rivers, a few armies."""
    cells = DISK
    south = h3.cell_to_latlng(ORIGIN)[0] - 0.12
    coast = {c for c in cells if h3.cell_to_latlng(c)[0] < south}
    coast ^= set(draw(st.lists(st.sampled_from(cells), max_size=4)))
    land = [c for c in cells if c not in coast]
    spots = draw(st.lists(st.sampled_from(land), min_size=3, max_size=8, unique=True))
    structures = []
    for i, c in enumerate(spots):
        kind = draw(st.sampled_from(["town", "city"]))
        ctrl = draw(st.sampled_from(["roma", "roma", "etruria", None]))
        structures.append((f"S{i}" if i else "Roma", kind, c, "roma" if i == 0 else ctrl, i == 0))

    def paths(n):
        out = []
        for _ in range(n):
            a, b = draw(st.sampled_from(spots)), draw(st.sampled_from(spots))
            p = h3.grid_path_cells(a, b)
            if a != b and all(c in land for c in p):
                out.append(list(p))
        return out

    roads = paths(draw(st.integers(0, 6)))
    rivers = sorted({c for p in paths(draw(st.integers(0, 3))) for c in p})
    free = [c for c in land if c not in spots]
    armies = [(i + 1, draw(st.sampled_from(["roma", "etruria"])), c)
              for i, c in enumerate(draw(st.lists(st.sampled_from(free), max_size=3, unique=True)))]
    m = sketch(radius=3, water={c: "coast" for c in coast}, roads=roads, rivers=rivers,
               structures=structures, factions=FACTIONS)
    return m, m.state(armies)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_board())
def test_sql_lines_match_brute_force(case):
    m, state = case
    lg = logistics_for(m.board, state)
    assert {f: set(s) for f, s in lg.supplied.items()} == brute_force_supplied(m.board, state)


@pytest.mark.parametrize("owner, joined", [(None, False), ("roma", True)])
def test_a_town_between_two_waters_joins_them_only_for_its_owner(owner, joined):
    # Coast hexes west ("9") and east ("3") of a town, not adjacent to each other: Roma (at "11")
    # touches the western one, Ostia (at "1") the eastern one.  A line never hops across the
    # town's land hex unless the town is one of the faction's own endpoints.
    m = sketch(radius=2, water={"9": "coast", "3": "coast"}, factions=FACTIONS, structures=[
        ("Roma", "city", "11", "roma", True), ("Ostia", "town", "1", "roma"), ("Isthmus", "town", "", owner)])
    lg = logistics_for(m.board, m.state([]))
    assert lg.is_supplied("roma", "Ostia") is joined


# --- performance machinery: static pruning, tables kept in the campaign, the per-army search ------

from bellica.engine.vae_victis.logistics import (  # noqa: E402
    TerrainGraph,
    army_mp_distance,
    ensure_logistics,
    enter_cost,
    mp_distances_to,
)
from bellica.engine.vae_victis.logistics.sql import _core_cells  # noqa: E402


def _undirected(*edges):
    adj = {}
    for a, b in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    return adj


def test_core_cells_drop_dead_ends_only():
    # A - x - y - B on a path, a loop x-p-q-x hanging off x, a spur y-s1-s2, a detached
    # triangle u-v-w, and a loop between A and B (A-m-B) that stays.
    adj = _undirected(("A", "x"), ("x", "y"), ("y", "B"), ("x", "p"), ("p", "q"), ("q", "x"),
                      ("y", "s1"), ("s1", "s2"), ("u", "v"), ("v", "w"), ("w", "u"), ("A", "m"), ("m", "B"))
    assert _core_cells(adj, {"A", "B"}) == {"A", "x", "y", "B", "m"}
    # a terminal at the end of the spur keeps it; a lone terminal keeps only itself
    assert _core_cells(adj, {"A", "B", "s2"}) == {"A", "x", "y", "B", "m", "s1", "s2"}
    assert "u" in _core_cells(adj, {"u"}) <= {"u", "v", "w"}  # (keeping more is safe, only slower)
    assert _core_cells(adj, {"u", "w"}) == {"u", "v", "w"}
    assert _core_cells(adj, set()) == set()


def test_static_tables_are_built_once_and_kept(example):
    m, state, lg = example
    con = campaign_db(m.board, state)
    assert ensure_logistics(con) is True
    assert ensure_logistics(con) is False  # kept: nothing rebuilt
    assert compute_logistics(con).lines == compute_logistics(con, board=m.board).lines
    assert set(compute_logistics(con).lines) == set(lg.lines)
    # another option is another build
    assert ensure_logistics(con, LogisticsOptions(river_access="adjacent")) is True
    assert ensure_logistics(con, LogisticsOptions(river_access="adjacent")) is False
    core = con.execute("SELECT count(*) FROM logistics_core_edges").fetchone()[0]
    full = con.execute("SELECT count(*) FROM logistics_edges").fetchone()[0]
    assert 0 < core <= full


def _reference_mp_distances(board, targets, roads, cutoff):
    """A plain heap Dijkstra over enter_cost, backwards from the targets: what csgraph must match."""
    import heapq

    g = TerrainGraph.from_board(board)
    back = {}
    for a, by_clock in board.sides.items():
        for b in by_clock.values():
            back.setdefault(b, []).append(a)
    dist, heap = {}, [(0.0, t) for t in sorted(targets)]
    while heap:
        d, y = heapq.heappop(heap)
        if y in dist:
            continue
        dist[y] = d
        for x in back.get(y, ()):
            nd = d + enter_cost(g, x, y, roads)
            if x not in dist and nd <= cutoff:
                heapq.heappush(heap, (nd, x))
    return dist


def test_army_search_prices_like_a_plain_dijkstra_over_enter_cost(example):
    m, _, lg = example
    g = TerrainGraph.from_board(m.board)
    targets = lg.line_cells["roma"]
    roads = lg.road_edges["roma"]
    assert roads  # the -1 MP of the faction's own line roads is exercised
    for cutoff in (24, 7):
        every = mp_distances_to(g, targets, roads, cutoff)
        assert every == _reference_mp_distances(m.board, targets, roads, cutoff)
        for c in sorted(every)[::3]:
            assert army_mp_distance(g, c, targets, roads, cutoff) == every[c]


# --- stock DuckDB: no deprecation warnings (DuckDB 1.5.6 logs "Deprecated UNION in USING KEY CTE") ---

import re  # noqa: E402

from bellica.engine.vae_victis.logistics import VIEWS  # noqa: E402
from bellica.engine.vae_victis.logistics.sql import SQL_DIR  # noqa: E402


def test_every_using_key_recursion_uses_union_all():
    # DuckDB 1.5.6 deprecates plain UNION between the two halves of a USING KEY CTE.
    found = 0
    for path in sorted(SQL_DIR.glob("*.sql")):
        text = re.sub(r"--[^\n]*", "", path.read_text())
        for m in re.finditer(r"USING KEY\s*\([^)]*\)\s*AS\s*\(", text):
            depth, i = 1, m.end()
            while depth:  # the CTE's body: up to its closing parenthesis
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            body = re.sub(r"\([^()]*(\([^()]*\)[^()]*)*\)", "()", text[m.end():i - 1])  # drop nested queries
            unions = re.findall(r"\bUNION\b(\s+ALL\b)?", body)
            assert unions and all(unions), f"{path.name}: a USING KEY CTE joins its halves with UNION, not UNION ALL"
            found += 1
    assert found == 2  # logistics_regions' and logistics_network's


def test_every_logistics_view_runs_without_a_duckdb_warning(example):
    m, state, _ = example
    con = campaign_db(m.board, state)
    ensure_logistics(con)
    con.execute("CALL enable_logging(level = 'warning')")
    for view in VIEWS:
        con.execute(f"SELECT count(*) FROM {view}").fetchall()
    warnings = con.execute("SELECT message FROM duckdb_logs WHERE log_level = 'WARNING'").fetchall()
    assert warnings == []


@pytest.mark.parametrize("any_side", [False, True])
def test_terrain_graph_from_the_campaign_database_equals_the_one_from_the_board(example, any_side):
    """The graph a campaign builds in SQL (TerrainGraph.from_con) prices every step as the one
    built from the Board's objects: same nodes, same steps, same road and line-road MP."""
    from dataclasses import replace

    from bellica.engine.vae_victis.logistics.paths import TerrainGraph
    from bellica.engine.vae_victis.rules import rules_with
    from tests.engine.boards import campaign_db

    m, state, _ = example
    board = replace(m.board, rules=rules_with({"options": {"structure_road_any_side": any_side}}), derived={})
    con = campaign_db(board, state)
    a, b = TerrainGraph.from_board(board), TerrainGraph.from_con(con, board.rules.movement)
    assert a.cells == b.cells
    roads = sorted(board.road_edges)[::3]
    for g in (a, b):
        g.triples = {(g.cells[i], g.cells[j], w) for i, j, w in zip(g._rows.tolist(), g._cols.tolist(), g.matrix(roads).data.tolist())}
    assert a.triples == b.triples
    assert a._step_at.keys() == b._step_at.keys() and len(a._step_at) > 0
    assert [a.fact(c) for c in a.cells] == [b.fact(c) for c in b.cells]
