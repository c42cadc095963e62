"""Commands that check any campaign file, whatever its ruleset: ``bellica round verify``.

They join a ruleset's command group (:data:`bellica.commands.play.EXTRA_COMMANDS`) and know no
ruleset: the campaign's own ruleset replays its log and re-runs its recorded steps.
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.campaigns import open_campaign

__all__ = ["verify"]


@click.command("verify")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--readjudicate", is_flag=True, help="Also re-run every recorded step from the scenario on a copy and compare the logs.")
def verify(campaign: Path, readjudicate: bool) -> None:
    """Check the event log's hash chain, replay the log from the scenario and compare it with every state table.

    A damaged log or table is one `error:` line naming the first bad event or row (exit 4).
    The head hash printed can be noted down: a later verify showing the same head proves the
    log was not rewritten since (docs/campaign-file.md).

    Example: bellica round verify punic.duckdb --readjudicate
    """
    from bellica.engine.core.readjudicate import readjudicate as readjudicate_log

    with open_campaign(campaign, read_only=True, started=True) as c:  # nothing to verify before the start: exit 3
        c.verify()
        n = len(c.events())
        head = c.log_head()
    chain = (f"hash chain intact (head {head})" if head else
             "no hash chain yet (written before bellica hashed its log; the next step adds it)")
    click.echo(f"{campaign}: {n} events replay to the stored state exactly; {chain}")
    if readjudicate:
        steps = readjudicate_log(campaign)
        click.echo(f"{campaign}: {steps} recorded steps re-adjudicated from the scenario give the same {n} events")
