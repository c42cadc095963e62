"""Hostile input is one `error:` line with the right exit code, nothing stored or written (issue 23,
items 7 and 8): a number of thousands of digits, text that is not UTF-8 (a byte of another encoding
on a command line reaches Python as a lone surrogate, ``\\udcff`` for ``\\xff``), an output name
with a newline, a campaign file cut short."""

from __future__ import annotations

import shutil

import pytest

import bellica.cli as cli
from tests.cli.test_round_cli import bellica
from tests.engine.test_rounds import FIELD

#: What ``$'\xff'`` on a command line becomes in ``sys.argv``.
NOT_UTF8 = "\udcff"
HUGE = "9" * 5000

ROMA = 'faction = "roma"\nround = 1\n\n[armies.9]\nmoves = "3 3 5"\n\n[armies.10]\nmoves = ""\n'


def one_line(result, code: int) -> str:
    got, out, err = result
    assert got == code, (out, err)
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ") and "Traceback" not in err, err
    return err


def log_of(capsys, path) -> str:
    code, out, err = bellica(capsys, "log", path, "--json")
    assert code == 0, err
    return out


@pytest.fixture
def unstarted(tmp_path, built_once):
    """Roma and Capua on a field (tests/engine/test_rounds.py FIELD), not started: a copy of the file
    tests/cli/test_round_cli.py builds once a run."""
    from tests.cli.test_round_cli import _write_campaign

    return built_once("vv-field-campaign", _write_campaign(FIELD), tmp_path / "field.duckdb")


@pytest.fixture
def at_war(unstarted, built_once):
    """That campaign started and its first round's initiative published (built once a run, copied per test)."""
    def build(path):
        shutil.copyfile(unstarted, path)
        for args in (("round", "start", path), ("round", "publish", path)):
            try:
                cli.main([str(a) for a in args])
            except SystemExit as e:
                assert not e.code, (args, e.code)
    return built_once("vv-field-at-war", build, unstarted)


def test_a_number_of_thousands_of_digits(at_war, tmp_path, capsys):
    before = log_of(capsys, at_war)
    for transfer in (f"10:{HUGE}", f"{HUGE}:10", f"10:{'0' * 4000}{HUGE}"):
        err = one_line(bellica(capsys, "round", "orders", at_war, "--faction", "roma", "--army", 9, "--moves", "3",
                               "--transfer", transfer), 1)
        assert "has 5000 digits, more than any number bellica reads (100): give a smaller number" in err
    one_line(bellica(capsys, "round", "orders", at_war, "--faction", "roma", f"{HUGE}=3"), 1)
    toml = tmp_path / "roma.toml"
    toml.write_text(f'faction = "roma"\n[armies.9]\nmoves = "3"\ntransfers = [{{ to = 10, fp = {HUGE} }}]\n')
    assert "holds a number too long to read" in one_line(bellica(capsys, "round", "orders", at_war, "--file", toml), 1)
    assert log_of(capsys, at_war) == before  # nothing stored
    code, _, err = bellica(capsys, "round", "result", at_war, HUGE, "--winner", 9)  # the whole argument: usage
    assert code == 2 and "Traceback" not in err
    # Leading zeros are no digits of the number.
    assert bellica(capsys, "round", "orders", at_war, "--faction", "roma", f"{'0' * 4999}9=3")[0] == 0


def test_a_secret_that_is_not_utf8(unstarted, tmp_path, capsys):
    path = unstarted
    assert bellica(capsys, "round", "start", path, "--orders-mode", "commit-reveal")[0] == 0
    assert bellica(capsys, "round", "publish", path)[0] == 0
    roma = tmp_path / "roma.toml"
    roma.write_text(ROMA)
    secret = f"s{NOT_UTF8}1"
    err = one_line(bellica(capsys, "round", "commitment", "--file", roma, "--secret", secret), 1)
    assert "the secret is not UTF-8 text (position 1)" in err
    before = log_of(capsys, path)
    one_line(bellica(capsys, "round", "commit", path, "--faction", "roma", "--file", roma, "--secret", secret), 1)
    assert bellica(capsys, "round", "commit", path, "--faction", "roma", "--file", roma, "--secret", "s1")[0] == 0
    assert bellica(capsys, "round", "commit", path, "--faction", "carthago", "--digest", "a" * 64)[0] == 0
    before = log_of(capsys, path)
    one_line(bellica(capsys, "round", "reveal-orders", path, "--faction", "roma", "--file", roma, "--secret", secret), 1)
    assert log_of(capsys, path) == before


@pytest.mark.parametrize("query", [f"SELECT '{NOT_UTF8}'", f'SELECT "{NOT_UTF8}" FROM campaign',
                                   f"SELECT 1; SELECT '{NOT_UTF8}'", f"/* {NOT_UTF8} */ SELECT 1"])
def test_sql_that_is_not_utf8(at_war, capsys, query):
    err = one_line(bellica(capsys, "sql", at_war, query), 1)
    assert err.startswith("error: QUERY is not UTF-8 text (character ") and err.rstrip().endswith("type the query in UTF-8")


@pytest.mark.parametrize("name", ["a\nb", "a\tb", f"a{NOT_UTF8}b", "a\x7fb"])
def test_an_output_name_with_a_control_character(at_war, tmp_path, capsys, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for argv in (("export", at_war, "--out", name), ("export", at_war, "--out", name, "--format", "geojson"),
                 ("map", "export", at_war, "--out", name + ".gpkg"), ("render", "map", at_war, "--out", name + ".html")):
        err = one_line(bellica(capsys, *argv), 1)
        assert "holds a control character or a byte that is not UTF-8: choose a name of printable characters" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written, not even a temporary


def test_a_campaign_file_cut_short_for_place(unstarted, tmp_path, capsys):
    placements = tmp_path / "placements.csv"
    placements.write_text("army,faction,structure\n1,carthago,Capua\n9,roma,Roma\n10,roma,Ostia\n")
    data = unstarted.read_bytes()
    for cut in (len(data) // 2, len(data) // 8):
        short = tmp_path / f"short{cut}.duckdb"
        short.write_bytes(data[:cut])
        for argv in (("campaign", "place", short, placements), ("campaign", "structures", short)):
            err = one_line(bellica(capsys, *argv), 1)
            assert f"{short} is truncated ({cut} bytes of the" in err and "SELECT" not in err, err
        assert short.read_bytes() == data[:cut]


@pytest.fixture(scope="module")
def trossian_base(tmp_path_factory):
    return tmp_path_factory.mktemp("trossian-base")


def test_a_courier_message_that_is_not_utf8(trossian_base, tmp_path, capsys, monkeypatch):
    from tests.engine.trossian.campaign_file import fresh_campaign

    path = fresh_campaign(trossian_base, tmp_path / "t.duckdb")
    assert bellica(capsys, "trossian", "start", path, "--seed", 148)[0] == 0
    assert bellica(capsys, "trossian", "next", path)[0] == 0
    before = log_of(capsys, path)
    err = one_line(bellica(capsys, "trossian", "courier", path, "send", "--nation", "Russia", "--courier", 74,
                           "--message", f"Hold {NOT_UTF8} the Don", "--to", "Kuban Corps"), 1)
    assert err == (f"error: message 'Hold \\udcff the Don' is not UTF-8 text (a byte of another encoding was typed): "
                   "type it in UTF-8; nothing stored\n")
    assert "INSERT" not in err and log_of(capsys, path) == before
    # Text beyond the Basic Multilingual Plane is UTF-8: stored as typed.
    assert bellica(capsys, "trossian", "courier", path, "send", "--nation", "Russia", "--courier", 74,
                   "--message", "Hold \U0001d538 the Don", "--to", "Kuban Corps")[0] == 0
    assert bellica(capsys, "round", "verify", path)[0] == 0
