"""The umpire's read-only SQL console: how ``bellica sql`` and the app's console split, check and
run what the umpire typed.  One implementation for both: the command prints the results, the app
draws them.

Why in the engine: the console's seal (no one reads a round's orders before the reveal) is the
round's (:func:`~bellica.engine.vae_victis.rounds.reveal.console_seal`), and the CLI and the app
both import the engine, never each other.

Splitting: DuckDB's own tokenizer cuts the text at every ``;`` that is a token (never one inside a
string, a quoted identifier or a comment), and DuckDB's parser (``extract_statements``) reads each
piece.  The piece's typed text is what runs and what a refusal names: the parser's copy of a
statement is not always the typed text (a PRAGMA comes back as the SELECT it stands for, a PIVOT as
two statements whose texts are cut at the wrong places).

Refused before anything runs: a statement of a kind outside :data:`ALLOWED`, a PRAGMA, and before
the reveal one reading the sealed tables.  Refused by DuckDB as the statement runs: any function
opening a file (the connection's own lock, :func:`bellica.geo.spatialdb.connect_console`).  Every
result is kept until the last statement has run, so a refusal or an error anywhere in the list
gives one error and no result; what the earlier statements made (temporary tables) vanishes with
the connection.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

__all__ = ["ALLOWED", "REFUSED", "Result", "Statement", "operation", "file_operation", "split_statements",
           "run_checked"]

#: Statement kinds the console runs.  The writes among them (CREATE, INSERT, ...) reach only
#: temporary objects: DuckDB refuses them on the campaign, which is open read-only.  Everything
#: else (COPY, EXPORT, IMPORT, ATTACH, DETACH, INSTALL, LOAD, SET, RESET, PRAGMA, CALL, PREPARE, ...)
#: either leaves the campaign or changes the connection, and is refused before it runs.
ALLOWED = frozenset({"SELECT", "EXPLAIN", "CREATE", "INSERT", "UPDATE", "DELETE", "DROP", "ALTER", "MERGE_INTO"})

#: Refused by their first word: DuckDB's parser hands back ``PRAGMA version``, ``database_list``,
#: ``show_tables`` ... as the SELECT each stands for, so the statement kind alone lets them through.
REFUSED_WORDS = frozenset({"PRAGMA", "SET", "RESET", "CALL"})

REFUSED = "bellica sql is read-only and reads only the campaign"

_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(\s*'([^']*)'")


@dataclass(frozen=True)
class Statement:
    """One statement as typed (its comments included) and how DuckDB's parser reads it."""

    text: str
    kinds: tuple[str, ...]  # DuckDB's statement types: a PIVOT is a CREATE (its enum) and a SELECT
    where: str  # how a message names it: "QUERY", or "statement 2 of QUERY"


@dataclass(frozen=True)
class Result:
    """One statement's result: its columns, its rows (at most ``max_rows``) and whether more were cut."""

    columns: list[str]
    rows: list[tuple]
    cut: bool = False


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


def _pieces(text: str) -> list[str]:
    """``text`` cut at each ``;`` DuckDB's tokenizer reads as a token; pieces without a token
    (blank, only comments) are dropped.  The tokenizer's offsets count UTF-8 bytes."""
    import duckdb

    raw = text.encode("utf-8")
    try:
        tokens = duckdb.tokenize(text)
    except duckdb.Error:
        tokens = []
    if not tokens:
        # A text the tokenizer cannot read (an unterminated string) gives no token at all: the
        # parser reads it whole and names the problem (or finds only comments: no statement).
        return [text] if text.strip() else []
    cuts = [off for off, kind in tokens if kind == duckdb.token_type.operator and raw[off:off + 1] == b";"]
    starts = sorted({off for off, _ in tokens} - set(cuts))
    bounds = zip([0] + [c + 1 for c in cuts], cuts + [len(raw)])
    # A piece holding no token (blank, only a comment, what follows a NUL byte) is no statement.
    return [raw[a:b].decode("utf-8").strip() for a, b in bounds
            if bisect.bisect_left(starts, a) < bisect.bisect_left(starts, b)]


def split_statements(con, text: str, source: str) -> list[Statement]:
    """The statements of ``text`` as DuckDB reads them (module doc); an :class:`InputError` naming
    the statement DuckDB cannot parse, or saying there is none."""
    import duckdb

    from bellica.geo.errors import InputError

    pieces = _pieces(text or "")
    out = []
    for i, piece in enumerate(pieces):
        where = f"statement {i + 1} of {source}" if len(pieces) > 1 else source
        try:
            parsed = con.extract_statements(piece)
        except duckdb.PermissionException:  # IMPORT DATABASE reads its folder's files as it is parsed
            raise InputError(f"{where}: {file_operation(piece)} is refused: {REFUSED}") from None
        except duckdb.Error as e:
            raise InputError(f"{where} failed: {str(e).strip().splitlines()[0]}") from None
        except IndexError:  # DuckDB's own slicing of an expanded statement's text (seen with PIVOT)
            raise InputError(f"{where} cannot be read by DuckDB's parser: write that statement another way") from None
        if parsed:
            out.append(Statement(piece, tuple(p.type.name for p in parsed), where))
    if not out:
        raise InputError(f"{source} holds no SQL statement: give a SELECT")
    return out


def _check_kind(st: Statement) -> None:
    from bellica.geo.errors import InputError

    op = operation(st.text)
    if op.split()[0] in REFUSED_WORDS or any(kind not in ALLOWED for kind in st.kinds):
        raise InputError(f"{st.where}: {op} is refused: {REFUSED}; query it with SELECT")


def _words_sealed(con, text: str) -> set[str]:
    """The sealed tables a statement may read, by the words of its text: for a statement DuckDB
    cannot name the tables of (a PIVOT, which the parser makes two statements).  A sealed table's
    name, or a view reading one, anywhere in the text (a string or a comment too) counts."""
    from bellica.engine.vae_victis.rounds.reveal import SEALED_TABLES, sealed_references

    lower = text.lower()
    found = {name for name in SEALED_TABLES if re.search(rf"(?<!\w){name}(?!\w)", lower)}
    views = [v for (v,) in con.execute("SELECT lower(view_name) FROM duckdb_views() WHERE NOT internal").fetchall()]
    for view in views:
        quoted = view.replace('"', '""')
        if re.search(rf"(?<!\w){re.escape(view)}(?!\w)", lower) and sealed_references(con, f'SELECT * FROM "{quoted}"'):
            found.add(view)
    return found


def _check_seal(con, st: Statement, seal: str | None, *, running: bool) -> None:
    """Refuse ``st`` if it reads the sealed tables while ``seal`` says why they are sealed.

    Checked before anything runs and again as the statement runs: a temporary view is checked where
    it is used (views are expanded), and it exists only once the earlier statement made it; a CREATE
    TABLE AS or a macro is checked where it is created."""
    import duckdb

    from bellica.engine.vae_victis.rounds.reveal import sealed_references
    from bellica.geo.errors import InputError

    if seal is None:
        return
    try:
        touched = _words_sealed(con, st.text) if len(st.kinds) > 1 else sealed_references(con, st.text)
    except (duckdb.Error, InputError):
        if running and st.kinds == ("SELECT",):
            raise
        # Before the run: decided when it runs (it may read what an earlier statement makes).
        # A write the parser cannot bind (UPDATE of a view...) only fails on the read-only campaign.
        touched = set()
    if touched:
        raise InputError(f"{st.where}: reading {', '.join(sorted(touched))} is refused: {seal}")


def _run_one(con, st: Statement, seal: str | None, max_rows: int | None) -> Result | None:
    """Run one checked statement; its result (None: it has none), or an :class:`InputError`."""
    import duckdb

    from bellica.geo.errors import InputError

    try:
        _check_seal(con, st, seal, running=True)
        result = con.execute(st.text)
        if result.description is None:
            return None
        columns = [d[0] for d in result.description]
        if max_rows is None:
            return Result(columns, result.fetchall())
        rows = result.fetchmany(max_rows + 1)
        return Result(columns, rows[:max_rows], len(rows) > max_rows)
    except duckdb.InterruptException:
        raise  # Ctrl-C: the caller's "aborted", not a failed query
    except duckdb.PermissionException:
        # The connection's own lock: a file outside (or the campaign file itself) was reached for.
        raise InputError(f"{st.where}: {file_operation(st.text)} is refused: {REFUSED}") from None
    except duckdb.IOException as e:
        # Spatial's readers (ST_Read, ST_ReadSHP) report the same refusal as "could not open".
        if _CALL.search(st.text):
            raise InputError(f"{st.where}: {file_operation(st.text)} is refused: {REFUSED}") from None
        raise InputError(f"{st.where} failed: {str(e).strip().splitlines()[0]}") from None
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0]
        if "configuration has been locked" in first:
            raise InputError(f"{st.where}: {operation(st.text)} is refused: {REFUSED}") from None
        hint = " (the console is read-only: state changes go through `bellica round ...`)" if "read-only" in first.lower() else ""
        raise InputError(f"{st.where} failed: {first}{hint}") from None


def run_checked(con, text: str, source: str, seal: str | None, *, max_rows: int | None = None) -> list[Result]:
    """Run ``text`` (one statement or several) on the console's connection ``con`` after the
    console's checks (module doc): a :class:`Result` per statement that has one, in order, or an
    :class:`InputError` naming the first refused or failed statement (``source`` names the text:
    ``QUERY``, a file).  With ``seal`` (the round's orders not yet revealed) a statement reading the
    sealed tables, directly, through a view or inside ``query('...')``, is refused."""
    statements = split_statements(con, text, source)
    for st in statements:
        _check_kind(st)
    for st in statements:
        _check_seal(con, st, seal, running=False)
    results = [_run_one(con, st, seal, max_rows) for st in statements]
    return [r for r in results if r is not None]
