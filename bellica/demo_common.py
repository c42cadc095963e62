"""What the stepped rulesets' demos share (``demo_mare_nostrum``, ``demo_trossian``,
``demo_magna_graecia``): the log a demo prints, verified and re-adjudicated, and how it is run
from ``make demo``.  Each demo's own module keeps its script: the moves, orders and results."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.ruleset import QUIET_KINDS

__all__ = ["demo_main", "told_lines", "with_next"]


def told_lines(c) -> list[str]:
    """The open campaign ``c``'s log in words, its chain verified first: every event but the
    bookkeeping (rows put and dropped, the position, notes)."""
    c.verify()
    return [e.text for e in c.events() if e.kind not in QUIET_KINDS]


def with_next(campaign: Path, lines: list[str], words: str) -> list[str]:
    """Re-adjudicate the closed ``campaign`` from its scenario (every step run again and the
    tables compared), then ``lines`` and the next decision's ``words`` with the file named."""
    readjudicate(campaign)
    return lines + [f"next: {words.replace('CAMPAIGN', str(campaign))}"]


def demo_main(default: str, build: Callable[..., Path], run: Callable[[Path], list[str]], done: str) -> tuple[Path, float]:
    """``python -m bellica.demo_X [CAMPAIGN] [MAP]``: build the campaign (on MAP if given, else
    the scenario's own map), play the script, print its lines and how long it took (``done``
    says what was played).  Returns the campaign file and the time it started."""
    t0 = time.perf_counter()
    target = Path(sys.argv[1] if len(sys.argv) > 1 else default)
    build(target, map_path=sys.argv[2] if len(sys.argv) > 2 else None)
    for line in run(target):
        print(line)
    print(f"{target}: {done}, verified and re-adjudicated in {time.perf_counter() - t0:.1f} s")
    return target, t0
