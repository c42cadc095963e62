-- navy_zoc(army, faction, cell): the hexes in each navy's Zone of Control.  Seed, "Zones of
-- Control": Navy = 1 hex around location for all hexes (land and water alike), its own hex
-- included (as army_zoc counts the army's own hex).
CREATE OR REPLACE VIEW navy_zoc AS
SELECT army, faction, cell FROM navies
UNION
SELECT v.army, v.faction, n.neighbor AS cell
FROM navies v
JOIN hex_neighbors n ON n.cell = v.cell;
