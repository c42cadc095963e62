"""Regression: the Resilience drift on dionysian-sicily.

The scenario sets [rules.sieges.resilience] city = 3.  The structure_resilience view read the
scenario's value while the engine used its own copy of the seed's table, so Syracusae started
a siege at 5 in the view and at 4 in the engine.  Both now read the campaign's one `rules` table.
"""

from __future__ import annotations

import pytest

from bellica.engine.vae_victis.board import board_from_duckdb
from bellica.engine.vae_victis.sieges import start_resilience
from bellica.geo.spatialdb import connect


@pytest.fixture(scope="module")
def sicily(tmp_path_factory):
    from bellica.etl.campaign import create_campaign

    d = tmp_path_factory.mktemp("sicily")
    result = create_campaign("dionysian-sicily", d / "sicily.duckdb")
    con = connect(result.path, read_only=True)
    yield con
    con.close()


def test_view_and_engine_agree_on_syracusae(sicily):
    view = sicily.execute("SELECT resilience FROM structure_resilience WHERE structure = 'Syracusae'").fetchone()[0]
    board = board_from_duckdb(sicily)
    engine, parts = start_resilience(board, "Syracusae")
    assert board.rules.sieges.resilience["city"] == 3  # the scenario's value, not the seed's 2
    assert ("city", 3) in parts
    assert engine == view


def test_view_and_engine_agree_on_every_structure(sicily):
    board = board_from_duckdb(sicily)
    view = dict(sicily.execute("SELECT structure, resilience FROM structure_resilience").fetchall())
    assert view == {name: start_resilience(board, name)[0] for name in board.structures}


def test_the_campaign_freezes_its_ruleset_and_rules(sicily):
    meta = dict(sicily.execute("SELECT key, value FROM scenario_meta").fetchall())
    assert meta["ruleset"] == "vae-victis-ii"
    assert not any(k.startswith("rules.") for k in meta)  # the values live in `rules` only
    rows = dict(sicily.execute("SELECT key, value FROM rules").fetchall())
    assert rows["sieges.resilience.city"] == "3" and rows["start.army_fp"] == "400"
