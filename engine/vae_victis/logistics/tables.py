"""Writing the tables the logistics SQL reads: from a Board and a CampaignState, or copied from a campaign."""

from __future__ import annotations

from typing import Mapping

import duckdb

from tabula.datasets.rules import rules_rows
from tabula.engine.vae_victis.logistics.options import LogisticsOptions
from tabula.engine.vae_victis.logistics.sql import ensure_logistics, install_logistics
from tabula.engine.vae_victis.model import Board, CampaignState, Phase


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


def state_to_duckdb(state: CampaignState, con: duckdb.DuckDBPyConnection, navies=None) -> None:
    """Write the state tables the logistics SQL reads (armies, control, sieges, naval_superiority,
    sea_links), one Arrow scan each.  Navies are the armies on water hexes; ``navies`` (the land
    engine's hook) is accepted and ignored."""
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
    ("logistics_sea_coast", "*"),
    ("rules", "key, value"),
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
