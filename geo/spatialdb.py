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
