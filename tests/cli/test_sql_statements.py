"""`bellica sql` splits statements where DuckDB's parser does and prints every result (issue 19, item 2).

The console used to split by hand on ``;`` at a line end: ``SELECT 'a;`` newline ``b'`` failed
as an unterminated string, and ``SELECT 1 AS a; SELECT 2 AS b`` (one line) ran as one chunk that
printed only the last result.  Now DuckDB's tokenizer and parser split the text
(:mod:`bellica.engine.core.console`), every statement is checked before any runs, and every
result is printed: tables and CSV with a blank line between, JSON one array per statement per line.
"""

from __future__ import annotations

import json

import pytest

from bellica.engine.core.console import run_checked
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import connect_console
from tests.cli.test_round_cli import campaign, bellica  # noqa: F401  (campaign is a fixture)
from tests.cli.test_sql_console import REFUSED, snapshot, started  # noqa: F401  (started is a fixture)

TWO = "SELECT 1 AS a; SELECT 2 AS b"


def json_lines(out: str) -> list:
    return [json.loads(line) for line in out.splitlines()]


def test_a_semicolon_and_a_newline_inside_a_string_split_nothing(started, capsys):
    code, out, err = bellica(capsys, "sql", started, "SELECT 'a;\nb' AS x", "--json")
    assert code == 0, err
    assert json_lines(out) == [[{"x": "a;\nb"}]]
    code, out, err = bellica(capsys, "sql", started, "SELECT 'a;\nb' AS x")
    assert code == 0 and out.splitlines()[-1] == "(1 row)", err


def test_two_statements_on_one_line_print_both_results(started, capsys):
    code, out, err = bellica(capsys, "sql", started, TWO)
    assert code == 0, err
    assert out == "a\n-\n1\n(1 row)\n\nb\n-\n2\n(1 row)\n"
    code, out, err = bellica(capsys, "sql", started, TWO, "--csv")
    assert code == 0 and out == "a\n1\n\nb\n2\n", err
    code, out, err = bellica(capsys, "sql", started, TWO, "--json")
    assert code == 0 and json_lines(out) == [[{"a": 1}], [{"b": 2}]], err


def test_one_statement_prints_what_it_always_printed(started, capsys):
    code, out, err = bellica(capsys, "sql", started, "SELECT 1 AS a;", "--json")
    assert code == 0 and out == '[{"a":1}]\n', err
    code, out, err = bellica(capsys, "sql", started, "SELECT 1 AS a", "--csv")
    assert code == 0 and out == "a\n1\n", err


def test_semicolons_in_a_string_a_comment_and_a_quoted_name(started, tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_text("SELECT 'x;y' AS s; -- a comment; not a statement\n"
                 "SELECT 1 AS \"q;r\" /* ; */ ;\n"
                 "SELECT $$ dollar; quoted $$ AS \"é;\";\n"
                 "-- a last comment; nothing to run\n", encoding="utf-8")
    code, out, err = bellica(capsys, "sql", started, "--file", q, "--json")
    assert code == 0, err
    assert json_lines(out) == [[{"s": "x;y"}], [{"q;r": 1}], [{"é;": " dollar; quoted "}]]


def test_a_refused_statement_second_refuses_the_whole_list(started, capsys):
    before = snapshot(started.parent)
    for query, op in ((f"SELECT 1 AS a; COPY (SELECT 'x') TO '{started.parent}/leak.csv'; SELECT 2", "COPY"),
                      ("SELECT 1 AS a;\nPRAGMA version", "PRAGMA"),
                      ("SELECT 1 AS a; SET threads = 1", "SET")):
        for fmt in ((), ("--csv",), ("--json",)):
            code, out, err = bellica(capsys, "sql", started, query, *fmt)
            assert code == 1 and out == "", (query, fmt, out)
            assert err.strip() == f"error: statement 2 of QUERY: {op} is refused: {REFUSED}; query it with SELECT", err
    assert snapshot(started.parent) == before


def test_nothing_of_a_refused_list_runs(started):
    # The temporary table the first statement would make is never made: the list is refused first.
    con = connect_console(started)
    try:
        with pytest.raises(InputError, match="statement 2 of QUERY: ATTACH is refused"):
            run_checked(con, f"CREATE TEMP TABLE made AS SELECT 1 AS n; ATTACH '{started.parent}/o.duckdb'", "QUERY", None)
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'made'").fetchone() == (0,)
    finally:
        con.close()


@pytest.mark.parametrize("query", ["PRAGMA version", "pragma database_list", "PRAGMA show_tables",
                                   "/* why */ PRAGMA table_info('armies')"])
def test_pragma_is_refused_as_documented(started, capsys, query):
    code, out, err = bellica(capsys, "sql", started, query)
    assert code == 1 and out == ""
    assert err.strip() == f"error: QUERY: PRAGMA is refused: {REFUSED}; query it with SELECT"


def test_a_list_failing_part_way_prints_only_the_error(started, capsys):
    code, out, err = bellica(capsys, "sql", started, "SELECT 1 AS a; SELECT * FROM no_such_table", "--json")
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: statement 2 of QUERY failed: Catalog Error")


def test_an_unterminated_string_is_named_by_its_statement(started, capsys):
    code, out, err = bellica(capsys, "sql", started, "SELECT 1; SELECT 'open")
    assert code == 1 and out == ""
    assert err.startswith("error: statement 2 of QUERY failed: Parser Error: unterminated quoted string"), err
    code, _, err = bellica(capsys, "sql", started, " /* only a comment; */ ;\n")
    assert code == 1 and err.strip() == "error: QUERY holds no SQL statement: give a SELECT"


def test_the_seal_holds_for_a_pivot_and_a_view_made_in_the_same_list(started, capsys):
    # Before the reveal the orders are not in the umpire's console at all.  DuckDB's parser makes a
    # PIVOT two statements whose texts it cuts wrongly: the refusal still names the table.
    code, out, err = bellica(capsys, "sql", started, "PIVOT orders ON army USING count(*)")
    assert code == 1 and out == "" and "reading orders is refused: it holds round 1's sealed orders" in err, err
    code, out, err = bellica(capsys, "sql", started, "PIVOT armies ON faction USING count(*)")
    assert code == 0 and out.splitlines()[-1] == "(3 rows)", err
    # A view made by an earlier statement is refused where it reads the sealed table.
    code, out, err = bellica(capsys, "sql", started, "SELECT 1 AS a; CREATE TEMP VIEW v AS SELECT * FROM orders; FROM v")
    assert code == 1 and out == ""
    assert err.startswith("error: statement 2 of QUERY: reading orders is refused: it holds round 1's sealed orders"), err
    # events is the log as the umpire reads it: who submitted, never what.
    code, out, err = bellica(capsys, "sql", started, "CREATE TEMP VIEW v AS SELECT * FROM events; SELECT count(*) FROM v")
    assert code == 0, err