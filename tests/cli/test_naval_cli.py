"""A naval round through the real `bellica` entry point (issue 9): sea links in orders, sealed from
other factions until every army has submitted; debarking in administration; the umpire's naval
views in `bellica sql`; a bad `--sea-link` as one error line.

The board is tests/engine/test_naval_rounds.py's :func:`islands` (Italia and Sicilia across Mare
Tyrrhenum) with two roman towns on Sicilia, Messana and Tyndaris.
"""

from __future__ import annotations

import pytest

from tests.cli.test_round_cli import bellica
from tests.engine.test_naval_rounds import BASE, PLACEMENTS, ROMAN_SICILIA, T, islands
from tests.engine.test_state import make_campaign


@pytest.fixture
def naval_campaign(tmp_path):
    """The islands campaign file, started (seed 5), initiative published: orders come next."""
    path = tmp_path / "naval.duckdb"
    c, m = make_campaign(path, placements=PLACEMENTS, m=islands(BASE + ROMAN_SICILIA))
    c.close()
    return path, m


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


def _sql(capsys, path, query) -> list[list[str]]:
    code, out, err = bellica(capsys, "sql", path, query, "--csv")
    assert code == 0, err
    return [line.split(",") for line in out.splitlines()]


def test_a_naval_round_through_the_cli(naval_campaign, capsys):
    c, m = naval_campaign
    for args in (("start", "--seed", "5"), ("publish",)):
        code, _, err = bellica(capsys, "round", *args[:1], c, *args[1:])
        assert code == 0, err

    # Seed, "Lines of logistics" 4: the targets are "selected by the faction as part of submitting
    # movement instructions each round".  Army 10 embarks at Ostia and sails to Sicilia's west corner.
    code, out, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "--army", "10", "--moves", "3 3 3",
                            "--sea-link", f"{T}:Tyndaris")
    assert code == 0, err
    assert out.strip() == "orders stored (sealed) for army 10"
    # Sealed: carthago reads neither roma's moves nor its sea links before every army has submitted.
    code, out, err = bellica(capsys, "round", "show", c, "--faction", "carthago")
    assert code == 0, err
    assert "army  10 (roma): initiative strength" in out
    assert "Tyndaris" not in out and "sea link" not in out and "3 3 3" not in out
    code, out, _ = bellica(capsys, "log", c, "--faction", "carthago", "--json")
    orders_lines = [line for line in out.splitlines() if '"put_orders"' in line]
    assert code == 0 and orders_lines and not any("Tyndaris" in line for line in orders_lines)  # nor its log
    code, out, _ = bellica(capsys, "round", "show", c, "--faction", "roma")
    assert "army  10 (roma): initiative strength, moves \"3 3 3\", sea link to Tyndaris across Mare Tyrrhenum" in out

    # Army 12 embarks at Cumae and sails next to Panormus (carthago): a blockade.
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=", "11=", "12=3 3 3 3 3")
    assert code == 0, err
    code, out, _ = bellica(capsys, "round", "show", c, "--faction", "carthago")
    assert "sea link" not in out  # carthago has not submitted yet
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "carthago", "1=", "2=")
    assert code == 0, err
    code, out, _ = bellica(capsys, "round", "show", c, "--faction", "carthago")
    assert "sea link to Tyndaris across Mare Tyrrhenum" in out  # every army has submitted: open

    code, out, err = bellica(capsys, "round", "move", c)
    assert code == 0, err
    assert "no armies of different factions are in each other's ZoC" in out

    navies = _sql(capsys, c, "SELECT army, faction, kind FROM navies ORDER BY army")
    assert navies == [["army", "faction", "kind"], ["10", "roma", "coast"], ["12", "roma", "coast"]]
    code, out, err = bellica(capsys, "sql", c, "SELECT * FROM navies")
    assert code == 0, err
    assert out.splitlines()[0].split() == ["army", "faction", "cell", "kind", "zones"]
    blockaded = _sql(capsys, c, "SELECT * FROM blockaded_structures")
    assert blockaded == [["structure", "controller", "navy_faction", "army"], ["Panormus", "carthago", "roma", "12"]]
    superiority = _sql(capsys, c, "SELECT * FROM superiority ORDER BY faction")
    assert superiority == [["zone", "faction", "level"], [T, "carthago", "2"], [T, "roma", "2"], [T, "syracusae", "2"]]
    code, out, err = bellica(capsys, "sql", c, "SELECT * FROM sea_supply")
    assert code == 0, err
    assert out.splitlines()[0].split() == ["faction", "from_structure", "to_structure", "zone"]
    supply = _sql(capsys, c, "SELECT DISTINCT faction, to_structure, zone FROM sea_supply ORDER BY ALL")
    assert supply == [["faction", "to_structure", "zone"], ["roma", "Tyndaris", T]]  # the link roma chose
    links = _sql(capsys, c, "SELECT faction, zone, structure, rank FROM sea_links WHERE faction = 'roma'")
    assert links == [["faction", "zone", "structure", "rank"], ["roma", T, "Tyndaris", "1"]]

    # Administration step 3: a land army named is refused, nothing written; then navy 10 debarks.
    before = c.read_bytes()
    code, _, err = bellica(capsys, "round", "administer", c, "--debark", "1=3")
    assert code == 1
    assert "debark: army 1 is not a navy" in _one_error_line(err)
    assert c.read_bytes() == before
    code, _, err = bellica(capsys, "round", "administer", c, "--debark", "10=Nowhere 3")
    assert code == 1 and "debark of navy 10 'Nowhere 3' is neither an H3 cell" in _one_error_line(err)
    # The hex written by the name the map's tooltip shows ("Messana 9 7"-like), not a clock position.
    import duckdb

    from bellica.web_maps.play_aids import load_hex_names

    with duckdb.connect(str(c), read_only=True) as con:
        name = load_hex_names(con).names[m.cell("3 3")]
    assert " " in name and not name.startswith("8")  # a structure and clock steps, not an H3 id
    code, out, err = bellica(capsys, "round", "administer", c, "--debark", f"10={name}")
    assert code == 0, err
    assert (f"navy 10 (roma) debarked from {m.cell('3')} into {m.cell('3 3')} (farmlands), 4 NMP ({T}): "
            "it is an army again") in out
    navies = _sql(capsys, c, "SELECT army FROM navies ORDER BY army")
    assert navies == [["army"], ["12"]]  # army 12 stays at sea on its Coast hex
    code, _, err = bellica(capsys, "round", "victory", c)
    assert code == 0, err
    code, out, err = bellica(capsys, "round", "verify", c, "--readjudicate")
    assert code == 0, err
    assert "recorded steps re-adjudicated from the scenario give the same" in out


def test_a_bad_sea_link_is_one_error_line(naval_campaign, capsys):
    c, _ = naval_campaign
    bellica(capsys, "round", "start", c)
    bellica(capsys, "round", "publish", c)
    before = c.read_bytes()
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "--army", "9", "--moves", "",
                          "--sea-link", "Mare Nostrum:Roma")
    assert code != 0
    line = _one_error_line(err)
    assert "'Mare Nostrum' is not a sea zone" in line and T in line
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "--army", "9", "--moves", "",
                          "--sea-link", "Mare Tyrrhenum")
    assert code != 0 and "is not ZONE:STRUCTURE" in _one_error_line(err)
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=", "--sea-link", f"{T}:Ostia")
    assert code == 2 and "--sea-link goes with --army N" in err
    assert c.read_bytes() == before
    code, out, _ = bellica(capsys, "round", "status", c)
    assert "orders missing from carthago armies 1, 2; roma armies 9, 10, 11, 12" in out
