"""The views rewritten for speed (issue 11, part 2) return exactly the rows of their old definitions.

``supplied_structures`` and ``logistics_lines`` now read ``logistics_network`` through a
MATERIALIZED CTE (engine/vae_victis/sql/logistics/lines.sql) so that a filter never reaches
into the recursion.  The old definitions are kept here, word for word, as the reference; both
run as views on the same connection, on synthetic boards and on the demo campaign, plain and
under the filters an umpire adds (the optimiser's pushdown is what the rewrite is about).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.vae_victis.logistics import compute_logistics
from bellica.engine.vae_victis.model import Siege
from tests.engine.boards import campaign_db
from tests.engine.test_logistics import at, worked_example
from tests.engine.test_sea_logistics import islands, links

#: The definitions before issue 11 (engine/vae_victis/sql/logistics/lines.sql at 7e53d2a).
OLD_SQL = {
    "supplied_structures": """
        SELECT faction, to_structure AS structure, to_depth AS depth
        FROM logistics_network WHERE row_kind = 'node'""",
    "logistics_lines": """
        SELECT faction, from_structure, to_structure, link_type, from_depth, to_depth
        FROM logistics_network WHERE row_kind = 'link'""",
}

#: Queries over each view (``{v}``: the view's name) the rows must agree on.
PROBES = (
    "SELECT * FROM {v}",
    "SELECT count(*) FROM {v}",
    "SELECT * FROM {v} WHERE faction = (SELECT min(faction) FROM {v})",
    "SELECT * FROM {v} WHERE faction = 'Roma'",
    "SELECT faction, count(*) FROM {v} GROUP BY ALL",
)


def assert_same_rows(con) -> int:
    """Every view of OLD_SQL against its old definition under every probe; the rows compared."""
    compared = 0
    for name, sql in OLD_SQL.items():
        con.execute(f"CREATE OR REPLACE TEMP VIEW old_{name} AS {sql}")
        for probe in PROBES:
            # Sorted whole rows: the same multiset, NULLs and duplicates included (the first probe
            # reads every row, so no EXCEPT ALL both ways is needed: it ran the recursion 4 times more).
            new = sorted(con.execute(probe.format(v=name)).fetchall(), key=repr)
            old = sorted(con.execute(probe.format(v=f"old_{name}")).fetchall(), key=repr)
            assert new == old, (name, probe)
            compared += len(new)
    return compared


def test_worked_example_same_rows():
    m = worked_example()
    armies = [(1, "etruria", at(1, 6)), (9, "roma", at(0, 4)), (10, "roma", at(9, 0)), (11, "roma", at(0, 8))]
    states = (
        m.state([]),
        m.state(armies),  # test_logistics' worked example: lines cut by an army and by ZoC
        m.state([(1, "etruria", at(0.5, 1))], sieges=[Siege("Roma", "etruria", (1,), 4, 4, 1)]),  # no lines
    )
    for state in states:
        con = campaign_db(m.board, state)
        compute_logistics(con)  # installs the static tables and the views
        assert assert_same_rows(con) > 0


def test_sea_links_same_rows():
    m = islands()
    for zones in ({}, {"Mare_Sardoum": ["Caralis"], "Mare_Tuscum": ["Alalia"]}):
        state = replace(m.state([]), sea_links=links(**zones)) if zones else m.state([])
        con = campaign_db(m.board, state)
        compute_logistics(con)
        assert assert_same_rows(con) > 0


@pytest.fixture(scope="module")
def demo(tmp_path_factory, first_punic_war):
    """The demo campaign (``make demo``): round 1 played, as tests/cli/test_sql_catalogue.py has it."""
    from bellica.demo import run_demo_round

    path = first_punic_war(tmp_path_factory.mktemp("views-rewrite") / "demo.duckdb")
    run_demo_round(path)
    return path


def test_demo_campaign_same_rows(demo):
    import duckdb

    con = duckdb.connect(str(demo), read_only=True)
    try:
        assert assert_same_rows(con) > 0
    finally:
        con.close()
