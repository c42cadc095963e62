"""Loggers configured for the command line only when something logs.

The ``bellica`` command wants warnings printed as ``WARNING module: message`` (and, with
``--verbose``, progress at INFO).  Importing :mod:`logging` costs a ``bellica round`` step some
4 ms, and no module on a round step logs unless something fails, so the CLI does not configure
logging up front: it records the level it wants (:func:`want`), and the first module that asks
for a logger (:func:`logger`) configures the root logger then.  Used as a library (tests, the
web app), nothing configures logging: the caller's configuration stands.
"""

from __future__ import annotations

__all__ = ["library_logs", "logger", "want"]

_wanted: list[bool] = []  # [verbose] once the command line asked for logging, else empty
FORMAT = "%(levelname)s %(name)s: %(message)s"


def want(verbose: bool) -> None:
    """The command line's wish: INFO with ``--verbose``, else WARNING; applied now when verbose
    (other libraries' progress shows too) or when :mod:`logging` is already loaded."""
    import sys

    _wanted[:] = [verbose]
    if verbose or "logging" in sys.modules:
        _configure()


def _configure() -> None:
    import logging

    if _wanted:
        logging.basicConfig(level=logging.INFO if _wanted[0] else logging.WARNING, format=FORMAT)


def logger(name: str):
    """``logging.getLogger(name)``, with the command line's configuration applied first."""
    import logging

    _configure()
    return logging.getLogger(name)


#: Libraries that log their own progress at INFO (distributed: ~33 lines per LocalCluster, scheduler,
#: nannies, connections) and whose INFO is not the user's business unless --verbose.
CHATTY = ("distributed", "dask")


class library_logs:
    """While active, the :data:`CHATTY` loggers (and any child given a level of its own, e.g. by a dask
    config file) log WARNING and above only, unless the command line asked for ``--verbose`` and the
    command is not ``quiet``.  Their levels are restored on exit.

    distributed sets its logger to INFO when imported and, when the root logger already has a
    handler (the command line's), adds none of its own: its INFO lines then reach the root handler
    and the user's terminal, and LocalCluster's ``silence_logs`` (which adjusts its own handler)
    cannot stop them.  Used as a library (no :func:`want`), nothing changes unless ``quiet``.
    Enter it after importing distributed: the import sets its level to INFO again.

        from distributed import Client

        with library_logs(quiet=not progress):
            ...
    """

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self._saved: list[tuple[object, int]] = []

    def __enter__(self):
        import logging

        if not self.quiet and (not _wanted or _wanted[0]):
            return self
        manager = logging.getLogger().manager
        names = set(CHATTY) | {n for n in list(manager.loggerDict) if n.startswith(tuple(f"{c}." for c in CHATTY))}
        for name in sorted(names):
            log = logging.getLogger(name)
            # NOTSET children follow their parent; only levels below WARNING are raised
            if name in CHATTY or logging.NOTSET < log.level < logging.WARNING:
                self._saved.append((log, log.level))
                log.setLevel(max(log.level, logging.WARNING))
        return self

    def __exit__(self, *exc) -> None:
        for log, level in reversed(self._saved):
            log.setLevel(level)
        self._saved.clear()
