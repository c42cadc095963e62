"""`tabula round ...` commands."""

import click


@click.group(name="round")
def group() -> None:
    """round commands."""
