"""A rules key added to a ruleset after a campaign froze its rules (issue 22's table aids) reads as
the play of the bellica that made the campaign: the campaign opens, steps and re-adjudicates,
instead of being refused as "the stored rules are incomplete"."""

from __future__ import annotations

import subprocess
import sys

import duckdb

from bellica.datasets.rules import load_rules
from bellica.engine.rise_of_rome.battles import Battle
from bellica.engine.rise_of_rome.rules import Rules as RomeRules
from bellica.engine.vae_victis.battles import EngagementSetup, SideSetup
from bellica.engine.vae_victis.rules import Rules as VaeVictisRules
from tests.app.fixtures import field_campaign


def _without(merged: dict, section: str, key: str) -> dict:
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in merged.items()}
    del out[section][key]
    return out


def test_the_shipped_rules_carry_the_seeds_numbers():
    # Vae Victis: results within three weeks; Rise of Rome: an allied corps of at most a quarter.
    assert VaeVictisRules.from_mapping(load_rules("vae-victis-ii")).battles.result_window_days == 21
    assert RomeRules.from_mapping(load_rules("rise-of-rome")).battles.allied_corps_divisor == 4


def test_a_vae_victis_sheet_from_before_the_window_rule_reads_as_it_did():
    old = VaeVictisRules.from_mapping(_without(load_rules("vae-victis-ii"), "battles", "result_window_days"))
    assert old.battles.result_window_days == 0
    garrison = SideSetup(army=None, faction="Roma", fp=400, adjustments=(), allies=(), played_by="Roma",
                         played_by_reason="it holds the structure")
    army = SideSetup(army=3, faction="Carthago", fp=1200, adjustments=(), allies=())
    sheet = EngagementSetup(1, (army, garrison), "M1", "why", 3, "why")
    assert "result within" not in sheet.text() and "played by" not in sheet.text()
    new = EngagementSetup(1, (army, garrison), "M1", "why", 3, "why", result_window_days=21)
    assert "result within 21 days" in new.text() and "played by Roma" in new.text()


def test_a_rome_battle_from_before_the_table_aids_reads_as_it_did():
    old = RomeRules.from_mapping(_without(load_rules("rise-of-rome"), "battles", "allied_corps_divisor"))
    assert old.battles.allied_corps_divisor == 0
    battle = Battle(1, "Samnites", "Romans", "Campania", "Romans", 104, 80, 2, 2, 1, 1, False,
                    terrain=("hills",), attacker_allies=("Tarentine Greeks",))
    assert battle.table_text() == ""
    aided = Battle(1, "Samnites", "Romans", "Campania", "Romans", 104, 80, 2, 2, 1, 1, False,
                   terrain=("hills",), attacker_allies=("Tarentine Greeks",), allied_corps_divisor=4)
    assert "terrain on the map: hills" in aided.table_text() and "(at most 26 pts)" in aided.table_text()


def test_a_campaign_whose_frozen_rules_lack_the_window_still_verifies(tmp_path):
    path = tmp_path / "old.duckdb"
    field_campaign(path)
    con = duckdb.connect(str(path))
    assert con.execute("DELETE FROM rules WHERE key = 'battles.result_window_days' RETURNING key").fetchall()
    con.close()
    r = subprocess.run([sys.executable, "-m", "bellica.cli", "round", "verify", str(path), "--readjudicate"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "incomplete" not in r.stdout + r.stderr
