"""The one command line: ``tabula <group> <command>``, a group per user.

designer: ``tabula map ...``, ``tabula campaign new``; umpire: ``tabula round ...``,
``tabula sql``, ``tabula log``; everyone: ``tabula render ...``.
Every domain error becomes one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import logging
import sys

import click

from tabula.geo.errors import TabulaError
from tabula.commands import campaign, log, map as map_commands, render, round as round_commands, sql


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", is_flag=True, help="Log progress details.")
def cli(verbose: bool) -> None:
    """Tabula: hex-map campaigns on real geography."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


cli.add_command(map_commands.group)
cli.add_command(campaign.group)
cli.add_command(round_commands.group)
cli.add_command(sql.command)
cli.add_command(log.command)
cli.add_command(render.group)


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="tabula", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except TabulaError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
