"""Every command's help ends with an example of it (issue 19, item 6).

The convention: the docstring's last paragraph is ``Example: bellica ...`` (``Examples:`` with
several, separated by ``;``).  Each example must be a command line click accepts for that very
command: its path resolves to the command whose help shows it, and its options, arguments and
typed values parse (a renamed flag or a missing required argument fails here).  Nothing is run.
"""

from __future__ import annotations

import click
import pytest

from tests.cli.command_tree import examples, last_paragraph, leaf_commands, resolve

COMMANDS = leaf_commands()


def test_the_walk_finds_every_command():
    paths = {" ".join(path) for path, _ in COMMANDS}
    # one of each top-level kind: a group's command, a lazily loaded module's, a plain command, a hidden one
    assert {"round move", "magna-graecia agree-end", "map nodes", "sql", "log", "serve run", "warm stop"} <= paths
    assert len(COMMANDS) >= 90


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_help_ends_with_an_example_of_the_command(path, command):
    found = examples(command)
    assert found, (f"`bellica {' '.join(path)} --help` does not end with an `Example: bellica ...` paragraph "
                   f"(it ends: {last_paragraph(command)[-120:]!r})")
    for argv in found:
        try:
            where, resolved, _ctx = resolve(argv)
        except click.UsageError as e:
            pytest.fail(f"the example `bellica {' '.join(argv)}` does not parse: {e.format_message()}")
        assert resolved is command, f"the example `bellica {' '.join(argv)}` runs `bellica {' '.join(where)}`"


def test_the_check_fails_a_wrong_example():
    for wrong in (["round", "move", "punic.duckdb", "--nope"],  # a flag the command does not have
                  ["round", "retreat", "punic.duckdb"],  # a required argument left out
                  ["round", "retreat", "punic.duckdb", "x"],  # a word for a number
                  ["round", "status", "punic.duckdb", "extra"]):  # one argument too many
        with pytest.raises(click.UsageError):
            resolve(wrong)
    assert resolve(["serve", "punic.duckdb", "--port", "8000"])[0] == ("serve", "run")  # serve's default command
