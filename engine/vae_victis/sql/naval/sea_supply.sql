-- sea_supply(faction, from_structure, to_structure, zone): the sea-zone links the logistics
-- network actually uses (seed, "Lines of logistics" 4): the 'sea' lines of logistics_lines
-- (between supplied structures, oriented away from the capitals) with the zone each crosses
-- (logistics_sea_links: a pair of ports on two shared zones with a chosen target in both has a
-- row per zone).
--
-- "Which Carthaginian towns are supplied only by sea, and through which zone?" (every line by
-- which the network reaches them is a sea-zone link):
--   SELECT s.structure, list(DISTINCT q.zone ORDER BY q.zone) AS zones,
--          list(DISTINCT q.from_structure ORDER BY q.from_structure) AS from_structures
--   FROM supplied_structures s
--   JOIN sea_supply q ON q.faction = s.faction AND q.to_structure = s.structure
--   ANTI JOIN (SELECT faction, to_structure FROM logistics_lines WHERE link_type <> 'sea') l
--     ON l.faction = s.faction AND l.to_structure = s.structure
--   WHERE s.faction = 'Carthago'
--   GROUP BY s.structure ORDER BY s.structure
-- "Which would lose their supply without the sea?" (not reached from a capital by land,
-- coast and river links alone):
--   WITH RECURSIVE by_land(faction, structure) AS (
--       SELECT faction, structure FROM supplied_structures WHERE depth = 0
--       UNION
--       SELECT l.faction, l.to_structure FROM by_land b JOIN logistics_line_links l
--         ON l.faction = b.faction AND l.from_structure = b.structure AND l.link_type <> 'sea')
--   SELECT s.structure FROM supplied_structures s
--   ANTI JOIN by_land b ON b.faction = s.faction AND b.structure = s.structure
--   WHERE s.faction = 'Carthago' ORDER BY s.structure
-- (tests/engine/test_sea_logistics.py runs both.)
CREATE OR REPLACE VIEW sea_supply AS
SELECT DISTINCT l.faction, l.from_structure, l.to_structure, s.zone
FROM logistics_lines l
JOIN logistics_sea_links s
  ON s.faction = l.faction AND s.from_structure = l.from_structure AND s.to_structure = l.to_structure
WHERE l.link_type = 'sea';
