"""Naval layers of a campaign map: navies, their ZoC, blockades, sea links, naval superiority, faction views.

The campaign is the synthetic Latium of tests/web_maps/synthetic.py plus, by hand, an Etruscan navy on
the Coast hex beside Roman Ostia (a blockade), a Roman navy out at sea, a Roman coastal town Antium, the
sea-zone links and each faction's superiority in Mare Tyrrhenum.
"""

from __future__ import annotations

import json
import re

import h3
import numpy as np
import pytest

from bellica.geo.hexgrid import cell_center
from bellica.geo.spatialdb import connect
from tests.web_maps.synthetic import FACTIONS, layer_payloads as _payloads, make_campaign_db
from bellica.web_maps.scenario_layers import load_scenario
from bellica.web_maps.terrain_map import load_hexes, render_terrain_map

COLOURS = {name: colour for name, colour, _, _ in FACTIONS}
ZONE = "Mare Tyrrhenum"


def _near(cell: str) -> set[str]:
    return set(h3.grid_disk(cell, 1)) - {cell}


def _naval_campaign(db, *, sea_supply: bool = True) -> dict:
    info = make_campaign_db(db)
    kinds = {r["cell"]: r["kind"] for r in info["rows"]}
    cells = {s[0]: s[3] for s in info["structures"]}
    ostia = cells["Ostia"]
    coast = sorted(c for c in _near(ostia) if kinds.get(c) == "coast")
    assert coast, "the synthetic map puts a Coast hex beside Ostia"
    navy_cell = coast[0]
    taken = set(cells.values())
    # Antium: a Roman town on the coast, out of reach of the Etruscan navy's ZoC.
    antium = sorted(c for c, k in kinds.items() if k == "land" and c not in taken
                    and any(kinds.get(n) == "coast" for n in _near(c)) and h3.grid_distance(c, navy_cell) >= 2)[0]
    # The Roman navy: on the Sea hex farthest from every structure, so it blockades nothing.
    structures = [*taken, antium]
    at_sea = max(sorted(c for c, k in kinds.items() if k == "sea"),
                 key=lambda c: min(h3.grid_distance(c, s) for s in structures))
    assert min(h3.grid_distance(at_sea, s) for s in structures) >= 2
    con = connect(db)
    try:
        lat, lng = cell_center(antium)
        con.execute("INSERT INTO structures VALUES ('Antium', 'Anzio', 'town', ?, 'Roma', FALSE, ST_Point(?, ?))",
                    [antium, lng, lat])
        # Strengths no other part of the page contains, so leaks are detectable.
        con.executemany("INSERT INTO armies (id, faction, cell, strength, eliminated) VALUES (?, ?, ?, ?, ?)", [
            [7, "Etrusci", navy_cell, 1777, False],
            [8, "Roma", at_sea, 1555, False],
            [9, "Roma", coast[-1] if len(coast) > 1 else at_sea, 1999, True],  # eliminated: no navy
        ])
        con.execute("CREATE TABLE IF NOT EXISTS naval_superiority (zone VARCHAR, faction VARCHAR, level INTEGER)")
        con.executemany("INSERT INTO naval_superiority (zone, faction, level) VALUES (?, ?, ?)",
                        [[ZONE, "Roma", 1], [ZONE, "Etrusci", 3]])
        if sea_supply:
            con.execute("CREATE TABLE sea_supply (faction VARCHAR, from_structure VARCHAR, to_structure VARCHAR, "
                        "zone VARCHAR)")
            con.executemany("INSERT INTO sea_supply VALUES (?, ?, ?, ?)",
                            [["Roma", "Antium", "Lavinium", ZONE], ["Etrusci", "Caere", "Tibur", ZONE]])
        else:
            con.execute("CREATE TABLE IF NOT EXISTS sea_links (faction VARCHAR, zone VARCHAR, structure VARCHAR, "
                        "rank INTEGER)")
            con.executemany("INSERT INTO sea_links (faction, zone, structure, rank) VALUES (?, ?, ?, ?)",
                            [["Roma", ZONE, "Lavinium", 1], ["Roma", ZONE, "Tibur", 2]])
    finally:
        con.close()
    return {**info, "navy": navy_cell, "at_sea": at_sea, "antium": antium, "cells": {**cells, "Antium": antium}}


@pytest.fixture
def naval(tmp_path):
    db = tmp_path / "latium.duckdb"
    return db, _naval_campaign(db)


def test_umpire_page_draws_navies_zoc_blockades_sea_links_and_superiority(naval, tmp_path):
    db, info = naval
    page = render_terrain_map(db, tmp_path / "umpire.html").read_text(encoding="utf-8")
    for layer in ("Navies", "Navy ZoC", "Blockades", "Sea links: Roma", "Sea links: Etrusci", "Armies"):
        assert f'"{layer}" :' in page, layer

    points = [p for layer in _payloads(page, "point_layer") for p in layer]
    navies = {p["text"]: p for p in points if p["shape"] == "navy"}
    assert set(navies) == {"7", "8"}  # army 9 is eliminated
    assert navies["7"]["colour"] == COLOURS["Etrusci"] and ["navy", 7] in navies["7"]["tip"]
    assert ["hex", "coast"] in navies["7"]["tip"] and ["strength", "1777 FP"] in navies["7"]["tip"]
    assert ["hex", "sea"] in navies["8"]["tip"] and ["sea zones", ZONE] in navies["8"]["tip"]
    assert {p["text"] for p in points if p["shape"] == "army"} == {"1", "2", "5"}  # navies are not land armies

    # The navy's ZoC: its hex and the 6 around it, in its faction's colour.
    cells = sorted(r["cell"] for r in info["rows"])
    zoc = _payloads(page, "hex_zone_layer")
    assert len(zoc) == 1
    by_colour = {}
    for i, c in zip(zoc[0]["i"], zoc[0]["c"]):
        by_colour.setdefault(c, set()).add(cells[i])
    expected = set(h3.grid_disk(info["navy"], 1)) & set(cells)
    assert by_colour[COLOURS["Etrusci"]] == expected and len(expected) == 7
    assert by_colour[COLOURS["Roma"]] == set(h3.grid_disk(info["at_sea"], 1)) & set(cells)

    # Ostia (Roma's) lies in the Etruscan navy's ZoC: blockaded; Antium and Etruscan Caere are not.
    rings = [p for p in points if p["shape"] == "ring" and p["tip"][0][0] == "structure"]  # not the siege's ring
    assert [r["tip"] for r in rings] == [[["structure", "Ostia"], ["blockaded by", "Etrusci navy 7"]]]
    assert rings[0]["colour"] == COLOURS["Etrusci"]
    towns = {p["label"]: p for p in points if p["shape"] in ("circle", "star")}
    assert ["blockaded by", "Etrusci navy 7"] in towns["Ostia"]["tip"]
    assert not any(r[0] == "blockaded by" for r in towns["Antium"]["tip"] + towns["Caere"]["tip"])

    # The sea link: a dashed line in the faction's colour from Antium's hex centre to Lavinium's.
    lines = _payloads(page, "line_layer")
    link = next(d for d in lines if d["tips"] and d["tips"][0][0] == ["sea link", "Roma"])
    assert link["style"]["color"] == COLOURS["Roma"] and link["style"]["dashArray"]
    assert link["tips"][0] == [["sea link", "Roma"], ["zone", ZONE], ["from", "Antium"], ["to", "Lavinium"]]
    xy = np.cumsum(np.array(link["v"][0]).reshape(-1, 2), axis=0) / link["q"]
    ends = np.array([cell_center(info["cells"][s])[::-1] for s in ("Antium", "Lavinium")])
    assert np.abs(xy - ends).max() < 1e-4

    # Naval superiority: in the sea zone's tooltip and the legend.
    zone = next(d for d in lines if d["tips"] and d["tips"][0][0] == ["sea zone", ZONE])
    assert ["Etrusci superiority", 3] in zone["tips"][0] and ["Roma superiority", 1] in zone["tips"][0]
    assert f"{ZONE}: Etrusci 3, Roma 1" in page and "Naval superiority" in page
    for legend in ("navy (army number)", "navy ZoC (Etrusci)", "sea link (Roma)", "blockaded (ring: navy's faction)"):
        assert legend in page, legend


def test_faction_view_shows_the_board_but_only_its_own_sea_links(naval, tmp_path):
    db, _ = naval
    page = render_terrain_map(db, tmp_path / "etrusci.html", faction="Etrusci").read_text(encoding="utf-8")
    assert '"Sea links: Etrusci" :' in page and '"Sea links: Roma" :' not in page
    lines = [t for d in _payloads(page, "line_layer") for t in d["tips"]]
    assert not any(t[0] == ["sea link", "Roma"] for t in lines) and "sea link (Roma)" not in page
    # Navies, their ZoC and the blockade are on the board for everyone.
    for layer in ("Navies", "Navy ZoC", "Blockades"):
        assert f'"{layer}" :' in page, layer
    assert "Etrusci navy 7" in page and "1777 FP" in page  # its own navy's strength
    # The Roman navy's strength never reaches Etruria's page (as a number of its own: the page's random
    # element ids are hex strings that may hold the digits).
    assert not re.search(r"(?<!\w)1555(?!\w)", page)
    navy = next(p for d in _payloads(page, "point_layer") for p in d if p["shape"] == "navy" and p["text"] == "8")
    assert ["strength", "hidden"] in navy["tip"]

    roma = render_terrain_map(db, tmp_path / "roma.html", faction="Roma").read_text(encoding="utf-8")
    assert '"Sea links: Roma" :' in roma and '"Sea links: Etrusci" :' not in roma and not re.search(r"(?<!\w)1777(?!\w)", roma)


def test_sea_link_targets_without_the_view_are_linked_from_own_coastal_structures(tmp_path):
    db = tmp_path / "links.duckdb"
    _naval_campaign(db, sea_supply=False)
    con = connect(db, read_only=True)
    try:
        naval = load_scenario(con, load_hexes(con)).naval
    finally:
        con.close()
    links = {(k.from_structure, k.to_structure): k for k in naval.sea_links}
    # Ostia is Roman and coastal, but blockaded: not a source; Antium is.
    assert set(links) == {("Antium", "Lavinium"), ("Antium", "Tibur")}
    assert links["Antium", "Lavinium"].counted is True
    assert links["Antium", "Tibur"].counted is False  # rank 2, Roma's level in the zone is 1
    page = render_terrain_map(db, tmp_path / "umpire.html").read_text(encoding="utf-8")
    assert "ranked beyond the faction's superiority level" in page


def test_the_blockade_view_is_read_when_present(naval):
    db, _ = naval
    con = connect(db)
    try:
        con.execute("CREATE TABLE blockaded_structures (structure VARCHAR, controller VARCHAR, navy_faction VARCHAR, "
                    "army INTEGER)")
        con.execute("INSERT INTO blockaded_structures VALUES ('Caere', 'Etrusci', 'Roma', 8)")
        naval = load_scenario(con, load_hexes(con)).naval
    finally:
        con.close()
    assert naval.blockades == {"Caere": (("Roma", 8),)}


def test_a_campaign_without_navies_draws_no_naval_layers(tmp_path):
    db = tmp_path / "plain.duckdb"
    make_campaign_db(db)
    page = render_terrain_map(db, tmp_path / "plain.html").read_text(encoding="utf-8")
    for layer in ("Navies", "Navy ZoC", "Blockades"):
        assert f'"{layer}" :' not in page
    assert "At sea" not in page and "Naval superiority" not in page


@pytest.mark.browser
def test_naval_page_in_chromium(naval, tmp_path):
    from tests.web_maps.browser import offline_page

    db, _ = naval
    html = render_terrain_map(db, tmp_path / "umpire.html")
    with offline_page(html) as run:
        page = run.page
        page.wait_for_selector(".bellica-navy", timeout=15000)
        assert sorted(page.locator(".bellica-navy .id").all_text_contents()) == ["7", "8"]
        # The umpire sees every strength on the counters.
        assert sorted(page.locator(".bellica-navy .fp").all_text_contents()) == ["1555", "1777"]
        legend = page.locator(".bellica-legend").inner_text()
        assert "navy ZoC (Etrusci)" in legend and f"{ZONE}: Etrusci 3, Roma 1" in legend
        assert run.errors == [] and run.blocked == []
