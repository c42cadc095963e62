"""Vae Victis II's position lines for the adjudication cases (engine/core/cases.py, docs/cases.md).

Read before the core's ``TABLE column=value`` lines:

* ``army ID at HEX [strength N] [faction F]``: the army stands in HEX (a structure's name and clock
  steps from it, ``Roma 3 3``, or an H3 cell), alive, with N FP (default: unchanged); a new army
  needs its faction.
* ``eliminate ID ...``: the armies are out of the game.
* ``control STRUCTURE FACTION`` (``nobody``: no controller).
* ``siege STRUCTURE by FACTION resilience N [since ROUND] armies ID ...``: a siege under way.
"""

from __future__ import annotations

from typing import Sequence

from bellica.geo.errors import InputError

__all__ = ["case_position"]

_WORDS = ("strength", "faction")


def case_position(campaign, words: Sequence[str]) -> list[tuple[str, str, dict]] | None:
    if not words:
        return None
    head, rest = words[0], list(words[1:])
    if head == "army":
        return [_army(campaign, rest)]
    if head == "eliminate":
        return [("put", "armies", {"id": int(w), "eliminated": True}) for w in rest]
    if head == "control" and len(rest) >= 2:
        structure = _structure(campaign, " ".join(rest[:-1]))
        who = None if rest[-1].lower() == "nobody" else _faction(campaign, rest[-1])
        return [("put", "control", {"structure": structure, "controller": who})]
    if head == "siege":
        return _siege(campaign, rest)
    return None


def _army(campaign, rest: list[str]) -> tuple[str, str, dict]:
    from bellica.engine.vae_victis.hex_names import resolve_hex_name

    if len(rest) < 3 or not rest[0].isdigit() or rest[1] != "at":
        raise InputError("position: write `army ID at HEX [strength N] [faction F]`")
    row: dict = {"id": int(rest[0]), "eliminated": False}
    i = 2
    where: list[str] = []
    while i < len(rest) and rest[i] not in _WORDS:
        where.append(rest[i])
        i += 1
    row["cell"] = resolve_hex_name(campaign.con, " ".join(where), where="position army")
    while i < len(rest):
        if i + 1 >= len(rest):
            raise InputError(f"position: {rest[i]} needs a value")
        key, value = rest[i], rest[i + 1]
        row[key] = int(value) if key == "strength" else _faction(campaign, value)
        i += 2
    return ("put", "armies", row)


def _siege(campaign, rest: list[str]) -> list[tuple[str, str, dict]]:
    text = " ".join(rest)
    try:
        name, tail = text.split(" by ", 1)
        parts = tail.split()
        faction = _faction(campaign, parts[0])
        opts = dict(zip(parts[1::2], parts[2::2])) if "armies" not in parts else \
            dict(zip(parts[1:parts.index("armies")][::2], parts[1:parts.index("armies")][1::2]))
        armies = [int(a) for a in parts[parts.index("armies") + 1:]] if "armies" in parts else []
        resilience = int(opts["resilience"])
    except (ValueError, KeyError, IndexError):
        raise InputError("position: write `siege STRUCTURE by FACTION resilience N [since ROUND] armies ID ...`") from None
    structure = _structure(campaign, name)
    rows = [("put", "sieges", {"structure": structure, "faction": faction, "resilience": resilience,
                               "start_resilience": int(opts.get("start", resilience)),
                               "started_round": int(opts.get("since", 1))})]
    return rows + [("put", "siege_armies", {"structure": structure, "army": a}) for a in armies]


def _structure(campaign, name: str) -> str:
    from bellica.engine.core.names import one_named

    names = [r[0] for r in campaign.con.execute("SELECT name FROM structures").fetchall()]
    return one_named(name, names, what="structure", where="position")


def _faction(campaign, name: str) -> str:
    from bellica.engine.core.names import one_named

    return one_named(name, list(campaign.ruleset.factions(campaign)), what="faction", where="position")
