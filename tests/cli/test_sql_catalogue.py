"""docs/sql.md, the umpire's SQL catalogue (issue #10, item 5), against the demo campaign.

Every worked query is taken from the page itself (its ```` ```sql query=NAME ```` fence), run
through ``bellica sql --csv`` in-process, and its result on the demo asserted; the catalogue's
``#### `name` (table|view)`` entries must be exactly the tables and views a campaign file holds,
and each entry must name every column of its object.

Three moments of the demo (the page names them):

* ``demo``: ``bellica.demo.run_demo_round`` on a fresh First Punic War campaign (what ``make demo``
  writes): round 1 played, round 2 in its orders phase;
* ``battles``: the same round 1 stopped after its movement step (the Roman navy still at sea, the
  engagement at Mylae not yet fought), played by the demo's own orders;
* ``revealed``: the demo with round 2's orders given (every army stands still) and movement run,
  so round 2's orders are revealed: the VP ledger reads ``events``, which the console seals
  until the round's orders are revealed (issue #10, item 2).
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import pytest

from tests.cli.test_round_cli import bellica

DOC = Path(__file__).resolve().parents[2] / "docs" / "sql.md"
QUERY = re.compile(r"^```sql query=(\w+)\n(.*?)^```", re.S | re.M)
ENTRY = re.compile(r"^#### `(\w+)` \((table|view)\)\n(.*?)(?=^#)", re.S | re.M)


def doc_queries() -> dict[str, str]:
    text = DOC.read_text()
    found = QUERY.findall(text)
    names = [n for n, _ in found]
    assert len(names) == len(set(names)), f"a query name is used twice in {DOC}: {names}"
    return dict(found)


def sql(capsys, campaign: Path, query: str) -> list[dict[str, str]]:
    """Run ``query`` through ``bellica sql --csv``; the rows as dicts of the printed strings."""
    code, out, err = bellica(capsys, "sql", campaign, "--csv", query)
    assert code == 0, f"bellica sql refused or failed:\n{err}\n{query}"
    return list(csv.DictReader(io.StringIO(out)))


# --- the demo's moments, built once for the module ------------------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory, first_punic_war) -> Path:
    return first_punic_war(tmp_path_factory.mktemp("catalogue") / "fresh.duckdb")


@pytest.fixture(scope="module")
def demo(fresh) -> Path:
    from bellica.demo import run_demo_round

    path = fresh.parent / "demo.duckdb"
    shutil.copy(fresh, path)
    run_demo_round(path)
    return path


@pytest.fixture(scope="module")
def battles(fresh) -> Path:
    """Round 1 of the demo up to its movement step, with the demo's own placements and orders."""
    from bellica import demo as script
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.state import load_state

    path = fresh.parent / "battles.duckdb"
    shutil.copy(fresh, path)
    script._place(path)
    with Campaign.open(path) as c:
        c.start(seed=script.DEMO_SEED)
        army_faction = {a.id: a.faction for a in load_state(c).armies}
        for faction, uses in script.INITIATIVE.items():
            rounds.submit_initiative(c, uses, faction=faction, source="test")
        rounds.publish_initiative(c)
        for faction in sorted(script.INITIATIVE):
            moves = script.MOVES.get(faction, {})
            orders = {army: ArmyOrders(army, moves=tuple(int(m) for m in moves.get(army, "").split()))
                      for army, f in sorted(army_faction.items()) if f == faction}
            rounds.submit_orders(c, orders, faction=faction, source="test")
        rounds.run_movement(c)
        s = load_state(c)
        assert (s.round, s.phase.value) == (1, "battles")
    return path


@pytest.fixture(scope="module")
def revealed(demo) -> Path:
    """The demo with round 2's orders given (everyone stands still) and its movement run."""
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.state import load_state

    path = demo.parent / "revealed.duckdb"
    shutil.copy(demo, path)
    with Campaign.open(path) as c:
        s = load_state(c)
        rounds.publish_initiative(c)  # nobody spends an Initiative point: every army takes +40 FP
        for faction in sorted({a.faction for a in s.armies}):
            orders = {a.id: ArmyOrders(a.id) for a in s.armies if a.faction == faction and not a.eliminated}
            rounds.submit_orders(c, orders, faction=faction, source="test")
        rounds.run_movement(c)
    return path


# --- the catalogue ----------------------------------------------------------------------------


def objects(capsys, campaign: Path) -> dict[str, str]:
    rows = sql(capsys, campaign, "SELECT table_name, table_type FROM information_schema.tables "
                                 "WHERE table_schema = 'main' ORDER BY table_name")
    return {r["table_name"]: "view" if r["table_type"] == "VIEW" else "table" for r in rows}


def test_the_catalogue_lists_every_table_and_view_of_the_campaign_file_and_nothing_else(demo, battles, revealed, capsys):
    listed = {name: kind for name, kind, _ in ENTRY.findall(DOC.read_text())}
    for campaign in (demo, battles, revealed):
        present = objects(capsys, campaign)
        missing = sorted(set(present) - set(listed))
        extra = sorted(set(listed) - set(present))
        assert not missing, f"{campaign.name} holds {missing}, not listed in {DOC.name}"
        assert not extra, f"{DOC.name} lists {extra}, which {campaign.name} does not hold"
        wrong = {n: (listed[n], k) for n, k in present.items() if listed[n] != k}
        assert not wrong, f"{DOC.name} calls these the wrong kind (listed, actual): {wrong}"


def test_every_catalogue_entry_names_every_column(demo, capsys):
    rows = sql(capsys, demo, "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'main'")
    columns: dict[str, set[str]] = {}
    for r in rows:
        columns.setdefault(r["table_name"], set()).add(r["column_name"])
    unnamed = {}
    for name, _kind, body in ENTRY.findall(DOC.read_text()):
        lacking = sorted(c for c in columns[name] if f"`{c}`" not in body)
        if lacking:
            unnamed[name] = lacking
    assert not unnamed, f"{DOC.name} does not describe these columns: {unnamed}"


# --- the worked questions -----------------------------------------------------------------------


def test_roman_towns_cut_from_their_lines(demo, capsys):
    # Every Roman structure is on Rome's lines after round 1, Mylae (taken in round 1) included.
    assert sql(capsys, demo, doc_queries()["roman_towns_cut"]) == []
    mylae = sql(capsys, demo, "SELECT depth FROM supplied_structures WHERE faction = 'Roma' AND structure = 'Mylae'")
    assert mylae == [{"depth": "10"}]


def test_structures_cut_from_their_lines(demo, battles, capsys):
    q = doc_queries()["structures_cut"]
    assert [(r["faction"], r["structure"], r["why"]) for r in sql(capsys, demo, q)] == [
        ("Syracusae", "Akrai", "no line reaches it"), ("Syracusae", "Gela", "besieged")]
    cut = {(r["faction"], r["structure"]) for r in sql(capsys, battles, q)}
    assert {("Carthago", "Lipara"), ("Carthago", "Tyndaris")} <= cut


def test_which_armies_may_take_allies(battles, capsys):
    rows = sql(capsys, battles, doc_queries()["allies"])
    assert [(r["engagement"], r["army"], r["faction"], r["within_reach"], r["allies"]) for r in rows] == [
        ("1", "7", "Carthago", "True", "['Numidian 341-56 BC', 'Moorish 341-56 BC']"),
        ("1", "14", "Roma", "True", "[]"),
    ]
    # The same as the engagement's set-up in the log, which the engine wrote.
    setups = sql(capsys, battles, "SELECT text FROM events WHERE kind = 'engagement_setup'")
    assert "allies allowed: Numidian 341-56 BC, Moorish 341-56 BC" in setups[0]["text"]


def test_who_besieges_what_since_when(demo, capsys):
    assert sql(capsys, demo, doc_queries()["sieges"]) == [{
        "structure": "Gela", "kind": "city", "defender": "Syracusae", "besieger": "Carthago", "armies": "[4]",
        "besieging_fp": "1600", "started_round": "1", "start_resilience": "2", "resilience": "2"}]


def test_vp_ledger_by_round(demo, revealed, capsys):
    # As the page says: `events` is the log as the umpire reads it, so the ledger runs before the
    # reveal too (round 2's sealed orders are who-submitted stand-ins, never what).
    code, out, err = bellica(capsys, "sql", demo, "--csv", doc_queries()["vp_ledger"])
    assert code == 0 and out.startswith("round,faction,awarded"), err
    rows = sql(capsys, revealed, doc_queries()["vp_ledger"])
    assert [(r["round"], r["faction"], r["awarded"], r["vp_after"], r["why"]) for r in rows] == [
        ("1", "Carthago", "-2", "-2", "Carthago -2 VP: engagement 1 fought (+1) and lost (-3)"),
        ("1", "Roma", "4", "4", "Roma +4 VP: engagement 1 fought (+1) and won (+3)"),
        ("1", "Syracusae", "0", "0", ""),
    ]
    # The ledger's last standing is the victory_points table.
    standing = {r["faction"]: r["vp"] for r in sql(capsys, revealed, "SELECT faction, vp FROM victory_points")}
    assert standing == {r["faction"]: r["vp_after"] for r in rows}


def test_carthaginian_towns_supplied_only_by_sea(demo, capsys):
    rows = sql(capsys, demo, doc_queries()["sea_only_supply"])
    assert [(r["structure"], r["zones"], r["from_structures"]) for r in rows] == [
        ("Agrigentum", "['Mare Africum']", "['Carthago']"),
        ("Camarina", "['Mare Africum']", "['Agrigentum', 'Carthago']"),
        ("Olbia", "['Mare Tyrrhenum']", "['Drepana', 'Eryx', 'Lilybaeum']"),
    ]


def test_structures_that_would_lose_their_supply_without_the_sea(demo, capsys):
    rows = sql(capsys, demo, doc_queries()["supply_without_sea"])
    assert {r["faction"] for r in rows} == {"Carthago"}
    lost = {r["structure"] for r in rows}
    assert {"Alalia", "Caralis", "Nora", "Olbia", "Sulci", "Tharros", "Agrigentum", "Panormus", "Lilybaeum"} <= lost
    assert not lost & {"Carthago", "Utica", "Hadrumetum", "Thapsus"}  # Africa is reached by land
    assert len(lost) == 21


def test_blockaded_structures_and_by_whom(demo, battles, capsys):
    q = doc_queries()["blockades"]
    assert [(r["structure"], r["controller"], r["by_factions"], r["navies"]) for r in sql(capsys, battles, q)] == [
        ("Lipara", "Carthago", "['Roma']", "[12]"),
        ("Mylae", "", "['Roma']", "[12]"),
        ("Tyndaris", "Carthago", "['Roma']", "[12]"),
    ]
    assert sql(capsys, demo, q) == []  # both navies landed in administration


def test_navies_at_sea_and_their_zones(demo, battles, capsys):
    q = doc_queries()["navies"]
    assert [(r["army"], r["faction"], r["strength"], r["kind"], r["zones"]) for r in sql(capsys, battles, q)] == [
        ("12", "Roma", "1600", "coast", "['Mare Tyrrhenum']")]
    assert sql(capsys, demo, q) == []


def test_armies_that_may_not_act_as_navies(demo, capsys):
    assert sql(capsys, demo, doc_queries()["navy_rest"]) == [
        {"army": "5", "faction": "Carthago", "until_round": "3", "resting_now": "True"}]


def test_which_hexes_of_the_strait_of_messina_roma_can_cross(demo, capsys):
    rows = sql(capsys, demo, doc_queries()["messina"])
    assert [(r["cell"], r["faction"], r["can_cross"]) for r in rows] == [
        ("853f2653fffffff", "Carthago", "False"), ("853f265bfffffff", "Carthago", "False"),
        ("853f2653fffffff", "Roma", "True"), ("853f265bfffffff", "Roma", "True"),
    ]
    carthago = [r for r in rows if r["faction"] == "Carthago"]
    assert all(r["enemy_cities"] == "['Messana', 'Rhegium']" for r in carthago)
    assert [r["enemy_armies"] for r in carthago] == ["[]", "[13]"]
    assert {r["best_level"] for r in rows if r["faction"] == "Roma"} == {"3"}


def test_naval_superiority_per_zone(demo, capsys):
    rows = {r["zone"]: (r["Carthago"], r["Roma"], r["Syracusae"]) for r in sql(capsys, demo, doc_queries()["superiority"])}
    assert rows["Mare Africum"] == ("3", "1", "1")
    assert rows["Mare Ionium"] == ("1", "3", "1")
    assert rows["Mare Tyrrhenum"] == ("2", "2", "1")
    assert len(rows) == 6


def test_where_every_army_stands_and_enemy_zoc(demo, capsys):
    rows = {r["army"]: r for r in sql(capsys, demo, doc_queries()["armies"])}
    assert len(rows) == 16
    assert (rows["14"]["structure"], rows["14"]["strength"], rows["14"]["enemy_zoc"]) == (
        "Tyndaris", "1578", "['structure Tyndaris']")
    assert (rows["7"]["structure"], rows["7"]["strength"]) == ("Cephaloedium", "1522")
    assert (rows["4"]["structure"], rows["4"]["enemy_zoc"]) == ("", "[]")  # besieged Gela exercises no ZoC
    assert [a for a, r in rows.items() if r["enemy_zoc"] != "[]"] == ["14"]


def test_who_holds_how_many_towns_and_cities(demo, capsys):
    rows = {r["faction"]: (r["towns"], r["cities"], r["changed_hands"]) for r in sql(capsys, demo, doc_queries()["holdings"])}
    assert rows == {"(nobody)": ("5", "2", "0"), "Carthago": ("26", "7", "0"), "Roma": ("44", "8", "1"),
                    "Syracusae": ("6", "2", "0")}


def test_engagements_and_results(demo, capsys):
    rows = sql(capsys, demo, doc_queries()["engagements"])
    assert [(r["round"], r["engagement"], r["army"], r["faction"], r["outcome"], r["casualties"]) for r in rows] == [
        ("1", "1", "7", "Carthago", "loss", "39"), ("1", "1", "14", "Roma", "win", "22")]


def test_siege_resilience(demo, capsys):
    rows = sql(capsys, demo, doc_queries()["resilience"])
    assert (rows[0]["structure"], rows[0]["resilience"]) == ("Syracusae", "4")
    gela = next(r for r in rows if r["structure"] == "Gela")
    assert gela["resilience"] == "2"  # as the siege of Gela started (sieges.start_resilience)


def test_every_query_on_the_page_is_tested():
    """A query added to the page without a test here, or a test whose query left the page, fails."""
    source = Path(__file__).read_text()
    used = set(re.findall(r'doc_queries\(\)\["(\w+)"\]', source))
    assert set(doc_queries()) == used, (
        f"on {DOC.name} but untested: {sorted(set(doc_queries()) - used)}; "
        f"tested but not on {DOC.name}: {sorted(used - set(doc_queries()))}")
