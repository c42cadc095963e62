"""What a Trossian nation (or the umpire) may see, as a player view (:mod:`bellica.schema.view`).

The decision is :func:`~.status.status_view`'s (a nation's own treasury, couriers, orders and
armies' units; other nations' armies without their units; the umpire every army's units and no
nation's couriers or orders); this module places that view on the map and adds nothing to it
but the static board (provinces, towns, lanes) and, for a nation, where its own armies may march
(``tr_march``, its own armies only).

The layers (each feature says how a map draws it):

* ``lanes``: the sea lanes (faint, dashed) with their ice this phase and the navies in them;
* ``provinces`` by holder, in the nation's colour (``tr_nations.colour``);
* ``battle_areas`` and ``siege_areas`` (outlined): the battles to fight and the pacifications;
  ``reach`` (outlined, hidden at first): where the viewer's armies may march;
* ``capitals`` (each nation's seat, a star, while it holds its capital province), ``towns``;
* ``navies`` in their lanes, ``armies`` (a nation's own with its number of units, the others'
  as a counter with "?"; an army aboard stands in its navy's lane), ``ice`` on a frozen lane,
  and the viewer's own ``couriers`` in transit;
* ``sieges`` and ``battles`` (points, for exports: drawn as their areas).

A campaign not yet started is drawn from the scenario alone: provinces by their first holder,
towns and lanes, no forces (what a nation may read of them is the status view's to say).
"""

from __future__ import annotations

from bellica.engine.core.view import PALETTE, SEA, Places, as_multi, feature_layer, owner_styles, point, province_layer
from bellica.schema.view import Feature, PlayerView, Style

HIDDEN_FROM_A_NATION = ("other nations' armies' units and strength",
                        "other nations' treasuries, couriers and orders, and the orders their armies obey")
MARKERS = "Capitals, resources, forces"


def _status(c, viewer: str | None) -> dict:
    """The ruleset's status view; for a campaign not yet started, the scenario's board alone."""
    from .status import status_view

    if c.has_state():
        return status_view(c, viewer)
    s = c.board
    return {"round": 0, "phase": "setup", "date": None, "viewer": viewer, "ready": [], "control": dict(s.holders),
            "armies": [], "navies": [], "battles": [], "sieges": [], "alliances": [], "offers": [],
            "lanes": [{"lane": x, "freezes": lane.freezes, "open": True} for x, lane in s.lanes.items()]}


def _styles(board, status: dict, viewer: str | None) -> dict[str, Style]:
    colours = {n: (x.colour or PALETTE[i % len(PALETTE)]) for i, (n, x) in enumerate(board.nations.items())}
    held = {n: sum(1 for h in status["control"].values() if h == n) for n in colours}
    words = {n: n + (" (you)" if n == viewer else "") + f" \u00b7 {held[n]} provinces" for n in colours}
    words[""] = "nobody (or occupied)"
    return {**owner_styles("owner", colours, "fill", words=words),
            **owner_styles("seat", colours, "star", 11, "a power's seat (capital of its first home province)"),
            **owner_styles("navy", colours, "navy", 9, "navy, in its sea lane"),
            **owner_styles("army", colours, "army", 11, "army (points)"),
            "town": Style("#424242", "dot", 3, "town"), "port": Style("#0d47a1", "dot", 5, "port (navies berth there)"),
            "ice": Style("#81d4fa", "army", 9, "frozen sea lane (ice)"),
            "courier": Style("#fdd835", "army", 8, "your courier (C)"),
            "lane": Style(SEA, "zone", 0, "sea lane"),
            "battle": Style("#ff6f00", "outline", 0, "battles to fight on the table"),
            "siege": Style("#6a1b9a", "outline", 0, "pacification and sieges"),
            "reach": Style("#1b5e20", "outline", 0, f"{viewer}'s armies under the king's hand may reach")}


def _provinces(board, status: dict, places: Places):
    towns_of: dict[str, list[str]] = {}
    for t in board.towns.values():
        towns_of.setdefault(t.province, []).append(t.name + (" (port)" if t.port else ""))
    sieges = {s["province"]: s for s in status["sieges"]}
    control = status["control"]
    display = {}
    for name, p in board.provinces.items():
        s = sieges.get(name)
        display[name] = {"label": name, "style": f"owner:{control.get(name) or ''}", "tooltip": (
            ("province", name), ("owner", control.get(name) or "nobody"), ("homeland of", p.home), ("kind", p.kind),
            ("towns", ", ".join(towns_of.get(name, [])) or None),
            ("under siege by", f"{s['nation']} ({s['done']} of {s['needed']} phases)" if s else None),
            ("note", p.note or None))}
    return province_layer(places, {p: control.get(p) for p in board.provinces}, display=display)


def _lanes(board, status: dict, places: Places) -> tuple:
    """The lanes (zones) and the ice on the frozen ones."""
    lanes, ice = [], []
    for x in status["lanes"]:
        name = x["lane"]
        here = [f"{n['navy']} ({n['nation']})" for n in status["navies"] if n["lane"] == name]
        state = "frozen this phase" if not x["open"] else ("freezes in winter" if x["freezes"] else "never freezes")
        note = board.lanes[name].note if name in board.lanes else ""
        lanes.append(Feature(as_multi(places.region(name)), x, label=name, style="lane",
                             tooltip=(("sea", name), ("ice", state), ("navies", ", ".join(here) or "none"),
                                      ("note", note or None))))
        if not x["open"]:
            ice.append(Feature(places.inside(name), {"lane": name}, text="ice", style="ice",
                               tooltip=(("lane", name), ("frozen", "this phase"))))
    return (feature_layer("lanes", "MultiPolygon", lanes, title="Sea lanes", columns=("lane", "freezes", "open")),
            feature_layer("ice", "Point", ice, title=MARKERS, columns=("lane",)))


def _places(board, status: dict) -> tuple:
    """Each nation's seat (while it holds its capital province) and every town and port."""
    control = status["control"]
    seats = [Feature(point(board.provinces[x.capital].lon, board.provinces[x.capital].lat),
                     {"nation": n, "province": x.capital, "seat": board.provinces[x.capital].seat},
                     label=n, text=n, style=f"seat:{n}",
                     tooltip=(("capital of", n), ("seat", board.provinces[x.capital].seat)))
             for n, x in board.nations.items() if x.capital in board.provinces and control.get(x.capital) == n]
    towns = [Feature(point(t.lon, t.lat), {"town": t.name, "province": t.province, "port": t.port, "lane": t.lane or None,
                                           "holder": control.get(t.province)},
                     label=t.name, style="port" if t.port else "town",
                     tooltip=(("port" if t.port else "town", t.name), ("in", t.province), ("on the lane", t.lane or None),
                              ("held by", control.get(t.province) or "nobody")))
             for t in board.towns.values()]
    return (feature_layer("capitals", "Point", seats, title=MARKERS, columns=("nation", "province", "seat")),
            feature_layer("towns", "Point", towns, title=MARKERS, columns=("town", "province", "port", "lane", "holder")))


def _berth(berth: str) -> str:
    return berth[5:] if berth.startswith("port:") else (f"off {berth[6:]}" if berth.startswith("coast:") else "at sea")


def _forces(status: dict, places: Places, nations=()) -> tuple:
    """The navies, the armies as the status view shows them, the viewer's couriers."""
    lane_of = {n["navy"]: n["lane"] for n in status["navies"]}
    navies = [Feature(places.inside(n["lane"]), n, text=str(n["navy"]), style=f"navy:{n['nation']}",
                      tooltip=(("navy", n["navy"]), ("of", n["nation"]), ("in", n["lane"]), ("berth", _berth(n["berth"]))))
              for n in status["navies"]]
    armies = []
    for a in status["armies"]:
        seen = a["strength"] is not None  # the view gives units only where the viewer may read them
        where = f"aboard navy {a['aboard']}" if a["aboard"] else a["province"]
        tip = [("army", f"{a['army']}" + (f" ({a['name']})" if a["name"] else "")), ("of", a["nation"]), ("where", where)]
        if seen:
            tip += [("units", a["strength"]), ("rests", a["rest"] or None),
                    ("garrison" if a["standing"] == "garrison" else "without HQ", a["standing"] or None)]
        if a.get("order"):  # the viewer's own army: the order it has received, and how it came
            tip += [("obeys", a["order"]), ("order from", a.get("order_from")),
                    ("takes orders", "by courier only" if a.get("by_courier") else "from the king at once")]
        at = places.inside(lane_of.get(a["aboard"]) if a["aboard"] else a["province"])
        owner = a["nation"] if a["nation"] in nations else ""  # a neutral city's garrison: nobody's colour
        armies.append(Feature(at, a, text=str(a["strength"]) if seen else "?", style=f"army:{owner}",
                              tooltip=tuple(tip)))
    couriers = [Feature(places.inside(x["where"]), x, text="C", style="courier",
                        tooltip=(("courier", x["courier"]), ("in", x["where"]), ("by", x["mode"]), ("to", x["to"]),
                                 ("message", x["message"])))
                for x in status.get("couriers", ())]
    return navies, armies, couriers


def _areas(c, status: dict, places: Places, viewer: str | None) -> tuple:
    """The battles' and sieges' provinces outlined, and where the viewer's armies may march now:
    those that take the king's orders at once.  An army that obeys only what a courier brings
    cannot be sent anywhere this phase, so its reach would mislead (the status says which is which)."""
    reach = []
    at_once = [a["army"] for a in status["armies"] if a["nation"] == viewer and a.get("by_courier") is False]
    if viewer is not None and c.has_state() and at_once:  # the viewer's own armies only (tr_march reads no secret of others)
        reach = [r[0] for r in c.con.execute(
            'SELECT DISTINCT "to" FROM tr_march WHERE nation = ? AND list_contains(?, army) ORDER BY 1',
            [viewer, at_once]).fetchall()]

    def outline(name: str, title: str, provinces, style: str, show: bool = True):
        return feature_layer(name, "MultiPolygon", [Feature(as_multi(places.region(p)), {"province": p}, style=style)
                                                     for p in provinces],
                             title=title, columns=("province",), show=show)

    return (outline("battle_areas", "battles to fight on the table", [b["province"] for b in status["battles"]], "battle"),
            outline("siege_areas", "pacification and sieges", [s["province"] for s in status["sieges"]], "siege"),
            outline("reach", f"{viewer}'s armies under the king's hand may reach", reach, "reach", show=False))


def _panel(status: dict) -> list[tuple[str, str]]:
    panel: list[tuple[str, str]] = []
    if status["date"]:
        panel += [("Date", status["date"]), ("Step", f"{status['phase']} (round {status['round']})")]
        if status["phase"] == "orders":
            panel.append(("Orders in from", ", ".join(status["ready"]) or "nobody yet"))
    else:
        panel.append(("Date", "not started"))
    panel.append(("Frozen lanes", ", ".join(x["lane"] for x in status["lanes"] if not x["open"]) or "none"))
    if status["date"]:  # diplomacy is public: every nation's page lists the alliances and open offers
        panel.append(("Alliances", "; ".join(" & ".join(p) for p in status["alliances"]) or "none: every nation at war"))
        if status["offers"]:
            panel.append(("Offers of alliance", "; ".join(f"{o['nation']} to {o['to']}" for o in status["offers"])))
    for b in status["battles"]:
        a, d = b["nations"]
        panel.append((f"Battle {b['battle']}", f"{b['province']}: {' & '.join(a)} against {' & '.join(d)}"))
    if status.get("treasury") is not None:
        t = status["treasury"]
        panel.append(("Your treasury", f"{t['total']} AP (" + ", ".join(f"{k} {v}" for k, v in t["bank"].items()) + ")"))
        panel.append(("Your orders this phase", str(len(status["orders"]))))
        for a in status["armies"]:  # which of its armies obey which order (couriers carry orders)
            if a.get("order"):
                panel.append((f"Army {a['army']} obeys", a["order"] + (f" (from {a['order_from']})" if a.get("order_from") else "")))
    return panel


def player_view(c, viewer: str | None) -> PlayerView:
    board = c.board
    status = _status(c, viewer)
    viewer = status["viewer"]
    places = Places(c.con)
    navies, armies, couriers = _forces(status, places, board.nations)
    lanes, ice = _lanes(board, status, places)
    capitals, towns = _places(board, status)
    layers = (
        lanes,
        _provinces(board, status, places),
        *_areas(c, status, places, viewer),
        capitals, towns,
        feature_layer("navies", "Point", navies, title=MARKERS),
        feature_layer("armies", "Point", armies, public=False, title=MARKERS,
                      description="a nation's own armies with their units; the others' without"),
        ice,
        feature_layer("couriers", "Point", couriers, public=False, title=MARKERS,
                      description="the viewer's own couriers in transit (none for the umpire)"),
        feature_layer("sieges", "Point", ((places.inside(s["province"]), s) for s in status["sieges"])),
        feature_layer("battles", "Point", ((places.inside(b["province"]), b) for b in status["battles"])),
    )
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=int(status["round"]), phase=status["phase"],
                      status=status, layers=layers, hidden=HIDDEN_FROM_A_NATION if viewer else (),
                      styles=_styles(board, status, viewer), title=board.title, panel=_panel(status))
