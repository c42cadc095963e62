"""The exit-code walk (issue 19, item 3): every command of every ruleset, found in the click tree
(tests/cli/command_tree.py), exits as README.md's table "Exit codes" says.

Each command is run from its own help example (tests/cli/test_help_examples.py checks that every
command has one that parses), changed in one way at a time:

* every input file it names (a click.Path parameter other than an output, ``--out``) made a path
  that does not exist: exit 1, one ``error:`` line naming the file;
* its ``--faction``/``--nation``/``--side`` made a name the campaign does not have: exit 2 (a
  ruleset-neutral command, such as ``log`` or ``render map``, on a campaign of every ruleset);
* a number of a parameter declared as one (click's type) made ``x``: exit 2, click's usage error
  naming the parameter; a number inside a value the command reads itself (``9=strength``,
  ``'Sp(O)=2'``, ``Samnites=20,...``) made ``x``: exit 1;
* for the stepped rulesets, the step taken before the campaign has started, and ``start`` taken
  twice: exit 3 (a command that only reads may also answer 0).

The example's campaign file says which ruleset it is for (:data:`EXAMPLE_CAMPAIGNS`): the walk
runs it on a small campaign of that ruleset, built once for the module.  stderr is always one
``error:`` line, or click's usage error, and never a traceback.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import click
import pytest

from bellica.commands.play import group_names
from tests.cli.command_tree import examples, leaf_commands, resolve
from tests.cli.test_fuzz import bellica, the_error_line

#: The campaign file names the examples use, and the ruleset each stands for.
EXAMPLE_CAMPAIGNS = {"punic.duckdb": "vae-victis-ii", "rome.duckdb": "rise-of-rome", "mare.duckdb": "mare-nostrum",
                     "dionysian.duckdb": "magna-graecia", "blacksea.duckdb": "trossian"}
#: The groups that play one kind of game (a ruleset's group made from its declared steps among them);
#: any other command is ruleset-neutral and walked on all five.
RULESET_GROUPS = {"round", "turn", "magna-graecia", "trossian", *group_names()}
#: Output paths are click.Path parameters too, but are not read: named so by convention.
OUTPUTS = {"out", "out_dir"}
#: The options that name a faction of the campaign, whatever a ruleset calls it.
FACTION_OPTIONS = {"faction", "nation", "side"}
UNKNOWN = "Atlantis"

COMMANDS = leaf_commands()
IDS = [" ".join(path) for path, _ in COMMANDS]


# --- the campaigns, built once -------------------------------------------------------------------

def _run_ok(*args) -> None:
    from bellica.cli import main

    try:
        main([str(a) for a in args])
    except SystemExit as e:
        assert not e.code, (args, e.code)


def _vae_victis(folder: Path) -> Path:
    from tests.engine.boards import sketch
    from tests.engine.test_rounds import STRUCTURES, WATER
    from tests.engine.test_state import make_campaign

    path = folder / "vae-victis-ii.duckdb"
    c, _ = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")),
                         m=sketch(radius=4, structures=STRUCTURES, water=WATER))
    c.close()
    return path


def _from_scenario(folder: Path, scenario: str, ruleset: str) -> Path:
    """``bellica campaign new`` of the shipped scenario (tests/conftest.py, built once a run)."""
    from tests.conftest import scenario_campaign_file

    return scenario_campaign_file(scenario, folder / f"{ruleset}.duckdb")


START = {"vae-victis-ii": ("round", "start"), "rise-of-rome": ("turn", "start"), "mare-nostrum": ("turn", "start"),
         "magna-graecia": ("magna-graecia", "start"), "trossian": ("trossian", "start")}


def _made(ruleset: str, path: Path) -> None:
    """Write a small campaign of ``ruleset`` at ``path``, not started."""
    from tests.engine.trossian.campaign_file import base_campaign

    folder = path.parent / f"{path.stem}-build"
    folder.mkdir()
    makers = {"vae-victis-ii": lambda: _vae_victis(folder),
              "rise-of-rome": lambda: _from_scenario(folder, "rise-of-rome", "rise-of-rome"),
              "mare-nostrum": lambda: _from_scenario(folder, "mare-nostrum", "mare-nostrum"),  # its res 4
              "magna-graecia": lambda: _from_scenario(folder, "magna-graecia/dionysian", "magna-graecia"),
              "trossian": lambda: base_campaign(folder)}
    shutil.copyfile(makers[ruleset](), path)


def ruleset_campaigns(built_once, folder: Path) -> dict[str, dict[str, Path]]:
    """{"made": {ruleset: file}, "started": {ruleset: file}}: each ruleset's small campaign before and
    after its start (seed 7), copied into ``folder`` from files built once per test process (the
    fuzz of declared steps, tests/cli/test_fuzz_declared.py, starts from the same)."""
    made, started = {}, {}
    for ruleset in START:
        made[ruleset] = built_once(f"made-{ruleset}", lambda p, r=ruleset: _made(r, p), folder / f"{ruleset}.duckdb")

        def start(p: Path, r=ruleset) -> None:
            shutil.copyfile(made[r], p)
            _run_ok(*START[r], p, "--seed", "7")
        started[ruleset] = built_once(f"started-{ruleset}", start, folder / f"{ruleset}-started.duckdb")
    return {"made": made, "started": started}


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory, built_once) -> dict[str, dict[str, Path]]:
    """Each ruleset's campaign before and after its start (:func:`ruleset_campaigns`)."""
    return ruleset_campaigns(built_once, tmp_path_factory.mktemp("exit-codes"))


@pytest.fixture
def work(tmp_path, monkeypatch) -> Path:
    """The working folder of one test: the examples' relative paths (``--out roma-now``) land here."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- reading an example ---------------------------------------------------------------------------

def _parsed(argv: list[str]) -> tuple[click.Command, click.Context]:
    _path, command, ctx = resolve(argv)
    return command, ctx


def _input_files(command: click.Command, ctx: click.Context) -> list[str]:
    """The files the example reads, as it writes them (a click.Path parameter that is no output)."""
    return [str(ctx.params[p.name]) for p in command.params
            if isinstance(p.type, click.Path) and p.name not in OUTPUTS and isinstance(ctx.params.get(p.name), (str, Path))]


def _campaign_token(command: click.Command, ctx: click.Context) -> tuple[str, str] | None:
    """(the example's campaign file as written, its ruleset), when it names one of
    :data:`EXAMPLE_CAMPAIGNS` and reads no other file: the walk cannot give it the others (an
    orders file, a placements CSV), so such an example is walked for its missing files only."""
    files = _input_files(command, ctx)
    if len(files) == 1 and Path(files[0]).name in EXAMPLE_CAMPAIGNS:
        return files[0], EXAMPLE_CAMPAIGNS[Path(files[0]).name]
    return None


def _replaced(argv: list[str], old: str, new: str) -> list[str]:
    assert old in argv, (old, argv)
    return [new if a == old else a for a in argv]


def _option_value_at(argv: list[str], param: click.Parameter) -> int | None:
    """The index of the token that gives the option ``param`` its value in ``argv``, if the example gives one."""
    if isinstance(param, click.Option):
        return next((i + 1 for i, a in enumerate(argv[:-1]) if a in param.opts), None)
    return None


def _copy(src: Path, work: Path, name: str) -> Path:
    dst = work / name
    shutil.copyfile(src, dst)
    return dst


def _expect(result, code: int, *names: str) -> str:
    """The run exited ``code`` with one error line (``error: ...``, or click's usage error) naming one of ``names``."""
    got, out, err = result
    assert "Traceback" not in out + err, f"traceback:\n{out}{err}"
    assert got == code, f"exit {got}, not {code}:\n{err}"
    if got == 2:  # click wraps a long usage line, indenting its continuation
        err = re.sub(r"\n {2,}(?=\S)", " ", err)
    line = the_error_line(got, err)
    assert not names or any(n in line for n in names), f"the error names none of {names}:\n{line}"
    return line


def _run(capsys, argv) -> tuple[int, str, str]:
    return bellica(capsys, *argv)


# --- the cases, found in the examples at collection -----------------------------------------------

def _cases(make) -> list:
    """``make(path, command, argv, parsed_command, ctx)``'s cases over every example of every command."""
    out = []
    for path, command in COMMANDS:
        for argv in examples(command):
            cmd, ctx = _parsed(argv)
            out += [pytest.param(path, argv, *case, id=f"{' '.join(path)}: {label}")
                    for label, *case in make(path, cmd, argv, ctx)]
    return out


def _inputs(path, command, argv, ctx):
    values = _input_files(command, ctx)
    if values:
        yield "a missing " + ", ".join(values), values


def _factions(path, command, argv, ctx):
    known = _campaign_token(command, ctx)
    for p in command.params:
        at = _option_value_at(argv, p)
        if p.name not in FACTION_OPTIONS or at is None or known is None:
            continue
        rulesets = [known[1]] if path[0] in RULESET_GROUPS else list(START)
        for ruleset in rulesets:
            yield f"{' '.join(p.opts)} on {ruleset}", at, known[0], ruleset


NUMBER_TYPES = (click.types.IntParamType, click.types.FloatParamType)


def _named(p: click.Parameter) -> str:
    return p.opts[0] if isinstance(p, click.Option) else p.name.upper()


def _numbers(path, command, argv, ctx):
    from bellica.commands.options import Decimal, WholeNumber

    for p in command.params:
        if not isinstance(p.type, (*NUMBER_TYPES, WholeNumber, Decimal)) or ctx.params.get(p.name) is None:
            continue
        at = _option_value_at(argv, p)
        if at is None and isinstance(p, click.Argument):  # the argument's (first) value, as the example writes it
            value = ctx.params[p.name]
            first = str(value[0] if isinstance(value, tuple) else value)
            at = argv.index(first)
        if at is not None:
            yield f"{_named(p)} x", at, p.get_error_hint(ctx)


#: Digits inside a value the command reads itself: an ARMY= or UNIT= number before "=", else a
#: count after it (ELEMENT=N, POWER=N), else the first (NAME=FACTION:ARMY,...).
_DIGITS = (re.compile(r"\d+(?==)"), re.compile(r"(?<==)\d+"), re.compile(r"\d+"))


def _structured(path, command, argv, ctx):
    known = _campaign_token(command, ctx)
    for p in command.params:
        if known is None or not isinstance(p.type, click.types.StringParamType):
            continue
        value = ctx.params.get(p.name)
        for text in (value if isinstance(value, tuple) else (value,)):
            if isinstance(text, str) and "=" in text and re.search(r"\d", text) and text in argv:
                digits = next(d for d in _DIGITS if d.search(text))
                new = digits.sub("x", text, count=1)
                yield f"{_named(p)} {new!r}", text, new, (new, *p.opts), known[0], known[1]
                break


def _steps(path, command, argv, ctx):
    known = _campaign_token(command, ctx)
    if path[0] in RULESET_GROUPS and known is not None:
        yield ("before the start" if path[-1] != "start" else "twice"), known[0], known[1]


# --- the walk ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path, argv, values", _cases(_inputs))
def test_a_missing_file_is_bad_input(path, argv, values, work, capsys):
    gone = [str(work / "absent" / Path(v).name) for v in values]
    for old, new in zip(values, gone):
        argv = _replaced(argv, old, new)
    _expect(_run(capsys, argv), 1, *gone)


@pytest.mark.parametrize("path, argv, at, example_campaign, ruleset", _cases(_factions))
def test_an_unknown_faction_is_a_usage_error(path, argv, at, example_campaign, ruleset, campaigns, work, capsys):
    argv = list(argv)
    argv[at] = UNKNOWN
    here = _copy(campaigns["started"][ruleset], work, Path(example_campaign).name)
    _expect(_run(capsys, _replaced(argv, example_campaign, str(here))), 2, UNKNOWN)


@pytest.mark.parametrize("path, argv, at, hint", _cases(_numbers))
def test_a_word_for_a_number_is_a_usage_error(path, argv, at, hint, work, capsys):
    argv = list(argv)
    argv[at] = "x"
    with pytest.raises(click.UsageError):  # refused before it runs (`serve run`, `warm start` would not return)
        resolve(argv)
    line = _expect(_run(capsys, argv), 2, hint)
    assert line.startswith("Error: Invalid value for"), line


@pytest.mark.parametrize("path, argv, old, new, names, example_campaign, ruleset", _cases(_structured))
def test_a_word_for_a_number_inside_a_value_is_bad_input(path, argv, old, new, names, example_campaign, ruleset,
                                                          campaigns, work, capsys):
    here = _copy(campaigns["started"][ruleset], work, Path(example_campaign).name)
    argv = _replaced(_replaced(argv, old, new), example_campaign, str(here))
    _expect(_run(capsys, argv), 1, *names)


@pytest.mark.parametrize("path, argv, example_campaign, ruleset", _cases(_steps))
def test_a_step_out_of_order_is_refused(path, argv, example_campaign, ruleset, campaigns, work, capsys):
    which = "started" if path[-1] == "start" else "made"
    here = _copy(campaigns[which][ruleset], work, Path(example_campaign).name)
    code, out, err = _run(capsys, _replaced(argv, example_campaign, str(here)))
    if code == 0 and path[-1] != "start":
        return  # a command that reads (status, show, battles, log) may say so and exit 0
    _expect((code, out, err), 3)
