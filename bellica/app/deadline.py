"""A moment as a page takes it (a declared ``time`` parameter, the umpire's deadline): a date-time
picker and a time zone, given to the step in UTC.

The form gives ``NAME_local`` (an ``<input type=datetime-local>``: ``YYYY-MM-DDTHH:MM``) and
``NAME_tz``: a time-zone name (``Europe/Rome``, ``UTC``) or ``browser``, the browser's own offset
sent along in ``NAME_offset`` (minutes east of UTC, filled by the page's script).  A script may
still give ``NAME`` itself, an ISO-8601 UTC time.  The step checks the UTC time it is given.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Mapping

__all__ = ["ZONES", "zones", "utc_text", "local_value"]

#: The first choices of the time-zone select, before every zone the system knows.
ZONES = ("browser", "UTC")


@lru_cache(maxsize=1)
def zones() -> tuple[str, ...]:
    """Every time-zone name the system knows, sorted (just UTC without a zone database)."""
    try:
        from zoneinfo import available_timezones

        return tuple(sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))))
    except Exception:  # no zone database: the browser's offset and UTC still work
        return ()


def _zone(name: str, offset: str):
    from bellica.geo.errors import InputError

    if name in ("", "browser"):
        text = offset.strip().lstrip("+")
        minutes = text[1:] if text.startswith("-") else text
        if not minutes.isdigit() or int(minutes) > 18 * 60:
            raise InputError("the browser sent no time-zone offset: choose a time zone in the list")
        return timezone(timedelta(minutes=int(text)))
    if name == "UTC":
        return timezone.utc
    if name not in zones():
        raise InputError(f"time zone {name!r} is not one the server knows: choose one in the list")
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


def utc_text(form: Mapping[str, str], name: str) -> str:
    """The form's moment ``name`` as a step takes it (ISO-8601 UTC): from its picker's fields, or the
    field ``name`` as given; raises InputError in one line."""
    from bellica.geo.errors import InputError

    local = str(form.get(f"{name}_local", "")).strip()
    if not local:
        return str(form.get(name, "") or "")
    try:
        naive = datetime.strptime(local[:16], "%Y-%m-%dT%H:%M")
    except ValueError:
        raise InputError(f"{name} {local!r} is not a date and time (YYYY-MM-DDTHH:MM)") from None
    when = naive.replace(tzinfo=_zone(str(form.get(f"{name}_tz", "browser")), str(form.get(f"{name}_offset", ""))))
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def local_value(utc: str | None) -> str:
    """A stored UTC deadline as the picker's value (in UTC: the page shows the zone chosen as UTC)."""
    if not utc:
        return ""
    try:
        return datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M")
    except ValueError:
        return ""
