"""Writing the tables the logistics SQL reads: from a Board and a CampaignState.

A Board's tables (thousands of rows) go in as one Arrow scan each (:func:`_load`); a state's few
rows as SQL literals (:func:`_load_rows`), because handing DuckDB an Arrow table makes it import
pyarrow.dataset and pandas (~0.5 s on a CLI step), which a few dozen rows never repay.
A pure state over a campaign's own map is written as TEMP tables on the campaign connection
(``temp=True``): they shadow the campaign's state tables, for that connection only, while the
logistics views read them (engine/vae_victis/logistics/compute.py), and are dropped after.
"""

from __future__ import annotations

from typing import Mapping

import duckdb

from bellica.datasets.rules import rules_rows
from bellica.engine.vae_victis.model import Board, CampaignState
from bellica.geo.spatialdb import forget_catalog, insert_rows, run_sql

#: The state tables the logistics SQL reads (written by :func:`state_to_duckdb`).
STATE_TABLES = ("armies", "control", "sieges", "naval_superiority", "sea_links")


def _load(con, name: str, columns: Mapping[str, tuple[str, list]]) -> None:
    """Create table ``name`` from column lists in one Arrow scan (executemany is row by row)."""
    import pyarrow as pa

    table = pa.table({c: pa.array(values, type=pa.string() if typ == "VARCHAR" else None) for c, (typ, values) in columns.items()})
    con.register("_bellica_load", table)
    try:
        casts = ", ".join(f"CAST({c} AS {typ}) AS {c}" for c, (typ, _) in columns.items())
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT {casts} FROM _bellica_load")
        forget_catalog(con)
    finally:
        con.unregister("_bellica_load")


def _load_rows(con, name: str, columns: Mapping[str, tuple[str, list]], *, temp: bool = False) -> None:
    """Create table ``name`` (a TEMP table with ``temp``) from column lists, as SQL literals (module doc)."""
    where = f"temp.main.{name}" if temp else name  # qualified: an INSERT must never reach the campaign's own table
    run_sql(con, f"CREATE OR REPLACE {'TEMP ' if temp else ''}TABLE {name} ("
                 + ", ".join(f"{c} {typ}" for c, (typ, _) in columns.items()) + ")", name=f"logistics.load.{name}")
    rows = list(zip(*(values for _typ, values in columns.values())))
    insert_rows(con, f"INSERT INTO {where}", rows, name=f"logistics.load.{name}")


def drop_temp_tables(con, names) -> None:
    """Drop the TEMP tables of these names (never the campaign's own: the names are qualified)."""
    for name in names:
        run_sql(con, f"DROP TABLE IF EXISTS temp.main.{name}", name=f"logistics.drop_temp.{name}")


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
    factions = list(board.factions.values())
    _load(con, "factions", {
        "name": ("VARCHAR", [f.name for f in factions]),
        "capitals": ("VARCHAR[]", [list(f.capitals) for f in factions]),
    })
    zones = sorted((c, z) for c, zs in board.sea_zones.items() for z in zs)
    _load(con, "hex_sea_zones", {"cell": ("VARCHAR", [c for c, _ in zones]), "zone": ("VARCHAR", [z for _, z in zones])})
    # the structures' ZoC reach (structure_zoc_reach) and the sea links' base level read them
    rules = rules_rows(board.rules.values)
    _load(con, "rules", {"key": ("VARCHAR", [k for k, _ in rules]), "value": ("VARCHAR", [v for _, v in rules])})


def state_to_duckdb(state: CampaignState, con: duckdb.DuckDBPyConnection, navies=None, *, temp: bool = False) -> None:
    """Write the state tables the logistics SQL reads (armies, control, sieges, naval_superiority,
    sea_links), as TEMP tables with ``temp`` (module doc).  Navies are the armies on water hexes;
    ``navies`` (the land engine's hook) is accepted and ignored."""
    def _load(con, name, columns):
        _load_rows(con, name, columns, temp=temp)

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
    levels = sorted((z, f, int(v)) for z, by_faction in state.superiority.items() for f, v in by_faction.items())
    _load(con, "naval_superiority", {
        "zone": ("VARCHAR", [r[0] for r in levels]),
        "faction": ("VARCHAR", [r[1] for r in levels]),
        "level": ("INTEGER", [r[2] for r in levels]),
    })
    links = sorted(
        (f, z, s, rank)
        for f, by_zone in state.sea_links.items() for z, targets in by_zone.items()
        for rank, s in enumerate(targets, start=1)
    )
    _load(con, "sea_links", {
        "faction": ("VARCHAR", [r[0] for r in links]),
        "zone": ("VARCHAR", [r[1] for r in links]),
        "structure": ("VARCHAR", [r[2] for r in links]),
        "rank": ("INTEGER", [r[3] for r in links]),
    })
