"""engine/core/rule_sql.py: the macros a ruleset's views read one frozen rule by."""

from __future__ import annotations

import duckdb

from bellica.engine.core.rule_sql import install_rule_macros, views_installer


def _campaign():
    con = duckdb.connect()
    con.execute("CREATE TABLE rules (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")
    con.execute("""INSERT INTO rules VALUES ('victory.provinces', '12'), ('options.diagonals', '"as_written"'),
                   ('options.flag', 'true'), ('ice.closed', '["Early Spring"]'), ('costs.hq', '4')""")
    return con


def test_each_macro_reads_one_rule_as_its_type():
    con = _campaign()
    install_rule_macros(con)
    row = con.execute("SELECT rule_int('victory.provinces'), rule_text('options.diagonals', 'both_ways'), "
                      "rule_bool('options.flag', false), rule_value('ice.closed'), rule_int('costs.' || 'hq')").fetchone()
    assert row == (12, "as_written", True, '["Early Spring"]', 4)


def test_a_rule_the_campaign_lacks_is_null_or_what_the_view_says():
    con = _campaign()
    install_rule_macros(con)
    row = con.execute("SELECT rule_int('victory.nothing'), rule_text('options.later', 'old_play'), "
                      "rule_bool('options.later', false)").fetchone()
    assert row == (None, "old_play", False)


def test_a_rulesets_views_come_after_the_macros(tmp_path):
    views = tmp_path / "views.sql"
    views.write_text("CREATE OR REPLACE VIEW to_win AS SELECT rule_int('victory.provinces') AS n;\n")
    con = _campaign()
    views_installer(views)(con)
    assert con.execute("SELECT n FROM to_win").fetchone() == (12,)
