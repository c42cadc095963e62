"""geo/logs.py: the command line's logging is configured by the first module that logs, not up front.

Each case runs in a fresh interpreter: pytest's own handlers on the root logger would make
``logging.basicConfig`` a no-op here.
"""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


def test_a_command_that_logs_nothing_never_loads_logging():
    done = _run("import sys; from bellica.geo.logs import want; want(False); print('logging' in sys.modules)")
    assert done.stdout.strip() == "False"


def test_the_first_logger_applies_the_command_lines_format_and_level():
    done = _run("from bellica.geo.logs import want, logger; want(False); log = logger('bellica.x'); "
                "log.info('hidden'); log.warning('shown %d', 1)")
    assert done.stderr.strip() == "WARNING bellica.x: shown 1"


def test_verbose_shows_progress():
    done = _run("from bellica.geo.logs import want, logger; want(True); logger('bellica.x').info('progress')")
    assert done.stderr.strip() == "INFO bellica.x: progress"


def test_used_as_a_library_the_callers_configuration_stands():
    # No want(): the module configures nothing, so the root logger keeps the caller's handlers.
    done = _run("import logging; from bellica.geo.logs import logger; logger('bellica.x'); "
                "print(len(logging.getLogger().handlers))")
    assert done.stdout.strip() == "0"


def test_help_lists_every_command_without_loading_logging():
    # The command modules load lazily (bellica/cli.py COMMANDS); none logs while it is listed.
    done = _run("import sys; from bellica.cli import main; sys.argv = ['bellica', '--help']; "
                "import bellica.geo.logs as L\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
                "print('logging' in sys.modules)")
    *help_text, loaded = done.stdout.strip().splitlines()
    assert loaded == "False"
    from bellica.cli import COMMANDS

    listed = {line.split()[0] for line in help_text if line.startswith("  ") and not line.strip().startswith("-")}
    assert set(COMMANDS) <= listed


# --- issue 19: distributed's INFO chatter --------------------------------------------------------

# As in `bellica map build`: the command line's logging is configured (etl/build.py asks for a logger
# when imported) before distributed is imported, so distributed adds no handler of its own.
CHATTER = ("import logging; from bellica.geo.logs import want, library_logs, logger; {want}; "
           "logger('bellica.x'); import distributed\n"
           "logging.getLogger('distributed.user_config').setLevel(logging.INFO)  # a dask config file's own level\n"
           "with library_logs(quiet={quiet}):\n"
           "    for name in ('distributed.scheduler', 'distributed.user_config', 'dask.x'):\n"
           "        logging.getLogger(name).info('chatter %s', name)\n"
           "        logging.getLogger(name).warning('warned %s', name)\n"
           "logging.getLogger('distributed.scheduler').info('after')\n")


def _chatter(want: str, quiet: bool) -> list[str]:
    return _run(CHATTER.format(want=want, quiet=quiet)).stderr.strip().splitlines()


def test_distributed_info_stays_out_of_the_terminal_unless_verbose():
    lines = _chatter("want(False)", False)
    assert [line for line in lines if "chatter" in line] == []
    assert len([line for line in lines if line.startswith("WARNING ") and "warned" in line]) == 3
    assert lines[-1] == "INFO distributed.scheduler: after"  # levels restored on exit


def test_verbose_shows_distributed_info_and_quiet_hides_it_even_then():
    assert len([line for line in _chatter("want(True)", False) if "chatter" in line]) == 3
    assert [line for line in _chatter("want(True)", True) if "chatter" in line] == []


def test_used_as_a_library_only_quiet_changes_distributed_levels():
    code = ("import logging, distributed; from bellica.geo.logs import library_logs\n"
            "with library_logs(quiet={quiet}):\n"
            "    print(logging.getLogger('distributed').level)\n")
    assert _run(code.format(quiet=False)).stdout.strip() == "20"  # INFO: distributed's own default stands
    assert _run(code.format(quiet=True)).stdout.strip() == "30"
