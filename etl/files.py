"""The files a command reads and writes: one-line errors, no silent overwrite, no leftovers.

* :func:`open_duckdb` opens a database a user named, read-only, and turns "not a DuckDB
  file", "locked by a writer" and "no such file" into one :class:`InputError` line;
* :func:`check_out_dir` makes sure ``--out`` can be written (its folder exists or can be
  made, and a file can be created there) before any work is done;
* :func:`refuse_overwrite` refuses to replace an existing ``--out`` without ``--force``, a
  file another process has open for writing, and (for a map or an export) a campaign,
  even with ``--force``: a campaign is a file that has a ``scenario_meta`` or ``events``
  table, and replacing it loses the game;
* :func:`temp_path` names a command's temporary output ``.NAME.PID.tmp`` (a file) or
  ``.NAME.PID.tmpdir`` (a folder) next to ``NAME``, so that :func:`clear_leftovers`, run
  by a later command for the same output, can tell the leftovers of a killed run (its
  process is gone: they are removed) from the files of a run still going on (its process
  is alive: the later command is refused).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import duckdb

from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.logs import logger
from bellica.geo.spatialdb import foreign_database, offline_connect, shortfall

log = logger(__name__)

CAMPAIGN_MARKERS = ("scenario_meta", "events")
"""Tables that make a database a campaign (schema/campaign.sql's metadata, the core's event log)."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _locked(exc: BaseException) -> bool:
    """Another process holds the write lock, or this one has the file open (a second connection
    with other settings is refused in-process)."""
    text = str(exc).lower()
    return "lock" in text or "different configuration" in text


def open_duckdb(path: str | Path, *, what: str, fix: str) -> duckdb.DuckDBPyConnection:
    """Open the DuckDB file ``path`` read-only with spatial loaded (``what`` names it in errors,
    ``fix`` says what to pass instead); one-line errors for a missing, foreign or locked file."""
    from bellica.geo.spatialdb import connect

    path = Path(path)
    if not path.is_file():
        if path.is_dir():
            raise InputError(f"{what} {path} is a directory: {fix}")
        raise MissingInputError(f"{what} {path} does not exist: {fix}")
    try:
        con = connect(path, read_only=True)
    except duckdb.Error as e:
        if _locked(e):
            raise InputError(f"{what} {path} is open for writing by another process ({_first_line(e)}): "
                             "try again once that command has finished") from None
        why = foreign_database(path) or _first_line(e)
        raise InputError(f"{what} {path} is not a readable DuckDB database ({why}): {fix}") from None
    try:
        short = shortfall(con, path)
    except BaseException:
        con.close()
        raise
    if short:
        con.close()
        raise InputError(f"{what} {path} is truncated ({short[0]} bytes of the {short[1]} its header counts, cut short "
                         f"while written or copied): restore it from a copy, or {fix}")
    return con


def table_names(con: duckdb.DuckDBPyConnection, what: str, path: Path) -> set[str]:
    """The tables and views of an open database; a damaged catalogue is an InputError naming ``path``."""
    try:
        rows = con.execute(
            "SELECT lower(table_name) FROM information_schema.tables "
            "WHERE table_catalog = current_database() AND table_schema = current_schema()"
        ).fetchall()
    except duckdb.Error as e:
        raise InputError(f"{what} {path} cannot be read ({_first_line(e)}): pass an undamaged database") from None
    return {r[0] for r in rows}


def require_printable(out: str | Path, *, option: str = "--out") -> Path:
    """Refuse an output path holding a control character (a newline or a tab: GDAL's writers fail on
    them, and a newline would split every message naming the path) or a byte that is not UTF-8 (a
    lone surrogate here, which GDAL and the file names bellica derives cannot encode)."""
    import unicodedata

    text = str(out)
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise InputError(f"{option} {text!r} holds a control character or a byte that is not UTF-8: "
                         "choose a name of printable characters")
    return Path(out)


def check_out_dir(out: str | Path, *, option: str = "--out") -> Path:
    """``out`` if a file can be written at that path: its folder is made when missing, and a
    probe file is created and removed there, so an impossible or read-only ``--out`` fails
    in one line before any work is done."""
    out = require_printable(out, option=option)
    if out.is_dir():
        raise InputError(f"{option} {out} is a directory: pass {option} naming a file")
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{option} {out}: cannot create its folder {parent} ({e.strerror or _first_line(e)}): "
                         f"choose an {option} in a writable folder") from None
    if not parent.is_dir():
        raise InputError(f"{option} {out}: {parent} is not a folder: choose an {option} in a writable folder")
    probe = temp_path(out, "tmp.probe")
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
        os.unlink(probe)
    except FileExistsError:
        probe.unlink(missing_ok=True)
    except OSError as e:
        raise InputError(f"{option} {out}: cannot write in {parent} ({e.strerror or _first_line(e)}): "
                         f"choose an {option} in a writable folder") from None
    return out


def campaign_tables(path: Path) -> set[str] | None:
    """The campaign marker tables ``path`` holds (empty for a map or any other DuckDB file),
    None when it is not a readable DuckDB file; InputError when a writer has it open."""
    try:
        con = offline_connect(path, read_only=True)
    except duckdb.Error as e:
        if _locked(e):
            raise InputError(f"{path} is open for writing by another process ({_first_line(e)}): "
                             "it is not replaced while in use: choose another --out") from None
        return None
    try:
        return table_names(con, "database", path) & set(CAMPAIGN_MARKERS)
    except InputError:
        return None
    finally:
        con.close()


def refuse_overwrite(out: str | Path, *, force: bool, what: str, protect_campaign: bool = True, option: str = "--out") -> None:
    """Refuse to replace ``out`` when it exists and ``force`` is off, when another process has it
    open for writing, and (``protect_campaign``) when it holds a campaign, with or without force.
    ``what`` names what would be written ("map", "export")."""
    out = Path(out)
    if not out.exists() and not out.is_symlink():
        return
    if out.is_dir():
        raise InputError(f"{option} {out} is a directory: pass {option} naming a file")
    held = campaign_tables(out)
    if protect_campaign and held:
        raise InputError(f"{out} holds a campaign (it has a {sorted(held)[0]} table): a {what} never replaces a campaign, "
                         f"even with --force: choose another {option}")
    if not force:
        raise InputError(f"{out} exists: pass --force to replace it, or choose another {option}")


def temp_path(out: str | Path, tag: str = "tmp") -> Path:
    """The temporary name this process uses for ``out``: ``.NAME.PID.<tag>`` in the same folder
    (``tag`` starts with ``tmp``; a folder uses ``tmpdir``), so that an atomic rename is possible
    and :func:`clear_leftovers` can find it."""
    out = Path(out)
    if not tag.startswith("tmp"):
        raise ValueError(f"temporary tag {tag!r} must start with 'tmp'")
    return out.with_name(f".{out.name}.{os.getpid()}.{tag}")


def _leftover_pattern(name: str) -> re.Pattern:
    # .NAME.PID.tmp, .NAME.PID.tmpdir, and what hangs off them (.NAME.PID.tmp.wal, .tmp.gpkg, .tmp.probe, ...)
    return re.compile(rf"\.{re.escape(name)}\.(\d+)\.tmp(?:dir|\..+)?")


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists and is not a zombie (a killed run not yet reaped is dead)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def clear_leftovers(out: str | Path, *, command: str) -> list[Path]:
    """Remove the temporary files and folders that killed runs of ``command`` left for ``out``.

    Leftovers of this process (an earlier call that failed) and of dead processes are removed; a
    live process's temporary file means another run is writing ``out``: refused in one line.
    Returns what was removed."""
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        return []
    pattern = _leftover_pattern(out.name)
    found = []
    for entry in parent.iterdir():
        m = pattern.fullmatch(entry.name)
        if m:
            found.append((int(m.group(1)), entry))
    me = os.getpid()
    for pid, entry in sorted(found, key=lambda x: x[1].name):
        if pid != me and pid_alive(pid):
            raise InputError(f"another `{command}` (process {pid}) is writing {out} ({entry.name} exists): "
                             f"wait for it to finish, or delete {entry} if process {pid} is not a bellica run")
    removed = []
    for pid, entry in found:
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except FileNotFoundError:
            continue
        except OSError as e:
            raise InputError(f"cannot remove {entry}, left by an earlier killed `{command}` ({e.strerror}): delete it by hand") from None
        log.info("removed %s, left by a killed run (process %d)", entry, pid)
        removed.append(entry)
    return removed


__all__ = ["CAMPAIGN_MARKERS", "campaign_tables", "check_out_dir", "clear_leftovers", "open_duckdb", "pid_alive",
           "refuse_overwrite", "require_printable", "table_names", "temp_path"]
