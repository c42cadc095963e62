"""One reader of a rules table into the frozen dataclass that types it, for every ruleset.

A ruleset's typed rules (``engine/<ruleset>/rules.py``) declare each section of their data file as
a frozen dataclass; the merged values give that section as a table of TOML values (lists, numbers,
nested tables).  :func:`from_table` builds the dataclass from the table, each value shaped as its
field's type says: a list as a tuple (``tuple[str, ...]``), a table's values as the mapping's value
type (``Mapping[str, float]``: a whole number from the file as a float), a nested table as the
field's dataclass.  The rulesets had each written these conversions for their own sections, in a
builder per section; the field's type already says them.
"""

from __future__ import annotations

from collections.abc import Mapping as AbstractMapping
from dataclasses import is_dataclass
from functools import lru_cache
from typing import Any, Mapping, get_args, get_origin, get_type_hints

__all__ = ["from_table", "shaped"]


@lru_cache(maxsize=None)
def _hints(kind: type) -> Mapping[str, Any]:
    # a dataclass's field types, resolved once (its module's `from __future__ import annotations`
    # leaves them as strings)
    return get_type_hints(kind)


def shaped(hint: Any, value: Any) -> Any:
    """``value`` (as the rules' TOML or JSON gives it) in the shape of type ``hint``; anything the
    type does not say how to shape is passed through as given."""
    origin = get_origin(hint)
    if origin is tuple and isinstance(value, (list, tuple)):
        args = get_args(hint)
        item = args[0] if len(args) == 2 and args[1] is Ellipsis else Any
        return tuple(shaped(item, v) for v in value)
    if origin in (dict, AbstractMapping) and isinstance(value, AbstractMapping):
        args = get_args(hint)
        item = args[1] if len(args) == 2 else Any
        return {k: shaped(item, v) for k, v in value.items()}
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(hint, type) and is_dataclass(hint) and isinstance(value, AbstractMapping):
        return from_table(hint, value)
    return value


def from_table(kind: type, table: Mapping[str, Any]) -> Any:
    """The frozen dataclass ``kind`` from a rules table whose keys are its fields, each value
    :func:`shaped` as its field's type.  A missing key (with no default) or an unknown one is the
    dataclass's own TypeError, as ``kind(**table)`` raises it."""
    hints = _hints(kind)
    return kind(**{key: shaped(hints[key], value) if key in hints else value for key, value in table.items()})
