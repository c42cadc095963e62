"""The logistics of a position: on a campaign database (:func:`compute_logistics`) or of a pure
(Board, CampaignState) (:func:`logistics_for`), with what they derive from a Board kept on it.

Everything derived from one Board (its MP graph, the link graphs, the in-memory databases
:func:`logistics_for` runs the SQL in, the latest results) lives in one
:class:`LogisticsCache` at ``board.derived["logistics"]``: nothing is process-wide, a new
Board starts cold, and :func:`close_derived` closes its databases.

Where the Board was read from a campaign (:func:`attach_campaign`), :func:`logistics_for` runs
the SQL on that campaign's own connection, the pure state written as TEMP tables that shadow
the campaign's state tables (``armies``, ``control``, ... and ``army_logistics_distance``) for
that connection while the call lasts, then dropped (in ``finally``).  Why: copying the map and
static link tables into a scratch database went through Arrow, and made every heavy CLI step
import pyarrow.dataset and pandas (~0.5 s) besides the copies.  The views are the campaign's
(installed by :func:`ensure_logistics` from the same SQL files), and DuckDB binds a view's
tables when it is queried, so they read the TEMP tables; the static tables are the campaign's
own, as the copies were.  A read-only campaign takes TEMP tables too; one whose logistics
tables cannot be installed (read-only, from an older bellica) falls back to the Board's own
in-memory database, as before.
"""

from __future__ import annotations

import math
import weakref
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb

from bellica.engine.vae_victis.logistics.options import Logistics, LogisticsOptions, resolve_options
from bellica.engine.vae_victis.logistics.sql import _query_lines, ensure_logistics, install_logistics
from bellica.engine.vae_victis.logistics.tables import (STATE_TABLES, _load_rows, board_to_duckdb, drop_temp_tables,
                                                      state_to_duckdb)
from bellica.engine.vae_victis.model import Board, CampaignState, Phase
from bellica.geo.errors import BellicaError
from bellica.geo.spatialdb import offline_connect, run_sql

if TYPE_CHECKING:
    from bellica.engine.vae_victis.logistics.paths import LinkGraphs, TerrainGraph

# .paths (the graph searches) is imported by the functions that search the graphs, so a CLI step
# that computes no logistics (`round status`, `round orders`) never loads it.

DERIVED_KEY = "logistics"
_MEMO_SIZE = 8


@dataclass
class LogisticsCache:
    """What the logistics derive from one Board (a Board never changes), built when first needed."""

    board: weakref.ref
    graph: TerrainGraph | None = None
    mem: dict = field(default_factory=dict)  # options -> (con, LinkGraphs, on the campaign's own con: TEMP state tables)
    static_db: dict = field(default_factory=dict)  # options -> LinkGraphs read from a campaign database
    memo: dict = field(default_factory=dict)  # (options, state key) -> Logistics, the latest few
    source: weakref.ref | None = None  # the campaign database the Board was read from

    def terrain(self) -> TerrainGraph:
        if self.graph is None:
            from bellica.engine.vae_victis.logistics.paths import TerrainGraph

            # From the Board's own dicts, whether or not it was read from a campaign: with the searches
            # in plain Python (no numpy arrays to fill), walking the Board (~20 ms at res 5) beats
            # fetching the same steps again from DuckDB (~45 ms); tests/engine/test_logistics_paths.py
            # checks the two graphs are the same on the demo campaign.
            self.graph = TerrainGraph.from_board(self.board())
        return self.graph

    def close(self) -> None:
        for con, _static, campaign_con in self.mem.values():
            if not campaign_con:  # the campaign's own connection is its Campaign's to close
                con.close()
        self.mem.clear()


def _cache(board: Board) -> LogisticsCache:
    entry = board.derived.get(DERIVED_KEY)
    if entry is None:
        entry = board.derived[DERIVED_KEY] = LogisticsCache(weakref.ref(board))
    return entry


def attach_campaign(board: Board, con: duckdb.DuckDBPyConnection) -> None:
    """Note that ``board`` was read from the campaign database ``con``: :func:`logistics_for`
    then builds its in-memory database from that campaign's tables and its kept static link
    tables, a few Arrow scans, instead of from the Board's objects."""
    try:
        _cache(board).source = weakref.ref(con)
    except TypeError:
        pass


def close_derived(board: Board) -> None:
    """Close the in-memory databases the logistics keep for ``board`` (the Campaign does on close)."""
    entry = board.derived.pop(DERIVED_KEY, None)
    if entry is not None:
        entry.close()


def _static_for(board: Board, con, options: LogisticsOptions) -> LinkGraphs:
    """The static link graphs of a campaign database whose Board is ``board`` (read once)."""
    from bellica.engine.vae_victis.logistics.paths import LinkGraphs

    entry = _cache(board)
    if options not in entry.static_db:
        entry.static_db[options] = LinkGraphs.from_con(con)
    return entry.static_db[options]


def compute_logistics(
    con: duckdb.DuckDBPyConnection,
    options: LogisticsOptions | None = None,
    *,
    board: Board | None = None,
    install: bool = True,
    _graph: TerrainGraph | None = None,
    _static: LinkGraphs | None = None,
    _temp: bool = False,
) -> Logistics:
    """Run the logistics SQL on a campaign database and derive paths, distances and links.

    ``install``: make sure the static tables and views are there (:func:`ensure_logistics`:
    built on first use, then kept in the database).  ``board``: the campaign's Board, to
    price MP distances without reading the map again.  ``options``: default the campaign's
    rules (``board.rules.logistics``, else the rules frozen in ``con``).  Also (re)writes the
    table ``army_logistics_distance(army, faction, mp_distance)`` (NULL = farther than
    ``options.distance_cutoff_mp``).
    """
    from bellica.engine.vae_victis.logistics.paths import TerrainGraph, army_distances, line_paths

    options = resolve_options(options, board=board, con=con)
    if install:
        ensure_logistics(con, options)
    supplied, lines = _query_lines(con)
    if _static is None and board is not None:
        _static = _static_for(board, con, options)
    path_cells, road_edges = line_paths(con, lines, supplied, _static)
    structure_cell = dict(run_sql(con, "SELECT name, cell FROM structures", name="structures").fetchall())
    line_cells = {
        f: frozenset(path_cells.get(f, set()) | {structure_cell[s] for s in supplied.get(f, ())})
        for f in set(supplied) | set(path_cells)
    }
    g = _graph or (_cache(board).terrain() if board is not None else TerrainGraph.from_con(con))
    armies = run_sql(
        con, "SELECT id, faction, cell FROM armies WHERE NOT coalesce(eliminated, false) AND cell IS NOT NULL ORDER BY id", name="armies"
    ).fetchall()
    army_distance = army_distances(g, armies, line_cells, road_edges, options.distance_cutoff_mp)
    _load_rows(con, "army_logistics_distance", {
        "army": ("INTEGER", [a for a, _, _ in armies]),
        "faction": ("VARCHAR", [f for _, f, _ in armies]),
        "mp_distance": ("DOUBLE", [None if math.isinf(army_distance[a]) else float(army_distance[a]) for a, _, _ in armies]),
    }, temp=_temp)
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


def logistics_road_edges(con: duckdb.DuckDBPyConnection, options: LogisticsOptions | None = None) -> dict[str, frozenset[tuple[str, str]]]:
    """Per faction, the road steps (both directions) lying on its logistics lines (movement's -1 MP)."""
    from bellica.engine.vae_victis.logistics.paths import line_paths

    options = resolve_options(options, con=con)
    ensure_logistics(con, options)
    supplied, lines = _query_lines(con)
    _, roads = line_paths(con, lines, supplied)
    return {f: frozenset(e) for f, e in roads.items()}


# --- pure entry point: Board + CampaignState ----------------------------------------


def _con_for(board: Board, options: LogisticsOptions):
    """(connection, static link graphs, whether the connection is the campaign's own).  The terrain
    graph is the caller's to ask for (``_cache(board).terrain()``): :func:`query_for` needs none."""
    from bellica.engine.vae_victis.logistics.paths import LinkGraphs

    entry = _cache(board)
    if options not in entry.mem:
        source = entry.source() if entry.source is not None else None
        done = None
        if source is not None:
            try:
                ensure_logistics(source, options)
                done = (source, _static_for(board, source, options), True)
            except (duckdb.Error, BellicaError):
                done = None  # e.g. a read-only campaign without the static tables: build from the Board
        if done is None:
            con = offline_connect()  # the logistics SQL needs no spatial functions: skip loading the extension
            board_to_duckdb(board, con)
            state_to_duckdb(CampaignState(0, Phase.ORDERS, (), {}), con)
            install_logistics(con, options)
            done = (con, LinkGraphs.from_con(con), False)
        entry.mem[options] = done
    return entry.mem[options]


@contextmanager
def _pure_state(con, state: CampaignState, campaign_con: bool):
    """``state``'s tables on ``con``: TEMP tables over a campaign's own (dropped after), else its own tables."""
    state_to_duckdb(state, con, temp=campaign_con)
    try:
        yield
    finally:
        if campaign_con:
            drop_temp_tables(con, STATE_TABLES + ("army_logistics_distance",))


def _state_key(state: CampaignState) -> tuple:
    """Everything of a state the logistics depend on (not strengths, VP, round or phase): armies
    (navies are the armies at sea), control, sieges, naval superiority and the sea links."""
    return (
        tuple(sorted((a.id, a.faction, a.cell, bool(a.eliminated)) for a in state.armies)),
        tuple(sorted(state.control.items(), key=lambda kv: (kv[0], kv[1] is None, kv[1] or ""))),
        tuple(sorted({s.structure for s in state.sieges})),
        tuple(sorted((z, f, int(v)) for z, by_f in state.superiority.items() for f, v in by_f.items())),
        tuple(sorted((f, z, tuple(t)) for f, by_z in state.sea_links.items() for z, t in by_z.items() if t)),
    )


def logistics_for(
    board: Board,
    state: CampaignState,
    navies=None,
    options: LogisticsOptions | None = None,
) -> Logistics:
    """The logistics of a pure (board, state): same SQL, in an in-memory DuckDB kept with the board.

    The board's tables are loaded once per Board (Arrow scans) and its static link tables
    built once; each call loads the state's few rows.  The latest results are remembered
    by the state's logistics-relevant content, so asking again for an unchanged position
    (administration asks for the round's start, which movement already computed) is free.
    ``options``: default ``board.rules.logistics``.  Navies are the state's armies on water
    hexes and the sea-zone links its ``sea_links`` (``state.superiority`` limiting them);
    ``navies`` (the land engine's hook) is accepted and ignored.
    """
    options = resolve_options(options, board=board)
    entry = _cache(board)
    key = (options, _state_key(state))
    hit = entry.memo.get(key)
    if hit is not None:
        return hit
    con, static, campaign_con = _con_for(board, options)
    g = entry.terrain()
    with _pure_state(con, state, campaign_con):
        result = compute_logistics(con, options, install=False, _graph=g, _static=static, _temp=campaign_con)
    remember(board, state, result, options=options)
    return result


def query_for(board: Board, state: CampaignState, queries, *, options: LogisticsOptions | None = None) -> list[list[tuple]]:
    """The rows of each SQL text of ``queries``, run on the logistics tables and views of the pure
    (board, state) in the in-memory database :func:`logistics_for` uses (for a question that
    needs less than the whole :class:`Logistics`, such as the default sea links')."""
    options = resolve_options(options, board=board)
    con, _static, campaign_con = _con_for(board, options)
    with _pure_state(con, state, campaign_con):
        return [run_sql(con, sql, name="logistics.query_for").fetchall() for sql in queries]


def remember(
    board: Board,
    state: CampaignState,
    result: Logistics,
    *,
    navies=None,
    options: LogisticsOptions | None = None,
) -> None:
    """Record ``result`` as the logistics of (board, state) for :func:`logistics_for`
    (the round steps compute on the campaign database and hand the result on).
    ``navies`` is accepted and ignored (navies are the state's armies at sea)."""
    options = resolve_options(options, board=board)
    entry = _cache(board)
    key = (options, _state_key(state))
    entry.memo.pop(key, None)
    entry.memo[key] = result
    while len(entry.memo) > _MEMO_SIZE:
        entry.memo.pop(next(iter(entry.memo)))
