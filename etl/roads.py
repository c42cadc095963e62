"""Least-cost routing of roads and rivers onto chains of adjacent land hexes.

A scenario gives a road as ordered waypoints; each leg between consecutive
waypoints is routed by Dijkstra over ``hex_neighbors``.  The cost of a step is
the cost of the hex entered:

* roads: the terrain's cost (the rules' MP cost halved by default: farmlands 1
  ... mountains 6), plus a term per 1000 m of mean elevation (prefer valleys
  and passes over ridges), plus a penalty for hexes that are neither next to a
  coast hex nor River hexes (ancient roads hug coasts and valleys).  Only land
  hexes are entered, never peaks, and never coast, sea, ocean or lake hexes;
* rivers: a map River hex costs 1 and any other land hex more, plus a steep
  elevation term, so the chain follows the map's river line where it has one
  and runs down the valley floor where it has not.  Rivers may cross peaks'
  neighbours but not peaks or water.

Shortest paths are scipy's ``csgraph.dijkstra`` over a matrix built once per graph and
cost function (nodes in sorted cell-id order).  Ties are broken explicitly, not by
csgraph's own (implementation-defined) predecessor choice: walking back from the goal,
each hex takes, among the neighbours that reach it at its least cost, the one with the
least cost of its own, then the lowest cell id, so a route is the same on every run.
The results are stored by :mod:`etl.campaign` as ``road_cells(road, seq, cell)``,
the ``road_edges`` view and ``roads(name, geom)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from bellica.geo.errors import InputError

__all__ = ["HexGraph", "road_cost", "river_cost", "route_chain", "shortest_path", "chain_wkt"]


@dataclass
class HexGraph:
    """The map as a weighted graph: per-cell attributes and neighbours with clock positions."""

    kind: dict[str, str]
    terrain: dict[str, str | None]
    elev: dict[str, float]
    river: dict[str, bool]
    latlng: dict[str, tuple[float, float]]
    neighbors: dict[str, list[tuple[str, int]]]
    coastal: set[str]
    _matrices: dict = field(default_factory=dict, compare=False, repr=False)  # cost function -> _CostGraph

    @classmethod
    def from_db(cls, con) -> "HexGraph":
        """Read ``hexes`` and ``hex_neighbors`` from a map or campaign connection."""
        kind, terrain, elev, river, latlng = {}, {}, {}, {}, {}
        rows = con.execute(
            "SELECT cell, kind, terrain, coalesce(elev_mean, 0), coalesce(river, false), lat, lng FROM hexes"
        ).fetchall()
        for cell, k, t, e, r, lat, lng in rows:
            kind[cell], terrain[cell], elev[cell], river[cell], latlng[cell] = k, t, float(e), bool(r), (lat, lng)
        neighbors: dict[str, list[tuple[str, int]]] = {c: [] for c in kind}
        for cell, nbr, clock in con.execute("SELECT cell, neighbor, clock FROM hex_neighbors ORDER BY cell, neighbor").fetchall():
            if cell in neighbors and nbr in kind:
                neighbors[cell].append((nbr, clock))
        coastal = {c for c, k in kind.items() if k == "land" and any(kind[n] == "coast" for n, _ in neighbors[c])}
        return cls(kind, terrain, elev, river, latlng, neighbors, coastal)


CostFn = Callable[[HexGraph, str], float | None]


def road_cost(routing: dict) -> CostFn:
    """Step cost into a hex for roads (None = never), from a scenario's [routing] knobs."""
    terrain_cost = routing["road_terrain_cost"]
    per_km = float(routing["road_elevation_per_km"])
    off_valley = float(routing["road_off_valley_penalty"])

    def cost(g: HexGraph, cell: str) -> float | None:
        if g.kind.get(cell) != "land":
            return None
        base = terrain_cost.get(g.terrain.get(cell) or "")
        if base is None:  # peaks (or a terrain the knobs do not price) are never entered
            return None
        extra = per_km * max(g.elev.get(cell, 0.0), 0.0) / 1000.0
        if cell not in g.coastal and not g.river.get(cell, False):
            extra += off_valley
        return base + extra

    return cost


def river_cost(routing: dict) -> CostFn:
    """Step cost into a hex for rivers: map River hexes cheap, low ground preferred."""
    off_river = float(routing["river_off_river_cost"])
    per_km = float(routing["river_elevation_per_km"])

    def cost(g: HexGraph, cell: str) -> float | None:
        if g.kind.get(cell) != "land" or g.terrain.get(cell) == "peaks":
            return None
        base = 1.0 if g.river.get(cell, False) else off_river
        return base + per_km * max(g.elev.get(cell, 0.0), 0.0) / 1000.0

    return cost


class _CostGraph:
    """``g`` as a csgraph matrix for one cost function: a step into a hex weighs its cost, and
    steps into hexes the cost function refuses are left out.  Node ``i`` is ``cells[i]``, sorted."""

    def __init__(self, g: HexGraph, cost: CostFn):
        self.cells = sorted(g.kind)
        self.index = {c: i for i, c in enumerate(self.cells)}
        self.entry = np.array([np.inf if (c := cost(g, cell)) is None else c for cell in self.cells], dtype=float)
        rows, cols = [], []
        for i, cell in enumerate(self.cells):
            for nbr, _clock in g.neighbors.get(cell, ()):
                j = self.index.get(nbr)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
        rows_a, cols_a = np.asarray(rows, dtype=np.int32), np.asarray(cols, dtype=np.int32)
        self.neighbours = [[] for _ in self.cells]  # every map neighbour, for walking back
        for i, j in zip(rows, cols):
            self.neighbours[j].append(i)
        ok = np.isfinite(self.entry[cols_a])
        n = len(self.cells)
        self.matrix = csr_matrix((self.entry[cols_a[ok]], (rows_a[ok], cols_a[ok])), shape=(n, n))
        self.dist: dict[int, np.ndarray] = {}

    def from_start(self, i: int) -> np.ndarray:
        if i not in self.dist:
            if len(self.dist) > 64:  # a scenario's waypoints: keep memory bounded on large maps
                self.dist.clear()
            self.dist[i] = dijkstra(self.matrix, directed=True, indices=i)
        return self.dist[i]


def shortest_path(g: HexGraph, start: str, goal: str, cost: CostFn) -> list[str] | None:
    """Least-cost chain of adjacent hexes from ``start`` to ``goal`` (both included), or None.

    The endpoints are always allowed (a structure's own hex is routable by
    construction); every hex in between must have a cost.  Among equal-cost
    chains, the one of the module docstring's tie-break.
    """
    if start == goal:
        return [start]
    cg = g._matrices.get(cost)
    if cg is None:
        cg = g._matrices[cost] = _CostGraph(g, cost)
    s, t = cg.index.get(start), cg.index.get(goal)
    if s is None or t is None:
        return None
    dist = cg.from_start(s)
    goal_step = cost(g, goal) or 1.0  # the goal is entered even when it could not be passed through
    into_goal = [(dist[u] + goal_step, dist[u], u) for u in cg.neighbours[t] if np.isfinite(dist[u])]
    if not into_goal:
        return None
    path = [t]
    _total, _, u = min(into_goal)
    while u != s:
        path.append(u)
        # u is reached at dist[u] = dist[p] + entry[u] from some neighbour p; take the cheapest
        # such p (least dist[p]), then the lowest cell id (index), as the docstring says.
        options = [(dist[p], p) for p in cg.neighbours[u] if dist[p] + cg.entry[u] == dist[u]]
        u = min(options)[1]
    path.append(s)
    return [cg.cells[i] for i in reversed(path)]


def route_chain(g: HexGraph, cells: Sequence[str], cost: CostFn, *, name: str, labels: Sequence[str] | None = None) -> list[str]:
    """Route every leg between consecutive waypoint cells and join the legs into one chain.

    Raises InputError naming the route and the leg when two waypoints are not
    connected over routable land (for instance on two islands).
    """
    chain: list[str] = [cells[0]]
    for i, (a, b) in enumerate(zip(cells, cells[1:])):
        leg = shortest_path(g, a, b, cost)
        if leg is None:
            la = labels[i] if labels else a
            lb = labels[i + 1] if labels else b
            raise InputError(
                f"{name}: no land route from {la} to {lb} (leg {i + 1}): they are not joined by passable land; "
                "split the road or add a waypoint"
            )
        chain.extend(leg[1:])
    return chain


def chain_wkt(g: HexGraph, chain: Sequence[str]) -> str:
    """WKT line through the centres of the chain's hexes (lon lat order)."""
    pts = [g.latlng[c] for c in chain]
    if len(pts) == 1:
        pts = pts * 2
    return "LINESTRING (" + ", ".join(f"{lng:.6f} {lat:.6f}" for lat, lng in pts) + ")"
