-- zoc(faction, cell, source_kind, source): every hex under some faction's Zone of
-- Control and what exercises it ('army' with the army id, or 'structure' with its name).
-- "Is hex X in an enemy ZoC for faction F?" is
--   SELECT * FROM zoc WHERE cell = X AND faction <> F
-- Navies (1 hex around, all hexes) join this view in the naval issue.
CREATE OR REPLACE VIEW zoc AS
SELECT faction, cell, 'army' AS source_kind, CAST(army AS VARCHAR) AS source FROM army_zoc
UNION ALL
SELECT controller AS faction, cell, 'structure' AS source_kind, structure AS source FROM structure_zoc;
