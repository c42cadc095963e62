"""The ruleset-neutral part of a rules object: its name, the merged values, dotted-key lookup.

Every ruleset's typed rules object (for example ``engine.vae_victis.rules.Rules``)
derives from :class:`RuleSet`; the values come from ``bellica.datasets.rules.load_rules``
(the ruleset's data file with the scenario's ``[rules]`` merged over it).  A campaign
stores them in its ``rules(key, value)`` table; :func:`stored_rules` reads that table.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Callable, Iterator, Mapping, get_type_hints

import duckdb

from bellica.datasets.rules import rules_from_rows
from bellica.engine.core.rule_tables import from_table
from bellica.geo.errors import InputError
from bellica.schema import existing_tables

__all__ = ["RuleSet", "SectionedRules", "Span", "TurnYears", "reading_rules", "section", "stored_rules", "stored_ruleset_name"]


@dataclass(frozen=True)
class RuleSet:
    """``name``: the ruleset (a file of ``datasets/rules``); ``values``: the merged nested mapping."""

    name: str
    values: Mapping[str, Any] = field(repr=False, compare=True)

    def get(self, dotted: str) -> Any:
        """The value at ``"section.key"``; KeyError naming the missing part."""
        node: Any = self.values
        for part in dotted.split("."):
            if not isinstance(node, Mapping) or part not in node:
                raise KeyError(f"{self.name} rules have no {dotted!r} (missing {part!r})")
            node = node[part]
        return node


@contextmanager
def reading_rules(where: str, ruleset: str, *, wrong: tuple[type[Exception], ...] = (TypeError, ValueError)) -> Iterator[None]:
    """Around the making of a ruleset's typed rules from its merged values: a missing key or a value
    of the wrong kind (``wrong``: the errors that say so) is one :class:`InputError` line naming
    ``where`` and the keys of ``datasets/rules/<ruleset>.toml``."""
    try:
        yield
    except KeyError as err:
        raise InputError(f"{where} lack {err}: use datasets/rules/{ruleset}.toml's keys") from None
    except wrong as err:
        raise InputError(f"{where}: {err}: use datasets/rules/{ruleset}.toml's keys") from None


class Span:
    """An inclusive range of a roll or a rating, ``low`` to ``high`` (a rules table's row: a
    frozen dataclass with those fields, and what the range gives)."""

    low: int
    high: int

    def holds(self, number: int) -> bool:
        return self.low <= number <= self.high


class TurnYears:
    """The years of a game's turns (a rules section: a frozen dataclass with ``first_year``,
    negative BC, and ``years_per_turn``)."""

    first_year: int
    years_per_turn: int

    def years(self, turn: int) -> tuple[int, int]:
        """(first, last) year of ``turn``: ``first_year`` and ``years_per_turn`` later for turn 1."""
        start = self.first_year + (turn - 1) * self.years_per_turn
        return start, start + self.years_per_turn


def section(kind: Callable[..., Any]) -> Callable[[Mapping[str, Any]], Any]:
    """The builder of a typed section whose keys are its fields, each value shaped as its field's
    type (:func:`~bellica.engine.core.rule_tables.from_table`)."""
    return lambda values: from_table(kind, values)


class SectionedRules(RuleSet):
    """A ruleset's typed rules made from its merged values, a section each: a subclass (a frozen
    dataclass) names its data file in ``RULESET`` and has a field per top-level table of the
    file; a field typed as a frozen dataclass is built from its table's keys (:func:`section`),
    any other (or one read otherwise) by :meth:`built_otherwise`; :meth:`_check` checks the
    values' meaning."""

    RULESET = ""

    @classmethod
    def built_otherwise(cls, merged: Mapping[str, Any], where: str) -> Mapping[str, Callable[[Any], Any]]:
        """Field name -> builder, for the fields not built as their dataclass from their table's
        keys (default: none)."""
        return {}

    @classmethod
    def sections(cls, merged: Mapping[str, Any], where: str) -> Mapping[str, Callable[[Any], Any]]:
        """Field name -> builder of that field from the merged table of the same name, in the
        order built (the fields' order): :meth:`built_otherwise`'s, else the field's dataclass."""
        otherwise = cls.built_otherwise(merged, where)
        kinds = get_type_hints(cls)
        built: dict[str, Callable[[Any], Any]] = {}
        for f in fields(cls):
            if f.name in ("name", "values"):
                continue
            if f.name in otherwise:
                built[f.name] = otherwise[f.name]
            elif is_dataclass(kinds[f.name]):
                built[f.name] = section(kinds[f.name])
            else:
                raise TypeError(f"{cls.__name__}.{f.name} is a {kinds[f.name]}, not a dataclass: "
                                "give its builder in built_otherwise")
        return built

    #: The errors that mean a value of the wrong kind (anything else passes through as raised).
    WRONG: tuple[type[Exception], ...] = (TypeError, ValueError)

    @classmethod
    def from_mapping(cls, merged: Mapping[str, Any], name: str | None = None):
        """From :func:`bellica.datasets.rules.load_rules`' merged values (or a campaign's stored ones);
        a missing key or a bad value is one :class:`InputError` line (:func:`reading_rules`)."""
        name = cls.RULESET if name is None else name
        where = f"{name} rules"
        with reading_rules(where, cls.RULESET, wrong=cls.WRONG):
            built = {key: build(merged[key]) for key, build in cls.sections(merged, where).items()}
            rules = cls(name=name, values=merged, **built)
        rules._check(where)
        return rules

    def _check(self, where: str) -> None:
        """Check the values' meaning; one :class:`InputError` line naming the key and the fix."""


def stored_ruleset_name(con: duckdb.DuckDBPyConnection, default: str) -> str:
    """``scenario_meta`` key ``ruleset``, or ``default`` when the file names none."""
    if "scenario_meta" not in existing_tables(con):
        return default
    row = con.execute("SELECT value FROM scenario_meta WHERE key = 'ruleset'").fetchone()
    return row[0] if row and row[0] else default


def stored_rules(con: duckdb.DuckDBPyConnection) -> dict | None:
    """The merged rules a campaign froze at ``campaign new``; None when the file has no ``rules`` table."""
    if "rules" not in existing_tables(con):
        return None
    rows = con.execute("SELECT key, value FROM rules ORDER BY key").fetchall()
    if not rows:
        raise InputError("the campaign's rules table is empty: recreate the campaign with `bellica campaign new`")
    return rules_from_rows(rows)
