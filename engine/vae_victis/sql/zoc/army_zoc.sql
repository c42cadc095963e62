-- army_zoc(army, faction, cell): the hexes in each army's Zone of Control.
-- Seed, "Zones of Control": Army = 1 hex around location for all land hexes.
-- The army's own hex is in its ZoC (two armies side by side are each in the
-- other's ZoC, which is what starts an engagement).  Eliminated armies have none; an army at
-- sea is a navy, with the navy's ZoC instead (navy_zoc).
CREATE OR REPLACE VIEW army_zoc AS
WITH live AS (
    SELECT a.id, a.faction, a.cell FROM armies a JOIN hexes h ON h.cell = a.cell AND h.kind = 'land'
    WHERE NOT coalesce(a.eliminated, false)
)
SELECT id AS army, faction, cell FROM live
UNION
SELECT l.id AS army, l.faction, n.neighbor AS cell
FROM live l
JOIN hex_neighbors n ON n.cell = l.cell
JOIN hexes h ON h.cell = n.neighbor
WHERE h.kind = 'land';
