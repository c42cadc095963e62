-- The endpoints of a faction's lines: the towns/cities it controls that are
-- not sieged (and, for Coast links, not blockaded).  Only endpoints anchor
-- links: every other structure (uncontrolled, sieged, another faction's) is
-- just its hexes, so a line runs past it without ending or switching type
-- there, and never hops from one of its sides to the other through its land
-- hex (a town between two seas does not join them for anybody but its owner).
-- Another faction's unsieged structure cuts lines by its ZoC anyway.
CREATE OR REPLACE VIEW logistics_nodes AS
SELECT f.name AS faction, s.name AS structure, s.cell,
       coalesce(c.controller = f.name, false)
           AND s.name NOT IN (SELECT structure FROM sieges) AS endpoint,
       s.name IN (SELECT structure FROM logistics_blockades b WHERE b.navy_faction <> f.name) AS blockaded
FROM factions f
CROSS JOIN structures s
LEFT JOIN control c ON c.structure = s.name;

CREATE OR REPLACE VIEW logistics_endpoints AS
SELECT n.faction, t.link_type, n.structure
FROM logistics_nodes n
CROSS JOIN (VALUES ('road'), ('coast'), ('river')) t(link_type)
WHERE n.endpoint AND NOT (t.link_type = 'coast' AND n.blockaded);

-- Multi-source breadth-first "regions": per faction and link type, every
-- uninterrupted hex of the link graph takes the nearest endpoint (ties: the
-- alphabetically first).  Two endpoints whose regions touch are consecutive along
-- an uninterrupted path of one link type; two endpoints are connected in the graph
-- exactly when a chain of touching regions joins them, so this is exact
-- connectivity with only as many recursion steps as half the largest gap
-- between structures (a hex-by-hex search from the capitals needs the whole
-- length of the coast).
-- The search runs on logistics_core_edges, the link graph without its dead ends
-- (stretches of coast, road or river beyond the last structure, which can never
-- join two structures; see engine/logistics.py _core_cells), and over each
-- faction's uninterrupted edges, filtered once before the recursion.
CREATE OR REPLACE VIEW logistics_regions AS
WITH RECURSIVE
blocked AS MATERIALIZED (SELECT faction, medium, cell FROM logistics_interruptions),
open_edges AS MATERIALIZED (
    SELECT f.name AS faction, e.link_type, e.cell, e.neighbor
    FROM factions f
    CROSS JOIN logistics_core_edges e
    ANTI JOIN blocked i ON i.faction = f.name AND i.cell = e.neighbor
         AND i.medium = CASE e.link_type WHEN 'coast' THEN 'coast' ELSE 'land' END
),
open_attachments AS MATERIALIZED (
    SELECT n.faction, a.link_type, a.cell, a.structure
    FROM logistics_endpoints n
    JOIN logistics_attachments a ON a.structure = n.structure AND a.link_type = n.link_type
    ANTI JOIN blocked i ON i.faction = n.faction AND i.cell = a.cell
         AND i.medium = CASE a.link_type WHEN 'coast' THEN 'coast' ELSE 'land' END
),
r(faction, link_type, cell, seed, dist) USING KEY (faction, link_type, cell) AS (
    SELECT faction, link_type, cell, min(structure), 0
    FROM open_attachments
    GROUP BY faction, link_type, cell
    UNION
    SELECT r.faction, r.link_type, e.neighbor, min(r.seed), min(r.dist) + 1
    FROM r
    JOIN open_edges e ON e.faction = r.faction AND e.link_type = r.link_type AND e.cell = r.cell
    ANTI JOIN recurring.r q ON q.faction = r.faction AND q.link_type = r.link_type AND q.cell = e.neighbor
    GROUP BY r.faction, r.link_type, e.neighbor
)
SELECT faction, link_type, cell, seed, dist FROM r;
