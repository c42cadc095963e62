"""Play-aid facts of a campaign map, read with SQL: hex names, hex sides with MP costs, and the situation.

Nothing here imports the engine (web_maps sits beside it): every fact is read
from the campaign database's tables and views.  Decisions where issue 10 is
silent, stated here and in docs of the maps:

* **Hex names.**  A hex is named by the nearest Town/City and the clock
  positions of a shortest walk from it, written as players write moves:
  ``"Roma"`` is Roma's hex, ``"Roma 3 3 5"`` is two steps across side 3 then
  one across side 5.  The walk is a breadth-first search over
  ``hex_neighbors`` started from every structure at once (structures in name
  order, sides in clock order), so the nearest structure wins and ties go to
  the first name; every hex keeps the walk that first reached it.  Names are
  therefore **unique** (a start and a walk fix the end hex), **stable** (they
  depend only on the map and the scenario's structures, never on the round),
  and as short as the map allows.  A hex no structure reaches (an island with
  no Town/City) is named by its H3 id.  :func:`resolve_hex` reads any such
  name back, any other clock walk from a structure (``"Roma 9 3"`` is Roma),
  or an H3 id; the CLI should call it where it takes a cell (``round
  advance``/``debark``: ``bellica.web_maps.play_aids.resolve_hex(con, text)``).
* **MP to enter across a side** is the plain cost of the rules table
  (``rules``, keys ``movement.terrain_mp.*``, ``movement.road_divisor``,
  ``movement.river_mp``, ``movement.min_move_mp``/``max_move_mp``,
  ``options.structure_road_any_side``): the neighbour's terrain cost, divided
  on a road step (``road_edges``, or ``road_cells`` pairs), plus the river
  cost on a River hex (``river_cells``, else ``hexes.river``) without a
  Town/City, clamped.  It leaves out what depends on who moves and when:
  the logistics-line road bonus, the enemy navy ZoC surcharge, ZoC halts,
  straits and naval movement (NMP); :func:`mp_note` says so in the tooltip.
  Hexes an army cannot enter (water, terrain without a cost such as Peaks)
  have no MP.
* **The situation** (:class:`Situation`): ZoC from the views ``army_zoc`` and
  ``structure_zoc`` (navies' ZoC is drawn by :mod:`web_maps.naval_layers`);
  lines of logistics and supplied structures from ``logistics_lines`` and
  ``supplied_structures``; sieges from ``sieges`` (+ ``siege_armies``) and
  the full Resilience from ``structure_resilience``; straits from the map
  view ``straits``; each zone's naval superiority from the view
  ``superiority`` (else the table ``naval_superiority``); the last movement
  from the newest ``round_notes`` row with key ``movement`` (the paths of
  that round, which the step writes once movement is done) and its battles
  from ``engagements`` (+ ``engagement_results``); the round and phase from
  ``campaign`` and the VP from ``victory_points``.  A view the file lacks
  leaves its layer out (logged), never a guess.
* **A faction's view** (:meth:`Situation.for_faction`) keeps only its own lines
  of logistics, supplied structures and movement paths; ZoC, sieges,
  straits, superiority, battles, round, phase and VP are on the board for
  everyone.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field, replace

import duckdb

from bellica.geo.hex_names import name_hexes, read_hex_name
from bellica.geo.logs import logger
from bellica.schema import existing_columns, existing_tables

log = logger(__name__)


def _rows(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def _has(con, tables, name: str, columns: tuple[str, ...] = ()) -> bool:
    return name in tables and set(columns) <= set(existing_columns(con, name))


# --- the movement rules ------------------------------------------------------------------


@dataclass(frozen=True)
class MoveRules:
    """The plain movement costs of the campaign's ``rules`` rows (values as the rules table holds them)."""

    terrain_mp: dict[str, int]
    road_divisor: int
    river_mp: int
    min_mp: int
    max_mp: int
    road_any_side: bool = False
    logistics_road_mp: int | None = None
    enemy_navy_zoc_mp: int | None = None

    def cost(self, terrain: str | None, kind: str | None, *, road: bool, river: bool) -> int | None:
        """MP to enter a hex (None: an army cannot enter it)."""
        base = self.terrain_mp.get(terrain) if kind == "land" else None
        if base is None:
            return None
        mp = base // self.road_divisor if road else base
        if river:
            mp += self.river_mp
        return max(self.min_mp, min(mp, self.max_mp))


def read_move_rules(con: duckdb.DuckDBPyConnection) -> MoveRules | None:
    """The movement rules of the campaign's ``rules`` table, or None when it has none."""
    if not _has(con, existing_tables(con), "rules", ("key", "value")):
        return None
    values = {}
    for key, value in _rows(con, "SELECT key, value FROM rules WHERE key LIKE 'movement.%' "
                                 "OR key = 'options.structure_road_any_side'"):
        try:
            values[key] = json.loads(value)
        except (TypeError, ValueError):
            values[key] = value
    terrain = {k.rsplit(".", 1)[1]: int(v) for k, v in values.items()
               if k.startswith("movement.terrain_mp.") and isinstance(v, (int, float))}
    needed = ("movement.road_divisor", "movement.river_mp", "movement.min_move_mp", "movement.max_move_mp")
    if not terrain or any(not isinstance(values.get(k), (int, float)) for k in needed):
        log.warning("the rules table lacks movement costs: the map shows no MP")
        return None

    def opt(key):
        v = values.get(key)
        return int(v) if isinstance(v, (int, float)) else None

    return MoveRules(terrain, int(values["movement.road_divisor"]), int(values["movement.river_mp"]),
                     int(values["movement.min_move_mp"]), int(values["movement.max_move_mp"]),
                     bool(values.get("options.structure_road_any_side", False)),
                     opt("movement.logistics_road_mp"), opt("movement.enemy_navy_zoc_mp"))


def mp_note(rules: MoveRules | None) -> str:
    """What the MP figures of the tooltips include and leave out, in the rules' own numbers."""
    if rules is None:
        return "no MP: the campaign has no movement rules"
    left = ["ZoC halts", "straits", "navies (NMP)"]
    if rules.logistics_road_mp:
        left.insert(0, f"logistics-line road {rules.logistics_road_mp:+d}")
    if rules.enemy_navy_zoc_mp:
        left.insert(1, f"enemy navy ZoC {rules.enemy_navy_zoc_mp:+d}")
    return (f"terrain, road \u00f7{rules.road_divisor}, river {rules.river_mp:+d} (hex without Town/City), "
            f"clamped {rules.min_mp}-{rules.max_mp}; not included: " + ", ".join(left))


# --- hex sides, names, and the resolver --------------------------------------------------


def read_sides(con) -> dict[str, list[tuple[int, str]]]:
    """cell -> [(clock, neighbour), ...] in clock order, from ``hex_neighbors`` (the engine's numbering)."""
    if not _has(con, existing_tables(con), "hex_neighbors", ("cell", "neighbor", "clock")):
        return {}
    sides: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for cell, nbr, clock in _rows(con, "SELECT cell, neighbor, clock FROM hex_neighbors ORDER BY cell, clock, neighbor"):
        sides[cell].append((int(clock), nbr))
    return dict(sides)


@dataclass
class HexNames:
    """The names of a map's hexes and the means to read one back (:meth:`resolve`)."""

    names: dict[str, str]
    sides: dict[str, list[tuple[int, str]]]
    structures: dict[str, str]  # lower-case structure name -> cell

    def resolve(self, text: str, *, where: str = "hex") -> str:
        """The H3 cell a player's hex (an H3 id, or a structure and clock positions) names."""
        return read_hex_name(text, cells=self.names, by_clock=lambda cell: dict(self.sides.get(cell, ())),
                             structures=self.structures, where=where)


def load_hex_names(con: duckdb.DuckDBPyConnection) -> HexNames:
    """The hex names of a campaign (or a map: then every hex is named by its H3 id)."""
    tables = existing_tables(con)
    cells = [c for (c,) in _rows(con, "SELECT cell FROM hexes ORDER BY cell")]
    sides = read_sides(con)
    structures = (_rows(con, "SELECT name, cell FROM structures WHERE cell IS NOT NULL ORDER BY name")
                  if _has(con, tables, "structures", ("name", "cell")) else [])
    return HexNames(name_hexes(cells, sides, structures), sides, {n.lower(): c for n, c in structures})


def resolve_hex(con: duckdb.DuckDBPyConnection, text: str, *, where: str = "hex") -> str:
    """The H3 cell that ``text`` names: an H3 id of the map, or a hex name such as ``"Roma 3 3 5"``."""
    return load_hex_names(con).resolve(text, where=where)


# --- per-hex play facts ------------------------------------------------------------------


@dataclass
class HexFacts:
    """What a hex's tooltip tells a player, per hex of the map (lists in ``cells`` order)."""

    names: list[str]
    structure: list[str | None]
    road: list[str | None]
    river: list[str | None]
    zones: list[str | None]
    sides: list[list[int]]  # per hex [clock, neighbour index, MP (-1: cannot enter), ...]
    rules: MoveRules | None
    note: str
    entry_mp: dict[str, int | None] = field(default_factory=dict)  # off-road MP to enter each hex


def road_steps(con, tables) -> set[tuple[str, str]]:
    """Both directions of every road step: the view ``road_edges``, else consecutive ``road_cells``."""
    if _has(con, tables, "road_edges", ("cell", "neighbor")):
        return {(a, b) for a, b in _rows(con, "SELECT cell, neighbor FROM road_edges")}
    if not _has(con, tables, "road_cells", ("road", "seq", "cell")):
        return set()
    steps = set()
    for a, b in _rows(con, "SELECT cell, lead(cell) OVER (PARTITION BY road ORDER BY seq) FROM road_cells"):
        if b is not None and a != b:
            steps |= {(a, b), (b, a)}
    return steps


def load_hex_facts(con, cells: list[str], kinds: list, terrains: list, river_flags: list[bool]) -> HexFacts:
    tables = existing_tables(con)
    index = {c: i for i, c in enumerate(cells)}
    sides = read_sides(con)
    structures = (_rows(con, "SELECT name, cell FROM structures WHERE cell IS NOT NULL ORDER BY name")
                  if _has(con, tables, "structures", ("name", "cell")) else [])
    names = name_hexes(cells, sides, structures)
    at = {c: n for n, c in structures}
    roads: dict[str, set[str]] = defaultdict(set)
    if _has(con, tables, "road_cells", ("road", "cell")):
        for road, cell in _rows(con, "SELECT road, cell FROM road_cells"):
            roads[cell].add(road)
    rivers: dict[str, set[str]] = defaultdict(set)
    if _has(con, tables, "river_cells", ("river", "cell")):
        for river, cell in _rows(con, "SELECT river, cell FROM river_cells"):
            rivers[cell].add(river)
        river_hex = set(rivers)
    else:  # without the scenario's rivers the map's flag is the River hex (as the engine's board reads it)
        river_hex = {c for c, r in zip(cells, river_flags) if r}
    zones: dict[str, set[str]] = defaultdict(set)
    if _has(con, tables, "hex_sea_zones", ("cell", "zone")):
        for cell, zone in _rows(con, "SELECT cell, zone FROM hex_sea_zones"):
            zones[cell].add(zone)
    rules = read_move_rules(con)
    steps = road_steps(con, tables)
    road_hex = {a for a, _ in steps}
    entry, flat = {}, []
    for i, cell in enumerate(cells):
        row = []
        for clock, nbr in sides.get(cell, ()):
            j = index.get(nbr)
            if j is None:
                continue
            mp = None
            if rules is not None:
                road = (cell, nbr) in steps or (rules.road_any_side and nbr in at and nbr in road_hex)
                mp = rules.cost(terrains[j], kinds[j], road=road, river=nbr in river_hex and nbr not in at)
            row += [clock, j, -1 if mp is None else mp]
        flat.append(row)
        if rules is not None:
            entry[cell] = rules.cost(terrains[i], kinds[i], road=False, river=cell in river_hex and cell not in at)

    def joined(d, c):
        return ", ".join(sorted(d[c])) if d.get(c) else None

    return HexFacts([names[c] for c in cells], [at.get(c) for c in cells], [joined(roads, c) for c in cells],
                    [joined(rivers, c) or ("River hex" if c in river_hex else None) for c in cells],
                    [joined(zones, c) for c in cells], flat, rules, mp_note(rules), entry)


# --- the situation -----------------------------------------------------------------------


@dataclass(frozen=True)
class Siege:
    structure: str
    faction: str
    resilience: int | None
    start_resilience: int | None
    full_resilience: int | None
    since: int | None
    armies: tuple[int, ...]


@dataclass(frozen=True)
class Battle:
    round: int
    battle: int | None
    engagement: int
    army_a: int | None
    army_b: int | None
    assault: str | None
    cells: tuple[str, ...]  # where its armies ended their movement (the assaulted structure's hex)
    results: tuple[tuple[int, str, int | None], ...]  # (army, outcome, casualties %)


@dataclass(frozen=True)
class Situation:
    """The state layers of a campaign page; :meth:`for_faction` is a pure redaction."""

    round: str | None = None
    phase: str | None = None
    stage: str | None = None
    winner: str | None = None
    vp: tuple[tuple[str, int | None], ...] = ()
    zoc: tuple[tuple[str, str, str, str], ...] = ()  # (faction, cell, source_kind, source) of armies and structures
    has_zoc: bool = False
    lines: tuple[tuple[str, str, str, str | None], ...] = ()  # (faction, from, to, link type)
    supplied: tuple[tuple[str, str, int | None], ...] = ()  # (faction, structure, depth)
    has_logistics: bool = False
    sieges: tuple[Siege, ...] = ()
    straits: tuple[tuple[str, str, str], ...] = ()  # (coast cell, land a, land b)
    superiority: dict = field(default_factory=dict)  # zone -> {faction: level}
    movement_round: int | None = None
    paths: dict = field(default_factory=dict)  # army -> (faction, [cells])
    battles: tuple[Battle, ...] = ()
    viewer: str | None = None

    def for_faction(self, faction: str) -> "Situation":
        """What ``faction`` may see: its own lines, supplied structures and paths; the rest is on the board."""
        return replace(self, lines=tuple(x for x in self.lines if x[0] == faction),
                       supplied=tuple(x for x in self.supplied if x[0] == faction),
                       paths={a: p for a, p in self.paths.items() if p[0] == faction}, viewer=faction)


def _view_rows(con, tables, name: str, sql: str, what: str) -> list[tuple] | None:
    if name not in tables:
        log.info("the campaign has no %s view: the map leaves out %s", name, what)
        return None
    try:
        return _rows(con, sql)
    except duckdb.Error as e:  # a view over tables an older file lacks
        log.warning("view %s cannot be read (%s): the map leaves out %s", name, str(e).splitlines()[0], what)
        return None


def _logistics(con, tables) -> tuple[list[tuple] | None, list[tuple] | None]:
    """(the lines of logistics, the supplied structures).  Both are rows of the one view
    ``logistics_network`` (``logistics_lines`` and ``supplied_structures`` each select theirs from
    it), so it is read once where the campaign has it: each read traces the network again (55 and
    110 ms of drawing a First Punic War map of 700 ms)."""
    if "logistics_network" not in tables:
        return (_view_rows(con, tables, "logistics_lines",
                           "SELECT DISTINCT faction, from_structure, to_structure, link_type FROM logistics_lines "
                           "ORDER BY 1, 2, 3, 4", "the lines of logistics"),
                _view_rows(con, tables, "supplied_structures",
                           "SELECT faction, structure, depth FROM supplied_structures ORDER BY 1, 2",
                           "the supplied structures"))
    # In the two views' own orders, DuckDB's: a line by faction, ends, type; a node by faction, structure, depth.
    rows = _view_rows(con, tables, "logistics_network",
                      "SELECT row_kind, faction, from_structure, to_structure, link_type, to_depth FROM logistics_network "
                      "ORDER BY row_kind, faction, CASE WHEN row_kind = 'link' THEN from_structure END, to_structure, "
                      "CASE WHEN row_kind = 'link' THEN link_type END, to_depth",
                      "the lines of logistics and the supplied structures")
    if rows is None:
        return None, None
    lines = list(dict.fromkeys((f, a, b, t) for kind, f, a, b, t, _d in rows if kind == "link"))
    supplied = [(f, b, d) for kind, f, _a, b, _t, d in rows if kind == "node"]
    return lines, supplied


def load_situation(con: duckdb.DuckDBPyConnection) -> Situation:
    """The campaign's situation now, read from its tables and views (see the module doc)."""
    tables = existing_tables(con)
    s: dict = {}
    if _has(con, tables, "campaign", ("key", "value")):
        keys = dict(_rows(con, "SELECT key, value FROM campaign"))
        s.update(round=keys.get("round"), phase=keys.get("phase"), stage=keys.get("stage"), winner=keys.get("winner"))
    if _has(con, tables, "victory_points", ("faction", "vp")):
        s["vp"] = tuple((f, None if v is None else int(v))
                        for f, v in _rows(con, "SELECT faction, vp FROM victory_points ORDER BY faction"))
    zoc = []
    army = _view_rows(con, tables, "army_zoc", "SELECT faction, cell, 'army', CAST(army AS VARCHAR) FROM army_zoc",
                      "armies' ZoC")
    structure = _view_rows(con, tables, "structure_zoc",
                           "SELECT controller, cell, 'structure', structure FROM structure_zoc", "structures' ZoC")
    for rows in (army, structure):
        zoc += rows or []
    s["zoc"] = tuple(sorted(zoc))
    s["has_zoc"] = army is not None or structure is not None
    lines, supplied = _logistics(con, tables)
    s["lines"], s["supplied"] = tuple(lines or ()), tuple(supplied or ())
    s["has_logistics"] = lines is not None or supplied is not None

    if _has(con, tables, "sieges", ("structure", "faction")):
        cols = existing_columns(con, "sieges")
        pick = ", ".join(c if c in cols else f"NULL AS {c}" for c in ("resilience", "start_resilience", "started_round"))
        full = {}
        if "structure_resilience" in tables:
            full = dict(_view_rows(con, tables, "structure_resilience",
                                   "SELECT structure, resilience FROM structure_resilience", "full Resilience") or [])
        by = defaultdict(list)
        if _has(con, tables, "siege_armies", ("structure", "army")):
            for st, a in _rows(con, "SELECT structure, army FROM siege_armies ORDER BY army"):
                by[st].append(int(a))
        s["sieges"] = tuple(Siege(st, f, r, r0, full.get(st), since, tuple(by.get(st, ())))
                            for st, f, r, r0, since in _rows(con, f"SELECT structure, faction, {pick} FROM sieges "
                                                                  "ORDER BY structure"))
    straits = _view_rows(con, tables, "straits", "SELECT DISTINCT cell, land_a, land_b FROM straits ORDER BY 1, 2, 3",
                         "the straits")
    s["straits"] = tuple(straits or ())

    superiority: dict = defaultdict(dict)
    rows = (_view_rows(con, tables, "superiority", "SELECT zone, faction, level FROM superiority", "superiority")
            if "superiority" in tables else None)
    if rows is None and _has(con, tables, "naval_superiority", ("zone", "faction", "level")):
        rows = _rows(con, "SELECT zone, faction, level FROM naval_superiority")
    for zone, faction, level in rows or ():
        if level is not None:
            superiority[zone][faction] = int(level)
    s["superiority"] = {z: dict(sorted(v.items())) for z, v in sorted(superiority.items())}

    if _has(con, tables, "round_notes", ("round", "key", "value")):
        row = con.execute("SELECT round, value FROM round_notes WHERE key = 'movement' ORDER BY round DESC LIMIT 1"
                          ).fetchone()
        if row is not None:
            s.update(_movement(con, tables, int(row[0]), row[1]))
    return Situation(**s)


def _movement(con, tables, rnd: int, value: str) -> dict:
    try:
        note = json.loads(value) or {}
    except ValueError:
        log.warning("round %d's movement note is not JSON: no movement paths drawn", rnd)
        return {}
    faction = {}
    if _has(con, tables, "armies", ("id", "faction")):
        faction = {int(i): f for i, f in _rows(con, "SELECT id, faction FROM armies")}
    paths = {}
    for army, cells in sorted((note.get("paths") or {}).items(), key=lambda kv: int(kv[0])):
        if isinstance(cells, list) and int(army) in faction:
            paths[int(army)] = (faction[int(army)], [str(c) for c in cells])
    battles = []
    if _has(con, tables, "engagements", ("round", "engagement", "army_a", "army_b")):
        cols = existing_columns(con, "engagements")
        extra = ", ".join(c if c in cols else f"NULL AS {c}" for c in ("battle", "assault"))
        results = defaultdict(list)
        if _has(con, tables, "engagement_results", ("round", "engagement", "army", "outcome")):
            cas = "casualties" if "casualties" in existing_columns(con, "engagement_results") else "NULL"
            for e, a, o, c in _rows(con, f"SELECT engagement, army, outcome, {cas} FROM engagement_results "
                                         "WHERE round = ? ORDER BY engagement, army", [rnd]):
                results[e].append((int(a), o, None if c is None else int(c)))
        where = {}
        if _has(con, tables, "structures", ("name", "cell")):
            where = dict(_rows(con, "SELECT name, cell FROM structures"))
        for e, a, b, battle, assault in _rows(con, f"SELECT engagement, army_a, army_b, {extra} FROM engagements "
                                                   "WHERE round = ? ORDER BY engagement", [rnd]):
            ends = [paths[x][1][-1] for x in (a, b) if x is not None and x in paths and paths[x][1]]
            if assault and assault in where:
                ends = [where[assault]]
            battles.append(Battle(rnd, battle, int(e), a, b, assault, tuple(dict.fromkeys(ends)),
                                  tuple(results.get(e, ()))))
    return {"movement_round": rnd, "paths": paths, "battles": tuple(battles)}


__all__ = ["Battle", "HexFacts", "HexNames", "MoveRules", "Siege", "Situation", "load_hex_facts", "load_hex_names",
           "load_situation", "mp_note", "name_hexes", "read_move_rules", "read_sides", "resolve_hex", "road_steps"]
