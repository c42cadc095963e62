"""The umpire's read-only SQL console in the app: exactly ``bellica sql``'s splitting and checks.

Both run the typed text through :func:`bellica.engine.core.console.run_checked` on the umpire's
console (:func:`~bellica.engine.core.console.open_console`: an in-memory database holding only what
the umpire may read, so sealed orders before the reveal are not in it at all): DuckDB's parser
splits the statements, and a list holding a refused kind (COPY, ATTACH, SET, PRAGMA, ...) is
refused whole before anything runs.
That command prints every statement's result; this returns them as tables for the page.  The app
runs it on a copy of the file, outside the campaign's lock, and interrupts it when the server stops.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Callable

__all__ = ["MAX_ROWS", "run_console"]

#: Rows shown per statement (the page is a look, not an export: use `bellica sql --csv` for more).
MAX_ROWS = 500


def run_console(campaign: Path, text: str, *, name: Path | None = None,
                running: Callable = nullcontext) -> list[tuple[list[str], list[tuple], bool]]:
    """Run ``text`` (one or more statements) read-only on ``campaign``: a list of
    (columns, rows, cut) per statement that returns rows; an :class:`InputError` naming the refusal.
    ``name``: the file the errors name (the app passes a copy of it); ``running(con)``: a context
    the query runs in, which may interrupt the connection (the server stopping: 503)."""
    import duckdb

    from bellica.app.server import HttpError
    from bellica.engine.core.console import open_console, run_checked
    from bellica.geo.errors import InputError

    name = name or campaign
    if not (text or "").strip():
        raise InputError("the query holds no SQL statement: give a SELECT")
    try:
        con, sealed = open_console(campaign, None)
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0]
        if "lock" in first.lower():
            raise InputError(f"{name} is locked by another process, so the console cannot read it: "
                             "wait for that step to finish and retry") from None
        raise InputError(f"{name} cannot be opened as a campaign database: {first}") from None
    try:
        with running(con):
            results = run_checked(con, text, "the query", sealed, max_rows=MAX_ROWS)
    except duckdb.InterruptException:
        # Not the console's time limit (that one is an InputError): the server is stopping.
        raise HttpError(503, "the server is stopping: the query was interrupted; run it again when the app is back",
                        {"Retry-After": "10"}) from None
    finally:
        con.close()
    return [(r.columns, r.rows, r.cut) for r in results]
