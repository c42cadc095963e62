"""Writing the TOML files people edit (orders templates, administration choices): the reading
side is :func:`bellica.geo.files.parse_user_toml`.

Values are written by ``tomli_w``, which escapes what TOML requires (a quote, a backslash, a
newline or any control character in a faction's or a structure's name); a hand-written
``f'faction = "{name}"'`` breaks on the first of them.  The comments around the values (an army's
hex, a siege) are kept, and made safe: TOML allows no control character but tab in a comment,
so a name holding a newline would end the comment and turn the rest of the name into TOML.
"""

from __future__ import annotations

import re

__all__ = ["toml_line", "toml_comment"]

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r"}


def toml_line(key: str, value) -> str:
    """``key = value`` as one TOML line (a string, a number, a boolean, an array of them)."""
    import tomli_w

    return tomli_w.dumps({key: value}).rstrip("\n")


def toml_comment(text: str) -> str:
    """``# text`` as one TOML comment line: a control character is written as its escape (``\\n``)."""
    return "# " + _CONTROL.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), text)
