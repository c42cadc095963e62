-- The sea zones a structure touches: those of the coast hexes next to it.  The
-- naval rules count a faction's coastal towns and cities per sea zone (the cap
-- on Influence points), and a structure on a zone border counts in both.
CREATE OR REPLACE VIEW structure_sea_zones AS
SELECT DISTINCT s.name AS structure, z.zone
FROM structures AS s
JOIN hex_neighbors AS n ON n.cell = s.cell
JOIN hexes AS h ON h.cell = n.neighbor AND h.kind = 'coast'
JOIN hex_sea_zones AS z ON z.cell = h.cell;
