-- navies(army, faction, cell, kind, zones): the navies now.  A navy is a live army standing on a
-- Coast or Sea hex (seed, "Naval movement": the army "becoming" a navy once it enters its first
-- non-land hex); zones = the sea zones of its hex (two on a zone border), alphabetical.
-- Same army number, faction and strength (armies.strength) as the army it is.
CREATE OR REPLACE VIEW navies AS
SELECT a.id AS army, a.faction, a.cell, h.kind,
       coalesce((SELECT list(DISTINCT z.zone ORDER BY z.zone) FROM hex_sea_zones z WHERE z.cell = a.cell),
                []::VARCHAR[]) AS zones
FROM armies a
JOIN hexes h ON h.cell = a.cell
WHERE NOT coalesce(a.eliminated, false) AND h.kind IN ('coast', 'sea');
