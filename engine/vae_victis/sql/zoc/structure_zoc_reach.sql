-- structure_zoc_reach(structure, medium, cell): the hexes each Town or City would hold in its
-- Zone of Control if it exercised one (who controls it and sieges are structure_zoc's
-- business): its own hex, the land hexes within its land reach and the Coast hexes within
-- its coast reach ('land' / 'coast' in `medium`).  Seed, "Zones of Control": a Town reaches
-- less far than a City; how far is the campaign's frozen rules (table rules, keys
-- zoc.town_land_hexes, zoc.town_coast_hexes, zoc.city_land_hexes, zoc.city_coast_hexes),
-- the same values engine.vae_victis.zoc.structure_zoc reads.  Distances are steps between
-- hexes of the map (neighbours outside `hexes` are not walked through), as
-- engine.vae_victis.zoc.cells_within counts them.  The logistics' static
-- logistics_structure_zoc is this relation, kept as a table.
CREATE OR REPLACE VIEW structure_zoc_reach AS
WITH RECURSIVE reach AS (
    SELECT
        max(CASE WHEN key = 'zoc.town_land_hexes' THEN CAST(value AS INTEGER) END) AS town_land,
        max(CASE WHEN key = 'zoc.town_coast_hexes' THEN CAST(value AS INTEGER) END) AS town_coast,
        max(CASE WHEN key = 'zoc.city_land_hexes' THEN CAST(value AS INTEGER) END) AS city_land,
        max(CASE WHEN key = 'zoc.city_coast_hexes' THEN CAST(value AS INTEGER) END) AS city_coast
    FROM rules
),
sites AS (
    SELECT s.name, s.cell,
           CASE WHEN lower(s.kind) = 'town' THEN r.town_land ELSE r.city_land END AS land_reach,
           CASE WHEN lower(s.kind) = 'town' THEN r.town_coast ELSE r.city_coast END AS coast_reach
    FROM structures s, reach r
),
walk(name, cell, d) AS (
    SELECT name, cell, 0 FROM sites
    UNION
    SELECT w.name, n.neighbor, w.d + 1
    FROM walk w
    JOIN sites s ON s.name = w.name
    JOIN hex_neighbors n ON n.cell = w.cell
    JOIN hexes h ON h.cell = n.neighbor
    WHERE w.d < greatest(s.land_reach, s.coast_reach)
),
nearest AS (
    SELECT name, cell, min(d) AS d FROM walk GROUP BY name, cell
)
SELECT name AS structure, 'land' AS medium, cell FROM sites
UNION
SELECT w.name AS structure, h.kind AS medium, w.cell
FROM nearest w
JOIN sites s ON s.name = w.name
JOIN hexes h ON h.cell = w.cell
WHERE (h.kind = 'coast' AND w.d <= s.coast_reach) OR (h.kind = 'land' AND w.d <= s.land_reach);
