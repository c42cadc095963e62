"""`tabula map ...` commands."""

import click


@click.group(name="map")
def group() -> None:
    """map commands."""
