"""The ruleset-neutral part of a rules object: its name, the merged values, dotted-key lookup.

Every ruleset's typed rules object (for example ``engine.vae_victis.rules.Rules``)
derives from :class:`RuleSet`; the values come from ``bellica.datasets.rules.load_rules``
(the ruleset's data file with the scenario's ``[rules]`` merged over it).  A campaign
stores them in its ``rules(key, value)`` table; :func:`stored_rules` reads that table.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

import duckdb

from bellica.datasets.rules import rules_from_rows
from bellica.geo.errors import InputError
from bellica.schema import existing_tables

__all__ = ["RuleSet", "reading_rules", "stored_rules", "stored_ruleset_name"]


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
def reading_rules(where: str, ruleset: str) -> Iterator[None]:
    """Around the making of a ruleset's typed rules from its merged values: a missing key or a value
    of the wrong kind is one :class:`InputError` line naming ``where`` and the keys of
    ``datasets/rules/<ruleset>.toml``."""
    try:
        yield
    except KeyError as err:
        raise InputError(f"{where} lack {err}: use datasets/rules/{ruleset}.toml's keys") from None
    except (TypeError, ValueError) as err:
        raise InputError(f"{where}: {err}: use datasets/rules/{ruleset}.toml's keys") from None


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
