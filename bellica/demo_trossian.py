"""A scripted phase of the Trossian campaign (the Black Sea, 1806), for a ``make demo``-style run.

:func:`build_demo_campaign` makes the campaign exactly as ``bellica campaign new --scenario
trossian`` does (the map built at the scenario's resolution 4 from the embedded data, the 32
provinces grown from their seats, the ruleset's tables: a few seconds).  :func:`run_demo_phase`
then plays Early Spring 1806 through the functions the ``bellica trossian`` commands call
(:mod:`bellica.engine.trossian.ruleset`), each one step, one transaction:

* **begin**: the year's chance-card schedule is rolled (with the demo's seed, 148, Russia and
  the Danubian Principalities draw a card at once) and the cards are drawn and applied;
* **diplomacy**, in the open: the Porte offers the Khan an alliance and the Khan accepts
  (``bellica trossian ally``: both words make it), so their armies would march together;
* **orders**, sealed until all four nations are done: Russia marches the Army of the Dniester
  by road through Bessarabia into Danubian Moldavia (2 provinces for infantry: 1 + the road
  bonus) and sends a courier from Yedisan with the Tsar's order to the Kuban Corps, riding
  through Bessarabia and the Khan's Budjak; the Ottoman Porte puts a navy out of
  Constantinople and sails it into the Western Black Sea (two of its four actions);
* **resolve**: the orders are carried out: the courier is caught in Budjak (a 1 on the d6,
  then a 1: captured, its message the Khan's), and the armies meet in Moldavia;
* **result**: the battle is "fought on the table": Russia wins, two of its units and three
  Moldavian ones were destroyed or routed; the post-battle attrition rolls follow;
* **end**: pacification, rests, and Mid Spring is next.

Finally the log is replayed against the tables and every step re-adjudicated from the scenario.
"""

from __future__ import annotations

from pathlib import Path

from bellica.demo_common import demo_main, told_lines, with_next
from bellica.engine.core.campaign import Campaign
from bellica.engine.trossian.ruleset import act, ally, engine_step, enter_result, next_decision, state_of
from bellica.geo.errors import InputError

__all__ = ["ALLIANCES", "DEMO_SEED", "ORDERS", "build_demo_campaign", "run_demo_phase"]

DEMO_SEED = 148

#: Each nation's orders in Early Spring 1806: (step, input) as the `bellica trossian` commands give them.
ORDERS = {
    "Russia": [("march", {"army": 1, "path": ["Bessarabia", "Moldavia"]}),
               ("courier", {"courier": 74, "action": "send", "message": "Kuban Corps: hold the Don line until May",
                            "to": "Kuban Corps"}),
               ("courier", {"courier": 74, "action": "move", "path": ["Bessarabia", "Budjak"]})],
    "Ottoman Porte": [("sail", {"navy": 70, "actions": [["put_out"], ["sail", "Western Black Sea"]]})],
}

#: Early Spring 1806's diplomacy, in order: (nation, partner): an offer, then its acceptance.
ALLIANCES = [("Ottoman Porte", "Crimean Khanate"), ("Crimean Khanate", "Ottoman Porte")]


def build_demo_campaign(out: str | Path, *, map_path: str | Path | None = None, force: bool = True) -> Path:
    """A fresh Trossian campaign at ``out`` (on ``map_path``, default: built for the scenario)."""
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.etl.campaign import create_province_campaign
    from bellica.etl.scenario import load_province_scenario

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    scenario = load_province_scenario("trossian")
    if map_path is None:
        from bellica.etl.build import build_map

        map_path = out.with_name(f"trossian-{scenario.resolution}.duckdb")
        build_map(map_path, bbox=scenario.bbox, res=scenario.resolution, force=True, progress=False)
    writer = get_ruleset(scenario.ruleset).write_scenario_folder
    create_province_campaign(scenario, out, fill=lambda con: writer(con, scenario.directory), map_path=map_path,
                             force=force)
    return out


def run_demo_phase(campaign_path: str | Path, *, seed: int = DEMO_SEED) -> list[str]:
    """Start a fresh Trossian campaign and play Early Spring 1806; returns the log in words
    (bookkeeping left out) and the next step.  Raises InputError on a campaign already started."""
    campaign = Path(campaign_path)
    with Campaign.open(campaign) as c:
        if c.has_state():
            raise InputError(f"{campaign} has already started: run the demo on a fresh `bellica campaign new` database")
        c.start(seed=seed)
        engine_step(c, "begin")
        for nation, partner in ALLIANCES:
            ally(c, nation, partner)
        for nation in c.board.nations:
            for step, arg in ORDERS.get(nation, ()):
                act(c, step, nation, **arg)
            act(c, "done", nation)
        engine_step(c, "resolve")
        for battle in state_of(c.snapshot()).battles:
            state = state_of(c.snapshot())
            a, b = ([u.id for i in side for u in state.army(i).units] for side in battle.sides)
            fates = {a[1]: "destroyed", a[2]: "routed", b[1]: "destroyed", b[2]: "routed", b[3]: "routed"}
            enter_result(c, battle.id, "a", fates)
        engine_step(c, "end")
        _step, words = next_decision(c, c.snapshot())
        lines = told_lines(c)
    return with_next(campaign, lines, words)


if __name__ == "__main__":  # python -m bellica.demo_trossian build/trossian.duckdb [MAP]
    demo_main("build/trossian.duckdb", build_demo_campaign, run_demo_phase, "Early Spring 1806 played by four nations")
