"""Phase 4, administration: the nine administration steps with the umpire's and players' choices."""

from __future__ import annotations

from dataclasses import replace

from tabula.engine.vae_victis.model import Board, CampaignState, Event, Phase
from tabula.engine.vae_victis.rounds.battles_step import engagements_and_results
from tabula.engine.vae_victis.rounds.choices import AdminChoices
from tabula.engine.vae_victis.rounds.machine import StepRefused, event, names, read_round, require
from tabula.engine.vae_victis.rounds.orders_step import row_to_orders
from tabula.engine.vae_victis.state import save_state
from tabula.geo.errors import InputError

__all__ = ["resolve_advance", "run_administration"]


def resolve_advance(board: Board, state: CampaignState, army: int, target: str | int) -> str:
    """A clock position, structure name or H3 cell -> the cell the winner advances into."""
    try:
        a = state.army(army)
    except KeyError:
        raise InputError(f"advance: there is no army {army}") from None
    if a.cell is None:
        raise InputError(f"advance: army {army} is not on the map")
    if isinstance(target, int) or (isinstance(target, str) and target.strip().isdigit()):
        clock = int(target)
        sides = board.sides.get(a.cell, {})
        if clock not in sides:
            raise InputError(
                f"advance: army {army} in hex {a.cell} has no side at clock {clock}; valid: {' '.join(map(str, sorted(sides)))}"
            )
        return sides[clock]
    if target in board.structures:
        return board.structures[target].cell
    if target in board.hexes:
        return target
    raise InputError(f"advance: {target!r} (army {army}) is neither a clock position, a structure nor a hex of the map")


def run_administration(campaign, choices: AdminChoices | None = None) -> list[Event]:
    """Phase 4: the nine administration steps (:func:`engine.vae_victis.administration.administer`).

    Refused until every engagement of the round has a result.  The choices are recorded
    (note ``administration_choices``) with the changes they led to.
    """
    from tabula.engine.vae_victis.administration import AdminInputs, administer

    choices = choices or AdminChoices()
    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "administer")
        pending = [row[2] for row in r.engagement_rows()
                   if sorted(r.results_for(row[2])) != sorted(a for a in (row[3], row[4]) if a is not None)]
        if pending:
            raise StepRefused(
                f"cannot run administration: engagement{'s' if len(pending) > 1 else ''} {', '.join(map(str, pending))} "
                f"ha{'ve' if len(pending) > 1 else 's'} no result; record {'them' if len(pending) > 1 else 'it'} with `tabula round result`"
            )
        board: Board = campaign.board
        engagements, results = engagements_and_results(r)
        orders = {a: row_to_orders(row) for a, row in r.orders_rows().items()}
        movement = r.note("movement") or {"paths": {}}
        retreats = r.note("retreats") or {"pairs": []}
        inputs = AdminInputs(
            start_state=r.start_state(),
            engagements=engagements,
            results=results,
            retreats=tuple(tuple(p) for p in retreats["pairs"]),
            paths={int(k): tuple(v) for k, v in movement["paths"].items()},
            advances={a: resolve_advance(board, r.state, a, t) for a, t in sorted(choices.advances.items())},
            siege_starts=dict(choices.siege_starts),
            lifts=frozenset(a for a, o in orders.items() if o.lift_siege),
            take_overs=frozenset(choices.take_overs),
            surrenders=frozenset(choices.surrenders),
            transfers={a: tuple(o.transfers) for a, o in orders.items() if o.transfers},
        )
        result = administer(board, r.state, inputs)
        done = replace(result.state, phase=Phase.VICTORY)
        note = event(r.round, "administration", "put_note", {"round": r.round, "key": "administration_choices", "value": choices.to_json()})
        campaign.append([note], before=r.snap)
        save_state(campaign, done, events=result.events, phase="administration", names=names(campaign))
    return [note] + list(result.events)
