"""`bellica cases ...`: the catalogue of adjudication cases (datasets/cases/, docs/cases.md).

``cases run [RULESET]`` runs every case (of one ruleset; ``--case ID`` for some) against the
installed engine and prints ``pass`` or ``FAIL`` per case, with what failed; exit 0 when every
case passes, 1 otherwise.  Each scenario's campaign is made once per run, as ``bellica campaign
new`` makes it (a map built for its bbox: seconds), in ``--work DIR`` (default: a temporary
folder; given, the files are kept and reused by the next run), and copied fresh for each case.
``cases list`` prints the numbers, titles and the seed's words each case tests.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import tempfile
from pathlib import Path

import click

__all__ = ["case_campaign", "group", "scenario_campaign"]


def scenario_campaign(scenario: str, folder: Path) -> Path:
    """The not-started campaign of ``scenario`` in ``folder``, made as `bellica campaign new` makes
    it (kept: a second call reuses it)."""
    from bellica.commands.campaign import new

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (scenario.replace("/", "+") + ".duckdb")
    if not path.is_file():
        partial = path.with_suffix(".partial.duckdb")
        with contextlib.redirect_stdout(io.StringIO()):
            new.main(["--scenario", scenario, "--out", str(partial), "--force", "-q"], standalone_mode=False)
        partial.replace(path)
    return path


def case_campaign(case, folder: Path, dest: Path) -> Path:
    """A copy at ``dest`` of ``case``'s campaign, started and ready for its position: made once in
    ``folder`` per scenario, seed and rules (:func:`~bellica.engine.core.cases.start_key`), then
    copied (cases sharing a start do not pay for it again)."""
    import hashlib

    from bellica.engine.core.cases import prepare, start_key

    folder = Path(folder)
    started = folder / f"started-{hashlib.sha256(start_key(case).encode()).hexdigest()[:16]}.duckdb"
    if not started.is_file():
        partial = started.with_suffix(".partial.duckdb")
        shutil.copyfile(scenario_campaign(case.scenario, folder), partial)
        prepare(case, partial)
        partial.replace(started)
    shutil.copyfile(started, dest)
    return dest


@click.group(name="cases")
def group() -> None:
    """The numbered catalogue of adjudication cases of each ruleset (docs/cases.md)."""


@group.command(name="run")
@click.argument("ruleset", required=False)
@click.option("--case", "ids", multiple=True, help="Run only this case number (repeatable), e.g. A.1.")
@click.option("--work", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the scenarios' campaigns (kept and reused); default: a temporary one.")
@click.option("--force", is_flag=True, help="Use a --work folder that holds other files (its case.duckdb is replaced).")
@click.option("-q", "--quiet", is_flag=True, help="Print only the failures and the summary line.")
def run(ruleset: str | None, ids: tuple[str, ...], out_dir: Path | None, force: bool, quiet: bool) -> None:
    """Run the catalogue (of RULESET) against the installed engine: pass or FAIL per case; exit 0
    when every case passes, 1 when any fails.

    Example: bellica cases run rise-of-rome --case A.1 --work build/cases
    """
    from bellica.engine.core.cases import load_catalogue, run_case
    from bellica.geo.errors import InputError

    cases = load_catalogue(ruleset)
    if ids:
        wanted = set(ids)
        missing = sorted(wanted - {c.id for c in cases})
        if missing:
            raise InputError(f"no case {missing[0]} in the catalogue{' of ' + ruleset if ruleset else ''} "
                             "(`bellica cases list` lists them)")
        cases = [c for c in cases if c.id in wanted]
    temp, work = None, out_dir
    if work is not None:
        _claim_work_folder(work, force)
    else:
        temp = tempfile.TemporaryDirectory(prefix="bellica-cases-")
        work = Path(temp.name)
    failed = 0
    try:
        for case in cases:
            copy = case_campaign(case, work, work / "case.duckdb")
            result = run_case(case, copy, prepared=True)
            failed += not result.passed
            if not (quiet and result.passed):
                click.echo(result.line())
    finally:
        if temp is not None:
            temp.cleanup()
    click.echo(f"{len(cases) - failed} of {len(cases)} cases pass" + (f", {failed} fail" if failed else ""))
    if failed:
        raise SystemExit(1)


#: The file that marks a folder as a cases run's own, reused without --force.
WORK_MARK = ".bellica-cases"


def _claim_work_folder(work: Path, force: bool) -> None:
    """Refuse a --work folder holding files of someone else's (a run writes case.duckdb there) unless
    --force; mark it as the catalogue's so the next run reuses it."""
    from bellica.geo.errors import InputError

    if work.is_dir() and any(work.iterdir()) and not (work / WORK_MARK).exists() and not force:
        raise InputError(f"--work {work} holds files a cases run did not write: name an empty or new folder, "
                         "or pass --force to use it (its case.duckdb is replaced)")
    work.mkdir(parents=True, exist_ok=True)
    (work / WORK_MARK).write_text("a folder of `bellica cases run`: scenario campaigns kept for the next run\n")


@group.command(name="list")
@click.argument("ruleset", required=False)
def list_cases(ruleset: str | None) -> None:
    """The catalogue's cases (of RULESET): number, title and the seed's words each tests.

    Example: bellica cases list rise-of-rome
    """
    from bellica.engine.core.cases import load_catalogue

    for case in load_catalogue(ruleset):
        click.echo(f"{case.ruleset} {case.id}: {case.title} [{case.tests}]")
