"""The player view: the plain data a ruleset gives every interface about what one viewer may see.

A ruleset answers :meth:`~bellica.engine.core.ruleset.Ruleset.player_view` with a
:class:`PlayerView`: where the campaign stands (``status``, JSON-able, what ``status --json``
prints), and the map features that viewer may see, in named layers (:class:`FeatureLayer` of
:class:`Feature`: a geometry in lon/lat and its properties).  The ruleset decides there, once,
what the viewer may not read; an export, a map or a page writes what it is given and decides
nothing.

It lives in ``schema`` because it is a contract between layers, like the tables: the engine's
rulesets produce it, ``etl`` (exports) and ``web_maps`` consume it, and neither side may import
the other (pyproject.toml ``[tool.importlinter]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

__all__ = ["Feature", "FeatureLayer", "PlayerView", "GEOMETRY_TYPES"]

#: The geometry types a layer may declare (written even when the layer is empty).
GEOMETRY_TYPES = ("Point", "LineString", "Polygon", "MultiPolygon", "MultiLineString")


@dataclass(frozen=True)
class Feature:
    """One thing on the map: a shapely geometry in lon/lat (OGC:CRS84) and its properties
    (scalars, JSON-able: the columns of an exported layer)."""

    geometry: Any
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class FeatureLayer:
    """A named set of features of one geometry type; ``public`` when every viewer sees the same."""

    name: str
    geometry_type: str
    features: Sequence[Feature] = ()
    public: bool = True
    description: str = ""
    #: The properties every feature may have, in order: an empty layer still has its columns.
    columns: Sequence[str] = ()

    def __post_init__(self) -> None:
        if self.geometry_type not in GEOMETRY_TYPES:
            raise ValueError(f"layer {self.name}: geometry type {self.geometry_type!r} is not one of {GEOMETRY_TYPES}")


@dataclass(frozen=True)
class PlayerView:
    """What ``viewer`` (None: the umpire) may see of a campaign now."""

    ruleset: str
    viewer: str | None
    round: int
    phase: str
    status: Mapping[str, Any]
    layers: Sequence[FeatureLayer] = ()
    #: What the view leaves out, in words (empty for the umpire).
    hidden: Sequence[str] = field(default_factory=tuple)

    def layer(self, name: str) -> FeatureLayer:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise KeyError(f"the view has no layer {name!r}: it has {', '.join(x.name for x in self.layers)}")
