"""Query parameters written as SQL literals (geo/spatialdb.py): every value reads back exactly,
hostile text included, or is refused in one line; ``?`` is replaced only outside quotes and comments."""

from __future__ import annotations

import enum
import math
import random
import struct
import sys
import subprocess
from datetime import date, datetime, timedelta, timezone

import duckdb
import pytest

from bellica.geo.errors import InputError, SqlError
from bellica.geo.spatialdb import inline, insert_rows, literal, run_sql, values_rows

HOSTILE = [
    "", "'", "''", "'''", "a'b", "\\", "\\'", "'\\", "\\\\'", "\\x27", "E'\\''", "x' OR '1'='1",
    "'; DROP TABLE t; --", "-- comment", "/* open", "*/", "?", "??", "'?'", "$$", "$tag$", "$1", "$name",
    "\"", "\"\"", "\n", "\r\n", "\t", "\x01\x1f\x7f", "\u2028\u2029", "\ufeff", "\u202e evil", "e\u0301",
    "日本語", "🏛️⚔️", "\U0010ffff", "Ω" * 1000, "line1\nline2'\n--", "U&'\\0041'", "%s", "{0}", " ",
]
NUMBERS = [0, 1, -1, 2**31, -2**31 - 1, 2**63 - 1, -2**63, 2**63, 2**127 - 1, -2**127,
           0.0, -0.0, 1.5, -2.25, 0.1, 1e-300, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
           -1.7976931348623157e308, 1 / 3, math.pi, 123456789.123456789, 1e16, 1e22, 9007199254740993.0]


@pytest.fixture
def con():
    c = duckdb.connect()
    yield c
    c.close()


def back(con, value):
    return con.execute(f"SELECT {literal(value)}").fetchone()[0]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_round_trips_exactly(con, text):
    assert back(con, text) == text
    # and through a table, inline and a multi-row insert
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    run_sql(con, "INSERT INTO t VALUES (?, ?)", [1, text])
    insert_rows(con, "INSERT INTO t (i, s)", [(2, text), (3, text + "'")], chunk=1)
    assert con.execute("SELECT s FROM t ORDER BY i").fetchall() == [(text,), (text,), (text + "'",)]
    assert run_sql(con, "SELECT count(*) FROM t WHERE s = ?", [text]).fetchone()[0] == 2


def test_random_text_round_trips(con):
    rng = random.Random(11)
    alphabet = "'\"\\?$-/*;\n\r\t ()[]{}eEU&%abc" + "".join(map(chr, range(1, 0x80))) + "é日🏛\u2028"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert back(con, text) == text
        assert con.execute(inline("SELECT ?, ?", [text, text[::-1]])).fetchone() == (text, text[::-1])
    for _ in range(200):  # any code point but NUL and the surrogates
        text = "".join(chr(rng.choice([rng.randint(1, 0xD7FF), rng.randint(0xE000, 0x10FFFF)])) for _ in range(20))
        assert back(con, text) == text


@pytest.mark.parametrize("number", NUMBERS)
def test_numbers_round_trip_bit_for_bit(con, number):
    got = back(con, number)
    assert got == number and type(got) is type(number)
    if isinstance(number, float):
        assert struct.pack("<d", got) == struct.pack("<d", number)  # -0.0 and the last bit too


def test_random_doubles_round_trip_bit_for_bit(con):
    rng = random.Random(5)
    values = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(3000)]
    values = [v for v in values if math.isfinite(v)]
    con.execute("CREATE TABLE d (i INTEGER, x DOUBLE)")
    insert_rows(con, "INSERT INTO d (i, x)", list(enumerate(values)))
    got = [x for (x,) in con.execute("SELECT x FROM d ORDER BY i").fetchall()]
    assert [struct.pack("<d", v) for v in got] == [struct.pack("<d", v) for v in values]


def test_other_types_match_what_the_driver_binds(con):
    class Colour(enum.IntEnum):
        RED = 3

    class Side(str, enum.Enum):
        ROMA = "Roma"

    now = datetime(2026, 11, 22, 17, 10, 14, 123456)
    values = [None, True, False, Colour.RED, Side.ROMA, now, datetime(1, 1, 1), date(264, 3, 1), date(2026, 2, 28),
              ["a'", "b"], (1, 2, None), [], datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=5, minutes=30)))]
    for v in values:
        assert con.execute(f"SELECT {literal(v)} IS NOT DISTINCT FROM ?", [v]).fetchone()[0], v
        assert con.execute(f"SELECT typeof({literal(v)}) = typeof(?)", [v]).fetchone()[0] or isinstance(v, (int, list, tuple)), v
    assert back(con, now) == now and back(con, Colour.RED) == 3 and back(con, Side.ROMA) == "Roma"


@pytest.mark.parametrize("bad, says", [
    ("a\x00b", "NUL"), ("\ud800", "surrogate"), (float("nan"), "nan"), (float("inf"), "inf"), (-float("inf"), "inf"),
    (2**127, "HUGEINT"), (-2**127 - 1, "HUGEINT"), (b"bytes", "bytes"), ({"a": 1}, "dict"), (object(), "object"),
    (["ok", "\x00"], "NUL"),
])
def test_unwritable_values_are_refused_in_one_line(bad, says):
    with pytest.raises(InputError) as e:
        literal(bad)
    assert says in str(e.value) and "\n" not in str(e.value)


def test_placeholders_outside_quotes_and_comments_only(con):
    sql = ("SELECT ? AS a, '?' AS b, E'\\'?' AS c, \"?\" AS d, $$?$$ AS e, $q$ ? $q$ AS f, ? AS g -- ?\n"
           ", /* ? */ ? AS h")
    con.execute('CREATE TABLE "?" (x INTEGER)')
    con.execute('INSERT INTO "?" VALUES (1)')
    got = con.execute(inline(sql.replace('"?" AS d', '(SELECT x FROM "?") AS d'), [1, "two", 3])).fetchone()
    assert got == (1, "?", "'?", 1, "?", " ? ", "two", 3)


def test_literals_never_glue_to_their_neighbours(con):
    assert con.execute(inline("SELECT 5 -?", [-1])).fetchone()[0] == 6  # not the comment ``5 --1``
    assert con.execute(inline("SELECT 1 WHERE 2=?AND TRUE", [2])).fetchone() == (1,)
    assert con.execute(inline("SELECT ?::VARCHAR", [7])).fetchone()[0] == "7"


@pytest.mark.parametrize("sql, params, says", [
    ("SELECT ?", [], "more ? placeholders"), ("SELECT ?", [1, 2], "1 ? placeholders but 2"),
    ("SELECT $1", [1], "$1"), ("SELECT $name", [1], "$name"), ("SELECT ?", {"a": 1}, "dict"), ("SELECT ?", "ab", "str"),
])
def test_mismatched_parameters_are_refused(sql, params, says):
    with pytest.raises(InputError) as e:
        inline(sql, params)
    assert says in str(e.value)


def test_run_sql_names_the_query_when_a_value_is_refused(con):
    with pytest.raises(InputError, match="query my.query: .*NUL"):
        run_sql(con, "SELECT ?", ["\x00"], name="my.query")
    with pytest.raises(SqlError, match="query bad.query failed"):
        run_sql(con, "SELECT * FROM nowhere WHERE x = ?", [1], name="bad.query")


def test_values_rows_and_chunks(con):
    assert values_rows([(1, "a"), (None, "b'")]) == "(1, 'a'), (NULL, 'b''')"
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    rows = [(i, f"r{i}'") for i in range(1234)]
    insert_rows(con, "INSERT INTO t (i, s)", rows, chunk=500)
    insert_rows(con, "INSERT INTO t (i, s)", [])
    assert con.execute("SELECT i, s FROM t ORDER BY i").fetchall() == rows


def test_literal_binding_imports_no_pandas():
    # The reason for all this (module doc of geo/spatialdb.py): the driver's binding imports pandas.
    code = ("import sys, duckdb\nfrom bellica.geo.spatialdb import run_sql, insert_rows\n"
            "con = duckdb.connect()\ncon.execute('CREATE TABLE t (i INTEGER, s VARCHAR)')\n"
            "insert_rows(con, 'INSERT INTO t (i, s)', [(1, 'a')])\n"
            "print(run_sql(con, 'SELECT s FROM t WHERE i = ?', [1]).fetchall(), 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[('a',)] False"
