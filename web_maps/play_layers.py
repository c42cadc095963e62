"""The play-aid layers of a campaign page: ZoC, logistics, sieges, straits, superiority, last movement, battles.

Drawn from a :class:`web_maps.play_aids.Situation` (already redacted for a
faction's view).  Every layer is toggleable in the layer list; those that
would crowd the board at load (ZoC, straits, the umpire's logistics of every
faction) start hidden, the rest start shown.  Decisions where issue 10 is
silent:

* ZoC: one dashed outline per faction and hex, in the faction's colour, from
  armies on land and structures (navies' ZoC is its own layer, "Navy ZoC").
* Lines of logistics run straight between the structures' hex centres (the
  network links structures; the route between them is not stored), one layer
  per faction; the tooltip names the link type and the depth.  Supplied
  structures get a solid ring in the faction's colour; a structure the
  faction controls that its lines do not reach gets a red dashed ring ("cut").
* A siege is a red badge "R now/full" beside the structure (full = the
  Resilience of ``structure_resilience``, else the one at the siege's start).
* A strait is a line from one land hex through the Coast hex to the other.
* The last movement: each path through its hex centres in the army's colour,
  with the round in the layer's name; battles of that round are a crossed
  swords mark between the armies' end hexes (an assault: on the structure).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import shapely

from bellica.web_maps.encode import encode_lines
from bellica.web_maps.layers import HexLayer, HexZoneLayer, LegendItem, LegendSection, LineLayer, PointLayer
from bellica.web_maps.play_aids import Situation

CUT_COLOUR = "#d32f2f"
SIEGE_COLOUR = "#b00020"
STRAIT_COLOUR = "#00897b"


def _ll(centre) -> list[float]:
    return [round(centre[0], 5), round(centre[1], 5)]


def panel_rows(situation: Situation, factions: list[str]) -> list[tuple[str, str]]:
    """The panel's rows: round, phase (and stage), winner, each faction's VP."""
    rows = []
    if situation.round is not None:
        rows.append(("Round", situation.round))
    if situation.phase is not None:
        rows.append(("Phase", situation.phase + (f" ({situation.stage})" if situation.stage else "")))
    if situation.winner:
        rows.append(("Winner", situation.winner))
    vp = dict(situation.vp)
    for f in sorted(vp, key=lambda x: (x not in factions, factions.index(x) if x in factions else 0, x)):
        rows.append((f"VP {f}" + (" (you)" if f == situation.viewer else ""), "\u2013" if vp[f] is None else str(vp[f])))
    if not rows:
        rows.append(("Round", "not started"))
    return rows


@dataclass(frozen=True)
class _Board:
    """What every play-aid layer draws with: the map, the viewer's situation, colours and places."""

    m: Any
    situation: Situation
    colour: Callable[[str], str]
    factions: list[str]
    structures: Any
    names: dict[str, str]
    centres: dict
    precision: int
    ring_radius: Callable[[str], float]

    @property
    def umpire(self) -> bool:
        return self.situation.viewer is None

    @property
    def where(self) -> dict[str, str]:
        """Structure name -> its hex, for the structures on the map."""
        return {s.name: s.cell for s in self.structures if s.cell in self.centres}

    def order(self, f: str) -> tuple:
        """The sort key of a faction: the scenario's order, then by name."""
        return (f not in self.factions, self.factions.index(f) if f in self.factions else 0, f)


def add_play_layers(m, situation: Situation, *, colour, factions: list[str], structures, names: dict[str, str],
                    centres: dict, hex_index: dict[str, int], hex_layer: HexLayer, zones,
                    precision: int, ring_radius) -> list[LegendSection]:
    """Add the play-aid layers to ``m``; returns their legend sections."""
    b = _Board(m, situation, colour, factions, structures, names, centres, precision, ring_radius)
    items = [*_zoc(b, hex_index, hex_layer), *_logistics(b), *_sieges(b), *_straits(b)]
    _superiority(b, zones)
    return [LegendSection("Situation", items), LegendSection("Last movement", _last_movement(b))]


def _zoc(b: _Board, hex_index: dict[str, int], hex_layer: HexLayer) -> list[LegendItem]:
    if not b.situation.has_zoc:
        return []
    covered = sorted({(f, c) for f, c, _, _ in b.situation.zoc if c in hex_index and f is not None})
    if not covered:
        return []
    b.m.add_child(HexZoneLayer(hex_layer, [hex_index[c] for _, c in covered], [b.colour(f) for f, _ in covered],
                               name="Zones of control", show=False, dash="2 3", fill_opacity=0.12))
    return [LegendItem(f"ZoC ({f})", b.colour(f), shape="outline", count=sum(1 for g, _ in covered if g == f))
            for f in sorted({f for f, _ in covered}, key=b.order)]


def _logistics(b: _Board) -> list[LegendItem]:
    if not b.situation.has_logistics:
        return []
    return _logistics_lines(b) + _supplied_rings(b)


def _logistics_lines(b: _Board) -> list[LegendItem]:
    """One layer of lines per faction, straight between the structures' hex centres."""
    where, items = b.where, []
    by_faction = defaultdict(list)
    for f, x, y, kind in b.situation.lines:
        if x in where and y in where:
            by_faction[f].append((x, y, kind))
    depth = {(f, s): d for f, s, d in b.situation.supplied}
    for f in sorted(by_faction, key=b.order):
        links = by_faction[f]
        geoms = [shapely.LineString([b.centres[where[x]][::-1], b.centres[where[y]][::-1]]) for x, y, _ in links]
        parts, owner = encode_lines(geoms, precision=b.precision)
        tips = [[("line of logistics", f), ("from", x), ("to", y), ("link", kind), ("depth", depth.get((f, y)))]
                for x, y, kind in links]
        b.m.add_child(LineLayer(parts, owner, tips, precision=b.precision, name=f"Lines of logistics: {f}",
                                colour=b.colour(f), weight=3.0, opacity=0.75, show=not b.umpire))
        items.append(LegendItem(f"line of logistics ({f})", b.colour(f), shape="line", count=len(links)))
    return items


def _supplied_rings(b: _Board) -> list[LegendItem]:
    """A ring in the faction's colour round each supplied structure, a red dashed one round a cut one."""
    where, supplied, rings = b.where, b.situation.supplied, []
    supplied_by = defaultdict(set)
    for f, s, d in supplied:
        supplied_by[s].add(f)
        if s in where:
            rings.append({"ll": _ll(b.centres[where[s]]), "shape": "ring", "colour": b.colour(f),
                          "r": b.ring_radius(s) + 3, "w": 2,
                          "tip": [["structure", s], ["supplied", f"by the lines of {f}"], ["depth", d]]})
    viewers = [b.situation.viewer] if b.situation.viewer else b.factions
    cut = [s for s in b.structures if s.controller in viewers and s.controller not in supplied_by.get(s.name, ())
           and s.name in where]
    for s in cut:
        rings.append({"ll": _ll(b.centres[s.cell]), "shape": "ring", "colour": CUT_COLOUR, "r": b.ring_radius(s.name) + 3,
                      "w": 2, "dash": "3 3",
                      "tip": [["structure", s.name], ["supplied", f"no: cut from the lines of {s.controller}"]]})
    if not rings:
        return []
    b.m.add_child(PointLayer(rings, name="Supplied structures", show=not b.umpire))
    items = [LegendItem(f"supplied ({f})", b.colour(f), shape="ring", count=sum(1 for g, _, _ in supplied if g == f))
             for f in sorted({f for f, _, _ in supplied}, key=b.order)]
    if cut:
        items.append(LegendItem("cut from its lines", CUT_COLOUR, shape="ring", count=len(cut)))
    return items


def _sieges(b: _Board) -> list[LegendItem]:
    """A red badge "R now/full" beside each besieged structure."""
    where, badges = b.where, []
    for sg in b.situation.sieges:
        if sg.structure not in where:
            continue
        full = sg.full_resilience if sg.full_resilience is not None else sg.start_resilience
        now = "?" if sg.resilience is None else sg.resilience
        tip = [["siege of", sg.structure], ["besieged by", sg.faction], ["Resilience now", sg.resilience],
               ["Resilience at the siege's start", sg.start_resilience],
               ["Resilience unsieged", sg.full_resilience], ["since round", sg.since],
               ["besieging armies", ", ".join(str(a) for a in sg.armies) or None]]
        badges.append({"ll": _ll(b.centres[where[sg.structure]]), "shape": "ring", "colour": SIEGE_COLOUR,
                       "r": b.ring_radius(sg.structure) + 8, "w": 3,
                       "label": f"R {now}/{full if full is not None else '?'}",
                       "lc": "bellica-label bellica-siege", "ldir": "left", "prio": 5,
                       "tip": [r for r in tip if r[1] is not None]})
    if not badges:
        return []
    b.m.add_child(PointLayer(badges, name="Sieges"))
    return [LegendItem("siege (R: Resilience now/unsieged)", SIEGE_COLOUR, shape="ring", count=len(badges))]


def _straits(b: _Board) -> list[LegendItem]:
    """A strait: a line from one land hex through the Coast hex to the other."""
    straits = [(c, x, y) for c, x, y in b.situation.straits if {c, x, y} <= set(b.centres)]
    if not straits:
        return []
    names = b.names
    geoms = [shapely.LineString([b.centres[x][::-1], b.centres[c][::-1], b.centres[y][::-1]]) for c, x, y in straits]
    parts, owner = encode_lines(geoms, precision=b.precision)
    tips = [[("strait", names.get(c, c)), ("between", f"{names.get(x, x)} and {names.get(y, y)}")] for c, x, y in straits]
    b.m.add_child(LineLayer(parts, owner, tips, precision=b.precision, name="Straits", colour=STRAIT_COLOUR,
                            weight=3.0, dash="1 5", show=False))
    return [LegendItem("strait (land \u2013 Coast hex \u2013 land)", STRAIT_COLOUR, shape="dashed", count=len(straits))]


def _superiority(b: _Board, zones) -> None:
    """Each sea zone's naval superiority, written at the zone's middle."""
    if not b.situation.superiority:
        return
    labels = []
    for z in zones:
        levels = b.situation.superiority.get(z.name)
        pts = [b.centres[c] for c in z.cells if c in b.centres]
        if not levels or not pts:
            continue
        text = " \u00b7 ".join(f"{f} {lv}" for f, lv in sorted(levels.items(), key=lambda kv: b.order(kv[0])))
        labels.append({"ll": _middle(pts), "shape": "circle", "r": 3, "colour": "#0b3a66",
                       "label": f"superiority: {text}", "lc": "bellica-zone-label bellica-superiority",
                       "ldir": "bottom", "prio": 2,
                       "tip": [["sea zone", z.name], *[[f"{f} superiority", lv] for f, lv in levels.items()]]})
    if labels:
        b.m.add_child(PointLayer(labels, name="Naval superiority"))


def _middle(pts) -> list[float]:
    return [round(float(np.mean([p[0] for p in pts])), 5), round(float(np.mean([p[1] for p in pts])), 5)]


def _last_movement(b: _Board) -> list[LegendItem]:
    if b.situation.movement_round is None:
        return []
    return _paths(b, b.situation.movement_round) + _battles(b, b.situation.movement_round)


def _paths(b: _Board, rnd: int) -> list[LegendItem]:
    """Each army's path of the last movement through its hex centres, one layer per faction's colour."""
    names, items = b.names, []
    drawn = [(a, f, [c for c in cells if c in b.centres]) for a, (f, cells) in b.situation.paths.items()]
    drawn = [(a, f, cells) for a, f, cells in drawn if len(set(cells)) >= 2]
    if not drawn:
        return []
    geoms = [shapely.LineString([b.centres[c][::-1] for c in cells]) for _, _, cells in drawn]
    parts, owner = encode_lines(geoms, precision=b.precision)
    tips = [[("army", a), ("faction", f), ("round", rnd), ("from", names.get(cells[0], cells[0])),
             ("to", names.get(cells[-1], cells[-1])), ("hexes entered", len(cells) - 1)] for a, f, cells in drawn]
    # One layer for the paths, coloured per army's faction: LineLayer takes one colour, so one per faction.
    for f in sorted({f for _, f, _ in drawn}, key=b.order):
        keep = [k for k, (_, g, _) in enumerate(drawn) if g == f]
        sub_parts = [p for p, o in zip(parts, owner) if o in keep]
        sub_owner = [keep.index(o) for o in owner if o in keep]
        b.m.add_child(LineLayer(sub_parts, sub_owner, [tips[k] for k in keep], precision=b.precision,
                                name=f"Movement round {rnd}: {f}", colour=b.colour(f), weight=3.5, opacity=0.85,
                                dash="10 5"))
        items.append(LegendItem(f"path, round {rnd} ({f})", b.colour(f), shape="dashed", count=len(keep)))
    return items


def _battles(b: _Board, rnd: int) -> list[LegendItem]:
    """A crossed swords mark between the armies' end hexes of each battle of the last movement."""
    names, sites = b.names, []
    for bt in b.situation.battles:
        pts = [b.centres[c] for c in bt.cells if c in b.centres]
        if not pts:
            continue
        rows = [["battle", bt.battle], ["engagement", bt.engagement], ["round", bt.round],
                ["armies", " vs ".join(str(x) for x in (bt.army_a, bt.army_b) if x is not None)],
                ["assault on", bt.assault], ["hex", ", ".join(names.get(c, c) for c in bt.cells)]]
        rows += [[f"army {a}", f"{o}" + (f", {c} % casualties" if c is not None else "")] for a, o, c in bt.results]
        sites.append({"ll": _middle(pts), "shape": "battle", "r": 11, "tip": [r for r in rows if r[1] is not None]})
    if not sites:
        return []
    b.m.add_child(PointLayer(sites, name=f"Battles round {rnd}"))
    return [LegendItem(f"battle, round {rnd}", "#b00020", shape="battle", count=len(sites))]


__all__ = ["add_play_layers", "panel_rows"]
