"""`bellica sql`: the umpire's read-only SQL on a campaign database.

The statements are split, checked and run by :mod:`bellica.engine.core.console`, on a database
holding only what the viewer (``--faction F``, else the umpire) may read, as the app's console runs them; this module prints their results, every statement's in order: aligned
tables (default) or CSV (``--csv``) one after another with a blank line between, or JSON
(``--json``: a statement's rows as one array of objects keyed by column name,
:mod:`bellica.services.jsonout`, one array per statement, one per line, so one statement prints
what it always printed).  ``--csv`` and ``--json`` together are a usage error.
"""

from __future__ import annotations

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


@click.command(name="sql")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("query", required=False)
@click.option("--file", "sql_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Read the SQL from a file (statements separated by ';', as DuckDB reads them).")
@click.option("--csv", "as_csv", is_flag=True,
              help="Print CSV instead of an aligned table (a blank line between statements).")
@click.option("--json", "as_json", is_flag=True,
              help="Print each statement's rows as one JSON array of objects (column: value), one array per line.")
@click.option("--faction", default=None, metavar="NAME",
              help="Read the campaign as this faction (nation, side) may: others' secrets are not in its database.")
def command(campaign: Path, query: str | None, sql_file: Path | None, as_csv: bool, as_json: bool,
            faction: str | None) -> None:
    """Run read-only SQL on a campaign database and print every statement's result.

    Several statements are separated by ';' (one inside a string, a quoted name or a
    comment is no separator) and their results printed in order: tables or CSV with a
    blank line between, JSON as one array per statement, one per line (one statement
    prints one array).  A list holding a refused statement is refused whole, nothing run.

    The console's database holds only what its viewer may read: the umpire's (the
    default) or, with --faction, that faction's.  A secret of another viewer (sealed
    orders before the reveal, another nation's couriers, another side's elements) is not
    copied into it, so no SQL reaches it; a table the viewer may read nothing of is
    refused by name, saying when it opens, and `events` is the log as the viewer reads
    it (docs/sealed-orders.md).  It cannot write or read any file (COPY, EXPORT, ATTACH,
    read_csv, ...), install or load an extension, or change a setting (SET, PRAGMA,
    CALL); each statement may run 30 s and use 2 GB.  The tables and views are described
    in docs/sql.md.

    Example: bellica sql campaign.duckdb "SELECT id, faction, strength FROM armies ORDER BY id" --json
    """
    if as_csv and as_json:
        raise click.BadParameter("give --csv or --json, not both", param_hint="--json")
    if (query is None) == (sql_file is None):
        raise click.BadParameter("give either a QUERY argument or --file q.sql, not both or neither", param_hint="QUERY")
    text, source = (query, "QUERY") if sql_file is None else (read_sql_file(sql_file), str(sql_file))
    results = run_on_campaign(campaign, text, source, viewer_of(campaign, faction))
    if as_json:
        from bellica.services.jsonout import echo_json, rows_json

        for r in results:
            echo_json(rows_json(r.columns, r.rows))
    elif as_csv:
        click.echo("\n".join(csv_text(r.columns, r.rows) for r in results), nl=False)
    elif results:
        click.echo("\n\n".join(format_table(r.columns, r.rows) for r in results))


def read_sql_file(sql_file: Path) -> str:
    """The text of ``--file``, read here, in Python: the console's connection cannot open files."""
    from bellica.geo.errors import InputError, MissingInputError

    if not sql_file.exists():
        raise MissingInputError(f"SQL file {sql_file} does not exist: check the --file path")
    try:
        return sql_file.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"SQL file {sql_file} is not UTF-8 text (byte {e.start}): save it as UTF-8") from None
    except OSError as e:
        raise InputError(f"cannot read SQL file {sql_file}: {e.strerror}") from None


def viewer_of(campaign: Path, faction: str | None) -> str | None:
    """The faction ``--faction`` names, as the campaign spells it (exit 2 for one it lacks)."""
    if faction is None:
        return None
    from bellica.commands.campaigns import open_campaign, resolve_faction

    with open_campaign(campaign, read_only=True) as c:
        return resolve_faction(c, faction)


def run_on_campaign(campaign: Path, text: str, source: str, viewer: str | None = None) -> list:
    """Every statement's result, all or none, on ``viewer``'s console
    (:func:`bellica.engine.core.console.run_console`: only what that viewer may read is in it)."""
    import duckdb

    from bellica.engine.core.console import run_console
    from bellica.geo.errors import InputError, MissingInputError

    if not campaign.exists():
        raise MissingInputError(f"campaign database {campaign} does not exist: create it with `bellica campaign new`")
    try:
        return run_console(campaign, text, source, viewer=viewer)
    except duckdb.InterruptException:
        raise  # Ctrl-C: the command's "aborted"
    except duckdb.Error as e:  # opening the console (a query's own errors are InputErrors)
        first = str(e).strip().splitlines()[0]
        if "lock" in first.lower():
            raise InputError(f"{campaign} is open in another process (a step running?): wait for it to finish and retry") from None
        raise InputError(f"{campaign} cannot be opened as a campaign database: {first}") from None


def csv_text(columns: list[str], rows: list[tuple]) -> str:
    """One result as CSV: a header line, then a line per row (NULL as an empty field)."""
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([["" if v is None else v for v in r] for r in rows])
    return buf.getvalue()
