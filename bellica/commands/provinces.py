"""`bellica map provinces`: provinces from real geography (docs/provinces.md).

Registered in the ``map`` group by :mod:`bellica.commands.map`.
"""

from __future__ import annotations

from pathlib import Path

import click


@click.command("provinces")
@click.argument("map_db", type=click.Path(path_type=Path))
@click.argument("province_file", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace the map's province tables if it has them.")
@click.option("--json", "as_json", is_flag=True,
              help='One JSON object: {"provinces", "seas", "exceptions", "unassigned", "unassigned_pieces", "notes"}.')
def provinces(map_db, province_file, force, as_json):
    """Allocate a map's land hexes to the provinces of PROVINCE_FILE and write them into MAP_DB.

    PROVINCE_FILE (TOML) lists [[province]] entries (name, capital = [lon, lat], optional
    region = "file.geojson" and cells_add), [[exception]] adjacencies and [[sea]] areas.
    Each land hex goes to the capital cheapest to reach over land (terrain costs; water and
    peaks barriers), a region polygon and moved cells taking precedence.  Writes the tables
    provinces, province_cells, province_exceptions, sea_areas, sea_area_cells and the views
    province_adjacency, province_seas, sea_area_adjacency; existing ones only with --force.

    Example: bellica map provinces build/mediterranean.duckdb italia.toml
    """
    from bellica.etl.provinces import build_provinces

    result = build_provinces(map_db, province_file, force=force)
    if as_json:
        from bellica.services.jsonout import echo_json

        echo_json(result.as_json())
        return
    for line in result.summary():
        click.echo(line)
