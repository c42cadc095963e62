"""`bellica simulate`: many campaigns of a ruleset played by the engine, for balance testing (docs/simulate.md).

The engine plays every power; a named policy plays the player.  Each run's seed comes from
``--seed`` and the run's index, so the same command gives the same outcomes on one core, all
local cores (the default) or a Dask cluster (``--scheduler``).  On a terminal a bar counts the
runs done (``-q`` hides it; never drawn into a file or a pipe: :mod:`bellica.geo.progress`).  With
``--out DIR`` it writes ``summary.json`` (the distribution), ``runs.csv`` (one row per run) and
``outcomes.png`` (the chart, :func:`bellica.web_maps.plots.outcome_plot`).
"""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import click

from bellica.commands.options import WHOLE

#: Rulesets that can be simulated, with what the report says of them.
RULESETS = ("rise-of-rome", "mare-nostrum", "vae-victis-ii", "magna-graecia", "trossian")
#: The rulesets played on a campaign file by engine players (--campaign): the module of their games,
#: what --rounds counts, its default (None: the game's own length, in the words that follow), the
#: score a game is won by, and the row's key of how long the game lasted.
CAMPAIGN_RULESETS = {
    "vae-victis-ii": ("bellica.engine.vae_victis.simulate", "round", 5, "", "VP", "round"),
    "magna-graecia": ("bellica.engine.magna_graecia.simulate", "turn", None, "the season's own end", "VP", "turns"),
    "trossian": ("bellica.engine.trossian.simulate", "round", None, "ten years", "provinces", "years"),
}
#: What a game's row keeps per round/turn/year, per faction: (the row key's prefix, the chart's words).
SERIES = {"vae-victis-ii": ("held_by_round_", "towns and cities held", "round"),
          "magna-graecia": ("vp_by_turn_", "victory points", "turn"),
          "trossian": ("provinces_by_year_", "provinces held", "year")}
#: A ruleset's name as typed -> its registered name.
ALIASES = {"vae-victis": "vae-victis-ii"}
#: The files written into --out.
OUTPUTS = ("summary.json", "runs.csv", "outcomes.png")
#: The most runs one command plays: a verdict's share is then known within 0.2 points (its standard
#: error is at most 0.16), and 100,000 Rise of Rome campaigns take about half an hour on one core,
#: so a larger number is a typing slip that would run until killed (more: several seeds, summed).
MAX_RUNS = 100_000

#: Rise of Rome: the departure from the seed every simulated campaign makes.
DEPARTURE = ("Rome's own battles (and its Subjects') are generated like every other battle, not played on "
             "the table as the seed has them: the rules option generate_player_battles is on")


def departures(rules) -> list[str]:
    """Every departure from the seed the simulated campaigns make (the generated battles; Rome's
    edge in them when the rules option player_battle_bonus is not 0)."""
    out = [DEPARTURE]
    edge = rules.options.player_battle_bonus
    if edge:
        out.append(f"Rome's side adds {edge:+d} to its score in every generated battle of Rome's (or its Subjects'), "
                   "standing for the player's skill at the table: the rules option player_battle_bonus is not 0")
    return out


def verdict_words(rules) -> dict[str, str]:
    """Each verdict with its Civic Development band, from the rules (option band_180 included)."""
    c = rules.civic
    italy_low = c.italy if rules.options.band_180 == "italy" else c.italy + 1
    return {"assured": f"assured ({c.assured}+)", "italy": f"Italy ({italy_low}-{c.assured - 1})",
            "provincial": f"provincial ({c.provincial + 1}-{italy_low - 1})",
            "disappear": f"disappear (<={c.provincial})", "disgrace": "disgrace (homes lost)"}


def _check_out(out: Path | None, force: bool) -> None:
    from bellica.geo.errors import InputError

    if out is None:
        return
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: is a file, not a folder: give a folder for the results")
    there = [name for name in OUTPUTS if (out / name).exists()]
    if there and not force:
        raise InputError(f"--out {out}: already holds {', '.join(there)}: give another folder, or --force to replace them")


def _rise_of_rome(policy: str, rules_file: Path | None):
    """(the runner, the rules used)"""
    from bellica.engine.rise_of_rome.policies import CampaignRunner, make_policy, simulation_rules
    from bellica.engine.rise_of_rome.rules import rules_from_file
    from bellica.engine.rise_of_rome.scenario import load_scenario

    make_policy(policy, 0)  # an unknown name: one line naming the choices
    rules = simulation_rules(rules_from_file(rules_file) if rules_file else None)
    return CampaignRunner(policy, rules, load_scenario()), rules


def _report_lines(meta: dict, summary: dict, words: dict[str, str]) -> list[str]:
    lines = [f"Rise of Rome: {summary['runs']} campaigns, policy {meta['policy']}, seed {meta['seed']}, "
             f"{meta['where']}: {meta['seconds']:.1f} s ({meta['runs_per_second']:.1f} runs/s)",
             *(f"Departure from the seed: {d}." for d in meta["departures"])]
    verdicts = summary["counts"]["verdict"]
    lines.append("Verdicts: " + ", ".join(f"{words.get(k, k)} {v['runs']} ({(v['share'] or 0) * 100:.1f}%)"
                                          for k, v in verdicts.items()))
    c = summary["numbers"]["civic"]
    if c["n"]:
        lines.append(f"Civic Development: median {c['median']:g}, 10-90% {c['p10']:g} to {c['p90']:g}, "
                     f"mean {c['mean']:g}, range {c['min']:g} to {c['max']:g}")
    t = summary["numbers"]["turns"]
    if t["n"]:
        lines.append(f"Turns played: median {t['median']:g}, mean {t['mean']:g} (fewer than {meta['turns']}: Rome lost all its homes)")
    per_turn = summary["series"]["provinces"]
    if per_turn:
        lines.append("Provinces held per turn, median [10-90%]: " + ", ".join(
            f"{p['index']}: {p['median']:g} [{p['p10']:g}-{p['p90']:g}]" for p in per_turn))
    return lines


@click.command(name="simulate")
@click.argument("ruleset", metavar="RULESET")
@click.option("--runs", type=WHOLE, default=1000, show_default=True,
              help=f"How many campaigns to play, 1 to {MAX_RUNS:,}.")
@click.option("--policy", default=None,
              help="Who plays: Rise of Rome's Rome: prudent (default), builder, conqueror (= weakest-neighbour) or "
                   "random; Mare Nostrum's six nations: builder (default), aggressor, diplomat or random; Vae Victis II, "
                   "Magna Graecia, Trossian: every seat's bot kind (default heuristic where the ruleset has one, "
                   "else random; docs/bots.md).")
@click.option("--nation-policy", "nation_policies", multiple=True, metavar="NATION=POLICY",
              help="Mare Nostrum: the policy of one nation (repeatable); the others play --policy. "
                   "Example: --nation-policy Romans=aggressor --nation-policy Gauls=random.")
@click.option("--campaign", "campaign_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Vae Victis II, Magna Graecia, Trossian: a campaign file fresh from `bellica campaign new` "
                   "(never written: each game plays on a copy).")
@click.option("--seat", "seat_items", multiple=True, metavar="FACTION=KIND",
              help="Vae Victis II, Magna Graecia, Trossian: the bot of one faction's seat (repeatable); the others "
                   "play --policy (default: heuristic where the ruleset has one, else random).")
@click.option("--rounds", "length", type=WHOLE, default=None,
              help="How long a game lasts: Vae Victis II rounds (default 5), Trossian rounds, a phase or winter "
                   "quarters each (default: ten years), Magna Graecia campaign turns (default: the season's own end).")
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
    """Play RULESET's campaign RUNS times and report the distribution of outcomes.

    The engine plays every power and a named policy plays Rome: prudent (the default: defend to
    the next 20-point step when attacked, else attack the weakest neighbour with 20 when it can,
    retake lost homes), builder (no attacks, all revenue to Civic Improvement), conqueror (attack
    the weakest neighbour every turn) or random (a random legal player).  Rome's battles are generated like the others' (a departure from the
    seed, which plays them on the table; the report says so).  Same --seed, same outcomes,
    whatever --workers or --scheduler.

    Mare Nostrum (mare-nostrum): the policy plays all six nations (builder, aggressor, diplomat
    or random), or each --nation-policy NATION=POLICY its nation, each battle decided by a
    seeded die (a departure from the seed, which fights them in Field of Glory).

    Vae Victis II (vae-victis-ii), Magna Graecia (magna-graecia) and the Trossian campaign
    (trossian) are played on --campaign FILE, a fresh `bellica campaign new` file: every seat by
    an engine player (--policy for all, --seat FACTION=KIND for one), the umpire's steps by the
    engine, each battle by a seeded generator (a departure from the seed: the report says so).

    Example: bellica simulate rise-of-rome --runs 1000 --seed 1 --out build/sim
    """
    from bellica.engine.core.simulate import summarise
    from bellica.engine.rise_of_rome.policies import DEFAULT_POLICY, VERDICT_ORDER
    from bellica.geo.errors import InputError

    ruleset = ALIASES.get(ruleset, ruleset)
    if ruleset not in RULESETS:
        raise InputError(f"no simulation for the ruleset {ruleset!r}: choose one of {', '.join(RULESETS)}")
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
    if ruleset in CAMPAIGN_RULESETS:
        if nation_policies or rules_file:
            raise InputError(f"{'--nation-policy' if nation_policies else '--rules'} is for Rise of Rome and Mare Nostrum: "
                             f"{ruleset} plays a campaign file's own rules; give seats with --seat FACTION=KIND")
        return _campaign_command(ruleset, runs, policy, seat_items, campaign_file, length, seed, workers, scheduler,
                                 out, as_json, quiet)
    if campaign_file or seat_items or length is not None:
        raise InputError("--campaign, --seat and --rounds are for Vae Victis II, Magna Graecia and Trossian: "
                         f"{ruleset} plays its scenario as shipped (--policy, --rules)")
    if ruleset == "mare-nostrum":
        return _mare_nostrum_command(runs, policy, nation_policies, seed, workers, scheduler, rules_file, out, as_json,
                                     quiet)
    if nation_policies:
        raise InputError(f"--nation-policy {nation_policies[0]}: Rise of Rome has one player, Rome: give its policy "
                         "with --policy (--nation-policy is for Mare Nostrum's nations)")
    policy = policy or DEFAULT_POLICY  # each ruleset names its own default (Rise of Rome: prudent)
    runner, rules = _rise_of_rome(policy, rules_file)

    rows, seconds, where = _run(runner, seed, runs, scheduler, workers, quiet, "campaigns")
    summary = summarise(rows, counts={"verdict": VERDICT_ORDER}, numbers=("civic", "turns", "final_provinces"),
                        series=("provinces", "civic_by_turn"))
    meta = {"ruleset": ruleset, "policy": policy, "seed": seed, "runs": runs, "turns": rules.game.turns,
            "seeds": "run i's seed: rng.stream(seed, 'simulate-run', i).getrandbits(63)",
            "rules": str(rules_file) if rules_file else "shipped", "departures": departures(rules),
            "verdict_bounds": {"assured": rules.civic.assured, "italy": rules.civic.italy,
                               "provincial": rules.civic.provincial}}
    document = {**meta, **summary}
    timing = {"where": where, "seconds": round(seconds, 3), "runs_per_second": round(runs / seconds, 2) if seconds else None}

    written = []
    if out is not None:
        written = _write(out, document, rows, rules)
    if as_json:
        from bellica.services.jsonout import echo_json

        echo_json({**document, **timing, "written": [str(p) for p in written]})
        return
    for line in _report_lines({**meta, **timing}, summary, verdict_words(rules)):
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


# --- Mare Nostrum ----------------------------------------------------------------------------


def nation_policy_pairs(given, nations, default: str) -> dict[str, str]:
    """``--nation-policy NATION=POLICY`` values -> nation -> policy for every nation (the others
    ``default``); a value without '=', an unknown nation or policy: one line naming the choices."""
    from bellica.engine.mare_nostrum.policies import resolve_policies
    from bellica.geo.errors import InputError

    pairs = {}
    for text in given:
        nation, sep, name = str(text).partition("=")
        if not sep or not nation.strip() or not name.strip():
            raise InputError(f"--nation-policy {text!r}: give NATION=POLICY, e.g. --nation-policy Romans=aggressor")
        pairs[nation.strip()] = name.strip()
    return resolve_policies(pairs, nations, default)


def _mare_nostrum_command(runs, policy, nation_policies, seed, workers, scheduler, rules_file, out, as_json,
                          quiet) -> None:
    from bellica.engine.core.simulate import summarise
    from bellica.engine.mare_nostrum.policies import DEFAULT_POLICY, DEPARTURE, GameRunner, make_policy, policy_label
    from bellica.engine.mare_nostrum.rules import default_rules, rules_from_file
    from bellica.engine.mare_nostrum.scenario import default_scenario

    policy = policy or DEFAULT_POLICY
    make_policy(policy, 0)  # an unknown name: one line naming the choices
    nations = list(default_scenario().nations)
    names = nation_policy_pairs(nation_policies, nations, policy)
    label = policy_label(names)
    rules = rules_from_file(rules_file) if rules_file else default_rules()
    played = label if len(set(names.values())) == 1 else tuple(names.items())
    rows, seconds, where = _run(GameRunner(played, rules if rules_file else None), seed, runs, scheduler, workers,
                                quiet, "games")
    summary = summarise(rows, counts={"winner": nations + ["none"]}, numbers=("turns", *(f"final_{n}" for n in nations)),
                        series=tuple(f"provinces_{n}" for n in nations))
    meta = {"ruleset": "mare-nostrum", "policy": label, "policies": names, "seed": seed, "runs": runs,
            "turns": rules.game.turns,
            "nations": nations, "seeds": "run i's seed: rng.stream(seed, 'simulate-run', i).getrandbits(63)",
            "rules": str(rules_file) if rules_file else "shipped", "departures": [DEPARTURE]}
    document = {**meta, **summary}
    timing = {"where": where, "seconds": round(seconds, 3), "runs_per_second": round(runs / seconds, 2) if seconds else None}
    written = []
    if out is not None:
        from bellica.web_maps.plots import nations_plot

        out.mkdir(parents=True, exist_ok=True)
        summary_path = out / "summary.json"
        summary_path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        runs_path = out / "runs.csv"
        write_runs_csv(rows, runs_path)
        title = (f"Mare Nostrum: {runs} games, {_played_by(names)}, seed {seed} "
                 "(battles decided by a seeded die)")
        plot_path = nations_plot(document, out / "outcomes.png", title=title, nations=nations)
        written = [summary_path, runs_path, plot_path]
    if as_json:
        from bellica.services.jsonout import echo_json

        echo_json({**document, **timing, "written": [str(p) for p in written]})
        return
    for line in _mare_nostrum_lines({**meta, **timing}, summary, nations):
        click.echo(line)
    if written:
        click.echo("Wrote " + ", ".join(str(p) for p in written))


def _played_by(names: dict[str, str]) -> str:
    """Who plays, in words: "policy builder for every nation", or "policies Gauls random, Romans
    diplomat, the others builder" (the others: the policy most nations play)."""
    counts: dict[str, int] = {}
    for p in names.values():
        counts[p] = counts.get(p, 0) + 1
    if len(counts) == 1:
        return f"policy {next(iter(counts))} for every nation"
    common = max(counts, key=lambda p: counts[p])
    if counts[common] == 1:
        return "policies " + ", ".join(f"{n} {p}" for n, p in names.items())
    return "policies " + ", ".join(f"{n} {p}" for n, p in names.items() if p != common) + f", the others {common}"


def _mare_nostrum_lines(meta: dict, summary: dict, nations: list[str]) -> list[str]:
    lines = [f"Mare Nostrum: {summary['runs']} games, {_played_by(meta['policies'])}, seed {meta['seed']}, "
             f"{meta['where']}: {meta['seconds']:.1f} s ({meta['runs_per_second']:.1f} runs/s)",
             *(f"Departure from the seed: {d}." for d in meta["departures"])]
    wins = summary["counts"]["winner"]
    lines.append("Wins: " + ", ".join(f"{k} {v['runs']} ({(v['share'] or 0) * 100:.1f}%)" for k, v in wins.items()))
    t = summary["numbers"]["turns"]
    if t["n"]:
        lines.append(f"Turns played: median {t['median']:g}, mean {t['mean']:g}, range {t['min']:g} to {t['max']:g} "
                     f"(past {meta['turns']}: tied leaders play on)")
    lines.append("Provinces held per turn, median [10-90%]:")
    for n in nations:
        per_turn = summary["series"][f"provinces_{n}"]
        lines.append(f"  {n}: " + ", ".join(f"{p['index']}: {p['median']:g} [{p['p10']:g}-{p['p90']:g}]"
                                             for p in per_turn))
    return lines


def _write(out: Path, document: dict, rows: list[dict], rules) -> list[Path]:
    from bellica.web_maps.plots import outcome_plot

    out.mkdir(parents=True, exist_ok=True)
    summary_path = out / "summary.json"
    summary_path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    runs_path = out / "runs.csv"
    write_runs_csv(rows, runs_path)
    plot_path = outcome_plot(document, rows, out / "outcomes.png", **plot_labels(document, rules))
    return [summary_path, runs_path, plot_path]


def plot_labels(document: dict, rules) -> dict:
    """The Rise of Rome words and bounds for :func:`bellica.web_maps.plots.outcome_plot`."""
    c = rules.civic
    return {"title": (f"Rise of Rome: {document['runs']} campaigns, Rome played by '{document['policy']}', "
                      f"seed {document['seed']} (Rome's battles generated"
                      + (f", Rome {rules.options.player_battle_bonus:+d} in them" if rules.options.player_battle_bonus else "")
                      + ")"),
            "bounds": {"provincial": c.provincial, "italy": c.italy, "assured": c.assured},
            "verdict_labels": verdict_words(rules), "score": "civic", "score_label": "final Civic Development",
            "series": "provinces", "series_label": "provinces Rome holds"}


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


# --- the rulesets played on a campaign file: Vae Victis II, Magna Graecia, Trossian ----------------------------


def seated_factions(campaign_file: Path, ruleset: str) -> list[str]:
    """The factions a game seats: those with armies placed (Vae Victis II: a faction holding only
    structures, the First Punic War's Syracusae, gives no orders), else every faction.  A file of
    another ruleset, or one already started, is one line naming the fix."""
    from bellica.engine.core.campaign import Campaign
    from bellica.geo.errors import InputError

    with Campaign.open(campaign_file, read_only=True) as c:
        if c.ruleset.name != ruleset:
            raise InputError(f"--campaign {campaign_file} is a {c.ruleset.name} campaign: give a {ruleset} one "
                             f"(`bellica campaign new --scenario ...`) or simulate {c.ruleset.name}")
        if c.has_state():
            raise InputError(f"--campaign {campaign_file} has already started: give a fresh `bellica campaign new` file")
        if ruleset == "vae-victis-ii":
            return [f for (f,) in c.con.execute("SELECT DISTINCT faction FROM placements ORDER BY faction").fetchall()]
        return list(c.ruleset.factions(c))


def _seats(ruleset: str, campaign_file: Path, policy: str | None, seat_items) -> dict[str, str]:
    from bellica.engine.core.names import one_named
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.engine.core.simulate import seat_kinds
    from bellica.geo.errors import InputError

    factions = seated_factions(campaign_file, ruleset)
    given = {}
    for item in seat_items:
        name, sep, kind = str(item).partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise InputError(f"--seat {item!r}: give FACTION=KIND, e.g. --seat {factions[0]}=heuristic")
        given[one_named(name.strip(), factions, what="faction", where="--seat")] = kind.strip().lower()
    return seat_kinds(get_ruleset(ruleset), given, factions, policy)


def _campaign_command(ruleset, runs, policy, seat_items, campaign_file, length, seed, workers, scheduler, out, as_json,
                      quiet) -> None:
    import importlib

    from bellica.engine.core.simulate import summarise
    from bellica.geo.errors import InputError

    module_name, unit, default_length, length_words, score, span = CAMPAIGN_RULESETS[ruleset]
    if campaign_file is None:
        raise InputError(f"{ruleset} is played on a campaign file: give --campaign FILE, a fresh "
                         f"`bellica campaign new --scenario ...` file")
    if length is not None and length < 1:
        raise InputError(f"--rounds {length}: give 1 or more {unit}s")
    seats = _seats(ruleset, campaign_file, policy, seat_items)
    length = length if length is not None else default_length
    module = importlib.import_module(module_name)
    runner = module.GameRunner(str(campaign_file.resolve()), tuple(seats.items()), length)
    rows, seconds, where = _run(runner, seed, runs, scheduler, workers, quiet, "games")
    factions = list(seats)
    prefix, series_words, per = SERIES[ruleset]
    summary = summarise(rows, counts={"winner": factions + ["tie"], "how": ()},
                        numbers=("margin", span, *(f"{'vp' if score == 'VP' else 'provinces'}_{f}" for f in factions)),
                        series=tuple(prefix + f for f in factions))
    meta = {"ruleset": ruleset, "campaign": str(campaign_file), "seats": seats, "seed": seed, "runs": runs,
            "length": {"unit": unit, "limit": length, "otherwise": length_words},
            "seeds": "run i's seed: rng.stream(seed, 'simulate-run', i).getrandbits(63)",
            "departures": [module.DEPARTURE]}
    document = {**meta, **summary}
    timing = {"where": where, "seconds": round(seconds, 3), "runs_per_second": round(runs / seconds, 3) if seconds else None}
    written = _write_campaign_study(out, document, rows, ruleset, factions, unit) if out is not None else []
    if as_json:
        from bellica.services.jsonout import echo_json

        echo_json({**document, **timing, "written": [str(p) for p in written]})
        return
    for line in _campaign_lines({**meta, **timing}, summary, factions, span, score, series_words, per, prefix):
        click.echo(line)
    if written:
        click.echo("Wrote " + ", ".join(str(p) for p in written))


def _campaign_title(document: dict, ruleset: str) -> str:
    seats = ", ".join(f"{f} {k}" for f, k in document["seats"].items())
    return f"{ruleset}: {document['runs']} games, {seats}, seed {document['seed']} (battles by a seeded generator)"


def _write_campaign_study(out: Path, document: dict, rows: list[dict], ruleset: str, factions: list[str],
                          unit: str) -> list[Path]:
    from bellica.web_maps.plots import nations_plot

    out.mkdir(parents=True, exist_ok=True)
    summary_path = out / "summary.json"
    summary_path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    runs_path = out / "runs.csv"
    write_runs_csv(rows, runs_path)
    prefix, words, per = SERIES[ruleset]
    plot_path = nations_plot(document, out / "outcomes.png", title=_campaign_title(document, ruleset), nations=factions,
                             series_prefix=prefix, series_label=words, index_label=f"{per} (0: after the first)")
    return [summary_path, runs_path, plot_path]


def _campaign_lines(meta: dict, summary: dict, factions: list[str], span: str, score: str, series_words: str,
                    per: str, prefix: str) -> list[str]:
    seats = ", ".join(f"{f} {k}" for f, k in meta["seats"].items())
    limit = meta["length"]["limit"]
    unit = meta["length"]["unit"]
    lines = [f"{meta['ruleset']}: {summary['runs']} games on {meta['campaign']}, {seats}, seed {meta['seed']}, "
             f"{meta['where']}: {meta['seconds']:.1f} s ({meta['runs_per_second']:.2f} games/s)",
             f"Each game: at most {limit} {unit}{'' if limit == 1 else 's'}" if limit else f"Each game: {meta['length']['otherwise']}",
             *(f"Departure from the seed: {d}." for d in meta["departures"])]
    wins = summary["counts"]["winner"]
    lines.append("Wins: " + ", ".join(f"{k} {v['runs']} ({(v['share'] or 0) * 100:.1f}%)" for k, v in wins.items()))
    lines.append("How: " + ", ".join(f"{k} {v['runs']}" for k, v in summary["counts"]["how"].items()))
    for key, words in ((span, f"{span} played" if span != "round" else "ended in round"),
                       ("margin", f"winner's lead ({score})")):
        n = summary["numbers"][key]
        if n["n"]:
            lines.append(f"{words[0].upper() + words[1:]}: median {n['median']:g}, 10-90% {n['p10']:g} to {n['p90']:g}, "
                         f"mean {n['mean']:g}, range {n['min']:g} to {n['max']:g}")
    for f in factions:
        n = summary["numbers"][f"{'vp' if score == 'VP' else 'provinces'}_{f}"]
        if n["n"]:
            lines.append(f"{f} {score} at the end: median {n['median']:g}, mean {n['mean']:g}, range {n['min']:g} to {n['max']:g}")
    lines.append(f"{series_words[0].upper() + series_words[1:]} after each {per}, median [10-90%]:")
    for f in factions:
        per = summary["series"][prefix + f]
        lines.append(f"  {f}: " + ", ".join(f"{p['index'] + 1}: {p['median']:g} [{p['p10']:g}-{p['p90']:g}]" for p in per))
    return lines
