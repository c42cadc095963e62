"""A campaign's situation now, as one viewer may see it, written as GeoPackage and GeoJSON (``bellica export``).

``bellica map export`` writes the map and each structure's *starting* controller; ``bellica
export`` writes the campaign as it stands after the last step.  What it holds is the campaign's
ruleset's player view (:mod:`bellica.schema.view`; Vae Victis II's layers are described in
:mod:`bellica.engine.vae_victis.player_view`, the other rulesets' in their ``player_view``
modules): a layer per feature layer of the view, its properties as columns, and the view's
status as ``status.json``.  This module decides nothing about what a viewer may see; it writes.

Decisions where the issue is silent:

* **Output**: ``--out`` is a folder, written whole under a temporary name and renamed into
  place: ``situation.gpkg`` (a layer per thing), ``geojson/<layer>.geojson`` (a file per
  thing), ``status.json`` and ``export.json`` (campaign, round, phase, viewer, layers with their
  feature counts, which layers are public, what the viewer's export leaves out). An existing
  folder is replaced only with ``force`` and only when it holds an earlier export's
  ``export.json`` (``--out . --force`` never empties a folder of other files); an existing file
  never.
* **CRS**: everything is OGC:CRS84, written as EPSG:4326 (x = longitude).
* An integer column with empty cells (a hidden strength) stays an integer column (pandas' Int64).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import geopandas as gpd
import pandas as pd

from bellica.etl.files import clear_leftovers, require_printable, temp_path
from bellica.geo.errors import InputError, first_line
from bellica.schema.view import FeatureLayer, PlayerView

FORMATS = ("gpkg", "geojson")
MANIFEST = "export.json"
GPKG_NAME = "situation.gpkg"
GEOJSON_DIR = "geojson"
STATUS_NAME = "status.json"


class UnknownFactionError(InputError):
    """``--faction`` names no faction of the campaign (the CLI turns it into a usage error)."""

    def __init__(self, message: str, factions: list[str]):
        super().__init__(message)
        self.factions = factions


@dataclass
class Situation:
    """The situation of one campaign as one viewer may see it (``viewer`` None: the umpire)."""

    campaign: Path
    viewer: str | None
    factions: list[str]
    position: dict[str, str]  # round, phase, ruleset
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)
    #: Each layer's geometry type (written even when a layer is empty), in the order written.
    geometry_types: dict[str, str] = field(default_factory=dict)
    #: Layers the same for every viewer; the others hold what this viewer may see of them.
    public: tuple[str, ...] = ()
    #: What a faction's export leaves out, in words.
    hidden_words: tuple[str, ...] = ()
    #: Where the campaign stands as the viewer may read it (the view's status; written as status.json).
    status: dict | None = None
    #: The player view this situation was made from.
    view: PlayerView | None = None

    @property
    def round(self) -> int:
        return int(self.position.get("round") or 0)

    @property
    def phase(self) -> str:
        return self.position.get("phase") or ""

    def live_armies(self, faction: str) -> gpd.GeoDataFrame:
        """The faction's armies on the board (the ``armies`` layer's rows of ``faction``)."""
        a = self.layers["armies"]
        return a[a["faction"] == faction].sort_values("id")

    def manifest(self) -> dict:
        return {
            "bellica_export": "situation",
            "campaign": self.campaign.name,
            "round": self.round,
            "phase": self.phase,
            "stage": self.position.get("stage"),
            "viewer": self.viewer or "umpire",
            "crs": "EPSG:4326",
            "layers": {name: len(gdf) for name, gdf in self.layers.items()},
            "public_layers": list(self.public),
            "per_viewer_layers": [n for n in self.layers if n not in self.public],
            "hidden": [] if self.viewer is None else list(self.hidden_words),
        }

    @classmethod
    def from_view(cls, campaign: Path, view: PlayerView, factions: list[str]) -> "Situation":
        """The situation a ruleset's player view gives (:mod:`bellica.schema.view`): a layer per
        feature layer, its properties as columns, exactly what the view holds."""
        layers = {x.name: _features_frame(x) for x in view.layers}
        position = {"round": str(view.round), "phase": view.phase, "ruleset": view.ruleset}
        return cls(campaign, view.viewer, factions, position, layers,
                   geometry_types={x.name: x.geometry_type for x in view.layers},
                   public=tuple(x.name for x in view.layers if x.public), hidden_words=tuple(view.hidden),
                   status=dict(view.status), view=view)


def _features_frame(layer: FeatureLayer) -> gpd.GeoDataFrame:
    rows = [dict(f.properties) for f in layer.features]
    frame = gpd.GeoDataFrame(pd.DataFrame(rows, columns=list(layer.columns) or None),
                             geometry=[f.geometry for f in layer.features], crs="EPSG:4326")
    for name in frame.columns.drop("geometry"):
        values = [r.get(name) for r in rows]
        given = [v for v in values if v is not None]
        if given and len(given) < len(values) and all(isinstance(v, int) and not isinstance(v, bool) for v in given):
            frame[name] = pd.array(values, dtype="Int64")  # an integer column with hidden cells stays integer
    return frame


def write_situation(situation: Situation, folder: str | Path, formats: Iterable[str] = FORMATS) -> list[Path]:
    """Write ``situation`` into ``folder`` (made if missing): ``situation.gpkg`` with a layer per
    thing and/or ``geojson/<layer>.geojson``; returns the files written.  Not atomic by itself:
    :func:`export_situation` writes into a temporary folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        if fmt == "gpkg":
            out = folder / GPKG_NAME
            for name, kind in situation.geometry_types.items():
                situation.layers[name].to_file(out, layer=name, driver="GPKG", geometry_type=kind)
            written.append(out)
        elif fmt == "geojson":
            sub = folder / GEOJSON_DIR
            sub.mkdir(exist_ok=True)
            for name, kind in situation.geometry_types.items():
                out = sub / f"{name}.geojson"
                situation.layers[name].to_file(out, driver="GeoJSON", geometry_type=kind)
                written.append(out)
        else:
            raise InputError(f"--format {fmt!r}: use gpkg, geojson or both")
    if situation.status is not None:
        out = folder / STATUS_NAME
        out.write_text(json.dumps(situation.status, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
        written.append(out)
    return written


def formats_of(choice: str) -> tuple[str, ...]:
    """``gpkg`` / ``geojson`` / ``both`` -> the formats to write."""
    choice = choice.lower()
    if choice == "both":
        return FORMATS
    if choice in FORMATS:
        return (choice,)
    raise InputError(f"--format {choice!r}: use gpkg, geojson or both")


# --- the output folder: refused before any work, written whole, renamed into place ------------


def check_out_folder(out: str | Path, *, force: bool, option: str = "--out") -> Path:
    """Refuse an ``out`` folder that may not be (re)written, before anything is read or written:
    an existing file; an existing folder without ``force``; with ``force``, a folder that does
    not hold an earlier export (its ``export.json``), so that nothing but an export is replaced.
    The parent folder is made when missing and must be writable."""
    out = require_printable(out, option=option)
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise InputError(f"{option} {out} is a file: an export is a folder: choose another {option}")
    if out.is_dir():
        if not force:
            raise InputError(f"{out} exists: pass --force to replace it, or choose another {option}")
        if not (out / MANIFEST).is_file() and any(out.iterdir()):
            raise InputError(f"{option} {out} is a folder that holds no earlier export ({MANIFEST}): "
                             f"it is not replaced, even with --force: choose another {option}")
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{option} {out}: cannot create its folder {parent} ({e.strerror or first_line(e)}): "
                         f"choose an {option} in a writable folder") from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{option} {out}: cannot write in {parent}: choose an {option} in a writable folder")
    return out


def export_situation(read: Callable[[], Situation], out: str | Path, *, formats: Iterable[str] = FORMATS,
                     force: bool = False, extra: Callable[[Situation, Path], None] | None = None) -> tuple[Path, Situation]:
    """Write the situation ``read()`` gives (a ruleset's player view, :meth:`Situation.from_view`)
    into the folder ``out``; ``read`` is called once ``out`` is checked, before anything is written.

    ``extra(situation, tmp_folder)`` may add files (the CLI's player packets) before the folder
    is renamed into place; if it raises, nothing is left behind and an existing ``out`` is kept.
    Returns ``out`` and the situation written."""
    out = Path(out)
    formats = tuple(formats)
    for fmt in formats:
        formats_of(fmt)
    check_out_folder(out, force=force)
    situation = read()
    clear_leftovers(out, command="bellica export")
    tmp = temp_path(out, "tmpdir")
    try:
        tmp.mkdir()
        write_situation(situation, tmp, formats)
        if extra is not None:
            extra(situation, tmp)
        (tmp / MANIFEST).write_text(json.dumps(situation.manifest(), indent=2, sort_keys=True) + "\n")
        _swap_in(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return out, situation


def _swap_in(tmp: Path, out: Path) -> None:
    """Rename ``tmp`` to ``out``, replacing an earlier export: the old folder is first renamed
    aside (``.NAME.PID.tmp.old``, a leftover :func:`clear_leftovers` removes if killed here)."""
    if not out.exists():
        os.replace(tmp, out)
        return
    old = temp_path(out, "tmp.old")
    os.replace(out, old)
    try:
        os.replace(tmp, out)
    except BaseException:
        os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


__all__ = ["FORMATS", "MANIFEST", "Situation", "UnknownFactionError", "check_out_folder", "export_situation", "formats_of",
           "write_situation"]
