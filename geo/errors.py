"""Error types shared by every package.

All library errors derive from :class:`BellicaError`; the CLI turns them into a
one-line message and a non-zero exit.  Subclasses also derive from the matching
built-in (``ValueError``, ``FileNotFoundError``) so callers can catch either.
"""


class BellicaError(Exception):
    """Root of every error this project raises on purpose."""


class InputError(BellicaError, ValueError):
    """A user-supplied input (file, option, order) is wrong; the message names it and the fix."""


class RulesRefusal(InputError):
    """Well-formed input the rules refuse at this position (a step out of order, an order the
    position does not allow): the CLI's exit status 3, whatever the ruleset."""


class MissingInputError(BellicaError, FileNotFoundError):
    """A file the user named does not exist or cannot be read."""


class SqlError(BellicaError, RuntimeError):
    """A query from one of the project's .sql files failed."""


def first_line(error: BaseException) -> str:
    """The first line of ``error``'s message, or its type's name when it has none: what a one-line
    error quotes of a library's error (DuckDB's and rasterio's run over several lines)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
