-- Static link graph of the logistics lines (computed once per board).
--
-- Three link types, each its own graph, because the seed forbids switching type
-- between two consecutive towns/cities ("cannot switch between Road hexes and
-- River hexes"):
--   road : the road steps of road_edges (a road hex entered along the road),
--   coast: adjacent pairs of Coast hexes (hexes.kind = 'coast'),
--   river: adjacent pairs of River hexes that share a river (river_cells.river),
--          so two different rivers running side by side are not one waterway,
--          they meet where a hex belongs to both (a confluence).
-- Attachments are the hexes through which a town/city enters each graph:
--   road : its own hex when a road steps into it (roads end or cross there),
--   coast: every Coast hex adjacent to it,
--   river: its own hex when it is a River hex, plus (option river_access =
--          'adjacent') the River hexes adjacent to it.
CREATE OR REPLACE TABLE logistics_edges AS
SELECT DISTINCT 'road' AS link_type, cell, neighbor FROM road_edges
UNION
SELECT DISTINCT 'coast', n.cell, n.neighbor
FROM hex_neighbors n
JOIN hexes a ON a.cell = n.cell AND a.kind = 'coast'
JOIN hexes b ON b.cell = n.neighbor AND b.kind = 'coast'
UNION
SELECT DISTINCT 'river', n.cell, n.neighbor
FROM hex_neighbors n
JOIN river_cells ra ON ra.cell = n.cell
JOIN river_cells rb ON rb.cell = n.neighbor AND rb.river = ra.river;

CREATE OR REPLACE TABLE logistics_attachments AS
SELECT DISTINCT 'road' AS link_type, s.name AS structure, s.cell
FROM structures s
WHERE s.cell IN (SELECT cell FROM road_edges)
UNION
SELECT DISTINCT 'coast', s.name, n.neighbor
FROM structures s
JOIN hex_neighbors n ON n.cell = s.cell
JOIN hexes h ON h.cell = n.neighbor AND h.kind = 'coast'
UNION
SELECT DISTINCT 'river', s.name, s.cell
FROM structures s
WHERE s.cell IN (SELECT cell FROM river_cells)
UNION
SELECT DISTINCT 'river', s.name, n.neighbor
FROM structures s
JOIN hex_neighbors n ON n.cell = s.cell
WHERE getvariable('logistics_river_access') = 'adjacent'
  AND n.neighbor IN (SELECT cell FROM river_cells);

-- The ZoC every town/city would exercise (the view structure_zoc_reach of
-- sql/zoc/, by the campaign's rules), kept as a table so that interruptions only
-- filter it by current control.
CREATE OR REPLACE TABLE logistics_structure_zoc AS
SELECT structure, medium, cell FROM structure_zoc_reach;

-- The sea zones each town/city may link across (seed, "Lines of logistics" 4: Towns and Cities
-- "adjacent to a Coast hex in the same sea zone"): the zones (hex_sea_zones) of every Coast
-- hex adjacent to it.  A Coast hex on a zone border belongs to both zones.
CREATE OR REPLACE TABLE logistics_sea_coast AS
SELECT DISTINCT s.name AS structure, z.zone
FROM structures s
JOIN hex_neighbors n ON n.cell = s.cell
JOIN hexes h ON h.cell = n.neighbor AND h.kind = 'coast'
JOIN hex_sea_zones z ON z.cell = n.neighbor
WHERE z.zone IS NOT NULL;
