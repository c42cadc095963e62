"""The deadline as the umpire's page takes it: a date-time picker and a time zone, stored in UTC.

The form gives ``when_local`` (an ``<input type=datetime-local>``: ``YYYY-MM-DDTHH:MM``) and ``tz``:
a time-zone name (``Europe/Rome``, ``UTC``) or ``browser``, the browser's own offset sent along in
``offset`` (minutes east of UTC, filled by the page's script).  A script may still give ``when``, an
ISO-8601 UTC time, as before.  The engine stores and checks the UTC time it is given.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Mapping

__all__ = ["ZONES", "zones", "deadline_utc", "local_value"]

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


def deadline_utc(form: Mapping[str, str]) -> str:
    """The form's deadline as the engine takes it (ISO-8601 UTC); raises InputError in one line."""
    from bellica.geo.errors import InputError

    local = form.get("when_local", "").strip()
    if not local:
        return form.get("when", "")
    try:
        naive = datetime.strptime(local[:16], "%Y-%m-%dT%H:%M")
    except ValueError:
        raise InputError(f"deadline {local!r} is not a date and time (YYYY-MM-DDTHH:MM)") from None
    when = naive.replace(tzinfo=_zone(form.get("tz", "browser"), form.get("offset", "")))
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def local_value(utc: str | None) -> str:
    """A stored UTC deadline as the picker's value (in UTC: the page shows the zone chosen as UTC)."""
    if not utc:
        return ""
    try:
        return datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M")
    except ValueError:
        return ""
