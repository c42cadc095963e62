"""Mare Nostrum studies for ``bellica simulate mare-nostrum`` (docs/simulate.md): many games of the
shipped scenario, every nation played by a named policy (:mod:`.policies`), one for all or one per
nation (``--nation-policy NATION=POLICY``).

:data:`SIMULATION` is what the command finds through the ruleset registry
(:class:`~bellica.engine.core.simulate.Simulation`); :func:`study` builds one study from the command's
options.  Each declared battle is decided by a seeded die (:data:`.policies.DEPARTURE`)."""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.simulate import Simulation, Study, StudyOptions
from bellica.geo.errors import InputError

__all__ = ["SIMULATION", "nation_policy_pairs", "played_by", "report_lines", "study"]


def nation_policy_pairs(given, nations, default: str) -> dict[str, str]:
    """``--nation-policy NATION=POLICY`` values -> nation -> policy for every nation (the others
    ``default``); a value without '=', an unknown nation or policy: one line naming the choices."""
    from .policies import resolve_policies

    pairs = {}
    for text in given:
        nation, sep, name = str(text).partition("=")
        if not sep or not nation.strip() or not name.strip():
            raise InputError(f"--nation-policy {text!r}: give NATION=POLICY, e.g. --nation-policy Romans=aggressor")
        pairs[nation.strip()] = name.strip()
    return resolve_policies(pairs, nations, default)


def played_by(names: Mapping[str, str]) -> str:
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


def report_lines(meta: dict, summary: dict, nations: list[str]) -> list[str]:
    """The report: who played, the departure, the wins, the turns played, each nation's provinces."""
    lines = [f"Mare Nostrum: {summary['runs']} games, {played_by(meta['policies'])}, seed {meta['seed']}, "
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


def study(options: StudyOptions) -> Study:
    """``options.runs`` games, every nation played by ``options.policy`` (default
    :data:`.policies.DEFAULT_POLICY`) or its ``--nation-policy``, under ``options.rules_file`` or the
    shipped rules."""
    from .policies import DEFAULT_POLICY, DEPARTURE, GameRunner, make_policy, policy_label
    from .rules import default_rules, rules_from_file
    from .scenario import default_scenario

    policy = options.policy or DEFAULT_POLICY
    make_policy(policy, 0)  # an unknown name: one line naming the choices
    nations = list(default_scenario().nations)
    names = nation_policy_pairs(options.nation_policies, nations, policy)
    label = policy_label(names)
    rules = rules_from_file(options.rules_file) if options.rules_file else default_rules()
    played = label if len(set(names.values())) == 1 else tuple(names.items())
    meta = {"ruleset": options.ruleset, "policy": label, "policies": names, "seed": options.seed, "runs": options.runs,
            "turns": rules.game.turns, "nations": nations,
            "seeds": "run i's seed: rng.stream(seed, 'simulate-run', i).getrandbits(63)",
            "rules": str(options.rules_file) if options.rules_file else "shipped", "departures": [DEPARTURE]}
    title = (f"Mare Nostrum: {options.runs} games, {played_by(names)}, seed {options.seed} "
             "(battles decided by a seeded die)")
    return Study(GameRunner(played, rules if options.rules_file else None), "games", meta,
                 counts={"winner": nations + ["none"]}, numbers=("turns", *(f"final_{n}" for n in nations)),
                 series=tuple(f"provinces_{n}" for n in nations), lines=lambda m, s: report_lines(m, s, nations),
                 plot="nations_plot", plot_args=lambda document: {"title": title, "nations": nations})


#: What ``bellica simulate mare-nostrum`` plays (engine/core/simulate.py).
SIMULATION = Simulation(
    "Mare Nostrum", "the six nations' policy: builder (default), aggressor, diplomat or random", study,
    about="the policy plays all six nations (builder, aggressor, diplomat or random), or each --nation-policy "
          "NATION=POLICY its nation, each battle decided by a seeded die (a departure from the seed, which fights "
          "them in Field of Glory).",
    nation_policies=True)
