"""`tabula turn ...`: play Rome in a Rise of Rome campaign, one decision per command.

The engine plays the eight other powers and the external armies; ``turn next`` runs its
phases until Rome must decide (its attack, its spending, the result of a battle played on
the table), and ``turn status`` says where the turn stands and what Rome may do.  Each
command is one or more steps of the campaign core (one transaction each); a step out of
order is refused with the command that comes next (exit 3), a bad input is one line
(exit 1).  ``tabula round verify --readjudicate`` checks a Rise of Rome campaign too.
"""

from __future__ import annotations

from pathlib import Path

import click

from tabula.commands.options import WHOLE

CAMPAIGN = click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))

#: Bookkeeping kinds that state what the tables now hold; the player reads the explanations.
_QUIET_KINDS = {"put_row", "drop_row", "set_campaign", "put_note"}


def _open(campaign: Path, *, read_only: bool = False):
    """The campaign, which must be a Rise of Rome one (another ruleset: one line naming `tabula round`)."""
    from tabula.engine.core.campaign import Campaign
    from tabula.engine.rise_of_rome.rules import RULESET
    from tabula.geo.errors import InputError

    c = Campaign.open(campaign, read_only=read_only)
    if c.ruleset.name != RULESET:
        name = c.ruleset.name
        c.close()
        raise InputError(f"{campaign} is a {name} campaign, not a Rise of Rome one: play it with `tabula round`")
    return c


def _echo(events) -> None:
    for ev in events:
        if ev.kind in _QUIET_KINDS:
            continue
        click.echo(ev.text if ev.kind != "step" else f"== {ev.text}")


def _next_line(c) -> None:
    from tabula.engine.rise_of_rome.ruleset import next_decision

    _step, words = next_decision(c, c.snapshot())
    click.echo(f"next: {words.replace('CAMPAIGN', str(c.path))}")


@click.group(name="turn")
def group() -> None:
    """Play Rome in a Rise of Rome campaign (solo): status, next, attack, spend, result."""


@group.command("start")
@CAMPAIGN
@click.option("--seed", type=WHOLE, default=None, help="The campaign's random seed (default 1): every die comes from it.")
def start(campaign: Path, seed: int | None) -> None:
    """Start the campaign: every province its home power's, the first rulers rolled; turn 1.

    Example: tabula turn start rome.duckdb --seed 348
    """
    with _open(campaign) as c:
        s = c.start(seed=seed)
        for ev in c.events():
            if ev.kind not in _QUIET_KINDS:
                click.echo(ev.text)
        click.echo(f"{campaign}: campaign started, turn {s.campaign('round')}, seed {s.campaign('seed')}")
        _next_line(c)


@group.command("status")
@CAMPAIGN
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object: turn, phase, Rome's revenue and options, the powers, the attacks, the next step.")
def status(campaign: Path, as_json: bool) -> None:
    """Where the turn stands: Rome's revenue and Civic Development, the powers, the attacks, Rome's options.

    Example: tabula turn status rome.duckdb
    """
    from tabula.engine.rise_of_rome.ruleset import turn_view

    with _open(campaign, read_only=True) as c:
        c.require_state()
        view = turn_view(c)
    if as_json:
        from tabula.commands.jsonout import echo_json

        echo_json(view.as_json())
        return
    for line in view.lines():
        click.echo(line.replace("CAMPAIGN", str(campaign)))


@group.command("next")
@CAMPAIGN
def next_(campaign: Path) -> None:
    """Run the engine's phases until Rome must decide (or the campaign ends).

    A decision with nothing to choose is taken at once: no attack when Rome borders no
    Active power, everything to Civic Improvement when Rome has nothing to spend freely.

    Example: tabula turn next rome.duckdb
    """
    from tabula.engine.rise_of_rome.ruleset import play_until_decision

    with _open(campaign) as c:
        c.require_state()
        _echo(play_until_decision(c))
        _next_line(c)


@group.command("attack")
@CAMPAIGN
@click.option("--target", default=None, help="The Active power Rome attacks (a neighbour; any case).")
@click.option("--none", "no_attack", is_flag=True, help="Rome does not attack this turn.")
def attack(campaign: Path, target: str | None, no_attack: bool) -> None:
    """Rome's attack this turn (phase 3): --target POWER, or --none.

    Example: tabula turn attack rome.duckdb --target Samnites
    """
    from tabula.engine.rise_of_rome.ruleset import give_attack

    if (target is None) == (not no_attack):
        raise click.BadParameter("give --target POWER or --none (one of them)", param_hint="--target")
    with _open(campaign) as c:
        c.require_state()
        _echo(give_attack(c, target))
        _next_line(c)


@group.command("spend")
@CAMPAIGN
@click.option("--attack", "attack_", type=WHOLE, default=0, show_default=True, help="Revenue to Attack.")
@click.option("--defence", "--defense", "defence", type=WHOLE, default=0, show_default=True, help="Revenue to Defense.")
@click.option("--civic", type=WHOLE, default=None, help="Revenue to Civic Improvement (default: what is left).")
def spend(campaign: Path, attack_: int, defence: int, civic: int | None) -> None:
    """Rome's spending (phase 4): the revenue it may spend freely, split three ways.

    The three must add up to that revenue (`tabula turn status` shows it); a subject's
    civic-only yield goes to Civic Improvement by itself.

    Example: tabula turn spend rome.duckdb --attack 20 --defence 10 --civic 15
    """
    from tabula.engine.rise_of_rome.ruleset import give_spending, rome_free_revenue, state_of
    from tabula.engine.rise_of_rome.spending import Spending
    from tabula.geo.errors import InputError

    with _open(campaign) as c:
        c.require_state()
        if civic is None:
            free = rome_free_revenue(c.board, state_of(c.board, c.snapshot()))
            civic = free - attack_ - defence
            if civic < 0:
                raise InputError(f"--attack {attack_} + --defence {defence} is more than the {free} Rome may spend: "
                                 "give smaller amounts")
        _echo(give_spending(c, Spending(attack_, defence, civic)))
        _next_line(c)


@group.command("result")
@CAMPAIGN
@click.argument("battle", type=WHOLE)
@click.option("--winner", required=True, help="attacker or defender (or the winning side's power).")
@click.option("--margin", type=click.Choice(["major", "minor"]), required=True, help="A Major or a Minor Victory.")
def result(campaign: Path, battle: int, winner: str, margin: str) -> None:
    """The result of BATTLE, played on the table (phase 5); then `tabula turn next` fights on.

    Example: tabula turn result rome.duckdb 3 --winner attacker --margin minor
    """
    from tabula.engine.rise_of_rome.ruleset import enter_result

    with _open(campaign) as c:
        c.require_state()
        _echo(enter_result(c, battle, winner, margin == "major"))
        _next_line(c)
