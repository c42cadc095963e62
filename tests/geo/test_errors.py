"""The error helpers every package shares (geo/errors.py)."""

from bellica.geo.errors import first_line


def test_first_line_quotes_the_first_line_of_a_long_error_or_names_its_type():
    assert first_line(RuntimeError("\n  IO Error: Could not set lock on file\nSee also: the docs\n")) == \
        "IO Error: Could not set lock on file"
    assert first_line(TimeoutError()) == "TimeoutError"
    assert first_line(ValueError("   ")) == "ValueError"
