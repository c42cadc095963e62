-- Province views (docs/provinces.md): what the rules and the umpire ask of the province tables.

-- (a, b, kind): an army in province a may reach province b. kind 'land': a hex of a borders a hex
-- of b, neither of them a barrier hex (so land rows come in both directions); 'exception': a
-- declared province_exceptions row (both directions unless one_way).
CREATE OR REPLACE VIEW province_adjacency AS
SELECT DISTINCT pa.province AS a, pb.province AS b, 'land' AS kind
FROM hex_neighbors n
JOIN province_cells pa ON pa.cell = n.cell AND NOT pa.barrier
JOIN province_cells pb ON pb.cell = n.neighbor AND NOT pb.barrier
WHERE pa.province <> pb.province
UNION
SELECT from_province AS a, to_province AS b, 'exception' AS kind FROM province_exceptions
UNION
SELECT to_province AS a, from_province AS b, 'exception' AS kind FROM province_exceptions WHERE NOT one_way;

-- (province, sea): a hex of the province borders a water hex of the sea area (it is coastal on that sea).
CREATE OR REPLACE VIEW province_seas AS
SELECT DISTINCT p.province, s.sea
FROM province_cells p
JOIN hex_neighbors n ON n.cell = p.cell
JOIN sea_area_cells s ON s.cell = n.neighbor;

-- (a, b): two sea areas whose water hexes touch (in both directions).
CREATE OR REPLACE VIEW sea_area_adjacency AS
SELECT DISTINCT sa.sea AS a, sb.sea AS b
FROM hex_neighbors n
JOIN sea_area_cells sa ON sa.cell = n.cell
JOIN sea_area_cells sb ON sb.cell = n.neighbor
WHERE sa.sea <> sb.sea;
