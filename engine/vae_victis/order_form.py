"""Vae Victis II's orders as a step reads and checks them: pure functions returning data.

The declared ``orders`` step (:mod:`.orders_steps`) takes each army's moves and sea links keyed by
army, from the command line's ``ARMY=MOVES`` words or a page's ``moves-ARMY`` / ``sea-ARMY``
fields; these functions turn them into the rules' orders and every problem the engine sees in
them, nothing stored (the check a page runs as one types), and check a player's initiative uses,
own administration choices and commit-reveal orders.  ``commands(army)`` says whether the
signer gives that army its orders (an army player's token commands some of its faction's armies).

Problems and warnings name hexes by their H3 cells, as the rules' own messages do; a page names
them as its map does (:meth:`VaeVictisII.map_words`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping

__all__ = ["sea_links", "orders_from_items", "past_mp", "initiative_checked",
           "own_logistics", "check_warnings", "check_given", "own_choices", "revealed_orders"]

Commands = Callable[[object], bool]


def sea_links(text: str) -> list[str]:
    """The sea links of a field: ``ZONE:STRUCTURE`` items, a semicolon or a line apart."""
    return [s.strip() for s in text.replace("\n", ";").split(";") if s.strip()]


def orders_from_items(moves: Mapping[int, str], sea: Mapping[int, str]):
    """(orders, problems) of the orders step's keyed input: ``moves`` {army: its moves as players
    write them}, ``sea`` {army: its sea links, ``ZONE:STRUCTURE`` a ``;`` apart}; the syntax problems
    (layer 1 of the validator) of every army together, so a page shows them all at once."""
    from bellica.engine.vae_victis.orders import OrderError, army_orders_from_cli

    orders, problems = {}, []
    for army, text in moves.items():
        try:
            orders[army] = army_orders_from_cli(army, text, sea_links=sea_links(str(sea.get(army, ""))))
        except OrderError as err:
            problems += err.problems
    return orders, problems


def own_logistics(c, state, faction: str) -> dict[str, frozenset]:
    """The faction's own logistics road steps as movement reads them (never another faction's), kept
    with the board for ``state`` (a move plotted click by click computes them once)."""
    from bellica.engine.vae_victis.logistics import logistics_for

    kept = c.board.derived.get("app.own_logistics")
    if kept is None or kept[0] is not state:
        kept = c.board.derived["app.own_logistics"] = (state, {})
    if faction not in kept[1]:
        kept[1][faction] = {faction: frozenset(logistics_for(c.board, state).road_edges.get(faction, ()))}
    return kept[1][faction]


def past_mp(c, r, orders) -> list:
    """A land move its army's MP cannot pay, refused (the seed's army spends its MP and moves no
    further: a string with moves never made is a slip, issue 21)."""
    from bellica.engine.vae_victis.order_aids import mp_overrun

    out = []
    live = {a.id for a in r.live_armies()}
    for army, o in sorted(orders.items()):
        if army not in live:
            continue  # no army of this round: the rules refuse its orders, in their words
        a = r.state.army(army)
        p = mp_overrun(c.board, r.state, army, tuple(o.moves), logistics_road_edges=own_logistics(c, r.state, a.faction))
        if p is not None:
            out.append(p)
    return out


def initiative_checked(c, faction: str | None, uses: Mapping[int, str], source: str, r=None) -> dict[int, str]:
    """``uses`` ({army: use}) checked as :func:`rounds.submit_initiative` checks them (the step, each
    name by the one matcher, legality), nothing stored; raises the engine's OrderError / InputError."""
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.order_names import spelled_orders
    from bellica.engine.vae_victis.orders import IllegalOrderError
    from bellica.engine.vae_victis.rounds.machine import read_round, require
    from bellica.engine.vae_victis.rounds.orders_step import row_to_orders, validate

    r = read_round(c) if r is None else r
    require(c, r, "initiative")
    stored = r.orders_rows()
    orders = {army: replace(row_to_orders(stored[army]) if army in stored else ArmyOrders(army=army),
                            initiative=str(use).strip()) for army, use in uses.items()}
    orders, problems = spelled_orders(c.board, orders)
    if problems:
        raise IllegalOrderError(problems, source)
    validate(c, r, faction, orders, source)
    return dict(uses)


def check_warnings(c, r, orders) -> tuple[list, list[str]]:
    """(problems, warnings) the move preview adds to the check of legal ``orders``: a land move past
    the army's MP is refused; a navy ending on a Sea hex, a move halted, is warned of."""
    from bellica.engine.vae_victis.order_aids import preview_move

    problems, warnings = [], []
    for army, o in sorted(orders.items()):
        if not o.moves:
            continue
        a = r.state.army(army)
        p = preview_move(c.board, r.state, army, tuple(o.moves), logistics_road_edges=own_logistics(c, r.state, a.faction),
                         reach=False)
        if p.refused is not None:
            problems.append(p.refused)
        warnings += [f"army {army}: {w}" for w in p.warnings if not w.startswith("an engagement")]
    return problems, warnings


def _position_problems(c, r, faction: str | None, submitted_by: str, orders, source: str,
                       warnings: list[str]) -> list:
    """The problems the position finds in the armies whose orders parse (so every problem shows at
    once), then the move preview's verdict on the legal ones (its warnings into ``warnings``)."""
    from bellica.engine.vae_victis.orders import OrderError, OrderProblem
    from bellica.engine.vae_victis.rounds.orders_step import order_events
    from bellica.geo.errors import InputError

    problems: list = []
    try:
        order_events(c, r, orders, faction=faction, submitted_by=submitted_by, source=source)
    except OrderError as err:
        problems += list(err.problems)
    except InputError as err:
        problems.append(OrderProblem(None, "file", str(err)))
    bad = {p.army for p in problems}
    live = {a.id for a in r.live_armies()}
    more, said = check_warnings(c, r, {a: o for a, o in orders.items() if a not in bad and a in live})
    warnings += said
    return problems + more


def check_given(c, faction: str | None, submitted_by: str, orders, problems: list, source: str,
                warnings: list[str], round_: int | None = None) -> list:
    """Every problem of ``orders`` (and the syntax ``problems`` already found) as the engine sees
    them now, nothing stored: the same checks as a submission (the step, the round, the mode, the
    deadline, legality with the faction's stored orders), and the move preview's refusal of a move
    past the army's MP; its warnings go into ``warnings`` (a navy ending on a Sea hex, a halt)."""
    from bellica.engine.vae_victis.orders import OrderError, OrderProblem
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.orders_step import refuse_orders_now
    from bellica.geo.errors import InputError

    r = read_round(c)
    try:
        refuse_orders_now(c, r, round_, source, None,
                          commit_fix="commit the digest of your orders file and reveal it later (the forms on your page)")
        if not orders and not problems:
            raise InputError(f"{source} gives no orders: give at least one army's moves")
        return list(problems) + (_position_problems(c, r, faction, submitted_by, orders, source, warnings)
                                 if orders else [])
    except OrderError as err:
        return list(err.problems)
    except InputError as err:
        return [OrderProblem(None, "file", str(err))]


def own_choices(c, faction: str, commands: Commands, every_army: bool, choices):
    """``choices`` as ``faction``'s submission: refused (InputError) when they name an army of the
    faction the signer does not command; a signer commanding some of its armies (not
    ``every_army``) keeps what the faction chose before for the others (a faction's choices are one
    submission, the last counts: one player never drops another's)."""
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.player_choices import faction_choices
    from bellica.geo.errors import InputError

    armies = {a.id: a for a in read_round(c).state.armies}
    named = sorted(set(choices.advances) | set(choices.debarks) | set(choices.siege_starts))
    theirs = [a for a in named if a in armies and armies[a].faction == faction and not commands(armies[a])]
    if theirs:
        raise InputError(f"the choices form: army {theirs[0]} is not one you command: choose for your own armies only")
    before = faction_choices(c).get(faction)
    if every_army or before is None:
        return choices

    def field(name: str) -> dict:
        kept = {a: v for a, v in getattr(before[0], name).items() if a in armies and not commands(armies[a])}
        return {**kept, **getattr(choices, name)}
    return replace(choices, advances=field("advances"), debarks=field("debarks"), siege_starts=field("siege_starts"))


def revealed_orders(c, faction: str, text: str) -> dict:
    """The orders of a commit-reveal reveal form's ``text`` (the orders file committed to), by army;
    refused (InputError) when the file is another faction's or another round's."""
    from bellica.engine.vae_victis.orders import parse_orders_text
    from bellica.geo.errors import InputError

    parsed = parse_orders_text(text, "the reveal form")
    if parsed.faction is not None and c.faction(parsed.faction, where="the reveal form's faction") != faction:
        raise InputError(f"the reveal form's orders are for {parsed.faction!r}, not {faction!r}")
    if parsed.round is not None and parsed.round != int(c.snapshot().campaign("round")):
        raise InputError(f"the reveal form's orders are for round {parsed.round}, not the campaign's")
    return dict(parsed.orders)
