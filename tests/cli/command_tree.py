"""The command tree as click holds it, for the tests that walk every command: the help examples
(tests/cli/test_help_examples.py) and the exit codes (tests/cli/test_exit_codes.py).

The commands are found from ``bellica.cli.cli`` itself, never from a list kept here, so a new
command is walked as soon as it is registered: the top-level groups are imported lazily
(``bellica.cli.COMMANDS``, :class:`bellica.cli.LazyGroup`), and ``list_commands`` plus
``get_command`` import each one, as ``bellica --help`` does.
"""

from __future__ import annotations

import re
import shlex

import click

from bellica.cli import cli

#: The last paragraph of a command's help: ``Example: bellica ...`` (or ``Examples:`` with several,
#: each ending in ``;`` but the last).
EXAMPLE = re.compile(r"\AExamples?: (?P<body>bellica .*)\Z", re.S)


def leaf_commands() -> list[tuple[tuple[str, ...], click.Command]]:
    """Every command a user can run (groups left out, hidden ones kept), as (path, command), sorted."""
    found = []

    def walk(group: click.Group, path: tuple[str, ...], parent: click.Context) -> None:
        for name in group.list_commands(parent):
            command = group.get_command(parent, name)
            ctx = click.Context(command, parent=parent, info_name=name)
            if isinstance(command, click.Group):
                walk(command, (*path, name), ctx)
            else:
                found.append(((*path, name), command))

    walk(cli, (), click.Context(cli, info_name="bellica"))
    return sorted(found, key=lambda item: item[0])


def last_paragraph(command: click.Command) -> str:
    """The help's last paragraph, its lines joined by single spaces."""
    paragraphs = [p for p in re.split(r"\n\s*\n", (command.help or "").strip()) if p.strip()]
    return " ".join(paragraphs[-1].split()) if paragraphs else ""


def examples(command: click.Command) -> list[list[str]]:
    """The argv of each example in the help's last paragraph, without the leading ``bellica``;
    [] when the paragraph is no ``Example:``."""
    m = EXAMPLE.match(last_paragraph(command))
    if m is None:
        return []
    return [shlex.split(one)[1:] for one in re.split(r";\s*(?=bellica )", m["body"])]


def resolve(argv: list[str]) -> tuple[tuple[str, ...], click.Command, click.Context]:
    """Dispatch ``argv`` (``bellica`` left out) as click does, and parse the leaf command's
    arguments for real (types, required ones, unknown options, extra arguments) without running
    it: (the command path, the command, its context).  A bad example raises click's UsageError."""
    command, path, args = cli, (), list(argv)
    ctx = cli.make_context("bellica", args)
    while isinstance(command, click.Group):
        # What Group.invoke does: the group's parse_args (serve's adds `run`) leaves the subcommand's
        # name first; click keeps it in a private attribute since `protected_args` was deprecated.
        name, command, args = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        path = (*path, name)
        ctx = command.make_context(name, args, parent=ctx)
    return path, command, ctx
