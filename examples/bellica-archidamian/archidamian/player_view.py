"""What one viewer (a side, or the umpire) may see of an Archidamian War campaign: the one place
the ruleset decides it.  `status`, `status --json`, `bellica render map`, `bellica export` and the
web pages all draw this view and decide nothing themselves.

Public: the year, who holds each province, both armies (where, strength), the battles fought, who
has given the year's march.  A side's own march and dispatch are in its view only; the umpire's
view has nobody's until the year is resolved (then the log tells them to all).
"""

from __future__ import annotations

from bellica.engine.core.view import Places, feature_layer, owner_styles, point, province_layer
from bellica.schema.view import Feature, PlayerView, Style

HIDDEN_FROM_A_SIDE = ("the other side's march and dispatch until the year is resolved",)


def status(c, viewer: str | None) -> dict:
    from .ruleset import next_words, state_of, year_of

    board = c.board
    if not c.has_state():
        return {"year": None, "round": 0, "phase": "setup", "viewer": viewer, "winner": None,
                "control": {p: v["holder"] for p, v in board.provinces.items()},
                "armies": [{"side": s.name, "army": s.army, "province": s.capital, "strength": s.strength}
                           for s in board.sides.values()],
                "marched": [], "my_march": None, "battles": [], "next": "start it: `bellica archidamian start CAMPAIGN`"}
    snap = c.snapshot()
    rnd, phase = int(snap.campaign("round")), snap.campaign("phase")
    state = state_of(snap)
    orders = {r[1]: {"target": r[2], "dispatch": r[3]} for r in snap.tables["ar_orders"].values() if r[0] == rnd}
    return {"year": year_of(rnd), "round": rnd, "phase": phase, "viewer": viewer, "winner": snap.campaign("winner"),
            "control": state["control"],
            "armies": [{"side": s, "army": board.sides[s].army, "province": p, "strength": n}
                       for s, (p, n) in sorted(state["armies"].items())],
            "marched": sorted(orders) if phase == "orders" else [],
            # The one line that keeps a march sealed: the viewer's own, nobody else's (the umpire's: none).
            "my_march": orders.get(viewer) if viewer is not None and phase == "orders" else None,
            "battles": [{"year": year_of(r[0]), "province": r[1], "winner": r[3]}
                        for r in sorted(snap.tables["ar_battles"].values())],
            "next": next_words(c, snap)}


def status_lines(s) -> list[str]:
    out = [f"{s['year'] or 'not started'} (year {s['round']}, {s['phase']})" + (f", as {s['viewer']}" if s["viewer"] else "")]
    if s["winner"]:
        out.append("verdict: " + ("the Peace of Nicias, a draw" if s["winner"] == "draw" else f"{s['winner']} has won"))
    for a in s["armies"]:
        out.append(f"{a['side']}: {a['army']} in {a['province']}, strength {a['strength']}")
    held: dict[str, list[str]] = {}
    for p, side in s["control"].items():
        held.setdefault(side or "nobody", []).append(p)
    out += [f"held by {k}: {', '.join(sorted(v))}" for k, v in sorted(held.items())]
    if s["phase"] == "orders":
        out.append(f"marches given: {', '.join(s['marched']) or 'none yet'}")
    if s["my_march"]:
        out.append(f"your march: to {s['my_march']['target']}" + (f" ({s['my_march']['dispatch']})" if s['my_march']['dispatch'] else ""))
    out += [f"battle of {b['year']} in {b['province']}: {b['winner']} won" for b in s["battles"]]
    out.append(f"next: {s['next']}")
    return out


def player_view(c, viewer: str | None) -> PlayerView:
    board = c.board
    s = status(c, viewer)
    places = Places(c.con)
    colours = {n: side.colour for n, side in board.sides.items()}
    styles = {**owner_styles("owner", colours, "fill", words={**{n: f"held by {n}" for n in colours}, "": "neutral"}),
              **owner_styles("army", colours, "army", 11, "army (strength)"),
              "polis": Style("#424242", "walled", 5, "city"), "port": Style("#0d47a1", "dot", 5, "port"),
              "battle": Style("#ff6f00", "battle", 10, "battle fought")}
    provinces = province_layer(places, s["control"], display={
        p: {"label": p, "style": f"owner:{s['control'].get(p) or ''}",
            "tooltip": (("province", p), ("held by", s["control"].get(p) or "nobody"), ("note", v["note"] or None))}
        for p, v in board.provinces.items()})
    towns = feature_layer("towns", "Point", [
        Feature(point(t["lon"], t["lat"]), {"town": t["name"], "province": t["province"], "kind": t["kind"]},
                label=t["name"], style=t["kind"], tooltip=(("town", t["name"]), ("note", t["note"] or None)))
        for t in board.places], title="Towns and armies")
    armies = feature_layer("armies", "Point", [
        Feature(places.inside(a["province"]), a, text=str(a["strength"]), style=f"army:{a['side']}",
                tooltip=(("army", a["army"]), ("of", a["side"]), ("in", a["province"]), ("strength", a["strength"])))
        for a in s["armies"]], title="Towns and armies")
    battles = feature_layer("battles", "Point", [
        Feature(places.inside(b["province"]), b, style="battle", tooltip=(("battle", b["year"]), ("won by", b["winner"])))
        for b in s["battles"]], title="Towns and armies", columns=("year", "province", "winner"))
    panel = [("Year", f"{s['year'] or 'not started'} ({s['phase']})"),
             ("Marches given", ", ".join(s["marched"]) or "none yet")]
    if s["my_march"]:
        panel.append(("Your march", f"to {s['my_march']['target']}"))
    if s["winner"]:
        panel.append(("Verdict", s["winner"]))
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=int(s["round"]), phase=s["phase"], status=s,
                      layers=(provinces, towns, armies, battles), hidden=HIDDEN_FROM_A_SIDE if viewer else (),
                      styles=styles, title=board.title, panel=panel)
