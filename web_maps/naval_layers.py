"""Naval layers of a campaign map: navies' zones of control, blockades, sea links, naval superiority.

The web maps sit beside the engine, not on it, so nothing here asks the
engine: everything is read from the campaign database's tables and views,
and what the engine would derive is derived again from the base tables when
its view is absent (the engine's views are not always stored in the file).

* A **navy** is a live army (``armies``) standing on a Coast or Sea hex
  (``hexes.kind``), as in the engine (docs of issue 9: an army at sea is a
  navy; same number, faction and strength).  It is drawn as a hull-shaped
  counter in its faction's colour with its army number, in its own
  toggleable layer "Navies"; another faction's strength stays hidden in a
  faction's view exactly as a land army's does.
* A navy's **ZoC** is its own hex and the 6 around it (the Blockades
  section: "a navy's ZoC is its own hex and all adjacent hexes, every
  kind").  Adjacency is ``hex_neighbors`` (the rules' adjacency); a hex the
  table does not list falls back to H3's ring.  Hexes off the map are not
  drawn.  The layer is a dashed, lightly filled outline per faction, not
  interactive, so the terrain tooltips of those hexes still answer; the
  navy's tooltip names how many hexes its ZoC covers.
* A **blockaded** structure is a Town/City whose hex lies in the ZoC of a
  navy of a faction other than its controller (any navy's when nobody
  controls it).  The view ``blockaded_structures(structure, controller,
  navy_faction, army)`` is read when the database has it; otherwise the rule
  is applied to the armies, ``control`` and ``structures`` as stored.  A
  blockade is a ring per blockading faction, in that faction's colour,
  around the structure's marker, and a "blockaded by" row in its tooltip.
* **Sea links** are read from the view ``sea_supply(faction, from_structure,
  to_structure, zone)`` (the links the logistics network uses) when present.
  Otherwise the state table ``sea_links(faction, zone, structure, rank)``
  names only the chosen targets; each target is then drawn linked from every
  coastal Town/City of the faction in that zone (one adjacent Coast hex in
  the zone) that is neither besieged nor blockaded: the sources decision 9
  of the design allows.  Whether such a source is itself supplied needs
  the logistics network, which the map does not compute; the tooltip says
  so.  A target ranked beyond the faction's level in the zone does not
  count (at most ``level`` targets a zone) and its tooltip says so when the
  level is known.  Lines run straight between the structures' hex centres,
  dashed, one toggleable layer per faction.  A faction's chosen sea links
  are its secret: a faction's view carries only its own (the redaction is
  applied before anything reaches the page).
* **Naval superiority** (table ``naval_superiority(zone, faction, level)``)
  is published (step 1.2), so every view shows it: each zone's levels in
  the sea-zone tooltip and a legend section.  A zone/faction pair the table
  lacks is not shown (the base level lives in the rules, which the map
  does not read).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import duckdb
import shapely

from bellica.geo.hexgrid import ring
from bellica.geo.logs import logger
from bellica.schema import Structure, existing_columns, existing_tables
from bellica.web_maps.encode import encode_lines
from bellica.web_maps.layers import HexLayer, HexZoneLayer, LegendItem, LineLayer, PointLayer

log = logger(__name__)

NAVY_KINDS = ("coast", "sea")  # the hex kinds on which an army is a navy
STRUCTURE_KINDS = ("town", "city")  # what a navy can blockade


@dataclass(frozen=True)
class SeaLink:
    faction: str
    zone: str | None
    to_structure: str
    from_structure: str | None  # None: a chosen target with no source to draw from
    rank: int | None = None  # order chosen (sea_links), None from sea_supply
    counted: bool | None = None  # False: ranked beyond the faction's level in the zone; None: unknown
    derived: bool = False  # the source was derived here from the base tables (no sea_supply view)


@dataclass(frozen=True)
class Naval:
    """What the naval layers draw, read from a campaign database."""

    zoc: dict[int, tuple[str, ...]] = field(default_factory=dict)  # navy (army id) -> its ZoC hexes on the map
    zones_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # navy cell -> its sea zones
    blockades: dict[str, tuple[tuple[str, int | None], ...]] = field(default_factory=dict)  # structure -> (navy faction, army)
    sea_links: tuple[SeaLink, ...] = ()
    superiority: dict[str, dict[str, int]] = field(default_factory=dict)  # zone -> faction -> level

    def for_faction(self, faction: str) -> Naval:
        """``faction``'s view: navies, blockades and superiority are on the board; sea links only its own."""
        return replace(self, sea_links=tuple(s for s in self.sea_links if s.faction == faction))


def _rows(con, sql: str, params=None) -> list[tuple]:
    return con.execute(sql, params or []).fetchall()


def _has(con, tables: set[str], name: str, columns: Iterable[str]) -> bool:
    return name in tables and set(columns) <= set(existing_columns(con, name))


def _neighbours(con, tables: set[str], cells: Iterable[str], on_map: set[str]) -> dict[str, set[str]]:
    """cell -> its adjacent hexes on the map: ``hex_neighbors`` where it lists the cell, else H3's ring."""
    cells = sorted(set(cells))
    out: dict[str, set[str]] = {c: set() for c in cells}
    if cells and _has(con, tables, "hex_neighbors", ("cell", "neighbor")):
        for cell, nb in _rows(con, "SELECT cell, neighbor FROM hex_neighbors WHERE cell IN (SELECT unnest(?::VARCHAR[]))",
                              [cells]):
            out[cell].add(nb)
    for c in cells:
        if not out[c]:
            try:
                out[c] = ring(c, 1) - {c}
            except (ValueError, TypeError):  # not an H3 cell: no neighbours known
                out[c] = set()
        out[c] &= on_map
    return out


def load_naval(con: duckdb.DuckDBPyConnection, kinds: dict[str, str | None],
               navies: Sequence[tuple[int, str, str]], structures: Sequence[Structure],
               besieged: Iterable[str]) -> Naval:
    """The naval state of a campaign.

    ``kinds``: cell -> hex kind for every hex on the map; ``navies``: (army, faction, cell) of the live
    armies at sea; ``structures``: with their current controllers; ``besieged``: the besieged structures.
    """
    tables = existing_tables(con)
    on_map = set(kinds)
    cells_zones: dict[str, set[str]] = defaultdict(set)
    if _has(con, tables, "hex_sea_zones", ("cell", "zone")):
        for cell, zone in _rows(con, "SELECT cell, zone FROM hex_sea_zones"):
            cells_zones[cell].add(zone)
    towns = [s for s in structures if (s.kind or "").lower() in STRUCTURE_KINDS and s.cell in on_map]
    near = _neighbours(con, tables, [c for _, _, c in navies] + [s.cell for s in towns], on_map)

    zoc = {army: tuple(sorted({cell} | near[cell])) for army, _, cell in navies}
    zones_of = {cell: tuple(sorted(cells_zones.get(cell, ()))) for _, _, cell in navies}

    blockades: dict[str, list[tuple[str, int | None]]] = defaultdict(list)
    if _has(con, tables, "blockaded_structures", ("structure", "navy_faction")):
        army = "army" if "army" in existing_columns(con, "blockaded_structures") else "NULL"
        for s, f, a in _rows(con, f"SELECT DISTINCT structure, navy_faction, {army} FROM blockaded_structures "
                                  "ORDER BY structure, navy_faction, 3"):
            blockades[s].append((f, None if a is None else int(a)))
    else:
        covers: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for army, faction, cell in navies:
            for c in zoc[army]:
                covers[c].append((faction, army))
        for s in towns:
            hits = [(f, a) for f, a in covers.get(s.cell, ()) if s.controller is None or f != s.controller]
            if hits:
                blockades[s.name] = sorted(hits)

    superiority: dict[str, dict[str, int]] = defaultdict(dict)
    if _has(con, tables, "naval_superiority", ("zone", "faction", "level")):
        for zone, faction, level in _rows(con, "SELECT zone, faction, level FROM naval_superiority "
                                               "WHERE level IS NOT NULL ORDER BY zone, faction"):
            superiority[zone][faction] = int(level)

    links: list[SeaLink] = []
    if _has(con, tables, "sea_supply", ("faction", "from_structure", "to_structure")):
        zone = "zone" if "zone" in existing_columns(con, "sea_supply") else "NULL"
        for f, a, b, z in _rows(con, f"SELECT DISTINCT faction, from_structure, to_structure, {zone} FROM sea_supply "
                                     "ORDER BY 1, 4, 3, 2"):
            links.append(SeaLink(f, z, b, a))
    elif _has(con, tables, "sea_links", ("faction", "zone", "structure")):
        rank = "rank" if "rank" in existing_columns(con, "sea_links") else "NULL"
        besieged = set(besieged)
        # A structure's zones: those of its adjacent Coast hexes (where a navy can reach it).
        coastal: dict[str, set[str]] = {
            s.name: {z for c in near[s.cell] if kinds.get(c) == "coast" for z in cells_zones.get(c, ())} for s in towns}
        for f, z, target, r in _rows(con, f"SELECT faction, zone, structure, {rank} FROM sea_links "
                                          "ORDER BY faction, zone, 4, structure"):
            r = None if r is None else int(r)
            level = superiority.get(z, {}).get(f)
            counted = None if level is None or r is None else r <= level
            sources = [s.name for s in towns
                       if s.controller == f and s.name != target and z in coastal[s.name]
                       and s.name not in besieged and s.name not in blockades]
            for source in sources or [None]:
                links.append(SeaLink(f, z, target, source, r, counted, derived=True))
    return Naval(zoc, zones_of, {k: tuple(v) for k, v in blockades.items()}, tuple(links), dict(superiority))


def superiority_rows(naval: Naval, zone: str) -> list[tuple[str, object]]:
    """Tooltip rows of a sea zone: each faction's naval superiority level there."""
    return [(f"{faction} superiority", level) for faction, level in sorted(naval.superiority.get(zone, {}).items())]


def blockade_text(pairs: Sequence[tuple[str, int | None]]) -> str:
    """'Roma navy 12, Carthago navy 3' for a structure's blockading navies."""
    return ", ".join(f"{f} navy {a}" if a is not None else f"{f} navy" for f, a in pairs)


def add_naval_layers(m, naval: Naval, *, colour: Callable[[str | None], str], factions: Sequence[str],
                     navies: Sequence[tuple[int, str, str]], structures: Sequence[Structure],
                     centres: dict[str, tuple[float, float]], hex_index: dict[str, int], hex_layer: HexLayer,
                     precision: int, ring_radius: Callable[[Structure], int]) -> list[LegendItem]:
    """Add the navies' ZoC, the sea links and the blockade rings (drawn under the structures); returns legend items."""
    items: list[LegendItem] = []
    faction_of = {army: faction for army, faction, _ in navies}

    # ZoC: one outline per faction and hex, whoever of its navies covers it.
    covered = sorted({(faction_of[a], c) for a, cells in naval.zoc.items() if a in faction_of for c in cells
                      if c in hex_index})
    if covered:
        m.add_child(HexZoneLayer(hex_layer, [hex_index[c] for _, c in covered], [colour(f) for f, _ in covered],
                                 name="Navy ZoC"))
        for f in sorted({f for f, _ in covered}, key=lambda x: (x not in factions, x)):
            items.append(LegendItem(f"navy ZoC ({f})", colour(f), shape="outline",
                                    count=sum(1 for g, _ in covered if g == f)))

    where = {s.name: s.cell for s in structures}
    by_faction: dict[str, list[SeaLink]] = defaultdict(list)
    for link in naval.sea_links:
        if link.to_structure in where and (link.from_structure is None or link.from_structure in where):
            by_faction[link.faction].append(link)
        else:
            log.warning("sea link %s -> %s of %s names a structure not on the map: not drawn",
                        link.from_structure, link.to_structure, link.faction)
    for f in sorted(by_faction, key=lambda x: (x not in factions, x)):
        drawn = [k for k in by_faction[f] if k.from_structure is not None]
        targets = [k for k in by_faction[f] if k.from_structure is None]
        if drawn:
            geoms = []
            for k in drawn:
                (la, lo), (lb, lob) = centres[where[k.from_structure]], centres[where[k.to_structure]]
                geoms.append(shapely.LineString([(lo, la), (lob, lb)]))
            parts, owner = encode_lines(geoms, precision=precision)
            m.add_child(LineLayer(parts, owner, [_link_tip(k) for k in drawn], precision=precision,
                                  name=f"Sea links: {f}", colour=colour(f), weight=2.5, opacity=0.9, dash="8 6"))
        if targets:
            # A chosen target with no source to draw from still shows where the faction looks across the sea.
            points = [{"ll": [round(centres[where[k.to_structure]][0], 5), round(centres[where[k.to_structure]][1], 5)],
                       "shape": "ring", "colour": colour(f), "r": 16, "w": 2, "dash": "2 4", "tip": _link_tip(k)}
                      for k in targets]
            m.add_child(PointLayer(points, name=f"Sea link targets: {f}"))
        items.append(LegendItem(f"sea link ({f})", colour(f), shape="dashed", count=len(by_faction[f])))

    rings = []
    for s in structures:
        pairs = naval.blockades.get(s.name)
        if not pairs or s.cell not in centres:
            continue
        lat, lng = centres[s.cell]
        for k, f in enumerate(sorted({f for f, _ in pairs})):
            who = [(g, a) for g, a in pairs if g == f]
            rings.append({"ll": [round(lat, 5), round(lng, 5)], "shape": "ring", "colour": colour(f),
                          "r": ring_radius(s) + 4 + 4 * k, "w": 3, "dash": "5 3",
                          "tip": [["structure", s.name], ["blockaded by", blockade_text(who)]]})
    if rings:
        m.add_child(PointLayer(rings, name="Blockades"))
        items.append(LegendItem("blockaded (ring: navy's faction)", "#333333", shape="ring",
                                count=len(naval.blockades)))
    return items


def _link_tip(k: SeaLink) -> list[list]:
    rows = [["sea link", k.faction], ["zone", k.zone], ["from", k.from_structure], ["to", k.to_structure]]
    if k.rank is not None:
        rows.append(["rank", k.rank])
    if k.counted is False:
        rows.append(["counts", "no: ranked beyond the faction's superiority level"])
    if k.derived and k.from_structure is not None:
        rows.append(["source", "own coastal structure, unsieged, unblockaded (its supply not checked)"])
    if k.from_structure is None:
        rows.append(["source", "none: no own coastal structure in the zone"])
    return [r for r in rows if r[1] is not None]


def superiority_legend(naval: Naval, zone_colour: str) -> list[LegendItem]:
    """One legend line per sea zone: each faction's level there."""
    return [LegendItem(f"{zone}: " + ", ".join(f"{f} {lv}" for f, lv in sorted(levels.items())), zone_colour,
                       shape="line")
            for zone, levels in sorted(naval.superiority.items()) if levels]


__all__ = ["Naval", "SeaLink", "add_naval_layers", "blockade_text", "load_naval", "superiority_legend",
           "superiority_rows"]
