"""Error types shared by every package.

All library errors derive from :class:`TabulaError`; the CLI turns them into a
one-line message and a non-zero exit.  Subclasses also derive from the matching
built-in (``ValueError``, ``FileNotFoundError``) so callers can catch either.
"""


class TabulaError(Exception):
    """Root of every error this project raises on purpose."""


class InputError(TabulaError, ValueError):
    """A user-supplied input (file, option, order) is wrong; the message names it and the fix."""


class MissingInputError(TabulaError, FileNotFoundError):
    """A file the user named does not exist or cannot be read."""


class SqlError(TabulaError, RuntimeError):
    """A query from one of the project's .sql files failed."""
