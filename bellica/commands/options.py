"""Option types shared by the command groups.

click's INT and FLOAT are Python's ``int()`` and ``float()``, which also take other
scripts' digits ("٩" is 9, "２٠" is 20), underscores ("1_0") and words ("nan", "inf"): a
user never means those, so every number a user types goes through these types.
"""

from __future__ import annotations

import math
import re

import click

_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def shown(value, width: int = 60) -> str:
    """A user's value quoted for a message, cut short: a pasted file must not become the message."""
    text = str(value)
    return repr(text if len(text) <= width else text[:width] + "...")


def decimal(text: str) -> float | None:
    """``text`` as a finite number written in ASCII digits, or None."""
    text = text.strip()
    if not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


class WholeNumber(click.ParamType):
    """A non-negative whole number in ASCII digits."""

    name = "integer"

    def convert(self, value, param, ctx):
        from bellica.geo.errors import InputError
        from bellica.geo.files import whole_number

        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            n = whole_number(value)
        except InputError as e:  # too many digits: the option's usage error, as for any bad number
            self.fail(str(e), param, ctx)
        if n is None:
            self.fail(f"{shown(value)} is not a whole number: write digits 0-9", param, ctx)
        return n


class Decimal(click.ParamType):
    """A finite number in ASCII digits (a sign, a point and an exponent allowed)."""

    name = "number"

    def convert(self, value, param, ctx):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        n = decimal(str(value))
        if n is None:
            self.fail(f"{shown(value)} is not a number: write digits 0-9 (e.g. 80 or 12.5)", param, ctx)
        return n


WHOLE = WholeNumber()
DECIMAL = Decimal()
