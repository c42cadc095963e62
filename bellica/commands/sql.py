"""`bellica sql`: the umpire's read-only SQL on a campaign database.

Output: an aligned table (default), CSV (``--csv``) or JSON (``--json``: the rows as one array of
objects keyed by column name, :mod:`bellica.commands.jsonout`; several statements that return rows
print one array each, one per line).  ``--csv`` and ``--json`` together are a usage error.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

MAX_WIDTH = 60  # a cell wider than this is cut, so one WKT polygon does not flood the terminal


def _cell(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value)} bytes>"  # GEOMETRY comes back as WKB: ask for ST_AsText(geom)
    text = str(value)
    return text if len(text) <= MAX_WIDTH else text[: MAX_WIDTH - 1] + "…"


def format_table(columns: list[str], rows: list[tuple]) -> str:
    """A plain aligned text table, numbers right-aligned, with a row count."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    numeric = [all(isinstance(row[i], (int, float)) and not isinstance(row[i], bool) for row in rows if row[i] is not None) and rows for i in range(len(columns))]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line(columns), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)


def split_statements(text: str) -> list[str]:
    """Statements of a .sql text, split on ``;`` at a line end (the project's run_sql_file convention)."""
    parts = [p.strip() for p in text.replace("\r\n", "\n").split(";\n")]
    parts = [p[:-1].strip() if p.endswith(";") else p for p in parts]
    return [p for p in parts if p]


#: Statement kinds the console runs.  The writes among them (CREATE, INSERT, ...) reach only
#: temporary objects: DuckDB refuses them on the campaign, which is open read-only.  Everything
#: else (COPY, EXPORT, IMPORT, ATTACH, DETACH, INSTALL, LOAD, SET, RESET, PRAGMA, CALL, PREPARE, ...)
#: either leaves the campaign or changes the connection, and is refused before it runs.
ALLOWED = {"SELECT", "EXPLAIN", "CREATE", "INSERT", "UPDATE", "DELETE", "DROP", "ALTER", "MERGE_INTO"}

REFUSED = "bellica sql is read-only and reads only the campaign"

_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*'([^']*)'")


def operation(statement: str) -> str:
    """The words a refusal names: the statement's leading keyword(s) (``COPY``, ``EXPORT DATABASE``)."""
    words = re.sub(r"--[^\n]*|/\*.*?\*/", " ", statement, flags=re.S).split()
    if not words:
        return "this statement"
    first = words[0].upper().strip("(")
    if first in ("EXPORT", "IMPORT", "FORCE", "EXPLAIN", "CREATE", "UPDATE") and len(words) > 1:
        return f"{first} {words[1].upper()}"
    return first


def file_operation(statement: str) -> str:
    """What reached for a file in a statement DuckDB refused: the first ``fn('path')`` call
    (``read_text('/etc/shadow')``), else the statement's leading keyword(s)."""
    m = _CALL.search(statement)
    return f"{m.group(1)}('{m.group(2)}')" if m else operation(statement)


def run_checked(con, statement: str, where: str, seal: str | None):
    """Run one statement on the console's connection after the console's checks, for ``bellica sql``
    and the app's console alike: the DuckDB result, or an :class:`InputError` naming the refusal.

    Each statement is parsed first so a refused kind never runs (one chunk may hold several
    statements); with ``seal`` (the round's orders not yet revealed:
    :func:`~bellica.engine.vae_victis.rounds.reveal.console_seal`) a statement reading the sealed
    tables, directly, through a view or inside ``query('...')``, is refused."""
    import duckdb

    from bellica.engine.vae_victis.rounds.reveal import sealed_references
    from bellica.geo.errors import InputError

    try:
        for parsed in con.extract_statements(statement):
            if parsed.type.name not in ALLOWED:
                op = operation(parsed.query) if parsed.query.strip() else parsed.type.name
                raise InputError(f"{where}: {op} is refused: {REFUSED}; query it with SELECT")
            if seal is not None:
                # A temporary view is checked where it is used (views are expanded), a
                # CREATE TABLE AS or a macro where it is created.
                try:
                    touched = sealed_references(con, parsed.query)
                except (duckdb.Error, InputError):
                    if parsed.type.name == "SELECT":
                        raise
                    # A write the parser cannot bind (UPDATE of a view...) only fails on the
                    # read-only campaign, reading nothing (and no temporary table exists: CREATE is refused).
                    touched = set()
                if touched:
                    raise InputError(f"{where}: reading {', '.join(sorted(touched))} is refused: {seal}")
        return con.execute(statement)
    except duckdb.PermissionException:
        # The connection's own lock: a file outside (or the campaign file itself) was reached for.
        raise InputError(f"{where}: {file_operation(statement)} is refused: {REFUSED}") from None
    except duckdb.IOException as e:
        # Spatial's readers (ST_Read, ST_ReadSHP) report the same refusal as "could not open".
        if _CALL.search(statement):
            raise InputError(f"{where}: {file_operation(statement)} is refused: {REFUSED}") from None
        raise InputError(f"{where} failed: {str(e).strip().splitlines()[0]}") from None
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0]
        if "configuration has been locked" in first:
            raise InputError(f"{where}: {operation(statement)} is refused: {REFUSED}") from None
        hint = " (the console is read-only: state changes go through `bellica round ...`)" if "read-only" in first.lower() else ""
        raise InputError(f"{where} failed: {first}{hint}") from None


@click.command(name="sql")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("query", required=False)
@click.option("--file", "sql_file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Read the SQL from a file (statements end with ';' at a line end).")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of an aligned table.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as one JSON array of objects (column: value).")
def command(campaign: Path, query: str | None, sql_file: Path | None, as_csv: bool, as_json: bool) -> None:
    """Run read-only SQL on a campaign database and print the result.

    The console reads the campaign and nothing else: it cannot change the file,
    write or read any other file (COPY, EXPORT, ATTACH, read_csv, ...), install or
    load an extension, or change a setting.  Before a round's orders are revealed
    it refuses any query reading the orders or events tables (they hold sealed
    orders; docs/sealed-orders.md), directly or through a view.  The state tables and views are
    described in engine/vae_victis/README.md and docs/architecture.md.

    Example: bellica sql campaign.duckdb "SELECT id, faction, strength FROM armies ORDER BY id" --json
    """
    import csv
    import io

    import duckdb

    from bellica.geo.errors import InputError, MissingInputError
    from bellica.geo.spatialdb import connect_console

    if as_csv and as_json:
        raise click.BadParameter("give --csv or --json, not both", param_hint="--json")
    if (query is None) == (sql_file is None):
        raise click.BadParameter("give either a QUERY argument or --file q.sql, not both or neither", param_hint="QUERY")
    if sql_file is not None:
        # Read here, in Python: the console's connection cannot open files.
        if not sql_file.exists():
            raise MissingInputError(f"SQL file {sql_file} does not exist: check the --file path")
        try:
            text = sql_file.read_bytes().decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"SQL file {sql_file} is not UTF-8 text (byte {e.start}): save it as UTF-8") from None
        except OSError as e:
            raise InputError(f"cannot read SQL file {sql_file}: {e.strerror}") from None
        source = str(sql_file)
    else:
        text, source = query, "QUERY"
    statements = split_statements(text)
    if not statements:
        raise InputError(f"{source} holds no SQL statement: give a SELECT")
    # The campaign is opened as a plain database, not a Campaign: no ruleset is needed to read it
    # (a file naming a ruleset this install does not know can still be queried).
    if not campaign.exists():
        raise MissingInputError(f"campaign database {campaign} does not exist: create it with `bellica campaign new`")
    try:
        con = connect_console(campaign)
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0]
        if "lock" in first.lower():
            raise InputError(f"{campaign} is open in another process (a step running?): wait for it to finish and retry") from None
        raise InputError(f"{campaign} cannot be opened as a campaign database: {first}") from None
    try:
        from bellica.engine.vae_victis.rounds.reveal import console_seal

        # Sealed orders: nobody, the umpire included, reads them through bellica before the reveal.
        seal = console_seal(con)
        for i, statement in enumerate(statements):
            where = f"statement {i + 1} of {source}" if len(statements) > 1 else source
            result = run_checked(con, statement, where, seal)
            if result.description is None:
                continue
            columns = [d[0] for d in result.description]
            rows = result.fetchall()
            if as_json:
                from bellica.commands.jsonout import echo_json, rows_json

                echo_json(rows_json(columns, rows))
            elif as_csv:
                buf = io.StringIO()
                writer = csv.writer(buf, lineterminator="\n")
                writer.writerow(columns)
                writer.writerows([["" if v is None else v for v in r] for r in rows])
                click.echo(buf.getvalue(), nl=False)
            else:
                click.echo(format_table(columns, rows))
    finally:
        con.close()
