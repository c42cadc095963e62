"""`tabula sql`."""

import click


@click.command(name="sql")
def command() -> None:
    """sql (being built)."""
    raise click.ClickException("tabula sql is not built yet")
