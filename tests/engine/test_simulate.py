"""Balance testing (issue 12, part 6): the ruleset-neutral runner and the Rise of Rome policies."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bellica.engine.core.simulate import quantile, run_seeds, simulate, summarise
from bellica.engine.rise_of_rome.attacks import candidate_targets
from bellica.engine.rise_of_rome.dice import Roller
from bellica.engine.rise_of_rome.model import provinces_of
from bellica.engine.rise_of_rome.policies import (POLICIES, VERDICT_ORDER, Builder, CampaignRunner, Conqueror,
                                                 RandomPlayer, make_policy, play_one, simulation_rules,
                                                 weakest_neighbour)
from bellica.engine.rise_of_rome.revenue import collect_revenue
from bellica.engine.rise_of_rome.rules import default_rules
from bellica.engine.rise_of_rome.scenario import load_scenario
from bellica.engine.rise_of_rome.spending import Spending
from bellica.engine.rise_of_rome.turn import begin_turn, play_campaign, start
from bellica.geo.errors import InputError

RULES = simulation_rules()
SCENARIO = load_scenario()


# --- the seeds and the runner -----------------------------------------------------------------

def test_run_seeds_depend_only_on_the_master_seed_and_the_index():
    assert run_seeds(1, 10)[:5] == run_seeds(1, 5)
    assert run_seeds(1, 5) != run_seeds(2, 5)
    assert len(set(run_seeds(1, 1000))) == 1000
    assert all(0 <= s < 2**63 for s in run_seeds(7, 50))
    with pytest.raises(InputError, match="runs -1"):
        run_seeds(1, -1)


def square(seed: int) -> dict:
    return {"value": seed * seed % 97}


def explode(seed: int) -> dict:
    raise ValueError(f"run with seed {seed} failed")


def test_rows_come_back_in_run_order_with_their_seed():
    seeds = [5, 3, 11, 2, 7]
    rows = simulate(square, seeds, workers=2)
    assert rows == [{"run": i, "seed": s, "value": s * s % 97} for i, s in enumerate(seeds)]
    assert simulate(square, [], workers=2) == []


def test_a_failing_run_is_raised():
    with pytest.raises(ValueError, match="seed 3 failed"):
        simulate(explode, [3], scheduler="sync")
    with pytest.raises(ValueError, match="failed"):
        simulate(explode, [3, 4], workers=2)


@pytest.mark.parametrize("kwargs, message", [
    ({"scheduler": "nonsense"}, "scheduler 'nonsense'"),
    ({"workers": 0}, "workers 0"),
])
def test_bad_scheduler_or_workers_is_one_line(kwargs, message):
    with pytest.raises(InputError, match=message):
        simulate(square, [1], **kwargs)


def test_the_same_outcomes_whatever_the_scheduler():
    """20 Rise of Rome campaigns: one process, two local processes and a Dask LocalCluster agree."""
    from distributed import LocalCluster

    seeds = run_seeds(2026, 20)
    runners = [CampaignRunner(p) for p in ("conqueror", "random")]
    serial = [simulate(r, seeds, workers=1) for r in runners]
    assert [simulate(r, seeds, workers=2) for r in runners] == serial
    assert [simulate(r, seeds, scheduler="processes", workers=3) for r in runners] == serial
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert [simulate(r, seeds, scheduler=cluster.scheduler_address) for r in runners] == serial
    # Twenty campaigns are not all alike: the seeds do reach the dice.
    assert len({(row["verdict"], row["civic"]) for row in serial[0]}) > 3


# --- the summary --------------------------------------------------------------------------------

def test_quantile_interpolates_like_numpy():
    import numpy as np

    values = [3, 1, 4, 1, 5, 9, 2, 6]
    for q in (0, 0.1, 0.25, 0.5, 0.9, 1):
        assert quantile(values, q) == pytest.approx(float(np.quantile(values, q)))
    assert quantile([], 0.5) is None


def test_summarise_counts_numbers_and_series():
    rows = [{"verdict": "a", "score": 10, "held": [3, 4, 5]},
            {"verdict": "b", "score": 20, "held": [3, 2, None]},
            {"verdict": "a", "score": 30, "held": [3, 6]}]
    s = summarise(rows, counts={"verdict": ("a", "b", "c")}, numbers=("score",), series=("held",))
    assert s["runs"] == 3
    assert s["counts"]["verdict"] == {"a": {"runs": 2, "share": pytest.approx(2 / 3, abs=1e-6)},
                                      "b": {"runs": 1, "share": pytest.approx(1 / 3, abs=1e-6)},
                                      "c": {"runs": 0, "share": 0.0}}
    assert s["numbers"]["score"]["median"] == 20 and s["numbers"]["score"]["mean"] == 20
    assert s["numbers"]["score"]["p10"] == pytest.approx(12) and s["numbers"]["score"]["p90"] == pytest.approx(28)
    held = s["series"]["held"]
    assert [p["index"] for p in held] == [0, 1, 2]
    assert [p["n"] for p in held] == [3, 3, 1]
    assert held[1]["median"] == 4 and held[2]["median"] == 5


# --- the policies ---------------------------------------------------------------------------------

@dataclass
class Checked:
    """Wraps a policy and asserts that every choice it makes is legal."""

    inner: object
    calls: int = 0

    def attack(self, scenario, state, plan):
        choice = self.inner.attack(scenario, state, plan)
        assert choice is None or choice in candidate_targets(scenario, state, scenario.player)
        self.calls += 1
        return choice

    def spend(self, scenario, state, plan, free):
        s = self.inner.spend(scenario, state, plan, free)
        assert isinstance(s, Spending) and min(s.attack, s.defence, s.civic) >= 0 and s.total == free
        return s

    def province(self, state, options, why):
        choice = self.inner.province(state, options, why)
        assert choice is None or choice in options
        return choice

    def result(self, battle):
        assert self.inner.result(battle) is None  # the policies never enter a result: it is generated
        return None


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_every_policy_plays_legal_campaigns_to_a_verdict(name):
    for seed in run_seeds(5, 6):
        policy = Checked(make_policy(name, seed))
        outcome = play_campaign(SCENARIO, RULES, Roller(seed), policy)
        assert outcome.verdict in VERDICT_ORDER
        assert policy.calls == outcome.turns


def test_builder_never_attacks_and_builds_with_everything():
    state, _ = start(SCENARIO, RULES, Roller(1))
    state, _ = collect_revenue(SCENARIO, begin_turn(state), RULES)
    b = Builder()
    assert b.attack(SCENARIO, state, None) is None
    assert b.spend(SCENARIO, state, None, 23) == Spending(0, 0, 23)


def test_conqueror_attacks_the_weakest_neighbour():
    state, _ = start(SCENARIO, RULES, Roller(1))
    state, _ = collect_revenue(SCENARIO, begin_turn(state), RULES)
    targets = candidate_targets(SCENARIO, state, SCENARIO.player)
    least = min(state.revenue.get(p, 0) for p in targets)
    choice = Conqueror().attack(SCENARIO, state, None)
    assert choice == weakest_neighbour(SCENARIO, state) and state.revenue[choice] == least
    assert make_policy("weakest-neighbour", 1).attack(SCENARIO, state, None) == choice


def test_random_player_draws_from_its_own_stream():
    state, _ = start(SCENARIO, RULES, Roller(1))
    state, _ = collect_revenue(SCENARIO, begin_turn(state), RULES)
    picks = {seed: RandomPlayer(seed).spend(SCENARIO, state, None, 40) for seed in range(30)}
    assert len(set(picks.values())) > 5  # the splits vary with the seed
    assert RandomPlayer(4).spend(SCENARIO, state, None, 40) == picks[4]  # and are fixed by it
    assert play_one(9, policy="random") == play_one(9, policy="random")


def test_unknown_policy_is_one_line():
    with pytest.raises(InputError, match="no Rome policy called 'timid': choose one of builder, conqueror"):
        make_policy("timid", 1)
    with pytest.raises(InputError, match="no Rome policy"):
        CampaignRunner("timid")


def test_simulation_generates_rome_battles_and_says_so():
    assert not default_rules().options.generate_player_battles
    assert RULES.options.generate_player_battles
    with pytest.raises(InputError, match="generate_player_battles"):
        CampaignRunner("builder", default_rules())


def test_play_one_is_play_campaign_with_the_turns_recorded():
    for seed in (3, 8):
        row = play_one(seed, policy="builder")
        outcome = play_campaign(SCENARIO, RULES, Roller(seed), make_policy("builder", seed))
        assert (row["verdict"], row["civic"], row["turns"], row["defeated"]) == (
            outcome.verdict, outcome.state.civic_total, outcome.turns, outcome.state.defeated)
        assert len(row["provinces"]) == len(row["civic_by_turn"]) == RULES.game.turns + 1
        assert row["provinces"][0] == len(SCENARIO.homes(SCENARIO.player))
        assert row["final_provinces"] == len(provinces_of(SCENARIO, outcome.state, SCENARIO.player))
        assert row["civic_by_turn"][-1] == row["civic"]
