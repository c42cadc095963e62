"""Lines of logistics (seed: "Lines of logistics"), as SQL views plus the Python the SQL feeds.

The rules relations live in ``engine/sql/logistics/`` and are queried by the umpire:

* ``logistics_edges`` / ``logistics_attachments`` (static tables): the road, coast
  and river link graphs and the hexes by which each town/city enters them;
  ``logistics_core_edges`` (static): the same graphs without their dead ends (see
  :func:`_core_cells`), with integer hexes (``logistics_cell_ids``) for the recursion;
* ``logistics_interruptions(faction, medium, cell)``: enemy ZoC cutting lines;
* ``logistics_regions`` / ``logistics_links``: consecutive structures joined by an
  uninterrupted path of one link type (multi-source BFS "regions", see regions.sql);
* ``logistics_line_links`` / ``supplied_structures(faction, structure, depth)`` /
  ``logistics_lines(faction, from_structure, to_structure, link_type, from_depth, to_depth)``:
  the recursive growth from the controlled, unsieged capitals;
* ``army_logistics_distance(army, faction, mp_distance)``: a table written by
  :func:`compute_logistics` (least-MP paths are Python: Dijkstra over the board).

A campaign database gets the static tables and the views once (``tabula round start``,
or the first step that needs them: :func:`ensure_logistics`) and keeps them;
``logistics_meta`` says which SQL and options built them.  The round steps compute on
the campaign database itself (:func:`compute_logistics`).

Python adds what needs paths rather than connectivity: the hexes and road edges
*on* the lines (shortest uninterrupted path between consecutive structures), the
MP distance of every army to its faction's lines, and armies linked for
transfers.  :func:`logistics_for` runs the same SQL for a pure
``(Board, CampaignState)`` in an in-memory DuckDB kept per Board: built from the
campaign's tables when the Board was read from one (:func:`bind_board`), else from
the Board by Arrow bulk loads; each call loads only the state's rows, and the
latest results are remembered by the state's content.
"""

from __future__ import annotations

import heapq
import math
import weakref
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import duckdb

from tabula.engine.vae_victis.model import Board, CampaignState, Phase
from tabula.engine.vae_victis.movement import TERRAIN_MP
from tabula.geo.errors import InputError, TabulaError
from tabula.geo.spatialdb import run_sql, run_sql_file

SQL_DIR = Path(__file__).parent / "sql" / "logistics"
STATIC_SQL = ("link_graph.sql",)
VIEW_SQL = ("interruptions.sql", "regions.sql", "links.sql", "lines.sql")

LINK_TYPES = ("road", "coast", "river")


@dataclass(frozen=True)
class LogisticsOptions:
    """Choices where the seed is silent (docs/rules/administration.md).

    ``river_access``: "own_hex" = a town/city joins a River link only when its own
    hex is a River hex; "adjacent" = also from an adjacent River hex.
    ``distance_cutoff_mp``: MP distances beyond this are reported as infinite
    (the rules only ask "within 6 MP" and "more than 12 MP").
    ``transfer_reach_mp``: an army counts as connected to the lines (for
    transfers) when within this many MP of a hex of its faction's lines.
    """

    river_access: str = "own_hex"
    distance_cutoff_mp: int = 24
    transfer_reach_mp: int = 0

    def __post_init__(self):
        if self.river_access not in ("own_hex", "adjacent"):
            raise InputError(f"river_access {self.river_access!r}: use 'own_hex' or 'adjacent'")


@dataclass(frozen=True)
class LogisticsLine:
    faction: str
    from_structure: str
    to_structure: str
    link_type: str  # road / coast / river / sea


@dataclass(frozen=True)
class Logistics:
    """One faction-by-faction snapshot of the logistics lines."""

    supplied: Mapping[str, frozenset[str]]  # faction -> structures on its lines (capitals included)
    lines: tuple[LogisticsLine, ...]
    road_edges: Mapping[str, frozenset[tuple[str, str]]]  # faction -> road steps on its lines, both directions
    line_cells: Mapping[str, frozenset[str]]  # faction -> land hexes of its lines (structures, road/river hexes)
    army_distance: Mapping[int, float] = field(default_factory=dict)  # army -> MP to its lines (inf: beyond cutoff)
    linked_armies: frozenset[tuple[int, int]] = frozenset()  # (a, b), a < b: may transfer strength

    def is_supplied(self, faction: str, structure: str) -> bool:
        return structure in self.supplied.get(faction, frozenset())

    def linked(self, a: int, b: int) -> bool:
        return (min(a, b), max(a, b)) in self.linked_armies


# --- SQL --------------------------------------------------------------------


def install_logistics(con: duckdb.DuckDBPyConnection, options: LogisticsOptions = LogisticsOptions(), *, static: bool = True) -> None:
    """Create the static link tables (unless ``static=False``) and the logistics views on ``con``."""
    run_sql(con, f"SET VARIABLE logistics_river_access = '{options.river_access}'", name="logistics options")
    if static:
        for name in STATIC_SQL:
            run_sql_file(con, SQL_DIR / name)
        _write_core_edges(con)
    for name in VIEW_SQL:
        run_sql_file(con, SQL_DIR / name)
    run_sql(con, "CREATE OR REPLACE TABLE logistics_meta (key VARCHAR, value VARCHAR)", name="logistics_meta")
    run_sql(con, "INSERT INTO logistics_meta VALUES ('version', ?)", [_install_version(options)], name="logistics_meta")


def _install_version(options: LogisticsOptions) -> str:
    """What the installed tables and views were made from: the SQL files' text and the options."""
    import hashlib

    h = hashlib.sha256(repr(options).encode())
    for name in STATIC_SQL + VIEW_SQL:
        h.update((SQL_DIR / name).read_bytes())
    h.update(_CORE_VERSION.encode())
    return h.hexdigest()[:16]


def ensure_logistics(con: duckdb.DuckDBPyConnection, options: LogisticsOptions = LogisticsOptions()) -> bool:
    """Install the logistics tables and views on a campaign database unless they are already there.

    The static tables (link graphs, attachments, structures' ZoC) depend only on the map and
    scenario tables, so a campaign builds them once (``tabula round start`` or the first step
    that needs them) and keeps them; ``logistics_meta`` records the SQL and options they were
    made from, and a change of either rebuilds them.  Returns whether anything was (re)built.
    """
    from tabula.engine.vae_victis.board import existing_tables

    if "logistics_meta" in existing_tables(con):
        row = run_sql(con, "SELECT value FROM logistics_meta WHERE key = 'version'", name="logistics_meta").fetchone()
        if row is not None and row[0] == _install_version(options):
            return False
    install_logistics(con, options)
    return True


# --- static pruning of the link graphs ------------------------------------------------

_CORE_VERSION = "core-2"


def _core_cells(adj: Mapping[str, Iterable[str]], terminals: set[str]) -> set[str]:
    """The hexes of an undirected graph that lie on some simple path between two terminals
    (plus the terminals): the Steiner subtree of its block-cut tree.

    Every other hex sits in a dead end: a piece that hangs off one articulation hex ``x``
    and holds no terminal.  The regions' breadth-first search reaches such a piece only
    through ``x``, so all of it takes ``x``'s structure and it never makes two regions
    touch; leaving it out of the search changes no link (and no other hex's region).
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    blocks: list[set[str]] = []
    counter = 0
    for root in sorted(adj):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack = [(root, None, iter(sorted(adj[root])))]
        edges: list[tuple[str, str]] = []
        while stack:
            v, parent, it = stack[-1]
            advanced = False
            for w in it:
                if w == parent:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    edges.append((v, w))
                    stack.append((w, v, iter(sorted(adj[w]))))
                    advanced = True
                    break
                if index[w] < index[v]:
                    edges.append((v, w))
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            stack.pop()
            if stack:
                u = stack[-1][0]
                low[u] = min(low[u], low[v])
                if low[v] >= index[u]:
                    block: set[str] = set()
                    while True:
                        e = edges.pop()
                        block.update(e)
                        if e == (u, v):
                            break
                    blocks.append(block)
    membership: dict[str, int] = defaultdict(int)
    for b in blocks:
        for v in b:
            membership[v] += 1
    cuts = {v for v, n in membership.items() if n > 1}
    tree: dict[tuple, set[tuple]] = defaultdict(set)
    for i, b in enumerate(blocks):
        tree[("b", i)]
        for v in b & cuts:
            tree[("b", i)].add(("c", v))
            tree[("c", v)].add(("b", i))

    def is_terminal(node) -> bool:
        if node[0] == "c":
            return node[1] in terminals
        return any(v in terminals and v not in cuts for v in blocks[node[1]])

    degree = {n: len(m) for n, m in tree.items()}
    alive = set(tree)
    todo = [n for n in tree if degree[n] <= 1 and not is_terminal(n)]
    while todo:
        n = todo.pop()
        if n not in alive:
            continue
        alive.discard(n)
        for m in tree[n]:
            if m in alive:
                degree[m] -= 1
                if degree[m] <= 1 and not is_terminal(m):
                    todo.append(m)
    keep = {t for t in terminals if t in adj}
    for n in alive:
        if n[0] == "b":
            keep |= blocks[n[1]]
        else:
            keep.add(n[1])
    return keep


def _write_core_edges(con) -> None:
    """``logistics_core_edges(link_type, cell, neighbor, t, a, b)``: the link-graph edges between
    hexes that can join two structures (:func:`_core_cells` per link type, every structure's
    attachments as terminals), also as integers for the recursion (``t`` 0/1/2 = road/coast/river,
    ``a``/``b`` the ids of ``logistics_cell_ids(cell, id)``)."""
    import pyarrow as pa

    adj: dict[str, dict[str, set[str]]] = {t: defaultdict(set) for t in LINK_TYPES}
    for t, c, n in run_sql(con, "SELECT link_type, cell, neighbor FROM logistics_edges", name="logistics_edges").fetchall():
        adj[t][c].add(n)
        adj[t][n].add(c)
    terminals: dict[str, set[str]] = defaultdict(set)
    for t, c in run_sql(con, "SELECT link_type, cell FROM logistics_attachments", name="logistics_attachments").fetchall():
        terminals[t].add(c)
    types, cells = [], []
    for t in LINK_TYPES:
        kept = _core_cells(adj[t], terminals[t])
        types += [t] * len(kept)
        cells += sorted(kept)
    con.register("_tabula_core", pa.table({"link_type": pa.array(types, pa.string()), "cell": pa.array(cells, pa.string())}))
    try:
        run_sql(con, """
            CREATE OR REPLACE TABLE logistics_cell_ids AS
            SELECT cell, (row_number() OVER (ORDER BY cell))::INTEGER AS id
            FROM (SELECT cell FROM logistics_edges UNION SELECT neighbor FROM logistics_edges
                  UNION SELECT cell FROM logistics_attachments)""", name="logistics_cell_ids")
        run_sql(con, """
            CREATE OR REPLACE TABLE logistics_core_edges AS
            SELECT e.link_type, e.cell, e.neighbor,
                   CASE e.link_type WHEN 'road' THEN 0 WHEN 'coast' THEN 1 ELSE 2 END AS t,
                   ia.id AS a, ib.id AS b
            FROM logistics_edges e
            SEMI JOIN _tabula_core a ON a.link_type = e.link_type AND a.cell = e.cell
            SEMI JOIN _tabula_core b ON b.link_type = e.link_type AND b.cell = e.neighbor
            JOIN logistics_cell_ids ia ON ia.cell = e.cell
            JOIN logistics_cell_ids ib ON ib.cell = e.neighbor
            ORDER BY e.link_type, e.cell, e.neighbor""", name="logistics_core_edges")
    finally:
        con.unregister("_tabula_core")


def _query_lines(con) -> tuple[dict[str, frozenset[str]], tuple[LogisticsLine, ...]]:
    supplied: dict[str, set[str]] = defaultdict(set)
    lines = []
    rows = run_sql(
        con,
        "SELECT row_kind, faction, from_structure, to_structure, link_type FROM logistics_network "
        "ORDER BY faction, row_kind DESC, from_depth, from_structure, to_structure, link_type",
        name="logistics_network",
    ).fetchall()
    for kind, faction, a, b, t in rows:
        if kind == "node":
            supplied[faction].add(b)
        else:
            lines.append(LogisticsLine(faction, a, b, t))
    return {f: frozenset(s) for f, s in supplied.items()}, tuple(lines)


# --- the terrain graph used for paths and MP distances -------------------------


@dataclass
class _Graph:
    kind: dict[str, str]
    terrain: dict[str, str | None]
    river: set[str]
    neighbors: dict[str, list[str]]
    road: set[tuple[str, str]]
    structure_cells: set[str]
    road_links: dict[str, list[str]] = field(default_factory=dict)
    river_links: dict[str, list[str]] = field(default_factory=dict)


class _HexAttr:
    """``board.hexes[cell].<attr>`` as the read-only mapping :func:`enter_cost` reads."""

    def __init__(self, hexes: Mapping, attr: str):
        self.hexes, self.attr = hexes, attr

    def get(self, cell, default=None):
        h = self.hexes.get(cell)
        return default if h is None else getattr(h, self.attr)

    def __getitem__(self, cell):
        return getattr(self.hexes[cell], self.attr)


class _Neighbors:
    """Sorted neighbours of a hex, worked out from ``board.sides`` when first asked for."""

    def __init__(self, sides: Mapping[str, Mapping[int, str]]):
        self.sides, self.cache = sides, {}

    def get(self, cell, default=()):
        hit = self.cache.get(cell)
        if hit is None:
            by_clock = self.sides.get(cell)
            if by_clock is None:
                return default
            hit = self.cache[cell] = sorted(set(by_clock.values()))
        return hit


def _graph_from_board(board: Board) -> _Graph:
    # Lazy views of the board: a search touches the few hexes around an army, not the map.
    return _Graph(
        kind=_HexAttr(board.hexes, "kind"),
        terrain=_HexAttr(board.hexes, "terrain"),
        river={c for c, h in board.hexes.items() if h.river},
        neighbors=_Neighbors(board.sides),
        road=set(board.road_edges),
        structure_cells={s.cell for s in board.structures.values()},
    )


def _graph_from_con(con) -> _Graph:
    kind, terrain = {}, {}
    for c, k, t in run_sql(con, "SELECT cell, kind, terrain FROM hexes", name="hexes").fetchall():
        kind[c], terrain[c] = k, t
    neighbors: dict[str, list[str]] = defaultdict(list)
    for c, n in run_sql(con, "SELECT cell, neighbor FROM hex_neighbors ORDER BY cell, neighbor", name="hex_neighbors").fetchall():
        neighbors[c].append(n)
    road = set(run_sql(con, "SELECT DISTINCT cell, neighbor FROM road_edges", name="road_edges").fetchall())
    river = {r[0] for r in run_sql(con, "SELECT DISTINCT cell FROM river_cells", name="river_cells").fetchall()}
    cells = {r[0] for r in run_sql(con, "SELECT cell FROM structures", name="structures").fetchall()}
    return _Graph(kind, terrain, river, dict(neighbors), road, cells)


def _link_adjacency(con) -> dict[str, dict[str, list[str]]]:
    adj: dict[str, dict[str, list[str]]] = {t: defaultdict(list) for t in LINK_TYPES}
    # The core graph: a shortest path between two attachments never enters a dead end.
    for t, c, n in run_sql(con, "SELECT link_type, cell, neighbor FROM logistics_core_edges ORDER BY 1, 2, 3", name="logistics_core_edges").fetchall():
        adj[t][c].append(n)
    return adj


def enter_cost(g: _Graph, frm: str, to: str, line_roads: frozenset[tuple[str, str]] | set = frozenset()) -> float:
    """MP to step from ``frm`` into ``to`` (seed "Movement"), ignoring ZoC and navies.

    Terrain cost, halved when the step follows a road, -1 more on a road of the
    faction's logistics lines, +1 on a River hex without town/city, clamped to
    1..12; impassable (infinite) for water, peaks and lakes.
    """
    if g.kind.get(to) != "land" or g.terrain.get(to) not in TERRAIN_MP:
        return math.inf
    cost = TERRAIN_MP[g.terrain[to]]
    if (frm, to) in g.road:
        cost = cost / 2
        if (frm, to) in line_roads:
            cost -= 1
    if to in g.river and to not in g.structure_cells:
        cost += 1
    return float(min(12, max(1, cost)))


def mp_distances_to(g: _Graph, targets: Iterable[str], line_roads=frozenset(), cutoff: float = math.inf) -> dict[str, float]:
    """Least MP for an army in each hex to reach any hex of ``targets`` (reverse multi-source Dijkstra)."""
    dist: dict[str, float] = {}
    heap = [(0.0, t) for t in sorted(set(targets))]
    heapq.heapify(heap)
    while heap:
        d, y = heapq.heappop(heap)
        if y in dist:
            continue
        dist[y] = d
        for x in g.neighbors.get(y, ()):
            if x in dist:
                continue
            nd = d + enter_cost(g, x, y, line_roads)
            if nd <= cutoff:
                heapq.heappush(heap, (nd, x))
    return dist


def _bfs(adj: Mapping[str, list[str]], sources: Iterable[str], allowed, *, goals=frozenset(), limit: float = math.inf) -> dict[str, int]:
    """Hex distances from ``sources`` over ``allowed`` hexes, complete up to ``limit`` and, when
    ``goals`` are given, up to the distance of the nearest goal (nothing farther is needed)."""
    dist = {s: 0 for s in sources if s in allowed}
    if goals and any(s in goals for s in dist):
        limit = 0
    queue = deque(sorted(dist))
    while queue:
        c = queue.popleft()
        d = dist[c] + 1
        if d > limit:
            break
        for n in adj.get(c, ()):
            if n in allowed and n not in dist:
                dist[n] = d
                queue.append(n)
                if n in goals and d < limit:
                    limit = d
    return dist


@dataclass
class _Static:
    """The static link graph as Python adjacency (read once per board)."""

    adj: dict[str, dict[str, list[str]]]
    attach: dict[tuple[str, str], set[str]]


def _static_from_con(con) -> _Static:
    attach: dict[tuple[str, str], set[str]] = defaultdict(set)
    for t, s, c in run_sql(con, "SELECT link_type, structure, cell FROM logistics_attachments", name="logistics_attachments").fetchall():
        attach[(t, s)].add(c)
    return _Static(_link_adjacency(con), attach)


def _line_paths(
    con, lines: tuple[LogisticsLine, ...], supplied: Mapping[str, frozenset[str]], static: _Static | None = None
) -> tuple[dict[str, set[str]], dict[str, set[tuple[str, str]]]]:
    """Hexes and road steps on the shortest uninterrupted path(s) of each road/river link.

    The SQL proves two consecutive structures are connected; which hexes "are"
    the line is a choice: every hex on a shortest uninterrupted path of the
    link's type between them that does not enter another of the faction's
    structures on the lines (documented in docs/rules/administration.md).
    """
    cells: dict[str, set[str]] = defaultdict(set)
    roads: dict[str, set[tuple[str, str]]] = defaultdict(set)
    wanted = [ln for ln in lines if ln.link_type in ("road", "river")]
    if not wanted:
        return cells, roads
    static = static or _static_from_con(con)
    adj, attach = static.adj, static.attach
    cut: dict[str, set[str]] = defaultdict(set)
    for f, c in run_sql(
        con, "SELECT faction, cell FROM logistics_interruptions WHERE medium = 'land'", name="logistics_interruptions"
    ).fetchall():
        cut[f].add(c)
    for ln in wanted:
        t = ln.link_type
        others = {c for s in supplied.get(ln.faction, ()) if s not in (ln.from_structure, ln.to_structure) for c in attach[(t, s)]}
        blocked = cut[ln.faction] | others
        a_src = attach[(t, ln.from_structure)] - blocked
        b_src = attach[(t, ln.to_structure)] - blocked
        allowed = _Allowed(blocked)
        da = _bfs(adj[t], a_src, allowed, goals=b_src)
        total = min((da[c] for c in b_src if c in da), default=None)
        if total is None:
            continue
        db = _bfs(adj[t], b_src, allowed, limit=total)
        on = {c for c in da if c in db and da[c] + db[c] == total}
        cells[ln.faction] |= on
        if t == "road":
            for c in on:
                for n in adj["road"].get(c, ()):
                    if n in on and da[c] + 1 + db[n] == total:
                        roads[ln.faction].add((c, n))
                        roads[ln.faction].add((n, c))
    return cells, roads


class _Allowed:
    """Every hex but the blocked ones (a set-like for :func:`_bfs`)."""

    def __init__(self, blocked: set[str]):
        self.blocked = blocked

    def __contains__(self, cell: str) -> bool:
        return cell not in self.blocked


def army_mp_distance(g: _Graph, start: str, targets: frozenset[str] | set[str], line_roads=frozenset(), cutoff: float = math.inf) -> float:
    """Least MP for an army in ``start`` to reach a hex of ``targets`` (inf beyond ``cutoff``).

    The same value as ``mp_distances_to(g, targets, ...)[start]`` (the same step costs, summed
    exactly in halves), searched forward from the one army and stopped at the first hex of the
    lines, instead of pricing every hex within the cutoff of the lines.
    """
    if start in targets:
        return 0.0
    if not targets:
        return math.inf
    dist: dict[str, float] = {}
    heap = [(0.0, start)]
    while heap:
        d, x = heapq.heappop(heap)
        if x in dist:
            continue
        if x in targets:
            return d
        dist[x] = d
        for y in g.neighbors.get(x, ()):
            if y in dist:
                continue
            nd = d + enter_cost(g, x, y, line_roads)
            if nd <= cutoff:
                heapq.heappush(heap, (nd, y))
    return math.inf


def compute_logistics(
    con: duckdb.DuckDBPyConnection,
    options: LogisticsOptions = LogisticsOptions(),
    *,
    board: Board | None = None,
    install: bool = True,
    _graph: _Graph | None = None,
    _static: _Static | None = None,
) -> Logistics:
    """Run the logistics SQL on a campaign database and derive paths, distances and links.

    ``install``: make sure the static tables and views are there (:func:`ensure_logistics`:
    built on first use, then kept in the database).  ``board``: the campaign's Board, to
    price MP distances without reading the map again.  Also (re)writes the table
    ``army_logistics_distance(army, faction, mp_distance)`` (NULL = farther than
    ``options.distance_cutoff_mp``).
    """
    if install:
        ensure_logistics(con, options)
    supplied, lines = _query_lines(con)
    if _static is None and board is not None:
        _static = _static_for(board, con, options)
    path_cells, road_edges = _line_paths(con, lines, supplied, _static)
    structure_cell = dict(run_sql(con, "SELECT name, cell FROM structures", name="structures").fetchall())
    line_cells = {
        f: frozenset(path_cells.get(f, set()) | {structure_cell[s] for s in supplied.get(f, ())})
        for f in set(supplied) | set(path_cells)
    }
    g = _graph or (_graph_for(board) if board is not None else _graph_from_con(con))
    armies = run_sql(
        con, "SELECT id, faction, cell FROM armies WHERE NOT coalesce(eliminated, false) AND cell IS NOT NULL ORDER BY id", name="armies"
    ).fetchall()
    army_distance: dict[int, float] = {}
    for army_id, faction, cell in armies:
        army_distance[army_id] = army_mp_distance(
            g, cell, line_cells.get(faction, frozenset()), road_edges.get(faction, frozenset()), options.distance_cutoff_mp
        )
    _load(con, "army_logistics_distance", {
        "army": ("INTEGER", [a for a, _, _ in armies]),
        "faction": ("VARCHAR", [f for _, f, _ in armies]),
        "mp_distance": ("DOUBLE", [None if math.isinf(army_distance[a]) else army_distance[a] for a, _, _ in armies]),
    })
    connected = defaultdict(list)
    for army_id, faction, _ in armies:
        if army_distance[army_id] <= options.transfer_reach_mp:
            connected[faction].append(army_id)
    linked = frozenset((a, b) for ids in connected.values() for a in ids for b in ids if a < b)
    return Logistics(
        supplied=supplied,
        lines=lines,
        road_edges={f: frozenset(e) for f, e in road_edges.items()},
        line_cells=line_cells,
        army_distance=army_distance,
        linked_armies=linked,
    )


def logistics_road_edges(con: duckdb.DuckDBPyConnection, options: LogisticsOptions = LogisticsOptions()) -> dict[str, frozenset[tuple[str, str]]]:
    """Per faction, the road steps (both directions) lying on its logistics lines (movement's -1 MP)."""
    ensure_logistics(con, options)
    supplied, lines = _query_lines(con)
    _, roads = _line_paths(con, lines, supplied)
    return {f: frozenset(e) for f, e in roads.items()}


# --- pure entry point: Board + CampaignState ----------------------------------------


def _load(con, name: str, columns: Mapping[str, tuple[str, list]]) -> None:
    """Create table ``name`` from column lists in one Arrow scan (executemany is row by row)."""
    import pyarrow as pa

    table = pa.table({c: pa.array(values, type=pa.string() if typ == "VARCHAR" else None) for c, (typ, values) in columns.items()})
    con.register("_tabula_load", table)
    try:
        casts = ", ".join(f"CAST({c} AS {typ}) AS {c}" for c, (typ, _) in columns.items())
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT {casts} FROM _tabula_load")
    finally:
        con.unregister("_tabula_load")


def board_to_duckdb(board: Board, con: duckdb.DuckDBPyConnection) -> None:
    """Write the map/campaign tables the logistics SQL reads from a :class:`Board`."""
    hexes = list(board.hexes.values())
    _load(con, "hexes", {
        "cell": ("VARCHAR", [h.cell for h in hexes]),
        "kind": ("VARCHAR", [h.kind for h in hexes]),
        "terrain": ("VARCHAR", [h.terrain for h in hexes]),
        "river": ("BOOLEAN", [bool(h.river) for h in hexes]),
    })
    sides = [(c, n, k) for c, by_clock in board.sides.items() for k, n in by_clock.items()]
    _load(con, "hex_neighbors", {
        "cell": ("VARCHAR", [r[0] for r in sides]),
        "neighbor": ("VARCHAR", [r[1] for r in sides]),
        "clock": ("INTEGER", [r[2] for r in sides]),
    })
    roads = sorted(board.road_edges)
    _load(con, "road_edges", {
        "road": ("VARCHAR", [None] * len(roads)),
        "cell": ("VARCHAR", [a for a, _ in roads]),
        "neighbor": ("VARCHAR", [b for _, b in roads]),
    })
    rivers = [h.cell for h in hexes if h.river]
    _load(con, "river_cells", {"river": ("VARCHAR", ["river"] * len(rivers)), "cell": ("VARCHAR", rivers)})
    structures = list(board.structures.values())
    _load(con, "structures", {
        "name": ("VARCHAR", [s.name for s in structures]),
        "kind": ("VARCHAR", [s.kind for s in structures]),
        "cell": ("VARCHAR", [s.cell for s in structures]),
        "controller": ("VARCHAR", [s.start_controller for s in structures]),
        "capital": ("BOOLEAN", [bool(s.capital) for s in structures]),
    })
    con.execute("CREATE OR REPLACE TABLE factions (name VARCHAR, capitals VARCHAR[])")
    con.executemany("INSERT INTO factions VALUES (?, ?)", [(f.name, list(f.capitals)) for f in board.factions.values()])


def state_to_duckdb(state: CampaignState, con: duckdb.DuckDBPyConnection, navies: Iterable[tuple[int, str, str]] = ()) -> None:
    """Write the state tables the logistics SQL reads (armies, control, sieges, navies), one Arrow scan each."""
    armies = list(state.armies)
    _load(con, "armies", {
        "id": ("INTEGER", [a.id for a in armies]),
        "faction": ("VARCHAR", [a.faction for a in armies]),
        "cell": ("VARCHAR", [a.cell for a in armies]),
        "strength": ("INTEGER", [a.strength for a in armies]),
        "eliminated": ("BOOLEAN", [bool(a.eliminated) for a in armies]),
    })
    control = sorted(state.control.items())
    _load(con, "control", {
        "structure": ("VARCHAR", [s for s, _ in control]),
        "controller": ("VARCHAR", [c for _, c in control]),
    })
    sieges = list(state.sieges)
    _load(con, "sieges", {
        "structure": ("VARCHAR", [s.structure for s in sieges]),
        "faction": ("VARCHAR", [s.faction for s in sieges]),
        "resilience": ("INTEGER", [s.resilience for s in sieges]),
        "start_resilience": ("INTEGER", [s.start_resilience for s in sieges]),
        "started_round": ("INTEGER", [s.started_round for s in sieges]),
    })
    navies = list(navies)
    _load(con, "navies", {
        "army": ("INTEGER", [n[0] for n in navies]),
        "faction": ("VARCHAR", [n[1] for n in navies]),
        "cell": ("VARCHAR", [n[2] for n in navies]),
    })


# --- caches per Board (a Board never changes; rounds.py reuses one per campaign) -------------


@dataclass
class _BoardCache:
    ref: weakref.ref
    graph: _Graph
    mem: dict = field(default_factory=dict)  # options -> (in-memory con, _Static)
    static_db: dict = field(default_factory=dict)  # options -> _Static read from a campaign database
    memo: dict = field(default_factory=dict)  # (options, state key) -> Logistics, the latest few
    source: weakref.ref | None = None  # the campaign database the Board was read from


_BOARDS: dict[int, _BoardCache] = {}
_MEMO_SIZE = 8


def _board_cache(board: Board) -> _BoardCache:
    key = id(board)
    hit = _BOARDS.get(key)
    if hit is not None and hit.ref() is board:
        return hit
    entry = _BoardCache(weakref.ref(board, lambda _r, k=key: _BOARDS.pop(k, None)), _graph_from_board(board))
    _BOARDS[key] = entry
    return entry


def clear_caches() -> None:
    """Forget every cached board database, graph and result (benchmarks; tests)."""
    for entry in _BOARDS.values():
        for con, _static in entry.mem.values():
            con.close()
    _BOARDS.clear()


def _graph_for(board: Board) -> _Graph:
    return _board_cache(board).graph


def _static_for(board: Board, con, options: LogisticsOptions) -> _Static:
    """The static link adjacency of a campaign database whose Board is ``board`` (read once)."""
    entry = _board_cache(board)
    if options not in entry.static_db:
        entry.static_db[options] = _static_from_con(con)
    return entry.static_db[options]


def bind_board(board: Board, con: duckdb.DuckDBPyConnection) -> None:
    """Note that ``board`` was read from the campaign database ``con`` (engine.rounds does):
    :func:`logistics_for` then builds its in-memory database from that campaign's tables and
    its kept static link tables, a few Arrow scans, instead of from the Board's objects."""
    try:
        _board_cache(board).source = weakref.ref(con)
    except TypeError:
        pass


#: What the logistics SQL reads besides the state tables: (table, columns) copied from a campaign.
_COPIED = (
    ("hexes", "cell, kind, terrain, river"),
    ("hex_neighbors", "cell, neighbor, clock"),
    ("structures", "name, kind, cell, controller, capital"),
    ("factions", "name, capitals"),
    ("logistics_edges", "*"),
    ("logistics_attachments", "*"),
    ("logistics_structure_zoc", "*"),
    ("logistics_cell_ids", "*"),
    ("logistics_core_edges", "*"),
    ("logistics_sea_links", "*"),
)


def _mem_from_campaign(source, options: LogisticsOptions):
    """An in-memory database with the campaign's map, scenario and static logistics tables."""
    ensure_logistics(source, options)
    con = duckdb.connect()
    try:
        for table, cols in _COPIED:
            data = source.execute(f"SELECT {cols} FROM {table}").arrow()
            con.register("_tabula_copy", data)
            try:
                con.execute(f"CREATE TABLE {table} AS SELECT * FROM _tabula_copy")
            finally:
                con.unregister("_tabula_copy")
        state_to_duckdb(CampaignState(0, Phase.ORDERS, (), {}), con)
        install_logistics(con, options, static=False)
    except BaseException:
        con.close()
        raise
    return con


def _con_for(board: Board, options: LogisticsOptions):
    entry = _board_cache(board)
    if options not in entry.mem:
        source = entry.source() if entry.source is not None else None
        con = None
        if source is not None:
            try:
                con = _mem_from_campaign(source, options)
            except (duckdb.Error, TabulaError):
                con = None  # e.g. a read-only campaign without the static tables: build from the Board
        if con is None:
            con = duckdb.connect()  # the logistics SQL needs no spatial functions: skip loading the extension
            board_to_duckdb(board, con)
            state_to_duckdb(CampaignState(0, Phase.ORDERS, (), {}), con)
            install_logistics(con, options)
        entry.mem[options] = (con, _static_from_con(con))
    con, static = entry.mem[options]
    return con, entry.graph, static


def _state_key(state: CampaignState, navies: tuple) -> tuple:
    """Everything of a state the logistics depend on (not strengths, VP, round or phase)."""
    return (
        tuple(sorted((a.id, a.faction, a.cell, bool(a.eliminated)) for a in state.armies)),
        tuple(sorted(state.control.items(), key=lambda kv: (kv[0], kv[1] is None, kv[1] or ""))),
        tuple(sorted({s.structure for s in state.sieges})),
        navies,
    )


def logistics_for(
    board: Board,
    state: CampaignState,
    navies: Iterable[tuple[int, str, str]] = (),
    options: LogisticsOptions = LogisticsOptions(),
) -> Logistics:
    """The logistics of a pure (board, state): same SQL, in a cached in-memory DuckDB per board.

    The board's tables are loaded once per Board (Arrow scans) and its static link tables
    built once; each call loads the state's few rows.  The latest results are remembered
    by the state's logistics-relevant content, so asking again for an unchanged position
    (administration asks for the round's start, which movement already computed) is free.
    """
    navies = tuple(tuple(n) for n in navies)
    entry = _board_cache(board)
    key = (options, _state_key(state, navies))
    hit = entry.memo.get(key)
    if hit is not None:
        return hit
    con, g, static = _con_for(board, options)
    state_to_duckdb(state, con, navies)
    result = compute_logistics(con, options, install=False, _graph=g, _static=static)
    remember(board, state, result, navies=navies, options=options)
    return result


def remember(
    board: Board,
    state: CampaignState,
    result: Logistics,
    *,
    navies: Iterable[tuple[int, str, str]] = (),
    options: LogisticsOptions = LogisticsOptions(),
) -> None:
    """Record ``result`` as the logistics of (board, state) for :func:`logistics_for`
    (rounds.py computes on the campaign database and hands the result on)."""
    entry = _board_cache(board)
    key = (options, _state_key(state, tuple(tuple(n) for n in navies)))
    entry.memo.pop(key, None)
    entry.memo[key] = result
    while len(entry.memo) > _MEMO_SIZE:
        entry.memo.pop(next(iter(entry.memo)))


__all__ = [
    "Logistics",
    "LogisticsLine",
    "LogisticsOptions",
    "army_mp_distance",
    "bind_board",
    "board_to_duckdb",
    "clear_caches",
    "compute_logistics",
    "ensure_logistics",
    "enter_cost",
    "install_logistics",
    "logistics_for",
    "logistics_road_edges",
    "mp_distances_to",
    "remember",
    "state_to_duckdb",
]
