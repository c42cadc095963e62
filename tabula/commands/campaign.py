"""`tabula campaign ...`: create a campaign from a scenario, place armies, check and list scenarios."""

from __future__ import annotations

from pathlib import Path

import click


@click.group(name="campaign")
def group() -> None:
    """Create campaigns from scenarios (designer) and place the starting armies."""


@group.command(name="new")
@click.option("--scenario", "scenario", required=True, help="Shipped scenario name (see `tabula campaign scenarios`) or a scenario folder.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Campaign database to write.")
@click.option("--map", "map_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Existing map database (same resolution, covering the scenario bbox); default: build one.")
@click.option("--placements", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Placements CSV (army,faction,structure); default: the scenario's placements.csv if any.")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
def new(scenario: str, out: Path, map_path: Path | None, placements: Path | None, force: bool, quiet: bool) -> None:
    """Write a new campaign database for SCENARIO."""
    from tabula.etl.campaign import create_campaign

    result = create_campaign(scenario, out, map_path=map_path, placements=placements, force=force)
    if not quiet:
        for note in result.notes:
            click.echo(f"  note: {note}")
    c = result.counts
    click.echo(
        f"campaign {result.path}: scenario {result.scenario}, {c['hexes']} hexes, {c['structures']} structures, "
        f"{c['roads']} roads ({c['road_cells']} road hexes), {c['rivers']} rivers, {c['sea_zones']} sea zones, "
        f"{c['overrides']} terrain overrides, {c['ocean_hexes']} ocean hexes, {c['placements']} armies placed in {result.seconds:.1f} s"
        + (" (map built)" if result.map_built else "")
    )


@group.command(name="place")
@click.argument("campaign", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("placements", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def place(campaign: Path, placements: Path) -> None:
    """Validate PLACEMENTS (army,faction,structure) against CAMPAIGN and store them."""
    from tabula.etl.campaign import place_armies

    n = place_armies(campaign, placements)
    click.echo(f"{campaign}: {n} armies placed")


@group.command(name="check")
@click.option("--scenario", "scenario", required=True, help="Scenario name or folder.")
@click.option("--placements", type=click.Path(dir_okay=False, path_type=Path), default=None)
def check(scenario: str, placements: Path | None) -> None:
    """Check a scenario's files (without a map) and print what it holds."""
    from tabula.etl.scenario import load_scenario

    s = load_scenario(scenario, placements=placements)
    click.echo(
        f"scenario {s.name} ({s.directory}): {len(s.factions)} factions, {len(s.structures)} structures, "
        f"{len(s.roads)} roads, {len(s.rivers)} rivers, {len([z for z in s.sea_zones if not z.ocean])} sea zones, "
        f"{len(s.overrides)} overrides, {len(s.placements or [])} placements: OK"
    )
    for o in s.overrides:
        click.echo(f"  override ({o.source}): {o.terrain}: {o.reason}")


@group.command(name="scenarios")
def scenarios() -> None:
    """List the shipped scenarios."""
    from tabula.etl.scenario import list_scenarios, load_scenario

    for name in list_scenarios():
        s = load_scenario(name)
        click.echo(f"{name}: {s.title}")


@group.command(name="structures")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
def structures(campaign: Path) -> None:
    """Print each structure's controller, terrain, coast adjacency and start Resilience."""
    from tabula.etl.campaign import open_campaign, structure_summary

    con = open_campaign(campaign, needs=("structures", "structure_resilience"))
    try:
        for name, kind, ctl, terrain, coast, res in structure_summary(con):
            click.echo(f"{name:<20} {kind:<5} {ctl:<10} {terrain or '-':<10} {'coast' if coast else '':<5} {res:+d}")
    finally:
        con.close()
