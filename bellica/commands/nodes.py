"""`bellica map nodes`: node maps from real geography (docs/nodes.md).

Registered in the ``map`` group by :mod:`bellica.commands.map`.
"""

from __future__ import annotations

from pathlib import Path

import re

import click

from bellica.commands.options import shown


def _year(ctx, param, value):
    """A signed year in ASCII digits (negative BC), never 0."""
    if value is None:
        return None
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,5}", text) or int(text) == 0:
        raise click.BadParameter(f"{shown(value)} is not a year: write a whole number, negative BC (e.g. --year -397)",
                                 param_hint="--year")
    return int(text)


@click.command("nodes")
@click.argument("map_db", type=click.Path(path_type=Path))
@click.argument("node_file", type=click.Path(path_type=Path))
@click.option("--year", callback=_year, default=None, metavar="YEAR",
              help="Keep only the places and paths of this year (negative BC, e.g. -397); default: every era.")
@click.option("--force", is_flag=True, help="Replace the map's node tables if it has them.")
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"year", "nodes", "paths", "notes"}.')
def nodes(map_db, node_file, year, force, as_json):
    """Place the nodes of NODE_FILE on a map, route their paths and write them into MAP_DB.

    NODE_FILE (TOML) lists [[place]] entries (name, at = [lon, lat], optional terrain, coastal,
    fortified, commands 0-3, from_year/until_year, note) and [[path]] entries (from, to,
    by = "land" or "sea", optional via waypoints). Land paths are routed over land hexes the way
    roads are, sea paths over coast and sea hexes between coastal places; each gets its length,
    hexes, terrain crossed and line. Writes the tables nodes, node_paths, node_path_terrain,
    node_path_cells, the views node_links, node_steps and the macros node_reach, fleet_reach;
    existing ones only with --force.

    Example: bellica map nodes sicily6.duckdb datasets/scenarios/magna-graecia/sicily-nodes.toml --year -397
    """
    from bellica.etl.nodes import build_nodes

    result = build_nodes(map_db, node_file, force=force, year=year)
    if as_json:
        from bellica.services.jsonout import echo_json

        echo_json(result.as_json())
        return
    for line in result.summary():
        click.echo(line)
