-- blockaded_structures(structure, controller, navy_faction, army): seed, "Blockades": "A Town
-- or City located within the ZoC of a another faction's navy is 'blockaded'."  One row per
-- blockading navy; a structure nobody controls is blockaded by any navy.  The controller is
-- the `control` row, else the structure's start controller (as structure_zoc reads it).
-- "Which structures are blockaded, by whom?"
--   SELECT structure, controller, list(DISTINCT navy_faction) FROM blockaded_structures GROUP BY ALL
CREATE OR REPLACE VIEW blockaded_structures AS
WITH current_control AS (
    SELECT s.name, s.cell,
           CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller
    FROM structures s
    LEFT JOIN control c ON c.structure = s.name
)
SELECT cc.name AS structure, cc.controller, z.faction AS navy_faction, z.army
FROM current_control cc
JOIN navy_zoc z ON z.cell = cc.cell
WHERE cc.controller IS DISTINCT FROM z.faction;
