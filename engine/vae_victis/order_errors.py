"""What is wrong with orders: one problem, and the errors that carry every problem found.

Shared by the order checks (:mod:`engine.vae_victis.orders`) and the simulations that check the
move strings again before anything moves (:mod:`engine.vae_victis.movement`,
:mod:`engine.vae_victis.naval`), so none of them needs another's module to report a problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from bellica.geo.errors import InputError, RulesRefusal

__all__ = ["IllegalOrderError", "OrderError", "OrderProblem", "OrderSyntaxError"]


@dataclass(frozen=True)
class OrderProblem:
    """One thing wrong with an order.  ``index`` is the 1-based number of the move in the string."""

    army: int | None
    field: str
    message: str
    index: int | None = None

    def __str__(self) -> str:
        where = "orders" if self.army is None else f"army {self.army}"
        if self.index is not None:
            where += f", move {self.index}"
        elif self.field not in ("army", "file"):
            where += f", {self.field}"
        return f"{where}: {self.message}"


class OrderError(InputError):
    """Orders rejected; ``problems`` lists every problem found (nothing was applied)."""

    def __init__(self, problems: Iterable[OrderProblem], source: str = ""):
        self.problems = tuple(problems)
        self.source = source
        of = f" of {source}" if source else ""
        if len(self.problems) == 1:
            p = self.problems[0]
            # One problem is one line; a whole-file problem (not TOML, nested too deeply) names the file itself.
            text = p.message if (p.army, p.field, source) == (None, "file", "") else f"problem in the orders{of}: {p}"
        else:
            text = f"{len(self.problems)} problem(s) in the orders{of}:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(text)


class OrderSyntaxError(OrderError):
    """An order is not written in the accepted form (layer 1)."""


class IllegalOrderError(OrderError, RulesRefusal):
    """A well-formed order that the position does not allow (layer 2)."""
