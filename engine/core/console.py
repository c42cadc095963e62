"""The read-only SQL console (``bellica sql``, the app's console): one viewer's own database, and
how the typed text is split, checked and run.  One implementation for both front ends: the command
prints the results, the app draws them.

**What the console holds.**  The console's connection is an in-memory database holding only what
its viewer may read (:func:`open_console`): every table of the campaign file copied through the
ruleset's declared secrets (:class:`~bellica.engine.core.secrets.Secret`: another faction's rows
left out, or their secret columns NULL), the event log as
:func:`~bellica.engine.core.sealed.log_view` gives it to that viewer (sealed events as their public
stand-ins, no hash that would let a short secret be guessed), every view and macro of the file
made again over those copies; then the campaign file is detached and the configuration locked.
A sealed value is not in the database, so no SQL, however computed (``query_table(reverse(...))``,
``json_execute_serialized_sql``, ``PIVOT``, a temporary macro, statistics, an error message),
reaches it.  A table the viewer may read nothing of is absent, and naming it is refused in one line
saying what it holds and when it opens.

**Splitting.**  DuckDB's own tokenizer cuts the text at every ``;`` that is a token (never one
inside a string, a quoted identifier or a comment), and DuckDB's parser (``extract_statements``)
reads each piece.  The piece's typed text is what runs and what a refusal names: the parser's copy
of a statement is not always the typed text (a PRAGMA comes back as the SELECT it stands for, a
PIVOT as two statements whose texts are cut at the wrong places).

**Refused** before anything runs: a statement of a kind outside :data:`ALLOWED` and a PRAGMA, SET,
RESET or CALL.  Refused by DuckDB as the statement runs: any function opening a file (the
connection's own lock).  **Bounded**: each statement may run :data:`TIME_LIMIT_S` seconds (then it
is interrupted) and use :data:`MEMORY_LIMIT` of memory.  Every result is kept until the last
statement has run, so a refusal or an error anywhere in the list gives one error and no result.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Mapping

from bellica.engine.core.secrets import Secret
from bellica.engine.core.sql_sources import installed_macros, installed_view, ruleset_folder
from bellica.geo.spatialdb import offline_connect

__all__ = ["ALLOWED", "MEMORY_LIMIT", "REFUSED", "TIME_LIMIT_S", "Result", "Statement", "operation", "file_operation",
           "open_console", "run_checked", "run_console", "split_statements"]

#: How long one statement may run before it is interrupted (a recursive CTE without end...).
TIME_LIMIT_S = 30.0
#: How much memory the console's database may use (its copies and a query's work).
MEMORY_LIMIT = "2GB"

#: Statement kinds the console runs.  The writes among them (CREATE, INSERT, ...) reach only the
#: viewer's in-memory copies, gone with the connection (the campaign file is not attached).  Everything
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

    try:
        (text or "").encode("utf-8")
    except UnicodeEncodeError as e:
        # A byte that is not UTF-8 on the command line reaches Python as a lone surrogate, which
        # neither the tokenizer's byte offsets nor DuckDB can read.
        raise InputError(f"{source} is not UTF-8 text (character {e.start + 1}): type the query in UTF-8") from None
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


_TEMP_CREATE = re.compile(r"(?is)^\s*create\s+(or\s+replace\s+)?(temp|temporary)\b")
_DROP_OR_ALTER = re.compile(r"(?is)^\s*(?:drop|alter)\s+\w+\s+(?:if\s+exists\s+)?([\w.\"]+)")
READ_ONLY = ("the console is read-only: the campaign changes through bellica's commands; "
             "a TEMP table, view or macro of your own may be made and written")


#: The statements :func:`_check_write` checks against the campaign's names (:func:`_campaign_names`).
_WRITES = ("DROP", "ALTER", "INSERT", "UPDATE", "DELETE", "MERGE")


def _campaign_names(con) -> set[str]:
    """The tables, views and macros of the viewer's database (not the user's TEMP ones)."""
    rows = con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'memory' "
                       "UNION SELECT view_name FROM duckdb_views() WHERE database_name = 'memory' AND NOT internal "
                       "UNION SELECT function_name FROM duckdb_functions() WHERE database_name = 'memory' "
                       "AND function_type IN ('macro', 'table_macro')").fetchall()
    return {r[0].lower() for r in rows}


def _check_write(con, st: Statement, campaign: set[str]) -> None:
    """Refuse a statement that would change the campaign's tables in the viewer's copy (it would
    change nothing of the file, and a later query would read the change as the campaign's)."""
    from bellica.geo.errors import InputError

    op = operation(st.text)
    first = op.split()[0]
    if first == "CREATE" and not _TEMP_CREATE.match(st.text) and "SELECT" not in st.kinds[-1:]:
        raise InputError(f"{st.where}: {op} is refused: {READ_ONLY}")
    if first in ("DROP", "ALTER"):
        m = _DROP_OR_ALTER.match(st.text)
        target = m.group(1).split(".")[-1].strip('"').lower() if m else ""
        if not target or target in campaign:
            raise InputError(f"{st.where}: {op} is refused: {READ_ONLY}")
    if first in ("INSERT", "UPDATE", "DELETE", "MERGE"):
        try:
            names = {n.split(".")[-1].strip('"').lower() for n in con.get_table_names(st.text)}
        except Exception:  # noqa: BLE001 - unreadable: it reaches nothing it may write
            names = set(campaign)
        if names & campaign:
            raise InputError(f"{st.where}: {op} is refused: {READ_ONLY}")


def _check_sealed(con, st: Statement, sealed: Mapping[str, str]) -> None:
    """Refuse ``st`` in one line if it names a table this viewer may read nothing of (it is not in
    the viewer's database, so the refusal says why rather than "does not exist")."""
    if not sealed:
        return
    names = _names_read(con, st.text)
    if len(st.kinds) > 1:  # a PIVOT: the parser's two statements name nothing, its words do
        names |= {t for t in sealed if re.search(rf"(?<![\w.]){re.escape(t)}(?!\w)", st.text, re.I)}
    _refuse_sealed(st, names, sealed)


def _names_read(con, text: str, seen: frozenset = frozenset()) -> set[str]:
    """The tables and views ``text`` reads (DuckDB's parser names them, those inside ``query('...')``
    and ``query_table('...')`` included), through the bodies of the TEMP views it reads, and for a
    CREATE ... AS, its body's."""
    try:
        names = {n.split(".")[-1].strip('"').lower() for n in con.get_table_names(_CREATE_HEAD.sub("", text, count=1))}
    except Exception:  # noqa: BLE001 - a statement the parser cannot read: DuckDB names it as it runs
        return set()
    temp = dict(con.execute("SELECT lower(view_name), sql FROM duckdb_views() WHERE temporary").fetchall())
    for name in sorted((names & set(temp)) - seen):
        names |= _names_read(con, temp[name], seen | {name})
    return names


def _refuse_sealed(st: Statement, names, sealed: Mapping[str, str]) -> None:
    from bellica.geo.errors import InputError

    for name in sorted(names):
        if name in sealed:
            raise InputError(f"{st.where}: reading {name} is refused: {sealed[name]}")


_MISSING = re.compile(r"(?:Table|View|Table Function|Macro Function) with name \"?([^\s\"]+)\"? does not exist", re.I)


def _run_one(con, st: Statement, sealed: Mapping[str, str], max_rows: int | None, limit_s: float) -> Result | None:
    """Run one checked statement (interrupted past ``limit_s``); its result (None: it has none), or
    an :class:`InputError`."""
    import threading

    import duckdb

    from bellica.geo.errors import InputError

    timer = threading.Timer(limit_s, con.interrupt)
    timer.start()
    try:
        result = con.execute(st.text)
        if result.description is None:
            return None
        columns = [d[0] for d in result.description]
        rows = result.fetchall() if max_rows is None else result.fetchmany(max_rows + 1)
        cut = max_rows is not None and len(rows) > max_rows
        return Result(columns, rows[:max_rows] if cut else rows, cut)
    except duckdb.InterruptException:
        if timer.finished.is_set() and not timer.is_alive():
            raise InputError(f"{st.where} ran past the console's {limit_s:g} s limit and was stopped: "
                             "narrow it (a WHERE, a LIMIT) or ask it in parts") from None
        raise  # Ctrl-C: the caller's "aborted", not a failed query
    except duckdb.PermissionException:
        # The connection's own lock: a file outside was reached for.
        raise InputError(f"{st.where}: {file_operation(st.text)} is refused: {REFUSED}") from None
    except duckdb.IOException as e:
        # Spatial's readers (ST_Read, ST_ReadSHP) report the same refusal as "could not open".
        if _CALL.search(st.text):
            raise InputError(f"{st.where}: {file_operation(st.text)} is refused: {REFUSED}") from None
        raise InputError(f"{st.where} failed: {str(e).strip().splitlines()[0]}") from None
    except duckdb.OutOfMemoryException:
        raise InputError(f"{st.where} needs more than the console's {MEMORY_LIMIT} of memory: narrow it") from None
    except duckdb.Error as e:
        first = str(e).strip().splitlines()[0]
        missing = _MISSING.search(first)
        if missing:
            _refuse_sealed(st, {missing.group(1).lower()}, sealed)
        if "configuration has been locked" in first:
            raise InputError(f"{st.where}: {operation(st.text)} is refused: {REFUSED}") from None
        raise InputError(f"{st.where} failed: {first}") from None
    finally:
        timer.cancel()


def run_checked(con, text: str, source: str, sealed: Mapping[str, str] | None = None, *, max_rows: int | None = None,
                limit_s: float = TIME_LIMIT_S) -> list[Result]:
    """Run ``text`` (one statement or several) on the console's connection ``con`` after the
    console's checks (module doc): a :class:`Result` per statement that has one, in order, or an
    :class:`InputError` naming the first refused or failed statement (``source`` names the text:
    ``QUERY``, a file).  ``sealed``: the tables left out of the viewer's database, with why."""
    sealed = sealed or {}
    statements = split_statements(con, text, source)
    for st in statements:
        _check_kind(st)
    for st in statements:
        _check_sealed(con, st, sealed)
    # Only a statement that may write reads the names (duckdb_functions() lists every function of
    # spatial: 0.02-0.05 s of CPU a call, more than most SELECTs take).
    campaign = _campaign_names(con) if any(operation(st.text).split()[0] in _WRITES for st in statements) else set()
    results = []
    for st in statements:
        _check_write(con, st, campaign)  # here: a TEMP table an earlier statement made may be written
        results.append(_run_one(con, st, sealed, max_rows, limit_s))
    return [r for r in results if r is not None]


def run_console(campaign, text: str, source: str, *, viewer: str | None = None, max_rows: int | None = None,
                limit_s: float = TIME_LIMIT_S) -> list[Result]:
    """Open ``viewer``'s console on the campaign file (:func:`open_console`) for ``text``, run it
    there and close it: every statement's result, or one :class:`InputError`.

    The console is made for the text: only the tables and views it reads are copied, when that can
    be told for sure (:func:`_wanted`).  Should a statement still name something left out (a name
    DuckDB's parser did not report), the text runs again on the whole console, so the answer is
    always the whole console's."""
    from bellica.geo.errors import InputError

    for whole in (False, True):
        con, sealed = open_console(campaign, viewer, text=None if whole else text)
        try:
            return run_checked(con, text, source, sealed, max_rows=max_rows, limit_s=limit_s)
        except InputError as e:
            if whole or not sealed.partial or not _MISSING.search(str(e)):
                raise
        finally:
            con.close()
    raise AssertionError("unreachable")  # the whole console's run returns or raises


# --- the viewer's database ------------------------------------------------------------------------


#: Every ruleset's secret: the seed, its ``campaign`` row (the rest of the position is public); the
#: log's seed events are sealed for a faction as :func:`~bellica.engine.core.sealed.log_view` seals them.
SEED = Secret("campaign", "the campaign's seed, from which every die and lottery number not yet drawn follows",
              "never (the umpire's)", public="key <> 'seed'")


def open_console(campaign, viewer: str | None, *, text: str | None = None) -> tuple:
    """``(connection, sealed)``: an in-memory database holding what ``viewer`` (a faction as the
    campaign spells it; None: the umpire) may read of the campaign file now, locked (module doc),
    and the tables left out of it, each with the one line that refuses it.  ``text``: the statements
    the console is made for; given, only what they read is copied when that can be told for sure
    (:func:`_wanted`; ``sealed.partial`` says whether it was), else everything."""
    from pathlib import Path

    from bellica.engine.core.campaign import Campaign
    from bellica.geo.errors import BellicaError

    path = Path(campaign)
    secrets, log, roots = (), None, ()
    try:
        with Campaign.open(path, read_only=True) as c:
            roots = (ruleset_folder(c.ruleset),)
            if c.has_state():
                secrets, log = (SEED, *c.ruleset.secrets(c)), _log_rows(c, viewer)
    except BellicaError:
        # Asked only now (a connection of its own): a map holds no state, so no secret, and is read
        # whole; anything else that does not open as a campaign is refused in the campaign's words.
        if not _is_map(path):
            raise
    con = _memory_connection()
    try:
        sealed = _copy_readable(con, path, viewer, secrets, log, text, roots)
        _lock(con)
    except BaseException:
        con.close()
        raise
    return con, sealed


def _is_map(path) -> bool:
    """Whether the file is a map (``bellica map build``'s tables, no scenario): anything else is
    opened as a campaign, which names what is wrong with a file that is neither."""
    import duckdb

    try:
        con = offline_connect(path, read_only=True)
    except duckdb.Error:
        return False
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    finally:
        con.close()
    return "hexes" in tables and not tables & {"scenario_meta", "factions", "campaign"}


def _memory_connection():
    from bellica.geo.spatialdb import spatial_connect

    return spatial_connect(None, config={  # spatial loaded: the rules views use spatial functions
        "allow_community_extensions": False,  # no download of an extension a query names (OFFLINE)
        "allow_persistent_secrets": False,
    })


def _lock(con) -> None:
    """Close every way out of the database and lock the configuration, so no SET reopens one:
    no file or URL (``enable_external_access``), no local file at all, nothing spilled to disk."""
    con.execute("SET temp_directory = ''")
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    con.execute("SET enable_external_access = false")
    con.execute("SET disabled_filesystems = 'LocalFileSystem'")
    con.execute("SET lock_configuration = true")


def _log_rows(c, viewer: str | None) -> list[tuple]:
    import json

    from bellica.engine.core.sealed import log_view

    c.viewer = viewer
    return [(ln.event.seq, ln.event.round, ln.event.phase, ln.event.kind, json.dumps(ln.data, sort_keys=True, default=str),
             ln.text) for ln in log_view(c, viewer=viewer)]


class Sealed(dict):
    """The tables and views left out of a viewer's console, each with the line refusing it; and
    whether the console holds only what one text reads (``partial``: :func:`_wanted`)."""

    partial: bool = False


def _copy_readable(con, path, viewer: str | None, secrets, log: list[tuple] | None,
                   text: str | None = None, roots: tuple = ()) -> Sealed:
    """Copy into ``con``'s own database what ``viewer`` may read of the file at ``path`` (of it, what
    ``text`` reads, when :func:`_wanted` can tell); the tables left out, with their refusals.
    ``roots``: the folders of the ruleset's own SQL files (sql_sources.py)."""
    from bellica.geo.spatialdb import literal

    by_table = {s.table: s for s in secrets}
    sealed = Sealed()
    con.execute(f"ATTACH {literal(str(path))} AS src (READ_ONLY)")
    try:
        con.execute("USE src")  # the secrets' conditions name the campaign's tables
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = 'src' AND schema_name = 'main' ORDER BY 1").fetchall()]
        views, macros = _definitions(con, roots)
        wanted = _wanted(con, text, tables, views, macros) if text is not None else None
        sealed.partial = wanted is not None
        restricted = set()
        for table in tables:
            if table == "events" and log is not None:
                restricted.add(table)
                continue
            select = _readable(table, by_table.get(table), viewer)
            if table in by_table and select != f'SELECT * FROM "{table}"':
                restricted.add(table)
            if select is None:
                # An empty shell keeps the table's columns in the catalogue; naming it is refused.
                sealed[table] = by_table[table].refusal()
                select = f'SELECT * FROM "{table}" LIMIT 0'
            if wanted is None or table.lower() in wanted:
                con.execute(f'CREATE TABLE memory.main."{table}" AS {select}')
        reading = _reading(con, views, restricted)
        con.execute("USE memory")  # from here an unqualified name is the viewer's copy
        if log is not None and (wanted is None or "events" in wanted):
            _write_log(con, log)
        made = views if wanted is None else [(n, q) for n, q in views if n.lower() in wanted]
        sealed.update(_make_again(con, made + macros, sealed, reading, roots))
    finally:
        con.execute("USE memory")
        con.execute("DETACH src")
    return sealed


def _wanted(con, text: str, tables: list[str], views: list[tuple[str, str]],
            macros: list[tuple[str, str]]) -> set[str] | None:
    """The file's tables and views (lower case) that ``text`` reads, through the views it reads, when
    that can be told for sure; None when it cannot, and the whole console is made.  It can when every
    statement is a query DuckDB's parser serialises (not SHOW, DESCRIBE, PRAGMA ...), calling no table
    function (``duckdb_tables()``, ``query(...)``, a table macro: they read what the parser does not
    name) and none of the file's macros, and naming only the file's own tables and views (a CTE's
    name aside): a catalogue query, or a typo, gets the whole console and answers as it always did."""
    import json

    try:
        found = json.loads(con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()[0])
    except Exception:  # noqa: BLE001 - anything unreadable: the whole console says what is wrong
        return None
    if found.get("error") or not found.get("statements"):
        return None
    refs, ctes, calls = [], set(), set()
    _walk_query(found["statements"], refs, ctes, calls)
    table_function = any(kind == "TABLE_FUNCTION" for kind, *_ in refs)
    own = {t.lower() for t in tables} | {n.lower() for n, _ in views}
    names = set()
    for kind, catalog, schema, name in refs:
        if kind == "BASE_TABLE" and name.lower() not in ctes:
            if catalog or schema not in ("", "main"):
                return None
            names.add(name.lower())
    if table_function or not names or not names <= own or calls & {n.lower() for n, _ in macros}:
        return None
    sql = {n.lower(): q for n, q in views}
    wanted = _through_views(con, names, sql)
    if wanted is not None and wanted & set(sql):
        # The views may call the file's macros (every one is made), which read tables of their own:
        # every table a macro's text names comes too.
        wanted |= {t.lower() for t in tables for _name, text in macros
                   if re.search(rf"(?<![\w.]){re.escape(t)}(?!\w)", text, re.I)}
    return wanted


def _walk_query(node, refs: list, ctes: set, calls: set) -> None:
    """Every table reference (kind, catalogue, schema, name), CTE name and function name of a
    serialised statement (DuckDB's ``json_serialize_sql``)."""
    if isinstance(node, dict):
        kind = node.get("type")
        if kind in ("BASE_TABLE", "TABLE_FUNCTION"):
            refs.append((kind, node.get("catalog_name") or "", node.get("schema_name") or "",
                         node.get("table_name") or ""))
        if isinstance(node.get("function_name"), str):
            calls.add(node["function_name"].lower())
        for entry in (node.get("cte_map") or {}).get("map", ()):
            ctes.add(str(entry.get("key", "")).lower())
        for value in node.values():
            _walk_query(value, refs, ctes, calls)
    elif isinstance(node, list):
        for value in node:
            _walk_query(value, refs, ctes, calls)


def _through_views(con, names: set[str], sql: Mapping[str, str]) -> set[str] | None:
    """``names`` and every table and view the views among them read, through the views those read
    (read from the views' text by DuckDB's parser, unbound: binding would name a view's tables, not
    the views it reads, which must be made too); None when a view's text cannot be read so."""
    import json

    out, todo = set(names), [n for n in names if n in sql]
    while todo:
        body = _CREATE_HEAD.sub("", sql[todo.pop()], count=1)
        try:
            found = json.loads(con.execute("SELECT json_serialize_sql(?)", [body]).fetchone()[0])
        except Exception:  # noqa: BLE001 - unreadable: it may read anything
            return None
        if found.get("error"):
            return None
        refs, ctes, _calls = [], set(), set()
        _walk_query(found.get("statements", []), refs, ctes, _calls)
        for _kind, _catalog, _schema, name in refs:
            name = name.lower()
            if name and name not in ctes and name not in out:
                out.add(name)
                if name in sql:
                    todo.append(name)
    return out


_CREATE_HEAD = re.compile(r"(?is)^\s*create\s+(or\s+replace\s+)?(temp(orary)?\s+)?(table|view)\s+.*?\s+as\s+")


def _reading(con, views: list[tuple[str, str]], restricted: set[str]) -> dict[str, set[str]]:
    """For each view of the file, the restricted tables (copied for this viewer with less than the
    file holds) it reads, through the views it reads (DuckDB's parser names them)."""
    sql = {name.lower(): text for name, text in views}
    memo: dict[str, set[str]] = {}

    def reads(name: str, seen: frozenset) -> set[str]:
        if name in memo:
            return memo[name]
        body = _CREATE_HEAD.sub("", sql[name], count=1)
        try:
            names = {n.split(".")[-1].strip('"').lower() for n in con.get_table_names(body)}
        except Exception:  # noqa: BLE001 - the parser cannot read it: every name the text holds counts
            names = {t for t in restricted | set(sql) if re.search(rf"(?<![\w.]){re.escape(t)}(?!\w)", body, re.I)}
        out = names & restricted
        for other in sorted(names & set(sql) - seen - {name}):
            out |= reads(other, seen | {name})
        memo[name] = out
        return out

    return {name: reads(name, frozenset()) for name in sql}


def _readable(table: str, secret, viewer: str | None) -> str | None:
    """The SELECT of what ``viewer`` may read of ``table`` (None: nothing): see :class:`Secret`."""
    from bellica.geo.spatialdb import literal

    quoted = f'"{table}"'
    if secret is None or (viewer is None and secret.umpire):
        return f"SELECT * FROM {quoted}"
    mine = secret.mine.replace("$viewer", literal(viewer)) if secret.mine and viewer is not None else ""
    own = " OR ".join(f"({c})" for c in (secret.public, mine) if c)
    if not secret.columns:
        return f"SELECT * FROM {quoted} WHERE {own}" if own else None
    own = own or "false"
    cols = ", ".join(f'CASE WHEN {own} THEN "{c}" END AS "{c}"' for c in secret.columns)
    where = f" WHERE ({own}) OR NOT coalesce({secret.hidden_rows}, false)" if secret.hidden_rows else ""
    return f"SELECT * REPLACE ({cols}) FROM {quoted}{where}"


def _definitions(con, roots: tuple) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The file's views and macros as ``(name, CREATE statement)``, read from the attached ``src``
    (``roots``: the folders of the ruleset's own SQL, beside bellica's: sql_sources.py)."""
    views = [(n, sql) for n, sql in con.execute(
        "SELECT view_name, sql FROM duckdb_views() WHERE database_name = 'src' AND NOT internal ORDER BY 1").fetchall()]
    overloads: dict[str, list[str]] = {}
    for name, kind, params, body in con.execute(
            "SELECT function_name, function_type, parameters, macro_definition FROM duckdb_functions() "
            "WHERE database_name = 'src' AND function_type IN ('macro', 'table_macro') ORDER BY 1").fetchall():
        table = "TABLE " if kind == "table_macro" else ""
        overloads.setdefault(name, []).append(f"({', '.join(params)}) AS {table}{body}")
    # A macro with several parameter lists is one CREATE naming them all.  DuckDB's catalogue forgets
    # a parameter's default (``in_year := NULL``): the installed SQL file says it, where it has one.
    sources = installed_macros(roots)
    macros = [(name, sources.get(name.lower()) or f'CREATE MACRO "{name}"' + ", ".join(forms))
              for name, forms in overloads.items()]
    return views, macros


def _make_again(con, definitions: list[tuple[str, str]], sealed: Mapping[str, str],
                reads: Mapping[str, set[str]], roots: tuple = ()) -> dict[str, str]:
    """Create the views and macros again over the viewer's copies, each once what it reads exists.

    DuckDB's stored text of a view does not always bind again (a ``CROSS JOIN`` written back as a
    comma: sql_sources.py): such a view is made from its installed statement when the kept text is
    that statement's, else, if it reads no restricted table, copied as the rows the file's own view
    gives (the same rows the copies would give); one that reads a restricted table and cannot be
    made is left out, refused with the reason."""
    pending, failed = _create_all(con, list(definitions))
    installed = [(name, installed_view(con, name, sql, roots)) for name, sql in pending]
    if any(sql for _name, sql in installed):
        pending, failed_again = _create_all(con, [(n, sql or kept) for (n, sql), (_n, kept) in zip(installed, pending)])
        failed.update(failed_again)
    copied = False
    for name, _sql in list(pending):
        if name.lower() in reads and not reads[name.lower()]:
            con.execute(f'CREATE TABLE memory.main."{name}" AS SELECT * FROM src.main."{name}"')
            copied = True
    if copied:
        pending, failed = _create_all(con, [(n, q) for n, q in pending if n.lower() not in reads or reads[n.lower()]])
    out = {}
    for name, sql in pending:
        why = [sealed[t] for t in sorted(reads.get(name.lower(), ())) if t in sealed]
        out[name.lower()] = why[0] if why else f"it cannot be made in the console ({_first(failed.get(name, ''))})"
    for name, tables in reads.items():  # made over an empty shell: it would answer as if nothing were there
        why = [sealed[t] for t in sorted(tables) if t in sealed]
        if why:
            out.setdefault(name, why[0])
    return out


def _create_all(con, pending: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Run the CREATE statements, again and again while one more succeeds; (those left, their errors)."""
    import duckdb

    failed: dict[str, str] = {}
    while pending:
        left = []
        for name, sql in pending:
            try:
                con.execute(sql)
            except duckdb.Error as e:
                left.append((name, sql))
                failed[name] = str(e)
        if len(left) == len(pending):
            break
        pending = left
    return pending, failed


def _first(text: str) -> str:
    return (text.strip().splitlines() or ["?"])[0]


def _write_log(con, rows: list[tuple]) -> None:
    """The viewer's log as the ``events`` table: what ``bellica log --faction`` prints, as rows."""
    from bellica.geo.spatialdb import insert_rows

    con.execute("CREATE TABLE events (seq INTEGER, round INTEGER, phase VARCHAR, kind VARCHAR, data JSON, text VARCHAR)")
    # As literals, 500 rows a statement: executemany runs one INSERT per event (a third of opening
    # a First Punic War console on a campaign of a few rounds).
    insert_rows(con, "INSERT INTO events", rows, name="console.events")
