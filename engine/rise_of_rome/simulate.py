"""Rise of Rome studies for ``bellica simulate rise-of-rome`` (docs/simulate.md): many campaigns of the
shipped scenario, Rome played by a named policy (:mod:`.policies`), the other powers by the engine.

:data:`SIMULATION` is what the command finds through the ruleset registry
(:class:`~bellica.engine.core.simulate.Simulation`); :func:`study` builds one study from the command's
options.  Every campaign generates Rome's own battles (the rules option ``generate_player_battles``):
that is the departure from the seed every report names (:func:`departures`)."""

from __future__ import annotations

from bellica.engine.core.simulate import Simulation, Study, StudyOptions

__all__ = ["DEPARTURE", "SIMULATION", "departures", "plot_labels", "report_lines", "study", "verdict_words"]

#: The departure from the seed every simulated campaign makes.
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


def plot_labels(document: dict, rules) -> dict:
    """The Rise of Rome words and bounds for ``bellica.web_maps.plots.outcome_plot``."""
    c = rules.civic
    return {"title": (f"Rise of Rome: {document['runs']} campaigns, Rome played by '{document['policy']}', "
                      f"seed {document['seed']} (Rome's battles generated"
                      + (f", Rome {rules.options.player_battle_bonus:+d} in them" if rules.options.player_battle_bonus else "")
                      + ")"),
            "bounds": {"provincial": c.provincial, "italy": c.italy, "assured": c.assured},
            "verdict_labels": verdict_words(rules), "score": "civic", "score_label": "final Civic Development",
            "series": "provinces", "series_label": "provinces Rome holds"}


def report_lines(meta: dict, summary: dict, words: dict[str, str]) -> list[str]:
    """The report: who played, the departures, the verdicts, Civic Development, the turns, the provinces."""
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


def study(options: StudyOptions) -> Study:
    """``options.runs`` campaigns, Rome played by ``options.policy`` (default :data:`.policies.DEFAULT_POLICY`),
    under ``options.rules_file`` (a whole rules file) or the shipped rules, Rome's battles generated."""
    from .policies import DEFAULT_POLICY, VERDICT_ORDER, CampaignRunner, make_policy, simulation_rules
    from .rules import rules_from_file
    from .scenario import load_scenario

    policy = options.policy or DEFAULT_POLICY  # the ruleset's own default (prudent)
    make_policy(policy, 0)  # an unknown name: one line naming the choices
    rules = simulation_rules(rules_from_file(options.rules_file) if options.rules_file else None)
    meta = {"ruleset": options.ruleset, "policy": policy, "seed": options.seed, "runs": options.runs,
            "turns": rules.game.turns, "seeds": "run i's seed: rng.stream(seed, 'simulate-run', i).getrandbits(63)",
            "rules": str(options.rules_file) if options.rules_file else "shipped", "departures": departures(rules),
            "verdict_bounds": {"assured": rules.civic.assured, "italy": rules.civic.italy,
                               "provincial": rules.civic.provincial}}
    words = verdict_words(rules)
    return Study(CampaignRunner(policy, rules, load_scenario()), "campaigns", meta,
                 counts={"verdict": VERDICT_ORDER}, numbers=("civic", "turns", "final_provinces"),
                 series=("provinces", "civic_by_turn"), lines=lambda m, s: report_lines(m, s, words),
                 plot="outcome_plot", plot_args=lambda document: plot_labels(document, rules))


#: What ``bellica simulate rise-of-rome`` plays (engine/core/simulate.py).
SIMULATION = Simulation(
    "Rise of Rome",
    "Rome's policy: prudent (default), builder, conqueror (= weakest-neighbour) or random", study,
    about="the engine plays every power and a named policy plays Rome: prudent (the default: defend to the next "
          "20-point step when attacked, else attack the weakest neighbour with 20 when it can, retake lost homes), "
          "builder (no attacks, all revenue to Civic Improvement), conqueror (attack the weakest neighbour every turn) "
          "or random (a random legal player).  Rome's battles are generated like the others' (a departure from the "
          "seed, which plays them on the table; the report says so).",
    one_player="Rise of Rome has one player, Rome: give its policy with --policy")
