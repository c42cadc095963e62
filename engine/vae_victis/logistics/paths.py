"""Graph search for the logistics: MP distances over the map, and the hexes on each line.

Both run in plain Python over compressed adjacency lists built once per graph (kept on the
Board's :class:`~bellica.engine.vae_victis.logistics.compute.LogisticsCache`), node ``i`` being
the ``i``-th cell id in sorted order, so every graph (and so every result) is the same on every run.

Why plain Python (heapq Dijkstra, breadth-first search) rather than ``scipy.sparse.csgraph``:
importing numpy and scipy.sparse.csgraph cost a CLI step ~0.35 s (scipy.sparse.csgraph pulls in
scipy.linalg), several times what the searches themselves take.  The searches are small: an
army's search stops at its faction's nearest line hex or at ``distance_cutoff_mp`` (24 MP: a
few hundred hexes at res 5 or 6, whatever the map's size), and the link graphs' hop searches
run on the pruned core graph (``logistics_core_edges``: ~600 road edges at res 5).  Results are
the same as csgraph's (tests/engine/test_logistics_paths.py compares them on the demo campaign
against the former scipy code): MP are small integers, so every sum is exact and the least
distance is unique whatever order the heap pops equal keys in.

Tie-breaking: no result here depends on which of several equal-cost paths a search follows.
MP distances are path-independent, and the hexes "on" a line are every hex of *every*
shortest path between its two structures (``da + db == total``), never one path picked among
equals; and no predecessors are kept.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections import defaultdict
from heapq import heappop, heappush
from typing import Iterable, Mapping, NamedTuple

from bellica.engine.vae_victis.costs import step_cost
from bellica.engine.vae_victis.logistics.options import LogisticsLine
from bellica.engine.vae_victis.model import Board
from bellica.engine.vae_victis.rules import MovementRules
from bellica.geo.spatialdb import run_sql

INF = math.inf


def _entry_mp(movement: MovementRules, kind, terrain, *, road: bool, line_road: bool, river_without_structure: bool) -> float:
    """The MP to enter a hex, by the one rule (:func:`engine.vae_victis.costs.step_cost`): inf = never.

    Logistics ignores ZoC and navies (distances to the lines are priced on the bare map)."""
    cost = step_cost(movement, terrain, kind or "", road=road, logistics_road=line_road,
                     river_without_structure=river_without_structure)
    return INF if cost is None else float(cost.mp)


class Steps(NamedTuple):
    """A weighted graph in compressed rows: the steps out of node ``i`` are ``cols[indptr[i]:indptr[i+1]]``,
    entering costs ``data`` (inf: never taken), in (from, to) order."""

    indptr: array
    cols: array
    data: array


def _compressed(n: int, rows: list[int]) -> array:
    """``indptr`` of sorted ``rows`` over ``n`` nodes."""
    indptr = array("i", [0]) * (n + 1)
    for r in rows:
        indptr[r + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    return indptr


def _adjacency(indptr, cols) -> list[list[tuple[int, int]]]:
    """Per node, its (neighbour, step number) pairs: the searches' inner loop reads plain lists."""
    cols = cols.tolist()
    return [[(cols[k], k) for k in range(indptr[i], indptr[i + 1])] for i in range(len(indptr) - 1)]


class TerrainGraph:
    """The map as the graph armies move on, for MP distances.

    Node ``i`` is hex ``cells[i]``; its steps are ``(from, to)`` pairs in sorted order, the weight
    of a step the MP to enter its hex (:func:`_entry_mp`); steps into hexes that cannot be entered
    are left out.  The -1 MP of a faction's own logistics roads is applied per search (:meth:`matrix`).

    Built from columns (:meth:`from_arrays`): by :meth:`from_board` for a pure Board, and by
    :meth:`from_con` straight from a campaign database, where DuckDB does the indexing; a test
    checks the two give the same steps.
    """

    @classmethod
    def from_arrays(cls, cells: list[str], frm: Iterable[int], to: Iterable[int], facts: list[tuple], fact_of: list[int],
                    road_frm: Iterable[int], road_to: Iterable[int], movement: MovementRules) -> "TerrainGraph":
        """``cells`` sorted; ``frm``/``to``: every neighbour step as node numbers; ``facts``: the distinct
        (kind, terrain, river without structure, road hex by the any-side option) of the hexes and
        ``fact_of[i]`` the one of node ``i``; ``road_frm``/``road_to``: the road steps."""
        g = cls.__new__(cls)
        g.cells, g.movement = cells, movement
        g.index = {c: i for i, c in enumerate(cells)}
        n = len(cells)
        # Off-road costs depend on the hex entered only: price each kind of hex once.
        off_of = [_entry_mp(movement, k, t, road=rh, line_road=False, river_without_structure=r) for k, t, r, rh in facts]
        off = [off_of[f] for f in fact_of]
        kept = [(a, b) for a, b in sorted(zip(frm, to)) if off[b] != INF]
        g._rows = array("i", [a for a, _ in kept])
        g._cols = array("i", [b for _, b in kept])
        g._indptr = _compressed(n, g._rows)
        weight = [off[b] for _, b in kept]
        line_weight = list(weight)
        # The road steps: their position among the steps, their MP on a road and on a line road.
        on_road = [_entry_mp(movement, k, t, road=True, line_road=False, river_without_structure=r) for k, t, r, _ in facts]
        on_line = [_entry_mp(movement, k, t, road=True, line_road=True, river_without_structure=r) for k, t, r, _ in facts]
        width = max(n, 1)
        key = [a * width + b for a, b in kept]  # ascending: ``kept`` is sorted
        g._step_at = {}
        for a, b in zip(road_frm, road_to):
            want = a * width + b
            pos = bisect_left(key, want)
            if pos < len(key) and key[pos] == want:  # the first of equal steps, as a binary search finds it
                weight[pos] = on_road[fact_of[b]]
                line_weight[pos] = on_line[fact_of[b]]
                g._step_at[(cells[a], cells[b])] = pos
        g._weight, g._line_weight = weight, line_weight
        g._facts, g._fact_of = facts, list(fact_of)
        g._out = _adjacency(g._indptr, g._cols)
        g._back = None
        return g

    @classmethod
    def from_board(cls, board: Board) -> "TerrainGraph":
        hexes, movement = board.hexes, board.rules.movement
        cells = sorted(hexes)
        index = {c: i for i, c in enumerate(cells)}
        structure_cells = {s.cell for s in board.structures.values()}
        # The seed's option: a Town/City hex where roads end counts as a road hex from any side.
        road_hexes = ({a for a, _ in board.road_edges} & structure_cells) if movement.structure_road_any_side else set()
        codes: dict[tuple, int] = {}
        fact_of = [codes.setdefault((hexes[c].kind, hexes[c].terrain, hexes[c].river and c not in structure_cells,
                                     c in road_hexes), len(codes)) for c in cells]
        pairs = [(index[c], index[n]) for c, by_clock in board.sides.items() if c in index
                 for n in by_clock.values() if n in index]
        roads = [(index[a], index[b]) for a, b in sorted(board.road_edges) if a in index and b in index]
        return cls.from_arrays(cells, [a for a, _ in pairs], [b for _, b in pairs], list(codes), fact_of,
                               [a for a, _ in roads], [b for _, b in roads], movement)

    @classmethod
    def from_con(cls, con, movement: MovementRules | None = None) -> "TerrainGraph":
        """The graph of a campaign database (the same hexes, sides, rivers, structures and roads a
        Board is read from), indexed in SQL."""
        if movement is None:
            from bellica.engine.vae_victis.rules import read_rules

            movement = read_rules(con).movement
        run = lambda sql, name: run_sql(con, sql, name=name).fetchall()  # noqa: E731
        index = "WITH idx AS (SELECT cell, CAST(row_number() OVER (ORDER BY cell) - 1 AS INTEGER) AS i FROM hexes)"
        nodes = run(
            index + f""",
            structure_cells AS (SELECT DISTINCT cell FROM structures),
            road_hexes AS (SELECT DISTINCT cell FROM road_edges WHERE {bool(movement.structure_road_any_side)}
                           AND cell IN (SELECT cell FROM structure_cells)),
            facts AS (
                SELECT i, h.cell, h.kind, h.terrain,
                       (h.cell IN (SELECT cell FROM river_cells) AND h.cell NOT IN (SELECT cell FROM structure_cells)) AS river_ns,
                       (h.cell IN (SELECT cell FROM road_hexes)) AS road_hex
                FROM idx JOIN hexes h USING (cell))
            SELECT i, CAST(dense_rank() OVER (ORDER BY kind NULLS FIRST, terrain NULLS FIRST, river_ns, road_hex) - 1 AS INTEGER) AS code,
                   kind, terrain, river_ns, road_hex, cell
            FROM facts ORDER BY i""",
            "terrain_graph.nodes",
        )
        fact_of = [row[1] for row in nodes]
        facts: list[tuple] = [()] * (max(fact_of) + 1 if nodes else 0)
        seen: set[int] = set()
        for _i, code, kind, terrain, river_ns, road_hex, _cell in nodes:
            if code not in seen:  # the first hex of each kind of hex names it
                seen.add(code)
                facts[code] = (None if kind is None else str(kind), None if terrain is None else str(terrain),
                               bool(river_ns), bool(road_hex))
        steps = run(index + """
            SELECT a.i AS frm, b.i AS dst FROM hex_neighbors n JOIN idx a ON a.cell = n.cell JOIN idx b ON b.cell = n.neighbor""",
                    "terrain_graph.steps")
        roads = run(index + """
            SELECT DISTINCT a.i AS frm, b.i AS dst FROM road_edges r JOIN idx a ON a.cell = r.cell JOIN idx b ON b.cell = r.neighbor
            WHERE a.i <> b.i""", "terrain_graph.roads")
        return cls.from_arrays([row[6] for row in nodes], [a for a, _ in steps], [b for _, b in steps], facts, fact_of,
                               [a for a, _ in roads], [b for _, b in roads], movement)

    def fact(self, cell: str) -> tuple:
        """(kind, terrain, river without structure, road hex by the any-side option) of ``cell``."""
        return self._facts[self._fact_of[self.index[cell]]]

    def _data(self, line_roads: Iterable[tuple[str, str]] = ()) -> list[float]:
        """Each step's MP, with ``line_roads`` (a faction's road steps on its lines) at their line MP."""
        steps = [e for e in map(self._step_at.get, line_roads) if e is not None]
        if not steps:
            return self._weight
        data = list(self._weight)
        for e in steps:
            data[e] = self._line_weight[e]
        return data

    def matrix(self, line_roads: Iterable[tuple[str, str]] = ()) -> Steps:
        """The MP graph in compressed rows, with ``line_roads`` at their line MP."""
        return Steps(self._indptr, self._cols, array("d", self._data(line_roads)))

    def _backward(self) -> list[list[tuple[int, int]]]:
        """Per node, the (node, step number) of every step into it (built on first use)."""
        if self._back is None:
            back: list[list[tuple[int, int]]] = [[] for _ in self.cells]
            for k, (a, b) in enumerate(zip(self._rows.tolist(), self._cols.tolist())):
                back[b].append((a, k))
            self._back = back
        return self._back

    def distances_to(self, targets: Iterable[str], line_roads=(), cutoff: float = INF) -> list[float]:
        """Least MP from every hex (a list by node) to the nearest hex of ``targets``; inf beyond ``cutoff``.

        One search backwards from all the targets at once."""
        n = len(self.cells)
        dist = [INF] * n
        sources = sorted({self.index[t] for t in targets if t in self.index})
        if not sources:
            return dist
        data, back = self._data(line_roads), self._backward()
        done = bytearray(n)
        heap = [(0.0, s) for s in sources]
        for s in sources:
            dist[s] = 0.0
        while heap:
            d, u = heappop(heap)
            if done[u]:
                continue
            done[u] = 1
            for i, k in back[u]:
                nd = d + data[k]
                if nd <= cutoff and nd < dist[i]:
                    dist[i] = nd
                    heappush(heap, (nd, i))
        return dist

    def _nearest(self, start: int, goal: set[int], data: list[float], cutoff: float) -> float:
        """Least MP from node ``start`` (not a goal) to the nearest node of ``goal``: the first goal
        the search settles (inf beyond ``cutoff``)."""
        out = self._out
        dist = {start: 0.0}
        done: set[int] = set()
        heap = [(0.0, start)]
        while heap:
            d, u = heappop(heap)
            if u in done:
                continue
            if u in goal:
                return d
            done.add(u)
            for j, k in out[u]:
                nd = d + data[k]
                if nd <= cutoff and nd < dist.get(j, INF):
                    dist[j] = nd
                    heappush(heap, (nd, j))
        return INF

    def distances_from(self, starts: list[str], targets: frozenset[str] | set[str], line_roads=(), cutoff: float = INF) -> list[float]:
        """Least MP from each hex of ``starts`` to the nearest hex of ``targets`` (inf beyond ``cutoff``).

        Searched forward from each start not already on a target, up to the nearest target or
        ``cutoff``: the armies are few and mostly on or near their lines, the lines long."""
        out = [0.0 if s in targets else INF for s in starts]
        todo = [k for k, s in enumerate(starts) if s not in targets and s in self.index]
        goal = {self.index[t] for t in targets if t in self.index}
        if not todo or not goal:
            return out
        data = self._data(line_roads)
        for k in todo:
            out[k] = self._nearest(self.index[starts[k]], goal, data, cutoff)
        return out


def enter_cost(g: TerrainGraph, frm: str, to: str, line_roads: frozenset[tuple[str, str]] | set = frozenset()) -> float:
    """MP to step from ``frm`` into ``to`` as the logistics price it (inf: cannot be entered)."""
    kind, terrain, river_without_structure, road_hex = g.fact(to)
    road = (frm, to) in g._step_at or road_hex
    return _entry_mp(g.movement, kind, terrain, road=road,
                     line_road=road and ((frm, to) in line_roads or (to, frm) in line_roads),
                     river_without_structure=river_without_structure)


def mp_distances_to(g: TerrainGraph, targets: Iterable[str], line_roads=frozenset(), cutoff: float = INF) -> dict[str, float]:
    """Least MP for an army in each hex to reach any hex of ``targets`` (hexes beyond ``cutoff`` left out)."""
    dist = g.distances_to(targets, line_roads, cutoff)
    return {g.cells[i]: float(d) for i, d in enumerate(dist) if d != INF}


def army_mp_distance(g: TerrainGraph, start: str, targets: frozenset[str] | set[str], line_roads=frozenset(), cutoff: float = INF) -> float:
    """Least MP for an army in ``start`` to reach a hex of ``targets`` (inf beyond ``cutoff``)."""
    return g.distances_from([start], targets, line_roads, cutoff)[0]


def army_distances(g: TerrainGraph, armies: Iterable[tuple[int, str, str]], line_cells: Mapping[str, frozenset[str]],
                   line_roads: Mapping[str, Iterable[tuple[str, str]]], cutoff: float) -> dict[int, float]:
    """MP from each (army, faction, cell) to its faction's lines: one search per army, a faction's together."""
    by_faction: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for army_id, faction, cell in armies:
        by_faction[faction].append((army_id, cell))
    out: dict[int, float] = {}
    for faction, group in sorted(by_faction.items()):
        found = g.distances_from([c for _, c in group], line_cells.get(faction, frozenset()), line_roads.get(faction, ()), cutoff)
        out.update(zip((a for a, _ in group), found))
    return out


# --- the link graphs: which hexes lie on a line ---------------------------------------------


class _LinkGraph:
    """One link type's static graph (``logistics_core_edges`` plus its attachments), every step 1 hop."""

    def __init__(self, edges: list[tuple[str, str]], extra_cells: Iterable[str]):
        self.cells = sorted({c for e in edges for c in e} | set(extra_cells))
        self.index = {c: i for i, c in enumerate(self.cells)}
        pairs = sorted((self.index[a], self.index[b]) for a, b in edges)
        self.rows = [a for a, _ in pairs]
        self.cols = [b for _, b in pairs]
        self.out: list[list[int]] = [[] for _ in self.cells]
        self.into: list[list[int]] = [[] for _ in self.cells]  # the hexes with a step into each hex
        for a, b in pairs:
            self.out[a].append(b)
            self.into[b].append(a)

    def hops_from(self, sources: list[int], blocked: set[int]) -> list[float]:
        """Hops from the nearest of ``sources`` to every node (inf: unreachable), never stepping
        into a ``blocked`` node (a source is where a search starts, blocked or not)."""
        dist = [INF] * len(self.cells)
        for s in sources:
            dist[s] = 0
        frontier, d, out = list(sources), 0, self.out
        while frontier:
            d += 1
            nxt = []
            for u in frontier:
                for v in out[u]:
                    if dist[v] == INF and v not in blocked:
                        dist[v] = d
                        nxt.append(v)
            frontier = nxt
        return dist


class LinkGraphs:
    """The static link graphs (road and river: the types whose hexes are "on" a line) and every
    structure's attachments, read once per Board from ``logistics_core_edges`` (a shortest path
    between two attachments never enters a dead end, so the core graph is enough)."""

    PATH_TYPES = ("road", "river")

    def __init__(self, core_edges: Iterable[tuple[str, str, str]], attachments: Iterable[tuple[str, str, str]]):
        self.attach: dict[tuple[str, str], set[str]] = defaultdict(set)
        for t, s, c in attachments:
            self.attach[(t, s)].add(c)
        edges: dict[str, list[tuple[str, str]]] = {t: [] for t in self.PATH_TYPES}
        for t, c, n in core_edges:
            if t in edges:
                edges[t].append((c, n))
        self.graphs = {
            t: _LinkGraph(edges[t], (c for (tt, _), cells in self.attach.items() if tt == t for c in cells))
            for t in self.PATH_TYPES
        }

    @classmethod
    def from_con(cls, con) -> "LinkGraphs":
        return cls(
            run_sql(con, "SELECT link_type, cell, neighbor FROM logistics_core_edges", name="logistics_core_edges").fetchall(),
            run_sql(con, "SELECT link_type, structure, cell FROM logistics_attachments", name="logistics_attachments").fetchall(),
        )


def _ending_at(g: _LinkGraph, dist: list[float], goals: list[int]) -> list[float]:
    """``dist`` with the goals' (closed) hexes given their distance: one step from the nearest open neighbour."""
    dist = list(dist)
    for b in goals:
        near = min((dist[a] for a in g.into[b]), default=INF) + 1
        dist[b] = min(dist[b], near)
    return dist


def line_paths(
    con, lines: tuple[LogisticsLine, ...], supplied: Mapping[str, frozenset[str]], static: LinkGraphs | None = None
) -> tuple[dict[str, set[str]], dict[str, set[tuple[str, str]]]]:
    """Hexes and road steps on the shortest uninterrupted path(s) of each road/river link.

    The SQL proves two consecutive structures are connected; which hexes "are"
    the line is a choice: every hex on a shortest uninterrupted path of the
    link's type between them that does not enter another of the faction's
    structures on the lines (documented in docs/rules/administration.md).
    """
    cells: dict[str, set[str]] = defaultdict(set)
    roads: dict[str, set[tuple[str, str]]] = defaultdict(set)
    wanted = [ln for ln in lines if ln.link_type in LinkGraphs.PATH_TYPES]
    if not wanted:
        return cells, roads
    static = static or LinkGraphs.from_con(con)
    attach = static.attach
    cut: dict[str, set[str]] = defaultdict(set)
    for f, c in run_sql(
        con, "SELECT faction, cell FROM logistics_interruptions WHERE medium = 'land'", name="logistics_interruptions"
    ).fetchall():
        cut[f].add(c)
    # Per (faction, link type), every structure on the faction's lines is closed to entering (a
    # line never runs through another of its structures); a line's searches start from its two
    # structures' attachment hexes.  A shortest path between two structures never passes through
    # an attachment of either before its end (it would start or stop there instead), so a line's
    # distances are these searches', plus the last step into the goal's own (closed) attachment,
    # added by hand.
    closed: dict[tuple[str, str], set[int]] = {}
    for ln in wanted:
        t, f = ln.link_type, ln.faction
        g = static.graphs[t]
        if (f, t) not in closed:
            ends = set(supplied.get(f, ())) | {s for x in wanted if x.faction == f for s in (x.from_structure, x.to_structure)}
            on_lines = {c for s in ends for c in attach[(t, s)]}
            closed[(f, t)] = {g.index[c] for c in cut[f] | on_lines if c in g.index}
        others = {c for s in supplied.get(f, ()) if s not in (ln.from_structure, ln.to_structure) for c in attach[(t, s)]}
        blocked = cut[f] | others
        a_src = sorted(g.index[c] for c in attach[(t, ln.from_structure)] - blocked)
        b_src = sorted(g.index[c] for c in attach[(t, ln.to_structure)] - blocked)
        if not a_src or not b_src:
            continue
        da = _ending_at(g, g.hops_from(a_src, closed[(f, t)]), b_src)
        db = _ending_at(g, g.hops_from(b_src, closed[(f, t)]), a_src)
        total = min(da[b] for b in b_src)
        if math.isinf(total):
            continue
        on = [x + y == total for x, y in zip(da, db)]  # hop counts are small integers: exact
        cells[f].update(g.cells[i] for i, yes in enumerate(on) if yes)
        if t == "road":
            for a, b in zip(g.rows, g.cols):
                if on[a] and on[b] and da[a] + 1 + db[b] == total:
                    roads[f].add((g.cells[a], g.cells[b]))
                    roads[f].add((g.cells[b], g.cells[a]))
    return cells, roads
