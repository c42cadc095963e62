"""Loggers configured for the command line only when something logs.

The ``bellica`` command wants warnings printed as ``WARNING module: message`` (and, with
``--verbose``, progress at INFO).  Importing :mod:`logging` costs a ``bellica round`` step some
4 ms, and no module on a round step logs unless something fails, so the CLI does not configure
logging up front: it records the level it wants (:func:`want`), and the first module that asks
for a logger (:func:`logger`) configures the root logger then.  Used as a library (tests, the
web app), nothing configures logging: the caller's configuration stands.
"""

from __future__ import annotations

__all__ = ["logger", "want"]

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
