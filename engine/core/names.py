"""The one matcher of every name a person types (a faction, a nation, a side, a place, a node,
a choice among words): its exact spelling, the same in any case, or the beginning of exactly
one name ("carth", "Roma" for "Romans"), else the beginning of exactly one name's later word
("Porte" for "Ottoman Porte", "Sardoum" for "Mare Sardoum"); else one line naming the choices:
the several a beginning fits, or the nearest ones first when the typing is close
("did you mean ...").  Every ruleset's typed names go through :func:`matches` (issue 22)."""

from __future__ import annotations

import difflib
import re
from typing import Sequence

from bellica.geo.errors import InputError

__all__ = ["did_you_mean", "matches", "named", "one_named", "refusal"]

_WORDS = re.compile(r"[\s\-/]+")


def matches(name: str, options: Sequence[str]) -> list[str]:
    """The options ``name`` may mean: itself in any case; else every option it begins; else every
    option one of whose later words it begins ("Porte" for "Ottoman Porte")."""
    typed = str(name).strip().casefold()
    if not typed:
        return []
    exact = [o for o in options if str(o).casefold() == typed]
    if exact:
        return exact[:1]
    begun = [o for o in options if str(o).casefold().startswith(typed)]
    if begun:
        return begun
    return [o for o in options if any(w.startswith(typed) for w in _WORDS.split(str(o).casefold())[1:])]


def did_you_mean(name: str, found: Sequence[str], options: Sequence[str]) -> str:
    """``did you mean A or B? `` (the several a beginning fits, else the nearest spellings), or ""."""
    near = list(found) or difflib.get_close_matches(str(name), [str(o) for o in options], n=3, cutoff=0.6)
    if not near:  # the same in any case: "SAMNITSE" is as near "Samnites" as "Samnitse"
        low = {str(o).casefold(): str(o) for o in options}
        near = [low[n] for n in difflib.get_close_matches(str(name).casefold(), list(low), n=3, cutoff=0.6)]
    if not near:  # near one word of a name: "Portx" for "Ottoman Porte"
        words = {w: str(o) for o in options for w in _WORDS.split(str(o).casefold())[1:]}
        near = list(dict.fromkeys(words[w] for w in difflib.get_close_matches(str(name).casefold(), list(words),
                                                                                 n=3, cutoff=0.75)))
    return f"did you mean {' or '.join(near)}? " if near else ""


def refusal(name: str, found: Sequence[str], options: Sequence[str], what: str) -> str:
    """Why ``name`` names no single ``what`` of ``options`` (``found``: the several it begins)."""
    if found:
        return (f"{name!r} begins several {what}s of this campaign ({', '.join(found)}): "
                f"{did_you_mean(name, found, options)}write more of the name")
    return (f"{name!r} is not a {what} of this campaign: {did_you_mean(name, found, options)}"
            f"use one of {', '.join(options) or 'none'}")


def one_named(name: str, options: Sequence[str], *, what: str, where: str = "") -> str:
    """The one option ``name`` means; an :class:`InputError` (``where``: which input) otherwise."""
    found = matches(name, options)
    if len(found) != 1:
        raise InputError(f"{where + ' ' if where else ''}{refusal(name, found, options, what)}")
    return found[0]


def named(value: str, options: Sequence[str], where: str, word: str, *, allowed: Sequence[str] | None = None,
          plural: str = "") -> str:
    """The one option ``value`` means (:func:`matches`); otherwise the one :class:`InputError` line
    ``<where> <value!r> is <word>: [did you mean ...?] use one of <allowed>`` (``word``: "no nation
    of this campaign"; ``allowed``: the options that may be given here, by default all of them), or,
    for a beginning of several, ``<where> <value!r> begins several [<plural>]: <them>: did you
    mean ...? write more of the name``."""
    found = matches(value, options)
    if len(found) == 1:
        return found[0]
    if found:
        several = f"several {plural}" if plural else "several"
        raise InputError(f"{where} {value!r} begins {several} ({', '.join(found)}): "
                         f"{did_you_mean(value, found, options)}write more of the name")
    listed = options if allowed is None else allowed
    raise InputError(f"{where} {value!r} is {word}: {did_you_mean(value, found, options)}"
                     f"use one of {', '.join(listed) or 'none'}")
