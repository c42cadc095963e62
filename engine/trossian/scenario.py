"""Read a Trossian scenario folder into a :class:`~bellica.engine.trossian.model.Scenario`.

The folder (``datasets/scenarios/trossian`` by default) holds ``provinces.toml`` (the
campaign's map file: ``[scenario]`` with bbox and resolution, each province's seat as
``lon``/``lat``, the province builder's ``[[exception]]`` crossings), ``seas.toml`` (the sea
lanes' boxes), ``world.toml`` (``[[nation]]``, ``[[province]]`` with towns and ports,
``[links]`` borders, roads and lane links, ``[[lane]]`` with the ice), ``forces.toml`` (the
starting census) and ``cards.toml`` (the chance-card deck).  Every check fails with one line
naming the file, the entry and the fix.  :func:`builder_file` writes the map file in the
province builder's own format (``bellica map provinces``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from bellica.datasets import SCENARIOS_DIR
from bellica.engine.core.files import named_entries, read_toml
from bellica.geo.errors import InputError

from .cards import check_cards
from .model import Lane, Nation, Province, Scenario, Town
from .rules import Rules, default_rules

__all__ = ["DEFAULT_SCENARIO", "builder_file", "default_scenario", "load_scenario", "parse_unit"]

DEFAULT_SCENARIO = SCENARIOS_DIR / "trossian"
QUALITIES = ("line", "guard", "militia")


def _read(path: Path) -> dict:
    return read_toml(path, "a Trossian scenario folder")


@lru_cache(maxsize=None)
def default_scenario() -> Scenario:
    return load_scenario(DEFAULT_SCENARIO)


def parse_unit(text: str, rules: Rules, where: str) -> tuple[str, str]:
    """"heavy_infantry:guard" -> ("heavy_infantry", "guard")."""
    kind, _, quality = str(text).partition(":")
    quality = quality or ("militia" if kind.startswith("militia") else "line")
    if kind not in rules.units.kinds():
        raise InputError(f"{where}: unit {kind!r}: use one of {', '.join(rules.units.kinds())}")
    if quality not in QUALITIES:
        raise InputError(f"{where}: unit {text!r}: quality {quality!r}: use {', '.join(QUALITIES)}")
    return kind, quality


def _pairs(items: Any, known, what: str, where: str) -> frozenset[frozenset[str]]:
    out = set()
    for i, pair in enumerate(items or (), 1):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise InputError(f"{where} {what} #{i} = {pair!r}: give a pair [\"A\", \"B\"]")
        a, b = pair
        for x in (a, b):
            if x not in known:
                raise InputError(f"{where} {what} {a!r}-{b!r}: {x!r} is not one of them ({', '.join(known)})")
        if a == b:
            raise InputError(f"{where} {what} {a!r}-{b!r}: give two different names")
        out.add(frozenset((a, b)))
    return frozenset(out)


def load_scenario(folder: str | Path = DEFAULT_SCENARIO, rules: Rules | None = None) -> Scenario:
    folder = Path(folder)
    rules = rules or default_rules()
    wf, mf, sf, ff, cf = (folder / n for n in ("world.toml", "provinces.toml", "seas.toml", "forces.toml", "cards.toml"))
    world, mapd, seas, forces, cards = _read(wf), _read(mf), _read(sf), _read(ff), _read(cf)
    meta = dict(mapd.get("scenario", {}))
    lanes = _lanes(world.get("lane", []), wf, [s.get("name") for s in seas.get("sea", [])], sf)
    nations = named_entries(world.get("nation", []), lambda entry: Nation(
        str(entry["name"]), str(entry["capital"]), str(entry.get("colour", "#808080")), str(entry.get("note", ""))),
        where=wf, what="nation", fix="give name and capital")
    if not nations:
        raise InputError(f"{wf}: no [[nation]] entries: give the player nations")
    provinces, towns, holders = _provinces(world.get("province", []), wf, mapd.get("province", []), mf, nations, lanes)
    borders, roads, lane_links = _links(world.get("links", {}), wf, provinces, lanes)
    check_cards(cards.get("card", []), rules, str(cf))
    _check_forces(forces, rules, ff, nations, provinces, towns, holders)
    return Scenario(name=str(meta.get("name", folder.name)), title=str(meta.get("title", folder.name)),
                    year=int(meta.get("year", rules.calendar.first_year)), provinces=provinces, towns=towns,
                    lanes=lanes, nations=nations, borders=borders, roads=roads, lane_links=lane_links,
                    holders=holders, forces=forces, cards=tuple(cards.get("card", [])), meta=meta)


def _lanes(entries: list, wf: Path, map_seas: list, sf: Path) -> dict[str, Lane]:
    """``[[lane]]`` of world.toml: one for each ``[[sea]]`` of seas.toml, and no other."""
    lanes: dict[str, Lane] = {}
    for i, entry in enumerate(entries, 1):
        name = entry.get("name")
        if name not in map_seas:
            raise InputError(f"{wf} lane #{i} {name!r}: not a [[sea]] of {sf.name}: use one of {', '.join(map_seas)}")
        if name in lanes:
            raise InputError(f"{wf} lane {name!r} is given twice: keep one")
        lanes[name] = Lane(name, bool(entry.get("freezes", False)), str(entry.get("note", "")))
    missing = [s for s in map_seas if s not in lanes]
    if missing:
        raise InputError(f"{wf}: no [[lane]] for {', '.join(missing)} of {sf.name}: add one each")
    return lanes


def _provinces(entries: list, wf: Path, map_entries: list, mf: Path, nations: Mapping[str, Nation],
               lanes: Mapping[str, Lane]) -> tuple[dict[str, Province], dict[str, Town], dict[str, str | None]]:
    """``[[province]]`` of world.toml, one for each ``[[province]]`` of the map file (whose seat
    gives its lon and lat), with its towns; and who holds each at the start.  Every nation's
    capital is a province it holds."""
    map_provinces = {p.get("name"): p for p in map_entries}
    provinces: dict[str, Province] = {}
    towns: dict[str, Town] = {}
    holders: dict[str, str | None] = {}
    for i, entry in enumerate(entries, 1):
        name = entry.get("name")
        where = f"{wf} province {name!r}"
        if name not in map_provinces:
            raise InputError(f"{wf} province #{i} {name!r}: not a [[province]] of {mf.name}: add it there or fix the name")
        if name in provinces:
            raise InputError(f"{where} is given twice: keep one")
        for key in ("holder", "home"):
            if entry.get(key) is not None and entry[key] not in nations:
                raise InputError(f"{where} {key} {entry[key]!r}: use one of {', '.join(nations)}")
        own = _towns(entry.get("towns", []), name, where, towns, lanes)
        coast = tuple(entry.get("coast", ()))
        for lane in coast:
            if lane not in lanes:
                raise InputError(f"{where} coast {lane!r}: use one of {', '.join(lanes)}")
        try:
            lon, lat = float(map_provinces[name]["lon"]), float(map_provinces[name]["lat"])
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{mf} province {name!r}: give lon and lat in degrees") from None
        provinces[name] = Province(name, str(entry.get("seat", name)), float(lon), float(lat), entry.get("home"),
                                   tuple(t.name for t in own), tuple(t.name for t in own if t.port), coast,
                                   str(entry.get("note", "")))
        holders[name] = entry.get("holder")
    missing = [p for p in map_provinces if p not in provinces]
    if missing:
        raise InputError(f"{wf}: no [[province]] for {', '.join(missing)} of {mf.name}: add one each")
    for n in nations.values():
        if n.capital not in provinces or holders.get(n.capital) != n.name:
            raise InputError(f"{wf} nation {n.name!r} capital {n.capital!r}: give a province it holds")
    return provinces, towns, holders


def _towns(entries: list, province: str, where: str, towns: dict[str, Town], lanes: Mapping[str, Lane]) -> list[Town]:
    """The towns of ``province`` (``where`` in messages), each named once in the whole file
    (``towns``, which gains them) and a port only on a known lane."""
    found = []
    for t in entries:
        tname = t.get("name")
        if not tname or tname in towns:
            raise InputError(f"{where}: town {tname!r} is unnamed or given twice: name each town once")
        lane = str(t.get("lane", ""))
        if lane and lane not in lanes:
            raise InputError(f"{where} town {tname!r} lane {lane!r}: use one of {', '.join(lanes)}")
        if t.get("port") and not lane:
            raise InputError(f"{where} town {tname!r} is a port without a lane: give its lane")
        try:
            town = Town(tname, province, float(t["lon"]), float(t["lat"]), bool(t.get("port", False)), lane)
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{where} town {tname!r}: give lon and lat in degrees") from None
        towns[tname] = town
        found.append(town)
    return found


def _links(links: Mapping, wf: Path, provinces: Mapping[str, Province], lanes: Mapping[str, Lane]) -> tuple:
    """``[links]`` of world.toml: the borders, the roads (each along a border) and the lane links."""
    borders = _pairs(links.get("borders"), provinces, "border", str(wf))
    roads = _pairs(links.get("roads"), provinces, "road", str(wf))
    for r in roads:
        if r not in borders:
            a, b = sorted(r)
            raise InputError(f"{wf} road {a!r}-{b!r}: the provinces do not border: add the border or drop the road")
    return borders, roads, _pairs(links.get("lane_links"), lanes, "lane link", str(wf))


def _check_forces(forces: dict, rules: Rules, ff: Path, nations, provinces, towns, holders) -> None:
    for i, army in enumerate(forces.get("army", []), 1):
        where = f"{ff} army #{i} {army.get('name', '')!r}"
        if army.get("nation") not in nations:
            raise InputError(f"{where}: nation {army.get('nation')!r}: use one of {', '.join(nations)}")
        p = army.get("province")
        if p not in provinces or not provinces[p].city:
            raise InputError(f"{where}: province {p!r}: armies begin in a town province")
        if not army.get("units"):
            raise InputError(f"{where}: give its units")
        for u in army["units"]:
            parse_unit(u, rules, where)
    for i, navy in enumerate(forces.get("navy", []), 1):
        where = f"{ff} navy #{i}"
        t = towns.get(navy.get("port"))
        if navy.get("nation") not in nations:
            raise InputError(f"{where}: nation {navy.get('nation')!r}: use one of {', '.join(nations)}")
        if t is None or not t.port or holders.get(t.province) != navy["nation"]:
            raise InputError(f"{where}: port {navy.get('port')!r}: give a port town its nation holds")
    for i, c in enumerate(forces.get("couriers", []), 1):
        if c.get("nation") not in nations or not isinstance(c.get("count"), int) or c["count"] < 0:
            raise InputError(f"{ff} couriers #{i}: give a nation and a count (0 or more)")
    for i, b in enumerate(forces.get("bank", []), 1):
        p = b.get("province")
        if b.get("nation") not in nations or p not in provinces or not provinces[p].city \
                or holders.get(p) != b.get("nation") or not isinstance(b.get("ap"), int):
            raise InputError(f"{ff} bank #{i}: give a nation, a city province it holds and whole AP")
    _check_census(forces, rules, ff, nations)


def _check_census(forces: dict, rules: Rules, ff: Path, nations) -> None:
    """``[census.<nation>]``: kind -> the most units of it the nation may field (the stands it
    owns); the starting forces must fit."""
    census = forces.get("census", {})
    if not isinstance(census, dict):
        raise InputError(f"{ff} census: give a table [census.<nation>] of kind = count")
    known = (*rules.units.kinds(), "navy", "courier")
    for nation, limits in census.items():
        where = f"{ff} census {nation!r}"
        if nation not in nations:
            raise InputError(f"{where}: use one of {', '.join(nations)}")
        if not isinstance(limits, dict):
            raise InputError(f"{where}: give kind = count pairs")
        have: dict[str, int] = {}
        for army in forces.get("army", []):
            if army.get("nation") == nation:
                for u in army["units"]:
                    kind = parse_unit(u, rules, where)[0]
                    have[kind] = have.get(kind, 0) + 1
        have["navy"] = sum(1 for n in forces.get("navy", []) if n.get("nation") == nation)
        have["courier"] = sum(int(c.get("count", 0)) for c in forces.get("couriers", []) if c.get("nation") == nation)
        for kind, count in limits.items():
            if kind not in known:
                raise InputError(f"{where} {kind!r}: use one of {', '.join(known)}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InputError(f"{where} {kind} = {count!r}: give a whole number, 0 or more")
            if have.get(kind, 0) > count:
                raise InputError(f"{where}: the starting forces hold {have[kind]} {kind}, above its {count}: "
                                 "raise the census or trim the forces")


def builder_file(folder: str | Path = DEFAULT_SCENARIO) -> str:
    """The scenario's map in the province builder's format (``capital = [lon, lat]`` and ``towns``,
    ``reach_km``, the ``[[exception]]`` crossings, the ``[[barrier]]`` rivers, each lane's ``bbox``): what ``bellica map provinces MAP FILE``
    reads to grow the same provinces and sea areas outside a campaign."""
    folder = Path(folder)
    mapd, seas = _read(folder / "provinces.toml"), _read(folder / "seas.toml")

    def q(s) -> str:
        return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'

    out = [f"# {mapd.get('scenario', {}).get('title', folder.name)}: the province builder's file, written from "
           f"{folder.name}/provinces.toml and seas.toml\n"]
    for p in mapd.get("province", []):
        towns = ", ".join(f"{{ name = {q(t['name'])}, lon = {float(t['lon'])}, lat = {float(t['lat'])} }}"
                          for t in p.get("towns", []))
        out.append(f"[[province]]\nname = {q(p['name'])}\ncapital = [{float(p['lon'])}, {float(p['lat'])}]\n"
                   + (f"towns = [{towns}]\n" if towns else "")
                   + (f"reach_km = {float(p['reach_km'])}\n" if "reach_km" in p else ""))
    for e in mapd.get("exception", []):
        out.append(f"[[exception]]\nfrom = {q(e['from'])}\nto = {q(e['to'])}\n")
    for b in mapd.get("barrier", []):  # rivers and straits the provinces do not grow across
        out.append(f"[[barrier]]\nname = {q(b['name'])}\nline = {[[float(x), float(y)] for x, y in b['line']]}\n")
    if "reach_km" in mapd.get("allocation", {}):
        out.append(f"[allocation]\nreach_km = {float(mapd['allocation']['reach_km'])}\n")
    for s in seas.get("sea", []):
        out.append(f"[[sea]]\nname = {q(s['name'])}\nbbox = {[float(v) for v in s['bounds']]}\n")
    return "\n".join(out)
