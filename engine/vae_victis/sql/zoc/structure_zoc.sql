-- structure_zoc(structure, controller, cell): the hexes in each structure's Zone of Control.
-- Seed, "Zones of Control":
--   Town = only its own location for land hexes, 1 hex around for Coast hexes;
--   City = 1 hex around for land hexes, 2 hexes around for Coast hexes;
--   sieged Towns and Cities and structures controlled by nobody exercise no ZoC.
-- The current controller is the `control` row; a structure without one keeps its
-- start controller from `structures` (engine.zoc.controller_of does the same).
-- Distances are steps between hexes of the map (neighbours outside `hexes` are
-- not walked through), as engine.zoc.cells_within counts them.
CREATE OR REPLACE VIEW structure_zoc AS
WITH current_control AS (
    SELECT s.name, lower(s.kind) AS kind, s.cell,
           CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller
    FROM structures s
    LEFT JOIN control c ON c.structure = s.name
),
active AS (
    SELECT * FROM current_control cc
    WHERE cc.controller IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM sieges sg WHERE sg.structure = cc.name)
),
ring1 AS (
    SELECT a.name, h.cell, h.kind
    FROM active a
    JOIN hex_neighbors n ON n.cell = a.cell
    JOIN hexes h ON h.cell = n.neighbor
),
ring2 AS (
    SELECT r.name, h.cell, h.kind
    FROM ring1 r
    JOIN hex_neighbors n ON n.cell = r.cell
    JOIN hexes h ON h.cell = n.neighbor
)
SELECT name AS structure, controller, cell FROM active
UNION
SELECT a.name AS structure, a.controller, r.cell
FROM active a JOIN ring1 r ON r.name = a.name
WHERE r.kind = 'coast' OR (r.kind = 'land' AND a.kind = 'city')
UNION
SELECT a.name AS structure, a.controller, r.cell
FROM active a JOIN ring2 r ON r.name = a.name
WHERE a.kind = 'city' AND r.kind = 'coast';
