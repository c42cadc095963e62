"""Reading a ruleset's scenario files: one TOML file, or one :class:`InputError` line naming it and the fix."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from bellica.geo.errors import InputError

__all__ = ["read_toml"]


def read_toml(path: Path, folder: str) -> dict[str, Any]:
    """The table of the TOML file ``path``; unreadable or not TOML: one line naming the file and
    the fix (``folder``: what to give instead, e.g. "a Trossian scenario folder")."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror}): give {folder}") from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: not valid TOML ({err}): fix the file") from None
