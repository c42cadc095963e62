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

__all__ = ["Feature", "FeatureLayer", "PlayerView", "Style", "GEOMETRY_TYPES"]

#: The geometry types a layer may declare (written even when the layer is empty).
GEOMETRY_TYPES = ("Point", "LineString", "Polygon", "MultiPolygon", "MultiLineString")


@dataclass(frozen=True)
class Style:
    """How features of one style key are drawn, and what the legend says of them.

    ``shape``: for areas ``fill`` (translucent, the default), ``outline`` (a dashed edge, no
    fill) or ``zone`` (a faint fill in a dashed edge: a sea area); for points ``dot``, ``walled``
    (a dot in a dark ring: a fortified place), ``star``, ``ring``, ``dashed-ring``, ``battle`` (a
    ring with crossed swords), ``army`` or ``navy`` (a counter: its ``text`` and ``sub``), ``symbol``
    (its ``text``, one glyph such as a resource's, on a round badge) or ``label`` (the label alone); for lines ``line``, ``dashed`` or ``dotted``.
    ``size``: a point's radius or a line's width in px (0: the renderer's default).
    ``words``: what the legend says of it (empty: not in the legend)."""

    colour: str
    shape: str = ""
    size: int = 0
    words: str = ""


@dataclass(frozen=True)
class Feature:
    """One thing on the map: a shapely geometry in lon/lat (OGC:CRS84), its properties (scalars,
    JSON-able: the columns of an exported layer) and how a map shows it: a ``label`` written
    beside it, a ``text`` on its counter (and a ``sub`` line under it), a ``style`` key of the
    view's :attr:`PlayerView.styles`, and ``tooltip`` rows ``(label, value)``."""

    geometry: Any
    properties: Mapping[str, Any]
    label: str = ""
    text: str = ""
    sub: str = ""
    style: str = ""
    tooltip: tuple[tuple[str, str], ...] = ()


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
    #: Whether a map shows the layer when it opens (the others are in its layer control).
    show: bool = True
    #: The map's name for the layer (its layer control entry and legend heading; empty: ``name``).
    #: Layers of one title are drawn as one map layer (the counters of all of them side by side).
    title: str = ""

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
    #: How each style key of the features is drawn (and named in the legend).
    styles: Mapping[str, Style] = field(default_factory=dict)
    #: The map's title and its panel's rows ``(label, value)``: where the campaign stands, in words.
    title: str = ""
    panel: Sequence[tuple[str, str]] = ()

    def layer(self, name: str) -> FeatureLayer:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise KeyError(f"the view has no layer {name!r}: it has {', '.join(x.name for x in self.layers)}")
