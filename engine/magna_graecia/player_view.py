"""What a Magna Graecia side (or the umpire) may see, as a player view (:mod:`bellica.schema.view`).

The decision of what a side may read is :func:`~.status.view`'s (its own commands with their
elements and its fleet's naval points and load; of the others only that counters stand in a
node, and where their fleets are); this module gives that view its places on the node map and
adds nothing the view does not hold but the node map itself (public: the places and paths of
the scenario's year, their terrain, walls and neutral commands).

The layers (each feature says how a map draws it):

* ``places``: every place of the year, in its holder's (or ally's) colour, white when neutral;
  a walled place larger and ringed; ``paths``: land paths solid, sea paths dashed;
* ``counters`` (one per command the view holds; exported, not drawn) and ``stacks``: per node
  and side, one counter saying how many (and, for the viewer's own, their elements); a neutral
  city's own forces are its place's "(n)";
* ``fleets``, ``sieges`` (a dashed ring in the besieger's colour) and the ``battles`` due (a red
  ring with swords; ``battle_entries``: the attacker's path of entry, its base edge).

A campaign not yet started is drawn from its node map alone.
"""

from __future__ import annotations

from bellica.engine.core.machine import position_of
from bellica.engine.core.view import Places, feature_layer, point
from bellica.schema.view import Feature, PlayerView, Style

#: What a side's view leaves out, in words (the umpire's leaves out nothing).
HIDDEN_FROM_A_SIDE = ("other sides' commands: their ids, elements, generals and strength (only that counters stand in a node)",
                      "other sides' fleets: their naval points and what they carry",
                      "commands aboard another side's fleet",
                      "sealed second-day orders")
#: The sides' colours, in the scenario's order of play (the scenarios give none).
SIDE_COLOURS = ("#c0392b", "#2e6fb7", "#2e8b57", "#8e44ad", "#d68910")
NEUTRAL = "#ffffff"
BATTLE = "#b00020"
COUNTERS = "Counters and fleets"


def _styles(sides: list[str]) -> dict[str, Style]:
    colour = {s: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, s in enumerate(sides)}
    out: dict[str, Style] = {}
    for s, c in colour.items():
        out |= {f"place:{s}": Style(c, "dot", 5, f"{s}'s or allied"), f"walled:{s}": Style(c, "walled", 7, f"{s}'s or allied"),
                f"stack:{s}": Style(c, "army", 14, s), f"fleet:{s}": Style(c, "navy", 14, s),
                f"siege:{s}": Style(c, "dashed-ring", 14, "siege in progress (besieger's colour)")}
    return {**out, "place:": Style(NEUTRAL, "dot", 5, NEUTRAL_WORDS), "walled:": Style(NEUTRAL, "walled", 7, NEUTRAL_WORDS),
            "path:land": Style("#8b5a2b", "line", 3, "land path"), "path:sea": Style("#1f5fa8", "dashed", 2, "sea path"),
            "battle": Style(BATTLE, "battle", 18, "battle due"),
            "entry": Style(BATTLE, "dotted", 4, "the attacker's path of entry (its base edge)")}


def _years(first, last) -> str | None:
    def y(v):
        return f"{-v} BC" if v < 0 else f"AD {v}"

    if first is None and last is None:
        return None
    return f"until {y(last)}" if first is None else f"from {y(first)}" if last is None else f"{y(first)} to {y(last)}"


#: The legend's line for a neutral place, saying what the "(n)" after a name counts.
NEUTRAL_WORDS = "no owner (neutral); \"(n)\" after a name: n commands of a city's own stand there"


def _city_forces(status: dict) -> dict[str, int]:
    """How many commands of a city's own (neutral, or allied to a side that is not the viewer) stand
    in each node now: the counters :func:`_stacks` leaves to the place's "(n)" (public: every
    counter's place is)."""
    out: dict[str, int] = {}
    for x in status["counters"]:
        if "side" not in x and x["city"]:
            out[x["node"]] = out.get(x["node"], 0) + 1
    return out


def _places(c, owner: dict[str, str], neutral: dict[str, int] | None) -> list[Feature]:
    """The places of the scenario's year (the board's node map), with the node table's terrain and note;
    ``neutral``: the cities' own commands standing in each place now (None before the start: the node map's)."""
    board = c.board
    rows = {r[0]: r[1:] for r in c.con.execute(
        "SELECT name, terrain, from_year, until_year, note FROM nodes").fetchall()}
    out = []
    for name, p in sorted(board.nmap.places.items()):
        terrain, first, last, note = rows.get(name, (None, None, None, None))
        who = owner.get(name, "")
        commands = p.commands if neutral is None else neutral.get(name, 0)
        out.append(Feature(point(*board.positions[name]),
                           {"place": name, "owner": who or None, "coastal": p.coastal, "fortified": p.fortified,
                            "commands": commands},
                           label=name + (f" ({commands})" if commands else ""),
                           style=f"{'walled' if p.fortified else 'place'}:{who}",
                           tooltip=(("place", name), ("owner", who or "neutral"), ("terrain", terrain or "?"),
                                    ("coastal", "yes" if p.coastal else "no"), ("fortified", "yes" if p.fortified else "no"),
                                    ("neutral commands", str(commands)), ("stands", _years(first, last)),
                                    ("note", note or None))))
    return out


def _paths(c, places: Places) -> list[Feature]:
    """The paths of the scenario's year, with their length, hexes and the terrain they cross."""
    links = {(x.a, x.b, x.kind) for x in c.board.nmap.links}
    facts = {r[:3]: r[3:] for r in c.con.execute(
        "SELECT a, b, kind, length_km, hexes, from_year, until_year, note FROM node_paths").fetchall()}
    crossed: dict[tuple, list[str]] = {}
    for a, b, kind, t, n in c.con.execute(
            "SELECT a, b, kind, terrain, hexes FROM node_path_terrain ORDER BY a, b, kind, hexes DESC, terrain").fetchall():
        crossed.setdefault((a, b, kind), []).append(f"{t} {n}")
    out = []
    for a, b, kind, line in places.paths():
        if (a, b, kind) not in links:
            continue
        length, hexes, first, last, note = facts[(a, b, kind)]
        out.append(Feature(line, {"a": a, "b": b, "kind": kind, "length_km": length}, style=f"path:{kind}",
                           tooltip=(("path", f"{a} \u2013 {b}"), ("by", kind), ("length", f"{length:.0f} km"),
                                    ("hexes", hexes), ("crosses", ", ".join(crossed.get((a, b, kind), [])) or None),
                                    ("open", _years(first, last)), ("note", note or None))))
    return out


def _stacks(status: dict, sides: list[str], places: Places) -> list[Feature]:
    """One counter per node and side: how many commands stand there, and the viewer's own in full."""
    stacks: dict[tuple[str, str], list[dict]] = {}
    for x in status["counters"]:
        side = x["side"] if "side" in x else ("" if x["city"] else x["owner"])
        if side:  # a neutral city's own forces are its place's "(n)"
            stacks.setdefault((x["node"], side), []).append(x)
    out = []
    def order(key: tuple[str, str]) -> tuple:
        return key[0], sides.index(key[1]) if key[1] in sides else len(sides)

    for (node, side), cmds in sorted(stacks.items(), key=lambda kv: order(kv[0])):
        own = all("id" in x for x in cmds)
        tip = [("side", side), ("node", node)]
        if own:
            for x in cmds:
                where = " (aboard)" if x["aboard"] else (" (inside)" if x["in_city"] else "")
                tip.append((f"command {x['id']}{where}", f"{x['general'] or 'leaderless'}; "
                            + ", ".join(f"{k} {v}" for k, v in x["elements"].items()) + f" = {x['strength']} elements"))
        else:
            tip.append(("counters", str(len(cmds))))
        strength = sum(x["strength"] for x in cmds) if own else None
        out.append(Feature(places.inside(node), {"node": node, "side": side, "counters": len(cmds), "strength": strength},
                           text=f"{side[:3]} x{len(cmds)}", sub=f"{strength} el." if own else "", style=f"stack:{side}",
                           tooltip=tuple(tip)))
    return out


def _fleet(f: dict, at) -> Feature:
    tip = (("fleet", f["side"]), ("node", f["node"]))
    if "np" in f:  # the view gives naval points and load only where the viewer may read them
        tip += (("naval points", str(f["np"])), ("aboard", ", ".join(str(x) for x in f["carrying"]) or "none"))
    return Feature(at, f, text=f"{f['side'][:3]} fleet", sub=f"{f['np']} NP" if "np" in f else "",
                   style=f"fleet:{f['side']}", tooltip=tip)


def _who(defender: str) -> str:
    return f"{defender[5:]}'s own forces" if defender.startswith("city:") else defender


def _battle(b: dict, at) -> Feature:
    """A battle due, as every viewer sees it (public)."""
    base = "" if b["base_edge"] in (None, b["node"]) else b["base_edge"]
    what = "fleet fight" if b["kind"] == "naval" else ("sally" if b["sally"] else "land battle")
    tip = [("battle at", b["node"]), ("kind", what), ("attacker", b["attacker"]),
           ("defender", ", ".join(_who(d) for d in b["defenders"]) or "none")]
    if b["kind"] != "naval":
        tip += [("attacker's base edge", f"towards {base}" if base else "none (nobody entered): set up as agreed"),
                ("defence", b["defence"] or "not chosen yet")]
    if b["day"] > 1:
        tip.append(("day", str(b["day"])))
    if b["undecided"]:
        tip.append(("undecided", "second-day orders (sealed) awaited"))
    label = f"{b['defence']} defence" if b["kind"] != "naval" and b["defence"] else ""
    return Feature(at, b, label=label, style="battle", tooltip=tuple(tip))


def _battles(status: dict, places: Places) -> tuple[list[Feature], list[Feature]]:
    """The battles due and the attackers' paths of entry (from the node entered from)."""
    import shapely

    battles, entries = [], []
    for b in status["battles"]:
        at = places.inside(b["node"])
        battles.append(_battle(b, at))
        base = places.inside(b["base_edge"]) if b["base_edge"] not in (None, "", b["node"]) else None
        if at is not None and base is not None:
            entries.append(Feature(shapely.LineString([base, at]),
                                   {"node": b["node"], "attacker": b["attacker"], "base_edge": b["base_edge"]},
                                   style="entry", tooltip=(("attacker", b["attacker"]),
                                                           ("enters", f"{b['node']} from {b['base_edge']}"),
                                                           ("base edge", f"the {b['base_edge']} side of the table"))))
    return battles, entries


def _siege(s: dict, at) -> Feature:
    tip = (("siege of", s["node"]), ("besieger", s["besieger"]), ("defender", _who(s["defender"])),
           ("since turn", str(s["started"])), ("fall rolls in a row", str(s["rolls"])),
           ("disease", f"since turn {s['disease']}" if s["disease"] else None))
    return Feature(at, s, style=f"siege:{s['besieger']}", tooltip=tip)


def _panel(status: dict) -> list[tuple[str, str]]:
    if not status.get("started", True):
        return [("Turn", "not started")]
    year = status["year"]
    turn = f"{status['turn']} of {status['turns']}"
    panel = [("Turn", f"{turn} ({-year} BC)" if year < 0 else turn),
             ("Phase", status["phase"] + (f", {status['phasing']} phasing" if status["phasing"] else ""))]
    if status["winner"]:
        panel.append(("Winner", status["winner"]))
    for s in status["sides"]:
        vp = f", {s['victory_points']} VP" if s["victory_points"] is not None else ""
        panel.append((s["side"], f"capital {s['capital']}, " + ("playing" if s["playing"] else f"out ({s['out']})") + vp))
    panel.append(("Alliances", "; ".join(" & ".join(p) for p in status["alliances"]) or "none"))
    return panel


def player_view(c, viewer: str | None) -> PlayerView:
    from .status import view  # the ruleset's own redaction

    board = c.board
    sides = list(board.scenario.order)
    if c.has_state():
        status = view(c, side=viewer)
        pos = position_of(c.snapshot())
        rnd, phase, viewer = pos.round, pos.phase, status["viewer"]
    else:  # the node map alone: nothing stands on it yet
        status = {"started": False, "title": board.scenario.title, "year": board.scenario.year, "viewer": viewer,
                  "cities": [], "counters": [], "fleets": [], "sieges": [], "battles": []}
        rnd, phase = 0, "setup"
    places = Places(c.con)
    owner = {x["city"]: x["holder"] or x["ally"] for x in status["cities"] if (x["holder"] or x["ally"]) in sides}
    battles, entries = _battles(status, places)
    layers = (
        feature_layer("paths", "LineString", _paths(c, places), title="Paths"),
        feature_layer("places", "Point", _places(c, owner, _city_forces(status) if c.has_state() else None),
                      title="Places"),
        feature_layer("battle_entries", "LineString", entries, title="Battles due: attackers' entry"),
        feature_layer("counters", "Point", ((places.inside(x["node"]), x) for x in status["counters"]), public=False,
                      description="a side's own commands in full; the others' only where they stand"),
        feature_layer("stacks", "Point", _stacks(status, sides, places), public=False, title=COUNTERS,
                      description="per node and side, how many commands stand there (the viewer's own with their elements)"),
        feature_layer("fleets", "Point", [_fleet(f, places.inside(f["node"])) for f in status["fleets"]],
                      public=False, title=COUNTERS,
                      description="a side's own fleet with its naval points and load; the others' only where they are"),
        feature_layer("sieges", "Point", [_siege(s, places.inside(s["node"])) for s in status["sieges"]], title=COUNTERS),
        feature_layer("battles", "Point", battles, title=COUNTERS),
    )
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=rnd, phase=phase, status=status, layers=layers,
                      hidden=HIDDEN_FROM_A_SIDE if viewer else (), styles=_styles(sides), title=status["title"],
                      panel=_panel(status))
