"""The one command line: ``bellica <group> <command>``, a group per user.

designer: ``bellica map ...``, ``bellica campaign new``; umpire: ``bellica round ...``,
``bellica sql``, ``bellica log``; everyone: ``bellica render ...``.
Every domain error becomes one line on stderr and a non-zero exit.  So does an error of the
environment that reaches :func:`main` unhandled (an OSError, a file that is not UTF-8, a DuckDB
error, input nested too deep, memory exhausted): one ``error:`` line naming the file where the
exception knows it, with ``--verbose`` giving the traceback.  Anything else is a bug and keeps its
traceback, so that it is reported (and the fuzz suite, tests/cli/test_fuzz.py, finds it).

The exit status tells a script what happened (README.md, "Exit codes"): 0 done; 1 bad input or
data, or an error of the environment, a wrong number inside an order or an ARMY=VALUE item included
(:data:`EXIT_INPUT`); 2 a usage error, click's own (a word for a number-typed option) and a faction,
nation or side the campaign does not have (:data:`EXIT_USAGE`); 3 refused by the rules: a step out of
order (``StepRefused``, a step before the campaign's start included) or a well-formed order the
position does not allow (``IllegalOrderError``): both a ``RulesRefusal`` (:data:`EXIT_REFUSED`); 4 the
campaign's event log or state tables were edited, damaged or do not replay (``ReplayMismatch`` and
its ``LogTampered``/``LogUnreadable``) (:data:`EXIT_DAMAGED`).  A campaign file that cannot be
opened at all (not DuckDB, truncated) is bad input, 1: the engine reports it as an InputError.
The commands share :mod:`bellica.commands.campaigns` for opening a campaign and reading a faction
name, so each of these is the same in every command of every ruleset (tests/cli/test_exit_codes.py
walks them all).
``--version`` prints the installed distribution's version (importlib.metadata); shell completion
is click's own (``_BELLICA_COMPLETE=bash_source bellica``, README.md).
"""

from __future__ import annotations

import importlib
import sys
import traceback

import click

from bellica.geo.errors import BellicaError, first_line

#: Each top-level command and where it is defined ("module:attribute" under bellica.commands).
#: A command's module is imported only when that command runs (or help lists it): a
#: ``bellica round`` step does not pay for the map, simulation or server commands' imports.
#: A ruleset's own group (``bellica round``, Vae Victis II's) is made from its declared steps
#: (:mod:`bellica.commands.play`), found through the registry.
COMMANDS = {
    "map": "map:group",
    "campaign": "campaign:group",
    "sql": "sql:command",
    "log": "log:command",
    "render": "render:group",
    "export": "export:command",
    "serve": "serve:group",
    "turn": "shared_group:group",  # the rulesets played with `bellica turn` (their play_command)
    "simulate": "simulate:command",
    "warm": "warm:group",
    "cases": "cases:group",  # the catalogue of adjudication cases (docs/cases.md)
}


class LazyGroup(click.Group):
    """A click group whose subcommands (:data:`COMMANDS`) are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from bellica.commands.play import group_names

        return sorted({*super().list_commands(ctx), *COMMANDS, *group_names()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            module, attribute = COMMANDS[name].split(":")
            command = getattr(importlib.import_module(f"bellica.commands.{module}"), attribute)
            if command.name != name:
                raise RuntimeError(f"bellica.commands.{module}.{attribute} is named {command.name!r}, not {name!r}")
            self.add_command(command)
        elif name not in self.commands:
            # A ruleset's group made from its declared steps (an installed ruleset's too).
            from bellica.commands.play import group_for, ruleset_of_group

            ruleset = ruleset_of_group(name)
            if ruleset is not None:
                self.add_command(group_for(ruleset))
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bellica", prog_name="bellica", message="%(prog)s %(version)s")
@click.option("-v", "--verbose", is_flag=True, help="Log progress details.")
def cli(verbose: bool) -> None:
    """Bellica: hex-map campaigns on real geography."""
    _run["verbose"] = verbose
    from bellica.geo.logs import want

    want(verbose)  # logging itself is loaded by the first module that logs (geo/logs.py)


#: What :func:`main` needs to know about the running command (set by the group callback).
_run = {"verbose": False}

VERBOSE_HINT = "run `bellica --verbose ...` for the traceback"

#: Exit statuses (module doc; README.md, "Exit codes").
EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_REFUSED, EXIT_DAMAGED = 0, 1, 2, 3, 4


def exit_code(e: BellicaError) -> int:
    """The exit status of a domain error: damaged log 4, rules refusal 3, anything else 1."""
    from bellica.engine.core.state import ReplayMismatch
    from bellica.geo.errors import RulesRefusal

    if isinstance(e, ReplayMismatch):
        return EXIT_DAMAGED
    if isinstance(e, RulesRefusal):  # a step out of order, an order the position does not allow: any ruleset
        return EXIT_REFUSED
    return EXIT_INPUT


def _environment_error(e: BaseException) -> str | None:
    """The one line for an error of the environment or of a file's bytes that no command caught,
    or None when ``e`` is not one (a bug: it keeps its traceback)."""
    import duckdb

    if isinstance(e, UnicodeDecodeError):
        return (f"an input file is not UTF-8 text (byte {e.object[e.start:e.start + 1]!r} at position {e.start}): "
                "save it as UTF-8")
    if isinstance(e, OSError):
        name = e.filename if e.filename is not None else None
        reason = e.strerror or str(e) or type(e).__name__
        if name is not None:
            other = f" -> {e.filename2}" if getattr(e, "filename2", None) else ""
            return f"{name}{other}: {reason}: check the path and its permissions"
        return f"{reason}: check the files given and their permissions"
    if isinstance(e, duckdb.Error):
        first = first_line(e)
        return f"the database refused the operation: {first}"
    if isinstance(e, RecursionError):
        return "an input is nested too deeply to read (a TOML or JSON file?): flatten it"
    if isinstance(e, MemoryError):
        return "out of memory: the input asks for more than this machine holds (a smaller region or resolution?)"
    return None


def _interrupted(e: BaseException) -> bool:
    """Whether ``e`` is DuckDB's answer to Ctrl-C during a query: it catches the signal itself and
    raises ``RuntimeError("Query interrupted")`` (or its InterruptException) instead of KeyboardInterrupt."""
    import duckdb

    return isinstance(e, duckdb.InterruptException) or (isinstance(e, RuntimeError) and str(e) == "Query interrupted")


def main(argv: list[str] | None = None) -> None:
    _run["verbose"] = False
    try:
        cli.main(args=argv, prog_name="bellica", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except BellicaError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(exit_code(e))
    except Exception as e:  # noqa: BLE001 - sorted below: the environment's errors, or a bug re-raised
        if _interrupted(e):  # Ctrl-C while DuckDB ran a query: as click's own Abort (its transaction rolled back)
            click.echo("aborted", err=True)
            sys.exit(1)
        line = _environment_error(e)
        if line is None:
            raise  # a bug: the traceback is the report
        if _run["verbose"]:
            traceback.print_exception(e, file=sys.stderr)
        click.echo(f"error: {line} ({VERBOSE_HINT})", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
