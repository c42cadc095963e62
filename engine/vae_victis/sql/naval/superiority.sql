-- superiority(zone, faction, level): every faction's Naval Superiority level in every sea zone
-- in force (seed, "Naval superiority"): the state table naval_superiority (published in step
-- 1.2), a missing row read as the rules' base level (rules key naval.superiority_base), so
-- every zone of hex_sea_zones x every faction has a row.
-- "Where may Roma cross a strait / draw NMP?"
--   SELECT zone, level FROM superiority WHERE faction = 'Roma' ORDER BY zone
CREATE OR REPLACE VIEW superiority AS
WITH base AS (
    SELECT max(CAST(value AS INTEGER)) AS level FROM rules WHERE key = 'naval.superiority_base'
),
zones AS (
    SELECT DISTINCT zone FROM hex_sea_zones WHERE zone IS NOT NULL
    UNION
    SELECT zone FROM naval_superiority
)
SELECT z.zone, f.name AS faction, coalesce(s.level, b.level) AS level
FROM zones z
-- ON true, not CROSS JOIN: in a file at DuckDB's default storage version, DuckDB 1.5 reads a stored
-- CROSS JOIN back as a comma, which binds looser than the LEFT JOIN after it, so the view's text would
-- no longer bind where the SQL console makes it again (tests/engine/core/test_console_views.py).
JOIN factions f ON true
JOIN base b ON true
LEFT JOIN naval_superiority s ON s.zone = z.zone AND s.faction = f.name;
