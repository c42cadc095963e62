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


def add_play_layers(m, situation: Situation, *, colour, factions: list[str], structures, names: dict[str, str],
                    centres: dict, hex_index: dict[str, int], hex_layer: HexLayer, zones,
                    precision: int, ring_radius) -> list[LegendSection]:
    """Add the play-aid layers to ``m``; returns their legend sections."""
    items: list[LegendItem] = []
    where = {s.name: s.cell for s in structures if s.cell in centres}
    order = lambda f: (f not in factions, factions.index(f) if f in factions else 0, f)  # noqa: E731
    umpire = situation.viewer is None

    if situation.has_zoc:
        covered = sorted({(f, c) for f, c, _, _ in situation.zoc if c in hex_index and f is not None})
        if covered:
            m.add_child(HexZoneLayer(hex_layer, [hex_index[c] for _, c in covered], [colour(f) for f, _ in covered],
                                     name="Zones of control", show=False, dash="2 3", fill_opacity=0.12))
            for f in sorted({f for f, _ in covered}, key=order):
                items.append(LegendItem(f"ZoC ({f})", colour(f), shape="outline",
                                        count=sum(1 for g, _ in covered if g == f)))

    if situation.has_logistics:
        by_faction = defaultdict(list)
        for f, a, b, kind in situation.lines:
            if a in where and b in where:
                by_faction[f].append((a, b, kind))
        depth = {(f, s): d for f, s, d in situation.supplied}
        for f in sorted(by_faction, key=order):
            links = by_faction[f]
            geoms = [shapely.LineString([centres[where[a]][::-1], centres[where[b]][::-1]]) for a, b, _ in links]
            parts, owner = encode_lines(geoms, precision=precision)
            tips = [[("line of logistics", f), ("from", a), ("to", b), ("link", kind),
                     ("depth", depth.get((f, b)))] for a, b, kind in links]
            m.add_child(LineLayer(parts, owner, tips, precision=precision, name=f"Lines of logistics: {f}",
                                  colour=colour(f), weight=3.0, opacity=0.75, show=not umpire))
            items.append(LegendItem(f"line of logistics ({f})", colour(f), shape="line", count=len(links)))
        rings = []
        supplied_by = defaultdict(set)
        for f, s, d in situation.supplied:
            supplied_by[s].add(f)
            if s in where:
                rings.append({"ll": _ll(centres[where[s]]), "shape": "ring", "colour": colour(f),
                              "r": ring_radius(s) + 3, "w": 2,
                              "tip": [["structure", s], ["supplied", f"by the lines of {f}"], ["depth", d]]})
        viewers = [situation.viewer] if situation.viewer else factions
        cut = [s for s in structures if s.controller in viewers and s.controller not in supplied_by.get(s.name, ())
               and s.name in where]
        for s in cut:
            rings.append({"ll": _ll(centres[s.cell]), "shape": "ring", "colour": CUT_COLOUR, "r": ring_radius(s.name) + 3,
                          "w": 2, "dash": "3 3",
                          "tip": [["structure", s.name], ["supplied", f"no: cut from the lines of {s.controller}"]]})
        if rings:
            m.add_child(PointLayer(rings, name="Supplied structures", show=not umpire))
            for f in sorted({f for f, _, _ in situation.supplied}, key=order):
                items.append(LegendItem(f"supplied ({f})", colour(f), shape="ring",
                                        count=sum(1 for g, _, _ in situation.supplied if g == f)))
            if cut:
                items.append(LegendItem("cut from its lines", CUT_COLOUR, shape="ring", count=len(cut)))

    if situation.sieges:
        badges = []
        for sg in situation.sieges:
            if sg.structure not in where:
                continue
            full = sg.full_resilience if sg.full_resilience is not None else sg.start_resilience
            now = "?" if sg.resilience is None else sg.resilience
            tip = [["siege of", sg.structure], ["besieged by", sg.faction], ["Resilience now", sg.resilience],
                   ["Resilience at the siege's start", sg.start_resilience],
                   ["Resilience unsieged", sg.full_resilience], ["since round", sg.since],
                   ["besieging armies", ", ".join(str(a) for a in sg.armies) or None]]
            badges.append({"ll": _ll(centres[where[sg.structure]]), "shape": "ring", "colour": SIEGE_COLOUR,
                           "r": ring_radius(sg.structure) + 8, "w": 3, "label": f"R {now}/{full if full is not None else '?'}",
                           "lc": "bellica-label bellica-siege", "ldir": "left", "prio": 5,
                           "tip": [r for r in tip if r[1] is not None]})
        if badges:
            m.add_child(PointLayer(badges, name="Sieges"))
            items.append(LegendItem("siege (R: Resilience now/unsieged)", SIEGE_COLOUR, shape="ring",
                                    count=len(badges)))

    straits = [(c, a, b) for c, a, b in situation.straits if {c, a, b} <= set(centres)]
    if straits:
        geoms = [shapely.LineString([centres[a][::-1], centres[c][::-1], centres[b][::-1]]) for c, a, b in straits]
        parts, owner = encode_lines(geoms, precision=precision)
        tips = [[("strait", names.get(c, c)), ("between", f"{names.get(a, a)} and {names.get(b, b)}")]
                for c, a, b in straits]
        m.add_child(LineLayer(parts, owner, tips, precision=precision, name="Straits", colour=STRAIT_COLOUR,
                              weight=3.0, dash="1 5", show=False))
        items.append(LegendItem("strait (land \u2013 Coast hex \u2013 land)", STRAIT_COLOUR, shape="dashed",
                                count=len(straits)))

    sections = [LegendSection("Situation", items)]

    if situation.superiority:
        labels = []
        for z in zones:
            levels = situation.superiority.get(z.name)
            pts = [centres[c] for c in z.cells if c in centres]
            if not levels or not pts:
                continue
            lat, lng = float(np.mean([p[0] for p in pts])), float(np.mean([p[1] for p in pts]))
            text = " \u00b7 ".join(f"{f} {lv}" for f, lv in sorted(levels.items(), key=lambda kv: order(kv[0])))
            labels.append({"ll": [round(lat, 5), round(lng, 5)], "shape": "circle", "r": 3, "colour": "#0b3a66",
                           "label": f"superiority: {text}", "lc": "bellica-zone-label bellica-superiority",
                           "ldir": "bottom", "prio": 2,
                           "tip": [["sea zone", z.name], *[[f"{f} superiority", lv] for f, lv in levels.items()]]})
        if labels:
            m.add_child(PointLayer(labels, name="Naval superiority"))

    moves: list[LegendItem] = []
    if situation.movement_round is not None:
        rnd = situation.movement_round
        drawn = [(a, f, [c for c in cells if c in centres]) for a, (f, cells) in situation.paths.items()]
        drawn = [(a, f, cells) for a, f, cells in drawn if len(set(cells)) >= 2]
        if drawn:
            geoms = [shapely.LineString([centres[c][::-1] for c in cells]) for _, _, cells in drawn]
            parts, owner = encode_lines(geoms, precision=precision)
            tips = [[("army", a), ("faction", f), ("round", rnd), ("from", names.get(cells[0], cells[0])),
                     ("to", names.get(cells[-1], cells[-1])), ("hexes entered", len(cells) - 1)]
                    for a, f, cells in drawn]
            # One layer for the paths, coloured per army's faction: LineLayer takes one colour, so one per faction.
            for f in sorted({f for _, f, _ in drawn}, key=order):
                keep = [k for k, (_, g, _) in enumerate(drawn) if g == f]
                sub_parts = [p for p, o in zip(parts, owner) if o in keep]
                sub_owner = [keep.index(o) for o in owner if o in keep]
                m.add_child(LineLayer(sub_parts, sub_owner, [tips[k] for k in keep], precision=precision,
                                      name=f"Movement round {rnd}: {f}", colour=colour(f), weight=3.5, opacity=0.85,
                                      dash="10 5"))
                moves.append(LegendItem(f"path, round {rnd} ({f})", colour(f), shape="dashed", count=len(keep)))
        sites = []
        for b in situation.battles:
            pts = [centres[c] for c in b.cells if c in centres]
            if not pts:
                continue
            lat, lng = float(np.mean([p[0] for p in pts])), float(np.mean([p[1] for p in pts]))
            rows = [["battle", b.battle], ["engagement", b.engagement], ["round", b.round],
                    ["armies", " vs ".join(str(x) for x in (b.army_a, b.army_b) if x is not None)],
                    ["assault on", b.assault], ["hex", ", ".join(names.get(c, c) for c in b.cells)]]
            rows += [[f"army {a}", f"{o}" + (f", {c} % casualties" if c is not None else "")] for a, o, c in b.results]
            sites.append({"ll": [round(lat, 5), round(lng, 5)], "shape": "battle", "r": 11,
                          "tip": [r for r in rows if r[1] is not None]})
        if sites:
            m.add_child(PointLayer(sites, name=f"Battles round {rnd}"))
            moves.append(LegendItem(f"battle, round {rnd}", "#b00020", shape="battle", count=len(sites)))
    sections.append(LegendSection("Last movement", moves))
    return sections


__all__ = ["add_play_layers", "panel_rows"]
