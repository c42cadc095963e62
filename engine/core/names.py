"""The one matcher of every name a person types (a faction, a nation, a side, a place, a node):
its exact spelling, the same in any case, or the beginning of exactly one name ("carth",
"Roma" for "Romans"); else one line naming the choices, with the nearest ones first when the
typing is close ("did you mean ...")."""

from __future__ import annotations

import difflib
from typing import Sequence

from bellica.geo.errors import InputError

__all__ = ["matches", "named", "one_named", "refusal"]


def matches(name: str, options: Sequence[str]) -> list[str]:
    """The options ``name`` may mean: itself in any case, else every option it begins."""
    typed = str(name).strip().casefold()
    exact = [o for o in options if o.casefold() == typed]
    return exact or ([o for o in options if o.casefold().startswith(typed)] if typed else [])


def refusal(name: str, found: Sequence[str], options: Sequence[str], what: str) -> str:
    """Why ``name`` names no single ``what`` of ``options`` (``found``: the several it begins)."""
    if found:
        return f"{name!r} begins several {what}s of this campaign ({', '.join(found)}): write more of the name"
    near = difflib.get_close_matches(str(name), list(options), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    return f"{name!r} is not a {what} of this campaign: {hint}use one of {', '.join(options) or 'none'}"


def one_named(name: str, options: Sequence[str], *, what: str, where: str = "") -> str:
    """The one option ``name`` means; an :class:`InputError` (``where``: which input) otherwise."""
    found = matches(name, options)
    if len(found) != 1:
        raise InputError(f"{where + ' ' if where else ''}{refusal(name, found, options, what)}")
    return found[0]


def named(value: str, options: Sequence[str], where: str, word: str) -> str:
    """The one option ``value`` means (:func:`matches`); otherwise the one :class:`InputError` line
    ``<where> <value!r> is <word>: use one of <options>`` (``word``: "no nation of this campaign")."""
    found = matches(value, options)
    if len(found) != 1:
        raise InputError(f"{where} {value!r} is {word}: use one of {', '.join(options)}")
    return found[0]
