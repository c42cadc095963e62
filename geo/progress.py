"""Progress bars for the long commands (``map build``, ``simulate``, ``export``): one place decides
whether to draw.

A bar is drawn only when stderr is a terminal.  Redirected to a file or a pipe (a script, CI,
``2> build.log``) tqdm's carriage-return redraws would land there as dozens of partial lines, so
there nothing is drawn; errors and warnings still are.  A command's ``-q/--quiet`` turns bars off
on a terminal too (``enabled=False``).

    with progress_bar(total=len(jobs), desc="DEM -> hexes", unit="window", enabled=not quiet) as bar:
        for job in jobs:
            ...
            bar.update(1)

tqdm is imported only when a bar is asked for: a ``bellica round`` step never loads it.
"""

from __future__ import annotations

import sys

__all__ = ["counter", "drawing", "progress_bar"]


def drawing(enabled: bool = True) -> bool:
    """Whether a progress bar is drawn: asked for (``enabled``) and stderr is a terminal."""
    if not enabled:
        return False
    stream = sys.stderr
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # replaced by an object without isatty, or closed
        return False


def progress_bar(total: int | None, desc: str, unit: str, *, enabled: bool = True):
    """A tqdm bar on stderr, disabled (updates do nothing) unless :func:`drawing` says so.
    ``leave=False``: the bar is wiped when done, so the command's own report follows cleanly."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True,
                disable=not drawing(enabled))


def counter(bar):
    """A ``progress(done, total)`` callback (what :func:`bellica.engine.core.simulate.simulate` calls)
    that moves ``bar`` to ``done``: the callers count what is done, not what was just added."""

    def report(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.update(done - bar.n)

    return report
