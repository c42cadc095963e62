-- structure_zoc(structure, controller, cell): the hexes in each structure's Zone of Control.
-- Seed, "Zones of Control": the hexes of structure_zoc_reach, for the Towns and Cities some
-- faction controls and nobody besieges (sieged structures and structures controlled by
-- nobody exercise no ZoC).  The current controller is the `control` row; a structure
-- without one keeps its start controller from `structures` (engine.zoc.controller_of does
-- the same).
CREATE OR REPLACE VIEW structure_zoc AS
WITH current_control AS (
    SELECT s.name,
           CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller
    FROM structures s
    LEFT JOIN control c ON c.structure = s.name
)
SELECT DISTINCT r.structure, cc.controller, r.cell
FROM structure_zoc_reach r
JOIN current_control cc ON cc.name = r.structure
WHERE cc.controller IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM sieges sg WHERE sg.structure = cc.name);
