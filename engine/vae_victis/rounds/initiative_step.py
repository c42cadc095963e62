"""Steps 1.1 and 1.2: initiative uses (sealed), then their publication with naval superiority."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from bellica.engine.vae_victis.model import ArmyOrders, Board, Event
from bellica.engine.vae_victis.rounds.machine import STAGE_INITIATIVE, STAGE_MOVES, event, names, read_round, require
from bellica.engine.vae_victis.rounds.orders_step import orders_data, row_to_orders, validate, who
from bellica.engine.vae_victis.rounds.reveal import reveal_if_complete
from bellica.engine.vae_victis.state import save_state
from bellica.geo.errors import InputError

__all__ = ["submit_initiative", "naval_superiority", "publish_initiative"]


def submit_initiative(campaign, uses: Mapping[int, str], *, faction: str | None = None, submitted_by: str | None = None,
                      source: str = "the command line") -> list[Event]:
    """Step 1.1: store initiative uses (``"strength"`` or a sea-zone name) for some armies, sealed
    (from everyone, the umpire included) until publication.

    Allowed until :func:`publish_initiative`; a second submission for an army replaces the first.
    ``submitted_by`` is recorded in each event (left out: the faction, else "umpire"; "": a log
    written before submitters were recorded, re-adjudication only).
    """
    by = who(faction, submitted_by)
    if not uses:
        raise InputError("no initiative uses given: pass ARMY=USE items, e.g. 9=strength or \"10=Mare Tyrrhenum\"")
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "initiative")
        stored = r.orders_rows()
        orders = {}
        for army, use in sorted(uses.items()):
            base = row_to_orders(stored[army]) if army in stored else ArmyOrders(army=army)
            orders[army] = replace(base, initiative=use.strip())
        from bellica.engine.vae_victis.order_names import spelled_orders
        from bellica.engine.vae_victis.orders import IllegalOrderError

        orders, problems = spelled_orders(campaign.board, orders)  # every typed name by the one matcher
        if problems:
            raise IllegalOrderError(problems, source)
        validate(campaign, r, faction, orders, source)
        events = []
        for army, o in orders.items():
            moves_given = army in stored and stored[army][2] is not None
            data = orders_data(r.round, o, moves_given=moves_given, source="initiative")
            if by:
                data["submitted_by"] = by
            events.append(event(r.round, "orders", "put_orders", data,
                                f"initiative received for army {army}" + (f" from {by}" if by else "")))
        campaign.append(events, before=r.snap)
    return events


def naval_superiority(board: Board, initiative: Mapping[int, str], army_faction: Mapping[int, str]) -> dict[str, dict[str, int]]:
    """{zone: {faction: level}}: base + own Influence points - the highest other faction's, floored at 0.

    Seed, "Naval superiority" (the base is ``board.rules.naval.superiority_base``).  Every
    faction of the board gets a level in every sea zone.
    """
    base = board.rules.naval.superiority_base
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    points: dict[tuple[str, str], int] = {}
    for army, use in initiative.items():
        if use and use != "strength":
            key = (use, army_faction[army])
            points[key] = points.get(key, 0) + 1
    out = {}
    for zone in zones:
        levels = {}
        for f in sorted(board.factions):
            others = max((points.get((zone, g), 0) for g in board.factions if g != f), default=0)
            levels[f] = max(0, base + points.get((zone, f), 0) - others)
        out[zone] = levels
    return out


def publish_initiative(campaign) -> list[Event]:
    """Step 1.2: open every army's initiative use (no use given = "strength", the seed's default)
    and publish each faction's naval superiority per sea zone; movement orders come next."""
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "publish")
        board: Board = campaign.board
        bonus = f"+{board.rules.battles.initiative_fp} FP in its engagements"
        stored = r.orders_rows()
        events: list[Event] = []
        uses: dict[int, str] = {}
        for a in r.live_armies():
            row = stored.get(a.id)
            if row is None or row[3] is None:
                o = ArmyOrders(army=a.id)
                events.append(
                    event(r.round, "orders", "put_orders", orders_data(r.round, o, moves_given=False, source="default"),
                          f"army {a.id} ({a.faction}) gave no initiative use: {bonus} (the default)")
                )
                uses[a.id] = "strength"
            else:
                uses[a.id] = row[3]
        for a in r.live_armies():
            use = uses[a.id]
            text = f"army {a.id} ({a.faction}) initiative: " + (bonus if use == "strength" else f"influence in {use}")
            events.append(event(r.round, "orders", "initiative_published", {"army": a.id, "faction": a.faction, "use": use}, text))
        levels = naval_superiority(board, uses, {a.id: a.faction for a in r.state.armies})
        for zone, by_faction in levels.items():
            text = f"naval superiority in {zone}: " + ", ".join(f"{f} {v}" for f, v in by_faction.items())
            events.append(event(r.round, "orders", "naval_superiority", {"zone": zone, "levels": by_faction}, text))
        events.append(event(r.round, "orders", "put_note", {"round": r.round, "key": "naval_superiority", "value": levels}))
        events.append(event(r.round, "orders", "set_campaign", {"key": "stage", "value": STAGE_MOVES, "was": STAGE_INITIATIVE}))
        campaign.append(events, before=r.snap)
        # The levels in force for the round (the naval_superiority table the SQL and the naval rules read).
        save_state(campaign, replace(r.state, superiority=levels), phase="orders", names=names(campaign))
        # Every army's orders came in before publication: the reveal comes now, not earlier, so
        # the initiative uses keep their own opening at publication.
        events += reveal_if_complete(campaign, campaign.snapshot())
    return events
