"""A game state as plain JSON data and back (what a ruleset plug-in stores and replays).

:func:`to_dict` gives nested dicts and lists of strings, numbers and booleans only;
:func:`from_dict` rebuilds the frozen :class:`~bellica.engine.magna_graecia.model.GameState`.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, Mapping

from bellica.geo.errors import InputError

from .model import Battle, CityState, Command, Fleet, GameState, Retreat, Salvage, Siege, SideState

__all__ = ["from_dict", "to_dict"]

_LISTS = {"commands": Command, "fleets": Fleet, "sieges": Siege, "battles": Battle, "retreats": Retreat, "salvage": Salvage}


def to_dict(state: GameState) -> dict[str, Any]:
    d = asdict(state)
    d["alliances"] = [list(p) for p in state.alliances]
    return _plain(d)


def _plain(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _build(cls, data: Mapping[str, Any]):
    kw = {}
    for f in fields(cls):
        if f.name not in data:
            continue
        v = data[f.name]
        if isinstance(v, list):
            v = tuple(v)
        kw[f.name] = v
    return cls(**kw)


def from_dict(data: Mapping[str, Any]) -> GameState:
    try:
        kw: dict[str, Any] = {k: data[k] for k in ("scenario", "year", "turn", "current", "phase", "next_id", "capital_rule")
                              if k in data}
        kw["order"] = tuple(data["order"])
        kw["sides"] = {k: _build(SideState, v) for k, v in data["sides"].items()}
        kw["cities"] = {k: _build(CityState, v) for k, v in data.get("cities", {}).items()}
        kw["alliances"] = tuple(tuple(p) for p in data.get("alliances", []))
        for key, cls in _LISTS.items():
            kw[key] = tuple(_build(cls, v) for v in data.get(key, []))
        return GameState(**kw)
    except (KeyError, TypeError) as err:
        raise InputError(f"Magna Graecia state: {err}: give a state written by to_dict") from None
