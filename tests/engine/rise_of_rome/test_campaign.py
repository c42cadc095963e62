"""The shipped scenario, and whole campaigns driven through the phase functions."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.rise_of_rome.attacks import candidate_targets
from bellica.engine.rise_of_rome.battles import BattleResult
from bellica.engine.rise_of_rome.civic import VERDICTS
from bellica.engine.rise_of_rome.dice import Roller
from bellica.engine.rise_of_rome.model import provinces_of
from bellica.engine.rise_of_rome.rules import default_rules
from bellica.engine.rise_of_rome.scenario import load_scenario, scenario_meta
from bellica.engine.rise_of_rome.spending import Spending
from bellica.engine.rise_of_rome.turn import play_campaign, play_turn, start
from bellica.geo.errors import InputError

R = default_rules()
GENERATED = replace(R, options=replace(R.options, generate_player_battles=True))


def test_scenario_matches_the_seed():
    s = load_scenario()
    assert len(s.provinces) == 19 and len(s.nations) == 9 and s.player == "Romans"
    assert {p: len(s.homes(p)) for p in s.nations} == {
        "Romans": 3, "Samnites": 3, "Campanians": 2, "Bruttians and Lucanians": 1, "Etruscans": 1,
        "Senon Celts": 2, "Boian Celts": 2, "Tarentine Greeks": 2, "Syracusan Greeks": 3}
    assert s.resource_counts() == {"port": 3, "quarry": 3, "olives": 3}
    assert set(s.externals) == {R.externals.carthage, R.externals.epirus}
    assert set(R.battles.points_per_general) >= set(s.powers)
    assert set(R.rulers.modifiers) | {s.player} == set(s.nations)
    west, south, east, north = scenario_meta()["bbox"]
    assert all(west <= p.lon <= east and south <= p.lat <= north for p in s.provinces.values())
    assert all(p.coastal for p in s.provinces.values() if p.resource == "port")


class Builder:
    """Always build: no attacks, a quarter of the revenue to Defense when attacked, the rest to Civic."""

    def attack(self, scenario, state, plan):
        return None

    def spend(self, scenario, state, plan, free):
        defence = free // 4 if plan.attacks_on(scenario.player) else 0
        return Spending(0, defence, free - defence)

    def province(self, state, options, why):
        return None

    def result(self, battle):
        return None


class Conqueror(Builder):
    """Attack the poorest neighbour every turn with half the revenue; enter every table result as a Minor
    Victory for Rome."""

    def attack(self, scenario, state, plan):
        targets = candidate_targets(scenario, state, scenario.player)
        return min(targets, key=lambda p: (state.revenue.get(p, 0), p)) if targets else None

    def spend(self, scenario, state, plan, free):
        return Spending(free // 2, 0, free - free // 2)

    def result(self, battle):
        return BattleResult("attacker" if battle.attacker == "Romans" else "defender", major=False)


def test_scripted_campaign_to_a_verdict():
    s = load_scenario()
    outcome = play_campaign(s, R, Roller(2026), Conqueror())
    assert outcome.verdict in VERDICTS
    assert outcome.turns == 12 or outcome.state.defeated
    assert outcome.events[-1].kind == "verdict"
    # Rome won every battle on the table: it never lost a home province and ends larger than it began.
    assert not outcome.state.defeated and outcome.state.civic_penalty == 0
    assert len(provinces_of(s, outcome.state, "Romans")) > 3
    assert outcome.state.civic_spent >= 12 * 10


@pytest.mark.parametrize("seed", [1, 7, 99])
def test_generated_campaigns_are_deterministic(seed):
    s = load_scenario()
    a = play_campaign(s, GENERATED, Roller(seed), Builder())
    b = play_campaign(s, GENERATED, Roller(seed), Builder())
    assert a.state == b.state and [e.text for e in a.events] == [e.text for e in b.events]
    assert a.verdict in VERDICTS


def test_rome_table_battle_needs_a_result():
    s = load_scenario()
    state, _ = start(s, R, Roller(3))

    class Attacker(Builder):
        def attack(self, scenario, st, plan):
            return candidate_targets(scenario, st, scenario.player)[0]

        def spend(self, scenario, st, plan, free):
            return Spending(free, 0, 0)

    with pytest.raises(InputError, match="played on the table"):
        play_turn(s, state, R, Roller(3), Attacker())
    state, events, battles = play_turn(s, state, GENERATED, Roller(3), Attacker())
    assert any(b.attacker == "Romans" and b.tabletop for b in battles)


def test_bad_player_spending_is_refused():
    s = load_scenario()
    state, _ = start(s, R, Roller(3))

    class Overspender(Builder):
        def spend(self, scenario, st, plan, free):
            return Spending(0, 0, free + 1)

    with pytest.raises(InputError, match="exactly the 20 revenue"):
        play_turn(s, state, GENERATED, Roller(3), Overspender())
