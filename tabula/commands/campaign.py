"""`tabula campaign ...` commands."""

import click


@click.group(name="campaign")
def group() -> None:
    """campaign commands."""
