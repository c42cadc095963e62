"""The SQL statements installed with bellica and with a campaign's ruleset, by what they create.

The SQL console (console.py) makes a campaign file's views and macros again over a viewer's copies
from the text DuckDB keeps for each.  That text is not always the statement as written:

- DuckDB's catalogue forgets a macro parameter's default (``in_year := NULL``);
- in a file at DuckDB's default storage version, DuckDB 1.5 writes a ``CROSS JOIN`` back as a comma,
  which binds more loosely than a ``LEFT JOIN`` after it (duckdb#18328), so the kept text of such a
  view no longer binds and the console would copy the view's rows, computing it whole.

For those the console takes the statement from the installed SQL files: a macro by its name, a view
only when its kept text is exactly what DuckDB writes back for the installed statement
(:func:`installed_view`), so a view an older bellica or a user wrote differently keeps its own text.
The files are read once per process and folder.
"""

from __future__ import annotations

import functools
import re
from importlib.util import find_spec
from pathlib import Path
from typing import Iterable

from bellica.geo.spatialdb import offline_connect

__all__ = ["installed_macros", "installed_view", "ruleset_folder"]

#: The folders whose ``*.sql`` files every campaign may have run: the engine (every in-tree
#: ruleset), the schema and the ETL.  An editable install maps them outside ``bellica/``.
CORE_PACKAGES = ("bellica.engine", "bellica.schema", "bellica.etl")

_CREATE = re.compile(r"(?is)^(?:\s*--[^\n]*\n)*\s*create\s+(?:or\s+replace\s+)?(macro|view)\s+\"?(\w+)\"?\s*")
_READ: dict[tuple[Path, str], dict[str, str]] = {}
_MERGED: dict[tuple[str, tuple[Path, ...]], dict[str, str]] = {}


def ruleset_folder(ruleset) -> Path:
    """The folder of the package defining ``ruleset`` (a third-party ruleset's SQL lives there)."""
    import inspect

    return Path(inspect.getfile(type(ruleset))).parent


def installed_macros(extra: Iterable[Path] = ()) -> dict[str, str]:
    """Every installed ``CREATE MACRO``, by the macro's name in lower case."""
    return _statements("macro", extra)


def installed_view(con, name: str, kept: str, extra: Iterable[Path] = ()) -> str | None:
    """``CREATE VIEW "name" AS ...`` from the installed statement of view ``name``, when the text
    DuckDB kept for the file's view (``kept``) is exactly what DuckDB writes back for it; else None.
    ``con``: any connection, used as DuckDB's parser."""
    import duckdb

    source = _statements("view", extra).get(name.lower())
    head = _CREATE.match(source or "")
    if head is None or not re.match(r"(?i)as\b", source[head.end():]):
        return None  # none installed, or a column list (``CREATE VIEW v (a, b) AS``): not compared
    select = source[head.end() + 2:].strip().rstrip(";").strip()
    try:
        written = con.execute("SELECT json_deserialize_sql(json_serialize_sql(?))", [select]).fetchone()[0]
    except duckdb.Error:
        return None  # not one SELECT the parser serialises
    if not kept.strip().rstrip(";").endswith(f" AS {written}"):
        return None
    return f'CREATE VIEW "{name}" AS {select}'


@functools.cache
def _core_folders() -> tuple[Path, ...]:
    return tuple(Path(p) for name in CORE_PACKAGES for p in (find_spec(name).submodule_search_locations or []))


def _statements(kind: str, extra: Iterable[Path]) -> dict[str, str]:
    """``kind`` ("macro" or "view") statements of the core folders, and of ``extra`` folders not
    inside them: name in lower case -> statement.  The first folder naming one keeps it.  Merged
    once per process and set of folders (every console asks for the macros)."""
    key = (kind, tuple(extra))
    if key not in _MERGED:
        core = _core_folders()
        folders = list(core) + [p for p in key[1] if not any(p.is_relative_to(c) for c in core)]
        found: dict[str, str] = {}
        for folder in folders:
            for name, statement in _read(folder, kind).items():
                found.setdefault(name, statement)
        _MERGED[key] = found
    return _MERGED[key]


def _read(folder: Path, kind: str) -> dict[str, str]:
    """Every ``CREATE <kind>`` of the ``*.sql`` files below ``folder``, read once per process (the
    views only when a view is looked for: rarely, and the first console of a process is not slowed)."""
    import duckdb

    if (folder, kind) not in _READ:
        statements: dict[str, str] = {}
        parser = offline_connect(None)
        try:
            for sql_file in sorted(folder.rglob("*.sql")):
                text = sql_file.read_text(encoding="utf-8", errors="replace")
                if not re.search(rf"(?i)\b{kind}\b", text):
                    continue
                try:
                    queries = [st.query for st in parser.extract_statements(text)]
                except duckdb.Error:
                    continue  # not SQL this DuckDB parses (a template, another dialect): offers nothing
                for query in queries:
                    m = _CREATE.match(query)
                    if m and m.group(1).lower() == kind:
                        statements.setdefault(m.group(2).lower(), query)
        finally:
            parser.close()
        _READ[folder, kind] = statements
    return _READ[folder, kind]
