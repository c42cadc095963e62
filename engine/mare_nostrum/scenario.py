"""Read a Mare Nostrum scenario folder into a :class:`~bellica.engine.mare_nostrum.model.Scenario`.

The folder (``datasets/scenarios/mare-nostrum`` by default) holds ``provinces.toml``
(``[scenario]``, ``[[province]]``, ``[[border]]``, ``[[passage]]``), ``nations.toml``
(``[[nation]]``, ``[[invader]]``, ``[[independent_army]]``) and ``seas.toml``
(``[[sea]]``).  Every check fails with one line naming the file, the entry and the fix.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Mapping

from bellica.datasets import SCENARIOS_DIR
from bellica.engine.core.files import border_entries, named_entries, read_toml
from bellica.engine.core.stepped import adjacency_of
from bellica.geo.errors import InputError

from .model import Invader, Nation, Province, Scenario, SeaQuadrant

__all__ = ["DEFAULT_SCENARIO", "ROLES", "default_scenario", "load_scenario", "scenario_meta"]

DEFAULT_SCENARIO = SCENARIOS_DIR / "mare-nostrum"
ROLES = ("capital", "home", "border", "independent")


def _read(path: Path) -> dict:
    return read_toml(path, "a Mare Nostrum scenario folder")


def scenario_meta(folder: str | Path = DEFAULT_SCENARIO) -> dict:
    """The ``[scenario]`` table of ``provinces.toml`` (name, title, bbox, resolution, ...)."""
    return dict(_read(Path(folder) / "provinces.toml").get("scenario", {}))


@lru_cache(maxsize=None)
def default_scenario() -> Scenario:
    return load_scenario(DEFAULT_SCENARIO)


def load_scenario(folder: str | Path = DEFAULT_SCENARIO) -> Scenario:
    folder = Path(folder)
    pf, nf, sf = folder / "provinces.toml", folder / "nations.toml", folder / "seas.toml"
    ptab, ntab, stab = _read(pf), _read(nf), _read(sf)
    seas = named_entries(stab.get("sea", []), _sea, where=sf, what="sea", fix="give name, lon and lat")
    nations = _nations(ntab.get("nation", []), nf)
    provinces = _provinces(ptab.get("province", []), pf, nations, seas)
    _check_capitals(nations, provinces, nf)
    adjacency = adjacency_of(provinces, border_entries(ptab.get("border", []), provinces, where=pf))
    name = str(ptab.get("scenario", {}).get("name", folder.name))
    return Scenario(name=name, provinces=provinces, nations=nations, seas=seas, adjacency=adjacency,
                    passages=_passages(ptab.get("passage", []), pf, provinces),
                    invaders=_invaders(ntab.get("invader", []), nf, nations, provinces),
                    independent_armies=tuple(sorted((int(a["from_turn"]), str(a["army"]))
                                                    for a in ntab.get("independent_army", []))))


def _sea(s: Mapping) -> SeaQuadrant:
    return SeaQuadrant(str(s["name"]), float(s["lon"]), float(s["lat"]), str(s.get("note", "")))


def _nations(entries: list, nf: Path) -> dict[str, Nation]:
    """``[[nation]]`` of nations.toml, each reading a wheel of its own."""
    nations = named_entries(entries, lambda n: Nation(str(n["name"]), str(n["capital"]), str(n["wheel"]), str(n["army"]),
                                                      str(n.get("colour", "#808080"))),
                            where=nf, what="nation", fix="give name, capital, wheel and army")
    if len({n.wheel for n in nations.values()}) != len(nations):
        raise InputError(f"{nf}: two nations read the same wheel: give each its own")
    return nations


def _provinces(entries: list, pf: Path, nations: Mapping[str, Nation],
               seas: Mapping[str, SeaQuadrant]) -> dict[str, Province]:
    """``[[province]]`` of provinces.toml, each with a known role, a nation unless independent, and known seas."""
    provinces: dict[str, Province] = {}
    for i, p in enumerate(entries, 1):
        where = f"{pf} province #{i} ({p.get('name', '?')})"
        try:
            prov = Province(name=str(p["name"]), nation=p.get("nation"), role=str(p["role"]), city=str(p.get("capital", "")),
                            lon=float(p["lon"]), lat=float(p["lat"]), seas=tuple(p.get("seas", ())),
                            revenue=int(p.get("revenue", 1)))
        except (KeyError, TypeError, ValueError) as err:
            raise InputError(f"{where}: {err}: give name, role, lon and lat") from None
        if prov.name in provinces:
            raise InputError(f"{where}: the name is given twice: keep one")
        if prov.role not in ROLES:
            raise InputError(f"{where}: role {prov.role!r}: give one of {', '.join(ROLES)}")
        if (prov.nation is None) != (prov.role == "independent"):
            raise InputError(f"{where}: give a nation unless the province is independent, and none if it is")
        if prov.nation is not None and prov.nation not in nations:
            raise InputError(f"{where}: nation {prov.nation!r} is not in nations.toml; use one of {', '.join(nations)}")
        if not (-180 <= prov.lon <= 180 and -90 <= prov.lat <= 90):
            raise InputError(f"{where}: lon/lat out of range: give degrees")
        for s in prov.seas:
            if s not in seas:
                raise InputError(f"{where}: sea {s!r} is not in seas.toml; use one of {', '.join(seas)}")
        provinces[prov.name] = prov
    return provinces


def _check_capitals(nations: Mapping[str, Nation], provinces: Mapping[str, Province], nf: Path) -> None:
    """Each nation's capital is the one province provinces.toml marks as its capital."""
    for nat in nations.values():
        caps = [p.name for p in provinces.values() if p.nation == nat.name and p.capital]
        if caps != [nat.capital]:
            raise InputError(f"{nf} nation {nat.name}: capital {nat.capital!r} but provinces.toml marks "
                             f"{caps or 'none'} as its capital: mark exactly that province role = \"capital\"")


def _passages(entries: list, pf: Path, provinces: Mapping[str, Province]) -> tuple[tuple[str, str], ...]:
    """``[[passage]]`` of provinces.toml: one-way crossings (``from``, ``to``) between two provinces."""
    passages = []
    for i, d in enumerate(entries, 1):
        a, b = d.get("from"), d.get("to")
        if a not in provinces or b not in provinces or a == b:
            raise InputError(f"{pf} passage #{i} {a!r} -> {b!r}: give two different provinces of the file")
        passages.append((a, b))
    return tuple(passages)


def _invaders(entries: list, nf: Path, nations: Mapping[str, Nation],
              provinces: Mapping[str, Province]) -> tuple[Invader, ...]:
    """``[[invader]]`` of nations.toml: an army invading a nation's province, managed by a nation."""
    invaders = []
    for i, v in enumerate(entries, 1):
        where = f"{nf} invader #{i}"
        try:
            prov, army, by = str(v["province"]), str(v["army"]), str(v["managed_by"])
        except KeyError as err:
            raise InputError(f"{where}: lacks {err}: give province, army and managed_by") from None
        if prov not in provinces or provinces[prov].nation is None:
            raise InputError(f"{where}: {prov!r} is not a nation's province of provinces.toml")
        if by not in nations:
            raise InputError(f"{where}: managed_by {by!r}: use one of {', '.join(nations)}")
        invaders.append(Invader(prov, provinces[prov].nation, army, by))
    return tuple(invaders)
