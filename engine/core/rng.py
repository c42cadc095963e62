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

__all__ = ["DEFAULT_SEED", "seed_from_text", "stream", "campaign_seed", "die_face"]

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


def die_face(seed: int, namespace: str, entered, sides: int, label: tuple) -> tuple[int, bool]:
    """``(face, entered?)`` of one die of ``sides`` faces for ``label``: the face the umpire entered
    under the label's key (a die rolled at the table), else drawn from :func:`stream` keyed by
    ``seed``, the ruleset's ``namespace`` and the label.  A ruleset's dice (Magna Graecia's,
    Trossian's) are this plus their own record of the rolls."""
    from bellica.engine.core.labels import label_key

    key = label_key(label)
    if key in entered:
        v = entered[key]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= sides:
            from bellica.geo.errors import InputError

            raise InputError(f"entered roll {key} = {v!r}: give a whole number from 1 to {sides}")
        return v, True
    return stream(seed, namespace, *label).randint(1, sides), False


def campaign_seed(con) -> int:
    """The seed recorded in the campaign's ``campaign`` table (``key = 'seed'``)."""
    row = con.execute("SELECT value FROM campaign WHERE key = 'seed'").fetchone()
    if row is None:
        from bellica.geo.errors import InputError

        raise InputError("the campaign has no seed: start it with `bellica round start CAMPAIGN.duckdb`")
    return int(row[0])
