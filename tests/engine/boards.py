"""Tiny synthetic boards from real H3 cells, for every engine test.

A board is a disk of H3 cells around a centre (default: Roma, res 5, where the
cells are pointy-topped and their sides sit at clock positions 1, 3, 5, 7, 9, 11).
Cells are named the way players name moves: by a *path* of clock positions from
the centre.  ``""`` (or ``"c"``) is the centre, ``"3"`` its east neighbour,
``"3 3 5"`` two steps east then one south-east.  A full H3 cell string is
accepted anywhere a path is.

    from tests.engine.boards import sketch

    m = sketch(
        radius=3,
        terrain={"3": "hills", "3 3": "forests", "9": "peaks"},
        water={"11": "coast", "11 11": "sea", "5 5": "lake"},
        roads=[["9 9", "9", "", "3", "3 3"]],       # one road, cell by cell
        rivers=["1", "1 1"],
        structures=[("Capua", "city", "3 3", "roma"), ("Roma", "city", "", "roma", True)],
    )
    board = m.board                                   # engine.model.Board
    capua = m.cell("3 3")                             # '851e...'
    state = m.state([(1, "carthago", "9 9"), (9, "roma", "3")])
    orders = move_orders({9: "3 3 5", 1: "0 3"})

    con = campaign_db(board, state)                   # in-memory DuckDB with the
    # docs/architecture.md map + campaign tables and the engine/vae_victis/sql/state.sql state tables

Every land hex is farmlands unless ``terrain`` says otherwise.  Build the seed's
situations by naming only the hexes that matter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import h3

from bellica.datasets.rules import rules_rows

from bellica.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState, FactionInfo, Hex, Phase, Siege, StructureInfo
from bellica.geo.hexgrid import cell_polygon, cell_sides
from bellica.schema import CAMPAIGN, CAMPAIGN_VIEWS, create_map_tables, create_tables, run_schema, schema_tables

DEFAULT_CENTER = (41.9, 12.5)  # Roma
DEFAULT_RES = 5

DEFAULT_FACTIONS = {
    "roma": FactionInfo("roma", player=True, capitals=("Roma",), influence_multiplier=1, colour="#c0392b"),
    "carthago": FactionInfo("carthago", player=True, capitals=("Carthago",), influence_multiplier=2, colour="#2c3e50"),
    "syracusae": FactionInfo("syracusae", player=False, capitals=("Syracusae",), influence_multiplier=1, colour="#8e44ad"),
}

__all__ = [
    "DEFAULT_CENTER",
    "DEFAULT_FACTIONS",
    "DEFAULT_RES",
    "TestMap",
    "board_from_rows",
    "campaign_db",
    "cell",
    "move_orders",
    "sketch",
    "walk",
    "write_campaign_tables",
    "write_state_tables",
]


def _clock_steps(path: str) -> list[int]:
    path = path.strip()
    if path in ("", "c"):
        return []
    return [int(tok) for tok in path.split()]


def walk(start: str, path: str) -> str:
    """The cell reached from ``start`` by the clock positions in ``path`` (H3 geometry, no map bounds)."""
    here = start
    for step in _clock_steps(path):
        sides = {s.clock: s.neighbor for s in cell_sides(here)}
        if step not in sides:
            raise ValueError(f"cell {here} has no side at clock {step} (sides: {sorted(sides)}) in path {path!r}")
        here = sides[step]
    return here


def cell(ref: str, center: tuple[float, float] = DEFAULT_CENTER, res: int = DEFAULT_RES) -> str:
    """An H3 cell given as a cell string or a clock path from the centre (see the module doc)."""
    if h3.is_valid_cell(ref):
        return ref
    return walk(h3.latlng_to_cell(center[0], center[1], res), ref)


def _structure_row(spec) -> tuple[str, str, str, str | None, bool]:
    if isinstance(spec, Mapping):
        return (spec["name"], spec["kind"], spec["cell"], spec.get("controller"), bool(spec.get("capital", False)))
    name, kind, ref, *rest = spec
    controller = rest[0] if rest else None
    capital = bool(rest[1]) if len(rest) > 1 else False
    return name, kind, ref, controller, capital


def board_from_rows(
    center: tuple[float, float] = DEFAULT_CENTER,
    res: int = DEFAULT_RES,
    radius: int = 4,
    terrain: Mapping[str, str] | None = None,
    default_terrain: str = "farmlands",
    water: Mapping[str, str] | None = None,
    roads: Iterable[Sequence[str]] = (),
    rivers: Iterable[str] = (),
    structures: Iterable = (),
    factions: Mapping[str, FactionInfo] | None = None,
    sea_zones: Mapping[str, Iterable[str]] | None = None,
) -> Board:
    """A :class:`Board` on the disk of ``radius`` hexes around ``center`` (see the module doc).

    ``terrain``/``water``: {ref: terrain} / {ref: coast|sea|ocean|lake}; ``roads``: lists of
    refs, consecutive ones adjacent; ``rivers``: River hexes; ``structures``: tuples
    ``(name, town|city, ref[, controller[, capital]])`` or dicts with those keys;
    ``sea_zones``: {ref: [zone, ...]}, default every coast/sea/ocean hex in "Mare Tyrrhenum".
    """
    origin = h3.latlng_to_cell(center[0], center[1], res)
    cells = sorted(h3.grid_disk(origin, radius))
    on_map = set(cells)

    def resolve(ref: str) -> str:
        c = cell(ref, center, res)
        if c not in on_map:
            raise ValueError(f"{ref!r} ({c}) lies outside the board of radius {radius}")
        return c

    kinds = {c: "land" for c in cells}
    terrains: dict[str, str | None] = {c: default_terrain for c in cells}
    for ref, kind in (water or {}).items():
        c = resolve(ref)
        kinds[c], terrains[c] = kind, None
    for ref, t in (terrain or {}).items():
        c = resolve(ref)
        if kinds[c] != "land":
            raise ValueError(f"{ref!r} is {kinds[c]}, it cannot have terrain {t!r}")
        terrains[c] = t
    river_cells = {resolve(r) for r in rivers}

    sides = {c: {s.clock: s.neighbor for s in cell_sides(c) if s.neighbor in on_map} for c in cells}
    hexes = {}
    for c in cells:
        lat, lng = h3.cell_to_latlng(c)
        hexes[c] = Hex(cell=c, kind=kinds[c], terrain=terrains[c], river=c in river_cells, lat=lat, lng=lng)

    edges: set[tuple[str, str]] = set()
    for road in roads:
        road_cells = [resolve(r) for r in road]
        for a, b in zip(road_cells, road_cells[1:]):
            if b not in sides[a].values():
                raise ValueError(f"road {list(road)}: {a} and {b} are not adjacent")
            edges.add((a, b))
            edges.add((b, a))

    structs = {}
    for spec in structures:
        name, kind, ref, controller, capital = _structure_row(spec)
        c = resolve(ref)
        coastal = any(hexes[n].kind == "coast" for n in sides[c].values())
        structs[name] = StructureInfo(name, kind, c, capital=capital, coastal=coastal, start_controller=controller)

    if sea_zones is None:
        zones = {c: frozenset({"Mare Tyrrhenum"}) for c in cells if kinds[c] in ("coast", "sea", "ocean")}
    else:
        zones = {resolve(ref): frozenset(z) for ref, z in sea_zones.items()}

    return Board(
        res=res,
        hexes=hexes,
        sides=sides,
        road_edges=frozenset(edges),
        structures=structs,
        factions=dict(factions if factions is not None else DEFAULT_FACTIONS),
        sea_zones=zones,
    )


@dataclass(frozen=True)
class TestMap:
    """A synthetic board plus the centre its clock paths start from."""

    __test__ = False  # not a pytest test class

    board: Board
    center: tuple[float, float] = DEFAULT_CENTER

    def cell(self, ref: str) -> str:
        c = cell(ref, self.center, self.board.res)
        if c not in self.board.hexes:
            raise ValueError(f"{ref!r} ({c}) is not a hex of this board")
        return c

    def state(
        self,
        armies: Iterable[tuple] = (),
        control: Mapping[str, str | None] | None = None,
        sieges: Iterable[Siege] = (),
        victory_points: Mapping[str, int] | None = None,
        round: int = 1,
        phase: Phase = Phase.MOVEMENT,
    ) -> CampaignState:
        """State with armies ``(id, faction, ref[, strength=1600[, eliminated]])``; control defaults to the
        structures' start controllers; every board faction gets 0 VP unless given."""
        rows = []
        for spec in armies:
            army_id, faction, ref, *rest = spec
            strength = rest[0] if rest else 1600
            eliminated = bool(rest[1]) if len(rest) > 1 else False
            rows.append(Army(army_id, faction, None if eliminated else self.cell(ref), strength, eliminated))
        ctrl = {s.name: s.start_controller for s in self.board.structures.values()}
        ctrl.update(control or {})
        vp = {f: 0 for f in self.board.factions}
        vp.update(victory_points or {})
        return CampaignState(
            round=round,
            phase=phase,
            armies=tuple(sorted(rows, key=lambda a: a.id)),
            control=ctrl,
            sieges=tuple(sieges),
            victory_points=vp,
        )


def move_orders(moves: Mapping[int, str]) -> dict[int, ArmyOrders]:
    """{army: "3 3 5 0 5"} -> {army: ArmyOrders(army, (3, 3, 5, 0, 5))} (moves only)."""
    return {a: ArmyOrders(a, tuple(int(t) for t in m.split())) for a, m in moves.items()}


def sketch(center: tuple[float, float] = DEFAULT_CENTER, res: int = DEFAULT_RES, **kwargs) -> TestMap:
    """:func:`board_from_rows` wrapped with its centre, so tests can name cells by clock paths."""
    return TestMap(board_from_rows(center=center, res=res, **kwargs), center)


# --- the board (and a state) as DuckDB tables -----------------------------------

def _many(con, sql: str, rows: Iterable[Sequence], chunk: int = 1000) -> None:
    """``sql`` (``INSERT ... VALUES (?, ...)``) for every row of ``rows``, in statements of ``chunk``
    rows with the values written in as literals: DuckDB's ``executemany`` runs one statement a row
    (3 s of a 24 s test module went to it)."""
    from bellica.geo.spatialdb import inline

    head, row = sql.split(" VALUES ", 1)
    rows = list(rows)
    for i in range(0, len(rows), chunk):
        con.execute(f"{head} VALUES " + ", ".join(inline(row, list(r)) for r in rows[i:i + chunk]))


def write_campaign_tables(con, board: Board, state: CampaignState | None = None) -> None:
    """Create the map + campaign tables of the one schema (schema/*.sql) for ``board`` (and, given ``state``,
    the engine/vae_victis/sql/state.sql state tables armies/control/sieges/siege_armies/victory_points/campaign).

    Roads are written as one two-cell road per adjacent pair, which yields exactly
    ``board.road_edges`` through the ``road_edges`` view.
    """
    create_map_tables(con, replace=True)
    # Every campaign table but scenario_meta and placements.  Without scenario_meta the file is a
    # hand-built board, which the engine reads with the ruleset's default rules; placements are no
    # part of a Board, so the tests that start a campaign write their own.
    tables = [t for t in schema_tables(CAMPAIGN) if t not in ("scenario_meta", "placements")]
    create_tables(con, CAMPAIGN, tables, replace=True)
    run_schema(con, CAMPAIGN_VIEWS)
    _many(con,
        "INSERT INTO hexes VALUES (?, ?, ?, ?, NULL, NULL, NULL, NULL, 0, ?, ?, ?, ?, ?, ST_GeomFromText(?::VARCHAR))",
        [
            (
                h.cell,
                board.res,
                h.kind,
                h.terrain,
                1.0 if h.kind == "land" else 0.0,
                1.0 if h.kind == "lake" else 0.0,
                h.river,
                h.lat,
                h.lng,
                cell_polygon(h.cell).wkt,
            )
            for h in board.hexes.values()
        ],
    )
    rows = []
    for c, by_clock in board.sides.items():
        bearings = {s.neighbor: s.bearing for s in cell_sides(c)}
        rows += [(c, n, clock, bearings.get(n, 0.0)) for clock, n in by_clock.items()]
    if rows:
        _many(con, "INSERT INTO hex_neighbors VALUES (?, ?, ?, ?)", rows)

    pairs = sorted((a, b) for a, b in board.road_edges if a < b)
    road_rows = []
    for i, (a, b) in enumerate(pairs):
        road_rows += [(f"road-{i}", 0, a), (f"road-{i}", 1, b)]
    if road_rows:
        _many(con, "INSERT INTO road_cells VALUES (?, ?, ?)", road_rows)

    river_rows = [("river", h.cell) for h in board.hexes.values() if h.river]
    if river_rows:
        _many(con, "INSERT INTO river_cells VALUES (?, ?)", river_rows)

    srows = []
    for s in board.structures.values():
        lat, lng = h3.cell_to_latlng(s.cell)
        srows.append((s.name, s.name, s.kind, s.cell, s.start_controller, s.capital, f"POINT ({lng} {lat})"))
    if srows:
        _many(con, "INSERT INTO structures VALUES (?, ?, ?, ?, ?, ?, ST_GeomFromText(?::VARCHAR))", srows)

    frows = [(f.name, f.colour, f.name, f.player, list(f.capitals), f.influence_multiplier, None, None)
             for f in board.factions.values()]
    if frows:
        _many(con, "INSERT INTO factions VALUES (?, ?, ?, ?, ?, ?, ?, ?)", frows)

    zrows = [(c, z) for c, zs in board.sea_zones.items() for z in sorted(zs)]
    if zrows:
        _many(con, "INSERT INTO hex_sea_zones VALUES (?, ?)", zrows)
    zone_names = sorted({z for _, z in zrows})
    if zone_names:
        _many(con, "INSERT INTO sea_zones VALUES (?, NULL)", [(z,) for z in zone_names])
    # The board's rules, frozen as `campaign new` freezes a scenario's: the rules views read them.
    _many(con, "INSERT INTO rules VALUES (?, ?)", rules_rows(board.rules.values))

    if state is not None:
        write_state_tables(con, state)


def write_state_tables(con, state: CampaignState) -> None:
    """The Vae Victis II state tables (engine/vae_victis/sql/state.sql, through the ruleset's
    schema: the one definition) holding ``state`` (naval superiority, sea links and navy rest
    included), replacing any that exist."""
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.engine.core.state import create_state_tables, drop_state_tables

    schema = get_ruleset("vae-victis-ii").schema
    drop_state_tables(con, schema)
    create_state_tables(con, schema)
    if state.armies:
        _many(con,
            "INSERT INTO armies (id, faction, cell, strength, eliminated) VALUES (?, ?, ?, ?, ?)",
            [(a.id, a.faction, a.cell, a.strength, a.eliminated) for a in state.armies],
        )
    if state.control:
        _many(con, "INSERT INTO control (structure, controller) VALUES (?, ?)", sorted(state.control.items()))
    for s in state.sieges:
        con.execute(
            "INSERT INTO sieges (structure, faction, resilience, start_resilience, started_round) VALUES (?, ?, ?, ?, ?)",
            (s.structure, s.faction, s.resilience, s.start_resilience, s.started_round),
        )
        for a in s.armies:
            con.execute("INSERT INTO siege_armies (structure, army) VALUES (?, ?)", (s.structure, a))
    if state.victory_points:
        _many(con, "INSERT INTO victory_points (faction, vp) VALUES (?, ?)", sorted(state.victory_points.items()))
    levels = sorted((z, f, int(v)) for z, by_f in state.superiority.items() for f, v in by_f.items())
    if levels:
        _many(con, "INSERT INTO naval_superiority (zone, faction, level) VALUES (?, ?, ?)", levels)
    links = [(f, z, s, rank) for f, by_z in sorted(state.sea_links.items()) for z, targets in sorted(by_z.items())
             for rank, s in enumerate(targets, start=1)]
    if links:
        _many(con, "INSERT INTO sea_links (faction, zone, structure, rank) VALUES (?, ?, ?, ?)", links)
    if state.navy_rest:
        _many(con, "INSERT INTO navy_rest (army, until_round) VALUES (?, ?)", sorted(state.navy_rest.items()))
    _many(con,
        "INSERT INTO campaign (key, value) VALUES (?, ?)",
        [("round", str(state.round)), ("phase", state.phase.value), ("seed", str(state.seed)),
         ("winner", state.winner)],
    )


def campaign_db(board: Board, state: CampaignState | None = None, path: str | Path | None = None):
    """A DuckDB connection (spatial loaded; in memory unless ``path``) holding ``board`` and ``state``."""
    from bellica.geo.spatialdb import connect

    con = connect(path)
    write_campaign_tables(con, board, state)
    return con
