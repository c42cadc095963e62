"""Mare Nostrum's names as players type them: a nation, province, sea quadrant or wheel in any
case or by its beginning, and an action's input with every name spelled as the scenario spells
it (what the log records)."""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.names import matches as _match
from bellica.engine.core.names import named
from bellica.geo.errors import InputError

from . import building
from .model import Scenario, pirates_name

__all__ = ["WHEEL_CITIES", "nation_named", "province_named", "resolve", "sea_named", "wheel_named"]

#: Wheel codes and the Lotto cities they stand for (the seed's wheels).
WHEEL_CITIES = {"BA": "Bari", "CA": "Cagliari", "FI": "Firenze", "GE": "Genova", "MI": "Milano", "NA": "Napoli",
                "PA": "Palermo", "RM": "Roma", "TO": "Torino", "VE": "Venezia"}


def nation_named(c, name: str, where: str = "--nation") -> str:
    """The nation ``name`` means: its name in any case, or the unique nation it begins ("Roma", "carth")."""
    return named(name, list(c.board.nations), where, "no nation of this campaign")


def province_named(scenario: Scenario, name: str, what: str = "province") -> str:
    return named(name, list(scenario.provinces), what, "not a province of this campaign")


def sea_named(scenario: Scenario, name: str) -> str:
    """A sea quadrant by the one matcher: any case, a unique beginning of it or of a later word ("Ionian")."""
    return named(name, list(scenario.seas), "--sea", "not a sea quadrant of this campaign")


def wheel_named(scenario: Scenario, name: str) -> str:
    """A wheel code from a code (BA), a city (Bari) or a nation's name (Carthaginians)."""
    from bellica.engine.core.names import did_you_mean

    codes = [w.wheel for w in scenario.nations.values()]
    means = {code: code for code in codes} | {WHEEL_CITIES.get(c, c): c for c in codes}
    means |= {n: nat.wheel for n, nat in scenario.nations.items()}
    found = _match(name, list(means))  # the one matcher: any case, a unique beginning
    wheels = list(dict.fromkeys(means[f] for f in found))
    if len(wheels) == 1:
        return wheels[0]
    raise InputError(f"--wheel {name!r}: {did_you_mean(name, found, list(means))}give one of the wheels "
                     + ", ".join(f"{c} ({WHEEL_CITIES.get(c, c)})" for c in codes) + " or a nation's name")


def resolve(c, scenario: Scenario, step: str, arg: Mapping) -> dict:
    """The action's input with every name spelled as the scenario spells it (what the log records)."""
    out = {}
    for k, v in arg.items():
        if v is None or v == "":
            if k == "sea":
                out[k] = ""
            continue
        if k in ("province", "base", "target") and not (step == "peace" and k == "target"):
            out[k] = province_named(scenario, v, {"base": "--from", "target": "--into"}.get(k, "province"))
        elif k == "target":
            out[k] = nation_named(c, v, "--with")
        elif k == "sea":
            out[k] = sea_named(scenario, v)
        elif k == "enemy":
            pirates = pirates_name(c.rules)
            out[k] = named(v, list(c.board.nations) + [pirates], "--enemy", "no nation of this campaign")
        elif k == "work":
            works = tuple(building.WORKS)
            found = _match(v, works) or ([w for w in works if w + "s" == str(v).strip().casefold()])
            if len(found) != 1:
                from bellica.engine.core.names import did_you_mean

                raise InputError(f"work {v!r}: {did_you_mean(v, found, works)}build one of {', '.join(works)}")
            out[k] = found[0]
        else:
            out[k] = v
    need = {"build": ("work", "province"), "peace": ("target",), "alliance": ("province",), "attack": ("base", "target"),
            "amphibious": ("base", "sea", "target"), "naval": ("sea", "enemy"), "destroy": ("work", "province"),
            "artworks": ("province",)}.get(step, ())
    for k in need:
        if k not in out:
            flag = {"base": "--from", "target": "--into" if step != "peace" else "--with", "enemy": "--enemy",
                    "sea": "--sea"}.get(k, k.upper())
            raise InputError(f"{step}: give {flag}")
    if step == "build":
        out.setdefault("sea", "")
    return out
