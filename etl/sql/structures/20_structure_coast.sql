-- "Adjacent to Coast hex" (Resilience +1, naval rules): a structure whose hex has
-- at least one neighbour of kind coast.  Ocean hexes do not count: the rules'
-- Coast hex is navigable water next to land.
CREATE OR REPLACE VIEW structure_coast AS
SELECT s.name AS structure,
       s.cell,
       count(h.cell) > 0 AS adjacent_to_coast,
       count(h.cell)::INTEGER AS coast_hexes
FROM structures AS s
LEFT JOIN hex_neighbors AS n ON n.cell = s.cell
LEFT JOIN hexes AS h ON h.cell = n.neighbor AND h.kind = 'coast'
GROUP BY s.name, s.cell;
