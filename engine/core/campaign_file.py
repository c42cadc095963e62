"""Opening a campaign file, with every way it can be wrong turned into one line naming it and the fix.

:meth:`bellica.engine.core.campaign.Campaign.open` calls :func:`open_connection`.  A user
gives the CLI a path; what is behind it may be missing, a directory, a FIFO, unreadable,
a text file, an empty or truncated file, a DuckDB file that holds a map and not a
campaign, or a campaign that another process holds.  DuckDB's own messages for these
are correct but name neither the fix nor, for a lock, who holds it in words an umpire
can act on; the functions here do.

The connection does not load the spatial extension.  Loading it costs each CLI step about
0.35 s (issue 11), and no step needs it: the campaign's ``GEOMETRY`` columns, ``ST_AsWKB`` and
``ST_AsText`` are DuckDB's own since 1.5, every named view binds without the extension, and
the Board reads structures' points from their WKB (:func:`bellica.schema.read_structures`).
Code that calls a function only the extension has (``ST_Intersects``, ``ST_X``, ...) on a
campaign's connection loads it first with :func:`load_spatial`; ``bellica sql`` and the app's
console open their own connection with it loaded (:func:`bellica.geo.spatialdb.connect_console`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.spatialdb import catalog_kinds, foreign_database, offline_connect, remember_catalog, shortfall

__all__ = ["connect", "load_spatial", "open_connection", "damaged", "lock_holder", "lock_message"]

#: Tables of which a campaign file has at least one: the scenario's (``factions``, ``scenario_meta``,
#: written by ``bellica campaign new``) or the started campaign's (``campaign``, ``events``).
CAMPAIGN_MARKERS = ("factions", "scenario_meta", "campaign", "events")
#: Tables of a map file (``bellica map build``).
MAP_MARKERS = ("hexes", "map_meta")

_CREATE = "the .duckdb file written by `bellica campaign new`"
_LOCK = re.compile(r"Conflicting lock is held in (?P<exe>.*?) \(PID (?P<pid>\d+)\)")


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def connect(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """DuckDB's connection to ``path``, without the spatial extension (module doc).

    No progress bar: a step's queries take milliseconds, and DuckDB's bar polls every running
    query's progress (measured: 3-4% of a round step's instructions, for a bar never shown)."""
    con = offline_connect(path, read_only=read_only)
    con.execute("SET enable_progress_bar = false")  # a session option: DuckDB refuses it in connect's config
    return con


def load_spatial(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """Load the pinned spatial extension on ``con`` (by its file: offline); a no-op once loaded."""
    from bellica.geo.spatialdb import spatial_extension_path

    if not con.execute("SELECT loaded FROM duckdb_extensions() WHERE extension_name = 'spatial'").fetchone()[0]:
        con.execute(f"LOAD '{spatial_extension_path()}'")
    return con


def open_connection(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A connection to the campaign file ``path`` (spatial not loaded: module doc), or an
    :class:`InputError` / :class:`MissingInputError` in one line naming ``path`` and the fix."""
    if not path.exists():
        raise MissingInputError(f"campaign database {path} does not exist: create it with `bellica campaign new`")
    if path.is_dir():
        raise InputError(f"campaign database {path} is a directory, not a campaign file: give {_CREATE}")
    if not path.is_file():  # a FIFO or a device: DuckDB would block on it or read garbage
        raise InputError(f"campaign database {path} is not a regular file: give {_CREATE}")
    if not os.access(path, os.R_OK) or not (read_only or os.access(path, os.W_OK)):
        raise InputError(_permission_message(path, read_only))
    try:
        con = connect(path, read_only=read_only)
    except duckdb.Error as e:
        raise InputError(_open_failure_message(path, e, read_only)) from None
    remember_catalog(con)  # the Campaign forgets it when it closes the connection
    try:
        _require_whole_file(con, path)
        _require_campaign_tables(con, path)
    except duckdb.Error as e:
        remember_catalog(con, False)
        con.close()
        raise damaged(path, e) from None
    except BaseException:
        remember_catalog(con, False)
        con.close()
        raise
    return con


def damaged(path: Path, e: BaseException) -> InputError:
    """The error for a file whose header reads but whose tables do not (truncated or overwritten inside)."""
    return InputError(f"campaign database {path} is damaged and cannot be read ({_first_line(e)}): "
                      "restore it from a copy, or recreate it with `bellica campaign new`")


def _permission_message(path: Path, read_only: bool) -> str:
    what = "read" if read_only else "read and written"
    return (f"campaign database {path} cannot be {what} by this user (permission denied): "
            f"check its permissions with `ls -l {path}`, or run as its owner")


def _open_failure_message(path: Path, e: duckdb.Error, read_only: bool) -> str:
    text = str(e)
    low = text.lower()
    if "lock" in low and "conflicting" in low or "could not set lock" in low:
        return lock_message(path, text, read_only=read_only)
    if "permission denied" in low:
        return _permission_message(path, read_only)
    if foreign_database(path):
        return f"campaign database {path} is {foreign_database(path)}, not a DuckDB one: give {_CREATE}"
    if "not a valid duckdb database" in low:
        size = path.stat().st_size if path.exists() else 0
        what = "an empty file" if size == 0 else f"not a DuckDB database ({size} bytes of something else)"
        return f"campaign database {path} is {what}: give {_CREATE}"
    if "could not read enough bytes" in low or "truncated" in low:
        return (f"campaign database {path} is truncated ({path.stat().st_size} bytes, cut short while written "
                f"or copied): restore it from a copy, or recreate it with `bellica campaign new`")
    if "version" in low and ("storage" in low or "serializ" in low):
        return (f"campaign database {path} was written by another DuckDB version ({_first_line(e)}): "
                f"open it with duckdb {duckdb.__version__}, the version this bellica is pinned to")
    if "different configuration" in low:  # the same process holds it already, opened the other way
        return (f"campaign database {path} is already open in this process in another mode: "
                "close the other connection first")
    return f"campaign database {path} cannot be opened ({_first_line(e)}): give {_CREATE}"


def _require_whole_file(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a file shorter than the blocks its header counts: cut short after the catalog, it
    opens, and fails only when a step reads a table past the cut (perhaps half-way through)."""
    short = shortfall(con, path)
    if short:
        size, expected = short
        raise InputError(f"campaign database {path} is truncated ({size} bytes of the {expected} its header counts, "
                         "cut short while written or copied): restore it from a copy, or recreate it with "
                         "`bellica campaign new`")


def _require_campaign_tables(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    tables = set(catalog_kinds(con))
    if any(t in tables for t in CAMPAIGN_MARKERS):
        return
    if any(t in tables for t in MAP_MARKERS):
        raise InputError(f"campaign database {path} is a map (from `bellica map build`), not a campaign: make a campaign on it with "
                         f"`bellica campaign new --scenario NAME --map {path} --out CAMPAIGN.duckdb`")
    listed = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    holds = f"only the tables {listed}" if tables else "no tables"
    raise InputError(f"campaign database {path} is a DuckDB file with {holds}, not a campaign: give {_CREATE}")


def lock_holder(pid: int) -> tuple[list[str] | None, bool]:
    """``(argv, is_bellica)`` of process ``pid`` from ``/proc/PID/cmdline`` (``None`` where it cannot
    be read: gone, another OS, another container).  A bellica process runs the ``bellica`` script
    or ``python -m bellica.cli``."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None, False
    argv = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    return argv, _bellica_args(argv) is not None


def _bellica_args(argv: list[str]) -> list[str] | None:
    """The arguments after the bellica program in ``argv``, or None when it is not a bellica command."""
    for i, arg in enumerate(argv):
        if os.path.basename(arg) == "bellica" or arg.endswith(("bellica/cli.py", "bellica/__main__.py")):
            return argv[i + 1:]
        if arg == "-m" and i + 1 < len(argv) and argv[i + 1] in ("bellica", "bellica.cli"):
            return argv[i + 2:]
    return None


def _shown(args: list[str], limit: int = 200) -> str:
    text = " ".join(a if a and not re.search(r"\s", a) else repr(a) for a in args)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def lock_message(path: Path, duckdb_text: str, *, read_only: bool) -> str:
    """One line for DuckDB's lock error on ``path``: who holds the file (PID, whether it is a bellica
    command and which), how (a reader blocks every writer), and the fix."""
    m = _LOCK.search(duckdb_text)
    # DuckDB adds this sentence when the holder only reads (a read-only open would succeed).
    holder_reads = "open this database in read-only mode" in duckdb_text
    how = "reading it (a read-only open still blocks every write)" if holder_reads else "holding it"
    want = "read" if read_only else "change"
    if m is None:
        return (f"campaign database {path} is locked by another process, so this command cannot {want} it: "
                "wait for that process to finish (or close it) and retry")
    pid = int(m["pid"])
    argv, is_bellica = lock_holder(pid)
    if is_bellica:
        cmd = _shown(["bellica", *_bellica_args(argv)])
        return (f"campaign database {path} is in use by another bellica command, PID {pid} (`{cmd}`), {how}; "
                f"this command cannot {want} it until that one ends: wait for it to finish, "
                f"or stop it (`kill {pid}`), and retry")
    program = _shown(argv) if argv else m["exe"]
    return (f"campaign database {path} is locked by PID {pid} ({program}), which is not a bellica command, {how}; "
            f"this command cannot {want} it while that program keeps the file open: close the file there "
            f"(quit the DuckDB shell, close the notebook's connection) or stop it (`kill {pid}`), and retry")
