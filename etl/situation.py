"""The situation now, read from a campaign file and written as GeoPackage and GeoJSON (``bellica export``).

``bellica map export`` writes the map and each structure's *starting* controller; this module
writes the campaign's state tables and rules views as they stand after the last step:

* ``armies`` (faction view: every army, another faction's ``strength`` NULL): one point per live
  army at its hex centre: id, faction, strength, ``navy`` (true on a Coast or Sea hex: the army is
  a navy), the sea ``zones`` of a navy's hex, the hex ``kind`` and the ``structure`` there;
* ``control`` (public): one point per structure at its hex centre: the current ``controller``
  (NULL: nobody), ``start_controller``, kind, capital, ``besieged_by``;
* ``sieges`` (public): one point per siege at the besieged structure's hex: the besieging
  ``faction``, ``controller``, ``resilience``, ``start_resilience``, ``started_round``, the
  besieging ``armies``;
* ``supply_lines`` (own faction only): one line per link of a line of logistics (view
  ``logistics_lines``) from one structure's hex centre to the next: faction, ends,
  ``link_type``, depths from the capital;
* ``supplied_structures`` (own faction only): one point per structure on a faction's lines
  (view ``supplied_structures``), with its depth;
* ``zoc`` (public): one hex polygon (``hexes.geom``) per faction and hex under its Zone of
  Control (view ``zoc``, the union of ``army_zoc``, ``navy_zoc`` and ``structure_zoc``), with
  the ``armies``, ``navies`` and ``structures`` exercising it.

Decisions where the issue is silent:

* **What a faction may see** follows the faction map (:mod:`web_maps.scenario_layers`
  ``faction_view``): every counter is on the board, so positions, control, sieges and their
  Resilience, and the Zones of Control they imply are public; another faction's army
  strength is hidden (the column is NULL, exactly where the map says "hidden"); another
  faction's lines of logistics and supplied structures are left out (they depend on its
  sealed sea-link choices; the issue asks for "the faction's lines of logistics"); orders are never
  exported. The umpire's export (no faction) holds everything.
* **Geometry**: points and line ends are hex centres (``hexes.lng``/``lat``: the hex the rules
  use, so lines meet the structures they join), polygons are ``hexes.geom``; all in
  OGC:CRS84, written as EPSG:4326 (x = longitude).
* **Eliminated armies** are not on the board and not in ``armies``.
* **Output**: ``--out`` is a folder, written whole under a temporary name and renamed into
  place: ``situation.gpkg`` (a layer per thing), ``geojson/<layer>.geojson`` (a file per
  thing) and ``export.json`` (campaign, round, phase, viewer, layers with their feature counts,
  which layers are public). An existing folder is replaced only with ``force`` and only when
  it holds an earlier export's ``export.json`` (``--out . --force`` never empties a folder of
  other files); an existing file never.
* A campaign not yet started (no armies or control rows) has no situation: refused, naming
  ``bellica round start``.

The other rulesets' campaigns (Rise of Rome, Mare Nostrum, Magna Graecia, Trossian) are
exported from their ruleset's player view (:meth:`Situation.from_view`,
:mod:`bellica.schema.view`): a layer per feature layer of the view (provinces by holder, lanes,
nodes and paths, counters, fleets, sieges, battles, ...), exactly what the view holds, and the
view's status as ``status.json``; the ruleset, not this module, decides what a viewer may see.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import duckdb
import geopandas as gpd
import shapely

from bellica.datasets.rules import canonical_faction
from bellica.etl.files import clear_leftovers, open_duckdb, table_names, temp_path
from bellica.geo.errors import InputError
from bellica.schema.view import FeatureLayer, PlayerView

#: The layers, in the order they are written.
LAYERS = ("armies", "control", "sieges", "supply_lines", "supplied_structures", "zoc")
#: Layers a faction's export holds for every faction (the others: its own rows only).
PUBLIC_LAYERS = ("armies", "control", "sieges", "zoc")
#: Layers a faction's export holds only for that faction.
OWN_LAYERS = ("supply_lines", "supplied_structures")
#: Each layer's geometry type, written even when a layer is empty (GeoPackage would say Unknown).
GEOMETRY_TYPES = {"armies": "Point", "control": "Point", "sieges": "Point", "supply_lines": "LineString",
                  "supplied_structures": "Point", "zoc": "Polygon"}
FORMATS = ("gpkg", "geojson")
MANIFEST = "export.json"
GPKG_NAME = "situation.gpkg"
GEOJSON_DIR = "geojson"
STATUS_NAME = "status.json"

_CAMPAIGN_TABLES = ("hexes", "structures", "factions")
_STATE_TABLES = ("armies", "control", "sieges", "siege_armies", "campaign")
_VIEWS = ("logistics_lines", "supplied_structures", "zoc")


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
    position: dict[str, str]  # the campaign table: round, phase, stage, ...
    layers: dict[str, gpd.GeoDataFrame] = field(default_factory=dict)
    #: Each layer's geometry type (written even when a layer is empty), in the order written.
    geometry_types: dict[str, str] = field(default_factory=lambda: dict(GEOMETRY_TYPES))
    #: Layers the same for every viewer; the others hold what this viewer may see of them.
    public: tuple[str, ...] = PUBLIC_LAYERS
    #: What a faction's export leaves out, in words.
    hidden_words: tuple[str, ...] = ("strength of other factions' armies (NULL)",)
    #: Where the campaign stands as the viewer may read it (a player view's status; written as status.json).
    status: dict | None = None

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

    def for_faction(self, faction: str) -> "Situation":
        """What ``faction`` may see of this (umpire's) situation: see the module doc."""
        if self.viewer is not None and self.viewer != faction:
            raise ValueError(f"the situation of {self.viewer} cannot be shown to {faction}")
        faction = resolve_faction(faction, self.factions)
        layers = dict(self.layers)
        armies = layers["armies"].copy()
        armies["strength"] = armies["strength"].where(armies["faction"] == faction)
        layers["armies"] = armies
        for name in OWN_LAYERS:
            layers[name] = layers[name][layers[name]["faction"] == faction].reset_index(drop=True)
        return Situation(self.campaign, faction, self.factions, self.position, layers)

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
            "own_faction_only": [] if self.viewer is None else [n for n in self.layers if n not in self.public],
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
                   status=dict(view.status))


def _features_frame(layer: FeatureLayer) -> gpd.GeoDataFrame:
    rows = [dict(f.properties) for f in layer.features]
    return gpd.GeoDataFrame(rows, geometry=[f.geometry for f in layer.features], crs="EPSG:4326")


def resolve_faction(name: str, factions: Iterable[str]) -> str:
    """The campaign's faction ``name`` means (any case); UnknownFactionError naming the valid ones."""
    names = sorted(factions)
    try:
        return canonical_faction(name, names, where="--faction")
    except InputError:
        raise UnknownFactionError(f"--faction {name!r} is not a faction of this campaign: use one of {', '.join(names)}",
                                  names) from None


def _first(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def _frame(con, sql: str, geometry: str = "point", *, what: str, path: Path) -> gpd.GeoDataFrame:
    """Run ``sql`` (its geometry columns: ``lng``/``lat`` for a point, ``lng``/``lat``/``lng2``/``lat2``
    for a line, ``wkb`` for a polygon) and return the rows as an EPSG:4326 GeoDataFrame."""
    try:
        df = con.execute(sql).df()
    except duckdb.Error as e:  # a damaged file opens, then fails on its data
        raise InputError(f"campaign {path}: {what} cannot be read ({_first(e)}): "
                         "check it with `bellica round verify`") from None
    if geometry == "point":
        geom = shapely.points(df.pop("lng").to_numpy(float), df.pop("lat").to_numpy(float))
    elif geometry == "line":
        start = list(zip(df.pop("lng").to_numpy(float), df.pop("lat").to_numpy(float)))
        end = list(zip(df.pop("lng2").to_numpy(float), df.pop("lat2").to_numpy(float)))
        geom = [shapely.LineString([a, b]) for a, b in zip(start, end)]
    else:
        geom = shapely.from_wkb(df.pop("wkb").map(bytes).to_numpy())
    return gpd.GeoDataFrame(df, geometry=list(geom) if len(df) else [], crs="EPSG:4326")


_ARMIES = """
SELECT a.id, a.faction, a.strength, a.cell, h.kind,
       h.kind IN ('coast', 'sea') AS navy,
       coalesce((SELECT string_agg(DISTINCT z.zone, ', ' ORDER BY z.zone) FROM hex_sea_zones z WHERE z.cell = a.cell), '') AS zones,
       (SELECT s.name FROM structures s WHERE s.cell = a.cell) AS structure,
       h.lng, h.lat
FROM armies a JOIN hexes h ON h.cell = a.cell
WHERE NOT coalesce(a.eliminated, false) AND a.cell IS NOT NULL
ORDER BY a.id
"""

# The current controller is the control row; a structure without one keeps its start
# controller (as the structure_zoc view and engine.zoc.controller_of read it).
_CONTROL = """
SELECT s.name AS structure, s.kind, s.capital, s.cell,
       CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller,
       s.controller AS start_controller,
       sg.faction AS besieged_by,
       h.lng, h.lat
FROM structures s
JOIN hexes h ON h.cell = s.cell
LEFT JOIN control c ON c.structure = s.name
LEFT JOIN sieges sg ON sg.structure = s.name
ORDER BY s.name
"""

_SIEGES = """
SELECT sg.structure, sg.faction, 
       CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller,
       sg.resilience, sg.start_resilience, sg.started_round,
       coalesce((SELECT string_agg(CAST(sa.army AS VARCHAR), ', ' ORDER BY sa.army) FROM siege_armies sa
                 WHERE sa.structure = sg.structure), '') AS armies,
       s.cell, h.lng, h.lat
FROM sieges sg
JOIN structures s ON s.name = sg.structure
JOIN hexes h ON h.cell = s.cell
LEFT JOIN control c ON c.structure = s.name
ORDER BY sg.structure
"""

_SUPPLY_LINES = """
SELECT l.faction, l.from_structure, l.to_structure, l.link_type, l.from_depth, l.to_depth,
       ha.lng, ha.lat, hb.lng AS lng2, hb.lat AS lat2
FROM logistics_lines l
JOIN structures a ON a.name = l.from_structure JOIN hexes ha ON ha.cell = a.cell
JOIN structures b ON b.name = l.to_structure JOIN hexes hb ON hb.cell = b.cell
ORDER BY l.faction, l.to_depth, l.from_structure, l.to_structure, l.link_type
"""

_SUPPLIED = """
SELECT p.faction, p.structure, p.depth, s.cell, h.lng, h.lat
FROM supplied_structures p
JOIN structures s ON s.name = p.structure JOIN hexes h ON h.cell = s.cell
ORDER BY p.faction, p.depth, p.structure
"""

_ZOC = """
WITH z AS (
    SELECT faction, cell,
           string_agg(DISTINCT CASE WHEN source_kind = 'army' THEN source END, ', ' ORDER BY CASE WHEN source_kind = 'army' THEN source END) AS armies,
           string_agg(DISTINCT CASE WHEN source_kind = 'navy' THEN source END, ', ' ORDER BY CASE WHEN source_kind = 'navy' THEN source END) AS navies,
           string_agg(DISTINCT CASE WHEN source_kind = 'structure' THEN source END, ', ' ORDER BY CASE WHEN source_kind = 'structure' THEN source END) AS structures
    FROM zoc WHERE faction IS NOT NULL GROUP BY faction, cell
)
SELECT z.faction, z.cell, h.kind, coalesce(z.armies, '') AS armies, coalesce(z.navies, '') AS navies,
       coalesce(z.structures, '') AS structures, ST_AsWKB(h.geom) AS wkb
FROM z JOIN hexes h ON h.cell = z.cell
ORDER BY z.faction, z.cell
"""


def read_situation(campaign: str | Path, *, faction: str | None = None) -> Situation:
    """The campaign's situation now as ``faction`` may see it (None: the umpire's, everything).

    One-line InputErrors for a missing or foreign file, a map instead of a campaign, a
    campaign not started and an unknown faction (UnknownFactionError)."""
    path = Path(campaign)
    fix = "pass a campaign file made by `bellica campaign new` and started with `bellica round start`"
    con = open_duckdb(path, what="campaign", fix=fix)
    try:
        tables = table_names(con, "campaign", path)
        if "hexes" in tables and not set(_CAMPAIGN_TABLES) <= tables:
            raise InputError(f"{path} is a map, not a campaign: make a campaign with "
                             f"`bellica campaign new --map {path} ...` and export that")
        if not set(_CAMPAIGN_TABLES) <= tables:
            raise InputError(f"{path} is not a campaign (it has no {', '.join(sorted(set(_CAMPAIGN_TABLES) - tables))} table): {fix}")
        try:
            started = set(_STATE_TABLES) <= tables and con.execute(
                "SELECT count(*) FROM campaign WHERE key = 'round'").fetchone()[0] > 0
        except duckdb.Error:
            started = False
        if not started:
            raise InputError(f"{path} has not been started, so it has no situation to export: "
                             f"run `bellica round start {path}` first")
        missing = sorted(set(_VIEWS) - tables)
        if missing:
            raise InputError(f"campaign {path} has no {missing[0]} view (a file from an older bellica?): "
                             "open it once with `bellica round status` to install the rules views")
        factions = [r[0] for r in con.execute("SELECT name FROM factions ORDER BY name").fetchall()]
        viewer = None if faction is None else resolve_faction(faction, factions)
        position = dict(con.execute("SELECT key, value FROM campaign").fetchall())
        layers = {
            "armies": _frame(con, _ARMIES, what="the armies", path=path),
            "control": _frame(con, _CONTROL, what="the control of structures", path=path),
            "sieges": _frame(con, _SIEGES, what="the sieges", path=path),
            "supply_lines": _frame(con, _SUPPLY_LINES, "line", what="the lines of logistics", path=path),
            "supplied_structures": _frame(con, _SUPPLIED, what="the supplied structures", path=path),
            "zoc": _frame(con, _ZOC, "polygon", what="the zones of control", path=path),
        }
    finally:
        con.close()
    # Strength is nullable: an integer column that may hold NULL once redacted.
    layers["armies"]["strength"] = layers["armies"]["strength"].astype("Int64")
    umpire = Situation(path, None, factions, position, layers)
    return umpire if viewer is None else umpire.for_faction(viewer)


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
    out = Path(out)
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
        raise InputError(f"{option} {out}: cannot create its folder {parent} ({e.strerror or _first(e)}): "
                         f"choose an {option} in a writable folder") from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{option} {out}: cannot write in {parent}: choose an {option} in a writable folder")
    return out


def export_situation(campaign: str | Path, out: str | Path, *, faction: str | None = None,
                     formats: Iterable[str] = FORMATS, force: bool = False,
                     extra: Callable[[Situation, Path], None] | None = None,
                     read: Callable[[], Situation] | None = None) -> tuple[Path, Situation]:
    """Write the campaign's situation now (as ``faction`` may see it) into the folder ``out``.

    ``read`` gives the situation instead of the Vae Victis reader (a ruleset's player view,
    :meth:`Situation.from_view`); it is called after ``out`` is checked, before anything is written.

    ``extra(situation, tmp_folder)`` may add files (the CLI's player packets) before the folder
    is renamed into place; if it raises, nothing is left behind and an existing ``out`` is kept.
    Returns ``out`` and the situation written."""
    out = Path(out)
    formats = tuple(formats)
    for fmt in formats:
        formats_of(fmt)
    check_out_folder(out, force=force)
    situation = read() if read is not None else read_situation(campaign, faction=faction)
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


__all__ = ["FORMATS", "LAYERS", "MANIFEST", "OWN_LAYERS", "PUBLIC_LAYERS", "Situation", "UnknownFactionError",
           "check_out_folder", "export_situation", "formats_of", "read_situation", "resolve_faction", "write_situation"]
