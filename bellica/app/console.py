"""The umpire's read-only SQL console in the app: exactly the checks of ``bellica sql``.

Each statement is parsed first and refused unless its kind is one ``bellica sql`` runs
(:data:`bellica.commands.sql.ALLOWED`); before the round's reveal any statement reading the sealed
tables (``orders``, ``events``), directly, through a view or through ``query('...')``, is refused
(:func:`~bellica.engine.vae_victis.rounds.reveal.console_seal`, ``sealed_references``); the
connection is :func:`bellica.geo.spatialdb.connect_console`'s, which cannot change the file or
reach any other.  Each statement runs through ``bellica sql``'s own checked execution
(:func:`bellica.commands.sql.run_checked`): that command prints as it goes, this returns tables.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MAX_ROWS", "run_console"]

#: Rows shown per statement (the page is a look, not an export: use `bellica sql --csv` for more).
MAX_ROWS = 500


def run_console(campaign: Path, text: str) -> list[tuple[list[str], list[tuple], bool]]:
    """Run ``text`` (one or more statements) read-only on ``campaign``: a list of
    (columns, rows, cut) per statement that returns rows; an :class:`InputError` naming the refusal."""
    import duckdb

    from bellica.commands.sql import run_checked, split_statements
    from bellica.engine.vae_victis.rounds.reveal import console_seal
    from bellica.geo.errors import InputError
    from bellica.geo.spatialdb import connect_console

    statements = split_statements(text or "")
    if not statements:
        raise InputError("the console holds no SQL statement: give a SELECT")
    try:
        con = connect_console(campaign)
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0]
        if "lock" in first.lower():
            raise InputError(f"{campaign} is locked by another process, so the console cannot read it: "
                             "wait for that step to finish and retry") from None
        raise InputError(f"{campaign} cannot be opened as a campaign database: {first}") from None
    out = []
    try:
        seal = console_seal(con)
        for i, statement in enumerate(statements):
            where = f"statement {i + 1}" if len(statements) > 1 else "the query"
            result = run_checked(con, statement, where, seal)
            if result.description is None:
                continue
            columns = [d[0] for d in result.description]
            rows = result.fetchmany(MAX_ROWS + 1)
            out.append((columns, rows[:MAX_ROWS], len(rows) > MAX_ROWS))
    finally:
        con.close()
    return out
