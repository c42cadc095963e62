"""Re-adjudication: re-run every recorded step from the scenario and compare the logs event by event.

Stronger than :meth:`Campaign.verify` (which folds the recorded state events): it shows
that the log holds every input and that the rules reproduce every recorded change, so
the adjudication is deterministic.  The driver is the core's; which steps a log holds
and how to run one is the ruleset's (:meth:`Ruleset.recorded_steps`,
:meth:`Ruleset.run_step`, :meth:`Ruleset.log_key`).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from bellica.engine.core import state as st
from bellica.engine.core.campaign import Campaign
from bellica.geo.errors import BellicaError

__all__ = ["readjudicate"]


def readjudicate(campaign_path) -> int:
    """Re-run every recorded step of the campaign file on a copy started afresh from its scenario
    with the same seed, and compare the new log with the recorded one.

    Returns the number of steps re-run; raises :class:`engine.core.state.ReplayMismatch` at the
    first differing event (or when a recorded step fails).
    """
    src = Path(campaign_path)
    with Campaign.open(src, read_only=True) as c:
        c.require_state()
        # The seal of a log written before hashes is bookkeeping, not a step: left out of the comparison.
        original = [e for e in c.events() if e.kind != st.SEAL_KIND]
        seed = int(c.snapshot().campaign("seed"))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / src.name
        shutil.copy(src, copy)
        wal = src.with_name(src.name + ".wal")
        if wal.exists():  # a WAL not yet checkpointed holds committed steps
            shutil.copy(wal, copy.with_name(copy.name + ".wal"))
        with Campaign.open(copy) as c:
            rules = c.ruleset
            st.drop_state_tables(c.con, rules.schema)
            c.start(seed=seed)
            steps = rules.recorded_steps(original)
            for n, (name, arg) in enumerate(steps, 1):
                try:
                    rules.run_step(c, name, arg)
                except BellicaError as e:
                    raise st.ReplayMismatch(f"re-adjudication failed at recorded step {n} ({name}): {e}") from e
            again = c.events()
    for a, b in zip(original, again):
        if rules.log_key(a) != rules.log_key(b):
            raise st.ReplayMismatch(
                f"re-adjudication differs at event {a.seq}: recorded {a.kind} {a.text!r}, re-adjudicated {b.kind} {b.text!r}"
            )
    if len(original) != len(again):
        raise st.ReplayMismatch(f"re-adjudication gives {len(again)} events, the log holds {len(original)}")
    return len(steps)
