"""A Magna Graecia campaign on the web map: the node map with places coloured by owner and each
side's counters, as one side may see them (or the umpire).

Read from the campaign's tables only (``mg_*``, engine/magna_graecia/sql/state.sql, and the node
tables), so this module imports no ruleset.  What a side sees: its own commands with their
elements and strength and its own fleet with its naval points and load; of the others only that
counters stand in a node (how many, whose: presence, not composition) and where their fleets are.
The umpire (no side) sees everything.  Places: a side's capital and allies in its colour, neutral
cities white.  Sieges and the battles waiting to be fought (``mg_battles``: where, who attacks whom,
the attacker's base edge from its path of entry drawn as a line from that node, the defender's
forward/central/rear choice once made, the day) are public, drawn alike for every viewer; the
sealed second-day orders are not drawn.
"""

from __future__ import annotations

import json

from bellica.geo.errors import InputError
from bellica.schema import existing_tables
from bellica.web_maps.layers import LegendItem, LegendSection, PointLayer
from bellica.web_maps.node_layers import add_node_layers

__all__ = ["BATTLE_COLOUR", "BATTLE_OFFSET_DEG", "SIDE_COLOURS", "add_magna_graecia_layers", "battles_due", "is_magna_graecia"]

SIDE_COLOURS = ("#c0392b", "#2e6fb7", "#2e8b57", "#8e44ad", "#d68910")
BATTLE_COLOUR = "#b00020"
#: A counter's half-height in px (PointLayer's ``r``: without it the counters had no size).
COUNTER_R = 14
#: How far (degrees) a battle's swords stand from its place towards the attacker's node of entry.
BATTLE_OFFSET_DEG = 0.04


def _who(defender: str) -> str:
    return f"{defender[5:]}'s own forces" if defender.startswith("city:") else defender


def battles_due(con) -> list[dict]:
    """The battles waiting to be fought (``mg_battles``, in the order the engine resolves them), each
    ``{"node", "kind" ("land"|"naval"), "attacker", "defenders" [names; a neutral city's forces as
    "<city>'s own forces"], "base_edge" (the node the attacker entered from; "" where none moved
    in: the players set up as they agree), "defence" ("forward"|"central"|"rear"|""), "day",
    "undecided", "sally"}``.  Public: the same for every viewer."""
    if "mg_battles" not in existing_tables(con):
        return []
    out = []
    for node, attacker, defenders, base, defence, day, undecided, kind, sally in con.execute(
            "SELECT node, attacker, defenders, base_edge, defence, day, undecided, kind, sally "
            "FROM mg_battles ORDER BY ord").fetchall():
        out.append({"node": node, "kind": kind or "land", "attacker": attacker,
                    "defenders": [_who(d) for d in json.loads(defenders or "[]")],
                    "base_edge": "" if base in (None, node) else base, "defence": defence or "",
                    "day": int(day or 1), "undecided": bool(undecided), "sally": bool(sally)})
    return out


def _battle_tip(b: dict) -> list[list[str]]:
    what = "fleet fight" if b["kind"] == "naval" else ("sally" if b["sally"] else "land battle")
    tip = [["battle at", b["node"]], ["kind", what], ["attacker", b["attacker"]],
           ["defender", ", ".join(b["defenders"]) or "none"]]
    if b["kind"] != "naval":
        tip.append(["attacker's base edge", f"towards {b['base_edge']}" if b["base_edge"]
                    else "none (nobody entered): set up as agreed"])
        tip.append(["defence", b["defence"] or "not chosen yet"])
    if b["day"] > 1:
        tip.append(["day", str(b["day"])])
    if b["undecided"]:
        tip.append(["undecided", "second-day orders (sealed) awaited"])
    return tip


def _add_battles(m, con, pos: dict, colour: dict, precision: int) -> tuple[list[dict], int]:
    """The battle markers (points) and the base-edge lines (a layer added to ``m``); (points, how many)."""
    import shapely

    from bellica.web_maps.encode import encode_lines
    from bellica.web_maps.layers import LineLayer

    points, lines, tips = [], [], []
    battles = [b for b in battles_due(con) if b["node"] in pos]
    for b in battles:
        lat, lon = pos[b["node"]]
        label = None
        if b["kind"] != "naval" and b["defence"]:
            label = f"{b['defence']} defence"
        mark = [lat, lon]
        if b["base_edge"] in pos:
            # the swords stand just outside the place, on the attacker's side: towards its path of entry
            blat, blon = pos[b["base_edge"]]
            dlat, dlon = blat - lat, blon - lon
            far = max((dlat * dlat + dlon * dlon) ** 0.5, 1e-9)
            step = min(BATTLE_OFFSET_DEG, far / 3) / far
            mark = [lat + dlat * step, lon + dlon * step]
        tip = _battle_tip(b)
        # a solid ring round the place (seen under any counters) and the swords on the attacker's side
        points.append({"ll": [lat, lon], "shape": "ring", "colour": BATTLE_COLOUR, "r": 18, "w": 3, "tip": tip})
        points.append({"ll": mark, "shape": "battle", "colour": BATTLE_COLOUR, "r": 11, "label": label,
                       "lc": "bellica-label", "ldir": "right", "prio": 20, "tip": tip})
        if b["base_edge"] in pos:
            # from the node of entry to the battle: the attacker's table edge faces that way
            lines.append(shapely.LineString([(blon, blat), (lon, lat)]))
            tips.append([("attacker", b["attacker"]), ("enters", f"{b['node']} from {b['base_edge']}"),
                         ("base edge", f"the {b['base_edge']} side of the table")])
    if lines:
        parts, owner = encode_lines(lines, precision=precision)
        m.add_child(LineLayer(parts, owner, tips, precision=precision, name="Battles due: attackers' entry",
                              colour=BATTLE_COLOUR, weight=4.0, opacity=0.85, dash="2 6"))
    return points, len(battles)


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
            raise InputError(f"--faction {faction}: the campaign has not started: `bellica magna-graecia start`")
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
    beside: dict[str, int] = {}  # sides already drawn in a node: opposing stacks stand side by side
    for (node, side), cmds in sorted(stacks.items(), key=lambda kv: (kv[0][0], sides.index(kv[0][1])
                                                                      if kv[0][1] in sides else 99)):
        if node not in pos:
            continue
        lat, lon = pos[node]
        k = beside.get(node, 0)
        beside[node] = k + 1
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
                 "label": None, "tip": tip, "r": COUNTER_R, "dx": 8 + 40 * k, "dy": -22}
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
                 "label": None, "r": COUNTER_R, "dx": -44, "dy": 4}
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
    battle_points, n_battles = _add_battles(m, con, pos, colour, precision)
    points += battle_points  # a battle due is public: the same for every viewer
    m.add_child(PointLayer(points, name="Counters and fleets"))
    items = [LegendItem(s, colour[s], shape="dot") for s in sides]
    items.append(LegendItem("siege in progress (besieger's colour)", "#555", shape="ring"))
    if n_battles:
        items.append(LegendItem("battle due (red ring; dotted: the attacker's path of entry, its base edge)",
                                BATTLE_COLOUR, shape="battle", count=n_battles))
    items.append(LegendItem("own counters show their elements; others only their presence" if viewer
                            else "umpire's view: every counter's elements", "#333", shape="text"))
    sections.append(LegendSection("Sides", items))
    return sections, title + (f" \u2014 view of {viewer}" if viewer else " \u2014 umpire's view")
