"""What the Rise of Rome player (or any power's name, or the umpire) sees, as a player view.

The seed is solo: the engine plays the other eight powers in the open, so every view is the
whole board (:func:`~.status.turn_view` and who holds each province); nothing is hidden.  What
nobody knows, the powers' future dice (ruler changes, attack and target rolls, battles), is drawn
only when its phase is played, so no view can hold it.

The layers (each feature says how a map draws it: :mod:`bellica.schema.view`):

* ``provinces``: the nineteen provinces by controlling power (an external army's occupation
  leaves a province to nobody on the map, its ``holder`` still the controller);
* ``attackable`` (outlined): the provinces the player may attack now (Active powers' provinces
  next to the player's, :func:`~.attacks.candidate_targets`);
* ``capitals`` at each capital's site: every power's seat (the capital of its first home
  province in scenario order) a star, every other capital a dot in its holder's colour;
* ``resources`` and ``external_armies`` inside their provinces, as counters.

A power's colour is its place in the scenario's powers in :data:`~bellica.engine.core.view.PALETTE`
(the scenario gives none).  A campaign not yet started is drawn as it will start: every province
its home power's, nothing else on the board.
"""

from __future__ import annotations

from bellica.engine.core.view import PALETTE, Places, as_multi, feature_layer, owner_styles, point, province_layer
from bellica.schema.view import Feature, PlayerView, Style

#: What a faction's view leaves out, in its panel: nothing on the board.
HIDDEN_FROM_ROME = "nothing (only the powers' future dice, not yet rolled)"
#: A resource's map symbol: (glyph, colour); the legend names each (a kind not listed: its initial).
RESOURCE_SYMBOLS = {"olives": ("\u2766", "#558b2f"), "port": ("\u2693", "#0d47a1"), "quarry": ("\u2692", "#616161")}
RESOURCE = "#b8860b"
ATTACK = "#b71c1c"
MARKERS = "Capitals, resources, forces"


def _bc(year: int) -> str:
    return f"{-year} BC" if year < 0 else f"AD {year}"


def _owner(p: str | None) -> str:
    return p or "nobody"


def _styles(board, viewer: str | None, notes: dict[str, str]) -> dict[str, Style]:
    colours = {p: PALETTE[i % len(PALETTE)] for i, p in enumerate(board.powers)}
    words = {p: p + (" (you)" if p == viewer else "") + (f" \u00b7 {notes[p]}" if notes.get(p) else "") for p in colours}
    words[""] = "nobody (or occupied)"
    return {**owner_styles("owner", colours, "fill", words=words),
            **owner_styles("seat", colours, "star", 11, "a power's seat (capital of its first home province)"),
            **owner_styles("capital", colours, "dot", 4, "a province's capital"),
            **owner_styles("army", colours, "army", 11, "army (points)"),
            **{f"resource:{kind}": Style(_symbol(kind)[1], "symbol", 9, f"resource: {kind}")
               for kind in sorted(board.resource_counts())},
            "attackable": Style(ATTACK, "outline", 0, f"{board.player} may attack")}


def _symbol(kind: str) -> tuple[str, str]:
    return RESOURCE_SYMBOLS.get(kind, (kind[:1].upper(), RESOURCE))


def _province_rows(board, state, name: str, revenue_next: dict[str, int]) -> tuple:
    from .model import status

    p = board.provinces[name]
    army = next((a for a in state.externals.values() if a.province == name), None)
    owner = None if army else state.control.get(name)
    return (("province", name), ("owner", _owner(owner)),
            ("held by (occupied)", state.control.get(name) if army else None),
            ("occupied by", f"the {army.power} army, {army.points} points" if army else None),
            ("owner's status", status(board, state, owner) if owner in board.nations else None),
            ("home of", p.home_of), ("capital", p.capital or None), ("revenue", p.revenue),
            ("resource", p.resource or None), ("coastal", "yes" if p.coastal else "no"),
            ("owner's revenue next turn", revenue_next.get(owner) if owner else None))


def _markers(board, state, places: Places) -> tuple:
    """The capitals, resources and external armies: (capitals, resources, armies) features."""
    from .model import controller

    capitals, resources, seats = [], [], set()
    for name, p in board.provinces.items():
        owner = controller(state, name)
        seat = p.home_of is not None and p.home_of not in seats
        if seat:
            seats.add(p.home_of)
        if p.capital:
            tip = (("capital", p.capital), ("of", name), ("seat of", p.home_of if seat else None), ("held by", _owner(owner)))
            capitals.append(Feature(point(p.lon, p.lat),
                                    {"province": name, "capital": p.capital, "seat_of": p.home_of if seat else None,
                                     "holder": owner},
                                    label=p.capital, text=p.capital if seat else "",
                                    style=f"{'seat' if seat else 'capital'}:{owner or ''}", tooltip=tip))
        if p.resource:
            resources.append(Feature(places.inside(name), {"province": name, "resource": p.resource, "holder": owner},
                                     text=_symbol(p.resource)[0], style=f"resource:{p.resource}",
                                     tooltip=(("resource", p.resource), ("province", name), ("held by", _owner(owner)))))
    armies = [Feature(places.inside(a.province),
                      {"power": a.power, "province": a.province, "points": a.points, "paymaster": a.paymaster},
                      text=str(a.points), style=f"army:{a.power}",
                      tooltip=(("army of", a.power), ("points", a.points), ("in", a.province), ("landed on turn", a.arrived),
                               ("paid by", a.paymaster)))
              for a in state.externals.values() if a.province]
    return capitals, resources, armies


def _attackable(board, state) -> list[str]:
    from .attacks import border_provinces, candidate_targets
    from .model import provinces_of

    mine = provinces_of(board, state, board.player)
    return [q for t in candidate_targets(board, state, board.player) for q in border_provinces(board, state, mine, t)]


def _panel(c, state, view, revenue_next: dict[str, int], viewer: str | None) -> list[tuple[str, str]]:
    rules, player = c.rules, c.board.player
    g, civic = rules.game, rules.civic
    panel = []
    if state.turn:
        y0, y1 = g.years(state.turn)
        panel.append(("Turn", f"{state.turn} of {g.turns} ({_bc(y0)} to {_bc(y1)})"))
    else:
        panel.append(("Turn", "not started"))
    if view is not None:
        panel.append(("Phase", view.phase + (f" ({view.stage})" if view.stage else "")))
    panel.append(("Civic Development", f"{state.civic_total} ({state.civic_spent} spent - {state.civic_penalty} lost)"))
    panel.append(("Verdict bands", f"assured {civic.assured}+, Italy {civic.italy}+, provincial over {civic.provincial}"))
    if view is not None and view.verdict:
        panel.append(("Verdict", view.verdict))
    if revenue_next.get(player) is not None:
        panel.append((f"{player}' revenue next turn", str(revenue_next[player])))
    if viewer is not None:
        panel.append(("Hidden", HIDDEN_FROM_ROME))
    return panel


def _notes(board, state, revenue_next: dict[str, int]) -> dict[str, str]:
    """A few words after each power's name in the legend: its status, else its revenue next turn."""
    from .model import status

    notes = {}
    for w in board.nations:
        st = status(board, state, w)
        notes[w] = st if st != "active" else f"revenue next turn {revenue_next[w]}"
    return notes


def player_view(c, viewer: str | None) -> PlayerView:
    from .model import TurnState, controller
    from .revenue import power_revenue
    from .status import turn_view
    from .storage import state_of

    board = c.board
    started = c.has_state()
    if started:
        view, state = turn_view(c), state_of(board, c.snapshot())
        status, rnd, phase = view.as_json(), view.turn, view.phase
    else:  # drawn as it will start: every province its home power's
        view, state = None, TurnState(turn=0, control=board.start_control())
        status, rnd, phase = {"started": False, "turn": 0, "phase": "setup"}, 0, "setup"
    revenue_next = {w: power_revenue(board, state, c.rules, w).total for w in board.nations} if started else {}
    places = Places(c.con)
    owners = {p: controller(state, p) for p in board.provinces}
    display = {p: {"label": p, "style": f"owner:{owners[p] or ''}", "tooltip": _province_rows(board, state, p, revenue_next)}
               for p in board.provinces}
    capitals, resources, armies = _markers(board, state, places)
    attackable = _attackable(board, state) if started else []
    layers = (
        province_layer(places, {p: state.control.get(p) for p in board.provinces}, display=display),
        feature_layer("attackable", "MultiPolygon", [
            Feature(as_multi(places.region(p)), {"province": p, "attacker": board.player}, style="attackable")
            for p in attackable], title=f"{board.player} may attack", columns=("province", "attacker")),
        feature_layer("capitals", "Point", capitals, title=MARKERS, columns=("province", "capital", "seat_of", "holder")),
        feature_layer("resources", "Point", resources, title=MARKERS, columns=("province", "resource", "holder")),
        feature_layer("external_armies", "Point", armies, title=MARKERS,
                      columns=("power", "province", "points", "paymaster")),
    )
    title = c.con.execute("SELECT value FROM scenario_meta WHERE key = 'title'").fetchone()
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=rnd, phase=phase, status=status, layers=layers,
                      styles=_styles(board, viewer, _notes(board, state, revenue_next) if started else {}),
                      title=title[0] if title and title[0] else "Rise of Rome",
                      panel=_panel(c, state, view, revenue_next, viewer))
