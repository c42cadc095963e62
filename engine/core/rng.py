"""The campaign's one random source: a seed kept in the ``campaign`` table.

The land rules of Vae Victis II need no dice (ties are broken by the seven-step
priority list, naval battles by numbers derived from the orders), so nothing in
the adjudication draws from here today.  What does need chance -- the demo's
stand-in for Field of Glory II casualty figures, a future umpire tie-break --
asks :func:`stream` for a generator keyed by the campaign seed *and* a label
naming the use (``("demo-casualties", round, engagement)``).  Keying by label
rather than drawing from one shared generator means a draw never depends on how
many draws happened before it, so re-running one step, or replaying, gives the
same numbers.  The numbers drawn are recorded in the events that use them, so a
replay never needs to draw again.
"""

from __future__ import annotations

import hashlib
import json
import random

__all__ = ["DEFAULT_SEED", "seed_from_text", "stream", "campaign_seed"]

#: Seed of a campaign started without one: fixed, so two fresh campaigns agree.
DEFAULT_SEED = 1


def seed_from_text(text: str) -> int:
    """A stable 63-bit seed from a text (e.g. the scenario name); same text, same seed."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1


def stream(seed: int, *labels: object) -> random.Random:
    """An independent generator for one use of randomness, keyed by ``seed`` and ``labels``.

    ``labels`` must be JSON-serialisable (strings, ints).

    >>> stream(7, "demo", 1).randint(0, 100) == stream(7, "demo", 1).randint(0, 100)
    True
    """
    key = json.dumps([int(seed), *labels], sort_keys=True, separators=(",", ":"))
    return random.Random(int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:16], "big"))


def campaign_seed(con) -> int:
    """The seed recorded in the campaign's ``campaign`` table (``key = 'seed'``)."""
    row = con.execute("SELECT value FROM campaign WHERE key = 'seed'").fetchone()
    if row is None:
        from tabula.geo.errors import InputError

        raise InputError("the campaign has no seed: start it with `tabula round start CAMPAIGN.duckdb`")
    return int(row[0])
