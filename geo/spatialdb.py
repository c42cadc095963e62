"""DuckDB connections with the spatial extension loaded offline, and the one SQL runner.

The spatial extension comes from the ``duckdb-extension-spatial`` wheel pinned to
the same version as ``duckdb``; ``INSTALL spatial`` would need the network, so we
``LOAD`` the file shipped inside the wheel by its path.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

import duckdb

from tabula.geo.errors import SqlError, TabulaError

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def spatial_extension_path() -> Path:
    import duckdb_extension_spatial

    root = Path(duckdb_extension_spatial.__file__).parent / "extensions"
    found = sorted(root.glob(f"v{duckdb.__version__}/**/spatial.duckdb_extension"))
    if not found:
        raise TabulaError(
            f"duckdb-extension-spatial has no build for duckdb {duckdb.__version__} under {root}; "
            "reinstall with `pip install -e .` so both are pinned to the same version"
        )
    return found[0]


def connect(path: str | Path | None = None, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (or create) a DuckDB database with spatial loaded; ``None`` gives an in-memory one."""
    con = duckdb.connect(str(path) if path is not None else ":memory:", read_only=read_only)
    con.execute(f"LOAD '{spatial_extension_path()}'")
    return con


def connect_console(path: str | Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to one database file that reaches nothing else: for SQL a user types.

    Read-only alone does not stop ``COPY ... TO 'the.duckdb'``, ``EXPORT DATABASE``, ``ATTACH``,
    ``INSTALL`` or ``read_text('/etc/shadow')``, so after spatial is loaded (by its file, which
    needs file access) every way out is closed and the configuration locked so no later ``SET`` or
    ``RESET`` reopens it:

    - ``temp_directory = ''``: nothing spills to a ``<file>.tmp`` folder beside the database;
    - ``enable_external_access = false``: no file or URL outside the database, no ATTACH of a file,
      no INSTALL or LOAD of another extension, no persistent secret;
    - ``disabled_filesystems = 'LocalFileSystem'``: external access still allows the database's own
      path (and its ``.wal``), so ``COPY ... TO 'the.duckdb' (USE_TMP_FILE false)`` would overwrite it;
      with the local file system off nothing opens a local file at all.  The database file itself is
      already open and keeps being read through its handle.
    """
    con = duckdb.connect(str(path), read_only=True, config={
        "autoinstall_known_extensions": False,  # no download of an extension a query names
        "autoload_known_extensions": False,
        "allow_community_extensions": False,
        "allow_persistent_secrets": False,
    })
    try:
        con.execute(f"LOAD '{spatial_extension_path()}'")  # the umpire's views use spatial functions
        con.execute("SET temp_directory = ''")
        con.execute("SET enable_external_access = false")  # before the next: it lists the database's paths
        con.execute("SET disabled_filesystems = 'LocalFileSystem'")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, params=None, *, name: str = "<inline>"):
    """Execute one SQL text; on failure log the query and raise :class:`SqlError` naming it."""
    try:
        return con.execute(sql, params) if params is not None else con.execute(sql)
    except duckdb.Error as e:
        log.error("query %s failed:\n%s", name, sql)
        raise SqlError(f"query {name} failed: {e}") from e


def run_sql_file(con: duckdb.DuckDBPyConnection, path: str | Path, params=None):
    """Run every statement of a ``.sql`` file (statements separated by ``;`` at line end)."""
    path = Path(path)
    text = path.read_text()
    result = None
    for i, statement in enumerate(s for s in text.split(";\n") if s.strip()):
        result = run_sql(con, statement, params, name=f"{path.name}#{i + 1}")
    return result
