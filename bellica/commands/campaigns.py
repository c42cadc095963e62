"""What every command that opens a campaign shares, so that an error has one exit status whatever
the ruleset or command (README.md, "Exit codes"; :func:`bellica.cli.exit_code`):

* :func:`open_campaign`: a missing, unreadable or foreign file is bad input (1), one line naming it
  (:meth:`bellica.engine.core.campaign.Campaign.open`); a campaign not yet started given to a step,
  or a started one to ``start``, is a step out of order (3), naming the ruleset's own command;
* :func:`resolve_faction`: a ``--faction``, ``--nation`` or ``--side`` the campaign does not have
  is a usage error (2), as click's own are, naming the ones it has.  Every ruleset reads a name in
  any case, or its beginning when one faction alone begins so ("carth", "Roma");
* :func:`file_faction`: the same name met inside a file (an orders file's ``faction``) is bad
  input (1), like any other content of a file.
"""

from __future__ import annotations

from pathlib import Path

import click


def open_campaign(campaign: Path, *, read_only: bool = False, started: bool | None = None):
    """The :class:`~bellica.engine.core.campaign.Campaign` of an existing file, for a ``with`` block
    (one per command); ``started`` True or False: refuse (exit 3) one that has not, or has, been
    started (:func:`require_started`)."""
    from bellica.engine.core.campaign import Campaign

    c = Campaign.open(campaign, read_only=read_only)
    if started is not None:
        try:
            require_started(c, started)
        except BaseException:
            c.close()
            raise
    return c


def require_started(c, started: bool = True) -> None:
    """A step out of order (exit 3) when ``c`` has not been started (``started``), or has been
    (not ``started``: its start again), named in the ruleset's own commands."""
    from bellica.engine.core.machine import StepRefused

    play = c.ruleset.play_command
    if started and not c.has_state():
        raise StepRefused(f"{c.path} has not been started yet: run `{play} start {c.path}` first")
    if not started and c.has_state():
        raise StepRefused(f"{c.path} has already started: its event log is kept; `{play} status {c.path}` "
                          "says where it stands")


def _matches(c, name: str) -> tuple[list[str], list[str]]:
    """(the campaign's factions ``name`` may mean, all its factions): :func:`bellica.engine.core.names.matches`."""
    from bellica.engine.core.names import matches

    names = list(c.ruleset.factions(c))
    return matches(name, names), names


def _refusal(name: str, found: list[str], names: list[str], word: str) -> str:
    from bellica.engine.core.names import refusal

    return refusal(name, found, names, word)


def resolve_faction(c, name: str | None, *, param_hint: str = "--faction", word: str | None = None) -> str | None:
    """The campaign's faction that the option ``param_hint`` names, spelled as the campaign spells
    it (None stays None); a usage error (exit 2) naming the valid ones otherwise.  ``word``: what
    the ruleset calls a faction (default: from ``param_hint``, --nation a nation, --side a side)."""
    if name is None:
        return None
    found, names = _matches(c, name)
    if len(found) != 1:
        word = word or {"--nation": "nation", "--side": "side"}.get(param_hint, "faction")
        raise click.BadParameter(_refusal(name, found, names, word), param_hint=param_hint)
    return found[0]


def file_faction(c, name: str, where: str) -> str:
    """:func:`resolve_faction` for a name read from a file (``where`` names the file and key): bad input, exit 1."""
    from bellica.geo.errors import InputError

    found, names = _matches(c, name)
    if len(found) != 1:
        raise InputError(f"{where}: {_refusal(name, found, names, 'faction')}")
    return found[0]
