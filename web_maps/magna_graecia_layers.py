"""A Magna Graecia campaign on the web map: the node map with places coloured by owner and each
side's counters, as one side may see them (or the umpire).

Read from the campaign's tables only (``mg_*``, engine/magna_graecia/sql/state.sql, and the node
tables), so this module imports no ruleset.  What a side sees: its own commands with their
elements and strength and its own fleet with its naval points and load; of the others only that
counters stand in a node (how many, whose: presence, not composition) and where their fleets are.
The umpire (no side) sees everything.  Places: a side's capital and allies in its colour, neutral
cities white.
"""

from __future__ import annotations

import json

from tabula.geo.errors import InputError
from tabula.schema import existing_tables
from tabula.web_maps.layers import LegendItem, LegendSection, PointLayer
from tabula.web_maps.node_layers import add_node_layers

__all__ = ["SIDE_COLOURS", "add_magna_graecia_layers", "is_magna_graecia"]

SIDE_COLOURS = ("#c0392b", "#2e6fb7", "#2e8b57", "#8e44ad", "#d68910")


def is_magna_graecia(con) -> bool:
    tables = existing_tables(con)
    if not {"scenario_meta", "mg_scenario", "nodes"} <= tables:
        return False
    row = con.execute("SELECT value FROM scenario_meta WHERE key = 'ruleset'").fetchone()
    return bool(row) and row[0] == "magna-graecia"


def _side_named(sides: list[str], name: str) -> str:
    n = name.strip().casefold()
    found = [s for s in sides if s.casefold() == n] or [s for s in sides if s.casefold().startswith(n)]
    if len(found) != 1:
        raise InputError(f"--faction {name!r} is no side of this campaign: use one of {', '.join(sides)}")
    return found[0]


def add_magna_graecia_layers(m, con, *, faction: str | None = None, precision: int = 5) -> tuple[list[LegendSection], str]:
    """Add the node map and the counters to ``m`` as ``faction`` sees them; (legend sections, title)."""
    meta = dict(con.execute("SELECT key, value FROM mg_scenario").fetchall())
    year = int(meta["year"])
    title = meta.get("title", "Magna Graecia")
    if "mg_sides" not in existing_tables(con) or not con.execute("SELECT count(*) FROM mg_sides").fetchone()[0]:
        sections = add_node_layers(m, con, precision=precision, year=year)
        if faction is not None:
            raise InputError(f"--faction {faction}: the campaign has not started: `tabula magna-graecia start`")
        return sections, title
    sides = [r[0] for r in con.execute("SELECT name FROM mg_sides ORDER BY ord").fetchall()]
    viewer = None if faction is None else _side_named(sides, faction)
    colour = {s: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, s in enumerate(sides)}
    owners = {}
    for name, ally, holder in con.execute("SELECT name, ally, holder FROM mg_cities").fetchall():
        who = holder or ally
        if who in colour:
            owners[name] = colour[who]
    sections = add_node_layers(m, con, precision=precision, year=year, owners=owners,
                               owner_labels={c: f"{s}'s or allied" for s, c in colour.items()})
    pos = {n: (lat, lon) for n, lon, lat in con.execute("SELECT name, lon, lat FROM nodes").fetchall()}
    rows = con.execute("SELECT c.id, c.side, coalesce(nullif(c.side, ''), ci.ally, ''), c.city, c.node, c.elements, "
                       "c.general, c.aboard, c.in_city, c.inherent FROM mg_commands c "
                       "LEFT JOIN mg_cities ci ON ci.name = c.city ORDER BY c.id").fetchall()
    stacks: dict[tuple[str, str], list] = {}
    for cid, side, owner, city, node, elements, general, aboard, in_city, inherent in rows:
        if not side:
            continue  # a city's own forces: drawn by the place's colour and its (n)
        if aboard and viewer is not None and side != viewer:
            continue  # carried by an enemy fleet: its load is secret
        stacks.setdefault((node, side), []).append((cid, json.loads(elements or "{}"), general, aboard, in_city, inherent))
    points = []
    for (node, side), cmds in sorted(stacks.items()):
        if node not in pos:
            continue
        lat, lon = pos[node]
        mine = viewer is None or viewer == side
        tip = [["side", side], ["node", node]]
        if mine:
            strength = 0
            for cid, els, general, aboard, in_city, inherent in cmds:
                n = sum(els.values()) + (1 if general else 0)
                strength += n
                where = " (aboard)" if aboard else (" (inside)" if in_city else "")
                tip.append([f"command {cid}{where}", f"{general or 'leaderless'}; "
                            + ", ".join(f"{k} {v}" for k, v in els.items()) + f" = {n} elements"])
            sub = f"{strength} el."
        else:
            tip.append(["counters", str(len(cmds))])
            sub = None
        point = {"ll": [lat, lon], "shape": "army", "colour": colour[side], "text": f"{side[:3]} x{len(cmds)}",
                 "label": None, "tip": tip, "dx": 8, "dy": -22}
        if sub:
            point["sub"] = sub
        points.append(point)
    for side, node, np_, carrying in con.execute("SELECT side, node, np, carrying FROM mg_fleets ORDER BY side").fetchall():
        if node not in pos:
            continue
        lat, lon = pos[node]
        mine = viewer is None or viewer == side
        tip = [["fleet", side], ["node", node]]
        point = {"ll": [lat, lon], "shape": "navy", "colour": colour.get(side, "#555"), "text": f"{side[:3]} fleet",
                 "label": None, "dx": -60, "dy": 4}
        if mine:
            tip += [["naval points", str(np_)], ["aboard", ", ".join(str(x) for x in json.loads(carrying or "[]")) or "none"]]
            point["sub"] = f"{np_} NP"
        point["tip"] = tip
        points.append(point)
    for node, besieger, defender, started, rolls, disease in con.execute(
            "SELECT node, besieger, defender, started, rolls, disease FROM mg_sieges ORDER BY node").fetchall():
        if node in pos:  # a siege is public: everyone sees the camp round the walls
            tip = [["siege of", node], ["besieger", besieger], ["defender", defender], ["since turn", str(started)],
                   ["fall rolls in a row", str(rolls)]] + ([["disease", f"since turn {disease}"]] if disease else [])
            points.append({"ll": list(pos[node]), "shape": "ring", "colour": colour.get(besieger, "#555"), "r": 14,
                           "w": 3, "dash": "4 3", "tip": tip})
    m.add_child(PointLayer(points, name="Counters and fleets"))
    items = [LegendItem(s, colour[s], shape="dot") for s in sides]
    items.append(LegendItem("siege in progress (besieger's colour)", "#555", shape="ring"))
    items.append(LegendItem("own counters show their elements; others only their presence" if viewer
                            else "umpire's view: every counter's elements", "#333", shape="text"))
    sections.append(LegendSection("Sides", items))
    return sections, title + (f" \u2014 view of {viewer}" if viewer else " \u2014 umpire's view")
