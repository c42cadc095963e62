"""Structure views: terrain, coast adjacency, sea zones and start Resilience, on a hand-made
campaign and on the real map, where the seed's examples must hold: Ravenna 4, Hipponium -1."""

from __future__ import annotations

import h3
import pytest

from bellica.datasets.rules import load_rules, rules_rows
from bellica.etl.structure_views import install_structure_views, structure_resilience
from bellica.geo.errors import InputError
from bellica.geo.spatialdb import connect
from bellica.schema import CAMPAIGN, create_tables


def _tiny(con, *, kinds: dict[str, str], terrains: dict[str, str]) -> None:
    con.execute("CREATE TABLE hexes (cell VARCHAR, kind VARCHAR, terrain VARCHAR)")
    con.executemany("INSERT INTO hexes VALUES (?, ?, ?)", [(c, kinds[c], terrains.get(c)) for c in kinds])
    con.execute("CREATE TABLE hex_neighbors (cell VARCHAR, neighbor VARCHAR, clock INTEGER)")
    rows = [(a, b, i) for a in kinds for i, b in enumerate(h3.grid_ring(a, 1)) if b in kinds]
    con.executemany("INSERT INTO hex_neighbors VALUES (?, ?, ?)", rows)
    con.execute("CREATE TABLE structures (name VARCHAR, modern VARCHAR, kind VARCHAR, cell VARCHAR, controller VARCHAR, capital BOOLEAN, geom GEOMETRY)")
    # The default rules, frozen as `campaign new` freezes a scenario's.
    create_tables(con, CAMPAIGN, ["rules"])
    con.executemany("INSERT INTO rules VALUES (?, ?)", rules_rows(load_rules()))


def test_seed_examples_on_a_hand_made_map():
    centre = h3.latlng_to_cell(44.4, 12.2, 5)
    ring = sorted(h3.grid_ring(centre, 1))
    far = h3.latlng_to_cell(43.0, 11.0, 5)
    far_ring = sorted(h3.grid_ring(far, 1))
    kinds = {centre: "land", far: "land", **{c: "land" for c in ring}, **{c: "land" for c in far_ring}}
    kinds[ring[0]] = "coast"  # Ravenna's hex touches one coast hex; the inland one none
    hippo = next(c for c in ring[1:] if h3.are_neighbor_cells(c, ring[0]))
    terrains = {centre: "marshes", far: "mountains", **{c: "farmlands" for c in ring[1:] + far_ring}}
    con = connect()
    _tiny(con, kinds=kinds, terrains=terrains)
    con.executemany(
        "INSERT INTO structures VALUES (?, '', ?, ?, ?, ?, NULL)",
        [("Ravenna", "city", centre, "Roma", False), ("Hipponium", "Town", hippo, "Roma", False),
         ("Arx", "town", far, None, True)],
    )
    views = install_structure_views(con)
    assert views == ["structure_terrain", "structure_coast", "structure_resilience"]  # no hex_sea_zones table
    assert structure_resilience(con, "Ravenna") == 2 + 1 + 1
    assert structure_resilience(con, "Hipponium") == -1 - 1 + 1
    assert structure_resilience(con, "Arx") == -1 + 2 + 0 + 2  # town, mountains, inland, capital
    row = con.execute(
        "SELECT kind_modifier, terrain_modifier, coast_modifier, capital_modifier FROM structure_resilience WHERE structure = 'Ravenna'"
    ).fetchone()
    assert row == (2, 1, 1, 0)
    assert con.execute("SELECT adjacent_to_coast, coast_hexes FROM structure_coast WHERE structure = 'Arx'").fetchone() == (False, 0)
    with pytest.raises(InputError, match="no structure named 'Nowhere'"):
        structure_resilience(con, "Nowhere")
    # A scenario may change the numbers without touching SQL: the views read the rules table.
    con.execute("DELETE FROM rules")
    rows = rules_rows(load_rules(overrides={"sieges": {"resilience": {"city": 3}}}))
    con.executemany("INSERT INTO rules VALUES (?, ?)", rows)
    assert structure_resilience(con, "Ravenna") == 5


def test_sea_zone_view_counts_border_structures_in_both_zones():
    centre = h3.latlng_to_cell(38.2, 15.6, 5)
    ring = sorted(h3.grid_ring(centre, 1))
    kinds = {centre: "land", **{c: "coast" for c in ring}}
    con = connect()
    _tiny(con, kinds=kinds, terrains={centre: "hills"})
    con.execute("INSERT INTO structures VALUES ('Messana', '', 'city', ?, 'Roma', false, NULL)", [centre])
    con.execute("CREATE TABLE hex_sea_zones (cell VARCHAR, zone VARCHAR)")
    con.executemany("INSERT INTO hex_sea_zones VALUES (?, ?)", [(ring[0], "Mare Tyrrhenum"), (ring[3], "Mare Ionium"), (ring[3], "Mare Tyrrhenum")])
    assert "structure_sea_zones" in install_structure_views(con)
    zones = sorted(r[0] for r in con.execute("SELECT zone FROM structure_sea_zones WHERE structure = 'Messana'").fetchall())
    assert zones == ["Mare Ionium", "Mare Tyrrhenum"]


def test_views_need_a_campaign():
    con = connect()
    with pytest.raises(InputError, match="lacks"):
        install_structure_views(con)


@pytest.fixture(scope="module")
def real_campaign(tmp_path_factory, mediterranean_map):
    from bellica.etl.campaign import create_campaign

    d = tmp_path_factory.mktemp("real")  # the run's one default map (tests/conftest.py), not a build of its own
    result = create_campaign("first-punic-war", d / "fpw.duckdb", map_path=mediterranean_map)
    con = connect(result.path, read_only=True)
    yield con
    con.close()


def test_seed_examples_on_the_real_map(real_campaign):
    con = real_campaign
    rows = dict(
        (r[0], r[1:])
        for r in con.execute(
            "SELECT structure, kind, terrain, adjacent_to_coast, capital, resilience FROM structure_resilience "
            "WHERE structure IN ('Ravenna', 'Hipponium', 'Roma', 'Carthago')"
        ).fetchall()
    )
    assert rows["Ravenna"] == ("city", "marshes", True, False, 4)
    assert rows["Hipponium"] == ("town", "farmlands", True, False, -1)
    assert rows["Roma"][3] is True and rows["Carthago"][3] is True
    # Hipponium's farmlands are the designer's override, recorded with its reason.
    reason = con.execute(
        "SELECT o.reason FROM terrain_overrides o JOIN structures s USING (cell) WHERE s.name = 'Hipponium'"
    ).fetchone()[0]
    assert "seed" in reason
    # Every structure sits on a land hex, one per hex, and coastal ones touch a sea zone.
    assert con.execute("SELECT count(*) FROM structure_terrain WHERE hex_kind <> 'land'").fetchone()[0] == 0
    assert con.execute("SELECT count(DISTINCT cell) = count(*) FROM structures").fetchone()[0]
    missing = con.execute(
        "SELECT structure FROM structure_coast WHERE adjacent_to_coast AND structure NOT IN (SELECT structure FROM structure_sea_zones)"
    ).fetchall()
    assert missing == []


def test_the_seeds_border_hexes_belong_to_both_zones(real_campaign):
    """The seed: the Corsica-Sardinia strait is a border of Sardoum and Tuscum; Messana's strait joins Tyrrhenum and Ionium."""
    con = real_campaign
    for (lat, lng), zones in {
        (41.30, 9.22): ["Mare Sardoum", "Mare Tuscum"],
        (38.20, 15.62): ["Mare Ionium", "Mare Tyrrhenum"],
    }.items():
        cell = h3.latlng_to_cell(lat, lng, 5)
        got = sorted(r[0] for r in con.execute("SELECT zone FROM hex_sea_zones WHERE cell = ?", [cell]).fetchall())
        assert got == zones, (lat, lng, got)
    both = con.execute("SELECT list(zone ORDER BY zone) FROM structure_sea_zones WHERE structure = 'Messana'").fetchone()[0]
    assert both == ["Mare Ionium", "Mare Tyrrhenum"]
