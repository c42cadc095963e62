"""Rulesets as data: ``<ruleset>.toml`` in this folder holds every constant of one ruleset.

:func:`load_rules` reads a ruleset's file, merges a scenario's ``[rules]`` table over
it and validates the result; :func:`rules_rows` / :func:`rules_from_rows` turn the
merged values into the campaign's ``rules(key, value)`` rows and back.  This module is
imported by both ``etl`` (campaign check/new, SQL views) and ``engine`` (the typed
rules object), so it imports neither.

The ruleset file is also the schema of an override: every key a scenario may set is
a key of the file, with the file's type.  The file's reserved ``[validation]`` table
(:class:`Validation`) says what else is checked: minimums, signed numbers, string
choices, consistency between keys, and which tables are keyed by faction name (the
only tables a scenario fills in with keys of its own; an unknown key anywhere else is
a mistake and is refused).

Faction references (``faction_keyed`` tables' keys, ``faction_values`` strings) are
resolved by :func:`canonical_faction` against the scenario's factions, so a case or
spelling difference can never silently switch a rule off.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from bellica.geo.errors import InputError

__all__ = [
    "DEFAULT_RULESET",
    "VALIDATION",
    "Validation",
    "RULES_DIR",
    "register_rules_file",
    "rules_file",
    "canonical_faction",
    "load_rules",
    "resolve_factions",
    "rules_from_rows",
    "rules_rows",
    "rulesets",
]

RULES_DIR = Path(__file__).resolve().parent
DEFAULT_RULESET = "vae-victis-ii"

#: The reserved table of a ruleset file that says how overrides are checked (not rules values).
VALIDATION = "validation"


@dataclass(frozen=True)
class Validation:
    """A ruleset file's ``[validation]`` table: bounds, choices and faction references, as data,
    so that adding a ruleset means adding a file, never editing this module."""

    minimum: Mapping[str, float] = field(default_factory=dict)
    signed: tuple[str, ...] = ()
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    faction_keyed: tuple[str, ...] = ()
    faction_values: tuple[str, ...] = ()
    not_above: tuple[tuple[str, str], ...] = ()
    keys_of: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_table(cls, table: Mapping, ruleset: str) -> "Validation":
        unknown = set(table) - {f.name for f in fields(cls)}
        if unknown:
            raise InputError(f"{ruleset}.toml [{VALIDATION}] {sorted(unknown)[0]}: no such check; "
                             f"use {', '.join(f.name for f in fields(cls))}")
        return cls(
            minimum=dict(table.get("minimum", {})),
            signed=tuple(table.get("signed", ())),
            choices={k: tuple(v) for k, v in table.get("choices", {}).items()},
            faction_keyed=tuple(table.get("faction_keyed", ())),
            faction_values=tuple(table.get("faction_values", ())),
            not_above=tuple(tuple(p) for p in table.get("not_above", ())),
            keys_of=tuple(tuple(p) for p in table.get("keys_of", ())),
        )


#: The rules files of rulesets that are not shipped in this folder (a distribution's own), by name.
_REGISTERED: dict[str, Path] = {}


def register_rules_file(ruleset: str, path: str | Path) -> None:
    """Read ``ruleset``'s rules from ``path``, a file of the same format as this folder's (its values,
    an optional ``[validation]`` table): a ruleset installed as its own distribution keeps its rule
    constants in its own package and calls this when imported; :func:`load_rules` and
    :func:`bellica.engine.core.rules_loaders.rules_loaders` then read it as they read a shipped one."""
    path = Path(path)
    if _REGISTERED.get(ruleset) != path:
        _REGISTERED[ruleset] = path
        _ruleset_file.cache_clear()
        _default_rules.cache_clear()


def rules_file(ruleset: str) -> Path:
    """Where ``ruleset``'s rules are read from: its registered file, else this folder's ``<ruleset>.toml``."""
    return _REGISTERED.get(ruleset) or RULES_DIR / f"{ruleset}.toml"


def rulesets() -> list[str]:
    """Names of the rulesets shipped in this folder, and of those registered (:func:`register_rules_file`)."""
    return sorted({p.stem for p in RULES_DIR.glob("*.toml")} | set(_REGISTERED))


@lru_cache(maxsize=None)
def _ruleset_file(ruleset: str) -> tuple[dict, Validation]:
    """(the ruleset's values, its validation table)."""
    path = rules_file(ruleset)
    if not path.is_file():
        raise InputError(f"ruleset {ruleset!r} does not exist: use one of {', '.join(rulesets())}")
    import tomllib  # here: a round step reads its rules from the campaign, never from this file

    with path.open("rb") as f:
        values = tomllib.load(f)
    return values, Validation.from_table(values.pop(VALIDATION, {}), ruleset)


def _matches(key: str, patterns: Iterable[str]) -> bool:
    return any(key == p or (p.endswith(".*") and key.startswith(p[:-1])) for p in patterns)


def _minimum(key: str, v: Validation) -> float | None:
    if _matches(key, v.signed):
        return None
    for pattern, low in v.minimum.items():
        if _matches(key, (pattern,)):
            return low
    return 0


def _what_to_give(default: Any, key: str, v: Validation) -> str:
    if isinstance(default, bool):
        return "give true or false"
    if isinstance(default, (int, float)):
        low = _minimum(key, v)
        whole = "a whole number" if isinstance(default, int) else "a number"
        return f"give {whole}" + ("" if low is None else f" >= {low:g}")
    if isinstance(default, str):
        if key in v.choices:
            return "give one of " + ", ".join(f'"{c}"' for c in v.choices[key])
        return "give a string"
    if isinstance(default, list):
        return "give a list of strings" if all(isinstance(x, str) for x in default) else "give a list"
    return "give a table"


def _check_value(key: str, value: Any, default: Any, source: str, v: Validation) -> Any:
    def refuse() -> InputError:
        shown = json.dumps(value) if not isinstance(value, float) else repr(value)
        return InputError(f"{source} {key} = {shown}: {_what_to_give(default, key, v)}")

    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise refuse()
        return value
    if isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise refuse()
        if isinstance(value, float) and (not math.isfinite(value) or (isinstance(default, int) and not value.is_integer())):
            raise refuse()
        if isinstance(default, int):
            value = int(value)
        low = _minimum(key, v)
        if low is not None and value < low:
            raise refuse()
        return value
    if isinstance(default, str):
        if not isinstance(value, str) or (key in v.choices and value not in v.choices[key]):
            raise refuse()
        return value
    if isinstance(default, list):
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise refuse()
        return list(value)
    raise refuse()


def _merge(base: dict, over: Mapping, prefix: str, source: str, v: Validation) -> None:
    for k, value in over.items():
        if not isinstance(k, str):
            raise InputError(f"{source} {prefix}{k!r}: keys must be names")
        key = f"{prefix}{k}"
        table = prefix[:-1]
        if table in v.faction_keyed:
            base[k] = _check_value(key, value, [], source, v)
            continue
        if k not in base:
            known = ", ".join(sorted(base)) or "none"
            raise InputError(f"{source} {key}: no such rule; the keys here are {known}")
        if isinstance(base[k], dict):
            if not isinstance(value, Mapping):
                raise InputError(f"{source} {key} = {json.dumps(value, default=str)}: give a table ([rules.{key}])")
            _merge(base[k], value, f"{key}.", source, v)
        else:
            base[k] = _check_value(key, value, base[k], source, v)


def _value(tree: Mapping, dotted: str) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _check_consistent(merged: Mapping, source: str, v: Validation) -> None:
    for low_key, high_key in v.not_above:
        low, high = _value(merged, low_key), _value(merged, high_key)
        if low is not None and high is not None and low > high:
            raise InputError(f"{source} {low_key} = {low} is above {high_key} = {high}: "
                             f"give a {low_key.rsplit('.', 1)[-1]} no higher than {high_key.rsplit('.', 1)[-1]}")
    for list_key, table_key in v.keys_of:
        items, table = _value(merged, list_key), _value(merged, table_key)
        if isinstance(items, list) and isinstance(table, Mapping):
            missing = [t for t in items if t not in table]
            if missing:
                raise InputError(f"{source} {list_key} names {', '.join(missing)} without a {table_key} entry: "
                                 "add one or drop it from the list")


def load_rules(
    ruleset: str = DEFAULT_RULESET,
    overrides: Mapping | None = None,
    *,
    source: str = "scenario.toml [rules]",
) -> dict:
    """The ruleset's values with ``overrides`` merged over them, validated (InputError naming the key)."""
    if overrides is None:
        return copy.deepcopy(_default_rules(ruleset))
    values, validation = _ruleset_file(ruleset)
    merged = copy.deepcopy(values)
    _merge(merged, overrides, "", source, validation)
    _check_consistent(merged, source, validation)
    return merged


@lru_cache(maxsize=None)
def _default_rules(ruleset: str) -> dict:
    values, validation = _ruleset_file(ruleset)
    merged = copy.deepcopy(values)
    _merge(merged, {}, "", f"{ruleset}.toml", validation)
    _check_consistent(merged, f"{ruleset}.toml", validation)
    return merged


# --- faction names ----------------------------------------------------------------------


def canonical_faction(name: str, factions: Iterable[str], *, where: str = "rules") -> str:
    """The faction of ``factions`` that ``name`` means (case-insensitive); InputError naming the valid ones."""
    names = sorted(factions)
    if name in names:
        return name
    folded = [f for f in names if f.casefold() == str(name).strip().casefold()]
    if len(folded) == 1:
        return folded[0]
    raise InputError(f"{where}: faction {name!r} is not one of the scenario's factions ({', '.join(names) or 'none'}): "
                     "use one of those names")


def resolve_factions(merged: Mapping, factions: Iterable[str], *, ruleset: str = DEFAULT_RULESET,
                     source: str = "scenario.toml [rules]") -> dict:
    """A copy of ``merged`` with every faction reference spelled as the scenario's factions spell it."""
    validation = _ruleset_file(ruleset)[1]
    names = sorted(factions)
    out = copy.deepcopy(dict(merged))
    for table in validation.faction_keyed:
        node = _node(out, table)
        if node is None:
            continue
        resolved: dict = {}
        for k in sorted(node):
            canon = canonical_faction(k, names, where=f"{source} {table}")
            if canon in resolved:
                raise InputError(f"{source} {table}: faction {canon!r} is given twice ({k!r}): keep one entry")
            resolved[canon] = node[k]
        node.clear()
        node.update(resolved)
    for key in validation.faction_values:
        parent_key, _, leaf = key.rpartition(".")
        node = _node(out, parent_key)
        if node is not None and node.get(leaf):
            node[leaf] = canonical_faction(node[leaf], names, where=f"{source} {key}")
    return out


def _node(tree: Mapping, dotted: str):
    node = tree
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, dict) else None


# --- storing ---------------------------------------------------------------------------------


def rules_rows(merged: Mapping) -> list[tuple[str, str]]:
    """(dotted key, JSON value) rows, sorted; an empty table is one row with value ``{}``."""
    rows: list[tuple[str, str]] = []

    def walk(prefix: str, node: Mapping) -> None:
        for k, v in node.items():
            key = f"{prefix}{k}"
            if isinstance(v, Mapping) and v:
                walk(f"{key}.", v)
            else:
                rows.append((key, json.dumps(v if not isinstance(v, Mapping) else {}, sort_keys=True)))

    walk("", merged)
    return sorted(rows)


def rules_from_rows(rows: Iterable[tuple[str, str]]) -> dict:
    """The inverse of :func:`rules_rows`.  Keys of faction-keyed tables may not contain dots."""
    out: dict = {}
    for key, value in rows:
        parts = key.split(".")
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = json.loads(value)
    return out
