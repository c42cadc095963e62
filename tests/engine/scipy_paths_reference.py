"""The logistics graph searches as they were on scipy.sparse.csgraph (commit 051eec6), kept only as the
reference tests/engine/test_logistics_paths.py compares the plain-Python searches of
:mod:`bellica.engine.vae_victis.logistics.paths` against (the same distances, lines and road steps)."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable, Mapping

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from bellica.engine.vae_victis.costs import step_cost
from bellica.engine.vae_victis.logistics.options import LogisticsLine
from bellica.engine.vae_victis.model import Board
from bellica.engine.vae_victis.rules import MovementRules
from bellica.geo.spatialdb import run_sql


def _columns(pairs: list[tuple[int, int]], width: int) -> tuple[np.ndarray, ...]:
    """Integer columns of a list of tuples (empty lists give empty columns)."""
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, width)
    return tuple(arr[:, k] for k in range(width))


def _text(value) -> str | None:
    """A VARCHAR from fetchnumpy (masked arrays give masked for NULL)."""
    return None if value is None or value is np.ma.masked else str(value)


def _entry_mp(movement: MovementRules, kind, terrain, *, road: bool, line_road: bool, river_without_structure: bool) -> float:
    """The MP to enter a hex, by the one rule (:func:`engine.vae_victis.costs.step_cost`): inf = never.

    Logistics ignores ZoC and navies (distances to the lines are priced on the bare map)."""
    cost = step_cost(movement, terrain, kind or "", road=road, logistics_road=line_road,
                     river_without_structure=river_without_structure)
    return math.inf if cost is None else float(cost.mp)


class TerrainGraph:
    """The map as the graph armies move on, for MP distances.

    Row ``i`` holds the steps out of hex ``cells[i]``; the weight of a step is the MP to enter
    its hex (:func:`_entry_mp`); steps into hexes that cannot be entered are left out.  The
    -1 MP of a faction's own logistics roads is applied per search (:meth:`matrix`).

    Built from arrays (:meth:`from_arrays`): by :meth:`from_board` for a pure Board, and by
    :meth:`from_con` straight from a campaign database, where DuckDB does the indexing and the
    graph costs a few array copies instead of a Python pass over every neighbour pair (at
    res 6, ~185,000 of them); a test checks the two give the same matrices.
    """

    @classmethod
    def from_arrays(cls, cells: list[str], frm: np.ndarray, to: np.ndarray, facts: list[tuple], fact_of: np.ndarray,
                    road_frm: np.ndarray, road_to: np.ndarray, movement: MovementRules) -> "TerrainGraph":
        """``cells`` sorted; ``frm``/``to``: every neighbour step as node numbers; ``facts``: the distinct
        (kind, terrain, river without structure, road hex by the any-side option) of the hexes and
        ``fact_of[i]`` the one of node ``i``; ``road_frm``/``road_to``: the road steps."""
        g = cls.__new__(cls)
        g.cells, g.movement = cells, movement
        g.index = {c: i for i, c in enumerate(cells)}
        n = len(cells)
        # Off-road costs depend on the hex entered only: price each kind of hex once.
        off = np.array([_entry_mp(movement, k, t, road=rh, line_road=False, river_without_structure=r)
                        for k, t, r, rh in facts] or [math.inf])[fact_of] if n else np.zeros(0)
        order = np.lexsort((to, frm))
        frm, to = frm[order].astype(np.int32), to[order].astype(np.int32)
        weight = off[to] if n else np.zeros(0)
        keep = np.isfinite(weight)
        g._rows, g._cols, g._weight = frm[keep], to[keep], weight[keep]
        g._indptr = np.searchsorted(g._rows, np.arange(n + 1)).astype(np.int32)
        # The road steps: their position in the data, their MP on a road and on a line road.
        on_road = [_entry_mp(movement, k, t, road=True, line_road=False, river_without_structure=r) for k, t, r, _ in facts]
        on_line = [_entry_mp(movement, k, t, road=True, line_road=True, river_without_structure=r) for k, t, r, _ in facts]
        key = g._rows.astype(np.int64) * max(n, 1) + g._cols
        want = road_frm.astype(np.int64) * max(n, 1) + road_to
        pos = np.searchsorted(key, want)
        found = pos < len(key)
        found[found] = key[pos[found]] == want[found]
        steps, ends = pos[found], road_to[found]
        g._line_weight = g._weight.copy()
        g._weight[steps] = np.asarray(on_road or [math.inf])[fact_of[ends]]
        g._line_weight[steps] = np.asarray(on_line or [math.inf])[fact_of[ends]]
        g._step_at = {(cells[a], cells[b]): int(e) for a, b, e in zip(road_frm[found].tolist(), ends.tolist(), steps.tolist())}
        g._plain = csr_matrix((g._weight, g._cols, g._indptr), shape=(n, n))
        g._facts, g._fact_of = facts, fact_of
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
        fact_of = np.fromiter(
            (codes.setdefault((hexes[c].kind, hexes[c].terrain, hexes[c].river and c not in structure_cells,
                               c in road_hexes), len(codes)) for c in cells), dtype=np.int64, count=len(cells))
        pairs = [(index[c], index[n]) for c, by_clock in board.sides.items() if c in index
                 for n in by_clock.values() if n in index]
        roads = [(index[a], index[b]) for a, b in sorted(board.road_edges) if a in index and b in index]
        return cls.from_arrays(cells, *_columns(pairs, 2), list(codes), fact_of, *_columns(roads, 2), movement)

    @classmethod
    def from_con(cls, con, movement: MovementRules | None = None) -> "TerrainGraph":
        """The graph of a campaign database (the same hexes, sides, rivers, structures and roads a
        Board is read from), indexed in SQL."""
        if movement is None:
            from bellica.engine.vae_victis.rules import read_rules

            movement = read_rules(con).movement
        run = lambda sql, name: run_sql(con, sql, name=name).fetchnumpy()  # noqa: E731
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
            SELECT i, dense_rank() OVER (ORDER BY kind NULLS FIRST, terrain NULLS FIRST, river_ns, road_hex) - 1 AS code,
                   kind, terrain, river_ns, road_hex, cell
            FROM facts ORDER BY i""",
            "terrain_graph.nodes",
        )
        n = len(nodes["i"])
        fact_of = nodes["code"].astype(np.int64)
        facts: list[tuple] = [()] * (int(fact_of.max()) + 1 if n else 0)
        first = np.unique(fact_of, return_index=True)[1] if n else []
        for i in first:
            facts[fact_of[i]] = (_text(nodes["kind"][i]), _text(nodes["terrain"][i]), bool(nodes["river_ns"][i]),
                                 bool(nodes["road_hex"][i]))
        steps = run(index + """
            SELECT a.i AS frm, b.i AS dst FROM hex_neighbors n JOIN idx a ON a.cell = n.cell JOIN idx b ON b.cell = n.neighbor""",
                    "terrain_graph.steps")
        roads = run(index + """
            SELECT DISTINCT a.i AS frm, b.i AS dst FROM road_edges r JOIN idx a ON a.cell = r.cell JOIN idx b ON b.cell = r.neighbor
            WHERE a.i <> b.i""", "terrain_graph.roads")
        return cls.from_arrays(nodes["cell"].tolist(), steps["frm"], steps["dst"], facts, fact_of, roads["frm"], roads["dst"],
                               movement)

    def fact(self, cell: str) -> tuple:
        """(kind, terrain, river without structure, road hex by the any-side option) of ``cell``."""
        return self._facts[self._fact_of[self.index[cell]]]

    def matrix(self, line_roads: Iterable[tuple[str, str]] = ()) -> csr_matrix:
        """The MP matrix, with ``line_roads`` (a faction's road steps on its lines) at their line MP."""
        steps = [e for e in map(self._step_at.get, line_roads) if e is not None]
        if not steps:
            return self._plain
        data = self._weight.copy()
        data[steps] = self._line_weight[steps]
        return csr_matrix((data, self._cols, self._indptr), shape=self._plain.shape)

    def distances_to(self, targets: Iterable[str], line_roads=(), cutoff: float = math.inf) -> np.ndarray:
        """Least MP from every hex (array by node) to the nearest hex of ``targets``; inf beyond ``cutoff``.

        One search backwards from every target (on the transposed matrix)."""
        sources = sorted({self.index[t] for t in targets if t in self.index})
        if not sources:
            return np.full(len(self.cells), math.inf)
        limit = np.inf if math.isinf(cutoff) else float(cutoff)
        back = self.matrix(line_roads).T.tocsr()
        return dijkstra(back, directed=True, indices=sources, min_only=True, limit=limit)

    def distances_from(self, starts: list[str], targets: frozenset[str] | set[str], line_roads=(), cutoff: float = math.inf) -> list[float]:
        """Least MP from each hex of ``starts`` to the nearest hex of ``targets`` (inf beyond ``cutoff``).

        Searched forward from the starts not already on a target, each out to ``cutoff``: the
        armies are few and mostly on or near their lines, the lines long."""
        out = [0.0 if s in targets else math.inf for s in starts]
        todo = [k for k, s in enumerate(starts) if s not in targets and s in self.index]
        goal = [self.index[t] for t in targets if t in self.index]
        if not todo or not goal:
            return out
        limit = np.inf if math.isinf(cutoff) else float(cutoff)
        rows = [self.index[starts[k]] for k in todo]
        dist = dijkstra(self.matrix(line_roads), directed=True, indices=rows, limit=limit)
        nearest = dist[:, goal].min(axis=1)
        for k, d in zip(todo, nearest.tolist()):
            out[k] = d
        return out


def enter_cost(g: TerrainGraph, frm: str, to: str, line_roads: frozenset[tuple[str, str]] | set = frozenset()) -> float:
    """MP to step from ``frm`` into ``to`` as the logistics price it (inf: cannot be entered)."""
    kind, terrain, river_without_structure, road_hex = g.fact(to)
    road = (frm, to) in g._step_at or road_hex
    return _entry_mp(g.movement, kind, terrain, road=road,
                     line_road=road and ((frm, to) in line_roads or (to, frm) in line_roads),
                     river_without_structure=river_without_structure)


def mp_distances_to(g: TerrainGraph, targets: Iterable[str], line_roads=frozenset(), cutoff: float = math.inf) -> dict[str, float]:
    """Least MP for an army in each hex to reach any hex of ``targets`` (hexes beyond ``cutoff`` left out)."""
    dist = g.distances_to(targets, line_roads, cutoff)
    return {g.cells[i]: float(dist[i]) for i in np.flatnonzero(np.isfinite(dist)).tolist()}


def army_mp_distance(g: TerrainGraph, start: str, targets: frozenset[str] | set[str], line_roads=frozenset(), cutoff: float = math.inf) -> float:
    """Least MP for an army in ``start`` to reach a hex of ``targets`` (inf beyond ``cutoff``)."""
    return g.distances_from([start], targets, line_roads, cutoff)[0]


def army_distances(g: TerrainGraph, armies: Iterable[tuple[int, str, str]], line_cells: Mapping[str, frozenset[str]],
                   line_roads: Mapping[str, Iterable[tuple[str, str]]], cutoff: float) -> dict[int, float]:
    """MP from each (army, faction, cell) to its faction's lines: one search per faction."""
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
    """One link type's static graph (``logistics_core_edges`` plus its attachments) as a matrix pattern."""

    def __init__(self, edges: list[tuple[str, str]], extra_cells: Iterable[str]):
        self.cells = sorted({c for e in edges for c in e} | set(extra_cells))
        self.index = {c: i for i, c in enumerate(self.cells)}
        rows = np.asarray([self.index[a] for a, _ in edges], dtype=np.int32)
        cols = np.asarray([self.index[b] for _, b in edges], dtype=np.int32)
        order = np.lexsort((cols, rows))
        self.rows, self.cols = rows[order], cols[order]
        self.indptr = np.searchsorted(self.rows, np.arange(len(self.cells) + 1)).astype(np.int32)
        self.into: list[list[int]] = [[] for _ in self.cells]  # the hexes with a step into each hex
        for a, b in zip(self.rows.tolist(), self.cols.tolist()):
            self.into[b].append(a)

    def hops(self, blocked: set[str]) -> csr_matrix:
        """1 per step, inf into a ``blocked`` hex (such a step is never taken)."""
        entered_ok = np.ones(len(self.cells), dtype=bool)
        entered_ok[[self.index[c] for c in blocked if c in self.index]] = False
        data = np.where(entered_ok[self.cols], 1.0, np.inf)
        return csr_matrix((data, self.cols, self.indptr), shape=(len(self.cells), len(self.cells)))


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


def _ending_at(g: _LinkGraph, dist: np.ndarray, goals: list[int]) -> np.ndarray:
    """``dist`` with the goals' (closed) hexes given their distance: one step from the nearest open neighbour."""
    dist = dist.copy()
    for b in goals:
        near = min((dist[a] for a in g.into[b]), default=math.inf) + 1
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
    # One search per (faction, link type), not per line: every structure on the faction's lines
    # is closed to entering (a line never runs through another of its structures), a row per
    # attachment hex.  A shortest path between two structures never passes through an attachment
    # of either before its end (it would start or stop there instead), so a line's distances are
    # these rows', plus the last step into the goal's own (closed) attachment, added by hand.
    searched: dict[tuple[str, str], tuple] = {}
    for ln in wanted:
        t, f = ln.link_type, ln.faction
        g = static.graphs[t]
        if (f, t) not in searched:
            ends = set(supplied.get(f, ())) | {s for x in wanted if x.faction == f for s in (x.from_structure, x.to_structure)}
            on_lines = {c for s in ends for c in attach[(t, s)]}
            sources = sorted(g.index[c] for c in on_lines - cut[f])
            rows = dijkstra(g.hops(cut[f] | on_lines), directed=True, indices=sources) if sources else None
            searched[(f, t)] = ({c: k for k, c in enumerate(sources)}, rows)
        row_of, rows = searched[(f, t)]
        others = {c for s in supplied.get(f, ()) if s not in (ln.from_structure, ln.to_structure) for c in attach[(t, s)]}
        blocked = cut[f] | others
        a_src = sorted(g.index[c] for c in attach[(t, ln.from_structure)] - blocked)
        b_src = sorted(g.index[c] for c in attach[(t, ln.to_structure)] - blocked)
        if not a_src or not b_src:
            continue
        da = _ending_at(g, rows[[row_of[i] for i in a_src]].min(axis=0), b_src)
        db = _ending_at(g, rows[[row_of[i] for i in b_src]].min(axis=0), a_src)
        total = da[b_src].min()
        if math.isinf(total):
            continue
        on = da + db == total  # hop counts are small integers: exact
        cells[f].update(g.cells[i] for i in np.flatnonzero(on).tolist())
        if t == "road":
            step = on[g.rows] & on[g.cols] & (da[g.rows] + 1 + db[g.cols] == total)
            for a, b in zip(g.rows[step].tolist(), g.cols[step].tolist()):
                roads[f].add((g.cells[a], g.cells[b]))
                roads[f].add((g.cells[b], g.cells[a]))
    return cells, roads
