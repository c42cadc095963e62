-- Views over the campaign tables the rules query by name.

-- Both directions of every road step, with the clock side of `cell` the road crosses.
CREATE OR REPLACE VIEW road_edges AS
WITH steps AS (
    SELECT road, cell, lead(cell) OVER (PARTITION BY road ORDER BY seq) AS neighbor FROM road_cells
), pairs AS (
    SELECT road, cell, neighbor FROM steps WHERE neighbor IS NOT NULL AND neighbor <> cell
    UNION
    SELECT road, neighbor AS cell, cell AS neighbor FROM steps WHERE neighbor IS NOT NULL AND neighbor <> cell
)
SELECT p.road, p.cell, p.neighbor, n.clock
FROM pairs AS p
JOIN hex_neighbors AS n ON n.cell = p.cell AND n.neighbor = p.neighbor;
