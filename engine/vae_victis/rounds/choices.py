"""The administration phase's choices (advances after battle, navies' debarkation, siege
starts, take-overs, surrenders) and their TOML file format (``bellica round administer --choices FILE``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from bellica.geo.errors import InputError
from bellica.geo.files import parse_user_toml, read_user_text, whole_number

__all__ = ["AdminChoices", "parse_choices_text", "load_choices", "choices_from_json"]


@dataclass(frozen=True)
class AdminChoices:
    """The umpire's and players' choices the administration phase needs (docs/rules/rounds.md).

    ``advances``: winner -> the vacated hex it advances into (an H3 cell, a structure
    name, or a clock position from the army's hex); ``siege_starts``: army -> structure
    it starts (or joins) besieging; ``take_overs``: structures whose running siege the
    army's faction continues; ``surrenders``: structures their controller surrenders.
    """

    advances: Mapping[int, str | int] = field(default_factory=dict)
    siege_starts: Mapping[int, str] = field(default_factory=dict)
    take_overs: frozenset[str] = frozenset()
    surrenders: frozenset[str] = frozenset()
    debarks: Mapping[int, str | int] = field(default_factory=dict)
    """navy -> the land hex it debarks into (clock position from its hex, H3 cell or structure name);
    a navy not named stays at sea (administration step 3)."""

    def to_json(self) -> dict:
        return {
            "advances": {str(k): v for k, v in sorted(self.advances.items())},
            "siege_starts": {str(k): v for k, v in sorted(self.siege_starts.items())},
            "take_overs": sorted(self.take_overs),
            "surrenders": sorted(self.surrenders),
            "debarks": {str(k): v for k, v in sorted(self.debarks.items())},
        }


_CHOICE_KEYS = {"advance": "army = hex (H3 cell, structure or clock position)", "siege": "start / take_over / surrender",
                "debark": "navy = hex (clock position, H3 cell or structure)"}


def parse_choices_text(text: str, source: str = "<choices>") -> AdminChoices:
    """Administration choices from TOML::

        [advance]
        14 = 5                 # army 14 advances through its clock-5 side (or a cell / structure name)

        [debark]
        6 = 3                  # navy 6 debarks its army through its clock-3 side (or a cell / structure name)

        [siege]
        start = { 4 = "Gela" } # army 4 starts (or joins) the siege of Gela
        take_over = []         # structures whose siege this faction continues
        surrender = []         # structures their controller surrenders
    """
    doc = parse_user_toml(text, source)
    unknown = sorted(set(doc) - set(_CHOICE_KEYS))
    if unknown:
        raise InputError(f"{source}: unknown section {unknown[0]!r}; sections are [advance], [debark] and [siege]")

    def army_key(key: str, where: str) -> int:
        army = whole_number(key)
        if army is None:  # ASCII digits only: "٩" is not army 9
            raise InputError(f"{source}: [{where}] key {key!r} must be an army number in digits 0-9")
        return army

    def table(value, where: str, example: str) -> dict:
        if not isinstance(value, dict):
            raise InputError(f"{source}: {where} must be a table, like {example}; got {value!r}")
        return value

    def hexes(section: str, example: str) -> dict[int, str | int]:
        out: dict[int, str | int] = {}
        for key, value in table(doc.get(section, {}), f"[{section}]", example).items():
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise InputError(f"{source}: [{section}] {key} = {value!r}: give a clock position, an H3 cell or a structure name")
            out[army_key(key, section)] = value
        return out

    advances = hexes("advance", "[advance] 14 = 5")
    debarks = hexes("debark", "[debark] 6 = 3")
    siege = table(doc.get("siege", {}), "[siege]", '[siege] start = { 4 = "Gela" }')
    bad = sorted(set(siege) - {"start", "take_over", "surrender"})
    if bad:
        raise InputError(f"{source}: [siege] has unknown key {bad[0]!r}; keys are start, take_over, surrender")
    starts = {}
    for key, value in table(siege.get("start", {}), "[siege] start", 'start = { 4 = "Gela" }').items():
        if not isinstance(value, str):
            raise InputError(f"{source}: [siege] start {key} = {value!r}: give the structure's name")
        starts[army_key(key, "siege.start")] = value
    lists = {}
    for name in ("take_over", "surrender"):
        value = siege.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"{source}: [siege] {name} must be a list of structure names, got {value!r}")
        lists[name] = frozenset(value)
    return AdminChoices(advances, starts, lists["take_over"], lists["surrender"], debarks)


def load_choices(path) -> AdminChoices:
    """Read a TOML administration choices file (see :func:`parse_choices_text`)."""
    return parse_choices_text(read_user_text(path, "choices file"), f"choices file {path}")


def choices_from_json(value: Mapping) -> AdminChoices:
    """The choices as :meth:`AdminChoices.to_json` recorded them (the ``administration_choices`` note)."""
    return AdminChoices(
        advances={int(k): a for k, a in value["advances"].items()},
        siege_starts={int(k): x for k, x in value["siege_starts"].items()},
        take_overs=frozenset(value["take_overs"]),
        surrenders=frozenset(value["surrenders"]),
        debarks={int(k): x for k, x in value.get("debarks", {}).items()},
    )
