"""A synthetic campaign with everything the play-aid layers read: the Latium of synthetic.py plus
``hex_neighbors`` (geo.hexgrid's clock numbering, as the map build writes it), the ruleset's
``rules`` rows, the engine's ZoC and superiority views, the round and phase, VP, a siege, a
movement note with paths for both factions, a battle, and logistics lines for both factions.

The logistics views need the logistics build's tables; here ``logistics_lines`` and
``supplied_structures`` are plain tables with the views' columns, which is all the map reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import h3

from bellica.datasets.rules import load_rules, rules_rows
from bellica.geo.hexgrid import neighbor_table
from bellica.geo.spatialdb import connect
from tests.web_maps.synthetic import make_campaign_db


def make_playaid_campaign(path: Path) -> dict:
    info = make_campaign_db(path)
    cells = [r["cell"] for r in info["rows"]]
    kinds = {r["cell"]: r["kind"] for r in info["rows"]}
    where = {s[0]: s[3] for s in info["structures"]}
    roma = where["Roma"]
    # Roman army 1's path: two steps from Roma over land hexes; Etruscan army 5's path ends at Caere.
    land = [c for c in h3.grid_ring(roma, 1) if kinds.get(c) == "land"]
    path1 = [land[0], roma]
    path5 = [next(c for c in h3.grid_ring(where["Caere"], 1) if kinds.get(c) == "land"), where["Caere"]]
    con = connect(path)
    try:
        con.executemany("INSERT INTO hex_neighbors VALUES (?, ?, ?, ?)", neighbor_table(cells))
        con.executemany("INSERT INTO rules VALUES (?, ?)", rules_rows(load_rules()))
        # The engine's own views, as a campaign file has them (superiority alone of the naval views:
        # the others need the logistics build's tables).
        from bellica.engine.vae_victis.zoc import install_zoc_views
        from bellica.geo.spatialdb import run_sql_file

        install_zoc_views(con)
        run_sql_file(con, Path(__file__).resolve().parents[2] / "engine" / "vae_victis" / "sql" / "naval" / "superiority.sql")
        con.executemany("INSERT INTO campaign VALUES (?, ?)", [["round", "3"], ["phase", "orders"],
                                                               ["stage", "initiative"]])
        con.executemany("INSERT INTO victory_points VALUES (?, ?)", [["Roma", 7], ["Etrusci", -3]])
        con.execute("INSERT INTO siege_armies VALUES ('Lavinium', 5)")
        con.execute("INSERT INTO round_notes VALUES (2, 'movement', ?)",
                    [json.dumps({"paths": {"1": path1, "5": path5}, "mp_spent": {"1": 4, "5": 2}})])
        con.execute("INSERT INTO round_notes VALUES (1, 'movement', ?)",
                    [json.dumps({"paths": {"2": [roma, land[1]]}})])
        con.execute("INSERT INTO engagements VALUES (2, 1, 1, 1, 5, NULL)")
        con.executemany("INSERT INTO engagement_results VALUES (2, 1, ?, ?, ?)", [[1, "win", 12], [5, "loss", 40]])
        con.execute("CREATE TABLE logistics_lines (faction VARCHAR, from_structure VARCHAR, to_structure VARCHAR, "
                    "link_type VARCHAR, from_depth INTEGER, to_depth INTEGER)")
        con.executemany("INSERT INTO logistics_lines VALUES (?, ?, ?, ?, ?, ?)",
                        [["Roma", "Roma", "Ostia", "road", 0, 1], ["Etrusci", "Caere", "Tibur", "land", 0, 1]])
        con.execute("CREATE TABLE supplied_structures (faction VARCHAR, structure VARCHAR, depth INTEGER)")
        con.executemany("INSERT INTO supplied_structures VALUES (?, ?, ?)",
                        [["Roma", "Roma", 0], ["Roma", "Ostia", 1], ["Etrusci", "Caere", 0], ["Etrusci", "Tibur", 1]])
    finally:
        con.close()
    return {**info, "cells": where, "path1": path1, "path5": path5}
