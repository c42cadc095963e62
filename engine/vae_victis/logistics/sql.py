"""The logistics SQL on a database: the static link tables, the views, and reading the lines back.

The relations themselves are ``engine/vae_victis/sql/logistics/*.sql`` (see the package docstring).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Iterable, Mapping

import duckdb

from bellica.engine.vae_victis.logistics.options import LogisticsLine, LogisticsOptions, resolve_options
from bellica.geo.spatialdb import insert_rows, run_sql, run_sql_file

SQL_DIR = Path(__file__).resolve().parent.parent / "sql" / "logistics"
#: The static tables' SQL, in order: the structures' ZoC reach (shared with the ZoC views), the link graphs.
STATIC_SQL = (SQL_DIR.parent / "zoc" / "structure_zoc_reach.sql", SQL_DIR / "link_graph.sql")
VIEW_SQL = ("interruptions.sql", "regions.sql", "links.sql", "sea.sql", "lines.sql")

#: Every view the SQL files create (the tests run each one).
VIEWS = (
    "logistics_zoc_sources", "logistics_interruptions", "logistics_blockades", "logistics_nodes",
    "logistics_endpoints", "logistics_regions", "logistics_links", "logistics_sea_links", "logistics_line_links",
    "logistics_network", "supplied_structures", "logistics_lines",
)

LINK_TYPES = ("road", "coast", "river")

#: Tables older campaign files hold where views now stand: the land engine's empty hooks
#: ``navies`` (a navy is an army on a water hex: the SQL reads them from ``armies``) and
#: ``logistics_sea_links`` (now the view of sea.sql over the state tables).
_OLD_HOOK_TABLES = ("logistics_sea_links", "navies")


def drop_base_tables(con: duckdb.DuckDBPyConnection, names: Iterable[str]) -> None:
    """Drop the *tables* (not views) of these names, so views of the same names can be created
    (DuckDB's ``DROP TABLE IF EXISTS`` refuses a view and ``CREATE VIEW`` refuses a table)."""
    names = list(names)
    found = run_sql(
        con,
        "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND list_contains(?, table_name)",
        [names],
        name="logistics.old_hooks",
    ).fetchall()
    for (name,) in found:
        run_sql(con, f"DROP TABLE {name}", name=f"logistics.drop.{name}")


def install_logistics(con: duckdb.DuckDBPyConnection, options: LogisticsOptions | None = None, *, static: bool = True) -> None:
    """Create the static link tables (unless ``static=False``) and the logistics views on ``con``."""
    options = resolve_options(options, con=con)
    run_sql(con, f"SET VARIABLE logistics_river_access = '{options.river_access}'", name="logistics options")
    drop_base_tables(con, _OLD_HOOK_TABLES)
    if static:
        for path in STATIC_SQL:
            run_sql_file(con, path)
        _write_core_edges(con)
    for name in VIEW_SQL:
        run_sql_file(con, SQL_DIR / name)
    run_sql(con, "CREATE OR REPLACE TABLE logistics_meta (key VARCHAR, value VARCHAR)", name="logistics_meta")
    run_sql(con, "INSERT INTO logistics_meta VALUES ('version', ?)", [_install_version(options)], name="logistics_meta")


def _install_version(options: LogisticsOptions) -> str:
    """What the installed tables and views were made from: the SQL files' text and the options."""
    import hashlib

    h = hashlib.sha256(repr(options).encode())
    for path in STATIC_SQL + tuple(SQL_DIR / name for name in VIEW_SQL):
        h.update(path.read_bytes())
    h.update(_CORE_VERSION.encode())
    return h.hexdigest()[:16]


def ensure_logistics(con: duckdb.DuckDBPyConnection, options: LogisticsOptions | None = None) -> bool:
    """Install the logistics tables and views on a campaign database unless they are already there.

    The static tables (link graphs, attachments, structures' ZoC) depend only on the map and
    scenario tables, so a campaign builds them once (``bellica round start`` or the first step
    that needs them) and keeps them; ``logistics_meta`` records the SQL and options they were
    made from, and a change of either rebuilds them.  Returns whether anything was (re)built.
    """
    from bellica.schema import existing_tables

    options = resolve_options(options, con=con)
    if "logistics_meta" in existing_tables(con):
        row = run_sql(con, "SELECT value FROM logistics_meta WHERE key = 'version'", name="logistics_meta").fetchone()
        if row is not None and row[0] == _install_version(options):
            return False
    install_logistics(con, options)
    return True


# --- static pruning of the link graphs ------------------------------------------------

_CORE_VERSION = "core-2"


def _biconnected_components(adj: Mapping[str, Iterable[str]]) -> list[set[str]]:
    """The blocks (biconnected components, as vertex sets; a bridge is a block of two) of the
    undirected graph ``adj`` (self-loops ignored; a vertex without edges is in no block).

    Hopcroft and Tarjan's edge-stack search, iterative (a res-6 coast graph is deeper than
    Python's recursion limit).  Written here rather than imported from networkx (the same
    blocks; a test compares them): networkx took ~0.11 s to import in a ``round start``
    for a forty-line search.  The blocks' order is the search's, which no caller depends on.
    """
    nbrs: dict[str, set[str]] = defaultdict(set)
    for v in sorted(adj):
        for w in adj[v]:
            if v != w:
                nbrs[v].add(w)
                nbrs[w].add(v)
    order = {v: sorted(ws) for v, ws in nbrs.items()}  # a fixed visiting order: the same blocks list every run
    disc: dict[str, int] = {}
    low: dict[str, int] = {}
    blocks: list[set[str]] = []
    for root in sorted(order):
        if root in disc:
            continue
        disc[root] = low[root] = len(disc)
        edges: list[tuple[str, str]] = []
        stack = [(root, None, iter(order[root]))]
        while stack:
            v, parent, it = stack[-1]
            for w in it:
                if w == parent:
                    continue
                if w not in disc:  # a tree edge: go down
                    disc[w] = low[w] = len(disc)
                    edges.append((v, w))
                    stack.append((w, v, iter(order[w])))
                    break
                if disc[w] < disc[v]:  # a back edge to an ancestor
                    low[v] = min(low[v], disc[w])
                    edges.append((v, w))
            else:  # every neighbour of v done: go back up
                stack.pop()
                if stack:
                    u = stack[-1][0]
                    low[u] = min(low[u], low[v])
                    if low[v] >= disc[u]:  # u separates v's subtree: the edges since (u, v) are a block
                        block: set[str] = set()
                        while True:
                            a, b = edges.pop()
                            block.add(a)
                            block.add(b)
                            if (a, b) == (u, v):
                                break
                        blocks.append(block)
    return blocks


def _core_cells(adj: Mapping[str, Iterable[str]], terminals: set[str]) -> set[str]:
    """The hexes of an undirected graph that lie on some simple path between two terminals
    (plus the terminals): the Steiner subtree of its block-cut tree.

    Every other hex sits in a dead end: a piece that hangs off one articulation hex ``x``
    and holds no terminal.  The regions' breadth-first search reaches such a piece only
    through ``x``, so all of it takes ``x``'s structure and it never makes two regions
    touch; leaving it out of the search changes no link (and no other hex's region).
    """
    blocks = _biconnected_components(adj)
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
    ``a``/``b`` the ids of ``logistics_cell_ids(cell, id)``).

    The kept hexes go to DuckDB as SQL literals in a TEMP table (not an Arrow table, which makes
    DuckDB import pyarrow.dataset and pandas, ~0.5 s of a ``round start``)."""
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
    run_sql(con, "CREATE OR REPLACE TEMP TABLE _bellica_core (link_type VARCHAR, cell VARCHAR)", name="logistics_core")
    try:
        insert_rows(con, "INSERT INTO temp.main._bellica_core", list(zip(types, cells)), chunk=2000, name="logistics_core")
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
            SEMI JOIN _bellica_core a ON a.link_type = e.link_type AND a.cell = e.cell
            SEMI JOIN _bellica_core b ON b.link_type = e.link_type AND b.cell = e.neighbor
            JOIN logistics_cell_ids ia ON ia.cell = e.cell
            JOIN logistics_cell_ids ib ON ib.cell = e.neighbor
            ORDER BY e.link_type, e.cell, e.neighbor""", name="logistics_core_edges")
    finally:
        run_sql(con, "DROP TABLE IF EXISTS temp.main._bellica_core", name="logistics_core")


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
