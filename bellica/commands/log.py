"""`bellica log`: the campaign's event log in words."""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.options import WHOLE


@click.command(name="log")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--round", "round_", type=WHOLE, default=None, help="Only this round's events.")
@click.option("--faction", default=None, help="Show the log as this faction may read it (others' orders sealed until the reveal; the umpire's view seals them too).")
@click.option("--changes/--all", "changes_only", default=False, help="Only the state changes (moves, strength, control, sieges, VP), not the rules' explanations.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per event (seq, round, phase, kind, data, text).")
def command(campaign: Path, round_: int | None, faction: str | None, changes_only: bool, as_json: bool) -> None:
    """Print the event log, oldest first: every state change and why.

    Orders not yet revealed show only who submitted them, for every viewer the umpire included
    (docs/sealed-orders.md); a faction reads its own.

    Example: bellica log punic.duckdb --round 2 --faction Roma
    """
    import json

    from bellica.commands.campaigns import open_campaign, resolve_faction
    from bellica.engine.core.sealed import log_view

    with open_campaign(campaign, read_only=True, started=True) as c:  # no log before the start: exit 3
        faction = c.viewer = resolve_faction(c, faction)
        state_kinds = c.ruleset.schema.state_kinds
        lines = log_view(c, viewer=faction, round=round_)
    for line in lines:
        ev = line.event
        if changes_only and (ev.kind not in state_kinds or ev.kind == "put_note"):
            continue
        if as_json:
            click.echo(json.dumps({"seq": ev.seq, "round": ev.round, "phase": ev.phase, "kind": ev.kind, "data": line.data, "text": line.text}, sort_keys=True))
        else:
            click.echo(f"{ev.seq:>5}  R{ev.round} {ev.phase:<14} {line.text}")
