-- Map views the umpire and the rules query by name.

-- A land hex next to a Coast hex, with the side (clock position of the land hex) they share.
CREATE OR REPLACE VIEW coast_adjacency AS
SELECT n.cell AS land_cell, n.neighbor AS coast_cell, n.clock
FROM hex_neighbors n
JOIN hexes a ON a.cell = n.cell AND a.kind = 'land'
JOIN hexes b ON b.cell = n.neighbor AND b.kind = 'coast';

-- Every side where land meets water of any kind (coast, sea, ocean, lake), seen from both hexes.
CREATE OR REPLACE VIEW sea_land_borders AS
SELECT n.cell, n.neighbor, n.clock, a.kind AS cell_kind, b.kind AS neighbor_kind
FROM hex_neighbors n
JOIN hexes a ON a.cell = n.cell
JOIN hexes b ON b.cell = n.neighbor
WHERE (a.kind = 'land') <> (b.kind = 'land');

-- Straits in the rules' sense: a Coast hex adjacent to two land hexes that are not adjacent to each other.
CREATE OR REPLACE VIEW straits AS
SELECT DISTINCT c.coast_cell AS cell, c.land_cell AS land_a, d.land_cell AS land_b
FROM coast_adjacency c
JOIN coast_adjacency d ON d.coast_cell = c.coast_cell AND c.land_cell < d.land_cell
WHERE NOT EXISTS (SELECT 1 FROM hex_neighbors x WHERE x.cell = c.land_cell AND x.neighbor = d.land_cell);
