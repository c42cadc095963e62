"""`tabula sql`: the umpire's read-only SQL on a campaign database."""

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


def split_statements(text: str) -> list[str]:
    """Statements of a .sql text, split on ``;`` at a line end (the project's run_sql_file convention)."""
    parts = [p.strip() for p in text.replace("\r\n", "\n").split(";\n")]
    parts = [p[:-1].strip() if p.endswith(";") else p for p in parts]
    return [p for p in parts if p]


@click.command(name="sql")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("query", required=False)
@click.option("--file", "sql_file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Read the SQL from a file (statements end with ';' at a line end).")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of an aligned table.")
def command(campaign: Path, query: str | None, sql_file: Path | None, as_csv: bool) -> None:
    """Run read-only SQL on a campaign database and print the result.

    The database opens read-only, so a query can never change the campaign;
    the state tables and views are described in engine/vae_victis/README.md and
    docs/architecture.md.

    Example: tabula sql campaign.duckdb "SELECT id, faction, strength FROM armies ORDER BY id"
    """
    import csv
    import io

    import duckdb

    from tabula.geo.errors import InputError, MissingInputError
    from tabula.commands.round import open_campaign

    if (query is None) == (sql_file is None):
        raise click.BadParameter("give either a QUERY argument or --file q.sql, not both or neither", param_hint="QUERY")
    if sql_file is not None:
        if not sql_file.exists():
            raise MissingInputError(f"SQL file {sql_file} does not exist: check the --file path")
        text, source = sql_file.read_text(), str(sql_file)
    else:
        text, source = query, "QUERY"
    statements = split_statements(text)
    if not statements:
        raise InputError(f"{source} holds no SQL statement: give a SELECT")
    with open_campaign(campaign, read_only=True) as c:
        for i, statement in enumerate(statements):
            try:
                result = c.con.execute(statement)
            except duckdb.Error as e:
                first = str(e).strip().splitlines()[0]
                hint = " (tabula sql is read-only: state changes go through `tabula round ...`)" if "read-only" in first.lower() else ""
                where = f"statement {i + 1} of {source}" if len(statements) > 1 else source
                raise InputError(f"{where} failed: {first}{hint}") from None
            if result.description is None:
                continue
            columns = [d[0] for d in result.description]
            rows = result.fetchall()
            if as_csv:
                buf = io.StringIO()
                writer = csv.writer(buf, lineterminator="\n")
                writer.writerow(columns)
                writer.writerows([["" if v is None else v for v in r] for r in rows])
                click.echo(buf.getvalue(), nl=False)
            else:
                click.echo(format_table(columns, rows))
