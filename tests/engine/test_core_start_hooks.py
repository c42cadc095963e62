"""The start of a stepped campaign, as the core gives it (engine/core/stepped.py): the start state
from the package's ``turn.new_game`` unless a ruleset gives its own, and the start snapshot with
the rows a step would write and a ruleset's extra start keys (``start_position``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bellica.engine.core.stepped import SteppedRuleset


def test_the_start_state_is_the_turn_modules_new_game():
    from bellica.engine.mare_nostrum.ruleset import MARE_NOSTRUM
    from bellica.engine.mare_nostrum.rules import default_rules
    from bellica.engine.mare_nostrum.scenario import default_scenario
    from bellica.engine.mare_nostrum.turn import new_game

    campaign = SimpleNamespace(board=default_scenario(), rules=default_rules())
    state, told = MARE_NOSTRUM.start_state(campaign, 7)
    assert state == new_game(campaign.board, campaign.rules) and told == []


def test_a_ruleset_without_a_turn_module_is_told_where_to_put_new_game():
    class Unstarted(SteppedRuleset):
        name = "unstarted"

    with pytest.raises(NotImplementedError, match="has no new_game; define it there or set it on Unstarted"):
        Unstarted().start_state(SimpleNamespace(board=None, rules=None), 1)


def test_trossians_start_snapshot_holds_the_rows_a_step_writes():
    """Trossian's rows read its rules (step_rows): the start snapshot has those, not state_rows' alone."""
    from bellica.engine.trossian.ruleset import TROSSIAN
    from bellica.engine.trossian.rules import rules_with
    from tests.engine.trossian.tiny import tiny_scenario

    # Without couriers carrying orders, no nation's orders-in-force row: the default rules would write one.
    rules = rules_with({"options": {"couriers_carry_orders": False}}, source="test")
    campaign = SimpleNamespace(board=tiny_scenario(), rules=rules)
    snap = TROSSIAN.start_snapshot(campaign, seed=5)
    state, _ = TROSSIAN.start_state(campaign, 5)
    for table, rows in TROSSIAN.step_rows(campaign, state).items():
        spec = TROSSIAN.schema.tables[table]
        assert set(snap.tables[table]) == {spec.key_of(spec.row_from(r)) for r in rows.values()}, table
    assert set(snap.tables["tr_game"]) < set(TROSSIAN.state_rows(campaign.board, state)["tr_game"])
    assert [snap.campaign(k) for k in ("round", "phase", "seed", "stage")] == ["1", "begin", "5", None]


def test_magna_graecias_start_names_the_first_side_to_move():
    from bellica.engine.magna_graecia.ruleset import MAGNA_GRAECIA
    from bellica.engine.magna_graecia.storage import Board
    from tests.engine.magna_graecia.tiny import MAP, R, scenario

    campaign = SimpleNamespace(board=Board(scenario(), MAP, {}), rules=R)
    snap = MAGNA_GRAECIA.start_snapshot(campaign, seed=3)
    assert [snap.campaign(k) for k in ("round", "phase", "stage", "seed")] == ["1", "movement", "Red", "3"]
    assert [k for (k,) in snap.tables["campaign"]] == ["round", "phase", "stage", "seed"]
