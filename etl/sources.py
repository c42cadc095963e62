"""Regenerate the embedded default datasets (``bellica map sources``) from their registry packages.

* ``mediterranean_dem.tif``: pvlib's ``data/Altitude.h5``, a global 5-arc-minute
  land elevation grid (2160 x 4320 uint8; row 0 is the band just south of 90N,
  column 0 the band just east of 180W; value v means v*28-450 m; 255 = sea),
  clipped on whole cells, written as int16 metres with nodata -32768;
* ``mediterranean_shorelines.parquet``: GSHHG intermediate, every level, clipped;
* ``mediterranean_rivers.parquet``: WDB-II intermediate river systems, clipped,
  all of them (the map build picks the major ones).

Each file covers ``bbox`` widened by ``margin_deg``; the shipped files cover
:data:`bellica.geo.settings.DATA_EXTENT` (the Mare Nostrum world widened by one degree, so hexes
on its edge see their whole footprint).  The DEM keeps whole source cells and the shorelines and
rivers are clipped to the same rectangle, so inside an old, smaller extent a regenerated file
holds the same data.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import rasterio
from affine import Affine

from bellica.datasets import DATASETS_DIR
from bellica.etl.rivers import read_wdb_rivers
from bellica.etl.shorelines import check_bbox, read_gshhg
from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.settings import DATA_EXTENT, WGS84

DEM_NAME = "mediterranean_dem.tif"
SHORELINES_NAME = "mediterranean_shorelines.parquet"
RIVERS_NAME = "mediterranean_rivers.parquet"

DEM_NODATA = -32768
ALTITUDE_CELLS_PER_DEGREE = 12  # 5 arc-minutes
_ALTITUDE_SHAPE = (180 * ALTITUDE_CELLS_PER_DEGREE, 360 * ALTITUDE_CELLS_PER_DEGREE)


def pvlib_altitude_path() -> Path:
    """Path of pvlib's Altitude.h5; MissingInputError when pvlib is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("pvlib")
    if spec is None or not spec.origin:
        raise MissingInputError("pvlib is not installed, so Altitude.h5 is missing: pip install 'bellica[sources]'")
    path = Path(spec.origin).parent / "data" / "Altitude.h5"
    if not path.is_file():
        raise MissingInputError(f"{path} is missing from the pvlib install: reinstall pvlib (pip install 'bellica[sources]')")
    return path


def dem_from_pvlib_altitude(bbox) -> tuple[np.ndarray, Affine]:
    """(int16 metres with DEM_NODATA over sea, geotransform) of the Altitude.h5 cells covering ``bbox``.

    The window is widened to whole 1/12-degree cells so the output grid is the
    source grid: no resampling, values identical to pvlib.location.lookup_altitude.
    """
    try:
        import h5py
    except ImportError:
        raise MissingInputError("h5py is not installed, so Altitude.h5 cannot be read: pip install 'bellica[sources]'") from None
    west, south, east, north = check_bbox(bbox)
    n = ALTITUDE_CELLS_PER_DEGREE
    # Column j spans [-180 + j/12, -180 + (j+1)/12); row i spans [90 - (i+1)/12, 90 - i/12).
    col0, col1 = math.floor((west + 180) * n), math.ceil((east + 180) * n)
    row0, row1 = math.floor((90 - north) * n), math.ceil((90 - south) * n)
    with h5py.File(pvlib_altitude_path(), "r") as f:
        ds = f["Altitude"]
        if ds.shape != _ALTITUDE_SHAPE or ds.dtype != np.uint8:
            raise InputError(f"Altitude.h5 is {ds.shape} {ds.dtype}, not {_ALTITUDE_SHAPE} uint8: reinstall pvlib")
        codes = ds[row0:row1, col0:col1]
    metres = codes.astype(np.int16) * 28 - 450
    metres[codes == 255] = DEM_NODATA
    # Built directly (not rasterio's from_origin, which multiplies Affines with the deprecated `*`).
    transform = Affine(1 / n, 0.0, -180 + col0 / n, 0.0, -1 / n, 90 - row0 / n)
    return metres, transform


def write_dem_geotiff(metres: np.ndarray, transform, path) -> Path:
    """Write an int16 metre grid as a deflate-compressed, tiled EPSG:4326 GeoTIFF."""
    path = Path(path)
    profile = dict(driver="GTiff", width=metres.shape[1], height=metres.shape[0], count=1, dtype="int16",
                   crs=WGS84, transform=transform, nodata=DEM_NODATA, compress="deflate", predictor=2,
                   tiled=True, blockxsize=256, blockysize=256)
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(metres, 1)
        dst.set_band_description(1, "elevation (m), pvlib Altitude.h5 (Mapzen terrain tiles), sea = nodata")
    return path


def widen_bbox(bbox, margin_deg: float) -> tuple[float, float, float, float]:
    west, south, east, north = check_bbox(bbox)
    if not (margin_deg >= 0 and math.isfinite(margin_deg)):
        raise InputError(f"margin_deg {margin_deg!r} is not a margin: give degrees >= 0")
    return (max(-180.0, west - margin_deg), max(-90.0, south - margin_deg),
            min(180.0, east + margin_deg), min(90.0, north + margin_deg))


def build_default_datasets(out_dir=DATASETS_DIR, *, bbox=DATA_EXTENT, margin_deg: float = 0.0) -> dict[str, Path]:
    """Regenerate the DEM, shorelines and rivers for ``bbox`` + ``margin_deg`` into ``out_dir``
    (by default the embedded data's extent, DATA_EXTENT, as shipped).

    Returns {"dem": path, "shorelines": path, "rivers": path}.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    region = widen_bbox(bbox, margin_deg)
    metres, transform = dem_from_pvlib_altitude(region)
    dem = write_dem_geotiff(metres, transform, out_dir / DEM_NAME)
    shores = read_gshhg(resolution="i", bbox=region)
    shores_path = out_dir / SHORELINES_NAME
    shores.to_parquet(shores_path, compression="zstd", write_covering_bbox=True)
    rivers = read_wdb_rivers(resolution="i", bbox=region)
    rivers_path = out_dir / RIVERS_NAME
    rivers.to_parquet(rivers_path, compression="zstd", write_covering_bbox=True)
    return {"dem": dem, "shorelines": shores_path, "rivers": rivers_path}


__all__ = ["DEM_NAME", "DEM_NODATA", "RIVERS_NAME", "SHORELINES_NAME", "build_default_datasets",
           "dem_from_pvlib_altitude", "pvlib_altitude_path", "widen_bbox", "write_dem_geotiff"]
