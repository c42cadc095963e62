"""Reading a Rise of Rome scenario folder (``datasets/scenarios/rise-of-rome``) into a :class:`Scenario`.

Two files: ``provinces.toml`` (``[scenario]`` meta, ``[[province]]`` with capital and
coordinates, home power, resource, coast and revenue, ``[[border]]`` land adjacency)
and ``powers.toml`` (``[[power]]``: the nine powers and the two external ones, optional
given starting rulers).  Every mistake is one line naming the file, the entry and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bellica.datasets import SCENARIOS_DIR
from bellica.engine.core.files import border_entries, read_toml
from bellica.engine.core.stepped import adjacency_of
from bellica.engine.rise_of_rome.model import Power, Province, Scenario
from bellica.geo.errors import InputError

__all__ = ["SCENARIO", "load_scenario", "scenario_meta"]

SCENARIO = "rise-of-rome"


def _read(path: Path) -> dict[str, Any]:
    return read_toml(path, "a Rise of Rome scenario folder")


def _folder(name_or_path: str | Path) -> Path:
    p = Path(name_or_path)
    return p if p.is_dir() else SCENARIOS_DIR / str(name_or_path)


def scenario_meta(name_or_path: str | Path = SCENARIO) -> dict[str, Any]:
    """The ``[scenario]`` table of provinces.toml (title, bbox, resolution, ruleset)."""
    return dict(_read(_folder(name_or_path) / "provinces.toml").get("scenario", {}))


def load_scenario(name_or_path: str | Path = SCENARIO) -> Scenario:
    folder = _folder(name_or_path)
    pfile, wfile = folder / "provinces.toml", folder / "powers.toml"
    prov_data, pow_data = _read(pfile), _read(wfile)
    powers: dict[str, Power] = {}
    given: dict[str, tuple[int, int, int]] = {}
    player = None
    for i, row in enumerate(pow_data.get("power", []), start=1):
        name = row.get("name")
        if not name or name in powers:
            raise InputError(f"{wfile} power #{i}: give each power a name of its own")
        external = bool(row.get("external", False))
        is_player = bool(row.get("player", False))
        if is_player:
            if player:
                raise InputError(f"{wfile} power {name!r}: {player!r} is already the player; only one power is")
            player = name
        powers[name] = Power(name, (), external, is_player)
        if "ruler" in row:
            r = row["ruler"]
            if not (isinstance(r, list) and len(r) == 3 and all(isinstance(x, int) and 1 <= x <= 10 for x in r)):
                raise InputError(f"{wfile} power {name!r} ruler = {r!r}: give three D10 results [aggressor, protector, builder]")
            given[name] = tuple(r)  # type: ignore[assignment]
    if player is None:
        raise InputError(f"{wfile}: no power has player = true: mark the player's power (Rome)")
    provinces: dict[str, Province] = {}
    homes: dict[str, list[str]] = {p: [] for p in powers}
    for i, row in enumerate(prov_data.get("province", []), start=1):
        name = row.get("name")
        if not name or name in provinces:
            raise InputError(f"{pfile} province #{i}: give each province a name of its own")
        home = row.get("home")
        if home not in powers or powers[home].external:
            raise InputError(f"{pfile} province {name!r} home = {home!r}: give one of the nine powers "
                             f"({', '.join(p for p in powers if not powers[p].external)})")
        try:
            lon, lat = float(row["lon"]), float(row["lat"])
            revenue = int(row["revenue"])
        except (KeyError, TypeError, ValueError) as err:
            raise InputError(f"{pfile} province {name!r}: missing or bad {err}: give lon, lat and revenue") from None
        if not (-180 <= lon <= 180 and -90 <= lat <= 90) or revenue < 0:
            raise InputError(f"{pfile} province {name!r}: lon/lat out of range or negative revenue: fix them")
        provinces[name] = Province(name, home, row.get("resource") or None, bool(row.get("coastal", False)),
                                   revenue, row.get("capital", ""), lon, lat)
        homes[home].append(name)
    adjacency = adjacency_of(provinces, border_entries(prov_data.get("border", []), provinces, where=pfile))
    for name, power in powers.items():
        if not power.external and not homes[name]:
            raise InputError(f"{pfile}: power {name!r} has no home province: give it at least one")
        powers[name] = Power(name, tuple(homes[name]), power.external, power.player)
    lonely = [p for p, n in adjacency.items() if not n]
    if lonely:
        raise InputError(f"{pfile}: province {lonely[0]!r} borders no other: add a [[border]] for it")
    return Scenario(name=str(prov_data.get("scenario", {}).get("name", folder.name)), provinces=provinces,
                    powers=powers, adjacency=adjacency, player=player,
                    given_rulers=given)
