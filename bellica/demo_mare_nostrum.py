"""A scripted first turn of Mare Nostrum with all six nations, for a ``make demo``-style run.

:func:`build_demo_campaign` builds the scenario's map at resolution 4 (its bbox, from the
embedded data: a few seconds) unless one is given, and makes the campaign on it exactly as
``bellica campaign new --scenario mare-nostrum`` does (the 38 provinces grown from their
capitals).  :func:`run_demo_turn` then plays turn 1 through the functions the ``bellica turn``
commands call (:mod:`bellica.engine.mare_nostrum.ruleset`), each one step, one transaction:

* **lottery**: the umpire enters the six wheels' "published" numbers, so the order of play is
  Romans, Carthaginians, Macedonians, Ptolemaics, Seleucids, Gauls and the events are Naval
  Technology, Siege Train, Good Harvest, Defensive Artworks, an Invasion (the third number
  sends the Attalids into Seleucid Phrygia, played by the Macedonians) and Administrative
  Reforms; every other number (peace, alliance, sieges) comes from the campaign seed and is
  logged;
* **actions**, each nation in its turn: the Romans try to impose peace on Carthage and cross
  the Strait of Messina into Sicilia; Carthage fortifies Africa and, with its Siege Train,
  attacks Celtiberia from Baetica; Macedon builds suburbs at Pella and marches on independent
  Epirus; the Ptolemies raise Defensive Artworks round Alexandria, put a fleet to sea off
  Cyprus and distribute grain; the Seleucids seek an alliance with the Jewish rebels against
  Ptolemaic Judaea and fortify Syria; the Gauls, with an extra action, cross into Etruria,
  build suburbs in Celtica and distribute grain;
* **battles**: each declared battle's Field of Glory result is entered (the script's
  stand-ins: attackers win at Phrygia, Celtiberia and Epirus, defenders elsewhere), the
  turn ends (sieges drawn where walls stand) and the verdict is given.

Finally the log is replayed against the tables and every step re-adjudicated from the scenario.
"""

from __future__ import annotations

from pathlib import Path

from bellica.demo_common import demo_main, told_lines, with_next
from bellica.engine.core.campaign import Campaign
from bellica.engine.mare_nostrum.ruleset import act, enter_result, enter_wheel, next_decision, run_engine_step, state_of
from bellica.geo.errors import InputError

__all__ = ["ACTIONS", "DEMO_SEED", "RESULTS", "WHEELS", "build_demo_campaign", "run_demo_turn"]

DEMO_SEED = 290  # 290 BC: the campaign begins

#: Turn 1's "published" draws: first number the order of play, second the event, third an invasion's province.
WHEELS = {
    "MI": (88, 57, 14, 3, 61),   # Romans: first; Naval Technology
    "BA": (75, 47, 22, 9, 30),   # Carthaginians: second; Siege Train
    "FI": (61, 78, 5, 40, 2),    # Macedonians: third; Good Harvest
    "GE": (44, 53, 70, 18, 6),   # Ptolemaics: fourth; Defensive Artworks
    "NA": (30, 38, 20, 77, 51),  # Seleucids: fifth; Invasion (20: Phrygia, the first named)
    "CA": (12, 83, 64, 25, 89),  # Gauls: last; Administrative Reforms (+1 action)
}

#: Each nation's actions in its turn: (step, input) as the `bellica turn` commands give them.
ACTIONS = {
    "Romans": [("peace", {"target": "Carthaginians"}), ("attack", {"base": "Bruttium", "target": "Sicilia"})],
    "Carthaginians": [("build", {"work": "fortification", "province": "Africa"}),
                      ("attack", {"base": "Baetica", "target": "Celtiberia"})],
    "Macedonians": [("build", {"work": "suburbs", "province": "Macedonia"}),
                    ("attack", {"base": "Macedonia", "target": "Epirus"})],
    "Ptolemaics": [("artworks", {"province": "Aegyptus"}), ("build", {"work": "fleet", "province": "Cyprus"}),
                   ("grain", {})],
    "Seleucids": [("alliance", {"province": "Judaea"}), ("build", {"work": "fortification", "province": "Syria"})],
    "Gauls": [("attack", {"base": "Gallia Cisalpina", "target": "Etruria"}),
              ("build", {"work": "suburbs", "province": "Celtica"}), ("grain", {})],
}

#: The stand-in Field of Glory results, by province attacked.
RESULTS = {"Phrygia": "attacker", "Sicilia": "defender", "Celtiberia": "attacker", "Epirus": "attacker",
           "Judaea": "defender", "Etruria": "defender"}


def build_demo_campaign(out: str | Path, *, map_path: str | Path | None = None, force: bool = True) -> Path:
    """A fresh Mare Nostrum campaign at ``out`` on ``map_path`` (default: the scenario's bbox built at res 4)."""
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.etl.campaign import create_province_campaign
    from bellica.etl.scenario import load_province_scenario

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    scenario = load_province_scenario("mare-nostrum")
    if map_path is None:
        from bellica.etl.build import build_map

        map_path = out.with_name("mare-nostrum-4.duckdb")
        build_map(map_path, bbox=scenario.bbox, res=4, force=True, progress=False)
    writer = get_ruleset(scenario.ruleset).write_scenario_folder
    create_province_campaign(scenario, out, fill=lambda con: writer(con, scenario.directory), map_path=map_path,
                             force=force)
    return out


def run_demo_turn(campaign_path: str | Path, *, seed: int = DEMO_SEED) -> list[str]:
    """Start a fresh Mare Nostrum campaign and play its first turn with all six nations.

    Returns the turn's event log in words (what ``bellica log`` prints, bookkeeping left out).
    Raises :class:`~bellica.geo.errors.InputError` if the campaign has already started."""
    campaign = Path(campaign_path)
    with Campaign.open(campaign) as c:
        if c.has_state():
            raise InputError(f"{campaign} has already started: run the demo on a fresh `bellica campaign new` database")
        c.start(seed=seed)
        for wheel, numbers in WHEELS.items():
            enter_wheel(c, wheel, numbers)
        run_engine_step(c, "begin")
        for nation in state_of(c.board, c.snapshot()).order:
            for step, arg in ACTIONS[nation]:
                act(c, step, nation, **arg)
            act(c, "done", nation)
        for attack in state_of(c.board, c.snapshot()).attacks:
            enter_result(c, attack.target, RESULTS.get(attack.target, "defender"))
        run_engine_step(c, "end")
        step, words = next_decision(c, c.snapshot())
        lines = told_lines(c)
    return with_next(campaign, lines, words)


if __name__ == "__main__":  # python -m bellica.demo_mare_nostrum build/mare-nostrum.duckdb [MAP]
    demo_main("build/mare-nostrum.duckdb", build_demo_campaign, run_demo_turn, "turn 1 played by six nations")
