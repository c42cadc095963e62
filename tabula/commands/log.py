"""`tabula log`: the campaign's event log in words."""

from __future__ import annotations

from pathlib import Path

import click


@click.command(name="log")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--round", "round_", type=int, default=None, help="Only this round's events.")
@click.option("--faction", default=None, help="Show the log as this faction may read it (other factions' sealed orders hidden).")
@click.option("--changes/--all", "changes_only", default=False, help="Only the state changes (moves, strength, control, sieges, VP), not the rules' explanations.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per event (seq, round, phase, kind, data, text).")
def command(campaign: Path, round_: int | None, faction: str | None, changes_only: bool, as_json: bool) -> None:
    """Print the event log, oldest first: every state change and why.

    Example: tabula log campaign.duckdb --round 2 --faction Roma
    """
    import json

    from tabula.engine.core import state

    from tabula.engine.vae_victis import explain
    from tabula.geo.errors import InputError
    from tabula.commands.round import open_campaign

    with open_campaign(campaign, read_only=True) as con:
        if not state.has_state(con):
            raise InputError(f"{campaign} has no event log yet: start the campaign with `tabula round start {campaign}`")
        snap = state.read_snapshot(con)
        army_faction = {a: f for (a, f, *_rest) in snap.rows("armies")}
        if faction is not None:
            factions = sorted({f for (f, _vp) in snap.rows("victory_points")})
            if faction not in factions:
                raise click.BadParameter(f"{faction!r} is not a faction of this campaign: use one of {', '.join(factions)}", param_hint="--faction")
        current = dict(
            round=int(snap.campaign("round")), phase=snap.campaign("phase"), stage=snap.campaign("stage")
        )
        events = state.load_events(con, round=round_)
    for ev in events:
        if changes_only and ev.kind not in state.STATE_KINDS:
            continue
        if changes_only and ev.kind in ("put_note",):
            continue
        sealed = explain.sealed_for(faction, ev.kind, ev.data, army_faction=army_faction, **current)
        text = explain.sealed_text(ev.data) if sealed else (ev.text or ev.kind)
        if as_json:
            data = {"army": ev.data["army"], "round": ev.data["round"], "sealed": True} if sealed else ev.data
            click.echo(json.dumps({"seq": ev.seq, "round": ev.round, "phase": ev.phase, "kind": ev.kind, "data": data, "text": text}, sort_keys=True))
        else:
            click.echo(f"{ev.seq:>5}  R{ev.round} {ev.phase:<14} {text}")
