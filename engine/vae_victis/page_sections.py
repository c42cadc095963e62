"""What a Vae Victis II page shows besides the status, the forms, the map and the log
(:meth:`VaeVictisII.page_sections`): the round's engagements in the battles phase, the orders as
the viewer may read them once they are no longer taken, and for the umpire who has submitted
orders and administration choices (never what).

Each is read as the viewer may read it: a faction's orders before the reveal only its own (as
:func:`.rounds.orders_view` shows them to it), everyone's after; the umpire's tables name who
gave what, never what was given.  Hexes are named by H3 cell; the page names them as its map does.
"""

from __future__ import annotations

from bellica.engine.core.steps import PageSection

__all__ = ["page_sections"]


def page_sections(c, viewer: str | None) -> list[PageSection]:
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.reveal import is_locked

    status = rounds.round_status(c)
    r = read_round(c)
    out = []
    if status.deadline:  # the round's deadline, shown in UTC and in the viewer's own zone
        out.append(PageSection("deadline", "Deadline" + (" (passed)" if status.deadline_passed else ""),
                               when=status.deadline))
    if viewer is None:
        out += _submitted(c, status)
    elif status.phase != "orders" or is_locked(r):  # orders are taken no more: as the viewer may read them
        out.append(_revealed(c, viewer, status))
    out += _battles(r)
    if viewer is None and r.phase == "battles":
        out.append(_choosers(c, r))
    return out


def _orders_text(o) -> tuple[str, str, str]:
    return (" ".join(map(str, o.moves)), o.initiative or "strength", "; ".join(f"{z}:{s}" for z, s in o.sea_links))


def _revealed(c, faction: str, status) -> PageSection:
    """The orders as ``faction`` may read them: :func:`.rounds.orders_view` decides (its own, and
    another's only what the seal has opened); a sealed army's orders show as "-"."""
    from bellica.engine.vae_victis import rounds

    rows = []
    for army, fac, o in sorted(rounds.orders_view(c, faction=faction), key=lambda x: x[0]):
        moves, use, sea = _orders_text(o) if o is not None else ("-", "", "")
        rows.append((str(army), fac, moves, use, sea))
    note = ("the orders are revealed and locked" if status.phase == "orders"
            else f"phase {status.phase}: no orders are taken now")
    return PageSection("revealed", "Orders", (("locked", note),), ("army", "faction", "moves", "initiative", "sea links"),
                       tuple(rows))


def _battles(r) -> list[PageSection]:
    """The round's engagements with their set-up and result."""
    if r.phase != "battles":
        return []
    rows = r.engagement_rows()
    if not rows:
        return [PageSection("engagements", "Engagements", (("no-engagements", "no engagements this round"),))]
    setups = r.note("setups") or {}
    lines = []
    for row in rows:
        number = row[2]
        done = "; ".join(f"army {a} {res[3]}, {res[4]}% casualties" for a, res in sorted(r.results_for(number).items()))
        lines.append((f"engagement-{number}", f"{setups.get(str(number), f'engagement {number}')} result: "
                                              f"{done or 'awaiting'}"))
    return [PageSection("engagements", "Engagements", tuple(lines))]


def _submitted(c, status) -> list[PageSection]:
    """Who has submitted which armies' orders (never what), in the orders phase."""
    from bellica.engine.core.players import seats
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.steps import status_data

    data = status_data(status, campaign=c)
    if data["orders"] is None:
        return []
    submitters = rounds.order_submitters(c)
    orders = data["orders"]
    bots = seats(c.con)  # a seat an engine player holds is marked (`bellica round bots` gives its orders)
    rows = tuple((f + (f" (bot: {bots[f]})" if f in bots else ""), ", ".join(map(str, orders["submitted"][f])) or "-",
                  ", ".join(map(str, orders["missing"][f])) or "-",
                  ", ".join(sorted({str(submitters.get(a)) for a in orders["submitted"][f]})) or "-")
                 for f in orders["submitted"])
    return [PageSection("submitted", "Orders (who, never what, until the reveal)", (),
                        ("faction", "armies in", "armies missing", "submitted by"), rows)]


def _choosers(c, r) -> PageSection:
    """Who has given a faction's own administration choices (never what): they stand for its armies."""
    from bellica.engine.vae_victis.rounds.player_choices import choosers

    by = choosers(c)
    rows = tuple((f, f"given by {by[f]} (sealed until administration): they stand for its armies" if f in by
                  else "not given: your choices below stand for its armies")
                 for f in sorted({a.faction for a in r.live_armies()}))
    return PageSection("choosers", "Players' administration choices (who, never what)", (), ("faction", "choices"), rows)
