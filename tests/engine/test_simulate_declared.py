"""`bellica simulate` finds what it plays through the ruleset registry (issue 20): each ruleset's package
declares its studies (``<package>.simulate.SIMULATION``), and a ruleset the command has never heard
of, living only in this test's folder, is simulated without an edit of bellica/commands/simulate.py."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from bellica.engine.core.simulate import simulation_named, simulations
from bellica.geo.errors import InputError
from tests.cli.test_round_cli import bellica


def test_the_five_rulesets_declare_their_studies():
    found = simulations()
    assert {"rise-of-rome", "mare-nostrum", "vae-victis-ii", "magna-graecia", "trossian"} <= set(found)
    on_campaign = {name for name, sim in found.items() if sim.on_campaign}
    assert on_campaign == {"vae-victis-ii", "magna-graecia", "trossian"}
    assert [name for name, sim in found.items() if sim.nation_policies] == ["mare-nostrum"]
    assert simulation_named("vae-victis")[0] == "vae-victis-ii"  # the alias the ruleset declares
    with pytest.raises(InputError, match="no simulation for the ruleset 'rome': choose one of .*rise-of-rome"):
        simulation_named("rome")


SIXTH_RULESET = '''
from bellica.engine.core.ruleset import Ruleset


class Sixth(Ruleset):
    name = "sixth-simulated"


SIXTH = Sixth()
'''

SIXTH_SIMULATE = '''
from dataclasses import dataclass

from bellica.engine.core.simulate import Simulation, Study


@dataclass(frozen=True)
class Coin:
    """A picklable seed -> row: the side whose coin shows heads first."""

    def __call__(self, seed):
        heads = seed % 2
        return {"winner": "heads" if heads else "tails", "tosses": seed % 5 + 1,
                "provinces_heads": [heads, heads], "provinces_tails": [1 - heads, 1 - heads]}


def study(options):
    meta = {"ruleset": options.ruleset, "seed": options.seed, "runs": options.runs, "departures": []}
    return Study(Coin(), "tosses", meta, counts={"winner": ("heads", "tails")}, numbers=("tosses",),
                 series=("provinces_heads", "provinces_tails"),
                 lines=lambda m, s: [f"Sixth: {s['runs']} tosses, {m['where']}"],
                 plot="nations_plot", plot_args=lambda doc: {"title": "coins", "nations": ["heads", "tails"]})


SIMULATION = Simulation("Sixth", "nobody chooses", study, about="a coin is tossed.", aliases=("sixth",))
'''


def test_a_ruleset_outside_bellica_brings_its_own_study(tmp_path, monkeypatch, capsys):
    from bellica.engine.core import ruleset as registry

    package = tmp_path / "sixth_simulated"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ruleset.py").write_text(textwrap.dedent(SIXTH_RULESET))
    (package / "simulate.py").write_text(textwrap.dedent(SIXTH_SIMULATE))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("sixth_simulated", "sixth_simulated.ruleset", "sixth_simulated.simulate"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    from sixth_simulated.ruleset import SIXTH

    monkeypatch.setitem(registry._REGISTRY, SIXTH.name, SIXTH)  # as its entry point would register it
    code, out, err = bellica(capsys, "simulate", "sixth", "--runs", 4, "--seed", 2, "--workers", 1, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["ruleset"] == "sixth-simulated" and doc["runs"] == 4 and doc["where"] == "this process"
    assert sum(v["runs"] for v in doc["counts"]["winner"].values()) == 4 and doc["numbers"]["tosses"]["n"] == 4
    code, out, err = bellica(capsys, "simulate", "sixth-simulated", "--runs", 2, "--workers", 1, "--out", tmp_path / "o")
    assert code == 0, err
    assert out.startswith("Sixth: 2 tosses, this process") and (tmp_path / "o" / "outcomes.png").exists()
    # Flags of another kind of study are refused in one line naming the rulesets they are for.
    code, out, err = bellica(capsys, "simulate", "sixth", "--runs", 1, "--nation-policy", "heads=x")
    assert code == 1 and "Sixth takes no --nation-policy (--nation-policy is for Mare Nostrum)" in err
    code, out, err = bellica(capsys, "simulate", "sixth", "--runs", 1, "--seat", "heads=x")
    assert code == 1 and "--campaign, --seat and --rounds are for Magna Graecia, Trossian and Vae Victis II" in err
    assert len(err.strip().splitlines()) == 1
