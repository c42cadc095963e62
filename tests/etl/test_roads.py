"""Road and river routing: least cost over terrain on a hand-made graph, and every shipped road
on the real default map is a connected chain of passable land hexes from its first to its last waypoint."""

from __future__ import annotations

import pytest

from bellica.etl.roads import HexGraph, chain_wkt, river_cost, road_cost, route_chain, shortest_path
from bellica.etl.scenario import DEFAULT_ROUTING
from bellica.geo.errors import InputError
from bellica.geo.hexgrid import cell_at, cell_center, neighbor_table, cells_in_bbox
from bellica.geo.spatialdb import connect
from tests.etl.test_campaign import assert_roads_valid


def _graph(terrain_of, *, bbox=(10.0, 40.0, 10.6, 40.4), res=6, kind_of=lambda c: "land", river_of=lambda c: False) -> HexGraph:
    cells = cells_in_bbox(bbox, res)
    nbrs = {c: [] for c in cells}
    for a, b, clock, _ in neighbor_table(cells):
        nbrs[a].append((b, clock))
    kind = {c: kind_of(c) for c in cells}
    return HexGraph(
        kind=kind,
        terrain={c: terrain_of(c) if kind[c] == "land" else None for c in cells},
        elev={c: 100.0 for c in cells},
        river={c: river_of(c) for c in cells},
        latlng={c: cell_center(c) for c in cells},
        neighbors=nbrs,
        coastal=set(),
    )


def test_road_goes_round_mountains_and_never_through_peaks_or_water():
    # A wall of mountains along 10.3 E with a farmland gap in the south; a peak and a lake in the way.
    def terrain(c):
        lat, lng = cell_center(c)
        if abs(lng - 10.3) < 0.07:
            return "farmlands" if lat < 40.2 else "mountains"
        return "farmlands"

    g = _graph(terrain)
    a, b = cell_at(40.3, 10.1, 6), cell_at(40.3, 10.5, 6)
    path = shortest_path(g, a, b, road_cost(DEFAULT_ROUTING))
    assert path[0] == a and path[-1] == b
    assert all(g.terrain[c] != "mountains" for c in path), "a detour through the gap is cheaper than 6 per mountain hex"
    # Now the wall is peaks everywhere but the gap is a lake: no route at all.
    g2 = _graph(lambda c: "peaks" if abs(cell_center(c)[1] - 10.3) < 0.07 else "farmlands",
                kind_of=lambda c: "lake" if abs(cell_center(c)[1] - 10.3) < 0.07 and cell_center(c)[0] < 40.2 else "land")
    assert shortest_path(g2, a, b, road_cost(DEFAULT_ROUTING)) is None
    with pytest.raises(InputError, match=r"Via Test: no land route from A to B \(leg 1\)"):
        route_chain(g2, [a, b], road_cost(DEFAULT_ROUTING), name="Via Test", labels=["A", "B"])


def test_chain_is_adjacent_and_joins_legs_without_repeating_waypoints():
    g = _graph(lambda c: "farmlands")
    wps = [cell_at(40.1, 10.1, 6), cell_at(40.3, 10.3, 6), cell_at(40.1, 10.5, 6)]
    chain = route_chain(g, wps, road_cost(DEFAULT_ROUTING), name="r")
    assert chain[0] == wps[0] and chain[-1] == wps[-1] and wps[1] in chain
    assert all(b in {n for n, _ in g.neighbors[a]} for a, b in zip(chain, chain[1:]))
    assert chain_wkt(g, chain).startswith("LINESTRING (")


def test_river_follows_river_hexes():
    # A bent river: from a north-east to a bend, then south-east to b.
    import h3

    a, bend, b = cell_at(40.1, 10.05, 6), cell_at(40.33, 10.3, 6), cell_at(40.1, 10.55, 6)
    course = set(h3.grid_path_cells(a, bend)) | set(h3.grid_path_cells(bend, b))
    g = _graph(lambda c: "hills", river_of=lambda c: c in course)
    path = shortest_path(g, a, b, river_cost(DEFAULT_ROUTING))
    assert set(path) <= course  # it may cut the bend between two adjacent river hexes, never leave the river


# ------------------------------------------------------------------ the real map


@pytest.fixture(scope="module")
def real_campaign(tmp_path_factory, mediterranean_map):
    """The default map, built once, and the First Punic War campaign on it."""
    from bellica.etl.campaign import create_campaign

    d = tmp_path_factory.mktemp("real")  # the run's one default map (tests/conftest.py), not a build of its own
    result = create_campaign("first-punic-war", d / "fpw.duckdb", map_path=mediterranean_map)
    con = connect(result.path, read_only=True)
    yield result, con
    con.close()


def test_real_roads_are_connected_chains_of_passable_land(real_campaign):
    result, con = real_campaign
    assert_roads_valid(con)
    # First and last cells are the first and last waypoints' hexes.
    from bellica.etl.scenario import load_scenario

    s = load_scenario("first-punic-war")
    cells = dict(con.execute("SELECT name, cell FROM structures").fetchall())
    for road in s.roads:
        chain = [r[0] for r in con.execute("SELECT cell FROM road_cells WHERE road = ? ORDER BY seq", [road.name]).fetchall()]
        first, last = road.waypoints[0], road.waypoints[-1]
        if first.structure:
            assert chain[0] == cells[first.structure], road.name
        if last.structure:
            assert chain[-1] == cells[last.structure], road.name
        for wp in road.waypoints:
            if wp.structure:
                assert cells[wp.structure] in chain, (road.name, wp.structure)
    kinds = con.execute(
        "SELECT DISTINCT h.kind, h.terrain FROM road_cells r JOIN hexes h USING (cell) WHERE h.kind <> 'land' OR h.terrain = 'peaks'"
    ).fetchall()
    assert kinds == []
    # Road edges name the side crossed, in both directions.
    n = con.execute("SELECT count(*) FROM road_edges e JOIN hex_neighbors n USING (cell, neighbor, clock)").fetchone()[0]
    assert n == con.execute("SELECT count(*) FROM road_edges").fetchone()[0] > 0


def test_structure_in_the_sea_is_refused_on_the_real_map(mediterranean_map, tmp_path):
    import shutil

    from bellica.etl.campaign import create_campaign
    from bellica.etl.scenario import scenario_dir

    d = tmp_path / "fpw"
    shutil.copytree(scenario_dir("first-punic-war"), d)
    text = (d / "structures.csv").read_text()
    line = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("Ostia,"))
    (d / "structures.csv").write_text(text.replace("Ostia,Ostia Antica,town,41.7556,12.2919", "Ostia,Ostia Antica,town,41.2000,11.8000"))
    with pytest.raises(InputError, match=rf"structures.csv line {line}: structure 'Ostia' at \(41.2, 11.8\) lies in a sea hex"):
        create_campaign(d, tmp_path / "x.duckdb", map_path=mediterranean_map)
    assert not (tmp_path / "x.duckdb").exists()


from hypothesis import given, settings, strategies as st  # noqa: E402

_CELLS = cells_in_bbox((10.0, 40.0, 10.4, 40.25), 6)
_TERRAINS = ("farmlands", "desert", "hills", "marshes", "forests", "mountains", "peaks")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_TERRAINS + ("lake", "sea")), min_size=len(_CELLS), max_size=len(_CELLS)),
       st.integers(0, len(_CELLS) - 1), st.integers(0, len(_CELLS) - 1))
def test_any_route_found_is_an_adjacent_chain_of_passable_land(labels, i, j):
    lab = dict(zip(_CELLS, labels))
    g = _graph(lambda c: lab[c] if lab[c] in _TERRAINS else None, bbox=(10.0, 40.0, 10.4, 40.25),
               kind_of=lambda c: "land" if lab[c] in _TERRAINS else lab[c])
    a, b = _CELLS[i], _CELLS[j]
    path = shortest_path(g, a, b, road_cost(DEFAULT_ROUTING))
    if path is None:
        return
    assert path[0] == a and path[-1] == b
    assert all(y in {n for n, _ in g.neighbors[x]} for x, y in zip(path, path[1:]))
    assert all(g.kind[c] == "land" and g.terrain[c] != "peaks" for c in path[1:-1])


def test_equal_cost_routes_break_ties_by_the_lowest_cell_id():
    # Uniform farmland: many chains of the same least cost.  Walking back from the goal, each
    # hex takes the lowest-id neighbour one step nearer the start (the documented tie-break),
    # whatever csgraph's own predecessor choice is.
    g = _graph(lambda c: "farmlands")
    a = min(g.kind)
    hops = {a: 0}
    frontier = [a]
    while frontier:  # BFS hop counts: every step costs the same here
        nxt = []
        for c in frontier:
            for n, _ in g.neighbors[c]:
                if n not in hops:
                    hops[n] = hops[c] + 1
                    nxt.append(n)
        frontier = nxt
    b = max(hops, key=lambda c: (hops[c], c))  # a farthest hex: the most equal-cost chains
    path = shortest_path(g, a, b, road_cost(DEFAULT_ROUTING))
    expected = [b]
    while expected[-1] != a:
        expected.append(min(n for n, _ in g.neighbors[expected[-1]] if hops.get(n) == hops[expected[-1]] - 1))
    assert path == expected[::-1]
    assert len(path) - 1 == hops[b] > 3
