-- One value of the campaign's frozen rules (schema/campaign.sql's `rules`: the dotted key, the
-- value as JSON), as the rulesets' views read it.  A key the campaign's rules lack (a campaign
-- frozen before the key came) is NULL, or `otherwise` where the view names how such a campaign plays.
-- Installed before every stepped ruleset's views (engine/core/rule_sql.py: views_installer).
CREATE OR REPLACE MACRO rule_value(k) AS (SELECT value FROM rules WHERE key = k);
CREATE OR REPLACE MACRO rule_int(k) AS CAST(rule_value(k) AS INTEGER);
CREATE OR REPLACE MACRO rule_text(k, otherwise) AS coalesce(json_extract_string(rule_value(k), '$'), otherwise);
CREATE OR REPLACE MACRO rule_bool(k, otherwise) AS coalesce(CAST(rule_value(k) AS BOOLEAN), otherwise);
