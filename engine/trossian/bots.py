"""Engine players of this ruleset (:mod:`bellica.engine.core.players`); docs/bots.md."""

from __future__ import annotations

from bellica.engine.core.players import RandomSteps

__all__ = ["BOTS"]

BOTS = {"random": RandomSteps}
