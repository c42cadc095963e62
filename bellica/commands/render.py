"""`bellica render ...`: offline HTML maps of a map or campaign database."""

from __future__ import annotations

from pathlib import Path

import click


@click.group(name="render")
def group() -> None:
    """Render maps to self-contained HTML (opens offline in any browser)."""


@group.command(name="map")
@click.argument("database", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="HTML file to write (replaced atomically).")
@click.option("--faction", default=None, metavar="NAME",
              help="Render this faction's view of a campaign instead of the umpire's.")
@click.option("--precision", default=5, show_default=True, type=click.IntRange(3, 7),
              help="Decimals of a degree kept for hex vertices (5 = 1.1 m).")
@click.option("--force", is_flag=True, help="Replace --out if it exists (never a campaign or map database).")
def map_command(database: Path, out: Path, faction: str | None, precision: int, force: bool) -> None:
    """Render DATABASE (a map or a campaign) to --out: hexes by terrain, rivers, and the scenario if any.

    The page inlines Leaflet and fetches nothing, so it opens offline.  On a
    campaign it is a play aid: click a hex for its name (e.g. "Roma 3 5"), its
    clock sides, neighbours and MP; layers for ZoC, lines of logistics, sieges,
    straits, naval superiority, the last movement and battles; the round, phase
    and VP in a panel.  With --faction, another faction's army strengths, lines
    of logistics and movement paths are left out of the page.  An existing --out is
    replaced only with --force.

    Example: bellica render map punic.duckdb --out punic-roma.html --faction Roma
    """
    from bellica.etl.files import check_out_dir, refuse_overwrite
    from bellica.services.maps import render_map

    refuse_overwrite(out, force=force, what="page")
    check_out_dir(out)  # an impossible or read-only --out: one line before the page is built
    if faction is not None:
        faction = _campaign_faction(database, faction)
    # A campaign is drawn from its ruleset's player view (Vae Victis II: its own layers, for now).
    click.echo(str(render_map(database, out, faction=faction, precision=precision)))


def _campaign_faction(database: Path, faction: str) -> str:
    """--faction as the campaign spells it; one it does not have is a usage error (exit 2), as for
    every command.  A file that is no campaign (a map, a missing file) is left to the renderer,
    which says what is wrong with it in one line."""
    from bellica.commands.campaigns import open_campaign, resolve_faction
    from bellica.geo.errors import BellicaError

    try:
        c = open_campaign(database, read_only=True)
    except BellicaError:
        return faction
    with c:
        return resolve_faction(c, faction)
