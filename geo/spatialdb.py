"""DuckDB connections with the spatial extension loaded offline, and the one SQL runner.

The spatial extension comes from the ``duckdb-extension-spatial`` wheel pinned to
the same version as ``duckdb``; ``INSTALL spatial`` would need the network, so we
``LOAD`` the file shipped inside the wheel by its path.

Query parameters are written into the SQL text as literals (:func:`literal`, :func:`inline`,
:func:`values_rows`), not bound through the driver: duckdb's Python client (1.5) imports pandas,
numpy and pyarrow (~0.2 s) the first time any parameter is bound, to compare each value with
``pandas.NA``, and a ``bellica round`` step would pay that on every run (issue 11, part 1).
This is the one audited place that turns a Python value into SQL.  Decisions:

- only the types bellica binds are written: None, bool, int (within HUGEINT), finite float, str,
  date, datetime, and lists/tuples of these (a DuckDB list); anything else, a NaN or infinity, a
  string holding NUL or a lone surrogate (neither survives a round trip through DuckDB's UTF-8
  text) is refused with a :class:`~bellica.geo.errors.InputError` naming the value's type and why;
- a string is ``'...'`` with each ``'`` doubled and nothing else changed: DuckDB's standard
  strings give backslashes no meaning, so every other character (backslash, newline, ``?``,
  ``$``, any Unicode) stands for itself;
- a float is ``CAST('repr' AS DOUBLE)``: a bare ``1.5`` would be a DECIMAL, and Python's repr
  read back by DuckDB's correctly rounded parser gives the same double bit for bit;
- an int is its digits, in parentheses when negative (the literal is INTEGER/BIGINT/HUGEINT by size where the driver bound
  BIGINT: comparisons and inserts cast the same way); a naive datetime is a ``TIMESTAMP``, an
  aware one a ``TIMESTAMPTZ`` of the same instant (the driver's types); a date a ``DATE``;
- :func:`inline` replaces positional ``?`` placeholders only (named ``$name`` parameters are not
  used by bellica and are refused), skipping ``?`` inside '...' and E'...' strings, "..."
  identifiers, $tag$...$tag$ strings and -- / /* */ comments; the count of placeholders must
  equal the count of values.
"""

from __future__ import annotations

import math
import os
import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, timezone
from functools import lru_cache
from pathlib import Path

import duckdb

from bellica.geo.errors import InputError, SqlError, BellicaError


@lru_cache(maxsize=1)
def spatial_extension_path() -> Path:
    import duckdb_extension_spatial

    root = Path(duckdb_extension_spatial.__file__).parent / "extensions"
    found = sorted(root.glob(f"v{duckdb.__version__}/**/spatial.duckdb_extension"))
    if not found:
        raise BellicaError(
            f"duckdb-extension-spatial has no build for duckdb {duckdb.__version__} under {root}; "
            "reinstall with `pip install -e .` so both are pinned to the same version"
        )
    return found[0]


#: Set on every connection bellica opens (:func:`offline_connect`).  DuckDB otherwise downloads an
#: extension a file or a query needs: opening a SQLite file as a database fetches ``sqlite_scanner``
#: from extensions.duckdb.org (DNS lookups, ``~/.duckdb/extensions`` created), and bellica never
#: touches the network.  The extensions it uses are built in or loaded from their pinned file.
OFFLINE = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


#: The environment variable that sets DuckDB's worker threads per connection (unset: DuckDB's
#: default, one per core).  For a process among others that already keep every core busy, such as
#: the test suite's workers: most of the project's queries are small, and run on one thread they
#: cost less (four CLI and engine test modules in one process took 13% less CPU, and less time).
THREADS_VARIABLE = "BELLICA_DUCKDB_THREADS"


def _threads() -> dict[str, int]:
    value = os.environ.get(THREADS_VARIABLE, "").strip()
    if not value:
        return {}
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise InputError(f"{THREADS_VARIABLE}={value!r} is not a number of threads: set it to a whole number "
                         f"of at least 1, e.g. 1, or unset it for one thread per core")
    return {"threads": int(value)}


def offline_connect(path: str | Path | None = None, *, read_only: bool = False,
                config: Mapping[str, object] | None = None) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` with :data:`OFFLINE` set (whatever ``config`` says): the one way the
    project opens a DuckDB database; ``None`` gives an in-memory one.  :data:`THREADS_VARIABLE`
    sets its threads unless ``config`` does."""
    return duckdb.connect(str(path) if path is not None else ":memory:", read_only=read_only,
                          config={**_threads(), **(config or {}), **OFFLINE})


def foreign_database(path: str | Path) -> str | None:
    """What other database ``path`` holds, by its header (None: none known).  DuckDB opens a SQLite
    file through the ``sqlite_scanner`` extension, which bellica never loads, and its error then
    names only the missing extension."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return None
    return "a SQLite database" if head == b"SQLite format 3\x00" else None


#: DuckDB's file header: a main header and two database headers of 4 KiB before the first block.
HEADER_BYTES = 3 * 4096


def shortfall(con: duckdb.DuckDBPyConnection, path: str | Path) -> tuple[int, int] | None:
    """``(size, expected)`` when the database file ``path`` open on ``con`` is shorter than the blocks
    its header counts (else None): cut short after the catalog, it opens, and fails only when a
    query reads a table past the cut, its SQL in the message."""
    # Only the blocks in use must lie in the file: DuckDB counts free blocks past the end of a
    # file a checkpoint has shortened in total_blocks, so that count would refuse sound files.
    block_size, used_blocks = con.execute("SELECT block_size, used_blocks FROM pragma_database_size()").fetchone()
    expected = HEADER_BYTES + int(block_size) * int(used_blocks)
    size = Path(path).stat().st_size
    return (size, expected) if size < expected else None


def connect(path: str | Path | None = None, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (or create) a DuckDB database with spatial loaded; ``None`` gives an in-memory one."""
    return spatial_connect(path, read_only=read_only)


#: The spatial extension files this process has loaded with DuckDB's signature check, each by its
#: path, device, inode, size and modification time: :func:`spatial_connect`.
_VERIFIED: set[tuple] = set()


def _identity(path: Path) -> tuple:
    st = path.stat()
    return str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def spatial_connect(path: str | Path | None = None, *, read_only: bool = False,
                    config: Mapping[str, object] | None = None) -> duckdb.DuckDBPyConnection:
    """:func:`offline_connect` with the pinned spatial extension loaded (by its file).

    DuckDB checks an extension's signature on every ``LOAD``, in every database: a SHA-256 of the
    whole 80 MB file, 0.18 s of CPU (of 0.19 s for the ``LOAD``), paid again by each connection a
    long-running process opens (the app's console opens one per query; the test suite hundreds).
    The first ``LOAD`` of a file in this process is checked.  A later connection loading the same
    file (same path, device, inode, size and modification time) skips the check for that one
    ``LOAD`` (``allow_unsigned_extensions`` at connect) and turns unsigned extensions off again at
    once, so from then on it is as a checked connection is: ``allow_unsigned_extensions`` false,
    no other extension loads unsigned."""
    extension = spatial_extension_path()
    identity = _identity(extension)
    verified = identity in _VERIFIED
    unsigned = {"allow_unsigned_extensions": True} if verified else {}
    con = offline_connect(path, read_only=read_only, config={**(config or {}), **unsigned})
    try:
        con.execute(f"LOAD '{extension}'")
        if verified:
            con.execute("SET allow_unsigned_extensions = false")
    except BaseException:
        con.close()
        raise
    _VERIFIED.add(identity)
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
    con = spatial_connect(path, read_only=True, config={  # the umpire's views use spatial functions
        "allow_community_extensions": False,  # no download of an extension a query names
        "allow_persistent_secrets": False,
    })
    try:
        con.execute("SET temp_directory = ''")
        con.execute("SET enable_external_access = false")  # before the next: it lists the database's paths
        con.execute("SET disabled_filesystems = 'LocalFileSystem'")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


# --- parameters as literals (module doc) ---------------------------------------------------------

_HUGEINT = 2 ** 127


def literal(value) -> str:
    """``value`` as a DuckDB SQL literal that reads back as exactly ``value`` (module doc)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):  # before int: bool is an int
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        if not -_HUGEINT <= value < _HUGEINT:
            raise InputError(f"an integer query parameter is outside DuckDB's HUGEINT range: {value}")
        digits = int.__repr__(value)  # also for an IntEnum (whose str() is its name)
        return f"({digits})" if value < 0 else digits  # ``x -?`` must not become the comment ``x --1``
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"a float query parameter is {value!r}: only finite numbers are written to the database")
        return f"CAST('{float.__repr__(value)}' AS DOUBLE)"
    if isinstance(value, str):
        if "\x00" in value:
            raise InputError("a text query parameter holds a NUL character (\\x00), which DuckDB text cannot store: remove it")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("a text query parameter holds a lone surrogate, which is not UTF-8: "
                             "pass text decoded from valid UTF-8") from None
        return "'" + str.replace(value, "'", "''") + "'"
    if isinstance(value, datetime):  # before date: a datetime is a date
        if value.tzinfo is not None and value.utcoffset() is not None:
            utc = value.astimezone(timezone.utc).replace(tzinfo=None)
            return f"TIMESTAMPTZ '{utc.isoformat(sep=' ')}+00'"
        return f"TIMESTAMP '{value.replace(tzinfo=None).isoformat(sep=' ')}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise InputError(f"a query parameter of type {type(value).__name__} cannot be written as SQL: "
                     "pass None, bool, int, float, str, date, datetime or a list of these")


#: What :func:`inline` must step over whole: quoted text, identifiers and comments.
_SKIP = re.compile(r"""
      (?<![A-Za-z0-9_])[eE]'(?:[^'\\]|\\.|'')*'  # E'...' (not a name's last e): backslash escapes
    | '(?:[^']|'')*'                    # '...'
    | "(?:[^"]|"")*"                    # "identifier"
    | (\$[A-Za-z_0-9]*\$)(?:.|\n)*?\1   # $tag$ ... $tag$
    | --[^\n]*                          # line comment
    | /\*(?:.|\n)*?\*/                   # block comment
    | \$[A-Za-z_0-9]+                    # a named or numbered parameter (refused below)
    | \?                                # the placeholder
""", re.VERBOSE | re.DOTALL)
_WORD = re.compile(r"[\w$]")


def inline(sql: str, params: Sequence | None) -> str:
    """``sql`` with each positional ``?`` placeholder replaced by its value's :func:`literal`."""
    if params is None:
        return sql
    if isinstance(params, Mapping) or isinstance(params, (str, bytes)):
        raise InputError(f"query parameters must be a list of positional values, not a {type(params).__name__}")
    params = list(params)
    out, pos, used = [], 0, 0
    for m in _SKIP.finditer(sql):
        token = m.group(0)
        if token == "?":
            if used == len(params):
                raise InputError(f"the query has more ? placeholders than the {len(params)} parameters given")
            text = literal(params[used])
            if m.start() > 0 and _WORD.match(sql, m.start() - 1):
                text = " " + text  # ``x=?AND`` must not glue a literal to a name
            if _WORD.match(sql, m.end()):
                text += " "
            out.append(sql[pos:m.start()])
            out.append(text)
            pos, used = m.end(), used + 1
        elif token[0] == "$" and not token.endswith("$"):
            raise InputError(f"the query names parameter {token}: bellica binds positional ? parameters only")
    if used != len(params):
        raise InputError(f"the query has {used} ? placeholders but {len(params)} parameters were given")
    out.append(sql[pos:])
    return "".join(out)


def values_rows(rows: Iterable[Sequence]) -> str:
    """``(lit, lit, ...), (...)`` for ``INSERT ... VALUES``: a bulk write without binding (module doc)."""
    return ", ".join("(" + ", ".join(literal(v) for v in row) + ")" for row in rows)


def insert_rows(con: duckdb.DuckDBPyConnection, head: str, rows: Iterable[Sequence], *, chunk: int = 500,
                name: str = "<insert>") -> None:
    """``head`` (``INSERT INTO t (a, b)``) followed by ``VALUES`` of ``rows``, ``chunk`` rows a statement."""
    rows = list(rows)
    for i in range(0, len(rows), chunk):
        run_sql(con, f"{head} VALUES {values_rows(rows[i:i + chunk])}", name=name)


# --- the catalog, read once while nothing changes it ----------------------------------------

#: Connections whose catalog is remembered (a Campaign's, for its life; a map opened read-only to
#: draw it): id -> what is known of it.  A ``bellica round`` step asks "which tables exist?" half a
#: dozen times (opening, the ruleset, the log, the rules, the Board), and drawing a map asks which
#: columns a table has two dozen times: each answer from DuckDB costs 1-3 ms cold; remembered, one
#: query each.
_CATALOG: dict[int, "_Known"] = {}
#: Statements that cannot change the catalog (anything else forgets it: CREATE, DROP, ALTER, ATTACH,
#: and a statement led by a comment, which may hide any of them).
_DATA_ONLY = ("SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "FROM")


class _Known:
    """What is remembered of one connection's catalog (None: ask DuckDB).  The connection is held
    weakly: an entry never keeps a database open, and goes when its connection does."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = weakref.ref(con)
        self.kinds: dict[str, str] | None = None
        self.columns: dict[str, tuple[str, ...]] | None = None


def _known(con: duckdb.DuckDBPyConnection) -> _Known | None:
    entry = _CATALOG.get(id(con))
    return entry if entry is not None and entry.con() is con else None


def remember_catalog(con: duckdb.DuckDBPyConnection, on: bool = True) -> None:
    """Start (``on``) or stop remembering ``con``'s catalog.  Only for a connection whose owner sends
    every catalog change through :func:`run_sql` or calls :func:`forget_catalog` (the Campaign does;
    a transaction's end forgets it too: a rollback may undo a CREATE), or that cannot change it."""
    key = id(con)
    if on:
        _CATALOG[key] = _Known(con)
        weakref.finalize(con, _forget_entry, key, _CATALOG[key])
    else:
        _CATALOG.pop(key, None)


def _forget_entry(key: int, entry: _Known) -> None:
    if _CATALOG.get(key) is entry:
        del _CATALOG[key]


def forget_catalog(con: duckdb.DuckDBPyConnection) -> None:
    """The catalog may have changed: the next :func:`catalog_kinds` asks DuckDB again."""
    entry = _known(con)
    if entry is not None:
        entry.kinds = entry.columns = None


def catalog_kinds(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """``{lower-case name: 'table' | 'view'}`` of the current schema (remembered where asked)."""
    entry = _known(con)
    if entry is not None and entry.kinds is not None:
        return entry.kinds
    rows = con.execute(
        "SELECT lower(table_name), table_type FROM information_schema.tables "
        "WHERE table_catalog = current_database() AND table_schema = current_schema()"
    ).fetchall()
    kinds = {name: "view" if kind == "VIEW" else "table" for name, kind in rows}
    if entry is not None:
        entry.kinds = kinds
    return kinds


def remembered_columns(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, ...]] | None:
    """``{lower-case table or view: its lower-case columns in order}`` of the current schema, read in
    one query and remembered, for a connection whose catalog is remembered; None for any other."""
    entry = _known(con)
    if entry is None:
        return None
    if entry.columns is None:
        columns: dict[str, list[str]] = {}
        for table, column in con.execute(
            "SELECT lower(table_name), lower(column_name) FROM duckdb_columns() WHERE database_name = current_database() "
            "AND schema_name = current_schema() ORDER BY table_name, column_index"
        ).fetchall():
            columns.setdefault(table, []).append(column)
        entry.columns = {table: tuple(names) for table, names in columns.items()}
    return entry.columns


def run_sql(con: duckdb.DuckDBPyConnection, sql: str, params=None, *, name: str = "<inline>"):
    """Execute one SQL text, its ``?`` parameters written in as literals (:func:`inline`); on failure
    log the query and raise :class:`SqlError` naming it."""
    if params is not None:
        try:
            sql = inline(sql, params)
        except InputError as e:
            raise InputError(f"query {name}: {e}") from None
    if _CATALOG and not sql.lstrip()[:6].upper().startswith(_DATA_ONLY):
        forget_catalog(con)
    try:
        return con.execute(sql)
    except duckdb.Error as e:
        from bellica.geo.logs import logger  # only on failure: logging stays off the round path

        logger(__name__).error("query %s failed:\n%s", name, sql)
        raise SqlError(f"query {name} failed: {e}") from e


def run_sql_file(con: duckdb.DuckDBPyConnection, path: str | Path, params=None):
    """Run every statement of a ``.sql`` file (statements separated by ``;`` at line end)."""
    path = Path(path)
    text = path.read_text()
    result = None
    for i, statement in enumerate(s for s in text.split(";\n") if s.strip()):
        result = run_sql(con, statement, params, name=f"{path.name}#{i + 1}")
    return result
