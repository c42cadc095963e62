"""Reading a ruleset's scenario files: one TOML file, or one :class:`InputError` line naming it and the fix.

Besides the file itself, the two shapes every province-based scenario folder repeats: an array
of named entries (``[[nation]]``, ``[[sea]]``), each name once, and the ``[[border]]`` entries
of a province map (``between = ["A", "B"]``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, TypeVar

from bellica.geo.errors import InputError

__all__ = ["border_entries", "named_entries", "read_toml"]

T = TypeVar("T")


def read_toml(path: Path, folder: str) -> dict[str, Any]:
    """The table of the TOML file ``path``; unreadable or not TOML: one line naming the file and
    the fix (``folder``: what to give instead, e.g. "a Trossian scenario folder")."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror}): give {folder}") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: not valid TOML ({err}): fix the file") from None


def named_entries(entries: Iterable[Mapping], build: Callable[[Mapping], T], *, where: Any, what: str,
                  fix: str) -> dict[str, T]:
    """The ``[[what]]`` entries of the file ``where`` as ``{name: build(entry)}``, in the file's
    order; ``build`` makes an object with a ``name`` from an entry's values.  An entry lacking a
    key (``build`` raises :class:`KeyError`) or holding a value of the wrong kind
    (:class:`TypeError`, :class:`ValueError`) is one line naming the file, the entry's number and
    ``fix``; a name given twice is one line naming it.  ``build``'s own :class:`InputError` passes."""
    found: dict[str, T] = {}
    for i, entry in enumerate(entries, 1):
        try:
            item = build(entry)
        except InputError:
            raise
        except KeyError as err:
            raise InputError(f"{where} {what} #{i}: lacks {err}: {fix}") from None
        except (TypeError, ValueError) as err:
            raise InputError(f"{where} {what} #{i}: {err}: {fix}") from None
        name = item.name  # type: ignore[attr-defined]
        if name in found:
            raise InputError(f"{where} {what} {name!r} is given twice: keep one")
        found[name] = item
    return found


def border_entries(entries: Iterable[Mapping], names: Iterable[str], *, where: Any) -> list[tuple[str, str]]:
    """The pairs the ``[[border]]`` entries of the file ``where`` give (``between = ["A", "B"]``),
    in the file's order; a pair that is not two different ``names`` is one line naming the
    entry's number and the fix."""
    known = set(names)
    pairs = []
    for i, row in enumerate(entries, 1):
        pair = row.get("between")
        if not (isinstance(pair, list) and len(pair) == 2 and all(p in known for p in pair) and pair[0] != pair[1]):
            raise InputError(f"{where} border #{i} between = {pair!r}: give two different provinces of this file")
        pairs.append((pair[0], pair[1]))
    return pairs
