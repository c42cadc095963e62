"""The one reader of user text files and typed numbers (issue 8: no traceback for a bad file)."""

from __future__ import annotations

import os

import pytest

from bellica.geo.errors import InputError, MissingInputError
from bellica.geo.files import parse_user_toml, read_user_text, whole_number


def test_reads_utf8_and_drops_a_byte_order_mark(tmp_path):
    f = tmp_path / "a.toml"
    f.write_bytes(b"\xef\xbb\xbfname = \"Syracusae\xc3\xa6\"\n")
    assert read_user_text(f, "orders file") == 'name = "Syracusaeæ"\n'


def test_non_utf8_names_the_byte_offset(tmp_path):
    f = tmp_path / "latin1.toml"
    f.write_bytes(b"ab\xff")
    with pytest.raises(InputError) as e:
        read_user_text(f, "choices file")
    assert str(e.value) == f"choices file {f} is not UTF-8 text: byte 2 (0xff) cannot be decoded; save the file as UTF-8"
    g = tmp_path / "bom-then-latin1.toml"
    g.write_bytes(b"\xef\xbb\xbfa\xe9")  # the offset counts the mark too: it is in the file
    with pytest.raises(InputError, match="byte 4 \\(0xe9\\)"):
        read_user_text(g, "choices file")


def test_missing_directory_and_too_large(tmp_path):
    with pytest.raises(MissingInputError, match=r"^orders file .*nope.toml does not exist: check the path$"):
        read_user_text(tmp_path / "nope.toml", "orders file")
    with pytest.raises(InputError, match=r"^orders file .* is a directory: give the path of a file$"):
        read_user_text(tmp_path, "orders file")
    big = tmp_path / "big.sql"
    big.write_bytes(b"-" * 2048)
    with pytest.raises(InputError, match=r"^SQL file .*big.sql is larger than 1024 bytes, the limit for a SQL file"):
        read_user_text(big, "SQL file", limit=1024)
    assert len(read_user_text(big, "SQL file", limit=2048)) == 2048


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable(tmp_path):
    f = tmp_path / "secret.toml"
    f.write_text("x = 1\n")
    f.chmod(0)
    with pytest.raises(MissingInputError, match=r"^cannot read orders file .*secret.toml: permission denied"):
        read_user_text(f, "orders file")


def test_toml_errors_are_one_line():
    assert parse_user_toml("a = 1\n", "x.toml") == {"a": 1}
    with pytest.raises(InputError, match=r"^x.toml is not valid TOML: .*line 1.*; fix the syntax$"):
        parse_user_toml("a = \n", "x.toml")
    # tomllib recurses per nesting level: a RecursionError became a traceback.
    for deep in ("a = " + "[" * 50_000, "a = " + "{b = " * 50_000):
        with pytest.raises(InputError) as e:
            parse_user_toml(deep, "deep.toml")
        assert str(e.value).startswith("deep.toml is nested too deeply to be read") and "\n" not in str(e.value)


@pytest.mark.parametrize("text", ["٩", "２０", "1_000", "1e3", "", " ", "-3", "+3", "3.0", "٣3", None, 7])
def test_only_ascii_digits_are_numbers(text):
    # Bug: "٩" was 9 and "２０" was 20 (int() and str.isdigit take any script's digits).
    assert whole_number(text) is None


def test_whole_numbers():
    assert whole_number("12") == 12 and whole_number(" 7 ") == 7 and whole_number("0") == 0
    assert whole_number("-3", signed=True) == -3 and whole_number("٣", signed=True) is None


def test_a_number_of_thousands_of_digits_is_one_line():
    # Bug: int() refused more than 4300 digits with a ValueError, a traceback from every command.
    from bellica.geo.errors import InputError

    with pytest.raises(InputError, match=r"^the number 999999999999\.\.\. has 5000 digits, .* give a smaller number$"):
        whole_number("9" * 5000)
    assert whole_number("0" * 5000 + "42") == 42 and whole_number("-" + "0" * 5000 + "4", signed=True) == -4
    assert whole_number("9" * 100) == int("9" * 100)
    with pytest.raises(InputError, match="too long to read"):
        parse_user_toml("x = " + "9" * 5000, "orders file o.toml")
