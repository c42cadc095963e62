-- zoc(faction, cell, source_kind, source): every hex under some faction's Zone of
-- Control and what exercises it ('army' or 'navy' with the army id, or 'structure' with its name).
-- "Is hex X in an enemy ZoC for faction F?" is
--   SELECT * FROM zoc WHERE cell = X AND faction <> F
CREATE OR REPLACE VIEW zoc AS
SELECT faction, cell, 'army' AS source_kind, CAST(army AS VARCHAR) AS source FROM army_zoc
UNION ALL
SELECT faction, cell, 'navy' AS source_kind, CAST(army AS VARCHAR) AS source FROM navy_zoc
UNION ALL
SELECT controller AS faction, cell, 'structure' AS source_kind, structure AS source FROM structure_zoc;
