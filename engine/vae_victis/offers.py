"""The values a page offers in Vae Victis II's steps (:meth:`VaeVictisII.choices`, ``field_offers``).

A page draws one form per declared step (bellica/app/step_forms.py) and asks the ruleset what to
offer in each field: here the round's engagements and their armies for ``result``, and the winners and
the navies at sea for an administration's advances and debarkations.  Only a help: the step itself still checks what is posted.

The umpire is offered values only through :func:`offered`.  Everything offered there is public once
movement has run (the engagements, who fights whom, the results), so the offer gives away nothing
the umpire's page does not show anyway.

A player is offered one field per army it commands (:func:`field_offers`): the initiative uses
its army may give (``initiative``), its moves and sea links (``orders``, its own stored ones
filled in; the sea links its faction may order now suggested), and its own administration choices (``choose``: where a navy
may debark, where a winner may advance, which structure an army may besiege; a box per structure
it may surrender or whose siege it may take over), each with the value its faction gave already;
and a box per army it commands in an engagement not yet fought (``retreat``).
Only the signer's own armies and its own faction's earlier values are read: nothing of another
faction's beyond what its player view shows (the map's armies and structures).  Hexes are named
by their H3 cells; the page names them as its map does.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["field_offers", "form_note", "offered"]


def _fighting(r) -> list[int]:
    """The armies of this round's engagements, in order."""
    return sorted({a for row in r.engagement_rows() for a in (row[3], row[4]) if a is not None})


def _winners(r) -> list[int]:
    return sorted(army for row in r.engagement_rows() for army, res in r.results_for(row[2]).items()
                  if res[3] == "win")


def _battles_offer(r, step: str, param: str) -> Sequence[str] | None:
    rows = r.engagement_rows()
    if step == "result" and param == "engagement":
        awaiting = [row[2] for row in rows if not r.results_for(row[2])]
        return tuple(str(n) for n in (awaiting or [row[2] for row in rows]))  # all of them: a correction
    if step == "result" and param == "winner":
        defended = any(row[4] is None for row in rows)  # an assault: its defender may win
        return tuple(str(a) for a in _fighting(r)) + (("defender",) if defended else ())
    if step == "result" and param == "casualties":
        return tuple(f"{a}=PCT" for a in _fighting(r))
    if step == "administer" and param == "advances":
        return tuple(f"{a}=HEX" for a in _winners(r))
    return None


def _at_sea(campaign) -> tuple[str, ...]:
    """The navies at sea, of every faction, each ``NAVY=HEX`` (the hex its army debarks into)."""
    try:
        rows = campaign.con.execute("SELECT army FROM navies ORDER BY army").fetchall()
    except Exception:  # a campaign without the naval views (built at the start): none to offer
        return ()
    return tuple(f"{int(army)}=HEX" for (army,) in rows)


def offered(campaign, viewer: str | None, step: str, param: str) -> Sequence[str] | None:
    """What a page offers the umpire (``viewer`` None) for ``param`` of ``step`` now, or None (any text)."""
    from bellica.engine.vae_victis.rounds.machine import read_round

    if viewer is not None or step not in ("result", "administer"):
        return None
    r = read_round(campaign)
    if r.phase != "battles":
        return None
    if step == "administer" and param == "debarks":
        return _at_sea(campaign)
    return _battles_offer(r, step, param)


# --- a player's fields, one per army it commands -------------------------------------------------


def field_offers(campaign, signer, step: str, param: str):
    """The fields a page draws for ``param`` of ``step`` for ``signer`` (a player), or None: the
    parameter as a whole (the umpire's, and every other step's)."""
    from bellica.engine.vae_victis.rounds.machine import read_round

    if signer is None or signer.role != "player" or (step, param) not in _PLAYER_FIELDS:
        return None
    r = read_round(campaign)
    mine = [a for a in r.live_armies() if signer.commands(a.faction, a.id)]
    return _PLAYER_FIELDS[(step, param)](campaign, r, signer.faction, mine)


def _use_words(use: str) -> str:
    return "strength (+FP in its engagements)" if use == "strength" else f"influence in {use}"


def _initiative_fields(campaign, r, faction: str, mine) -> tuple:
    """One select per army: the uses its faction may give now, its own use given so far (else strength)."""
    from bellica.engine.core.steps import FieldOffer
    from bellica.engine.vae_victis.order_aids import initiative_uses
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE
    from bellica.engine.vae_victis.rounds.orders_step import row_to_orders

    if r.stage != STAGE_INITIATIVE:
        return ()
    uses = initiative_uses(campaign.board, r.state, faction)
    stored = r.orders_rows()
    out = []
    for a in mine:
        given = row_to_orders(stored[a.id]).initiative if a.id in stored else None
        out.append(FieldOffer(str(a.id), f"initiative of army {a.id} (strength {a.strength}; at {a.cell})",
                              tuple((u, _use_words(u)) for u in uses), given or "strength"))
    return tuple(out)


def _choice_options(campaign, r, faction: str, mine):
    """What the rules let ``faction``'s armies ``mine`` choose now (order_aids.choice_options), kept
    with the board for this round's state (a page asks once per field)."""
    from bellica.engine.vae_victis.order_aids import choice_options
    from bellica.engine.vae_victis.rounds.player_choices import results_so_far

    key = ("offers.choices", faction, tuple(a.id for a in mine))
    kept = campaign.board.derived.get(key)
    if kept is None or kept[0] is not r.state:
        beaten, lost = results_so_far(r)
        kept = campaign.board.derived[key] = (r.state, choice_options(campaign.board, r.state, faction, beaten,
                                                                      [a.id for a in mine], lost))
    return kept[1]


def _given_choices(campaign, faction: str):
    """The faction's own last administration choices (its own to read), or None."""
    from bellica.engine.vae_victis.rounds.player_choices import faction_choices

    own = faction_choices(campaign).get(faction)
    return None if own is None else own[0]


def _clock_fields(campaign, r, faction, mine, kind: str) -> tuple:
    from bellica.engine.core.steps import FieldOffer

    if r.phase != "battles":
        return ()
    opts = getattr(_choice_options(campaign, r, faction, mine), kind)
    given = _given_choices(campaign, faction)
    chosen = getattr(given, kind) if given is not None else {}
    cells = {a.id: a.cell for a in mine}
    label, none = (("navy {} debarks (administration step 3)", "stays at sea") if kind == "debarks"
                   else ("army {}, a winner, advances", "stays where it is"))
    return tuple(FieldOffer(str(army), label.format(army),
                            tuple((str(k), f"clock {k}: {campaign.board.sides[cells[army]][k]}") for k in clocks),
                            str(chosen.get(army, "")), none)
                 for army, clocks in sorted(opts.items()))


def _siege_fields(campaign, r, faction, mine) -> tuple:
    from bellica.engine.core.steps import FieldOffer

    if r.phase != "battles":
        return ()
    given = _given_choices(campaign, faction)
    chosen = given.siege_starts if given is not None else {}
    return tuple(FieldOffer(str(army), f"army {army} starts (or joins) a siege of", tuple((n, n) for n in names),
                            str(chosen.get(army, "")), "no siege")
                 for army, names in sorted(_choice_options(campaign, r, faction, mine).sieges.items()))


def _structure_boxes(kind: str, words: str):
    def boxes(campaign, r, faction, mine) -> tuple:
        from bellica.engine.core.steps import FieldOffer

        if r.phase != "battles":
            return ()
        given = _given_choices(campaign, faction)
        ticked = set(getattr(given, kind)) if given is not None else set()
        return tuple(FieldOffer(n, words.format(n), value="on" if n in ticked else "")
                     for n in getattr(_choice_options(campaign, r, faction, mine), kind))
    return boxes


def _retreat_boxes(campaign, r, faction, mine) -> tuple:
    """A box per army the signer commands in an engagement of this round, until any is fought (a
    retreat is declared before the battles; the engagements and their armies are public by then)."""
    from bellica.engine.core.steps import FieldOffer

    rows = r.engagement_rows()
    if r.phase != "battles" or any(r.results_for(row[2]) for row in rows):
        return ()
    fighting = set(_fighting(r))
    return tuple(FieldOffer(str(a.id), f"army {a.id} retreats rather than fight") for a in mine if a.id in fighting)


def _moving(campaign, r) -> bool:
    """Whether the round takes moves from a page now: the orders phase past publication, not
    locked by the reveal, orders in sealed mode (commit-reveal's come by the commit and the reveal)."""
    from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE
    from bellica.engine.vae_victis.rounds.reveal import COMMIT_REVEAL, is_locked, orders_mode

    return r.phase == "orders" and r.stage != STAGE_INITIATIVE and not is_locked(r) and orders_mode(r.snap) != COMMIT_REVEAL


def _own_orders(campaign, r, mine) -> dict:
    """{army: (its stored orders, who gave them)} of the signer's own armies whose moves are in
    (sealed from everyone else; its own faction's to read)."""
    from bellica.engine.vae_victis.rounds.orders_step import order_submitters, row_to_orders

    by = order_submitters(campaign)
    stored = r.orders_rows()
    return {a.id: (row_to_orders(stored[a.id]), by[a.id]) for a in mine if a.id in by and a.id in stored}


def _moves_fields(campaign, r, faction: str, mine) -> tuple:
    """A text field per army: its moves (clock positions), its own stored ones if in."""
    from bellica.engine.core.steps import FieldOffer

    if not _moving(campaign, r):
        return ()
    own = _own_orders(campaign, r, mine)
    out = []
    for a in mine:
        o, by = own.get(a.id, (None, None))
        state = f"in from {by} (sealed)" if o is not None else "no orders yet"
        out.append(FieldOffer(str(a.id), f"moves of army {a.id} (strength {a.strength}; at {a.cell}; {state})",
                              value=" ".join(map(str, o.moves)) if o is not None else ""))
    return tuple(out)


def _sea_fields(campaign, r, faction: str, mine) -> tuple:
    """A text field per army: its sea links, the ones its faction may order now suggested."""
    from bellica.engine.core.steps import FieldOffer
    from bellica.engine.vae_victis.order_aids import sea_link_targets

    if not _moving(campaign, r):
        return ()
    own = _own_orders(campaign, r, mine)
    links = tuple(sea_link_targets(campaign.board, r.state, faction))
    return tuple(FieldOffer(str(a.id), f"sea links of army {a.id}",
                            value="; ".join(f"{z}:{s}" for z, s in own[a.id][0].sea_links) if a.id in own else "",
                            suggested=links) for a in mine)


def commit_reveal_open(campaign, step: str, viewer: str | None) -> bool:
    """Whether ``step`` (``commit`` or ``reveal-orders``) is open now in a commit-reveal round: the
    commitments until the reveal window opens, then each faction's reveal until it has revealed."""
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.reveal import COMMIT_REVEAL, REVEAL_NOTE, REVEALS_NOTE, is_locked, orders_mode

    r = read_round(campaign)
    if orders_mode(r.snap) != COMMIT_REVEAL or is_locked(r):
        return False
    window = r.note(REVEAL_NOTE) is not None
    if step == "commit":
        return not window
    return window and viewer not in (r.note(REVEALS_NOTE) or {})


def _commit_fields(campaign, r, faction: str, mine) -> tuple:
    """A move field per army, for the browser to make the commitment from (never posted)."""
    from bellica.engine.core.steps import FieldOffer

    return tuple(FieldOffer(str(a.id), f"moves of army {a.id} (clock positions, empty stands still; at {a.cell})")
                 for a in mine)


_PLAYER_FIELDS = {
    ("commit", "moves"): _commit_fields,
    ("orders", "moves"): _moves_fields,
    ("orders", "sea"): _sea_fields,
    ("retreat", "army"): _retreat_boxes,
    ("initiative", "uses"): _initiative_fields,
    ("choose", "debarks"): lambda c, r, f, mine: _clock_fields(c, r, f, mine, "debarks"),
    ("choose", "advances"): lambda c, r, f, mine: _clock_fields(c, r, f, mine, "advances"),
    ("choose", "sieges"): _siege_fields,
    ("choose", "surrenders"): _structure_boxes("surrenders", "surrender {} to its besieger"),
    ("choose", "take_overs"): _structure_boxes("take_overs", "take over the siege of {}"),
}


def form_note(campaign, signer, step: str) -> str:
    """Where a player's orders or administration choices stand (given, by whom; never what another gave)."""
    from bellica.engine.vae_victis.rounds.player_choices import choosers

    if signer is None or signer.role != "player":
        return ""
    if step in ("commit", "reveal-orders"):
        return _commit_note(campaign, signer, step)
    if step == "initiative":
        return ("Only the initiative uses are taken now (step 1.1, sealed until publication; a new choice replaces "
                "your earlier one until then); moves and sea links are given after the umpire publishes naval "
                "superiority. A sea zone is offered where your faction may assign influence.")
    if step == "orders":
        return ("Your orders are sealed: no other faction, nor the umpire, reads them before the reveal (every "
                "army's orders in, or the deadline); a new submission replaces your earlier one until then. An "
                "empty move field stands still; plot a move by clicking the hexes next to the army on the map.")
    if step != "choose":
        return ""
    by = choosers(campaign).get(signer.faction)
    state = (f"given{f' by {by}' if by != signer.faction else ''} (sealed until administration); "
             "you may change them until the umpire runs administration") if by is not None else "not given yet"
    return f"your choices: {state}. Yours stand for your armies in place of the umpire's."


def _commit_note(campaign, signer, step: str) -> str:
    """Where the signer's faction stands in a commit-reveal round (its own commitment, never another's)."""
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.reveal import COMMITMENTS_NOTE

    mine = (read_round(campaign).note(COMMITMENTS_NOTE) or {}).get(signer.faction)
    state = f"{signer.faction} has committed (digest {mine[:16]}...)" if mine else f"{signer.faction} has not committed"
    if step == "reveal-orders":
        return (f"{state}; the reveal window is open: give the orders file you committed to, exactly, and its secret "
                "(filled in from this browser when it made the digest).")
    return (f"{state}. This campaign takes orders in commit-reveal mode: the server never holds your orders before "
            "the reveal. Give your moves and a secret and press \u201cmake the digest\u201d: this page makes your orders "
            "file and its digest in your browser, and keeps the file and the secret in it for the reveal; only the "
            "digest is sent when you commit (a digest made elsewhere may be pasted too).")
