"""Reading what users type and the text files they hand us, with one-line errors.

Every user text file (orders, administration choices, scenario files, placements,
SQL scripts) goes through :func:`read_user_text`, and every user TOML text through
:func:`parse_user_toml`, so a wrong file is always one :class:`InputError` (or
:class:`MissingInputError`) line naming the file and the fix, never a traceback:
missing, a directory, unreadable, too large, not UTF-8, not TOML, nested too deeply.

:func:`whole_number` is the one reading of a number a user types (army ids,
engagements, casualties, FP): ASCII digits only, because Python's ``int()`` and
``str.isdigit()`` also take other scripts' digits ("٩" is 9, "２０" is 20), which a
user never means as a number.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bellica.geo.errors import InputError, MissingInputError

__all__ = ["MAX_USER_FILE_BYTES", "read_user_text", "parse_user_toml", "whole_number", "is_whole_number"]

#: The largest user text file read (10 MiB).  Orders, choices, scenario files and SQL
#: scripts are a few KiB; anything this large is a wrong file, not a bigger campaign.
MAX_USER_FILE_BYTES = 10 * 1024 * 1024

#: The most digits (leading zeros aside) a number typed for bellica may have: no count, id, seed or
#: percentage needs more, and Python refuses to read more than 4300 (``sys.get_int_max_str_digits``).
MAX_DIGITS = 100

_WHOLE = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"[+-]?[0-9]+")


def _size_text(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def read_user_text(path: str | Path, what: str, *, limit: int = MAX_USER_FILE_BYTES) -> str:
    """The text of the user's ``what`` file at ``path`` (e.g. ``what="orders file"``), UTF-8.

    A byte-order mark is dropped (editors on Windows write one).  Raises
    :class:`MissingInputError` for a missing or unreadable path and :class:`InputError` for a
    directory, a file over ``limit`` bytes, or one that is not UTF-8 (naming the byte offset);
    each is one line naming the file and the fix.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{what} {p} is a directory: give the path of a file")
    try:
        with p.open("rb") as f:
            # Read one byte past the limit rather than trusting stat(): a FIFO or a device has no size.
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise MissingInputError(f"{what} {p} does not exist: check the path") from None
    except IsADirectoryError:
        raise InputError(f"{what} {p} is a directory: give the path of a file") from None
    except PermissionError:
        raise MissingInputError(f"cannot read {what} {p}: permission denied; make it readable (chmod u+r)") from None
    except OSError as e:
        raise MissingInputError(f"cannot read {what} {p}: {e.strerror or e}; check the path") from None
    if len(data) > limit:
        raise InputError(f"{what} {p} is larger than {_size_text(limit)}, the limit for a {what}: give the right file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        start = e.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        raise InputError(
            f"{what} {p} is not UTF-8 text: byte {start} (0x{data[start]:02x}) cannot be decoded; save the file as UTF-8"
        ) from None


def parse_user_toml(text: str, source: str) -> dict[str, Any]:
    """``text`` read as TOML; a syntax error or a nesting too deep for the parser is one
    :class:`InputError` line naming ``source`` (``"orders file roma.toml"``)."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{source} is not valid TOML: {e}; fix the syntax") from None
    except ValueError:
        # tomllib reads an integer with int(), which refuses more than 4300 digits.
        raise InputError(f"{source} holds a number too long to read (over 4300 digits): "
                         f"write numbers of at most {MAX_DIGITS} digits") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively: thousands of "[" exhaust the stack.
        raise InputError(f"{source} is nested too deeply to be read (arrays or tables within each other "
                         "thousands of levels deep): this is not an orders, choices or scenario file") from None


def is_whole_number(text: Any) -> bool:
    """Whether ``text`` is a whole number written in ASCII digits (surrounding blanks allowed)."""
    return isinstance(text, str) and _WHOLE.fullmatch(text.strip()) is not None


def whole_number(text: Any, *, signed: bool = False) -> int | None:
    """The non-negative (``signed``: any) whole number ``text`` writes in ASCII digits, else None.

    ``"12"`` -> 12, ``" 7 "`` -> 7; ``"٩"``, ``"２０"``, ``"1_000"``, ``"1e3"``, ``""`` -> None.
    More than :data:`MAX_DIGITS` digits is an :class:`InputError` (its first digits and the fix).
    """
    if not isinstance(text, str):
        return None
    t = text.strip()
    if (_SIGNED if signed else _WHOLE).fullmatch(t) is None:
        return None
    digits = t.lstrip("+-").lstrip("0")
    if len(digits) > MAX_DIGITS:
        raise InputError(f"the number {t[:12]}... has {len(digits)} digits, more than any number bellica reads "
                         f"({MAX_DIGITS}): give a smaller number")
    # Without its leading zeros: int() counts them against Python's limit of 4300 digits.
    return int(("-" if t.startswith("-") else "") + (digits or "0"))
