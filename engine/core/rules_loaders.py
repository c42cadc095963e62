"""The three ways a ruleset reads its typed rules, built once for every ruleset.

A ruleset's rules module has a ``Rules`` class (a :class:`~bellica.engine.core.rules.RuleSet`
with ``from_mapping(values, name)``) and offers its file's values as they stand, with a
scenario's ``[rules]`` merged in, and a designer's whole variant file.
:func:`rules_loaders` makes those three functions for one ruleset; bad TOML is one line
naming the file.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

from bellica.datasets.rules import load_rules, rules_file
from bellica.geo.errors import InputError

__all__ = ["load_ruleset_values", "read_rules_file", "rules_loaders"]


def load_ruleset_values(ruleset: str, overrides: Mapping[str, Any] | None, source: str = "rules") -> dict:
    """``datasets/rules/<ruleset>.toml`` with ``overrides`` merged in (checked by its validation)."""
    try:
        return load_rules(ruleset, overrides, source=source)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{_shown(rules_file(ruleset))}: not valid TOML ({err}): fix the file") from None


def _shown(path: Path) -> str:
    """A rules file as messages name it: ``datasets/rules/<ruleset>.toml`` for a shipped one."""
    from bellica.datasets.rules import RULES_DIR

    return f"datasets/rules/{path.name}" if path.parent == RULES_DIR else str(path)


def read_rules_file(path: str | Path) -> dict:
    """A whole rules file's values (its ``[validation]`` table left out)."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            values = tomllib.load(f)
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror}): give an existing rules file") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: not valid TOML ({err}): fix the file") from None
    values.pop("validation", None)
    return values


def rules_loaders(ruleset: str, from_mapping: Callable[..., Any]) -> tuple[Callable, Callable, Callable]:
    """``(default_rules, rules_with, rules_from_file)`` for ``ruleset``, whose typed rules are
    built by ``from_mapping(values, name)``."""

    @lru_cache(maxsize=None)
    def default_rules():
        """The ruleset file's values with no overrides (cached)."""
        return from_mapping(load_ruleset_values(ruleset, None))

    def rules_with(overrides: Mapping[str, Any], *, source: str = "rules"):
        """The ruleset's values with ``overrides`` (a scenario ``[rules]``-shaped mapping) merged in."""
        return from_mapping(load_ruleset_values(ruleset, overrides, source))

    def rules_from_file(path: str | Path):
        """A whole rules file of the same shape (a designer's variant); bad TOML is one line naming it."""
        return from_mapping(read_rules_file(path), ruleset)

    return default_rules, rules_with, rules_from_file
