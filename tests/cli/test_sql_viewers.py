"""The console holds only what its viewer may read (issue 20 part 2, issue 23 part 1).

Before this, the console's seal was a list of names, and names can be computed: 23 of 158 escapes
read sealed orders through `bellica sql` and the umpire's web console alike.  Now a viewer's
console is a database made for that viewer (engine/core/console.py): the secret is not in it, so
every escape below finds nothing, whether it is refused, fails or runs.
"""

from __future__ import annotations

import shutil

import pytest

from tests.cli.test_round_cli import campaign, bellica  # noqa: F401  (campaign is a fixture)

#: Roma's sealed orders for army 9: a string no other output of the campaign holds.
SECRET_MOVES = "0 0 0 0 0 0 0"

ESCAPES = [
    "SELECT * FROM query_table(reverse('sredro'))",
    "SELECT * FROM query('SELECT * FROM ' || 'ord' || 'ers')",
    "SELECT * FROM query_table(chr(111) || 'rders')",
    "SELECT * FROM query_table(CAST(from_base64('b3JkZXJz') AS VARCHAR))",
    "SELECT * FROM query_table(printf('%s', 'orders'))",
    "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT * FROM orders'))",
    "PIVOT orders ON army USING first(moves)",
    "CREATE TEMP VIEW v AS SELECT * FROM orders; SELECT * FROM v",
    "CREATE TEMP TABLE t AS SELECT * FROM query_table(reverse('sredro')); SELECT * FROM t",
    "CREATE TEMP MACRO m(x) AS TABLE SELECT * FROM query_table(x); SELECT * FROM m('orders')",
    "PRAGMA storage_info('orders')",
    "SELECT * FROM pragma_storage_info('orders')",
    "SELECT CAST((SELECT string_agg(moves, '|') FROM query_table(reverse('sredro'))) AS INTEGER)",
    "SELECT * FROM events",
    "SELECT data, text FROM events WHERE kind = 'put_orders'",
    "SELECT * FROM duckdb_tables()",
    "SELECT sql FROM duckdb_views()",
    "SELECT * FROM duckdb_databases()",
    "SELECT * FROM src.main.orders",
    "ATTACH 'c.duckdb' AS again (READ_ONLY); SELECT * FROM again.orders",
    "SELECT * FROM read_text('c.duckdb')",
    "SELECT * FROM orders",
]


@pytest.fixture
def sealed(campaign, capsys, built_once):  # noqa: F811
    """Round 1's orders phase, Roma's orders in (sealed: Carthago has not given its own)."""
    def build(path):
        shutil.copyfile(campaign, path)
        for step in (["round", "start", path, "--seed", "5"], ["round", "publish", path],
                     ["round", "orders", path, "--faction", "roma", f"9={SECRET_MOVES}", "10="]):
            code, _, err = bellica(capsys, *step)
            assert code == 0, err
    return built_once("vv-sealed-orders", build, campaign)


@pytest.mark.parametrize("query", ESCAPES)
@pytest.mark.parametrize("viewer", [None, "carthago"])
def test_no_escape_reaches_a_sealed_order(sealed, capsys, query, viewer):
    args = ["sql", sealed, query] + (["--faction", viewer] if viewer else [])
    code, out, err = bellica(capsys, *args)
    assert code in (0, 1), err
    assert SECRET_MOVES not in out + err and "0|0" not in out + err
    assert code == 0 or len(err.strip().splitlines()) == 1, err


def test_a_faction_reads_its_own_orders_and_the_umpire_none(sealed, capsys):
    code, out, err = bellica(capsys, "sql", sealed, "SELECT army, moves FROM orders WHERE moves IS NOT NULL", "--faction", "Roma")
    assert code == 0 and SECRET_MOVES in out, err
    code, out, err = bellica(capsys, "sql", sealed, "SELECT count(*) FROM orders")
    assert code == 1 and "reading orders is refused: it holds round 1's sealed orders" in err and "reveal" in err


def test_a_faction_reads_other_strengths_as_null(sealed, capsys):
    code, out, err = bellica(capsys, "sql", sealed, "SELECT id, strength FROM armies ORDER BY id", "--faction", "carthago",
                             "--json")
    assert code == 0, err
    assert '{"id":1,"strength":1600}' in out and '{"id":9,"strength":null}' in out and '{"id":10,"strength":null}' in out
    code, out, err = bellica(capsys, "sql", sealed, "SELECT count(*) AS n FROM armies WHERE strength IS NULL", "--json")
    assert code == 0 and '"n":0' in out, err  # the umpire reads every strength


def test_an_unknown_faction_is_a_usage_error(sealed, capsys):
    code, _, err = bellica(capsys, "sql", sealed, "SELECT 1", "--faction", "atlantis")
    assert code == 2 and "'atlantis' is not a faction of this campaign" in err


def test_a_query_without_end_is_stopped(sealed):
    from bellica.engine.core.console import open_console, run_checked
    from bellica.geo.errors import InputError

    con, sealed_tables = open_console(sealed, None)
    try:
        with pytest.raises(InputError, match="ran past the console's 0.5 s limit and was stopped"):
            run_checked(con, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
                        "QUERY", sealed_tables, limit_s=0.5)
        assert run_checked(con, "SELECT 42", "QUERY", sealed_tables)[0].rows == [(42,)]  # the connection lives on
    finally:
        con.close()
