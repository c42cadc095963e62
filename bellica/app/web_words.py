"""The engine's words as a web page says them: no command line named.

The engine's messages and next-step hints name the command that takes a step ("run movement
(`bellica round move`)", "`bellica trossian next CAMPAIGN`"): right on the command line, wrong on a
page, where the step is a button or a form.  :func:`web_words` rewrites every quoted command of any
ruleset's group into the step's name on the page ("run movement (the “move” step)"); the engine
and the CLI keep their own words.  Nothing here knows a ruleset: a command is a quoted text that
begins with the program's name, its step the word after the group.
"""

from __future__ import annotations

import re

__all__ = ["web_words", "PROGRAMS"]

#: The names the command line goes by.
PROGRAMS = ("bellica", "tabula")
_QUOTED = re.compile(r"`((?:%s) [^`]*)`" % "|".join(PROGRAMS))
#: Commands whose words on a page are not a step's.
_PLACES = {"status": "the status at the top of this page", "log": "the log on this page",
           "show": "this page", "serve": "this app"}


def _step_words(command: str) -> str:
    words = command.split()
    rest = [w for w in words[1:] if not w.startswith("-")]
    if len(rest) >= 2 and not rest[1].isupper() and not rest[1].endswith(".duckdb"):
        step = rest[1]
    elif rest:
        step = rest[0]
    else:
        return "this page"
    if step in _PLACES:
        return _PLACES[step]
    names = [s for s in step.split("|") if s]
    if len(names) > 1:
        return "the " + ", ".join(f"“{n}”" for n in names[:-1]) + f" or “{names[-1]}” step"
    return f"the “{step}” step"


#: Other command lines the engine's words quote: what the page offers in their place.
_OTHERS = ((re.compile(r"\(e\.g\. `python -c [^`]*`\)"), "(the “new secret” button on your page makes one)"),)


def web_words(text: str) -> str:
    """``text`` with each quoted command line (`` `bellica GROUP STEP ...` ``) as the page's step,
    and any other quoted command line (a secret's maker) as what the page offers instead."""
    if "`" not in text:
        return text
    for pattern, words in _OTHERS:
        text = pattern.sub(words, text)
    return _QUOTED.sub(lambda m: _step_words(m.group(1)), text)
