"""`tabula render ...` commands."""

import click


@click.group(name="render")
def group() -> None:
    """render commands."""
