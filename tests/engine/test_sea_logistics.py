"""Sea-zone logistics (seed, "Lines of logistics" 4) and the umpire's naval SQL views.

The seed: lines extend "across sea zones from already connected Towns and Cities to other
unsieged and unblockaded Towns and Cities controlled by the faction adjacent to a Coast hex in
the same sea zone, extending to not more of such other Towns and Cities (as selected by the
faction as part of submitting movement instructions each round) than the faction's Naval
superiority level in that sea zone (i.e., with a Naval Superiority level of zero, a logistics
line can not extend across that sea zone at all)".
"""

from __future__ import annotations

import shutil
from dataclasses import replace

import h3
import pytest

from bellica.engine.vae_victis.logistics import (
    NAVAL_VIEWS,
    compute_logistics,
    default_sea_links,
    install_naval_views,
    logistics_for,
    round_sea_links,
)
from bellica.engine.vae_victis.model import ArmyOrders, Siege
from bellica.engine.vae_victis.zoc import install_zoc_views
from tests.engine.boards import campaign_db, cell, sketch, walk
from tests.engine.test_logistics import at, worked_example

SARDOUM, TUSCUM = "Mare Sardoum", "Mare Tuscum"


def islands():
    """Three islands in a row, each a land hex and its ring, a ring of Coast hexes around it and
    Sea between: "Africa" west (Carthago), "Sardinia" in the middle (Caralis facing west, Olbia
    facing east: one Coast ring joins them), "Corsica" east (Alalia).  Water nearer Africa is
    Mare Sardoum, nearer Corsica Mare Tuscum, halfway both.  No coast runs from one island to
    another, so only sea-zone links cross."""
    africa, sardinia, corsica = cell("9 9 9 9 9 9"), cell(""), cell("3 3 3 3 3 3")
    cells = h3.grid_disk(sardinia, 8)
    land = set(h3.grid_disk(africa, 1)) | set(h3.grid_disk(sardinia, 1)) | set(h3.grid_disk(corsica, 1))
    water, zones = {}, {}
    for c in cells:
        if c in land:
            continue
        water[c] = "coast" if any(n in land for n in h3.grid_ring(c, 1)) else "sea"
        da, dc = h3.grid_distance(c, africa), h3.grid_distance(c, corsica)
        zones[c] = [SARDOUM] if da < dc else [TUSCUM] if dc < da else [SARDOUM, TUSCUM]
    return sketch(
        radius=8,
        water=water,
        sea_zones=zones,
        structures=[
            ("Carthago", "city", walk(africa, "3"), "carthago", True),
            ("Caralis", "city", walk(sardinia, "9"), "carthago"),
            ("Olbia", "town", walk(sardinia, "3"), "carthago"),
            ("Alalia", "town", walk(corsica, "9"), "carthago"),
        ],
    )


@pytest.fixture(scope="module")
def m():
    return islands()


def supplied(m, state):
    return set(logistics_for(m.board, state).supplied.get("carthago", ()))


def links(**zones):
    return {"carthago": {z.replace("_", " "): tuple(t) for z, t in zones.items()}}


def test_the_sketch_has_no_coast_between_islands(m):
    # Without sea links Carthago supplies only itself: every island needs a sea-zone hop.
    assert supplied(m, m.state([])) == {"Carthago"}


def test_a_chain_of_sea_hops_carthago_sardinia_corsica(m):
    # Carthago -> Caralis across Mare Sardoum, Caralis -> Olbia along Sardinia's coast,
    # Olbia -> Alalia across Mare Tuscum.
    state = replace(m.state([]), sea_links=links(Mare_Sardoum=["Caralis"], Mare_Tuscum=["Alalia"]))
    lg = logistics_for(m.board, state)
    assert lg.supplied["carthago"] == {"Carthago", "Caralis", "Olbia", "Alalia"}
    got = {(ln.from_structure, ln.to_structure, ln.link_type) for ln in lg.lines}
    assert ("Carthago", "Caralis", "sea") in got and ("Olbia", "Alalia", "sea") in got
    assert ("Caralis", "Olbia", "coast") in got
    # directed: no sea line back from a target to its source
    assert ("Caralis", "Carthago", "sea") not in got and ("Alalia", "Olbia", "sea") not in got


def test_only_from_already_connected_structures(m):
    # Alalia is chosen across Mare Tuscum, but nothing of Carthago's that touches Mare Tuscum is
    # connected: no line extends to it.
    state = replace(m.state([]), sea_links=links(Mare_Tuscum=["Alalia"]))
    assert supplied(m, state) == {"Carthago"}


def test_with_a_naval_superiority_level_of_zero_no_line_crosses_the_zone(m):
    state = replace(m.state([]), sea_links=links(Mare_Sardoum=["Caralis"], Mare_Tuscum=["Alalia"]),
                    superiority={SARDOUM: {"carthago": 0}})
    assert supplied(m, state) == {"Carthago"}
    # ... and the default rule links nothing across it either.
    assert default_sea_links(m.board, replace(state, sea_links={})) == {}


def test_not_more_targets_than_the_level(m):
    # Caralis and Olbia chosen across Mare Sardoum (Olbia does not touch it: it links nothing);
    # with level 1 only the first chosen counts.
    con = campaign_db(m.board, replace(m.state([]), sea_links=links(Mare_Sardoum=["Olbia", "Caralis"]),
                                       superiority={SARDOUM: {"carthago": 1}}))
    compute_logistics(con)
    assert con.execute("SELECT count(*) FROM logistics_sea_links").fetchone()[0] == 0
    assert {r[0] for r in con.execute("SELECT structure FROM supplied_structures").fetchall()} == {"Carthago"}
    con.execute("UPDATE naval_superiority SET level = 2")
    assert con.execute("SELECT from_structure, to_structure, zone FROM logistics_sea_links").fetchall() == [
        ("Carthago", "Caralis", SARDOUM)
    ]
    # Three towns chosen at level 2 (base): the third is not linked.
    state = replace(m.state([]), sea_links=links(Mare_Sardoum=["Olbia", "Alalia", "Caralis"]))
    assert supplied(m, state) == {"Carthago"}


def test_a_blockaded_source_or_target_gives_no_link(m):
    chosen = links(Mare_Sardoum=["Caralis"], Mare_Tuscum=["Alalia"])
    africa_coast = walk(m.cell("9 9 9 9 9 9"), "3 3")  # a Coast hex next to Carthago
    sardinia_coast = walk(m.cell(""), "9 9")  # a Coast hex next to Caralis
    assert m.board.hexes[africa_coast].kind == m.board.hexes[sardinia_coast].kind == "coast"
    # a Roman navy in front of Carthago: the source is blockaded
    state = replace(m.state([(5, "roma", africa_coast)]), sea_links=chosen)
    assert supplied(m, state) == {"Carthago"}
    # a Roman navy in front of Caralis: the target is blockaded (and Sardinia's coast cut there)
    state = replace(m.state([(5, "roma", sardinia_coast)]), sea_links=chosen)
    assert "Caralis" not in supplied(m, state)


def test_unsieged_only(m):
    state = replace(m.state([(5, "roma", walk(m.cell(""), "9 7"))], sieges=[Siege("Caralis", "roma", (5,), 3, 3, 1)]),
                    sea_links=links(Mare_Sardoum=["Caralis"]))
    assert supplied(m, state) == {"Carthago"}


def test_default_rule_fills_zones_without_a_choice(m):
    state = m.state([])
    # Caralis (a city) before Olbia, then Alalia from Sardinia across Mare Tuscum.
    assert default_sea_links(m.board, state) == links(Mare_Sardoum=["Caralis"], Mare_Tuscum=["Alalia"])
    got = replace(state, sea_links=default_sea_links(m.board, state))
    assert supplied(m, got) == {"Carthago", "Caralis", "Olbia", "Alalia"}
    # A faction's own choice in a zone stands; only the other zones are filled.
    given = {"carthago": {TUSCUM: ()}}
    assert default_sea_links(m.board, state, given=given) == links(Mare_Sardoum=["Caralis"])
    # From the round's orders: named targets (army order, then written order), default elsewhere.
    state = m.state([(1, "carthago", "9 9 9 9 9 9"), (2, "carthago", "")])
    orders = {2: ArmyOrders(2, sea_links=((SARDOUM, "Caralis"),)), 1: ArmyOrders(1, sea_links=((SARDOUM, "Olbia"),))}
    assert round_sea_links(m.board, state, orders) == links(Mare_Sardoum=["Olbia", "Caralis"], Mare_Tuscum=["Alalia"])


def test_enemy_navy_interrupts_coast_and_blockades():
    # The land engine's worked example with the Etruscan navy as what it now is: an army at sea.
    m = worked_example()
    lg = logistics_for(m.board, m.state([(5, "etruria", at(5.5, -1))]))
    assert not lg.is_supplied("roma", "Tarracina")
    lg = logistics_for(m.board, m.state([(5, "etruria", at(3.5, -1))]))
    assert not lg.is_supplied("roma", "Lavinium")  # blockaded: no coast line may end there


# --- the umpire's views --------------------------------------------------------------------------


ONLY_BY_SEA = """
SELECT s.structure, list(DISTINCT q.zone ORDER BY q.zone) AS zones,
       list(DISTINCT q.from_structure ORDER BY q.from_structure) AS from_structures
FROM supplied_structures s
JOIN sea_supply q ON q.faction = s.faction AND q.to_structure = s.structure
ANTI JOIN (SELECT faction, to_structure FROM logistics_lines WHERE link_type <> 'sea') l
  ON l.faction = s.faction AND l.to_structure = s.structure
WHERE s.faction = ?
GROUP BY s.structure ORDER BY s.structure
"""

WITHOUT_THE_SEA = """
WITH RECURSIVE by_land(faction, structure) AS (
    SELECT faction, structure FROM supplied_structures WHERE depth = 0
    UNION
    SELECT l.faction, l.to_structure FROM by_land b JOIN logistics_line_links l
      ON l.faction = b.faction AND l.from_structure = b.structure AND l.link_type <> 'sea')
SELECT s.structure FROM supplied_structures s
ANTI JOIN by_land b ON b.faction = s.faction AND b.structure = s.structure
WHERE s.faction = ?
ORDER BY s.structure
"""


def naval_db(m, state):
    con = campaign_db(m.board, state)
    install_zoc_views(con)
    compute_logistics(con)
    install_naval_views(con)
    return con


def test_naval_views(m):
    navy_at = walk(m.cell(""), "9 9")  # next to Caralis
    state = replace(m.state([(5, "roma", navy_at), (1, "carthago", "9 9 9 9 9 9")]),
                    sea_links=links(Mare_Sardoum=["Caralis"], Mare_Tuscum=["Alalia"]),
                    superiority={SARDOUM: {"roma": 3, "carthago": 1}})
    con = naval_db(m, state)
    for view in NAVAL_VIEWS:
        con.execute(f"SELECT * FROM {view}").fetchall()
    assert con.execute("SELECT army, faction, cell, kind, zones FROM navies").fetchall() == [
        (5, "roma", navy_at, "coast", [SARDOUM])
    ]
    assert {r[0] for r in con.execute("SELECT cell FROM navy_zoc").fetchall()} == {navy_at, *h3.grid_ring(navy_at, 1)} & set(m.board.hexes)
    assert con.execute("SELECT * FROM blockaded_structures").fetchall() == [("Caralis", "carthago", "roma", 5)]
    levels = {(z, f): lv for z, f, lv in con.execute("SELECT zone, faction, level FROM superiority").fetchall()}
    assert levels[(SARDOUM, "roma")] == 3 and levels[(SARDOUM, "carthago")] == 1
    assert levels[(TUSCUM, "syracusae")] == 2  # no row: the base level
    assert len(levels) == 2 * 3
    # Caralis is blockaded: the chain breaks at once.
    assert con.execute("SELECT * FROM sea_supply").fetchall() == []


def test_sea_supply_and_the_only_by_sea_question(m):
    state = replace(m.state([]), sea_links=links(Mare_Sardoum=["Caralis"], Mare_Tuscum=["Alalia"]))
    con = naval_db(m, state)
    assert sorted(con.execute("SELECT * FROM sea_supply").fetchall()) == [
        ("carthago", "Carthago", "Caralis", SARDOUM),
        ("carthago", "Olbia", "Alalia", TUSCUM),
    ]
    assert con.execute(ONLY_BY_SEA, ["carthago"]).fetchall() == [
        ("Alalia", [TUSCUM], ["Olbia"]),
        ("Caralis", [SARDOUM], ["Carthago"]),
    ]
    assert [r[0] for r in con.execute(WITHOUT_THE_SEA, ["carthago"]).fetchall()] == ["Alalia", "Caralis", "Olbia"]


# --- the shipped scenario ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def punic_start(tmp_path_factory, first_punic_war):
    """`bellica campaign new --scenario first-punic-war`, then `bellica round start`."""
    from bellica.engine.core.campaign import Campaign

    path = first_punic_war(tmp_path_factory.mktemp("punic-sea") / "start.duckdb")
    with Campaign.open(path) as c:
        c.start()
    return path


def test_carthago_at_the_start_of_the_first_punic_war(punic_start, tmp_path):
    """Carthago's lines at the start with the default sea links: all 33 of its structures.

    How it was checked: before sea-zone links Carthago supplied 12 of 33 (issue 9), exactly its
    structures in Africa; the query WITHOUT_THE_SEA lists the 21 others, every one in Sicily,
    Sardinia and Corsica.  The default rule picks, at the base level 2 everywhere, three hops
    (ONLY_BY_SEA lists them, with their zone and sources):
    Agrigentum across Mare Africum from Carthago (it opens Sicily's south coast and roads:
    Heraclea Minoa, Phintias, Henna, Selinus, then Lilybaeum and western Sicily); Olbia across
    Mare Tyrrhenum from Drepana, Eryx and Lilybaeum (Sardinia by coast and road: Caralis,
    Tharros, Nora, Sulci; Alalia on Corsica along the coast from Olbia); then Camarina across
    Mare Africum: Syracusan Gela's ZoC cuts the road and coast from Agrigentum, so only its own
    hop reaches it (with Gela controlled by nobody it is reached by land: asserted below).
    Panormus, Thermae Himeraeae, Cephaloedium, Lipara and Tyndaris follow Sicily's north coast
    from Drepana.  Each structure's incoming lines (logistics_lines) were listed and read one
    by one against those hops.
    """
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis.state import load_state

    path = tmp_path / "c.duckdb"
    shutil.copy(punic_start, path)
    with Campaign.open(path, read_only=True) as c:
        c.verify()
        s = load_state(c)
        assert s.sea_links == {"Carthago": {"Mare Africum": ("Agrigentum", "Camarina"), "Mare Tyrrhenum": ("Olbia",)}}
        assert set(s.superiority) == {"Mare Adriaticum", "Mare Africum", "Mare Ionium", "Mare Sardoum",
                                      "Mare Tuscum", "Mare Tyrrhenum"}
        assert all(v == 2 for by_f in s.superiority.values() for v in by_f.values())
        con = c.con
        controlled = con.execute("SELECT count(*) FROM control WHERE controller = 'Carthago'").fetchone()[0]
        got = con.execute("SELECT count(*) FROM supplied_structures WHERE faction = 'Carthago'").fetchone()[0]
        assert (got, controlled) == (33, 33)
        assert con.execute(ONLY_BY_SEA, ["Carthago"]).fetchall() == [
            ("Agrigentum", ["Mare Africum"], ["Carthago"]),
            ("Camarina", ["Mare Africum"], ["Agrigentum", "Carthago"]),
            ("Olbia", ["Mare Tyrrhenum"], ["Drepana", "Eryx", "Lilybaeum"]),
        ]
        by_land = {r[0] for r in con.execute(WITHOUT_THE_SEA, ["Carthago"]).fetchall()}
        africa = {"Carthago", "Kerkouane", "Tunes", "Utica", "Adys", "Clupea", "Hippo Diarrhytus", "Hadrumetum",
                  "Sicca Veneria", "Leptis Minor", "Thapsus", "Acholla"}
        all_supplied = {r[0] for r in con.execute("SELECT structure FROM supplied_structures WHERE faction = 'Carthago'").fetchall()}
        assert all_supplied - by_land == africa  # the 12 of before
        assert {"Agrigentum", "Lilybaeum", "Panormus", "Caralis", "Olbia", "Alalia"} <= by_land
        # The pure path gives the same as the campaign's SQL.
        assert len(logistics_for(c.board, s).supplied["Carthago"]) == 33
        # Camarina needs its own hop because of Gela.
        two = replace(s, sea_links={"Carthago": {"Mare Africum": ("Agrigentum",), "Mare Tyrrhenum": ("Olbia",)}})
        assert set(logistics_for(c.board, two).supplied["Carthago"]) == all_supplied - {"Camarina"}
        no_gela = replace(two, control={**s.control, "Gela": None})
        assert "Camarina" in logistics_for(c.board, no_gela).supplied["Carthago"]
