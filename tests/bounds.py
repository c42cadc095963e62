"""How big the suite's generated cases are: bounded in `make test`, larger in `make long`.

``BELLICA_FUZZ_SCALE`` (default 0.3) is the share of each fuzz test's stated examples a run tries;
`make long` sets 4.  Property tests over played states take a stride that shrinks as it grows.
"""

from __future__ import annotations

import os

SCALE = float(os.environ.get("BELLICA_FUZZ_SCALE") or 0.3)


def examples(stated: int) -> int:
    """How many of ``stated`` examples this run tries (at least 3)."""
    return max(3, round(stated * SCALE))


def stride(at_full: int = 1) -> int:
    """Every how many played states a property test checks: 10 times ``at_full`` in `make test`,
    ``at_full`` from scale 3 up."""
    return max(at_full, round(3 * at_full / SCALE))
