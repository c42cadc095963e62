"""A campaign's situation as one viewer may see it: the ruleset's player view as an exportable
:class:`~bellica.etl.situation.Situation` (``bellica export``, its packets, the tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from bellica.engine.core.campaign import Campaign
from bellica.etl.situation import FORMATS, Situation, UnknownFactionError, export_situation
from bellica.geo.errors import InputError

__all__ = ["export_campaign", "read_situation"]


def read_situation(campaign: str | Path, *, faction: str | None = None) -> Situation:
    """The situation of ``campaign`` now as ``faction`` (any case; None: the umpire) may see it.

    One-line InputErrors for a missing or foreign file, a map instead of a campaign, a campaign
    not started, and an unknown faction (:class:`UnknownFactionError`, naming the valid ones)."""
    path = Path(campaign)
    with Campaign.open(path, read_only=True) as c:
        if not c.has_state():
            raise InputError(f"{path} has not been started, so it has no situation to export: "
                             f"run `{c.ruleset.play_command} start {path}` first")
        factions = c.ruleset.factions(c)
        try:
            c.viewer = viewer = c.faction(faction)
        except InputError:
            raise UnknownFactionError(f"--faction {faction!r} is not a faction of this campaign: "
                                      f"use one of {', '.join(factions)}", factions) from None
        return Situation.from_view(path, c.ruleset.player_view(c, viewer), factions)


def export_campaign(campaign: str | Path, out: str | Path, *, faction: str | None = None,
                    formats: Iterable[str] = FORMATS, force: bool = False,
                    extra: Callable[[Situation, Path], None] | None = None) -> tuple[Path, Situation]:
    """Write the situation of ``campaign`` as ``faction`` may see it into the folder ``out``
    (:func:`bellica.etl.situation.export_situation`: checked first, written whole, renamed into place)."""
    return export_situation(lambda: read_situation(campaign, faction=faction), out, formats=formats, force=force,
                            extra=extra)
