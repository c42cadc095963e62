"""The campaign's frozen rules as the rulesets' SQL views read them.

``sql/rules.sql`` holds the macros that read one rule of the campaign's ``rules(key, value)``
table (``rule_int('victory.provinces')``, ``rule_text('options.diagonals', 'both_ways')``, ...),
so a view names the rule it restates instead of pivoting the table itself;
:func:`views_installer` makes a ruleset's ``install_views`` (those macros, then its own views
file), the function every stepped ruleset's storage module offers the core.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

__all__ = ["RULES_SQL", "install_rule_macros", "views_installer"]

#: The macros reading one rule (``rule_value``, ``rule_int``, ``rule_text``, ``rule_bool``).
RULES_SQL = Path(__file__).with_name("sql") / "rules.sql"


def install_rule_macros(con) -> None:
    """Create (or replace) the rule-reading macros on ``con`` (a campaign file with its ``rules``)."""
    from bellica.geo.spatialdb import run_sql_file

    run_sql_file(con, RULES_SQL)


def views_installer(views_sql: Path) -> Callable[..., None]:
    """A ruleset's ``install_views(con)``: the rule-reading macros, then its views file ``views_sql``."""

    def install_views(con) -> None:
        """Create (or replace) the ruleset's views on ``con``, and the macros they read the rules by."""
        from bellica.geo.spatialdb import run_sql_file

        install_rule_macros(con)
        run_sql_file(con, views_sql)

    return install_views
