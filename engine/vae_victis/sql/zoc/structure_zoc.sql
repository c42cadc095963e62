-- structure_zoc(structure, controller, cell): the hexes in each structure's Zone of Control.
-- Seed, "Zones of Control": a Town reaches over land and over Coast hexes less far
-- than a City; sieged Towns and Cities and structures controlled by nobody exercise
-- no ZoC.  How far each reaches is the campaign's frozen rules (table rules, keys
-- zoc.town_land_hexes, zoc.town_coast_hexes, zoc.city_land_hexes,
-- zoc.city_coast_hexes), the same values engine.vae_victis.zoc.structure_zoc reads.
-- The current controller is the `control` row; a structure without one keeps its
-- start controller from `structures` (engine.zoc.controller_of does the same).
-- Distances are steps between hexes of the map (neighbours outside `hexes` are
-- not walked through), as engine.zoc.cells_within counts them.
CREATE OR REPLACE VIEW structure_zoc AS
WITH RECURSIVE reach AS (
    SELECT
        max(CASE WHEN key = 'zoc.town_land_hexes' THEN CAST(value AS INTEGER) END) AS town_land,
        max(CASE WHEN key = 'zoc.town_coast_hexes' THEN CAST(value AS INTEGER) END) AS town_coast,
        max(CASE WHEN key = 'zoc.city_land_hexes' THEN CAST(value AS INTEGER) END) AS city_land,
        max(CASE WHEN key = 'zoc.city_coast_hexes' THEN CAST(value AS INTEGER) END) AS city_coast
    FROM rules
),
current_control AS (
    SELECT s.name, lower(s.kind) AS kind, s.cell,
           CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller
    FROM structures s
    LEFT JOIN control c ON c.structure = s.name
),
active AS (
    SELECT cc.*,
           CASE WHEN cc.kind = 'town' THEN r.town_land ELSE r.city_land END AS land_reach,
           CASE WHEN cc.kind = 'town' THEN r.town_coast ELSE r.city_coast END AS coast_reach
    FROM current_control cc, reach r
    WHERE cc.controller IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM sieges sg WHERE sg.structure = cc.name)
),
walk(name, cell, d) AS (
    SELECT name, cell, 0 FROM active
    UNION
    SELECT w.name, n.neighbor, w.d + 1
    FROM walk w
    JOIN active a ON a.name = w.name
    JOIN hex_neighbors n ON n.cell = w.cell
    JOIN hexes h ON h.cell = n.neighbor
    WHERE w.d < greatest(a.land_reach, a.coast_reach)
),
nearest AS (
    SELECT name, cell, min(d) AS d FROM walk GROUP BY name, cell
)
SELECT a.name AS structure, a.controller, a.cell FROM active a
UNION
SELECT a.name AS structure, a.controller, w.cell
FROM nearest w
JOIN active a ON a.name = w.name
JOIN hexes h ON h.cell = w.cell
WHERE (h.kind = 'coast' AND w.d <= a.coast_reach) OR (h.kind = 'land' AND w.d <= a.land_reach);
