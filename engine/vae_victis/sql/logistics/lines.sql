-- The links of the network: endpoint to endpoint along one link type (both
-- directions), plus the sea-zone links of sea.sql (type 'sea', directed: from a
-- port to a chosen target only; one row however many zones join the pair).
CREATE OR REPLACE VIEW logistics_line_links AS
SELECT faction, link_type, a AS from_structure, b AS to_structure
FROM logistics_links
UNION ALL
SELECT DISTINCT s.faction, 'sea', s.from_structure, s.to_structure
FROM logistics_sea_links s;

-- Lines originate at each controlled, unsieged capital and grow link by link:
-- depth = number of links from the nearest capital.  One recursive query
-- yields both the supplied structures (row_kind 'node') and the links between
-- them (row_kind 'link'), so each of the two views below computes it once.
-- (USING KEY with UNION ALL, the form DuckDB 1.5.6 does not warn about; see regions.sql.)
CREATE OR REPLACE VIEW logistics_network AS
WITH RECURSIVE
line_links AS MATERIALIZED (SELECT * FROM logistics_line_links),
capitals AS (
    SELECT f.name AS faction, cap.structure
    FROM factions f, unnest(f.capitals) AS cap(structure)
),
reach(faction, structure, depth) USING KEY (faction, structure) AS (
    SELECT c.faction, c.structure, 0
    FROM capitals c
    JOIN logistics_nodes n ON n.faction = c.faction AND n.structure = c.structure AND n.endpoint
    UNION ALL
    SELECT r.faction, l.to_structure, min(r.depth) + 1
    FROM reach r
    JOIN line_links l ON l.faction = r.faction AND l.from_structure = r.structure
    WHERE NOT EXISTS (SELECT 1 FROM recurring.reach q
                      WHERE q.faction = r.faction AND q.structure = l.to_structure)
    GROUP BY r.faction, l.to_structure
),
supplied AS MATERIALIZED (SELECT * FROM reach)
SELECT 'node' AS row_kind, faction, NULL::VARCHAR AS from_structure, structure AS to_structure,
       NULL::VARCHAR AS link_type, NULL::INTEGER AS from_depth, depth AS to_depth
FROM supplied
UNION ALL
-- the links, oriented away from the capitals (equal depth: alphabetical),
-- parallel links of different types are all listed
SELECT 'link', l.faction, l.from_structure, l.to_structure, l.link_type, sf.depth, st.depth
FROM line_links l
JOIN supplied sf ON sf.faction = l.faction AND sf.structure = l.from_structure
JOIN supplied st ON st.faction = l.faction AND st.structure = l.to_structure
WHERE sf.depth < st.depth OR (sf.depth = st.depth AND l.from_structure < l.to_structure);

-- Both read the network through a MATERIALIZED CTE: a filter on row_kind (or on anything else
-- the caller adds) then stays outside it.  Pushed into the view, DuckDB may plan the filter into
-- the recursion and recompute logistics_regions at every step of `reach` (issue 11: 8,514
-- region rows instead of 774, 10x the time); the fence keeps one evaluation per query.
CREATE OR REPLACE VIEW supplied_structures AS
WITH network AS MATERIALIZED (SELECT * FROM logistics_network)
SELECT faction, to_structure AS structure, to_depth AS depth
FROM network WHERE row_kind = 'node';

CREATE OR REPLACE VIEW logistics_lines AS
WITH network AS MATERIALIZED (SELECT * FROM logistics_network)
SELECT faction, from_structure, to_structure, link_type, from_depth, to_depth
FROM network WHERE row_kind = 'link';
