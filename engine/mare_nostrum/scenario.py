"""Read a Mare Nostrum scenario folder into a :class:`~bellica.engine.mare_nostrum.model.Scenario`.

The folder (``datasets/scenarios/mare-nostrum`` by default) holds ``provinces.toml``
(``[scenario]``, ``[[province]]``, ``[[border]]``, ``[[passage]]``), ``nations.toml``
(``[[nation]]``, ``[[invader]]``, ``[[independent_army]]``) and ``seas.toml``
(``[[sea]]``).  Every check fails with one line naming the file, the entry and the fix.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from bellica.datasets import SCENARIOS_DIR
from bellica.engine.core.files import read_toml
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

    seas: dict[str, SeaQuadrant] = {}
    for i, s in enumerate(stab.get("sea", []), 1):
        try:
            q = SeaQuadrant(str(s["name"]), float(s["lon"]), float(s["lat"]), str(s.get("note", "")))
        except (KeyError, TypeError, ValueError) as err:
            raise InputError(f"{sf} sea #{i}: {err}: give name, lon and lat") from None
        if q.name in seas:
            raise InputError(f"{sf} sea {q.name!r} is given twice: keep one")
        seas[q.name] = q

    nations: dict[str, Nation] = {}
    for i, n in enumerate(ntab.get("nation", []), 1):
        try:
            nat = Nation(str(n["name"]), str(n["capital"]), str(n["wheel"]), str(n["army"]), str(n.get("colour", "#808080")))
        except KeyError as err:
            raise InputError(f"{nf} nation #{i}: lacks {err}: give name, capital, wheel and army") from None
        if nat.name in nations:
            raise InputError(f"{nf} nation {nat.name!r} is given twice: keep one")
        nations[nat.name] = nat
    if len({n.wheel for n in nations.values()}) != len(nations):
        raise InputError(f"{nf}: two nations read the same wheel: give each its own")

    provinces: dict[str, Province] = {}
    for i, p in enumerate(ptab.get("province", []), 1):
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

    for nat in nations.values():
        caps = [p.name for p in provinces.values() if p.nation == nat.name and p.capital]
        if caps != [nat.capital]:
            raise InputError(f"{nf} nation {nat.name}: capital {nat.capital!r} but provinces.toml marks "
                             f"{caps or 'none'} as its capital: mark exactly that province role = \"capital\"")

    adjacency: dict[str, set[str]] = {p: set() for p in provinces}
    for i, b in enumerate(ptab.get("border", []), 1):
        pair = b.get("between", [])
        if len(pair) != 2 or pair[0] == pair[1] or any(x not in provinces for x in pair):
            raise InputError(f"{pf} border #{i} {pair}: give two different provinces of the file")
        adjacency[pair[0]].add(pair[1])
        adjacency[pair[1]].add(pair[0])
    passages = []
    for i, d in enumerate(ptab.get("passage", []), 1):
        a, b = d.get("from"), d.get("to")
        if a not in provinces or b not in provinces or a == b:
            raise InputError(f"{pf} passage #{i} {a!r} -> {b!r}: give two different provinces of the file")
        passages.append((a, b))

    invaders = []
    for i, v in enumerate(ntab.get("invader", []), 1):
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
    armies = tuple(sorted((int(a["from_turn"]), str(a["army"])) for a in ntab.get("independent_army", [])))

    name = str(ptab.get("scenario", {}).get("name", folder.name))
    return Scenario(name=name, provinces=provinces, nations=nations, seas=seas,
                    adjacency={p: frozenset(s) for p, s in adjacency.items()}, passages=tuple(passages),
                    invaders=tuple(invaders), independent_armies=armies)
