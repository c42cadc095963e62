"""`bellica simulate`: many games of a ruleset played by the engine, for balance testing (docs/simulate.md).

Which rulesets can be simulated, and how, each ruleset's package declares: ``SIMULATION`` in its
``simulate`` module (:class:`bellica.engine.core.simulate.Simulation`), found through the ruleset
registry, so a ruleset installed as a distribution brings its own studies and this command names
none.  Each run's seed comes from ``--seed`` and the run's index, so the same command gives the
same outcomes on one core, all local cores (the default) or a Dask cluster (``--scheduler``).  On a
terminal a bar counts the runs done (``-q`` hides it; never drawn into a file or a pipe:
:mod:`bellica.geo.progress`).  With ``--out DIR`` it writes ``summary.json`` (the distribution),
``runs.csv`` (one row per run) and ``outcomes.png`` (the chart, :mod:`bellica.web_maps.plots`).
"""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import click

from bellica.commands.options import WHOLE
from bellica.engine.core.simulate import simulations

#: The files written into --out.
OUTPUTS = ("summary.json", "runs.csv", "outcomes.png")
#: The most runs one command plays: a verdict's share is then known within 0.2 points (its standard
#: error is at most 0.16), and 100,000 Rise of Rome campaigns take about half an hour on one core,
#: so a larger number is a typing slip that would run until killed (more: several seeds, summed).
MAX_RUNS = 100_000


def _titles(found, test) -> str:
    """The titles of the declared simulations that pass ``test``, in words."""
    names = [sim.title for sim in found.values() if test(sim)]
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + (names[-1] if names else "none")


def _grouped(found, words) -> str:
    """``words(sim)`` of every declared simulation, the rulesets that share the words named together."""
    groups: dict[str, list[str]] = {}
    for sim in found.values():
        if words(sim):
            groups.setdefault(words(sim), []).append(sim.title)
    return "; ".join(f"{', '.join(titles)}: {text}" for text, titles in groups.items())


def _help(found) -> dict[str, str]:
    """The command's help and its options' help that name rulesets, from their declarations."""
    about = {}
    for name, sim in found.items():
        also = "".join(f", or {a}" for a in sim.aliases)
        about.setdefault(sim.about, []).append(f"{sim.title} ({name}{also})")
    body = "\n\n".join(f"{' and '.join(titles) if len(titles) < 3 else ', '.join(titles)}: {text}"
                       for text, titles in about.items() if text)
    return {
        "command": ("Play RULESET's games RUNS times and report the distribution of outcomes.\n\n" + body
                    + "\n\nSame --seed, same outcomes, whatever --workers or --scheduler.\n\n"
                      "Example: bellica simulate rise-of-rome --runs 1000 --seed 1 --out build/sim"),
        "policy": "Who plays: " + _grouped(found, lambda s: s.policy_help) + ".",
        "nation": (f"{_titles(found, lambda s: s.nation_policies)}: the policy of one nation (repeatable); the others "
                   "play --policy.  Example: --nation-policy Romans=aggressor --nation-policy Gauls=random."),
        "campaign": (f"{_titles(found, lambda s: s.on_campaign)}: a campaign file fresh from `bellica campaign new` "
                     "(never written: each game plays on a copy)."),
        "seat": (f"{_titles(found, lambda s: s.on_campaign)}: the bot of one faction's seat (repeatable); the others "
                 "play --policy (default: heuristic where the ruleset has one, else random)."),
        "rounds": "How long a game lasts: " + ", ".join(s.rounds_help for s in found.values() if s.rounds_help) + ".",
    }


HELP = _help(simulations())


def _check_out(out: Path | None, force: bool) -> None:
    from bellica.geo.errors import InputError

    if out is None:
        return
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: is a file, not a folder: give a folder for the results")
    there = [name for name in OUTPUTS if (out / name).exists()]
    if there and not force:
        raise InputError(f"--out {out}: already holds {', '.join(there)}: give another folder, or --force to replace them")


def _check_flags(sim, options, found) -> None:
    """The flags that do not go with the ruleset's kind of study, in one line naming the fix."""
    from bellica.geo.errors import InputError

    on_campaign = _titles(found, lambda s: s.on_campaign)
    if sim.on_campaign:
        if options.nation_policies or options.rules_file:
            raise InputError(f"{'--nation-policy' if options.nation_policies else '--rules'} is for "
                             f"{_titles(found, lambda s: not s.on_campaign)}: {options.ruleset} plays a campaign file's "
                             "own rules; give seats with --seat FACTION=KIND")
        return
    if options.campaign_file or options.seats or options.length is not None:
        raise InputError(f"--campaign, --seat and --rounds are for {on_campaign}: {options.ruleset} plays its scenario "
                         "as shipped (--policy, --rules)")
    if options.nation_policies and not sim.nation_policies:
        why = sim.one_player or f"{sim.title} takes no --nation-policy"
        raise InputError(f"--nation-policy {options.nation_policies[0]}: {why} (--nation-policy is for "
                         f"{_titles(found, lambda s: s.nation_policies)})")


@click.command(name="simulate", help=HELP["command"])
@click.argument("ruleset", metavar="RULESET")
@click.option("--runs", type=WHOLE, default=1000, show_default=True,
              help=f"How many games to play, 1 to {MAX_RUNS:,}.")
@click.option("--policy", default=None, help=HELP["policy"])
@click.option("--nation-policy", "nation_policies", multiple=True, metavar="NATION=POLICY", help=HELP["nation"])
@click.option("--campaign", "campaign_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=HELP["campaign"])
@click.option("--seat", "seat_items", multiple=True, metavar="FACTION=KIND", help=HELP["seat"])
@click.option("--rounds", "length", type=WHOLE, default=None, help=HELP["rounds"])
@click.option("--seed", type=WHOLE, default=1, show_default=True,
              help="The master seed: each run's seed derives from it and the run's index.")
@click.option("--workers", type=WHOLE, default=None, help="Local worker processes (default: every core; 1: this process).")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="A Dask scheduler (tcp://host:8786) to run on instead of the local cores ('sync': this process).")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A whole rules file of the ruleset's shape (a variant) instead of the shipped rules.")
@click.option("--out", type=click.Path(file_okay=True, path_type=Path), default=None,
              help="Folder for summary.json, runs.csv and outcomes.png.")
@click.option("--force", is_flag=True, help="Replace those files in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON document instead of the report.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (drawn only on a terminal anyway).")
def command(ruleset, runs, policy, nation_policies, campaign_file, seat_items, length, seed, workers, scheduler, rules_file,
            out, force, as_json, quiet):
    from bellica.engine.core.simulate import StudyOptions, simulation_named, summarise
    from bellica.geo.errors import InputError

    ruleset, sim = simulation_named(ruleset)
    if runs < 1:
        raise InputError("--runs 0: give 1 or more campaigns to play")
    if runs > MAX_RUNS:
        raise InputError(f"--runs {runs} is more than {MAX_RUNS:,} campaigns: give at most {MAX_RUNS}, "
                         "or run several --seed values for more")
    if workers is not None and workers < 1:
        raise InputError("--workers 0: give 1 or more worker processes (or leave it out for every core)")
    if workers is not None and scheduler not in (None, "processes", "sync"):
        raise InputError("--workers is for the local cores; a Dask scheduler has its own workers: give one or the other")
    _check_out(out, force)
    options = StudyOptions(ruleset, seed=seed, runs=runs, policy=policy, nation_policies=tuple(nation_policies),
                           rules_file=rules_file, campaign_file=campaign_file, seats=tuple(seat_items), length=length)
    _check_flags(sim, options, simulations())
    study = sim.study(options)

    rows, seconds, where = _run(study.runner, seed, runs, scheduler, workers, quiet, study.what)
    summary = summarise(rows, counts=study.counts, numbers=study.numbers, series=study.series)
    document = {**study.meta, **summary}
    timing = {"where": where, "seconds": round(seconds, 3),
              "runs_per_second": round(runs / seconds, study.rate_digits) if seconds else None}
    written = _write(out, document, rows, study) if out is not None else []
    if as_json:
        from bellica.services.jsonout import echo_json

        echo_json({**document, **timing, "written": [str(p) for p in written]})
        return
    for line in study.lines({**study.meta, **timing}, summary):
        click.echo(line)
    if written:
        click.echo("Wrote " + ", ".join(str(p) for p in written))


def _run(runner, seed: int, runs: int, scheduler, workers, quiet: bool, what: str) -> tuple[list[dict], float, str]:
    """(the rows, seconds taken, where they ran in words); a bar of the runs done on a terminal."""
    from bellica.engine.core.simulate import run_seeds, simulate
    from bellica.geo.progress import counter, progress_bar

    seeds = run_seeds(seed, runs)
    t0 = time.perf_counter()
    with progress_bar(runs, what, "run", enabled=not quiet) as bar:
        rows = simulate(runner, seeds, scheduler=scheduler, workers=workers, progress=counter(bar), quiet=quiet)
    seconds = time.perf_counter() - t0
    if scheduler and scheduler not in ("processes", "sync"):
        where = f"Dask scheduler {scheduler}"
    else:
        n = 1 if scheduler == "sync" else (workers or os.cpu_count() or 1)
        where = "this process" if n == 1 else f"{min(n, runs)} local processes"
    return rows, seconds, where


def _write(out: Path, document: dict, rows: list[dict], study) -> list[Path]:
    """summary.json, runs.csv and the study's chart (a function of :mod:`bellica.web_maps.plots` by name)."""
    from bellica.web_maps import plots

    out.mkdir(parents=True, exist_ok=True)
    summary_path = out / "summary.json"
    summary_path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    runs_path = out / "runs.csv"
    write_runs_csv(rows, runs_path)
    draw = getattr(plots, study.plot)
    args = study.plot_args(document)
    # outcome_plot reads the rows too (the scores' spread); nations_plot only the summary.
    plot_path = (draw(document, rows, out / "outcomes.png", **args) if study.plot == "outcome_plot"
                 else draw(document, out / "outcomes.png", **args))
    return [summary_path, runs_path, plot_path]


def write_runs_csv(rows: list[dict], path: Path) -> None:
    """One row per run; list-valued columns spread over ``NAME_t0``, ``NAME_t1``, ..."""
    if not rows:
        path.write_text("", encoding="utf-8")
        return
    scalar = [k for k, v in rows[0].items() if not isinstance(v, (list, tuple))]
    lists = {k: len(v) for k, v in rows[0].items() if isinstance(v, (list, tuple))}
    header = scalar + [f"{k}_t{i}" for k, n in lists.items() for i in range(n)]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([r[k] for k in scalar] + [r[k][i] if i < len(r[k]) else "" for k, n in lists.items()
                                                 for i in range(n)])
