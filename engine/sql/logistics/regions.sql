-- Every town/city is a node of every faction's link graphs; the faction's own
-- controlled, unsieged ones are the endpoints its lines may end at (and, for
-- Coast links, only when not blockaded).  Other structures (uncontrolled ones,
-- or sieged ones, which have no ZoC) are pass-through nodes: a line may run
-- past them, but not end there nor switch link type there.  Another faction's
-- unsieged structure never appears: its ZoC interrupts its own attachments.
CREATE OR REPLACE VIEW logistics_nodes AS
SELECT f.name AS faction, s.name AS structure, s.cell,
       coalesce(c.controller = f.name, false)
           AND s.name NOT IN (SELECT structure FROM sieges) AS endpoint,
       s.name IN (SELECT structure FROM logistics_blockades b WHERE b.navy_faction <> f.name) AS blockaded
FROM factions f
CROSS JOIN structures s
LEFT JOIN control c ON c.structure = s.name;

-- Multi-source breadth-first "regions": per faction and link type, every
-- uninterrupted hex of the link graph takes the nearest node (ties: the
-- alphabetically first).  Two nodes whose regions touch are consecutive along
-- an uninterrupted path of one link type; two nodes are connected in the graph
-- exactly when a chain of touching regions joins them, so this is exact
-- connectivity with only as many recursion steps as half the largest gap
-- between structures (a hex-by-hex search from the capitals needs the whole
-- length of the coast).
CREATE OR REPLACE VIEW logistics_regions AS
WITH RECURSIVE
blocked AS MATERIALIZED (SELECT faction, medium, cell FROM logistics_interruptions),
open_attachments AS MATERIALIZED (
    SELECT n.faction, a.link_type, a.cell, a.structure
    FROM logistics_nodes n
    JOIN logistics_attachments a ON a.structure = n.structure
    WHERE NOT EXISTS (
        SELECT 1 FROM blocked i
        WHERE i.faction = n.faction AND i.cell = a.cell
          AND i.medium = CASE a.link_type WHEN 'coast' THEN 'coast' ELSE 'land' END)
),
r(faction, link_type, cell, seed, dist) USING KEY (faction, link_type, cell) AS (
    SELECT faction, link_type, cell, min(structure), 0
    FROM open_attachments
    GROUP BY faction, link_type, cell
    UNION
    SELECT r.faction, r.link_type, e.neighbor, min(r.seed), min(r.dist) + 1
    FROM r
    JOIN logistics_edges e ON e.link_type = r.link_type AND e.cell = r.cell
    WHERE NOT EXISTS (
            SELECT 1 FROM recurring.r q
            WHERE q.faction = r.faction AND q.link_type = r.link_type AND q.cell = e.neighbor)
      AND NOT EXISTS (
            SELECT 1 FROM blocked i
            WHERE i.faction = r.faction AND i.cell = e.neighbor
              AND i.medium = CASE r.link_type WHEN 'coast' THEN 'coast' ELSE 'land' END)
    GROUP BY r.faction, r.link_type, e.neighbor
)
SELECT faction, link_type, cell, seed, dist FROM r;
