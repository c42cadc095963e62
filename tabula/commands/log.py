"""`tabula log`."""

import click


@click.command(name="log")
def command() -> None:
    """log (being built)."""
    raise click.ClickException("tabula log is not built yet")
