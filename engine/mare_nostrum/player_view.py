"""What a Mare Nostrum nation (or the umpire) sees, as a player view.

The seed's campaign is played in the open (the umpire posts the map after every turn, the
players declare their actions on the forum, the lottery numbers are public), so every view is
the whole board: every nation's provinces, works, fleets, stability and treasury.  Only lottery
numbers not yet drawn are unknown, and no view can hold them.

The layers (each feature says how a map draws it: :mod:`bellica.schema.view`):

* ``seas``: the sea quadrants (faint, dashed), with their notes, coasts and fleets;
* ``provinces``: the provinces by holding nation, in the nation's own colour (``mn_nations``);
* ``attackable`` (outlined): where the viewer (the umpire: the acting nation) may attack by
  land now (:func:`~.battles.land_targets`); ``battles``: this turn's battles;
* ``capitals`` at each chief city: a nation's capital a star, every other chief city a dot;
* ``works``: fortifications, suburbs and temples standing, and the Defensive Artworks of the turn;
* ``fleets`` in their sea quadrants (pirates' included), ``attacks`` (the invaders' and allied
  armies of this turn's battles are drawn as counters; the other attacks are in ``battles``).

A campaign not yet started is drawn as it will start (:func:`~.turn.new_game`).
"""

from __future__ import annotations

from bellica.engine.core.view import PALETTE, SEA, Places, as_multi, feature_layer, owner_styles, point, province_layer
from bellica.schema.view import Feature, PlayerView, Style

#: What a faction's view leaves out, in its panel.
HIDDEN_IN_MARE_NOSTRUM = "nothing: the campaign is played in the open (only lottery numbers not yet drawn)"
#: The colour of pirate fleets (event "Pirates"), which belong to no nation.
PIRATE_COLOUR = "#212121"
MARKERS = "Capitals, resources, forces"
#: (Works field, kind, its letter on the counter, its colour)
WORKS = (("fortifications", "fortification", "F", "#424242"), ("suburbs", "suburb", "S", "#8d6e63"),
         ("temples", "temple", "T", "#6a1b9a"))


def _bc(year: int) -> str:
    return f"{-year} BC" if year < 0 else f"AD {year}"


def _styles(c, state, viewer: str | None, who: str | None) -> dict[str, Style]:
    from .model import pirates_name

    board = c.board
    colours = {n: (x.colour or PALETTE[i % len(PALETTE)]) for i, (n, x) in enumerate(board.nations.items())}
    pirates = pirates_name(c.rules)
    words = {}
    for n in colours:
        s = state.nations.get(n)
        note = ("out" if s.out else f"stability {s.stability}, treasury {s.treasury}") if s else ""
        words[n] = n + (" (you)" if n == viewer else "") + (f" \u00b7 {note}" if note else "")
    words[""] = "nobody (or occupied)"
    fleets = {**colours, pirates: PIRATE_COLOUR}
    return {**owner_styles("owner", colours, "fill", words=words),
            **owner_styles("seat", colours, "star", 11, "a power's seat (capital of its first home province)"),
            **owner_styles("capital", colours, "dot", 4, "a province's capital"),
            **owner_styles("fleet", fleets, "navy", 9, {**{n: "fleet, in its sea quadrant" for n in colours},
                                                         pirates: "pirates' fleet"}),
            **owner_styles("army", colours, "army", 11, "army (points)"),
            **{kind: Style(colour, "army", 8, f"{kind} ({letter})") for _f, kind, letter, colour in WORKS},
            "artworks": Style("#424242", "army", 8, "Defensive Artworks (A)"),
            "sea": Style(SEA, "zone", 0, "sea quadrant"),
            "attackable": Style("#b71c1c", "outline", 0, f"{who} may attack by land"),
            "battle": Style("#ff6f00", "outline", 0, f"battles of turn {state.turn}")}


def _province_rows(board, state, name: str) -> tuple:
    from dataclasses import astuple

    from .model import Works

    p = board.provinces[name]
    owner = state.control.get(name)
    w = astuple(state.works.get(name, Works()))
    fight = next((a for a in state.attacks if a.target == name), None)
    attacker = None
    if fight:
        attacker = ((f"{fight.attacker}" if fight.attacker else f"invaders ({fight.army}, played by {fight.managed_by})")
                    + (f" with the {fight.army}" if fight.attacker and fight.army else "")
                    + (f" from {fight.base}" if fight.base else "") + (f" across {fight.sea}" if fight.sea else ""))
    st = state.nations.get(owner) if owner else None
    return (("province", name), ("owner", owner or "nobody"),
            ("province of", f"{p.nation} ({p.role})" if p.nation else "independent"), ("chief city", p.city or None),
            ("treasury points", p.revenue), ("faces", ", ".join(p.seas) or "no sea (inland)"),
            ("works", ", ".join(f"{n} {kind}" for n, (_f, kind, _l, _c) in zip(w, WORKS) if n) or None),
            ("attacked this turn by", attacker), ("holder's stability", st.stability if st else None))


def _seas(board, state, places: Places) -> list[Feature]:
    facing: dict[str, list[str]] = {}
    for p in board.provinces.values():
        for s in p.seas:
            facing.setdefault(s, []).append(p.name)
    out = []
    for name in sorted(set(board.seas) | set(facing)):
        here = [f"{f.id} ({f.owner})" for f in state.fleets if f.sea == name]
        note = board.seas[name].note if name in board.seas else ""
        out.append(Feature(as_multi(places.region(name)), {"sea": name, "note": note or None},
                           label=name, style="sea",
                           tooltip=(("sea", name), ("note", note or None), ("coasts", ", ".join(facing.get(name, [])) or None),
                                    ("fleets", ", ".join(here) or "none"))))
    return out


def _capitals(board, state) -> list[Feature]:
    capitals = {x.capital: n for n, x in board.nations.items()}
    out = []
    for name, p in board.provinces.items():
        owner = state.control.get(name)
        seat = capitals.get(name) == p.nation and p.role == "capital"
        out.append(Feature(point(p.lon, p.lat), {"province": name, "city": p.city, "capital_of": p.nation if seat else None,
                                                 "holder": owner},
                           label=p.city, style=f"{'seat' if seat else 'capital'}:{owner or ''}",
                           tooltip=(("chief city", p.city), ("of", name), ("capital of", p.nation if seat else None),
                                    ("held by", owner or "independent"))))
    return out


def _works(board, state, places: Places) -> list[Feature]:
    from dataclasses import astuple

    out = []
    for name, w in state.works.items():
        owner = state.control.get(name)
        for n, (_f, kind, letter, _c) in zip(astuple(w), WORKS):
            if n:
                out.append(Feature(places.inside(name), {"province": name, "work": kind, "number": n, "holder": owner},
                                   text=letter, style=kind, tooltip=((kind, name), ("held by", owner or "independent"))))
    for n, s in state.nations.items():
        if s.artworks:
            out.append(Feature(places.inside(s.artworks), {"province": s.artworks, "work": "artworks", "number": 1,
                                                           "holder": n},
                               text="A", style="artworks",
                               tooltip=(("Defensive Artworks of", n), ("in", s.artworks), ("for", "this turn"))))
    return out


def _forces(view, state, places: Places) -> tuple[list[Feature], list[Feature]]:
    """The fleets in their quadrants and the attacks (the invaders' and allied armies as counters)."""
    fleets = [Feature(places.inside(f["sea"]), f, text=str(f["fleet"]), style=f"fleet:{f['owner']}",
                      tooltip=(("fleet", f["fleet"]), ("of", f["owner"]), ("in", f["sea"])))
              for f in (view.fleets if view else ())]
    attacks = []
    for a in (view.attacks if view else ()):
        drawn = a["kind"] in ("invasion", "alliance")  # the others are outlined as this turn's battles
        invasion = a["kind"] == "invasion"
        attacks.append(Feature(places.inside(a["target"]), a, text=("Inv" if invasion else "All") if drawn else "",
                               style=f"army:{a['attacker'] or ''}" if drawn else "",
                               tooltip=(("army", a["army"]),
                                        ("invades" if invasion else "allied with", a["attacker"] or a["target"]),
                                        ("against", a["defender"] or "the independents"),
                                        ("played by", a["managed_by"] or a["attacker"])) if drawn else ()))
    return fleets, attacks


def _outlines(c, state, places: Places, viewer: str | None, acting: str | None) -> tuple:
    from .battles import land_targets

    who = viewer or acting  # the umpire sees the acting nation's options
    order = list(c.board.provinces)
    targets = sorted({t for _b, t in land_targets(c.board, state, c.rules, who)}, key=order.index) if who else []
    attackable = feature_layer("attackable", "MultiPolygon", [
        Feature(as_multi(places.region(p)), {"province": p, "attacker": who}, style="attackable") for p in targets],
        title=f"{who or 'the acting nation'} may attack by land", columns=("province", "attacker"))
    battles = feature_layer("battles", "MultiPolygon", [
        Feature(as_multi(places.region(a.target)), {"province": a.target, "kind": a.kind}, style="battle")
        for a in state.attacks], title=f"battles of turn {state.turn}", columns=("province", "kind"))
    return attackable, battles


def _panel(c, state, view, phase: str | None, viewer: str | None) -> list[tuple[str, str]]:
    g, turn = c.rules.game, state.turn
    panel = []
    if phase == "begin" or turn == 0:
        panel.append(("Turn", (f"{turn} of {g.turns} over; " if turn else "") + f"turn {turn + 1} to begin"))
    else:
        y0, y1 = g.years(turn)
        panel.append(("Turn", f"{turn} of {g.turns} ({_bc(y0)} to {_bc(y1)})"))
    if phase:
        panel.append(("Phase", phase))
    if view is not None:
        if view.acting:
            panel.append(("Acting", view.acting))
        if view.order:
            panel.append(("Order of play", ", ".join(o["nation"] for o in view.order)))
        if view.winner:
            panel.append(("Winner", view.winner))
        if view.verdict:
            panel.append(("Verdict", view.verdict))
    for n in (view.nations if view is not None else _start_nations(c.board, state)):
        if n["out"]:
            panel.append((n["nation"], f"out of the game ({n['out']})"))
            continue
        text = (f"{n['provinces']} provinces, treasury {n['treasury']}, stability {n['stability']}, "
                f"{n['used']} of {n['actions']} actions used")
        panel.append((n["nation"], text + (f", {n['event']}" if n["event"] else "")))
    if viewer is not None:
        panel.append(("Hidden", HIDDEN_IN_MARE_NOSTRUM))
    return panel


def _start_nations(board, state) -> list[dict]:
    from .model import provinces_of

    return [{"nation": n, "provinces": len(provinces_of(board, state, n)), "stability": s.stability, "treasury": s.treasury,
             "actions": s.actions, "used": s.used, "event": None, "out": s.out} for n, s in state.nations.items()]


def player_view(c, viewer: str | None) -> PlayerView:
    from .status import turn_view
    from .storage import state_of
    from .turn import new_game

    board = c.board
    if c.has_state():
        view, snap = turn_view(c), c.snapshot()
        state, phase, status, rnd = state_of(board, snap), view.phase, view.as_json(), int(snap.campaign("round"))
    else:  # drawn as it will start
        view, state, phase, rnd = None, new_game(board, c.rules), None, 0
        status = {"started": False, "turn": 0, "phase": "setup"}
    places = Places(c.con)
    works = {p: {"fortifications": w.fortifications, "suburbs": w.suburbs, "temples": w.temples}
             for p, w in state.works.items()}
    display = {p: {"label": p, "style": f"owner:{state.control.get(p) or ''}", "tooltip": _province_rows(board, state, p)}
               for p in board.provinces}
    fleets, attacks = _forces(view, state, places)
    acting = view.acting if view is not None else None
    layers = (
        feature_layer("seas", "MultiPolygon", _seas(board, state, places), title="Sea quadrants"),
        province_layer(places, dict(state.control), works, display=display),
        *_outlines(c, state, places, viewer, acting),
        feature_layer("capitals", "Point", _capitals(board, state), title=MARKERS,
                      columns=("province", "city", "capital_of", "holder")),
        feature_layer("works", "Point", _works(board, state, places), title=MARKERS,
                      columns=("province", "work", "number", "holder")),
        feature_layer("fleets", "Point", fleets, title=MARKERS, columns=("fleet", "owner", "sea")),
        feature_layer("attacks", "Point", attacks, title=MARKERS),
    )
    title = c.con.execute("SELECT value FROM scenario_meta WHERE key = 'title'").fetchone()
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=rnd, phase=phase or "setup", status=status,
                      layers=layers, styles=_styles(c, state, viewer, viewer or acting),
                      title=title[0] if title and title[0] else "Mare Nostrum", panel=_panel(c, state, view, phase, viewer))
